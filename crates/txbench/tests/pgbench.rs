//! `txbench pgbench`: pgbench's three built-in scripts (workload files in
//! `txbench-workloads/src/custom/pgbench/`) each load, run 2 s with no
//! error and keep TPC-B's balances on SQLite, PostgreSQL and MariaDB; and on
//! PostgreSQL txbench runs on the data `pgbench -i` made, and pgbench on the
//! data txbench loaded, so that a user can A/B the two on the same data.

use std::path::{Path, PathBuf};

mod support;
use support::{MyDatabase, PgDatabase, errors_by_kind, text, txbench_output, type_sum};
use txbench_test_support::command::run;

const SCRIPTS: [&str; 3] = ["tpcb-like", "simple-update", "select-only"];

/// Run `script` for 2 s on `db` (loaded): no error, something committed, at
/// the scale `branches`.
fn runs_cleanly(dir: &Path, db: &str, script: &str, branches: i64) {
    let run = [
        "pgbench",
        "run",
        "--builtin",
        script,
        "--db",
        db,
        "-d",
        "2s",
        "--warmup",
        "0s",
        "-t",
        "2",
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
    assert_eq!(summary["settings"]["scale"]["value"], branches, "{script}");
}

/// TPC-B's balances hold: `check` exits 0.
fn invariants_hold(dir: &Path, db: &str) {
    let out = txbench_output(dir, &["pgbench", "check", "--db", db]);
    assert!(out.status.success(), "check on {db}: {}", text(&out));
}

/// Run each script on `db`, at the scale `branches`, in turn, each followed
/// by the check of TPC-B's balances.
fn every_script_runs_and_keeps_the_balances(dir: &Path, db: &str, branches: i64) {
    for script in SCRIPTS {
        runs_cleanly(dir, db, script, branches);
        invariants_hold(dir, db);
    }
}

/// Load scale 1 into `db`, then run each script on that one load.
fn every_script_runs_on_one_load(dir: &Path, db: &str) {
    let out = txbench_output(dir, &["pgbench", "load", "--db", db, "--drop"]);
    assert!(out.status.success(), "{}", text(&out));
    every_script_runs_and_keeps_the_balances(dir, db, 1);
}

#[test]
fn pgbench_scripts_run_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("pgbench.db").display());
    every_script_runs_on_one_load(dir.path(), &db);
}

#[tokio::test(flavor = "multi_thread")]
async fn pgbench_scripts_run_on_postgres() {
    let Some(base) = support::server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "pgbench_files").await;
    let dir = tempfile::tempdir().unwrap();
    every_script_runs_on_one_load(dir.path(), &db.url);
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn pgbench_scripts_run_on_mariadb() {
    let Some(base) = support::server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let db = MyDatabase::create(&base, "pgbench_files").await;
    let dir = tempfile::tempdir().unwrap();
    every_script_runs_on_one_load(dir.path(), &db.url);
    db.drop_now().await;
}

/// pgbench beside the PostgreSQL server the tests use (its bin directory),
/// or on the PATH.
fn pgbench() -> Option<PathBuf> {
    let beside_servers = std::fs::read_dir("/usr/lib/postgresql")
        .ok()
        .into_iter()
        .flatten();
    let mut found: Vec<PathBuf> = beside_servers
        .filter_map(|e| e.ok().map(|e| e.path().join("bin/pgbench")))
        .filter(|p| p.exists())
        .collect();
    found.sort();
    found.pop().or_else(|| {
        let on_path = std::process::Command::new("pgbench")
            .arg("--version")
            .output();
        on_path
            .is_ok_and(|o| o.status.success())
            .then(|| PathBuf::from("pgbench"))
    })
}

fn pgbench_ok(args: &[&str]) {
    let tool = pgbench().expect("pgbench");
    run(&[&[tool.to_str().unwrap()][..], args].concat());
}

#[tokio::test(flavor = "multi_thread")]
async fn txbench_and_pgbench_run_on_each_others_data() {
    let Some(base) = support::server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    if pgbench().is_none() {
        let required = std::env::var("TXBENCH_REQUIRE_SERVICES").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "pgbench is not installed beside PostgreSQL nor on the PATH"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Data pgbench -i made, at scale 2: txbench finds the scale in the
    // branches and runs every script; the invariants hold after.
    let made_by_pgbench = PgDatabase::create(&base, "by_pgbench").await;
    pgbench_ok(&["-i", "-q", "-s", "2", &made_by_pgbench.url]);
    every_script_runs_and_keeps_the_balances(dir.path(), &made_by_pgbench.url, 2);
    made_by_pgbench.drop_now().await;
    // Data txbench loaded: pgbench's own TPC-B runs on it, and the
    // invariants hold after.
    let loaded_by_txbench = PgDatabase::create(&base, "by_txbench").await;
    let url = loaded_by_txbench.url.clone();
    let out = txbench_output(dir.path(), &["pgbench", "load", "--db", &url]);
    assert!(out.status.success(), "{}", text(&out));
    pgbench_ok(&["-n", "-c", "2", "-T", "2", &url]);
    invariants_hold(dir.path(), &url);
    loaded_by_txbench.drop_now().await;
}

/// On the wire (kernel timestamps), a tpcb-like transaction is one round
/// trip pipelined, BEGIN to COMMIT sent together as pgbench's
/// `\startpipeline` sends them (none of its statements can roll it back),
/// and seven one statement a round trip, as `pgbench -M prepared` sends it.
#[tokio::test(flavor = "multi_thread")]
async fn tpcb_like_is_one_round_trip_pipelined_and_seven_statement_by_statement() {
    let Some(base) = support::server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "pgbench_wire").await;
    let dir = tempfile::tempdir().unwrap();
    let out = txbench_output(dir.path(), &["pgbench", "load", "--db", &db.url]);
    assert!(out.status.success(), "{}", text(&out));
    for (mode, round_trips) in [("pipelined", 1.0), ("statement", 7.0)] {
        let results = format!("results-{mode}");
        let run = [
            "pgbench",
            "run",
            "--db",
            &db.url,
            "--timestamps",
            "kernel",
            "--round-trips",
            mode,
            "-t",
            "2",
            "-d",
            "2s",
            "--warmup",
            "0s",
            "-q",
            "--results",
            &results,
        ];
        let out = txbench_output(dir.path(), &run);
        assert!(out.status.success(), "{mode}: {}", text(&out));
        let summary = support::only_result(&dir.path().join(&results), "summary.json");
        let each = summary["wire"]["round_trips_per_transaction"]
            .as_f64()
            .unwrap();
        assert!(
            (each - round_trips).abs() < 0.05,
            "{mode}: {each} round trips a transaction: {}",
            summary["wire"]
        );
    }
    db.drop_now().await;
}
