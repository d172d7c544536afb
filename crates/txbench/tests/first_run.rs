//! The first hour with txbench: what a newcomer types on the default
//! in-memory database works or says why, and the summary explains what it
//! shows.

mod support;
use support::{only_run, text, txbench_output};

#[test]
fn run_on_an_in_memory_database_loads_it_first_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench_output(
        dir.path(),
        &[
            "tatp",
            "run",
            "--subscribers",
            "1000",
            "--warmup",
            "0s",
            "--duration",
            "1s",
            "-q",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let printed = text(&out);
    assert!(
        printed.contains("sqlite::memory: holds nothing between processes: loading it first"),
        "{printed}"
    );
    assert!(printed.contains("loaded 1,000 subscribers"), "{printed}");
    // The settings it leaves repeat the run: run again loads again.
    let config = only_run(&dir.path().join("results")).join("config.toml");
    let out = txbench_output(
        dir.path(),
        &[
            "--config",
            config.to_str().unwrap(),
            "tatp",
            "run",
            "-q",
            "--no-results",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn check_and_verify_on_an_in_memory_database_say_it_holds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["tpcc", "check"][..], &["tpcc", "verify", "results/none"]] {
        let out = txbench_output(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            text(&out).contains("sqlite::memory: holds nothing between processes"),
            "{args:?}: {}",
            text(&out)
        );
    }
}

#[test]
fn terminals_sharing_one_sqlite_connection_are_told_what_their_latency_is() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench_output(
        dir.path(),
        &[
            "tpcc",
            "--warmup",
            "0s",
            "--duration",
            "2s",
            "-q",
            "--no-report",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.contains("terminals share 1 connection"))
        .unwrap_or_else(|| panic!("no line on the shared connection:\n{stdout}"));
    assert!(line.contains("10 terminals share 1 connection"), "{line}");
    let share: f64 = line
        .split(": ")
        .nth(1)
        .and_then(|rest| rest.split('%').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no share in: {line}"));
    // Ten terminals take turns on one connection: most of the wait is theirs.
    assert!((50.0..=100.0).contains(&share), "{line}");
    assert!(
        stdout.starts_with("loaded 1 warehouse") || stdout.contains("\nTPC-C on "),
        "{stdout}"
    );
    assert!(!stdout.contains("TPCC"), "{stdout}");
}
