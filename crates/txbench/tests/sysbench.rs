//! `txbench sysbench`: sysbench's eight OLTP scripts each load, run 2 s
//! with no error and keep the row counts (where the script keeps them) on
//! SQLite, PostgreSQL and MariaDB; and on PostgreSQL and MariaDB txbench
//! runs on the data `sysbench prepare` made, and sysbench on the data
//! txbench loaded, so that a user can A/B the two on the same data.

use std::path::Path;

mod support;
use support::{MyDatabase, PgDatabase, errors_by_kind, text, txbench_output, type_sum};
use txbench_test_support::command::run;

/// The scripts that keep every table's ids 1 to its row count, then the
/// two that change the counts (sysbench's oltp_insert and oltp_delete).
const KEEPING: [&str; 6] = [
    "oltp_read_write",
    "oltp_read_only",
    "oltp_write_only",
    "oltp_point_select",
    "oltp_update_index",
    "oltp_update_non_index",
];
const CHANGING: [&str; 2] = ["oltp_insert", "oltp_delete"];

/// Run `script` for 2 s on `db` (two tables loaded): no error, something
/// committed, at the table size `rows`. Four terminals on 2,000 rows: two
/// that delete and insert one id at once make PostgreSQL refuse the second
/// insert as a duplicate (read committed lets the second delete miss the
/// row the first inserted), which sysbench retries and so must txbench.
fn runs_cleanly(dir: &Path, db: &str, script: &str, rows: i64) {
    let run = [
        "sysbench", "run", "--script", script, "--tables", "2", "--db", db, "-d", "2s", "--warmup",
        "0s", "-t", "4",
    ];
    let out = txbench_output(dir, &run);
    assert!(out.status.success(), "{script} on {db}: {}", text(&out));
    let results = dir.join("results");
    let summary = support::only_result(&results, "summary.json");
    std::fs::remove_dir_all(&results).unwrap();
    assert!(
        type_sum(&summary, &["committed"]) > 0,
        "{script}: {summary}"
    );
    assert!(errors_by_kind(&summary).is_empty(), "{script}: {summary}");
    assert_eq!(summary["settings"]["scale"]["value"], rows, "{script}");
    assert_eq!(summary["workload_title"], format!("sysbench {script}"));
}

/// Whether `check` finds every table's ids running 1 to its row count.
fn rows_kept(dir: &Path, db: &str) -> bool {
    let check = ["sysbench", "check", "--tables", "2", "--db", db];
    let out = txbench_output(dir, &check);
    let said = text(&out);
    assert!(
        said.contains("sbtest2's ids run from 1 to its row count"),
        "{said}"
    );
    out.status.success()
}

/// Each script on `db` (two tables of `rows`) in turn: the six that keep
/// the row counts keep them, and the check finds what oltp_insert and
/// oltp_delete change.
fn every_script_runs(dir: &Path, db: &str, rows: i64) {
    for script in KEEPING {
        runs_cleanly(dir, db, script, rows);
        assert!(rows_kept(dir, db), "after {script} on {db}");
    }
    for script in CHANGING {
        runs_cleanly(dir, db, script, rows);
        assert!(!rows_kept(dir, db), "after {script} on {db}");
    }
}

/// Load two tables of 1,000 rows into `db`, then run each script on them.
fn every_script_runs_on_one_load(dir: &Path, db: &str) {
    let load = [
        "sysbench",
        "load",
        "--db",
        db,
        "--tables",
        "2",
        "--table-size",
        "1000",
        "--drop",
    ];
    let out = txbench_output(dir, &load);
    assert!(out.status.success(), "{}", text(&out));
    every_script_runs(dir, db, 1000);
}

#[test]
fn sysbench_scripts_run_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("sysbench.db").display());
    every_script_runs_on_one_load(dir.path(), &db);
}

#[tokio::test(flavor = "multi_thread")]
async fn sysbench_scripts_run_on_postgres() {
    let Some(base) = support::server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "sysbench_files").await;
    let dir = tempfile::tempdir().unwrap();
    every_script_runs_on_one_load(dir.path(), &db.url);
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sysbench_scripts_run_on_mariadb() {
    let Some(base) = support::server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let db = MyDatabase::create(&base, "sysbench_files").await;
    let dir = tempfile::tempdir().unwrap();
    every_script_runs_on_one_load(dir.path(), &db.url);
    db.drop_now().await;
}

