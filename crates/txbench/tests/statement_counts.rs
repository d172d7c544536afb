//! Statement for statement: each of pgbench's built-in scripts and
//! sysbench's OLTP scripts, run for the same number of transactions by the
//! original and by txbench, sends the same statements the same number of
//! times, as the server counts them: PostgreSQL's pg_stat_statements and
//! MariaDB's Com_* counters (SHOW GLOBAL STATUS), on servers of the test's
//! own (pg_stat_statements needs a setting the shared server lacks; the
//! counters are the whole server's, so nothing else may run on it).
//!
//! Counted: every statement that reads or writes the workload's tables, and
//! BEGIN and COMMIT (pgbench's END is a COMMIT; a read-only BEGIN is a
//! BEGIN). Left out: each tool's once-a-run setup (pgbench's count of the
//! branches, txbench's scale and metadata reads, session settings).
//! On MariaDB, where the counters cannot tell setup from workload, txbench's
//! count is the difference of a run of 2N transactions and one of N (its
//! setup is the same in both: 13 SELECTs and 2 COMMITs, seen by hand).
//! MariaDB's performance schema was tried first: it records no digest for a
//! prepared statement's execution (COM_STMT_EXECUTE), which is how both
//! tools send theirs.
//! PostgreSQL 15's pg_stat_statements counts a prepared BEGIN or END once
//! however often it runs (pgbench -M prepared's: 1 of 60), so there
//! BEGIN and COMMIT are counted from the server's statement log
//! (`log_statement = all`) instead.

use std::collections::BTreeMap;
use std::path::Path;

mod support;
use support::{server_url, text, txbench_output};
use txbench_test_support::command::run;
use txbench_test_support::maria_server::MariaServer;
use txbench_test_support::pg_cluster::PgCluster;

/// txbench's two ways of sending: like for like (one statement a round
/// trip, as the originals send them), and its default.
const ROUND_TRIPS: [&str; 2] = ["statement", "pipelined"];

/// Transactions each tool runs.
const N: &str = "60";

/// A statement's text as both tools' can be compared: lowercase, one space
/// between words, no quotes around names, no trailing semicolon, END as
/// COMMIT and any BEGIN as BEGIN; `None` for what is not counted.
fn counted(text: &str) -> Option<String> {
    let t = text
        .replace('`', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(';')
        .trim()
        .to_lowercase();
    if t == "end" || t == "commit" {
        return Some("commit".into());
    }
    if t.starts_with("begin") || t.starts_with("start transaction") {
        return Some("begin".into());
    }
    let workload = t.contains("pgbench_") || t.contains("sbtest");
    let setup = t.contains("txbench_") || t.contains("count(") || t.contains("max(");
    (workload && !setup).then(|| t.replace("= ", "=").replace(" =", "="))
}

/// Statement texts and their counts, summed by their comparable form.
fn tally(rows: impl IntoIterator<Item = (String, i64)>) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for (text, calls) in rows {
        if let Some(t) = counted(&text) {
            *out.entry(t).or_insert(0) += calls;
        }
    }
    out
}

/// `txbench ARGS --transactions n` with one terminal and no warm-up.
fn txbench_runs(dir: &Path, args: &[&str], n: &str) {
    let mut all = args.to_vec();
    all.extend([
        "--transactions",
        n,
        "-t",
        "1",
        "--warmup",
        "0s",
        "--no-report",
    ]);
    let out = txbench_output(dir, &all);
    assert!(out.status.success(), "{args:?}: {}", text(&out));
}

/// PostgreSQL's statements since the last reset: the workload's from
/// pg_stat_statements, BEGIN and COMMIT from what `log` gained since it
/// was `from` bytes long.
fn pg_counts(port: &str, log: &Path, from: u64) -> BTreeMap<String, i64> {
    let mut counts = pg_statements(port);
    counts.remove("begin");
    counts.remove("commit");
    let text = std::fs::read(log).unwrap();
    let new = String::from_utf8_lossy(&text[from as usize..]).into_owned();
    for line in new.lines() {
        // "LOG:  statement: BEGIN" (simple) or "LOG:  execute P_1: END".
        let Some((_, said)) = line.split_once("LOG:  ") else {
            continue;
        };
        let Some((how, sql)) = said.split_once(": ") else {
            continue;
        };
        if (how == "statement" || how.starts_with("execute"))
            && let Some(t @ ("begin" | "commit")) = counted(sql).as_deref()
        {
            *counts.entry(t.to_string()).or_insert(0) += 1;
        }
    }
    counts
}

