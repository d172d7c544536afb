//! A serialization failure forced on PostgreSQL is classified as a conflict,
//! retried by the driver inside the transaction's latency, and counted.
//! Needs TXBENCH_TEST_POSTGRES_URL; skips with a notice otherwise.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio_postgres::NoTls;
use txbench_core::driver::RetryPolicy;
use txbench_core::driver::{self, RunOptions, WaitMode};
use txbench_core::schema::Statement;
use txbench_core::{
    DbError, Engine, ErrorKind, Isolation, Outcome, Param, RepeatTerminal, Session, TxMode,
    TxnTypeInfo, Workload, Written,
};
use txbench_engines::postgres::{PgEngine, PgTarget};

use txbench_test_support::service;

fn server_url() -> Option<String> {
    service::from_env("TXBENCH_TEST_POSTGRES_URL")
}

static READ: Statement = Statement::new("read", "SELECT v FROM txbench_conflict WHERE k = 1");
static WRITE: Statement = Statement::new("write", "UPDATE txbench_conflict SET v = ? WHERE k = 1");

static TYPES: [TxnTypeInfo; 1] = [TxnTypeInfo {
    name: "Bump",
    key: "bump",
    mix: 1.0,
    min_share: None,
    keying: Duration::ZERO,
    mean_think: Duration::ZERO,
    p90_limit: Duration::from_secs(1),
    expected_success: None,
    success_drifts_to: None,
}];

/// Read-modify-write of one row; the first attempt has the row changed under it
/// by another connection between the read and the write.
struct Bump {
    interferer: tokio_postgres::Client,
    interfered: AtomicBool,
}

impl Workload for Bump {
    type Input = ();
    type Terminal = RepeatTerminal<()>;

    fn name(&self) -> &'static str {
        "bump"
    }
    fn transaction_types(&self) -> &'static [TxnTypeInfo] {
        &TYPES
    }
    fn default_terminals(&self) -> usize {
        1
    }
    fn terminal(&self, _: usize, _: u64) -> RepeatTerminal<()> {
        RepeatTerminal(())
    }

    async fn execute<S: Session>(
        &self,
        s: &mut S,
        _: &(),
        _: &mut Written,
    ) -> Result<Outcome, DbError> {
        s.begin(TxMode::ReadWrite).await?;
        let rows = s.query(&READ, &[]).await?;
        let v = rows.row(0).and_then(|r| r.get(0)?.as_i64()).unwrap_or(0);
        if !self.interfered.swap(true, Ordering::SeqCst) {
            self.interferer
                .batch_execute("UPDATE txbench_conflict SET v = v + 1000 WHERE k = 1")
                .await
                .map_err(|e| DbError::new(ErrorKind::Other, e.to_string()))?;
        }
        s.execute(&WRITE, &[Param::Int(v + 1)]).await?;
        s.commit().await?;
        Ok(Outcome::Committed)
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn forced_serialization_failure_is_retried_and_counted() {
    let Some(url) = server_url() else { return };
    let (admin, conn) = tokio_postgres::connect(&url, NoTls).await.unwrap();
    tokio::spawn(conn);
    admin
        .batch_execute(
            "DROP TABLE IF EXISTS txbench_conflict; \
             CREATE TABLE txbench_conflict (k int PRIMARY KEY, v bigint NOT NULL); \
             INSERT INTO txbench_conflict VALUES (1, 0)",
        )
        .await
        .unwrap();
    let (interferer, conn) = tokio_postgres::connect(&url, NoTls).await.unwrap();
    tokio::spawn(conn);

    // The classification alone first: the engine maps 40001 to a conflict.
    let engine = Arc::new(PgEngine::new(
        PgTarget::parse(&url).unwrap(),
        Some(Isolation::Serializable),
    ));
    let workload = Bump {
        interferer,
        interfered: AtomicBool::new(false),
    };
    let mut s = engine.connect().await.unwrap();
    let err = workload
        .execute(&mut s, &(), &mut Written::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict, "{err}");
    assert!(err.message.contains("40001"), "{err}");
    s.rollback().await.unwrap();

    // Then through the driver: the conflict is retried and counted, not failed.
    workload.interfered.store(false, Ordering::SeqCst);
    let workload = Arc::new(workload);
    let opts = RunOptions {
        duration: Duration::from_millis(500),
        transactions: None,
        warmup: Duration::ZERO,
        terminals: 1,
        connections: 1,
        wait: WaitMode::None,
        seed: 1,
        retry: RetryPolicy::default(),
        affinity: false,
        start_at: None,
        grace: txbench_core::driver::DEFAULT_GRACE,
        acks: None,
        schedule: Vec::new(),
        open: None,
    };
    let (_tx, stop) = tokio::sync::watch::channel(false);
    let rec = driver::run(&engine, &workload, &opts, stop, |_| {})
        .await
        .unwrap();
    let stats = &rec.total.measured[0];
    assert_eq!(stats.retries, 1, "exactly the forced conflict is retried");
    assert_eq!(stats.failed(), 0, "{:?}", rec.total.error_samples);
    assert!(stats.committed >= 1);
    // Every committed transaction has a latency, the retried one with both
    // attempts; so has the one unfinished at the window's end and completed
    // in the grace after it.
    let done_in_grace = stats.unfinished - stats.censored.len();
    assert_eq!(stats.latency.len(), stats.committed + done_in_grace);
    admin
        .batch_execute("DROP TABLE txbench_conflict")
        .await
        .unwrap();
}
