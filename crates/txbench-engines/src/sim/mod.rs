//! The simulated engine (`--db 'sim:?service=fixed:4ms&workers=1'`): a server
//! whose truth is known. It answers every workload's transactions without
//! executing them, after a service time drawn from a known distribution, with
//! `workers` of them served at once and the rest queued first come first
//! served. Poisson arrivals against `service=fixed:D&workers=1` make an M/D/1
//! queue, `service=exp:D` an M/M/c one, so what txbench measures can be
//! compared with queueing theory; stalls, outages, errors and outcomes that
//! deviate from the workload's expectations test the checks that should catch
//! them.
//!
//! Like the null engine it holds no data: a load discards its rows, and the
//! workloads take their scale from the command line.

mod config;
mod server;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use txbench_core::schema::{Index, Statement, Table};
use txbench_core::workload::Outcome;
use txbench_core::{
    DbError, Engine, ErrorKind, Param, RowBatch, Rows, Session, TxMode, TxnTypeInfo,
};

pub use config::{Outage, Service, SimConfig, Stall};
use server::{Request, Server};

/// The simulated engine: one server, shared by every session.
pub struct SimEngine {
    config: Arc<SimConfig>,
    server: Arc<Server>,
}

impl SimEngine {
    /// Start the simulated server (its worker threads); the times of its
    /// stalls and outages count from now.
    pub fn new(config: SimConfig) -> Result<SimEngine, DbError> {
        let server = Server::start(&config, 0x5155_4D00).map_err(|e| {
            DbError::new(ErrorKind::Other, format!("sim: starting the server: {e}"))
        })?;
        Ok(SimEngine {
            config: Arc::new(config),
            server: Arc::new(server),
        })
    }
}

/// A session of the simulated engine: a line to the shared server.
pub struct SimSession {
    server: Arc<Server>,
    config: Arc<SimConfig>,
}

impl Engine for SimEngine {
    type Session = SimSession;
    const BLOCKING: bool = false;

    fn name(&self) -> &'static str {
        "sim"
    }

    fn describe(&self) -> String {
        format!(
            "{} (simulated: answers, executes nothing)",
            self.config.display
        )
    }

    async fn connect(&self) -> Result<SimSession, DbError> {
        Ok(SimSession {
            server: Arc::clone(&self.server),
            config: Arc::clone(&self.config),
        })
    }
}

fn statements_refused() -> DbError {
    DbError::new(
        ErrorKind::Other,
        "the simulated engine answers whole transactions only",
    )
}

impl Session for SimSession {
    const EXECUTES: bool = false;
    const RUNS_TRANSACTIONS: bool = true;

    async fn run_transaction<I: serde::Serialize + Sync>(
        &mut self,
        _txn_type: usize,
        info: &TxnTypeInfo,
        _input: &I,
    ) -> Result<(Outcome, Duration), DbError> {
        let (reply, answer) = oneshot::channel();
        self.server.submit(Request {
            submitted: std::time::Instant::now(),
            success: self.config.success_of(info.key, info.expected_success),
            reply,
        })?;
        answer
            .await
            .map_err(|_| DbError::new(ErrorKind::Connection, "sim: the server has stopped"))?
    }

    async fn server_version(&mut self) -> Result<String, DbError> {
        Ok(format!("simulated ({})", self.config.display))
    }

    async fn begin(&mut self, _mode: TxMode) -> Result<(), DbError> {
        Err(statements_refused())
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        Err(statements_refused())
    }

    async fn rollback(&mut self) -> Result<(), DbError> {
        Ok(())
    }

    async fn query(
        &mut self,
        _stmt: &'static Statement,
        _p: &[Param<'_>],
    ) -> Result<Rows, DbError> {
        Err(statements_refused())
    }

    async fn execute(
        &mut self,
        _stmt: &'static Statement,
        _p: &[Param<'_>],
    ) -> Result<u64, DbError> {
        Err(statements_refused())
    }

    async fn query_sql(&mut self, _sql: &str) -> Result<Rows, DbError> {
        Ok(Rows::empty())
    }

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

    async fn reconnect(&mut self) -> Result<(), DbError> {
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
