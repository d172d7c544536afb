//! A statement in progress is stopped from elsewhere through its session's
//! interrupt handle, and the server runs it no longer: PostgreSQL's cancel
//! request (on a connection of the driver's or of txbench's own socket, with
//! kernel timestamps), MySQL's `KILL QUERY`. Needs TXBENCH_TEST_POSTGRES_URL
//! and TXBENCH_TEST_MYSQL_URL; each part skips with a notice otherwise.

use std::time::{Duration, Instant};

use txbench_core::Timestamps;
use txbench_core::{Engine, Session};
use txbench_engines::mysql::{MyEngine, MyTarget};
use txbench_engines::postgres::{PgEngine, PgTarget};

use txbench_test_support::{service, settle};

/// Longer than any test may take: a statement that ends before it was
/// stopped.
const SLEEP_S: u64 = 600;

/// Start `sql` on `session`, interrupt it a moment later, and return how long
/// the statement took and its result (error text or the rows' count).
async fn interrupted<S: Session>(mut session: S, sql: String) -> (Duration, Result<usize, String>) {
    let handle = session.interrupter().expect("the engine can interrupt");
    let started = Instant::now();
    let statement = tokio::spawn(async move {
        let r = session.query_sql(&sql).await;
        (
            started.elapsed(),
            r.map(|rows| rows.len()).map_err(|e| e.message),
        )
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    handle.interrupt().await;
    statement.await.unwrap()
}

#[tokio::test]
async fn postgres_cancels_the_statement_on_both_kinds_of_connection() {
    let Some(url) = service::from_env("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let (watcher, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    for timestamps in [Timestamps::Client, Timestamps::Kernel] {
        let engine =
            PgEngine::new(PgTarget::parse(&url).unwrap(), None).with_timestamps(timestamps);
        let tag = format!("txbench-interrupt-{}-{timestamps:?}", std::process::id());
        let sql = format!("SELECT pg_sleep({SLEEP_S}) /* {tag} */");
        let (took, result) = interrupted(engine.connect().await.unwrap(), sql).await;
        assert!(
            took < Duration::from_secs(SLEEP_S),
            "{timestamps:?}: ran {took:?}"
        );
        let error = result.expect_err("a cancelled statement fails");
        assert!(error.contains("cancel"), "{timestamps:?}: {error}");
        let running = active_after_a_moment(&watcher, &tag).await;
        assert_eq!(running, 0, "{timestamps:?}: the server still runs it");
    }
}

/// How many statements holding `tag` the server lists as active, asked until
/// there are none or 5 s have passed: none, unless the statement was left
/// to run its 600 s. PostgreSQL sends a cancelled statement's error before
/// its backend leaves it, and a loaded CI machine listed it active in
/// between.
async fn active_after_a_moment(watcher: &tokio_postgres::Client, tag: &str) -> i64 {
    let pattern = format!("%{tag}%");
    settle::until_zero(Duration::from_secs(5), async || {
        watcher
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 \
                 AND pid <> pg_backend_pid()",
                &[&pattern],
            )
            .await
            .unwrap()
            .get(0)
    })
    .await
}

#[tokio::test]
async fn mysql_kills_the_statement() {
    let Some(url) = service::from_env("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let engine = MyEngine::new(vec![MyTarget::parse(&url).unwrap()], None);
    let tag = format!("txbench-interrupt-{}", std::process::id());
    let sql = format!("SELECT SLEEP({SLEEP_S}) /* {tag} */");
    let (took, _) = interrupted(engine.connect().await.unwrap(), sql).await;
    // SLEEP that is killed returns early (with 1) rather than failing.
    assert!(took < Duration::from_secs(SLEEP_S), "ran {took:?}");
    let mut watcher = engine.connect().await.unwrap();
    let running = watcher
        .query_sql(&format!(
            "SELECT id FROM information_schema.processlist WHERE info LIKE '%{tag}%' \
             AND info NOT LIKE '%processlist%'"
        ))
        .await
        .unwrap();
    assert_eq!(running.len(), 0, "the server still runs it");
}
