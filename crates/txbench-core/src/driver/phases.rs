//! Where a transaction's service time goes: a session wrapper that times BEGIN,
//! the statements, and COMMIT (or ROLLBACK, with the last statements where they
//! travel together) of each transaction, as the Diesel
//! TPC-C report prints them per type. Two clock reads per call: about 50 ns.

use std::time::{Duration, Instant};

use crate::engine::{Call, Execution, Reply, Session, TxMode, TxnInput, WholeTransactions};
use crate::error::DbError;
pub use crate::recorder::Phases;
use crate::schema::Statement;
use crate::txn::{Outcome, TxnTypeInfo};
use crate::value::{Param, Rows};

/// A session that adds the time of each call to its [`Phases`], and keeps the
/// time of each call of the operations it is asked to time.
pub struct Timed<S> {
    /// The session.
    pub inner: S,
    /// The phases of the transaction in progress; the worker takes them.
    pub phases: Phases,
    /// The operations to time, by name (see [`crate::Workload::operations`]).
    timed: &'static [&'static str],
    /// The timed calls of the transaction in progress: (operation index, time);
    /// the worker records and clears them.
    pub operations: Vec<(usize, Duration)>,
}

impl<S> Timed<S> {
    /// Wrap a session, timing the calls of the operations named in `timed`.
    pub fn new(inner: S, timed: &'static [&'static str]) -> Self {
        Timed {
            inner,
            phases: Phases::default(),
            timed,
            operations: Vec::new(),
        }
    }

    /// Keep the time of a call of operation `name`, if it is one to time.
    fn note(&mut self, name: &str, d: Duration) {
        if let Some(i) = self.timed.iter().position(|t| *t == name) {
            self.operations.push((i, d));
        }
    }

    /// The phases so far, leaving zero.
    pub fn take(&mut self) -> Phases {
        std::mem::take(&mut self.phases)
    }
}

impl<S: Session> Timed<S> {
    /// Have the session's whole transactions run one, where it has them
    /// ([`Session::whole_transactions`]; `None` for a session of
    /// statements). The server's execution time counts as the statements'
    /// phase; the rest of the call (network, the server's queue) stays in
    /// "other".
    pub async fn run_whole(
        &mut self,
        txn_type: usize,
        info: &TxnTypeInfo,
        input: TxnInput<'_>,
    ) -> Option<Result<Outcome, DbError>> {
        let whole = self.inner.whole_transactions()?;
        let ended = whole.run_transaction(txn_type, info, input).await;
        Some(ended.map(|(outcome, server)| {
            self.phases.statements += server;
            outcome
        }))
    }
}

/// Run a session call and add its time to a phase. The clock starts before the
/// call itself: an embedded engine does its work when called and returns a ready
/// future.
macro_rules! timed {
    ($self:ident, $phase:ident, $op:expr, $call:expr) => {{
        let start = Instant::now();
        let out = $call.await;
        let took = start.elapsed();
        $self.phases.$phase += took;
        if !$self.timed.is_empty() {
            $self.note($op, took);
        }
        out
    }};
}

impl<S: Session> Session for Timed<S> {
    type Loader = S::Loader;
    type Whole = S::Whole;

    fn execution(&self) -> Execution {
        self.inner.execution()
    }

    fn loader(&mut self) -> Option<&mut S::Loader> {
        self.inner.loader()
    }

    fn whole_transactions(&mut self) -> Option<&mut S::Whole> {
        self.inner.whole_transactions()
    }

    async fn prepare(&mut self, stmt: &'static Statement) -> Result<Option<usize>, DbError> {
        self.inner.prepare(stmt).await
    }

    fn take_wire(&mut self) -> Option<txbench_wire::Wire> {
        self.inner.take_wire()
    }

    fn interrupter(&self) -> Option<crate::interrupt::Interrupter> {
        self.inner.interrupter()
    }

    fn commit_travels_with_statements(&self) -> bool {
        self.inner.commit_travels_with_statements()
    }

    async fn begin(&mut self, mode: TxMode) -> Result<(), DbError> {
        timed!(self, begin, "begin", self.inner.begin(mode))
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        timed!(self, commit, "commit", self.inner.commit())
    }

    async fn rollback(&mut self) -> Result<(), DbError> {
        timed!(self, commit, "rollback", self.inner.rollback())
    }

