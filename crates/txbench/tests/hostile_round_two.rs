//! The second hostile pass (issue "First, do no harm, round two"), kept as
//! the regression suite: each test reproduces one way a user could harm
//! their data or get a wrong number, and asserts it no longer can
//! (docs/reliability.md names each).

mod support;

use std::path::Path;

use mysql_async::prelude::Queryable;
use support::{server_url, text, txbench_output};

/// A workload file of one table `t1` named `name`.
fn file_named(name: &str) -> String {
    format!(
        r#"[workload]
name = "{name}"
scale = "rows"

[[table]]
name = "t1"
rows_per_scale = 10
primary_key = ["id"]
columns = [ {{ name = "id", type = "bigint", gen = "sequence" }} ]

[[transaction]]
name = "Look"
weight = 100
params = [{{ name = "k", gen = "key", of = "t1.id" }}]
statements = [{{ sql = "SELECT id FROM t1 WHERE id = :k" }}]
"#
    )
}

/// Run txbench in `dir` with `args`, which must succeed; what it printed.
fn succeeds(dir: &Path, args: &[&str]) -> String {
    let out = txbench_output(dir, args);
    assert!(out.status.success(), "{args:?}: {}", text(&out));
    text(&out)
}

/// Run txbench in `dir` with `args`, which must be refused as the user's to
/// fix (exit 2) saying `said`; what it printed.
fn refused(dir: &Path, args: &[&str], said: &str) -> String {
    let out = txbench_output(dir, args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
    assert!(text(&out).contains(said), "{args:?}: {}", text(&out));
    text(&out)
}

/// A 1 s run of `args` (a command and its database) in `dir`, which must
/// succeed, its results under `dir/<results>`; the run's own directory.
fn measured(dir: &Path, args: &[&str], results: &str) -> std::path::PathBuf {
    let timed = ["-d", "1s", "--warmup", "0s", "--results", results];
    succeeds(dir, &[args, &timed[..]].concat());
    support::only_run(&dir.join(results))
}

fn sqlite_tables(path: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut st = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn sqlite_execute(path: &Path, sql: &str) {
    rusqlite::Connection::open(path)
        .unwrap()
        .execute_batch(sql)
        .unwrap();
}

/// Item 1: a file named like a built-in workload would have shared its
/// record (`txbench_tatp_meta`): refused by name, TATP's load stays whole.
#[test]
fn a_file_named_like_a_built_in_workload_is_refused_and_the_built_in_load_stays_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = "sqlite:ev.db";
    let out = txbench_output(
        dir.path(),
        &["tatp", "load", "--db", db, "--subscribers", "100"],
    );
    assert!(out.status.success(), "{}", text(&out));
    for name in ["tatp", "retwis", "ch"] {
        let file = dir.path().join(format!("{name}.toml"));
        std::fs::write(&file, file_named(name)).unwrap();
        let file = file.to_str().unwrap();
        for verb in [&["load", "--drop"][..], &["clean"][..]] {
            let args = [&["custom"], verb, &["--file", file, "--db", db][..]].concat();
            let out = txbench_output(dir.path(), &args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
            let said = text(&out);
            assert!(
                said.contains(&format!("workload.name '{name}'"))
                    && said.contains("records its loads under this name"),
                "{said}"
            );
        }
    }
    succeeds(dir.path(), &["tatp", "check", "--db", db]);
    succeeds(dir.path(), &["tatp", "clean", "--db", db]);
    assert_eq!(
        sqlite_tables(&dir.path().join("ev.db")),
        Vec::<String>::new()
    );
}

/// Item 2: `clean`, `load --drop` and `check` act on every table the
/// record names, whatever `--tables` says (it used to mean sbtest1 only).
async fn sysbench_tables_follow_the_record(
    dir: &Path,
    db: &str,
    tables: impl AsyncFn() -> Vec<String>,
) {
    let run = |args: &[&str]| {
        let out = txbench_output(dir, &[&["sysbench"], args, &["--db", db][..]].concat());
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        text(&out)
    };
    run(&["load", "--tables", "3", "--table-size", "50"]);
    let checked = run(&["check"]);
    assert!(checked.contains("sbtest3's ids"), "{checked}");
    run(&["load", "--drop", "--table-size", "50"]);
    assert_eq!(tables().await, ["sbtest1", "txbench_sysbench_meta"]);
    run(&["load", "--drop", "--tables", "3", "--table-size", "50"]);
    run(&["clean"]);
    assert_eq!(tables().await, Vec::<String>::new());
    run(&["load", "--tables", "3", "--table-size", "50"]);
    run(&["clean", "--tables", "1"]);
    assert_eq!(tables().await, Vec::<String>::new());
}

#[tokio::test]
async fn sqlite_sysbench_clean_and_drop_act_on_every_recorded_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sb.db");
    sysbench_tables_follow_the_record(dir.path(), "sqlite:sb.db", async || sqlite_tables(&path))
        .await;
}

#[tokio::test]
async fn mariadb_sysbench_clean_and_drop_act_on_every_recorded_table() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let db = support::MyDatabase::create(&base, "hostile_sb").await;
    let url = db.url.clone();
    let name = db.name.clone();
    let tables = async || {
        let mut c = mysql_async::Conn::from_url(&base).await.unwrap();
        let sql = format!(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = '{name}' \
             ORDER BY table_name"
        );
        let names: Vec<String> = c.query(sql).await.unwrap();
        c.disconnect().await.unwrap();
        names
    };
    let dir = tempfile::tempdir().unwrap();
    sysbench_tables_follow_the_record(dir.path(), &url, tables).await;
    db.drop_now().await;
}

