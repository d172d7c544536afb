//! The null engine (`--db null:`): sessions that execute nothing and answer at
//! once. It measures txbench's own ceiling: input generation, dispatch, queueing
//! and recording, with no database in the way.
//!
//! Its sessions say so through [`Session::EXECUTES`], and the driver then counts
//! each transaction committed without running the workload's procedures (they would
//! find no rows). A load into it generates every row and discards it, which
//! measures the data generator alone.

use txbench_core::schema::{Index, Statement, Table};
use txbench_core::{DbError, Engine, Param, RowBatch, Rows, Session, TxMode};

/// The null engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullEngine;

/// A session of the null engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullSession;

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
        Ok(NullSession)
    }
}

impl Session for NullSession {
    const EXECUTES: bool = false;

    async fn server_version(&mut self) -> Result<String, DbError> {
        Ok("none (the null engine)".to_string())
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
