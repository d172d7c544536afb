//! A workload file on PostgreSQL and MariaDB: the documented example (whose
//! optimistic debit loses some races, each an expected rollback), YCSB A, D
//! and E and BenchBase's shipped files load and run without an error and
//! keep their invariants. Each server's test makes a database
//! of its own and drops it. Needs TXBENCH_TEST_POSTGRES_URL and
//! TXBENCH_TEST_MYSQL_URL; skips with a notice otherwise.

mod support;

use std::sync::Arc;

use support::documented_example;
use txbench_core::{Engine, Session};
use txbench_engines::mysql::{MyEngine, MyTarget};
use txbench_engines::postgres::{PgEngine, PgTarget};
use txbench_workloads::custom::{self, ycsb};

use txbench_test_support::service::from_env as server_url;

/// The URL with its database replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a database in the URL");
    format!("{base}/{name}")
}

/// Load `text` at scale 100 and run `count` of its transactions on
/// `terminals` terminals and 2 sessions: every type commits (but one
/// expected never to, which ends in its rollbacks), nothing fails, and
/// every invariant holds.
async fn loads_and_runs<E: Engine>(engine: &Arc<E>, text: &str, (terminals, count): (usize, u64)) {
    let spec = custom::parse("workload.toml", text).unwrap();
    support::load(engine, &spec, 100, false).await;
    let rec = support::run_until(engine, &spec, 100, (terminals, 2), count).await;
    for (t, stats) in spec.transactions.iter().zip(&rec.total.measured) {
        let what = format!("{} {}", spec.name, t.name);
        if t.expected_success == Some(0.0) {
            // A type that never commits (Voter's votes for no contestant).
            let ended = (stats.completed(), stats.committed);
            assert!(ended.0 > 0 && ended.1 == 0, "{what}: {ended:?}");
        } else {
            assert!(
                stats.committed > 10,
                "{what}: {} committed",
                stats.committed
            );
        }
        assert_eq!(stats.failed(), 0, "{what}: {:?}", rec.total.error_samples);
    }
    let mut session = engine.connect().await.unwrap();
    let found = custom::invariants::check(&mut session, &spec)
        .await
        .unwrap();
    assert_eq!(found.len(), spec.invariants.len());
    for clause in found {
        assert_eq!(clause.violations, 0, "{}: {}", spec.name, clause.clause);
    }
    drop(session);
    support::clean(engine, &spec).await;
}

async fn every_file<E: Engine>(engine: &Arc<E>) {
    for text in [
        documented_example(),
        ycsb::file('a').unwrap().into(),
        // Latest reads of keys that concurrent inserts are still writing.
        ycsb::file('d').unwrap().into(),
        ycsb::file('e').unwrap().into(),
        support::TRANSFERS.into(),
        support::DOCUMENTS.into(),
    ]
    .into_iter()
    .chain(custom::benchbase::CHOICES.iter().map(|c| {
        let (_, text) = custom::benchbase::file(c.name).unwrap();
        text.to_string()
    })) {
        match custom::parse("workload.toml", &text).unwrap().name.as_str() {
            // One terminal, its pauses cut to milliseconds: its
            // Contention types hold their locks for seconds and deadlock
            // each other by design (PostgreSQL finds a deadlock after a
            // second), so that 4 terminals would spend the run waiting.
            "resourcestresser" => {
                let short = support::resource_stresser_with_short_pauses();
                loads_and_runs(engine, &short, (1, 300)).await;
            }
            _ => loads_and_runs(engine, &text, (4, 2_000)).await,
        }
    }
}

/// Run `body` on `engine` in a runtime of its own, in a database of its
/// own, then `drop_it` whatever happened: a failed run leaves no database
/// behind.
fn in_own_database<E: Engine, F: std::future::Future<Output = ()>>(
    engine: Arc<E>,
    body: impl FnOnce(Arc<E>) -> F,
    drop_it: impl std::future::Future<Output = ()>,
) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(engine.create_database()).unwrap();
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.block_on(body(engine))));
    rt.block_on(drop_it);
    if let Err(panic) = ran {
        std::panic::resume_unwind(panic);
    }
}

