//! The conformance suite: every workload of the registry on every engine CI
//! has, through the command line, the same steps each time: load a small
//! scale, run with the acknowledged-work log, verify it (where the workload
//! can), check (where the workload has a check), clean, and then a run
//! that names the missing data. An engine that cannot hold a workload (Redis
//! and TPC-C's or TATP's tables) must refuse it by name and leave nothing.
//!
//! Engines: SQLite always; PostgreSQL, MariaDB and Redis from
//! TXBENCH_TEST_POSTGRES_URL, TXBENCH_TEST_MYSQL_URL and TXBENCH_TEST_REDIS_URL
//! (skipped with a notice when unset, failed with TXBENCH_REQUIRE_SERVICES=1).

mod support;

use support::{MyDatabase, PgDatabase, server_url, text, txbench_output as txbench};
use txbench_workloads::Benchmark;
use txbench_workloads::registry::{self, EachVisitor};

/// What the suite needs to know of a workload, read from the registry.
#[derive(Debug, Clone)]
struct Workload {
    name: &'static str,
    scale_flag: String,
    has_check: bool,
    has_verify: bool,
}

struct Collect(Vec<Workload>);

impl EachVisitor for Collect {
    fn visit<W: Benchmark>(&mut self) {
        self.0.push(Workload {
            name: W::ABOUT.name,
            scale_flag: format!("--{}", W::ABOUT.scale.unit),
            has_check: W::check().is_some(),
            has_verify: W::verify().is_some(),
        });
    }
}

fn workloads() -> Vec<Workload> {
    let mut all = Collect(Vec::new());
    registry::each(&mut all);
    all.0
}

/// The flags that say what `workload` is, which every verb takes: a
/// workload file's `--file` (the documented example, written to `dir`).
fn definition(workload: &str, dir: &std::path::Path) -> Vec<String> {
    if workload != "custom" {
        return Vec::new();
    }
    vec!["--file".to_string(), support::documented_example(dir)]
}

/// `txbench NAME VERB`, with the workload's definition, then `rest`.
fn verb(w: &Workload, dir: &std::path::Path, verb: &str, rest: &[&str]) -> std::process::Output {
    let definition = definition(w.name, dir);
    let mut args = vec![w.name, verb];
    args.extend(definition.iter().map(String::as_str));
    args.extend_from_slice(rest);
    txbench(dir, &args)
}

/// A small scale of each workload: quick to load on any engine.
fn small(workload: &str) -> &'static str {
    match workload {
        // pgbench's scale factor: 100,000 accounts each.
        "tpcc" | "ch" | "pgbench" => "1",
        "custom" => "20",
        _ => "2000",
    }
}

/// Load, run, check and clean `w` on `url`; after the clean a run names the
/// missing data.
fn conforms(w: &Workload, url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let context = format!("{} on {url}", w.name);
    let out = verb(
        w,
        dir,
        "load",
        &["--db", url, &w.scale_flag, small(w.name), "--threads", "2"],
    );
    assert!(out.status.success(), "{context}: load: {}", text(&out));
    assert!(text(&out).contains("loaded"), "{context}: {}", text(&out));

    let out = verb(
        w,
        dir,
        "run",
        &[
            "--db",
            url,
            "-d",
            "2s",
            "--warmup",
            "0s",
            "-t",
            "2",
            "-q",
            "--ack-log",
        ],
    );
    assert!(out.status.success(), "{context}: run: {}", text(&out));
    let summary = support::only_result(&dir.join("results"), "summary.json");
    assert_eq!(summary["workload"], w.name, "{context}");
    assert!(
        support::type_sum(&summary, &["committed"]) > 0,
        "{context}: nothing committed: {summary}"
    );
    let errors = support::errors_by_kind(&summary);
    assert!(errors.is_empty(), "{context}: errors {errors:?}");

    // Every workload keeps its acknowledged-work log on every engine.
    let run = support::only_run(&dir.join("results"));
    let log = std::fs::read_to_string(run.join("acks.csv")).unwrap();
    assert!(
        log.lines().filter(|l| l.contains(",ack,")).count() > 0,
        "{context}: nothing acknowledged in the log:\n{log}"
    );
    if w.has_verify {
        let run = run.to_str().unwrap();
        let out = txbench(dir, &[w.name, "verify", "--db", url, run]);
        assert!(out.status.success(), "{context}: verify: {}", text(&out));
        assert!(text(&out).contains("PASS"), "{context}: {}", text(&out));
    }

    if w.has_check {
        let out = verb(w, dir, "check", &["--db", url]);
        assert!(out.status.success(), "{context}: check: {}", text(&out));
        assert!(!text(&out).contains("FAIL"), "{context}: {}", text(&out));
    }

    let out = verb(w, dir, "clean", &["--db", url]);
    assert!(out.status.success(), "{context}: clean: {}", text(&out));
    let out = verb(w, dir, "run", &["--db", url, "-d", "1s", "--no-results"]);
    assert_eq!(out.status.code(), Some(1), "{context}: {}", text(&out));
    assert!(
        text(&out).contains(&format!("txbench {} load", w.name)),
        "{context}: a run after clean should say to load: {}",
        text(&out)
    );
}

/// An engine that cannot hold `w` refuses its load by name, twice (nothing
/// half loaded is left for the second try to trip on).
/// A workload the engine cannot hold: its load and its run are refused as
/// bad input (exit 2), saying `because`, twice alike (nothing half-made).
fn refused(w: &Workload, url: &str, because: &str) {
    let dir = tempfile::tempdir().unwrap();
    for v in ["load", "load", "run"] {
        let out = verb(w, dir.path(), v, &["--db", url]);
        assert_eq!(out.status.code(), Some(2), "{} {v} on {url}", w.name);
        assert!(text(&out).contains(because), "{}: {}", w.name, text(&out));
    }
}

#[test]
fn every_workload_conforms_on_sqlite() {
    for w in workloads() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", dir.path().join("db.sqlite").display());
        conforms(&w, &url);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_workload_conforms_on_postgres() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    for w in workloads() {
        let db = PgDatabase::create(&base, &format!("conf_{}", w.name)).await;
        let url = db.url.clone();
        tokio::task::spawn_blocking(move || conforms(&w, &url))
            .await
            .unwrap();
        db.drop_now().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_workload_conforms_on_mariadb() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    for w in workloads() {
        let db = MyDatabase::create(&base, &format!("conf_{}", w.name)).await;
        let url = db.url.clone();
        tokio::task::spawn_blocking(move || conforms(&w, &url))
            .await
            .unwrap();
        db.drop_now().await;
    }
}

/// Redis holds key-value tables only: Retwis and YCSB (every statement with a
/// key-value form) conform, the others are refused.
#[test]
fn every_workload_conforms_or_is_refused_on_redis() {
    let Some(base) = server_url("TXBENCH_TEST_REDIS_URL") else {
        return;
    };
    // Database 10: the engine tests use 12 to 14, and test binaries run at once.
    let url = format!("{}/10", base.trim_end_matches('/'));
    for w in workloads() {
        match w.name {
            "retwis" | "ycsb" => conforms(&w, &url),
            _ => refused(&w, &url, "key-value tables only"),
        }
    }
}
