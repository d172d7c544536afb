//! One engine type for whichever engine a URL names: [`AnyEngine`] and its
//! [`AnySession`] forward every call to the engine inside through a virtual
//! call and a boxed future.
//!
//! Why: the binary's commands are generic over the engine and the workload.
//! Given each engine's own type, every command was compiled once per pair of
//! engine and workload (9 engines by 5 workloads), which made most of a
//! release build's time and of the binary's size. Given [`AnyEngine`], they
//! are compiled once per workload, and each engine's own code once. The cost
//! is one allocation and one indirect call per session call, next to a
//! round trip or a statement's execution (bench/RESULTS.md has the client
//! CPU per transaction before and after).
//!
//! The traits here are [`Engine`], [`Session`] and [`Loader`] with their
//! futures boxed, which a trait object needs; no crate of the field erases a
//! trait with associated types and constants, so they are written out.

use std::future::Future;
use std::pin::Pin;

use crate::engine::{
    Call, Engine, Execution, Isolation, Loader, Reply, Session, TxMode, TxnInput, WholeTransactions,
};
use crate::error::DbError;
use crate::interrupt::Interrupter;
use crate::schema::{DeclaredColumn, ForeignKey, Index, Schema, Statement, Table};
use crate::txn::{Outcome, TxnTypeInfo};
use crate::value::{Param, RowBatch, Rows};

/// A boxed future that may move between threads.
type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`Loader`] as a trait object: the loader of an [`AnySession`].
pub trait DynLoader: Send {
    /// [`Loader::create_table`].
    fn create_table<'a>(&'a mut self, table: &'a Table) -> BoxFuture<'a, Result<(), DbError>>;
    /// [`Loader::create_partitioned_table`].
    fn create_partitioned_table<'a>(
        &'a mut self,
        table: &'a Table,
        column: &'a str,
        count: u32,
    ) -> BoxFuture<'a, Result<(), DbError>>;
    /// [`Loader::add_primary_key`].
    fn add_primary_key<'a>(&'a mut self, table: &'a Table) -> BoxFuture<'a, Result<(), DbError>>;
    /// [`Loader::add_foreign_key`].
    fn add_foreign_key<'a>(&'a mut self, key: &'a ForeignKey)
    -> BoxFuture<'a, Result<(), DbError>>;
    /// [`Loader::create_index`].
    fn create_index<'a>(&'a mut self, index: &'a Index) -> BoxFuture<'a, Result<(), DbError>>;
    /// [`Loader::analyze`].
    fn analyze<'a>(&'a mut self, table: &'a Table) -> BoxFuture<'a, Result<(), DbError>>;
    /// [`Loader::drop_table`].
    fn drop_table<'a>(&'a mut self, name: &'a str) -> BoxFuture<'a, Result<(), DbError>>;
    /// [`Loader::table_exists`].
    fn table_exists<'a>(&'a mut self, name: &'a str) -> BoxFuture<'a, Result<bool, DbError>>;
    /// [`Loader::columns`].
    fn columns<'a>(
        &'a mut self,
        table: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<DeclaredColumn>>, DbError>>;
    /// [`Loader::marked`].
    fn marked<'a>(&'a mut self, table: &'a str) -> BoxFuture<'a, Result<Option<bool>, DbError>>;
    /// [`Loader::insert_batch`].
    fn insert_batch<'a>(
        &'a mut self,
        table: &'a Table,
        batch: &'a RowBatch,
    ) -> BoxFuture<'a, Result<(), DbError>>;
    /// [`Loader::begin_bulk_load`].
    fn begin_bulk_load(&mut self) -> BoxFuture<'_, Result<(), DbError>>;
    /// [`Loader::end_bulk_load`].
    fn end_bulk_load(&mut self) -> BoxFuture<'_, Result<(), DbError>>;
    /// [`Loader::most_rows_per_commit`].
    fn most_rows_per_commit(&self) -> Option<u64>;
}