/// What `sysbench cleanup` then `sysbench prepare --table-size=80` leave
/// (sysbench 1.0.20's DDL for MySQL, its rows as counted).
const SYSBENCH_PREPARE: &str = "DROP TABLE sbtest1, sbtest2; \
    CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, \
    c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) \
    ENGINE = InnoDB; \
    CREATE TABLE sbtest2 LIKE sbtest1; \
    INSERT INTO sbtest1 (k) WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
    WHERE i < 80) SELECT i FROM n; \
    INSERT INTO sbtest2 SELECT * FROM sbtest1";

/// Item 6: sysbench's tables made again over txbench's record (its row
/// counts move with every insert, so they cannot tell) are known by the
/// mark txbench's load gives its tables: a run and a check refuse them, a
/// clean leaves them, and the advice given is one the next command takes.
#[tokio::test]
async fn sysbench_tables_made_again_over_the_record_are_refused_and_left() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let db = support::MyDatabase::create(&base, "hostile_remade").await;
    let url = db.url.clone();
    let dir = tempfile::tempdir().unwrap();
    fn on<'a>(url: &'a str, args: &[&'a str]) -> Vec<&'a str> {
        [&["sysbench"], args, &["--db", url][..]].concat()
    }
    let sb = |args: &[&str]| txbench_output(dir.path(), &on(&url, args));
    let load = ["load", "--tables", "2", "--table-size", "50"];
    assert!(sb(&load).status.success());
    let run = ["run", "-d", "1s", "--no-results"];
    assert!(sb(&run).status.success());
    let mut c = mysql_async::Conn::from_url(&url).await.unwrap();
    c.query_drop(SYSBENCH_PREPARE).await.unwrap();
    for args in [&run[..], &["check"]] {
        let said = "record names sbtest1, but the sbtest1 there was made since";
        refused(dir.path(), &on(&url, args), said);
    }
    let cleaned = text(&sb(&["clean"]));
    assert!(cleaned.contains("left sbtest1, sbtest2"), "{cleaned}");
    let rows: Option<i64> = c.query_first("SELECT count(*) FROM sbtest2").await.unwrap();
    assert_eq!(rows, Some(80));
    // As the advice says: the other tool's tables dropped, `load --drop` loads.
    c.query_drop("DROP TABLE sbtest1, sbtest2").await.unwrap();
    assert!(
        sb(&["load", "--drop", "--table-size", "50"])
            .status
            .success()
    );
    assert!(sb(&run).status.success());
    // A load by an older txbench marked nothing: its record stands as before.
    c.query_drop(
        "ALTER TABLE txbench_sysbench_meta COMMENT = ''; ALTER TABLE sbtest1 COMMENT = ''",
    )
    .await
    .unwrap();
    assert!(sb(&run).status.success());
    c.disconnect().await.unwrap();
    db.drop_now().await;
}

