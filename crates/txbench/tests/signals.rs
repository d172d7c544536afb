//! Ctrl-C and SIGTERM stop a command promptly in every phase of a run (load,
//! warm-up, measurement, the grace after the window), with exit code 143 for
//! SIGTERM and, once anything was measured, a summary written.

mod support;

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use support::{alone, spawn};

/// How long a stopped command may take to exit. The requirement is a second
/// (`bench/` is where it is timed); a command that ignored the signal would
/// run on for 30 s and more (each run here has that much left), so this
/// bound tells the two apart however loaded the machine is.
const PROMPT: Duration = Duration::from_secs(15);

/// A minute's TPC-C run against the null engine after `warmup`, writing
/// its results under `dir/res`.
fn null_run(dir: &Path, warmup: &str) -> Child {
    spawn(
        dir,
        &[
            "tpcc",
            "run",
            "--db",
            "null:",
            "--warmup",
            warmup,
            "--duration",
            "60s",
            "-q",
            "--results",
            "res",
        ],
    )
}

/// Wait until `ready` holds (at most 60 s), send SIGTERM, and return how the
/// command ended and how long after the signal.
fn terminate_when(child: Child, ready: impl Fn() -> bool) -> (std::process::Output, Duration) {
    support::wait_until("the phase", Duration::from_secs(60), ready);
    let sent = Instant::now();
    support::signal(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    (out, sent.elapsed())
}

/// The timeline rows of the only run under `dir/res`: (start_s, whole line).
fn timeline(dir: &Path) -> Vec<f64> {
    let Some(run) = std::fs::read_dir(dir.join("res"))
        .ok()
        .and_then(|mut d| d.next())
    else {
        return Vec::new();
    };
    std::fs::read_to_string(run.unwrap().path().join("timeline.csv"))
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next()?.parse().ok())
        .collect()
}

fn summary(dir: &Path) -> serde_json::Value {
    let run = std::fs::read_dir(dir.join("res"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap()
}

fn assert_stopped(out: &std::process::Output, took: Duration, phase: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{phase}: exited {took:?} after SIGTERM");
    assert_eq!(out.status.code(), Some(143), "{phase}: {stderr}");
    assert!(took < PROMPT, "{phase}: took {took:?} to stop");
    assert!(stderr.contains("stopping (SIGTERM)"), "{phase}: {stderr}");
}

#[test]
fn sigterm_during_a_load_stops_it() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let child = spawn(
        dir.path(),
        &["tpcc", "load", "--db", "sqlite:t.db", "--warehouses", "50"],
    );
    let started = Instant::now();
    let (out, took) = terminate_when(child, || started.elapsed() > Duration::from_millis(700));
    assert_stopped(&out, took, "load");
    assert!(String::from_utf8_lossy(&out.stderr).contains("stopped during the load"));
}

#[test]
fn sigterm_during_warm_up_writes_an_empty_summary() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let child = null_run(dir.path(), "60s");
    let started = Instant::now();
    let (out, took) = terminate_when(child, || started.elapsed() > Duration::from_secs(1));
    assert_stopped(&out, took, "warm-up");
    let s = summary(dir.path());
    assert_eq!(s["interrupted"], true);
    assert_eq!(s["measured_secs"].as_f64(), Some(0.0));
}

#[test]
fn sigterm_during_measurement_writes_what_was_measured() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let child = null_run(dir.path(), "0s");
    let (out, took) = terminate_when(child, || timeline(dir.path()).len() >= 2);
    assert_stopped(&out, took, "measurement");
    let s = summary(dir.path());
    assert_eq!(s["interrupted"], true);
    let secs = s["measured_secs"].as_f64().unwrap();
    assert!((1.0..30.0).contains(&secs), "measured {secs} s");
}

#[test]
fn sigterm_during_the_grace_counts_the_unfinished() {
    let _alone = alone();
    // 100,000 back-to-back terminals on SQLite's one session: far more work
    // than a 1 s window holds, so the run is in its (long) grace after it.
    let dir = tempfile::tempdir().unwrap();
    let load = support::txbench_output(dir.path(), &["tpcc", "load", "--db", "sqlite:t.db"]);
    assert!(load.status.success());
    let child = spawn(
        dir.path(),
        &[
            "tpcc",
            "run",
            "--db",
            "sqlite:t.db",
            "--terminals",
            "100000",
            "--warmup",
            "0s",
            "--duration",
            "1s",
            "--grace",
            "120s",
            "-q",
            "--results",
            "res",
        ],
    );
    let (out, took) = terminate_when(child, || {
        timeline(dir.path()).iter().any(|start| *start >= 1.5)
    });
    assert_stopped(&out, took, "grace");
    let s = summary(dir.path());
    assert_eq!(s["interrupted"], true);
    assert_eq!(s["measured_secs"].as_f64(), Some(1.0));
    let unfinished: u64 = s["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["unfinished"].as_u64().unwrap())
        .sum();
    assert!(unfinished > 50_000, "unfinished {unfinished}");
}

#[test]
fn sigterm_during_acid_leaves_no_empty_results_directory() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let load = support::txbench_output(dir.path(), &["tpcc", "load", "--db", "sqlite:a.db"]);
    assert!(load.status.success());
    let child = spawn(
        dir.path(),
        &["tpcc", "acid", "--db", "sqlite:a.db", "--results", "res"],
    );
    // Its directory is made before the tests, which take seconds.
    let made = || std::fs::read_dir(dir.path().join("res")).is_ok_and(|mut d| d.next().is_some());
    let (out, took) = terminate_when(child, made);
    assert_stopped(&out, took, "acid");
    let left: Vec<_> = std::fs::read_dir(dir.path().join("res"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// A sweep stopped in its first step keeps a directory `report` reads: the
/// step as measured up to the signal, and sweep.json over it (it had no
/// sweep.json).
#[test]
fn sigterm_during_a_sweep_leaves_a_readable_directory() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    // A step of 30 s: the signal, a second or so after the sweep began,
    // falls inside the first step whether or not that step would pass.
    let child = spawn(
        dir.path(),
        &[
            "sweep",
            "tatp",
            "--db",
            "null:",
            "--rates",
            "100..1000",
            "--step",
            "100",
            "--step-duration",
            "30s",
            "--warmup",
            "0s",
            "--slo",
            "p99<=100ms",
            "-q",
            "--results",
            "res",
        ],
    );
    let sweep_dir = || {
        std::fs::read_dir(dir.path().join("res"))
            .ok()?
            .next()?
            .ok()
            .map(|e| e.path())
    };
    let measuring = || {
        sweep_dir().is_some() && {
            std::thread::sleep(Duration::from_secs(1));
            true
        }
    };
    let (out, took) = terminate_when(child, measuring);
    assert_stopped(&out, took, "sweep");
    let sweep = sweep_dir().unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sweep.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(summary["steps"].as_array().unwrap().len(), 1, "{summary}");
    let report = support::txbench_output(dir.path(), &["report", sweep.to_str().unwrap()]);
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
}
