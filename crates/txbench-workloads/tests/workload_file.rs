//! A workload file loads and runs: the documented example and YCSB's core
//! workloads, loaded into SQLite through the shared load, driven by the
//! driver, their rows checked and their invariants kept.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use txbench_core::driver::{self, RunOptions, WaitMode};
use txbench_core::{Engine, Session};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine};
use txbench_workloads::LoadPlan;
use txbench_workloads::custom::{self, load, run::FileWorkload, ycsb};

fn documented_example() -> String {
    let doc = include_str!("../../../docs/workload-file.md");
    let start = doc.find("```toml\n").unwrap() + "```toml\n".len();
    doc[start..start + doc[start..].find("```").unwrap()].to_string()
}

fn engine(dir: &std::path::Path, name: &str) -> Arc<SqliteEngine> {
    let path = dir.join(name);
    Arc::new(SqliteEngine::new(SqliteConfig::parse(path.to_str().unwrap()).unwrap()).unwrap())
}

/// Load `text` at `scale` and run it for a second with 4 terminals; the
/// recording, the engine and the checked file. `before` sees the loaded
/// database before the run.
async fn load_and_run(
    dir: &std::path::Path,
    text: &str,
    scale: i64,
) -> (driver::Recording, Arc<SqliteEngine>, custom::Spec) {
    load_and_run_after(dir, text, scale, |_| {}).await
}

async fn load_and_run_after(
    dir: &std::path::Path,
    text: &str,
    scale: i64,
    before: impl FnOnce(&Arc<SqliteEngine>),
) -> (driver::Recording, Arc<SqliteEngine>, custom::Spec) {
    let spec = custom::parse("workload.toml", text).unwrap();
    let engine = engine(dir, &format!("{}.db", spec.name));
    let made = load::make(&spec);
    let plan = LoadPlan {
        scale,
        threads: 2,
        seed: 3,
        drop: false,
        foreign_keys: false,
    };
    let summary = load::load(
        Arc::clone(&engine),
        Arc::new(spec.clone()),
        &made,
        &plan,
        Arc::new(AtomicU64::new(0)),
    )
    .await
    .unwrap();
    assert_eq!(summary.rows, load::rows(&spec, scale));
    before(&engine);
    let workload = Arc::new(FileWorkload::new(spec.clone(), scale));
    let opts = RunOptions {
        duration: Duration::from_secs(1),
        warmup: Duration::ZERO,
        terminals: 4,
        connections: 1,
        wait: WaitMode::None,
        seed: 9,
        retry: Default::default(),
        affinity: false,
        start_at: None,
        grace: Duration::from_secs(1),
        acks: None,
        schedule: Vec::new(),
        open: None,
    };
    let (_running, stop) = tokio::sync::watch::channel(false);
    let recording = driver::run(&engine, &workload, &opts, stop, |_| {})
        .await
        .unwrap();
    (recording, engine, spec)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_example_loads_and_runs_and_its_payments_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let balances = std::sync::Mutex::new(0.0);
    let (rec, engine, spec) =
        load_and_run_after(dir.path(), &documented_example(), 100, |engine| {
            *balances.lock().unwrap() = pollster::block_on(total(engine, BALANCES));
        })
        .await;
    let (pay, look) = (&rec.total.measured[0], &rec.total.measured[1]);
    assert!(
        pay.committed > 50 && look.committed > 50,
        "{pay:?} {look:?}"
    );
    assert_eq!(
        pay.failed() + look.failed(),
        0,
        "{:?}",
        rec.total.error_samples
    );
    let mut s = engine.connect().await.unwrap();
    // Every Pay recorded its payment past the loaded ones.
    let payments = s.query_sql("SELECT count(*) FROM payment").await.unwrap();
    let payments = payments.row(0).unwrap().get(0).unwrap().as_i64().unwrap() as u64;
    assert!(payments >= 1_000 + pay.committed, "{payments} payments");
    // Each Pay read a balance into :c_balance, debited it by :amount and
    // recorded :amount as a payment past the loaded ones: the money moved
    // adds up, so every value went to the statement that used it.
    let before = *balances.lock().unwrap();
    let after = total(&engine, BALANCES).await;
    let paid = total(
        &engine,
        "SELECT coalesce(sum(p_amount), 0) FROM payment WHERE p_id > 1000",
    )
    .await;
    assert!(paid > 0.0);
    assert!(
        (before - paid - after).abs() < 1e-6,
        "{before} - {paid} != {after}"
    );
    // The file's invariant counts the customers overdrawn, which is what the
    // same question asked directly finds.
    let found = custom::invariants::check(&mut s, &spec).await.unwrap();
    let overdrawn = total(&engine, "SELECT count(*) FROM customer WHERE c_balance < 0").await;
    // The hottest customers take hundreds of debits of up to 50 from at
    // most 1000: some are overdrawn, so the count is not a trivial 0.
    assert!(overdrawn > 0.0);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].clause, "no negative balance");
    assert_eq!(found[0].violations as f64, overdrawn);
    // A query the database refuses is named.
    let mut broken = spec.clone();
    broken.invariants[0].1 = "SELECT nothing FROM nowhere".into();
    let e = custom::invariants::check(&mut s, &broken)
        .await
        .unwrap_err();
    assert!(e.message.contains("invariant 'no negative balance'"), "{e}");
}

const BALANCES: &str = "SELECT sum(c_balance) FROM customer";

/// The number `sql` returns.
async fn total(engine: &Arc<SqliteEngine>, sql: &str) -> f64 {
    let mut s = engine.connect().await.unwrap();
    let rows = s.query_sql(sql).await.unwrap();
    rows.row(0).unwrap().get(0).unwrap().as_f64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_ycsb_core_workload_runs_without_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for (letter, text) in ycsb::CORE {
        let (rec, _, spec) = load_and_run(dir.path(), text, 2_000).await;
        for (t, stats) in spec.transactions.iter().zip(&rec.total.measured) {
            assert!(stats.committed > 10, "YCSB {letter} {}: {stats:?}", t.name);
            assert_eq!(
                stats.failed(),
                0,
                "YCSB {letter} {}: {:?}",
                t.name,
                rec.total.error_samples
            );
        }
    }
}
