//! Retwis through the command line: on embedded SQLite (always), on Redis with
//! optimistic transactions and on PostgreSQL at repeatable read (when their URL
//! variables are set), with conflicts retried and counted, and the latency of
//! gets, puts and commits reported.

use std::path::Path;
use std::process::Command;

mod support;
use support::{PgDatabase, only_result, server_url, type_sum};

fn txbench(dir: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("txbench"));
    cmd.current_dir(dir);
    cmd
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The named operation of a summary: (count, p50 ms).
/// The committed transactions of the type whose key is `key`.
fn committed_of(summary: &serde_json::Value, key: &str) -> u64 {
    summary["transactions"]
        .as_array()
        .expect("transactions")
        .iter()
        .find(|t| t["key"] == key)
        .unwrap_or_else(|| panic!("no type {key} in {summary}"))["committed"]
        .as_u64()
        .unwrap()
}

fn operation(summary: &serde_json::Value, name: &str) -> (u64, f64) {
    let op = summary["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("no operation {name} in {summary}"));
    (
        op["latency_ms"]["samples"].as_u64().unwrap(),
        op["latency_ms"]["p50"].as_f64().unwrap(),
    )
}

fn metric(summary: &serde_json::Value, name: &str) -> f64 {
    summary["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no metric {name} in {summary}"))["value"]
        .as_f64()
        .unwrap()
}

#[test]
fn all_in_one_on_sqlite_reports_operations_and_its_config_repeats_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_ok(txbench(dir.path()).args([
        "retwis",
        "--db",
        "sqlite:retwis.db",
        "--keys",
        "20000",
        "--value-size",
        "100",
        "--zipf",
        "0.75",
        "--duration",
        "2s",
        "--warmup",
        "0s",
        "-q",
    ]));
    assert!(out.contains("loaded 20,000 keys of 100 bytes"), "{out}");
    assert!(
        out.contains("committed txn/s") && out.contains("operations"),
        "{out}"
    );
    let summary = only_result(&dir.path().join("results"), "summary.json");
    assert_eq!(summary["workload"], "retwis");
    assert_eq!(summary["settings"]["scale"]["unit"], "keys");
    assert_eq!(summary["settings"]["scale"]["value"], 20000);
    assert_eq!(summary["settings"]["options"]["zipf"], 0.75);
    assert_eq!(summary["parameters"]["value_size"], "100");
    let committed = type_sum(&summary, &["committed"]);
    assert!(committed > 1_000, "{committed} committed");
    // One session of SQLite: nothing conflicts, every attempt commits once.
    assert_eq!(type_sum(&summary, &["retries"]), 0);
    let (commits, _) = operation(&summary, "commit");
    assert_eq!(commits, committed);
    // Each type's gets and puts are fixed (Add-User 1 and 3, Follow 2 and 2,
    // Post-Tweet 3 and 5, Get-Timeline none written), but Get-Timeline's
    // gets, uniform in 1..10: the puts add up exactly, and the timelines'
    // gets lie within five standard errors of their mean 5.5, which a run
    // of any length holds (a fixed bound on the mix's mean failed a loaded
    // machine's short run).
    let of = |key: &str| committed_of(&summary, key);
    let (add_user, follow, post) = (of("add_user"), of("follow"), of("post_tweet"));
    let timelines = of("get_timeline");
    let (gets, _) = operation(&summary, "get");
    let (puts, _) = operation(&summary, "put");
    assert_eq!(puts, 3 * add_user + 2 * follow + 5 * post);
    let timeline_gets = gets - (add_user + 2 * follow + 3 * post);
    let per_timeline = timeline_gets as f64 / timelines as f64;
    let sd = (99.0f64 / 12.0).sqrt();
    let tolerance = 5.0 * sd / (timelines as f64).sqrt();
    assert!(
        (per_timeline - 5.5).abs() < tolerance,
        "{per_timeline} gets per timeline over {timelines} (within {tolerance} of 5.5)"
    );

    // config.toml repeats the run, skew included.
    let run = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let config = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(config.contains("zipf = 0.75"), "{config}");
    assert!(config.contains("keys = 20000"), "{config}");
    let again = tempfile::tempdir().unwrap();
    std::fs::copy(dir.path().join("retwis.db"), again.path().join("retwis.db")).unwrap();
    let config_file = run.join("config.toml");
    let out = run_ok(txbench(again.path()).args([
        "--config",
        config_file.to_str().unwrap(),
        "retwis",
        "run",
        "--duration",
        "1s",
        "-q",
    ]));
    assert!(out.contains("Retwis on "), "{out}");
    let repeated = only_result(&again.path().join("results"), "summary.json");
    assert_eq!(repeated["settings"]["options"]["zipf"], 0.75);
    assert_eq!(repeated["settings"]["seed"], summary["settings"]["seed"]);
}