/// Item 10: the advice for a table of another shape is one the next command
/// takes: `load --drop` for txbench's own table, which it replaces, and
/// "drop it yourself" for another tool's, which `--drop` refuses.
#[test]
fn the_advice_for_a_table_of_another_shape_is_one_the_next_command_takes() {
    let dir = tempfile::tempdir().unwrap();
    let db = "sqlite:sh.db";
    let path = dir.path().join("sh.db");
    succeeds(dir.path(), &["pgbench", "load", "--db", db]);
    let run = ["pgbench", "run", "--db", db, "-d", "1s", "--no-results"];
    sqlite_execute(&path, "ALTER TABLE pgbench_tellers DROP COLUMN tbalance");
    let said = text(&txbench_output(dir.path(), &run));
    assert!(
        said.contains("load again with `txbench pgbench load --drop`"),
        "{said}"
    );
    succeeds(dir.path(), &["pgbench", "load", "--drop", "--db", db]);
    succeeds(dir.path(), &run);
    // Another tool's tables (no record of txbench's), one of another shape.
    sqlite_execute(
        &path,
        "DROP TABLE txbench_pgbench_meta; ALTER TABLE pgbench_tellers DROP COLUMN tbalance",
    );
    let said = text(&txbench_output(dir.path(), &run));
    assert!(
        said.contains("drop it yourself and load with `txbench pgbench load --drop`"),
        "{said}"
    );
    let load = ["pgbench", "load", "--drop", "--db", db];
    let refused = txbench_output(dir.path(), &load);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    sqlite_execute(
        &path,
        "DROP TABLE pgbench_accounts; DROP TABLE pgbench_branches; \
         DROP TABLE pgbench_history; DROP TABLE pgbench_tellers",
    );
    succeeds(dir.path(), &load);
    succeeds(dir.path(), &run);
}

/// Item 6: a record the data contradicts is refused, never run at the
/// record's scale (TATP's subscribers, which no run adds or removes).
#[test]
fn a_record_the_data_contradicts_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let db = "sqlite:tatp.db";
    let path = dir.path().join("tatp.db");
    let out = txbench_output(
        dir.path(),
        &["tatp", "load", "--subscribers", "100", "--db", db],
    );
    assert!(out.status.success(), "{}", text(&out));
    let run = ["tatp", "run", "--db", db, "-d", "1s", "--no-results"];
    succeeds(dir.path(), &run);
    // What another tool's load of 150 subscribers over the record leaves.
    sqlite_execute(
        &path,
        "CREATE TEMP TABLE extra AS SELECT * FROM subscriber WHERE s_id <= 50; \
         UPDATE extra SET s_id = s_id + 100, sub_nbr = printf('%015d', s_id + 100); \
         INSERT INTO subscriber SELECT * FROM extra;",
    );
    let said = "record says subscribers 100 but subscriber holds 150 rows";
    refused(dir.path(), &run, said);
}

#[tokio::test]
async fn a_pgbench_record_under_another_tools_scale_is_refused() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = support::PgDatabase::create(&base, "hostile_stale").await;
    let dir = tempfile::tempdir().unwrap();
    succeeds(dir.path(), &["pgbench", "load", "--db", &db.url]);
    // What `pgbench -i -s 2` leaves: two branches where the record says one.
    let client = support::pg_client(&db.url).await;
    client
        .batch_execute("INSERT INTO pgbench_branches (bid, bbalance) VALUES (2, 0)")
        .await
        .unwrap();
    drop(client);
    let run = [
        "pgbench",
        "run",
        "--db",
        &db.url,
        "-d",
        "1s",
        "--no-results",
    ];
    let said = "record says scale 1 but pgbench_branches holds 2 rows";
    refused(dir.path(), &run, said);
    db.drop_now().await;
}

/// A frame as the protocol sends it: its 4-byte length, then its body.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut framed = (body.len() as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(body);
    framed
}

/// A connection to `addr` past the handshake (its Welcome left unread).
fn greeted(addr: &str) -> std::net::TcpStream {
    use std::io::Write;
    use txbench_remote::protocol::{ClientMessage, MAGIC, VERSION, encode};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let hello = encode(&ClientMessage::Hello {
        magic: MAGIC,
        version: VERSION,
        workload: None,
        token: None,
    });
    stream.write_all(&frame(&hello)).unwrap();
    stream
}