impl<L: Loader> DynLoader for L {
    fn create_table<'a>(&'a mut self, table: &'a Table) -> BoxFuture<'a, Result<(), DbError>> {
        Box::pin(Loader::create_table(self, table))
    }
    fn create_partitioned_table<'a>(
        &'a mut self,
        table: &'a Table,
        column: &'a str,
        count: u32,
    ) -> BoxFuture<'a, Result<(), DbError>> {
        Box::pin(Loader::create_partitioned_table(self, table, column, count))
    }
    fn add_primary_key<'a>(&'a mut self, table: &'a Table) -> BoxFuture<'a, Result<(), DbError>> {
        Box::pin(Loader::add_primary_key(self, table))
    }
    fn add_foreign_key<'a>(
        &'a mut self,
        key: &'a ForeignKey,
    ) -> BoxFuture<'a, Result<(), DbError>> {
        Box::pin(Loader::add_foreign_key(self, key))
    }
    fn create_index<'a>(&'a mut self, index: &'a Index) -> BoxFuture<'a, Result<(), DbError>> {
        Box::pin(Loader::create_index(self, index))
    }
    fn analyze<'a>(&'a mut self, table: &'a Table) -> BoxFuture<'a, Result<(), DbError>> {
        Box::pin(Loader::analyze(self, table))
    }
    fn drop_table<'a>(&'a mut self, name: &'a str) -> BoxFuture<'a, Result<(), DbError>> {
        Box::pin(Loader::drop_table(self, name))
    }
    fn table_exists<'a>(&'a mut self, name: &'a str) -> BoxFuture<'a, Result<bool, DbError>> {
        Box::pin(Loader::table_exists(self, name))
    }
    fn columns<'a>(
        &'a mut self,
        table: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<DeclaredColumn>>, DbError>> {
        Box::pin(Loader::columns(self, table))
    }
    fn marked<'a>(&'a mut self, table: &'a str) -> BoxFuture<'a, Result<Option<bool>, DbError>> {
        Box::pin(Loader::marked(self, table))
    }
    fn insert_batch<'a>(
        &'a mut self,
        table: &'a Table,
        batch: &'a RowBatch,
    ) -> BoxFuture<'a, Result<(), DbError>> {
        Box::pin(Loader::insert_batch(self, table, batch))
    }
    fn begin_bulk_load(&mut self) -> BoxFuture<'_, Result<(), DbError>> {
        Box::pin(Loader::begin_bulk_load(self))
    }
    fn end_bulk_load(&mut self) -> BoxFuture<'_, Result<(), DbError>> {
        Box::pin(Loader::end_bulk_load(self))
    }
    fn most_rows_per_commit(&self) -> Option<u64> {
        Loader::most_rows_per_commit(self)
    }
}

impl Loader for dyn DynLoader {
    async fn create_table(&mut self, table: &Table) -> Result<(), DbError> {
        DynLoader::create_table(self, table).await
    }
    async fn create_partitioned_table(
        &mut self,
        table: &Table,
        column: &str,
        count: u32,
    ) -> Result<(), DbError> {
        DynLoader::create_partitioned_table(self, table, column, count).await
    }
    async fn add_primary_key(&mut self, table: &Table) -> Result<(), DbError> {
        DynLoader::add_primary_key(self, table).await
    }
    async fn add_foreign_key(&mut self, key: &ForeignKey) -> Result<(), DbError> {
        DynLoader::add_foreign_key(self, key).await
    }
    async fn create_index(&mut self, index: &Index) -> Result<(), DbError> {
        DynLoader::create_index(self, index).await
    }
    async fn analyze(&mut self, table: &Table) -> Result<(), DbError> {
        DynLoader::analyze(self, table).await
    }
    async fn drop_table(&mut self, name: &str) -> Result<(), DbError> {
        DynLoader::drop_table(self, name).await
    }
    async fn table_exists(&mut self, name: &str) -> Result<bool, DbError> {
        DynLoader::table_exists(self, name).await
    }
    async fn columns(&mut self, table: &str) -> Result<Option<Vec<DeclaredColumn>>, DbError> {
        DynLoader::columns(self, table).await
    }
    async fn marked(&mut self, table: &str) -> Result<Option<bool>, DbError> {
        DynLoader::marked(self, table).await
    }
    async fn insert_batch(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        DynLoader::insert_batch(self, table, batch).await
    }
    async fn begin_bulk_load(&mut self) -> Result<(), DbError> {
        DynLoader::begin_bulk_load(self).await
    }
    async fn end_bulk_load(&mut self) -> Result<(), DbError> {
        DynLoader::end_bulk_load(self).await
    }
    fn most_rows_per_commit(&self) -> Option<u64> {
        DynLoader::most_rows_per_commit(self)
    }
}

