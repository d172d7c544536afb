//! A session that stops when its transaction asks to commit and waits to be
//! told how to end it: how the ACID tests hold a transaction open "immediately
//! prior to COMMIT" (TPC-C 3.4.2) while another runs, and substitute a
//! ROLLBACK for the COMMIT (3.2.2.2). Only the first commit is held; the
//! transaction runs the workload's own procedure, unchanged.

use std::time::Duration;

use tokio::sync::oneshot;
use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, Isolation, Param, Reply, Rows, Session, TxMode};

/// How the held transaction ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// COMMIT, as the procedure asked.
    Commit,
    /// ROLLBACK instead.
    RollBack,
}

/// A session whose first commit waits for an [`End`].
pub struct Gate<S> {
    inner: S,
    reached: Option<oneshot::Sender<()>>,
    decision: Option<oneshot::Receiver<End>>,
}

/// The other side of a [`Gate`]: learn that its transaction is at its
/// commit, then decide. Dropped undecided, the transaction rolls back.
pub struct GateHandle {
    reached: oneshot::Receiver<()>,
    decide: oneshot::Sender<End>,
}

impl<S: Session> Gate<S> {
    /// Hold `inner`'s first commit until its handle decides.
    pub fn new(inner: S) -> (Gate<S>, GateHandle) {
        let (reached_tx, reached) = oneshot::channel();
        let (decide, decision) = oneshot::channel();
        let gate = Gate {
            inner,
            reached: Some(reached_tx),
            decision: Some(decision),
        };
        (gate, GateHandle { reached, decide })
    }

    /// A gate already told how to end its first transaction.
    pub fn ending(inner: S, end: End) -> Gate<S> {
        let (gate, handle) = Gate::new(inner);
        handle.decide(end);
        gate
    }

    /// The session back.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl GateHandle {
    /// Wait until the transaction asks to commit: `false` if it did not
    /// within `within` (it failed first, or it is blocked).
    pub async fn reached(&mut self, within: Duration) -> bool {
        matches!(
            tokio::time::timeout(within, &mut self.reached).await,
            Ok(Ok(()))
        )
    }

    /// End the held transaction.
    pub fn decide(self, end: End) {
        // The transaction may have ended already (it failed): nothing to tell.
        let _ = self.decide.send(end);
    }
}

impl<S: Session> Session for Gate<S> {
    type Loader = S::Loader;
    type Whole = txbench_core::NoWholeTransactions;

    fn execution(&self) -> txbench_core::Execution {
        self.inner.execution()
    }

    fn loader(&mut self) -> Option<&mut S::Loader> {
        self.inner.loader()
    }

    async fn prepare(&mut self, stmt: &'static Statement) -> Result<Option<usize>, DbError> {
        self.inner.prepare(stmt).await
    }

    async fn begin(&mut self, mode: TxMode) -> Result<(), DbError> {
        self.inner.begin(mode).await
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        if let (Some(reached), Some(decision)) = (self.reached.take(), self.decision.take()) {
            let _ = reached.send(());
            if decision.await != Ok(End::Commit) {
                return self.inner.rollback().await;
            }
        }
        self.inner.commit().await
    }

    async fn rollback(&mut self) -> Result<(), DbError> {
        self.inner.rollback().await
    }

    async fn query(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<Rows, DbError> {
        self.inner.query(stmt, params).await
    }

    async fn execute(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<u64, DbError> {
        self.inner.execute(stmt, params).await
    }

    async fn pipeline(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        self.inner.pipeline(calls).await
    }

    async fn server_version(&mut self) -> Result<String, DbError> {
        self.inner.server_version().await
    }

    fn interrupter(&self) -> Option<txbench_core::interrupt::Interrupter> {
        self.inner.interrupter()
    }

    async fn query_sql(&mut self, sql: &str) -> Result<Rows, DbError> {
        self.inner.query_sql(sql).await
    }

    async fn isolation_in_effect(&mut self) -> Result<Option<Isolation>, DbError> {
        self.inner.isolation_in_effect().await
    }

    async fn server_clock(&mut self) -> Result<Option<txbench_core::engine::ServerClock>, DbError> {
        self.inner.server_clock().await
    }
}
