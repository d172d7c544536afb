//! The acknowledged-work log and `verify`, end to end through the command
//! line on SQLite files (docs/durability.md): a run's log verifies against
//! its database; a copy of the database taken mid-run loses exactly the work
//! acknowledged after the copy began; a rolled-back order that appears in
//! the database is named as leaked.

mod support;

use support::{text, txbench_output as txbench, verify};

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64
}

/// A count of one type's findings.
fn count(found: &serde_json::Value, key: &str, what: &str) -> u64 {
    found["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["key"] == key)
        .unwrap_or_else(|| panic!("no {key} in {found}"))[what]
        .as_u64()
        .unwrap()
}

/// The log's lines: (unix µs, status, type, fields).
/// A line of the acknowledged-work log: time, status, type and fields.
type LogLine = (u64, String, String, Vec<i64>);

fn log_lines(run: &Path) -> Vec<LogLine> {
    std::fs::read_to_string(run.join("acks.csv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("unix_us"))
        .map(|l| {
            let c: Vec<&str> = l.splitn(4, ',').collect();
            let fields = c[3].split(' ').map(|f| f.parse().unwrap()).collect();
            (c[0].parse().unwrap(), c[1].into(), c[2].into(), fields)
        })
        .collect()
}

#[test]
fn a_copy_taken_mid_run_loses_exactly_the_work_acknowledged_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let url = support::sqlite_loaded(dir);
    // A long run, stopped (Ctrl-C) once it has gone on two seconds after
    // the copy: a fixed length let a loaded machine's copy outlast the run.
    let run = ["tpcc", "run", "--db", &url, "-d", "60s", "--warmup", "0s"];
    let child = support::spawn(dir, &[&run[..], &["-t", "4", "-q", "--ack-log"]].concat());
    let seconds_run = || support::timeline_rows(&dir.join("results"));
    let until_seconds = |n: usize| {
        support::wait_until("the run's seconds", Duration::from_secs(50), || {
            seconds_run() >= n
        })
    };
    until_seconds(2);
    // A consistent copy of the database as it is now: what the run
    // acknowledges from here on is missing from it.
    let copy = dir.join("copy.db");
    let began = now_us();
    let db = rusqlite::Connection::open(dir.join("t.db")).unwrap();
    db.busy_timeout(Duration::from_secs(10)).unwrap();
    db.execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
        .unwrap();
    let ended = now_us();
    drop(db);
    until_seconds(seconds_run() + 2);
    support::signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));

    let results = support::only_run(&dir.join("results"));
    let (code, out, found) = verify(dir, &url, &results);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("PASS"), "{out}");

    let copy_url = format!("sqlite:{}", copy.display());
    let (code, out, found_in_copy) = verify(dir, &copy_url, &results);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("verify FAILED"), "{out}");
    let lines = log_lines(&results);
    for key in ["new_order", "payment"] {
        let acked = |after: u64| {
            lines
                .iter()
                .filter(|l| l.1 == "ack" && l.2 == key && l.0 > after)
                .count() as u64
        };
        let lost = count(&found_in_copy, key, "lost");
        // Acknowledged before the copy began: in it. Acknowledged after it
        // ended: not. Between, either.
        assert!(
            lost >= acked(ended) && lost <= acked(began),
            "{key}: {lost} lost, {} acknowledged after the copy, {} after it began\n{out}",
            acked(ended),
            acked(began)
        );
        assert!(acked(ended) > 0, "{key}: the run went on after the copy");
        assert_eq!(count(&found, key, "lost"), 0);
        assert_eq!(
            count(&found_in_copy, key, "acknowledged"),
            count(&found, key, "acknowledged")
        );
    }
}