/// [`WholeTransactions`] as a trait object: those of an [`AnySession`].
pub trait DynWholeTransactions: Send {
    /// [`WholeTransactions::run_transaction`].
    fn run_transaction<'a>(
        &'a mut self,
        txn_type: usize,
        info: &'a TxnTypeInfo,
        input: TxnInput<'a>,
    ) -> BoxFuture<'a, Result<(Outcome, std::time::Duration), DbError>>;
    /// [`WholeTransactions::served_parameters`].
    fn served_parameters(&self) -> Option<&[(String, String)]>;
}

impl<W: WholeTransactions> DynWholeTransactions for W {
    fn run_transaction<'a>(
        &'a mut self,
        txn_type: usize,
        info: &'a TxnTypeInfo,
        input: TxnInput<'a>,
    ) -> BoxFuture<'a, Result<(Outcome, std::time::Duration), DbError>> {
        Box::pin(WholeTransactions::run_transaction(
            self, txn_type, info, input,
        ))
    }
    fn served_parameters(&self) -> Option<&[(String, String)]> {
        WholeTransactions::served_parameters(self)
    }
}

impl WholeTransactions for dyn DynWholeTransactions {
    async fn run_transaction(
        &mut self,
        txn_type: usize,
        info: &TxnTypeInfo,
        input: TxnInput<'_>,
    ) -> Result<(Outcome, std::time::Duration), DbError> {
        DynWholeTransactions::run_transaction(self, txn_type, info, input).await
    }
    fn served_parameters(&self) -> Option<&[(String, String)]> {
        DynWholeTransactions::served_parameters(self)
    }
}

/// [`Session`] as a trait object, for [`AnySession`].
trait DynSession: Send {
    fn execution(&self) -> Execution;
    fn loader(&mut self) -> Option<&mut (dyn DynLoader + 'static)>;
    fn whole_transactions(&mut self) -> Option<&mut (dyn DynWholeTransactions + 'static)>;
    fn begin(&mut self, mode: TxMode) -> BoxFuture<'_, Result<(), DbError>>;
    fn commit(&mut self) -> BoxFuture<'_, Result<(), DbError>>;
    fn rollback(&mut self) -> BoxFuture<'_, Result<(), DbError>>;
    fn query<'a>(
        &'a mut self,
        stmt: &'static Statement,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<Rows, DbError>>;
    fn execute<'a>(
        &'a mut self,
        stmt: &'static Statement,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<u64, DbError>>;
    fn pipeline<'a>(
        &'a mut self,
        calls: &'a [Call<'a>],
    ) -> BoxFuture<'a, Result<Vec<Reply>, DbError>>;
    fn pipeline_and_commit<'a>(
        &'a mut self,
        calls: &'a [Call<'a>],
    ) -> BoxFuture<'a, Result<Vec<Reply>, DbError>>;
    fn server_version(&mut self) -> BoxFuture<'_, Result<String, DbError>>;
    fn isolation_in_effect(&mut self) -> BoxFuture<'_, Result<Option<Isolation>, DbError>>;
    fn server_clock(
        &mut self,
    ) -> BoxFuture<'_, Result<Option<crate::engine::ServerClock>, DbError>>;
    fn prepare(
        &mut self,
        stmt: &'static Statement,
    ) -> BoxFuture<'_, Result<Option<usize>, DbError>>;
    fn interrupter(&self) -> Option<Interrupter>;
    fn commit_travels_with_statements(&self) -> bool;
    fn query_sql<'a>(&'a mut self, sql: &'a str) -> BoxFuture<'a, Result<Rows, DbError>>;
    fn take_wire(&mut self) -> Option<txbench_wire::Wire>;
    fn reconnect(&mut self) -> BoxFuture<'_, Result<(), DbError>>;
}

