//! A workload file on PostgreSQL and MariaDB: the documented example (whose
//! optimistic debit loses some races, each an expected rollback) and YCSB A
//! and E load and run without an error. Each server's test makes a database
//! of its own and drops it. Needs TXBENCH_TEST_POSTGRES_URL and
//! TXBENCH_TEST_MYSQL_URL; skips with a notice otherwise.

mod support;

use std::sync::Arc;

use support::documented_example;
use txbench_core::{Engine, Session};
use txbench_engines::mysql::{MyEngine, MyTarget};
use txbench_engines::postgres::{PgEngine, PgTarget};
use txbench_workloads::custom::{self, ycsb};

#[path = "../../txbench-engines/tests/service/mod.rs"]
mod service;
use service::from_env as server_url;

/// The URL with its database replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a database in the URL");
    format!("{base}/{name}")
}

/// Load `text` at scale 100 and run it a second on 4 terminals and 2
/// sessions: every type commits, and nothing fails.
async fn loads_and_runs<E: Engine>(engine: &Arc<E>, text: &str) {
    let spec = custom::parse("workload.toml", text).unwrap();
    // YCSB's files share their table: each load replaces the last one's.
    support::load(engine, &spec, 100, true).await;
    let rec = support::run_briefly(engine, &spec, 100, 2).await;
    for (t, stats) in spec.transactions.iter().zip(&rec.total.measured) {
        let what = format!("{} {}", spec.name, t.name);
        assert!(stats.committed > 10, "{what}: {stats:?}");
        assert_eq!(stats.failed(), 0, "{what}: {:?}", rec.total.error_samples);
    }
}

async fn every_file<E: Engine>(engine: &Arc<E>) {
    for text in [
        documented_example(),
        ycsb::file('a').unwrap().into(),
        // Latest reads of keys that concurrent inserts are still writing.
        ycsb::file('d').unwrap().into(),
        ycsb::file('e').unwrap().into(),
    ] {
        loads_and_runs(engine, &text).await;
    }
}

/// Run `every_file` on `engine` in a runtime of its own, then `drop_it`
/// whatever happened: a failed run leaves no database behind.
fn in_own_database<E: Engine>(engine: Arc<E>, drop_it: impl std::future::Future<Output = ()>) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(engine.create_database()).unwrap();
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(every_file(&engine))
    }));
    drop(engine);
    rt.block_on(drop_it);
    if let Err(panic) = ran {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn workload_files_run_on_postgres() {
    let Some(url) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let name = format!("txbench_wf_{}", std::process::id());
    let engine = Arc::new(PgEngine::new(
        PgTarget::parse(&with_database(&url, &name)).unwrap(),
        None,
    ));
    in_own_database(engine, async move {
        let admin = PgEngine::new(PgTarget::parse(&url).unwrap(), None);
        let mut s = admin.connect().await.unwrap();
        s.query_sql(&format!("DROP DATABASE {name} WITH (FORCE)"))
            .await
            .unwrap();
    });
}

#[test]
fn workload_files_run_on_mariadb() {
    let Some(url) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let name = format!("txbench_wf_{}", std::process::id());
    let target = |u: &str| vec![MyTarget::parse(u).unwrap()];
    let engine = Arc::new(MyEngine::new(target(&with_database(&url, &name)), None));
    in_own_database(engine, async move {
        let admin = MyEngine::new(target(&url), None);
        let mut s = admin.connect().await.unwrap();
        s.query_sql(&format!("DROP DATABASE {name}")).await.unwrap();
    });
}