/// `body` on PostgreSQL at `url`, in a database of its own named from
/// `prefix`, dropped after.
fn in_own_postgres<F: std::future::Future<Output = ()>>(
    url: &str,
    prefix: &str,
    body: impl FnOnce(Arc<PgEngine>) -> F,
) {
    let name = format!("{prefix}_{}", std::process::id());
    let engine = Arc::new(PgEngine::new(
        PgTarget::parse(&with_database(url, &name)).unwrap(),
        None,
    ));
    let url = url.to_string();
    in_own_database(engine, body, async move {
        let admin = PgEngine::new(PgTarget::parse(&url).unwrap(), None);
        let mut s = admin.connect().await.unwrap();
        s.query_sql(&format!("DROP DATABASE {name} WITH (FORCE)"))
            .await
            .unwrap();
    });
}

#[test]
fn workload_files_run_on_postgres() {
    let Some(url) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    in_own_postgres(&url, "txbench_wf", |engine| async move {
        every_file(&engine).await
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
    let body = |engine: Arc<MyEngine>| async move { every_file(&engine).await };
    in_own_database(engine, body, async move {
        let admin = MyEngine::new(target(&url), None);
        let mut s = admin.connect().await.unwrap();
        s.query_sql(&format!("DROP DATABASE {name}")).await.unwrap();
    });
}

/// A file whose columns take every type at the edges of its range.
const EVERY_TYPE: &str = r#"[workload]
name = "same"
scale = "rows"

[[table]]
name = "sample"
rows_per_scale = 200
primary_key = ["id"]
columns = [
  { name = "id", type = "bigint", gen = "sequence" },
  { name = "small", type = "int", gen = "uniform", min = -2147483648, max = 2147483647 },
  { name = "big", type = "bigint", gen = "uniform", min = -9223372036854775808, max = 9223372036854775807 },
  { name = "money", type = "decimal(12,2)", gen = "uniform", min = -9999999999, max = 9999999999 },
  { name = "code", type = "char(5)", gen = "string", length = 5 },
  { name = "note", type = "varchar(40)", gen = "string", min_length = 1, max_length = 40 },
  { name = "digits", type = "varchar(18)", gen = "number", length = 18 },
  { name = "fixed", type = "varchar(12)", gen = "constant", value = "héllo wörld" },
]

[[transaction]]
name = "Look"
weight = 100
params = [{ name = "k", gen = "key", of = "sample.id" }]
statements = [{ sql = "SELECT small FROM sample WHERE id = :k" }]
"#;

/// Every row of the sample table, each value written one way whatever the
/// engine returned it as (an integer, a decimal's text, a padded char).
async fn sample_rows<E: Engine>(engine: &Arc<E>) -> Vec<Vec<String>> {
    let mut s = engine.connect().await.unwrap();
    let rows = s
        .query_sql(
            "SELECT id, small, big, money, code, note, digits, fixed FROM sample ORDER BY id",
        )
        .await
        .unwrap();
    let canonical = |v: txbench_core::Param<'_>| match v {
        txbench_core::Param::Int(i) => i.to_string(),
        txbench_core::Param::Float(f) => format!("{f:.2}"),
        txbench_core::Param::Text(t) => match t.parse::<f64>() {
            Ok(f) if t.contains('.') => format!("{f:.2}"),
            _ => t.trim_end().to_string(),
        },
        other => format!("{other:?}"),
    };
    rows.iter()
        .map(|r| (0..8).map(|i| canonical(r.get(i).unwrap())).collect())
        .collect()
}

/// The same file loads the same rows on SQLite, PostgreSQL and MariaDB:
/// every value exactly as generated, none changed by an engine.
#[test]
fn one_file_loads_the_same_rows_on_every_engine() {
    let (Some(pg), Some(my)) = (
        server_url("TXBENCH_TEST_POSTGRES_URL"),
        server_url("TXBENCH_TEST_MYSQL_URL"),
    ) else {
        return;
    };
    let name = format!("txbench_same_{}", std::process::id());
    let spec = custom::parse("same.toml", EVERY_TYPE).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("same.db");
    let sqlite = Arc::new(
        txbench_engines::sqlite::SqliteEngine::new(
            txbench_engines::sqlite::SqliteConfig::parse(path.to_str().unwrap()).unwrap(),
        )
        .unwrap(),
    );
    let pg_engine = Arc::new(PgEngine::new(
        PgTarget::parse(&with_database(&pg, &name)).unwrap(),
        None,
    ));
    let my_engine = Arc::new(MyEngine::new(
        vec![MyTarget::parse(&with_database(&my, &name)).unwrap()],
        None,
    ));
    let loaded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            support::load(&sqlite, &spec, 1, false).await;
            pg_engine.create_database().await.unwrap();
            support::load(&pg_engine, &spec, 1, false).await;
            my_engine.create_database().await.unwrap();
            support::load(&my_engine, &spec, 1, false).await;
            (
                sample_rows(&sqlite).await,
                sample_rows(&pg_engine).await,
                sample_rows(&my_engine).await,
            )
        })
    }));
    rt.block_on(async {
        let admin = PgEngine::new(PgTarget::parse(&pg).unwrap(), None);
        let mut s = admin.connect().await.unwrap();
        let _ = s
            .query_sql(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .await;
        let admin = MyEngine::new(vec![MyTarget::parse(&my).unwrap()], None);
        let mut s = admin.connect().await.unwrap();
        let _ = s
            .query_sql(&format!("DROP DATABASE IF EXISTS {name}"))
            .await;
    });
    let (on_sqlite, on_pg, on_my) = loaded.unwrap_or_else(|p| std::panic::resume_unwind(p));
    assert_eq!(on_sqlite.len(), 200);
    // The extremes were drawn: the comparison covers wide values.
    assert!(
        on_sqlite.iter().any(|r| r[2].len() >= 18),
        "{:?}",
        &on_sqlite[..3]
    );
    assert!(on_sqlite.iter().any(|r| r[6].len() == 18));
    assert_eq!(on_sqlite[0][7], "héllo wörld");
    for (i, ((a, b), c)) in on_sqlite.iter().zip(&on_pg).zip(&on_my).enumerate() {
        assert_eq!(a, b, "row {i}: SQLite against PostgreSQL");
        assert_eq!(a, c, "row {i}: SQLite against MariaDB");
    }
    assert_eq!((on_pg.len(), on_my.len()), (200, 200));
}