/// Every session whose loader and whole transactions have a size (every
/// engine's own, not an [`AnySession`], which is never erased again).
impl<S: Session<Loader: Sized, Whole: Sized>> DynSession for S {
    fn execution(&self) -> Execution {
        Session::execution(self)
    }
    fn loader(&mut self) -> Option<&mut (dyn DynLoader + 'static)> {
        Session::loader(self).map(|l| l as &mut (dyn DynLoader + 'static))
    }
    fn whole_transactions(&mut self) -> Option<&mut (dyn DynWholeTransactions + 'static)> {
        Session::whole_transactions(self).map(|w| w as &mut (dyn DynWholeTransactions + 'static))
    }
    fn begin(&mut self, mode: TxMode) -> BoxFuture<'_, Result<(), DbError>> {
        Box::pin(Session::begin(self, mode))
    }
    fn commit(&mut self) -> BoxFuture<'_, Result<(), DbError>> {
        Box::pin(Session::commit(self))
    }
    fn rollback(&mut self) -> BoxFuture<'_, Result<(), DbError>> {
        Box::pin(Session::rollback(self))
    }
    fn query<'a>(
        &'a mut self,
        stmt: &'static Statement,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<Rows, DbError>> {
        Box::pin(Session::query(self, stmt, params))
    }
    fn execute<'a>(
        &'a mut self,
        stmt: &'static Statement,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<u64, DbError>> {
        Box::pin(Session::execute(self, stmt, params))
    }
    fn pipeline<'a>(
        &'a mut self,
        calls: &'a [Call<'a>],
    ) -> BoxFuture<'a, Result<Vec<Reply>, DbError>> {
        Box::pin(Session::pipeline(self, calls))
    }
    fn pipeline_and_commit<'a>(
        &'a mut self,
        calls: &'a [Call<'a>],
    ) -> BoxFuture<'a, Result<Vec<Reply>, DbError>> {
        Box::pin(Session::pipeline_and_commit(self, calls))
    }
    fn server_version(&mut self) -> BoxFuture<'_, Result<String, DbError>> {
        Box::pin(Session::server_version(self))
    }
    fn isolation_in_effect(&mut self) -> BoxFuture<'_, Result<Option<Isolation>, DbError>> {
        Box::pin(Session::isolation_in_effect(self))
    }
    fn server_clock(
        &mut self,
    ) -> BoxFuture<'_, Result<Option<crate::engine::ServerClock>, DbError>> {
        Box::pin(Session::server_clock(self))
    }
    fn prepare(
        &mut self,
        stmt: &'static Statement,
    ) -> BoxFuture<'_, Result<Option<usize>, DbError>> {
        Box::pin(Session::prepare(self, stmt))
    }
    fn interrupter(&self) -> Option<Interrupter> {
        Session::interrupter(self)
    }
    fn commit_travels_with_statements(&self) -> bool {
        Session::commit_travels_with_statements(self)
    }
    fn query_sql<'a>(&'a mut self, sql: &'a str) -> BoxFuture<'a, Result<Rows, DbError>> {
        Box::pin(Session::query_sql(self, sql))
    }
    fn take_wire(&mut self) -> Option<txbench_wire::Wire> {
        Session::take_wire(self)
    }
    fn reconnect(&mut self) -> BoxFuture<'_, Result<(), DbError>> {
        Box::pin(Session::reconnect(self))
    }
}