    async fn query(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<Rows, DbError> {
        timed!(self, statements, stmt.name, self.inner.query(stmt, params))
    }

    async fn execute(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<u64, DbError> {
        timed!(
            self,
            statements,
            stmt.name,
            self.inner.execute(stmt, params)
        )
    }

    async fn pipeline(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        timed!(self, statements, "pipeline", self.inner.pipeline(calls))
    }

    /// The last statements travel with the COMMIT where the engine pipelines:
    /// their time is the commit's. Where they do not (`--round-trips
    /// statement`), each phase is booked where it happened.
    async fn pipeline_and_commit(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        if !self.inner.commit_travels_with_statements() {
            let replies = self.pipeline(calls).await?;
            self.commit().await?;
            return Ok(replies);
        }
        timed!(
            self,
            commit,
            "commit",
            self.inner.pipeline_and_commit(calls)
        )
    }

    async fn server_version(&mut self) -> Result<String, DbError> {
        self.inner.server_version().await
    }

    async fn query_sql(&mut self, sql: &str) -> Result<Rows, DbError> {
        timed!(self, statements, "sql", self.inner.query_sql(sql))
    }

    async fn isolation_in_effect(&mut self) -> Result<Option<crate::Isolation>, DbError> {
        self.inner.isolation_in_effect().await
    }
    async fn server_clock(&mut self) -> Result<Option<crate::engine::ServerClock>, DbError> {
        self.inner.server_clock().await
    }

    async fn reconnect(&mut self) -> Result<(), DbError> {
        self.inner.reconnect().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NoLoader;

    /// Each statement's round trip takes at least this long.
    const STATEMENT: Duration = Duration::from_millis(4);

    /// A session whose statements each take [`STATEMENT`] and whose BEGIN
    /// and COMMIT are instant; `travels` says whether its COMMIT goes with
    /// the last statements (a pipelining engine) or after them.
    struct Paced {
        travels: bool,
    }

    impl Session for Paced {
        type Loader = NoLoader;
        type Whole = crate::NoWholeTransactions;

        fn loader(&mut self) -> Option<&mut NoLoader> {
            None
        }
        async fn begin(&mut self, _: TxMode) -> Result<(), DbError> {
            Ok(())
        }
        async fn commit(&mut self) -> Result<(), DbError> {
            Ok(())
        }
        async fn rollback(&mut self) -> Result<(), DbError> {
            Ok(())
        }
        async fn query(&mut self, _: &'static Statement, _: &[Param<'_>]) -> Result<Rows, DbError> {
            tokio::time::sleep(STATEMENT).await;
            Ok(Rows::empty())
        }
        async fn execute(
            &mut self,
            _: &'static Statement,
            _: &[Param<'_>],
        ) -> Result<u64, DbError> {
            tokio::time::sleep(STATEMENT).await;
            Ok(1)
        }
        async fn query_sql(&mut self, _: &str) -> Result<Rows, DbError> {
            Ok(Rows::empty())
        }
        fn commit_travels_with_statements(&self) -> bool {
            self.travels
        }
    }

    static UPDATE: Statement = Statement::new("update", "UPDATE t SET v = v + 1");

    /// Three statements sent with `pipeline_and_commit`: the phases they
    /// were booked to.
    async fn phases_of(travels: bool) -> Phases {
        let mut timed = Timed::new(Paced { travels }, &[]);
        timed.begin(TxMode::ReadWrite).await.unwrap();
        let calls = [Call::execute(&UPDATE, &[]); 3];
        timed.pipeline_and_commit(&calls).await.unwrap();
        timed.take()
    }

    /// `--round-trips statement`: the statements go one by one and the
    /// COMMIT after them; their time is the statements' (it was booked as
    /// the COMMIT's, "statements 0.000").
    #[tokio::test]
    async fn statements_sent_before_the_commit_are_booked_as_statements() {
        let phases = phases_of(false).await;
        assert!(phases.statements >= 3 * STATEMENT, "{phases:?}");
    }

    /// Pipelined: the statements travel with the COMMIT, in one round trip
    /// that is the COMMIT's.
    #[tokio::test]
    async fn statements_that_travel_with_the_commit_are_booked_as_the_commit() {
        let phases = phases_of(true).await;
        assert!(phases.commit >= 3 * STATEMENT, "{phases:?}");
        assert_eq!(phases.statements, Duration::ZERO, "{phases:?}");
    }
}