/// A client that sends requests as fast as it can and never reads a reply,
/// for `secs` seconds.
fn flood(addr: String, secs: u64) -> std::thread::JoinHandle<std::net::TcpStream> {
    std::thread::spawn(move || {
        use std::io::Write;
        use txbench_remote::protocol::{ClientMessage, encode};
        let mut stream = greeted(&addr);
        stream
            .set_write_timeout(Some(std::time::Duration::from_millis(100)))
            .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        let mut id = 0;
        let mut batch = Vec::new();
        while std::time::Instant::now() < until {
            batch.clear();
            for _ in 0..1000 {
                id += 1;
                let request = encode(&ClientMessage::Request {
                    id,
                    txn_type: 99,
                    input: Vec::new(),
                });
                batch.extend_from_slice(&frame(&request));
            }
            // Blocked once the server stops reading: try again until the end.
            let _ = stream.write_all(&batch);
        }
        stream
    })
}

/// The resident memory of process `pid`, in MiB.
fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = (status.lines())
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    kib / 1024.0
}

/// Items 3 and 4: clients that never read, trickle a frame, announce huge
/// frames or open connections past the cap keep `txbench serve` within a
/// bound (docs/reliability.md: at most --max-connections x (64 KiB of a
/// request + 256 replies)), and SIGTERM ends it within its grace though
/// clients still read nothing. It grew to 1.55 GB before.
#[test]
fn misbehaving_clients_cannot_exhaust_serve_and_a_stop_ends_within_its_grace() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let (mut child, url) =
        support::serve_tatp(dir.path(), &["--max-connections", "400", "--grace", "2s"]);
    let addr = url.trim_start_matches("txbench://").to_string();
    let before = rss_mib(child.id());
    let flooders: Vec<_> = (0..4).map(|_| flood(addr.clone(), 4)).collect();
    // Huge frames announced: refused at the header.
    let mut huge: Vec<_> = (0..100)
        .map(|_| {
            let mut s = greeted(&addr);
            // The header alone: bytes the server never reads would make its
            // close a reset, which loses the refusal.
            s.write_all(&1_000_000u32.to_be_bytes()).unwrap();
            s
        })
        .collect();
    // Frames under the limit begun and never finished: closed past the deadline.
    let mut trickled: Vec<_> = (0..200)
        .map(|_| {
            let mut s = greeted(&addr);
            let mut start = 60_000u32.to_be_bytes().to_vec();
            start.extend_from_slice(&[0; 1024]);
            s.write_all(&start).unwrap();
            s
        })
        .collect();
    // Connections past the cap: refused at once.
    let extra: Vec<_> = (0..600)
        .filter_map(|_| std::net::TcpStream::connect(&addr).ok())
        .collect();
    let mut peak: f64 = 0.0;
    for _ in 0..40 {
        peak = peak.max(rss_mib(child.id()));
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let flooded: Vec<_> = flooders.into_iter().map(|f| f.join().unwrap()).collect();
    peak = peak.max(rss_mib(child.id()));
    eprintln!("serve: {before:.1} MiB before the clients, {peak:.1} MiB at most");
    assert!(
        peak - before < 64.0,
        "serve grew from {before:.0} MiB to {peak:.0} MiB"
    );
    // Every huge announcement was answered by a refusal and a close.
    for s in &mut huge {
        s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let mut all = Vec::new();
        let _ = s.read_to_end(&mut all);
        let said = String::from_utf8_lossy(&all);
        assert!(said.contains("at most 65536"), "{said:?}");
    }
    // A begun frame is dropped within twice the 10 s deadline.
    for s in &mut trickled {
        s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let mut all = Vec::new();
        assert!(
            s.read_to_end(&mut all).is_ok(),
            "a trickled frame's connection stayed open"
        );
    }
    drop(extra);
    // The flooders still read nothing: the stop must not wait for them.
    let stopped = std::time::Instant::now();
    support::signal(&child, "TERM");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            stopped.elapsed() < std::time::Duration::from_secs(10),
            "serve still running 10 s after SIGTERM with a 2 s grace"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(!status.success() || status.code() == Some(0), "{status:?}");
    drop(flooded);
}