/// A session of an [`AnyEngine`]: the engine's own session behind a pointer.
pub struct AnySession(Box<dyn DynSession>);

impl Session for AnySession {
    type Loader = dyn DynLoader;
    type Whole = dyn DynWholeTransactions;

    fn execution(&self) -> Execution {
        self.0.execution()
    }
    fn loader(&mut self) -> Option<&mut Self::Loader> {
        self.0.loader()
    }
    fn whole_transactions(&mut self) -> Option<&mut Self::Whole> {
        self.0.whole_transactions()
    }
    async fn begin(&mut self, mode: TxMode) -> Result<(), DbError> {
        self.0.begin(mode).await
    }
    async fn commit(&mut self) -> Result<(), DbError> {
        self.0.commit().await
    }
    async fn rollback(&mut self) -> Result<(), DbError> {
        self.0.rollback().await
    }
    async fn query(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<Rows, DbError> {
        self.0.query(stmt, params).await
    }
    async fn execute(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<u64, DbError> {
        self.0.execute(stmt, params).await
    }
    async fn pipeline(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        self.0.pipeline(calls).await
    }
    async fn pipeline_and_commit(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        self.0.pipeline_and_commit(calls).await
    }
    fn commit_travels_with_statements(&self) -> bool {
        self.0.commit_travels_with_statements()
    }
    async fn server_version(&mut self) -> Result<String, DbError> {
        self.0.server_version().await
    }
    async fn isolation_in_effect(&mut self) -> Result<Option<Isolation>, DbError> {
        self.0.isolation_in_effect().await
    }
    async fn server_clock(&mut self) -> Result<Option<crate::engine::ServerClock>, DbError> {
        self.0.server_clock().await
    }
    async fn prepare(&mut self, stmt: &'static Statement) -> Result<Option<usize>, DbError> {
        self.0.prepare(stmt).await
    }
    fn interrupter(&self) -> Option<Interrupter> {
        self.0.interrupter()
    }
    async fn query_sql(&mut self, sql: &str) -> Result<Rows, DbError> {
        self.0.query_sql(sql).await
    }
    fn take_wire(&mut self) -> Option<txbench_wire::Wire> {
        self.0.take_wire()
    }
    async fn reconnect(&mut self) -> Result<(), DbError> {
        self.0.reconnect().await
    }
}

/// [`Engine`] as a trait object, for [`AnyEngine`].
trait DynEngine: Send + Sync {
    fn blocking(&self) -> bool;
    fn execution(&self) -> Execution;
    fn name(&self) -> &'static str;
    fn describe(&self) -> String;
    fn connect(&self) -> BoxFuture<'_, Result<AnySession, DbError>>;
    fn connect_node(&self, node: usize) -> BoxFuture<'_, Result<AnySession, DbError>>;
    fn can_hold(&self, schema: &Schema) -> Result<(), DbError>;
    fn hash_partitions(&self) -> bool;
    fn partitioned_only(&self) -> bool;
    fn max_writers(&self) -> usize;
    fn nodes(&self) -> usize;
    fn create_database(&self) -> BoxFuture<'_, Result<Option<String>, DbError>>;
    fn ephemeral(&self) -> bool;
    fn key_value_only(&self) -> bool;
}

/// A session of engine `E`, erased.
fn erase<S: Session<Loader: Sized, Whole: Sized>>(
    session: Result<S, DbError>,
) -> Result<AnySession, DbError> {
    session.map(|s| AnySession(Box::new(s)))
}

impl<E: Engine<Session: Session<Loader: Sized, Whole: Sized>>> DynEngine for E {
    fn blocking(&self) -> bool {
        Engine::blocking(self)
    }
    fn execution(&self) -> Execution {
        Engine::execution(self)
    }
    fn name(&self) -> &'static str {
        Engine::name(self)
    }
    fn describe(&self) -> String {
        Engine::describe(self)
    }
    fn connect(&self) -> BoxFuture<'_, Result<AnySession, DbError>> {
        Box::pin(async move { erase(Engine::connect(self).await) })
    }
    fn connect_node(&self, node: usize) -> BoxFuture<'_, Result<AnySession, DbError>> {
        Box::pin(async move { erase(Engine::connect_node(self, node).await) })
    }
    fn can_hold(&self, schema: &Schema) -> Result<(), DbError> {
        Engine::can_hold(self, schema)
    }
    fn hash_partitions(&self) -> bool {
        Engine::hash_partitions(self)
    }
    fn partitioned_only(&self) -> bool {
        Engine::partitioned_only(self)
    }
    fn max_writers(&self) -> usize {
        Engine::max_writers(self)
    }
    fn nodes(&self) -> usize {
        Engine::nodes(self)
    }
    fn create_database(&self) -> BoxFuture<'_, Result<Option<String>, DbError>> {
        Box::pin(Engine::create_database(self))
    }
    fn ephemeral(&self) -> bool {
        Engine::ephemeral(self)
    }
    fn key_value_only(&self) -> bool {
        Engine::key_value_only(self)
    }
}