/// Whether sysbench is installed; a run that requires the services fails
/// without it.
fn sysbench_here() -> bool {
    let found = std::process::Command::new("sysbench")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let required = std::env::var("TXBENCH_REQUIRE_SERVICES").is_ok_and(|v| v == "1");
    assert!(found || !required, "sysbench is not installed");
    found
}

/// sysbench's connection flags for a `postgres://` or `mysql://` URL of
/// the form `SCHEME://USER@HOST:PORT/DB` (the tests' servers take no
/// password).
fn connection_flags(url: &str) -> Vec<String> {
    let (scheme, rest) = url.split_once("://").unwrap();
    let (user, rest) = rest.split_once('@').unwrap();
    let (host_port, db) = rest.split_once('/').unwrap();
    let (host, port) = host_port.split_once(':').unwrap();
    let db = db.split('?').next().unwrap();
    let driver = if scheme == "mysql" { "mysql" } else { "pgsql" };
    let flags = [("host", host), ("port", port), ("user", user), ("db", db)];
    let mut out = vec![format!("--db-driver={driver}")];
    out.extend(flags.map(|(k, v)| format!("--{driver}-{k}={v}")));
    out
}

/// sysbench `script` `command` on `url`'s database with two tables of
/// 1,000 rows; it must succeed.
fn sysbench_ok(url: &str, script: &str, command: &str, more: &[&str]) {
    let flags = connection_flags(url);
    let flags = flags.iter().map(String::as_str);
    let fixed = ["--tables=2", "--table-size=1000"];
    let args: Vec<&str> = ["sysbench", script]
        .into_iter()
        .chain(flags)
        .chain(fixed)
        .chain(more.iter().copied())
        .chain([command])
        .collect();
    run(&args);
}

/// txbench on data sysbench prepared (its scale found in sbtest1), then
/// sysbench on data txbench loaded; the row counts hold after each.
fn each_runs_on_the_others_data(dir: &Path, by_sysbench: &str, by_txbench: &str) {
    sysbench_ok(by_sysbench, "oltp_read_write", "prepare", &[]);
    for script in ["oltp_read_write", "oltp_read_only", "oltp_point_select"] {
        runs_cleanly(dir, by_sysbench, script, 1000);
    }
    assert!(rows_kept(dir, by_sysbench), "{by_sysbench}");
    let load = [
        "sysbench",
        "load",
        "--db",
        by_txbench,
        "--tables",
        "2",
        "--table-size",
        "1000",
    ];
    let out = txbench_output(dir, &load);
    assert!(out.status.success(), "{}", text(&out));
    for script in ["oltp_read_write", "oltp_point_select"] {
        sysbench_ok(by_txbench, script, "run", &["--time=2"]);
    }
    assert!(rows_kept(dir, by_txbench), "{by_txbench}");
}

#[tokio::test(flavor = "multi_thread")]
async fn txbench_and_sysbench_run_on_each_others_data_on_postgres() {
    let Some(base) = support::server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    if !sysbench_here() {
        return;
    }
    let by_sysbench = PgDatabase::create(&base, "by_sysbench").await;
    let by_txbench = PgDatabase::create(&base, "sb_by_txbench").await;
    let dir = tempfile::tempdir().unwrap();
    each_runs_on_the_others_data(dir.path(), &by_sysbench.url, &by_txbench.url);
    by_sysbench.drop_now().await;
    by_txbench.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn txbench_and_sysbench_run_on_each_others_data_on_mariadb() {
    let Some(base) = support::server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    if !sysbench_here() {
        return;
    }
    let by_sysbench = MyDatabase::create(&base, "by_sysbench").await;
    let by_txbench = MyDatabase::create(&base, "sb_by_txbench").await;
    let dir = tempfile::tempdir().unwrap();
    each_runs_on_the_others_data(dir.path(), &by_sysbench.url, &by_txbench.url);
    by_sysbench.drop_now().await;
    by_txbench.drop_now().await;
}