/// Items 5 and 10: sysbench's counts are bounded where they are parsed (a
/// transaction of 4294967295 point selects ran out of memory, 200,000 took
/// minutes to open), and a range must fit the table.
#[test]
fn sysbench_counts_and_ranges_are_bounded_where_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let db = "sqlite:sb.db";
    let out = txbench_output(
        dir.path(),
        &["sysbench", "load", "--table-size", "100", "--db", db],
    );
    assert!(out.status.success(), "{}", text(&out));
    for (flag, value, said) in [
        ("--point-selects", "4294967295", "outside 0..=1000"),
        ("--delete-inserts", "1001", "outside 0..=1000"),
        ("--range-size", "0", "outside 1..=1000000"),
        (
            "--range-size",
            "500",
            "--range-size 500: the tables hold 100 rows",
        ),
    ] {
        let args = [
            "sysbench",
            "run",
            "--db",
            db,
            "-d",
            "1s",
            "--no-results",
            flag,
            value,
        ];
        let out = refused(dir.path(), &args, said);
        assert!(!out.contains("panicked"), "{out}");
    }
}

/// Item 9: a sysbench run's config.toml repeats it: its on/off switches
/// are read back, and it names the tables.
#[test]
fn a_sysbench_runs_config_repeats_it_with_its_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = "sqlite:sb.db";
    let load = [
        "sysbench",
        "load",
        "--tables",
        "2",
        "--table-size",
        "50",
        "--db",
        db,
    ];
    succeeds(dir.path(), &load);
    let run = measured(dir.path(), &["sysbench", "run", "--db", db], "r");
    let config = run.join("config.toml");
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(written.contains("tables = 2"), "{written}");
    assert!(written.contains("range-selects = true"), "{written}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["parameters"]["tables"], "2", "{summary}");
    let again = [
        "sysbench",
        "run",
        "--config",
        config.to_str().unwrap(),
        "--no-results",
    ];
    succeeds(dir.path(), &again);
}

/// Items 8 and 10: `compare` holds the workload file equal, not only the
/// command (every file runs as `custom`: SIBench beside NoOp printed
/// "+137.5% better"), and refuses a directory given twice.
#[test]
fn compare_refuses_runs_of_other_workload_files_and_a_run_with_itself() {
    let dir = tempfile::tempdir().unwrap();
    let custom = |workload, results| {
        let args = ["custom", "--workload", workload, "--db", "sqlite::memory:"];
        measured(dir.path(), &args, results)
    };
    let (a, b, c) = (
        custom("noop", "a"),
        custom("sibench", "b"),
        custom("noop", "c"),
    );
    let compare = |x: &Path, y: &Path| {
        txbench_output(
            dir.path(),
            &["compare", x.to_str().unwrap(), y.to_str().unwrap()],
        )
    };
    let out = compare(&a, &b);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("cannot compare a 'custom noop' run with a 'custom sibench' run"),
        "{}",
        text(&out)
    );
    let out = compare(&a, &a.join("."));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("given twice"), "{}", text(&out));
    let out = compare(&a, &c);
    assert!(out.status.success(), "{}", text(&out));
}

/// Item 7: a table of another shape under a workload's name is refused
/// before the run, naming the table and what is wrong (a text `aid` ran at
/// 0 tps with 26,000 binding errors, an extra NOT NULL column in
/// pgbench_history failed every insert, both with exit 0).
#[tokio::test]
async fn a_pgbench_table_of_another_shape_is_refused_before_the_run() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = support::PgDatabase::create(&base, "hostile_shape").await;
    let dir = tempfile::tempdir().unwrap();
    succeeds(dir.path(), &["pgbench", "load", "--db", &db.url]);
    let client = support::pg_client(&db.url).await;
    let run = [
        "pgbench",
        "run",
        "--db",
        &db.url,
        "-d",
        "1s",
        "--no-results",
    ];
    succeeds(dir.path(), &run);
    for (change, undo, said) in [
        (
            "ALTER TABLE pgbench_history ADD COLUMN note text NOT NULL DEFAULT 'x'; \
             ALTER TABLE pgbench_history ALTER COLUMN note DROP DEFAULT",
            "ALTER TABLE pgbench_history DROP COLUMN note",
            "'pgbench_history' has a column note that must be given a value",
        ),
        (
            "ALTER TABLE pgbench_accounts ALTER COLUMN aid TYPE text",
            "ALTER TABLE pgbench_accounts ALTER COLUMN aid TYPE int USING aid::int",
            "'pgbench_accounts' declares aid as text",
        ),
        (
            "ALTER TABLE pgbench_tellers DROP COLUMN tbalance",
            "ALTER TABLE pgbench_tellers ADD COLUMN tbalance int NOT NULL DEFAULT 0",
            "'pgbench_tellers' has no column tbalance",
        ),
    ] {
        client.batch_execute(change).await.unwrap();
        refused(dir.path(), &run, said);
        client.batch_execute(undo).await.unwrap();
    }
    succeeds(dir.path(), &run);
    drop(client);
    db.drop_now().await;
}