/// The log's length now: where the next run's statements start.
fn log_end(log: &Path) -> u64 {
    std::fs::metadata(log).map_or(0, |m| m.len())
}

/// `psql` on the test's cluster's database `t`, running `sql`, rows
/// unaligned and tab-separated; what it printed.
fn psql(port: &str, sql: &str) -> String {
    let connect = ["-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "t"];
    let out = run(&[&["psql"][..], &connect, &["-At", "-F", "\t", "-c", sql]].concat());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The workload's statements pg_stat_statements counted since its reset.
fn pg_statements(port: &str) -> BTreeMap<String, i64> {
    let sql = "SELECT calls, query FROM pg_stat_statements \
               JOIN pg_database d ON d.oid = dbid WHERE d.datname = 't'";
    tally(psql(port, sql).lines().filter_map(|l| {
        let (calls, query) = l.split_once('\t')?;
        Some((query.to_string(), calls.parse().ok()?))
    }))
}

fn pg_reset(port: &str) {
    psql(port, "SELECT pg_stat_statements_reset()");
}

/// pgbench beside the server.
fn pgbench() -> String {
    let mut found: Vec<_> = std::fs::read_dir("/usr/lib/postgresql")
        .unwrap()
        .flatten()
        .map(|e| e.path().join("bin/pgbench"))
        .filter(|p| p.exists())
        .collect();
    found.sort();
    found
        .pop()
        .expect("pgbench beside PostgreSQL")
        .display()
        .to_string()
}

/// sysbench's flags for the test's own server at `url` (one table of
/// 1,000 rows, one thread, `N` events, uniform requests).
fn sysbench_flags(driver: &str, port: &str) -> Vec<String> {
    let user = if driver == "mysql" {
        "root"
    } else {
        "postgres"
    };
    let mut flags: Vec<String> = [
        ("host", "127.0.0.1"),
        ("port", port),
        ("user", user),
        ("db", "t"),
    ]
    .iter()
    .map(|(k, v)| format!("--{driver}-{k}={v}"))
    .collect();
    flags.push(format!("--db-driver={driver}"));
    flags.extend(
        [
            "--tables=1",
            "--table-size=1000",
            "--threads=1",
            "--time=0",
            "--rand-type=uniform",
        ]
        .map(String::from),
    );
    flags.push(format!("--events={N}"));
    flags
}

const SYSBENCH_SCRIPTS: [&str; 8] = [
    "oltp_read_write",
    "oltp_read_only",
    "oltp_write_only",
    "oltp_point_select",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_insert",
    "oltp_delete",
];

/// sysbench `script` on the server at `port`, `N` events.
fn sysbench_runs(script: &str, driver: &str, port: &str) {
    let mut args = vec![script.to_string()];
    args.extend(sysbench_flags(driver, port));
    // The form txbench sends: its tables have no AUTO_INCREMENT.
    if script == "oltp_insert" {
        args.push("--auto-inc=off".into());
    }
    args.push("run".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&[&["sysbench"][..], &args].concat());
}

#[test]
fn pgbench_and_sysbench_scripts_send_the_same_statements_on_postgres() {
    if server_url("TXBENCH_TEST_POSTGRES_URL").is_none() {
        return;
    }
    let _alone = support::alone();
    let cluster = PgCluster::start_with(
        "txbench_statements",
        54395,
        None,
        &[
            "shared_preload_libraries=pg_stat_statements",
            "log_statement=all",
        ],
    );
    let port = cluster.port().to_string();
    let log = cluster.log();
    let counts = |from: u64| pg_counts(&port, &log, from);
    let url = cluster.url();
    psql(&port, "CREATE EXTENSION pg_stat_statements");
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let load = txbench_output(dir, &["pgbench", "load", "--db", &url]);
    assert!(load.status.success(), "{}", text(&load));
    // The original's statements, then txbench's in each way of sending.
    let agree = |what: &str, original: &dyn Fn(), txbench: &[&str]| {
        pg_reset(&port);
        let from = log_end(&log);
        original();
        let by_original = counts(from);
        assert!(!by_original.is_empty(), "{what}: nothing counted");
        for mode in ROUND_TRIPS {
            pg_reset(&port);
            let from = log_end(&log);
            txbench_runs(dir, &[txbench, &["--round-trips", mode]].concat(), N);
            let by_txbench = counts(from);
            assert_eq!(
                by_txbench, by_original,
                "{what} {mode}: txbench, then the original"
            );
        }
    };
    for builtin in ["tpcb-like", "simple-update", "select-only"] {
        let pgbench_runs = || {
            let args = [
                "-n", "-M", "prepared", "-c", "1", "-t", N, "-b", builtin, &url,
            ];
            run(&[&[pgbench().as_str()][..], &args].concat());
        };
        let args = ["pgbench", "run", "--db", &url, "--builtin", builtin];
        agree(builtin, &pgbench_runs, &args);
    }
    let load = ["sysbench", "load", "--db", &url, "--table-size", "1000"];
    let out = txbench_output(dir, &load);
    assert!(out.status.success(), "{}", text(&out));
    for script in SYSBENCH_SCRIPTS {
        let args = ["sysbench", "run", "--db", &url, "--script", script];
        agree(script, &|| sysbench_runs(script, "pgsql", &port), &args);
    }
}

/// MariaDB's counters of the statements the workloads send.
const COUNTERS: &str = "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select', \
    'Com_insert', 'Com_update', 'Com_delete', 'Com_begin', 'Com_commit', 'Com_rollback')";

fn maria_counters(server: &MariaServer) -> BTreeMap<String, i64> {
    let said = server.sql(COUNTERS);
    said.lines()
        .filter_map(|l| {
            let (name, n) = l.split_once('\t')?;
            Some((name.to_lowercase(), n.trim().parse().ok()?))
        })
        .collect()
}

/// What `run` adds to the counters.
fn maria_added(server: &MariaServer, run: impl FnOnce()) -> BTreeMap<String, i64> {
    let before = maria_counters(server);
    run();
    let after = maria_counters(server);
    after
        .iter()
        .map(|(k, v)| (k.clone(), v - before[k]))
        .collect()
}

#[test]
fn sysbench_scripts_send_the_same_statements_on_mariadb() {
    if server_url("TXBENCH_TEST_MYSQL_URL").is_none() {
        return;
    }
    let _alone = support::alone();
    let server = MariaServer::start("statements", 33995, &["performance_schema=ON"]);
    let url = server.url();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let load = ["sysbench", "load", "--db", &url, "--table-size", "1000"];
    let out = txbench_output(dir, &load);
    assert!(out.status.success(), "{}", text(&out));
    let twice = (N.parse::<u32>().unwrap() * 2).to_string();
    for script in SYSBENCH_SCRIPTS {
        let by_sysbench = maria_added(&server, || sysbench_runs(script, "mysql", "33995"));
        // One statement a round trip, as sysbench sends them (START
        // TRANSACTION its BEGIN), then pipelined, where the transaction
        // begins with its first statement and no BEGIN is sent.
        for mode in ROUND_TRIPS {
            let run = |n: &str| {
                let args = ["sysbench", "run", "--db", &url, "--script", script];
                let all = [&args[..], &["--round-trips", mode]].concat();
                maria_added(&server, || txbench_runs(dir, &all, n))
            };
            let (once, two) = (run(N), run(&twice));
            let mut by_txbench: BTreeMap<String, i64> =
                two.iter().map(|(k, v)| (k.clone(), v - once[k])).collect();
            if mode == "pipelined" {
                assert_eq!(
                    by_txbench["com_begin"], 0,
                    "{script} pipelined: {by_txbench:?}"
                );
                by_txbench.insert("com_begin".into(), by_sysbench["com_begin"]);
            }
            assert!(
                by_sysbench.values().any(|&n| n > 0),
                "{script}: nothing counted"
            );
            assert_eq!(
                by_txbench, by_sysbench,
                "{script} {mode}: txbench, then sysbench"
            );
        }
    }
}