/// TPC-C loaded on SQLite in `dir` and run 2 s at a time with its
/// acknowledged-work log until a run's log has a line that `wanted` finds
/// (at most 10 runs): the database's URL, that run's directory and the
/// line. How many transactions 2 s hold depends on the
/// machine's load, and what a test looks for may be rare (1% of New-Orders
/// roll back): the runs add up until it came, rather than hoping one did.
fn run_with_ack_log_until(
    dir: &Path,
    wanted: impl Fn(&LogLine) -> bool,
) -> (String, std::path::PathBuf, LogLine) {
    let url = support::sqlite_loaded(dir);
    for attempt in 1..=10 {
        let results = format!("results/{attempt}");
        let args = ["tpcc", "run", "--db", &url, "-d", "2s", "--warmup", "0s"];
        let out = txbench(
            dir,
            &[&args[..], &["-q", "--ack-log", "--results", &results]].concat(),
        );
        assert!(out.status.success(), "{}", text(&out));
        let run = support::only_run(&dir.join(&results));
        if let Some(line) = log_lines(&run).into_iter().find(|l| wanted(l)) {
            return (url, run, line);
        }
    }
    panic!("10 runs of 2 s and no such line in their logs");
}

#[test]
fn a_rolled_back_order_found_in_the_database_is_named_as_leaked() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let rolled_back_new_order = |l: &LogLine| l.1 == "rollback" && l.2 == "new_order";
    let (url, results, rolled_back) = run_with_ack_log_until(dir, rolled_back_new_order);
    // The order as if its rollback had not undone it.
    let f = &rolled_back.3;
    let db = rusqlite::Connection::open(dir.join("t.db")).unwrap();
    db.execute(
        "INSERT OR REPLACE INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_ol_cnt, o_entry_d, \
         o_all_local, o_carrier_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, NULL)",
        [f[0], f[1], f[2], f[3], f[4], f[6]],
    )
    .unwrap();
    drop(db);
    let (code, out, found) = verify(dir, &url, &results);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(count(&found, "new_order", "leaked"), 1, "{out}");
    let example = format!("leaked new_order {} {} {}", f[0], f[1], f[2]);
    assert!(out.contains(&example), "{out}");
}

#[test]
fn an_order_whose_lines_remain_without_it_is_named_as_partial() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let acked_new_order = |l: &LogLine| l.1 == "ack" && l.2 == "new_order";
    let (url, results, acked) = run_with_ack_log_until(dir, acked_new_order);
    // Its order row gone, its lines and new_order row kept: the split a
    // Galera node's lost abort made (docs/durability.md).
    let f = &acked.3;
    let db = rusqlite::Connection::open(dir.join("t.db")).unwrap();
    let deleted = db
        .execute(
            "DELETE FROM orders WHERE o_w_id = ?1 AND o_d_id = ?2 AND o_id = ?3",
            [f[0], f[1], f[2]],
        )
        .unwrap();
    assert_eq!(deleted, 1);
    drop(db);
    let (code, out, found) = verify(dir, &url, &results);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(count(&found, "new_order", "partial"), 1, "{out}");
    assert_eq!(count(&found, "new_order", "lost"), 0, "{out}");
    let example = format!("partial new_order {} {} {}", f[0], f[1], f[2]);
    assert!(out.contains(&example), "{out}");
}

#[test]
fn verify_names_a_missing_or_foreign_log() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let out = txbench(dir, &["tpcc", "verify", "--db", "sqlite:v.db", "nothere"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("nothere"), "{}", text(&out));
    std::fs::write(dir.join("acks.csv"), "w_id,d_id\n1,2\n").unwrap();
    let out = txbench(dir, &["tpcc", "verify", "--db", "sqlite:v.db", "."]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("not an acknowledged-work log"),
        "{}",
        text(&out)
    );
    let out = txbench(
        dir,
        &["tpcc", "run", "--db", "null:", "-d", "1s", "--ack-log"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--ack-log"), "{}", text(&out));
    let out = txbench(
        dir,
        &["tpcc", "run", "-d", "1s", "--ack-log", "--no-results"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}
