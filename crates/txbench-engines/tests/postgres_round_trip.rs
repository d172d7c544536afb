//! A PostgreSQL session's round trips with one Sync (the session writes a
//! transaction's statements itself, tokio-postgres sharing the socket): a
//! statement that fails in the middle of a pipeline leaves nothing of the
//! statements before it, the COMMIT after it is skipped, and the session
//! goes on, with tokio-postgres's own requests (a load's, a check's) in
//! between, over TLS and without. Needs TXBENCH_TEST_POSTGRES_URL; skips
//! with a notice otherwise.

use tokio_postgres::NoTls;
use txbench_core::schema::Statement;
use txbench_core::{Call, Engine, ErrorKind, Param, Reply, Session, TxMode};
use txbench_engines::postgres::{PgEngine, PgTarget};
use txbench_test_support::service;

static BUMP: Statement = Statement::new(
    "bump",
    "UPDATE txbench_round_trip SET v = v + ? WHERE k = ?",
);
static READ: Statement = Statement::new("read", "SELECT v FROM txbench_round_trip WHERE k = ?");
/// Fails for k = 0: 1 / 0.
static DIVIDE: Statement = Statement::new(
    "divide",
    "UPDATE txbench_round_trip SET v = v + 1 / ? WHERE k = 1",
);

async fn values(admin: &tokio_postgres::Client) -> Vec<i64> {
    let rows = admin
        .query("SELECT v FROM txbench_round_trip ORDER BY k", &[])
        .await
        .unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

fn with_ssl(url: &str, mode: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}sslmode={mode}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_statement_in_a_round_trip_commits_nothing_and_the_session_goes_on() {
    let Some(url) = service::from_env("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let (admin, conn) = tokio_postgres::connect(&url, NoTls).await.unwrap();
    tokio::spawn(conn);
    admin
        .batch_execute(
            "DROP TABLE IF EXISTS txbench_round_trip; \
             CREATE TABLE txbench_round_trip (k int PRIMARY KEY, v bigint NOT NULL); \
             INSERT INTO txbench_round_trip VALUES (1, 0), (2, 0)",
        )
        .await
        .unwrap();
    // prefer takes TLS where the server offers it; disable is plain TCP.
    for mode in ["prefer", "disable"] {
        let engine = PgEngine::new(PgTarget::parse(&with_ssl(&url, mode)).unwrap(), None);
        let mut s = engine.connect().await.unwrap();
        let before = values(&admin).await;
        let one = [Param::Int(1), Param::Int(1)];
        let two = [Param::Int(1), Param::Int(2)];
        let zero = [Param::Int(0)];
        let k1 = [Param::Int(1)];

        // The first statement runs, the second fails: neither the first
        // nor the third (nor the COMMIT) leaves anything.
        s.begin(TxMode::ReadWrite).await.unwrap();
        let failing = [
            Call::execute(&BUMP, &one),
            Call::execute(&DIVIDE, &zero),
            Call::execute(&BUMP, &two),
        ];
        let err = s.pipeline_and_commit(&failing).await.expect_err(mode);
        assert_eq!(err.code.as_deref(), Some("SQLSTATE 22012"), "{mode}: {err}");
        assert_eq!(err.kind, ErrorKind::Other, "{mode}");
        s.rollback().await.unwrap();
        assert_eq!(values(&admin).await, before, "{mode}: nothing committed");

        // A statement of tokio-postgres's own (a check's query), then a
        // whole transaction: its reply read back in the same round trip.
        s.query_sql("SELECT count(*) FROM txbench_round_trip")
            .await
            .unwrap();
        s.begin(TxMode::ReadWrite).await.unwrap();
        let whole = [
            Call::execute(&BUMP, &one),
            Call::query(&READ, &k1),
            Call::execute(&BUMP, &two),
        ];
        let replies = s.pipeline_and_commit(&whole).await.unwrap();
        assert!(matches!(replies[0], Reply::Affected(1)), "{mode}");
        let Reply::Rows(rows) = &replies[1] else {
            panic!("{mode}: a query answers with rows");
        };
        let read = rows.row(0).and_then(|r| r.get(0)).and_then(Param::as_i64);
        assert_eq!(read, Some(before[0] + 1), "{mode}: the read sees the bump");
        assert_eq!(
            values(&admin).await,
            vec![before[0] + 1, before[1] + 1],
            "{mode}: the whole transaction committed"
        );

        // A conflict-free autocommit statement, outside any transaction.
        assert_eq!(s.execute(&BUMP, &one).await.unwrap(), 1, "{mode}");
    }
    admin
        .batch_execute("DROP TABLE txbench_round_trip")
        .await
        .unwrap();
}
