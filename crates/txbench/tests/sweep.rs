//! `txbench sweep` on a server of known latency: every step written, the
//! capacity reported, and a step that is not sound never passing.

use std::path::Path;

mod support;
use support::{load, only_result, stderr, stdout, txbench};

/// A TPC-C sweep in steps of 100/s against `sim:?service=SERVER`, objective
/// p99 <= 5 s, results in `res`.
fn sweep_on_sim(dir: &Path, server: &str, rates: &str) -> assert_cmd::Command {
    let mut cmd = txbench(dir);
    cmd.args(["sweep", "tpcc", "--db", &format!("sim:?service={server}")])
        .args(["--rates", rates, "--step", "100", "--slo", "p99<=5s"])
        .args(["--results", "res"]);
    cmd
}

#[test]
fn sweep_writes_every_step_and_reports_capacity() {
    let dir = tempfile::tempdir().unwrap();
    load(dir.path(), "sqlite:t.db");
    // A simulated server far below its capacity: no step's measurement
    // fails, so every step passes. Its 50 ms transactions let the client be
    // late by 5 ms at the median before its lateness matters, which a busy
    // test machine stays under (at 5 ms it did not: CI's parallel tests made
    // the first step NOT SOUND on client lateness); 64 connections hold the
    // 15 in flight at 300/s. (A second of warm-up: without one the first
    // sends wait for the sessions to open, and in a short step that is the
    // p99 of the client's lateness.)
    let out = sweep_on_sim(dir.path(), "exp:50ms&workers=64", "100..300")
        // Fixed arrivals: 1 s of Poisson arrivals at 100/s falls under 90% of
        // the offered count one step in six, and this test is about the sweep.
        // Steps of 4 s: in 2 s (200 latencies) one stall of the busy test
        // machine correlated every lag the independence check can test (the
        // step was NOT SOUND then, seen once in CI; that is now a warning).
        .args([
            "--arrival",
            "fixed",
            "--step-duration",
            "4s",
            "--warmup",
            "1s",
        ])
        .args(["--connections", "64"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("capacity: 300 txn/s"), "{text}");
    assert!(
        text.contains("no limit found up to the top of --rates"),
        "{text}"
    );
    assert!(
        text.contains("  PASS  SOUND") || text.contains("  PASS  CARE"),
        "{text}"
    );
    let json = only_result(&dir.path().join("res"), "sweep.json");
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{json}");
    assert!(steps.iter().all(|s| s["passed"] == true), "{json}");
    assert_eq!(json["capacity_rate"], 300.0);
    // Each step is a whole results directory, named relative to the sweep's.
    let sweep_dir = std::fs::read_dir(dir.path().join("res"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for s in steps {
        let summary = sweep_dir.join(s["results"].as_str().unwrap());
        assert!(summary.exists(), "{}", summary.display());
        let step = summary.parent().unwrap();
        for file in ["config.toml", "intervals.hlog", "timeline.csv"] {
            assert!(step.join(file).exists(), "{}", step.join(file).display());
        }
    }
    // The sweep's report: latency against throughput with the objective and capacity.
    let out = txbench(dir.path())
        .arg("report")
        .arg(&sweep_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("capacity: 300 txn/s"),
        "{}",
        stdout(&out)
    );
    let html = std::fs::read_to_string(sweep_dir.join("report.html")).unwrap();
    for text in [
        "<svg",
        "achieved throughput (transactions/s)",
        "objective p99&lt;=5000ms",
        "capacity",
        "/report.html\">step 1</a>",
    ] {
        assert!(html.contains(text), "missing {text}");
    }
    // Each step's page was written as it ended, and the sweep links to it.
    for s in steps {
        let summary = sweep_dir.join(s["results"].as_str().unwrap());
        assert!(summary.parent().unwrap().join("report.html").is_file());
    }

    let out = txbench(dir.path())
        .args([
            "sweep",
            "tpcc",
            "--db",
            "sqlite:t.db",
            "--rates",
            "100..300",
            "--step",
            "100",
            "--slo",
            "p99<10ms",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("p99<10ms"), "{}", stderr(&out));
}

#[test]
fn a_sweep_step_that_is_not_sound_never_passes() {
    let dir = tempfile::tempdir().unwrap();
    // Well within the objective, but half the transactions fail: the step's
    // own verdict is NOT SOUND, so it cannot pass, and with no step passed
    // the sweep exits 3 with its results written.
    let out = sweep_on_sim(
        dir.path(),
        "fixed:20ms&workers=16&errors=0.5:other",
        "100..200",
    )
    .args(["--step-duration", "1s", "--warmup", "0s"])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("FAIL  NOT SOUND (errors"), "{text}");
    assert!(
        text.contains("capacity: no step passed; the limit found is the database's (at 100/s, ")
            && text.contains("; NOT SOUND (errors"),
        "{text}"
    );
    assert!(
        stderr(&out).contains("no step of the sweep met p99<=5000ms"),
        "{}",
        stderr(&out)
    );
    let json = only_result(&dir.path().join("res"), "sweep.json");
    assert_eq!(json["steps"][0]["passed"], false, "{json}");
    assert!(json["capacity_rate"].is_null(), "{json}");
    assert_eq!(json["limit"], "database", "{json}");
    assert_eq!(json["steps"][0]["limit"], "database", "{json}");
}

/// Without `--slo` a step need only take the offered load: a simulated
/// server of 16 workers at 50 ms takes 320/s at most, so a sweep to 400/s
/// reports the highest rate taken and finds the database's limit at the
/// step it could not take (its 50 ms transactions leave a busy test machine
/// room to be late, as in the test above).
#[test]
fn a_sweep_without_an_objective_finds_the_highest_rate_taken() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench(dir.path())
        .args([
            "sweep",
            "tpcc",
            "--db",
            "sim:?service=fixed:50ms&workers=16",
        ])
        .args(["--rates", "100..400", "--step", "100", "--arrival", "fixed"])
        .args([
            "--step-duration",
            "4s",
            "--warmup",
            "1s",
            "--connections",
            "64",
        ])
        .args(["--results", "res", "--no-report"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("no latency objective (--slo): each step must take the offered load"),
        "{text}"
    );
    let json = only_result(&dir.path().join("res"), "sweep.json");
    assert_eq!(json["objective"], "no latency objective", "{json}");
    assert_eq!(json["steps"][0]["passed"], true, "{text}");
    assert!(text.contains("highest rate taken: "), "{text}");
    // 400/s is more than 16 workers of 50 ms take: where the sweep got there,
    // the database is the limit it names.
    let steps = json["steps"].as_array().unwrap();
    if let Some(last) = steps.iter().find(|s| s["offered_rate"] == 400.0) {
        assert_eq!(last["limit"], "database", "{json}");
        assert!(text.contains("the limit found is the database's"), "{text}");
    }
}
