//! The null engine (`--db null:`): sessions that execute nothing and answer at
//! once. It measures txbench's own ceiling: input generation, dispatch, queueing
//! and recording, with no database in the way.
//!
//! Its sessions say so through [`Session::EXECUTION`] and
//! [`Session::whole_transactions`] (the workloads then take their scale from
//! the command line), and answer each whole transaction at
//! once, ending it as its workload expects, instead of running the workload's
//! procedures (they would find no rows). A load into it generates every row and discards it, which
//! measures the data generator alone.
//!
//! [`Dataless`] is that session, shared with the simulated engine
//! ([`crate::sim`]), which holds no data either but answers whole transactions.

use std::future::{Future, ready};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use txbench_core::rng::Rand;
use txbench_core::schema::{Index, Statement, Table};
use txbench_core::workload::Outcome;
use txbench_core::{
    DbError, Engine, Execution, Loader, Param, RowBatch, Rows, Session, TxMode, TxnInput,
    TxnTypeInfo, WholeTransactions,
};

/// The null engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullEngine;

/// A session of the null engine.
pub type NullSession = Dataless<AtOnce>;

impl Engine for NullEngine {
    type Session = NullSession;
    const BLOCKING: bool = false;

    fn name(&self) -> &'static str {
        "null"
    }

    fn describe(&self) -> String {
        "null: (executes nothing)".to_string()
    }

    async fn connect(&self) -> Result<NullSession, DbError> {
        Ok(Dataless(AtOnce::new()))
    }
}

/// How a session that holds no data answers whole transactions (the driver
/// hands it each one, [`Execution::Dataless`]).
pub trait Answer: Send + 'static {
    /// What the session reports as its server's version.
    fn version(&self) -> String;
    /// Answer one transaction of the type `info` describes: how it ended and
    /// the time the server held it.
    fn answer(
        &mut self,
        info: &TxnTypeInfo,
    ) -> impl Future<Output = Result<(Outcome, Duration), DbError>> + Send;
    /// Whether a reconnecting session gets through now: a server that is down
    /// refuses it, as a real one refuses the connection.
    fn reachable(&self) -> Result<(), DbError> {
        Ok(())
    }
}

/// The null engine's sessions answer each transaction at once, ending it as
/// its workload expects (TPC-C's 1% of New-Orders roll back, a TATP type
/// commits its population's share), so the run's outcome check holds.
#[derive(Debug, Clone)]
pub struct AtOnce {
    rng: Rand,
}

/// Sessions connected so far: each draws its outcomes from its own stream.
static SESSIONS: AtomicU64 = AtomicU64::new(0);

impl AtOnce {
    /// A session's answerer, with a stream of its own.
    pub fn new() -> Self {
        let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
        AtOnce {
            rng: Rand::derive(0x6e75_6c6c, n),
        }
    }
}

impl Default for AtOnce {
    fn default() -> Self {
        Self::new()
    }
}

impl Answer for AtOnce {
    fn version(&self) -> String {
        "none (the null engine)".to_string()
    }

    fn answer(
        &mut self,
        info: &TxnTypeInfo,
    ) -> impl Future<Output = Result<(Outcome, Duration), DbError>> + Send {
        let commits = info
            .expected_success
            .is_none_or(|share| self.rng.unit() < share);
        let outcome = if commits {
            Outcome::Committed
        } else {
            Outcome::ExpectedRollback
        };
        ready(Ok((outcome, Duration::ZERO)))
    }
}

/// A session that holds no data: every statement succeeds and returns
/// nothing, a load discards its rows, and whole transactions go to `A`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Dataless<A>(pub A);

/// It answers whole transactions itself, from the transaction type alone.
impl<A: Answer> WholeTransactions for Dataless<A> {
    async fn run_transaction(
        &mut self,
        _txn_type: usize,
        info: &TxnTypeInfo,
        _input: TxnInput<'_>,
    ) -> Result<(Outcome, Duration), DbError> {
        self.0.answer(info).await
    }
}

impl<A: Answer> Session for Dataless<A> {
    type Loader = Self;
    type Whole = Self;

    fn loader(&mut self) -> Option<&mut Self> {
        Some(self)
    }

    const EXECUTION: Execution = Execution::Dataless;

    fn whole_transactions(&mut self) -> Option<&mut Self> {
        Some(self)
    }

    async fn server_version(&mut self) -> Result<String, DbError> {
        Ok(self.0.version())
    }

    async fn begin(&mut self, _mode: TxMode) -> Result<(), DbError> {
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        Ok(())
    }

    async fn rollback(&mut self) -> Result<(), DbError> {
        Ok(())
    }

    async fn query(
        &mut self,
        _stmt: &'static Statement,
        _p: &[Param<'_>],
    ) -> Result<Rows, DbError> {
        Ok(Rows::empty())
    }

    async fn execute(
        &mut self,
        _stmt: &'static Statement,
        _p: &[Param<'_>],
    ) -> Result<u64, DbError> {
        Ok(0)
    }

    async fn query_sql(&mut self, _sql: &str) -> Result<Rows, DbError> {
        Ok(Rows::empty())
    }

    async fn reconnect(&mut self) -> Result<(), DbError> {
        self.0.reachable()
    }
}

impl<A: Answer> Loader for Dataless<A> {
    async fn create_table(&mut self, _table: &Table) -> Result<(), DbError> {
        Ok(())
    }

    async fn add_primary_key(&mut self, _table: &Table) -> Result<(), DbError> {
        Ok(())
    }

    async fn add_foreign_key(
        &mut self,
        _key: &txbench_core::schema::ForeignKey,
    ) -> Result<(), DbError> {
        Ok(())
    }

    async fn create_index(&mut self, _index: &Index) -> Result<(), DbError> {
        Ok(())
    }

    async fn drop_table(&mut self, _name: &str) -> Result<(), DbError> {
        Ok(())
    }

    async fn table_exists(&mut self, _name: &str) -> Result<bool, DbError> {
        Ok(false)
    }

    async fn insert_batch(&mut self, _table: &Table, _batch: &RowBatch) -> Result<(), DbError> {
        Ok(())
    }

    async fn begin_bulk_load(&mut self) -> Result<(), DbError> {
        Ok(())
    }

    async fn end_bulk_load(&mut self) -> Result<(), DbError> {
        Ok(())
    }
}
