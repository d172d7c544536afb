//! A run stopped by a signal or killed: what it measured is kept.

use std::path::Path;

mod support;
use support::{load, only_result, stderr};

/// Start a long run in `dir`, wait until its timeline has `rows` rows, send `signal`.
fn run_and_signal(dir: &Path, signal: &str, rows: usize) -> std::process::Output {
    load(dir, "sqlite:t.db");
    let child = support::spawn(
        dir,
        &[
            "tpcc",
            "run",
            "--db",
            "sqlite:t.db",
            "--duration",
            "60s",
            "--warmup",
            "0s",
            "-q",
            "--results",
            "res",
        ],
    );
    support::wait_until("timeline rows", std::time::Duration::from_secs(30), || {
        support::timeline_rows(&dir.join("res")) >= rows
    });
    support::signal(&child, signal);
    child.wait_with_output().unwrap()
}

#[test]
fn an_interrupted_run_writes_a_complete_summary_of_what_it_measured() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_and_signal(dir.path(), "INT", 2);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stopping (Ctrl-C)"),
        "{}",
        stderr(&out)
    );
    let json = only_result(&dir.path().join("res"), "summary.json");
    assert_eq!(json["interrupted"], true);
    let secs = json["measured_secs"].as_f64().unwrap();
    assert!((1.5..30.0).contains(&secs), "measured {secs} s");
    // The timeline adds up to the summary.
    let run = std::fs::read_dir(dir.path().join("res"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let timeline = std::fs::read_to_string(run.join("timeline.csv")).unwrap();
    let header: Vec<&str> = timeline.lines().next().unwrap().split(',').collect();
    let column = header
        .iter()
        .position(|h| *h == "new_order_committed")
        .unwrap();
    let committed: u64 = timeline
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(column).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(
        committed,
        json["transactions"][0]["committed"].as_u64().unwrap()
    );
}

#[test]
fn a_killed_run_keeps_its_intervals_up_to_the_last_second() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_and_signal(dir.path(), "KILL", 2);
    assert!(!out.status.success());
    let run = std::fs::read_dir(dir.path().join("res"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(!run.join("summary.json").exists());
    let timeline = std::fs::read_to_string(run.join("timeline.csv")).unwrap();
    assert!(timeline.lines().count() >= 3, "{timeline}");
    assert!(timeline.ends_with('\n'), "a torn last line: {timeline}");
    let hlog = std::fs::read_to_string(run.join("intervals.hlog")).unwrap();
    assert!(
        hlog.lines()
            .filter(|l| l.starts_with("Tag=new_order,"))
            .count()
            >= 2,
        "{hlog}"
    );
}