#[test]
fn bad_retwis_values_exit_2_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    for (args, named) in [
        (vec!["retwis", "run", "--zipf", "-1"], "'-1'"),
        (vec!["retwis", "run", "--zipf", "hot"], "'hot'"),
        (vec!["retwis", "load", "--value-size", "0"], "'0'"),
        (vec!["retwis", "load", "--value-size", "5000"], "'5000'"),
        (vec!["retwis", "load", "--keys", "0"], "0"),
        (vec!["retwis", "run", "--db", "redis://[bad/0"], "Redis URL"),
    ] {
        let out = txbench(dir.path()).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
    // A run on an empty database says what to do.
    let out = txbench(dir.path())
        .args([
            "retwis",
            "run",
            "--db",
            "sqlite:empty.db",
            "--duration",
            "1s",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("txbench retwis load"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // TPC-C's tables do not fit in Redis: refused by name, not half loaded
    // (so the second try meets no unfinished load, only the same refusal).
    if let Some(base) = server_url("TXBENCH_TEST_REDIS_URL") {
        let url = format!("{}/15", base.trim_end_matches('/'));
        for _ in 0..2 {
            let out = txbench(dir.path())
                .args(["tpcc", "load", "--db", &url])
                .output()
                .unwrap();
            // Bad input: the engine cannot hold the workload at all.
            assert_eq!(out.status.code(), Some(2));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains("key-value tables only"), "{stderr}");
        }
    }
}

/// Load, run at high skew with many terminals, check that conflicts appeared
/// and were retried and counted, and clean.
fn contended_run(url: &str, extra: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = run_ok(
        txbench(dir.path()).args(["retwis", "load", "--db", url, "--keys", "20000", "--drop"]),
    );
    assert!(out.contains("loaded 20,000 keys"), "{out}");
    let mut args = vec![
        "retwis",
        "run",
        "--db",
        url,
        "--zipf",
        "0.99",
        "--terminals",
        "16",
        "--duration",
        "3s",
        "--warmup",
        "1s",
        "--max-retries",
        "50",
        "-q",
    ];
    args.extend_from_slice(extra);
    let out = run_ok(txbench(dir.path()).args(&args));
    assert!(out.contains("conflicts:"), "{out}");
    let summary = only_result(&dir.path().join("results"), "summary.json");
    let committed = type_sum(&summary, &["committed"]);
    let retries = type_sum(&summary, &["retries"]);
    assert!(committed > 50, "{committed} committed");
    assert!(
        retries > 0,
        "no retries at zipf 0.99 with 16 terminals: {summary}"
    );
    assert_eq!(
        support::retry_causes_sum(&summary),
        retries,
        "every retry has its cause: {summary}"
    );
    let abort_rate = metric(&summary, "abort rate");
    assert!(abort_rate > 0.0 && abort_rate < 100.0, "{abort_rate}");
    let per_commit = metric(&summary, "retries");
    assert!(
        (per_commit - retries as f64 / committed as f64).abs() < 1e-9,
        "{per_commit}"
    );
    // Every attempt ends in a commit or an abort, and commits are timed.
    let (commits, p50) = operation(&summary, "commit");
    assert!(
        commits >= committed,
        "{commits} commits timed, {committed} committed"
    );
    assert!(p50 > 0.0);
    run_ok(txbench(dir.path()).args(["retwis", "clean", "--db", url]));
    let out = txbench(dir.path())
        .args(["retwis", "run", "--db", url, "--duration", "1s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a cleaned database still ran");
    summary
}

#[test]
fn redis_aborts_conflicting_transactions_and_the_driver_retries_them() {
    let Some(base) = server_url("TXBENCH_TEST_REDIS_URL") else {
        return;
    };
    // Database 9: 15 is this file's other test's, 12 to 14 the engine tests'.
    let url = format!("{}/9", base.trim_end_matches('/'));
    let summary = contended_run(&url, &[]);
    assert_eq!(summary["engine"], "redis");
    assert!(
        summary["server_version"]
            .as_str()
            .unwrap()
            .starts_with("Redis"),
        "{summary}"
    );
    support::assert_one_clock(&summary);
    // Optimistic transactions abort at commit: the messages say so.
    let samples = summary["error_samples"].to_string();
    assert!(
        samples.contains("EXEC aborted") || samples == "[]",
        "{samples}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_at_repeatable_read_retries_serialization_failures() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "retwis").await;
    // Post-Tweets update keys in the order drawn, so under this skew they
    // deadlock now and then; each would stall its sessions for the default
    // deadlock_timeout of 1 s, a third of the run.
    db.admin()
        .batch_execute(&format!(
            "ALTER DATABASE {} SET deadlock_timeout = '50ms'",
            db.name()
        ))
        .await
        .unwrap();
    let url = db.url.clone();
    let summary = tokio::task::spawn_blocking(move || {
        contended_run(&url, &["--isolation", "repeatable-read"])
    })
    .await
    .unwrap();
    assert_eq!(summary["engine"], "postgres");
    db.drop_now().await;
}