/// A load takes its statistics after its `after_load` statements finished
/// the rows: AuctionMark's counts of bids are written by one, and a
/// planner that read the counts as they were before it (every one 0)
/// scans all items for one with bids (NewPurchase's find: 3.8 ms at
/// 2,000 users, where the primary key's index finds it at once).
#[test]
fn statistics_are_taken_after_the_rows_are_finished() {
    let Some(url) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    in_own_postgres(&url, "txbench_stats", |engine| async move {
        let (_, text) = custom::benchbase::file("auctionmark").unwrap();
        let spec = custom::parse("auctionmark.toml", text).unwrap();
        support::load(&engine, &spec, 100, false).await;
        let mut s = engine.connect().await.unwrap();
        let rows = s
            .query_sql(
                "SELECT n_distinct::text FROM pg_stats \
                 WHERE tablename = 'item' AND attname = 'i_num_bids'",
            )
            .await
            .unwrap();
        let distinct = match rows.row(0).and_then(|r| r.get(0)) {
            Some(txbench_core::Param::Text(t)) => t.parse::<f64>().unwrap(),
            other => panic!("no statistics of i_num_bids: {other:?}"),
        };
        // Loaded as 0 everywhere, counted by an after_load UPDATE.
        assert!(
            distinct > 1.0,
            "n_distinct {distinct}: taken before the counts"
        );
    });
}