/// Item 10: on sysbench's data (no record of txbench's), a missing
/// `--tables` means the tables there, not 1, and more tables than there
/// are is refused by the flag, not by a line of a generated file.
#[test]
fn sysbench_data_without_a_record_runs_on_the_tables_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sb.db");
    // What `sysbench prepare --tables=2 --table-size=20` leaves.
    let mut sql = String::new();
    for t in 1..=2 {
        sql.push_str(&format!(
            "CREATE TABLE sbtest{t} (id INTEGER PRIMARY KEY, k INTEGER NOT NULL DEFAULT 0, \
             c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT ''); \
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) \
             INSERT INTO sbtest{t} (id, k, c, pad) SELECT i, i, 'c', 'p' FROM n;"
        ));
    }
    sqlite_execute(&path, &sql);
    let db = "sqlite:sb.db";
    let checked = succeeds(dir.path(), &["sysbench", "check", "--db", db]);
    assert!(checked.contains("sbtest2's ids"), "{checked}");
    let run = measured(dir.path(), &["sysbench", "run", "--db", db], "r");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["parameters"]["tables"], "2", "{summary}");
    let three = [
        "sysbench",
        "run",
        "--db",
        db,
        "-d",
        "1s",
        "--no-results",
        "--tables",
        "3",
    ];
    let said = "--tables 3: the database holds sbtest1..2 and no sbtest3";
    let out = refused(dir.path(), &three, said);
    assert!(!out.contains("sysbench.toml"), "{out}");
}

/// Item 10: a figure no run writes (a summary.json edited to -1e308, which
/// printed 300 digits and "-inf%") is refused by name.
#[test]
fn a_result_edited_past_any_figure_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let noop = ["custom", "--workload", "noop", "--db", "sqlite::memory:"];
    let run = measured(dir.path(), &noop, "r");
    let path = run.join("summary.json");
    let mut summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    summary["metrics"][0]["value"] = serde_json::json!(-1e308);
    std::fs::write(&path, summary.to_string()).unwrap();
    let said = "metrics[0].value = -1e308 is beyond any figure txbench writes";
    refused(dir.path(), &["report", run.to_str().unwrap()], said);
}

/// Item 10: a set stopped in its second run keeps the first whole run as
/// the set and the cut one apart, saying so (it kept the short run in the
/// set silently).
#[test]
fn a_set_stopped_mid_run_keeps_only_its_whole_runs() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "custom",
        "--workload",
        "noop",
        "--db",
        "sqlite::memory:",
        "-d",
        "2s",
        "--warmup",
        "0s",
        "--repeat",
        "3",
        "--results",
        "r",
    ];
    let child = support::spawn(dir.path(), &args);
    let results = dir.path().join("r");
    support::wait_until("the second run", std::time::Duration::from_secs(60), || {
        std::fs::read_dir(&results)
            .ok()
            .and_then(|mut d| d.next())
            .is_some_and(|set| set.unwrap().path().join("run-02").exists())
    });
    std::thread::sleep(std::time::Duration::from_millis(500));
    support::signal(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", text(&out));
    assert!(
        text(&out).contains("the set holds the 1 whole runs made until then; run-02, cut short"),
        "{}",
        text(&out)
    );
    let set = support::only_result(&results, "set.json");
    assert_eq!(set["runs"], serde_json::json!(["run-01"]), "{set}");
}

/// Item 10: the advice after an unfinished load of a shipped workload file
/// names the file's flag (it said `txbench custom load --drop`, which loads
/// no file).
#[test]
fn the_advice_after_an_unfinished_file_load_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = "sqlite:sb.db";
    let load = ["custom", "load", "--workload", "noop", "--db", db];
    succeeds(dir.path(), &load);
    // What a load killed before its last step leaves: no "complete".
    sqlite_execute(
        &dir.path().join("sb.db"),
        "DELETE FROM txbench_noop_meta WHERE m_key = 'complete'",
    );
    let run = [
        "custom",
        "run",
        "--workload",
        "noop",
        "--db",
        db,
        "-d",
        "1s",
        "--no-results",
    ];
    let out = txbench_output(dir.path(), &run);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("reload with `txbench custom load --drop --workload noop`"),
        "{}",
        text(&out)
    );
}