/// Whichever engine a URL names, as one type: what the binary's commands are
/// compiled for (see the module's documentation for why).
pub struct AnyEngine {
    inner: Box<dyn DynEngine>,
    /// The database the analytical terminals run on ([`Engine::side`]).
    side: Option<Box<AnyEngine>>,
}

impl AnyEngine {
    /// `engine`, erased.
    pub fn new<E: Engine<Session: Session<Loader: Sized, Whole: Sized>>>(engine: E) -> Self {
        AnyEngine {
            inner: Box::new(engine),
            side: None,
        }
    }

    /// The same, with `side` beside it for the analytical terminals.
    pub fn beside(self, side: AnyEngine) -> Self {
        AnyEngine {
            side: Some(Box::new(side)),
            ..self
        }
    }
}

impl Engine for AnyEngine {
    type Session = AnySession;
    // Never read: the engine inside says, through `blocking`.
    const BLOCKING: bool = false;

    fn blocking(&self) -> bool {
        self.inner.blocking()
    }
    fn execution(&self) -> Execution {
        self.inner.execution()
    }
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn describe(&self) -> String {
        match &self.side {
            None => self.inner.describe(),
            Some(side) => format!(
                "{}, analytics on {}",
                self.inner.describe(),
                side.describe()
            ),
        }
    }
    async fn connect(&self) -> Result<AnySession, DbError> {
        self.inner.connect().await
    }
    async fn connect_node(&self, node: usize) -> Result<AnySession, DbError> {
        self.inner.connect_node(node).await
    }
    fn can_hold(&self, schema: &Schema) -> Result<(), DbError> {
        self.inner.can_hold(schema)
    }
    fn hash_partitions(&self) -> bool {
        self.inner.hash_partitions()
    }
    fn partitioned_only(&self) -> bool {
        self.inner.partitioned_only()
    }
    fn max_writers(&self) -> usize {
        self.inner.max_writers()
    }
    fn nodes(&self) -> usize {
        self.inner.nodes()
    }
    async fn create_database(&self) -> Result<Option<String>, DbError> {
        self.inner.create_database().await
    }
    fn ephemeral(&self) -> bool {
        self.inner.ephemeral()
    }
    fn key_value_only(&self) -> bool {
        self.inner.key_value_only()
    }
    fn side(&self) -> Option<&Self> {
        self.side.as_deref()
    }
}
