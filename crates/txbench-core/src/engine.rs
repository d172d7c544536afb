//! The traits every database engine implements. An engine knows no workload.

use std::future::Future;

use crate::error::DbError;
use crate::schema::{ForeignKey, Index, Schema, Statement, Table};
use crate::value::{Param, RowBatch, Rows};

/// How a transaction intends to use the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxMode {
    /// The transaction writes: engines take write locks early where that avoids deadlocks.
    ReadWrite,
    /// The transaction only reads.
    ReadOnly,
    /// The transaction only reads, all from one consistent snapshot (repeatable
    /// read or stronger whatever the session's isolation): consistency checks.
    Snapshot,
}

/// Transaction isolation levels a run can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// READ COMMITTED.
    ReadCommitted,
    /// REPEATABLE READ (snapshot isolation on PostgreSQL).
    RepeatableRead,
    /// SERIALIZABLE.
    Serializable,
}

impl Isolation {
    /// The level's name in flags and messages ("read-committed").
    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read-committed",
            Isolation::RepeatableRead => "repeatable-read",
            Isolation::Serializable => "serializable",
        }
    }

    /// The SQL name of the level.
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "READ COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }
}

impl Isolation {
    /// The level a database names ("read committed", "REPEATABLE-READ",
    /// "serializable"); `None` for another (read uncommitted).
    pub fn from_database(name: &str) -> Option<Isolation> {
        let name = name.trim().to_ascii_lowercase().replace(['-', '_'], " ");
        match name.as_str() {
            "read committed" => Some(Isolation::ReadCommitted),
            "repeatable read" => Some(Isolation::RepeatableRead),
            "serializable" => Some(Isolation::Serializable),
            _ => None,
        }
    }
}

/// How a session talks to a database over the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoundTrips {
    /// Statements that do not depend on each other go out together, and
    /// BEGIN with the first of them: one round trip per group.
    #[default]
    Pipelined,
    /// One statement per round trip, each prepared, BEGIN a round trip of
    /// its own: how JDBC, lib/pq and go-tpc talk to a database.
    Statement,
}

impl RoundTrips {
    /// Its name in flags and results ("pipelined").
    pub fn name(self) -> &'static str {
        match self {
            RoundTrips::Pipelined => "pipelined",
            RoundTrips::Statement => "statement",
        }
    }
}

/// Which clocks a run reads latency from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Timestamps {
    /// The client's own clock: latency from the intended start to the
    /// answer, as the application sees it.
    #[default]
    Client,
    /// Also the kernel's timestamps of the bytes on the wire (Linux
    /// SO_TIMESTAMPING), for each transaction's time on the wire next to
    /// it; engines whose sockets txbench cannot reach refuse it.
    Kernel,
}

impl Timestamps {
    /// Its name in flags and results ("kernel").
    pub fn name(self) -> &'static str {
        match self {
            Timestamps::Client => "client",
            Timestamps::Kernel => "kernel",
        }
    }
}

/// Whether a pipelined statement returns rows or changes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// A query: its rows come back.
    Query,
    /// A change: the number of rows changed comes back.
    Execute,
}

/// One statement of a [`Session::pipeline`].
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The statement.
    pub stmt: &'static Statement,
    /// Its parameters.
    pub params: &'a [Param<'a>],
    /// Query or change.
    pub kind: CallKind,
}

impl<'a> Call<'a> {
    /// A query in a pipeline.
    pub fn query(stmt: &'static Statement, params: &'a [Param<'a>]) -> Self {
        Call {
            stmt,
            params,
            kind: CallKind::Query,
        }
    }

    /// A change in a pipeline.
    pub fn execute(stmt: &'static Statement, params: &'a [Param<'a>]) -> Self {
        Call {
            stmt,
            params,
            kind: CallKind::Execute,
        }
    }
}

/// The answer to one [`Call`].
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The rows of a query.
    Rows(Rows),
    /// The rows a change affected.
    Affected(u64),
}

impl Reply {
    /// The rows (none for a change).
    pub fn rows(&self) -> Option<&Rows> {
        match self {
            Reply::Rows(r) => Some(r),
            Reply::Affected(_) => None,
        }
    }

    /// Rows affected (0 for a query).
    pub fn affected(&self) -> u64 {
        match self {
            Reply::Rows(_) => 0,
            Reply::Affected(n) => *n,
        }
    }
}

/// What a session does with a transaction: the capability the driver and the
/// workloads ask a session type for, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Execution {
    /// It executes the workload's statements on the data it holds (a database).
    Statements,
    /// It has a server execute whole transactions on data held there (a
    /// txbench server): the client sends inputs, not statements.
    ServedTransactions,
    /// It answers whole transactions and holds no data (`null:`, `sim:`): a
    /// workload takes its scale from the command line.
    Dataless,
    /// It runs a workload's scripts on the data it holds, each atomically on
    /// the partition that holds its keys ([`crate::schema::KvOp::Script`]),
    /// and no transaction of several statements (a sharded key-value store:
    /// Redis Cluster): a workload runs each transaction as one script per
    /// partition it needs.
    Scripts,
}

impl Execution {
    /// Whether its sessions have whole transactions run for them
    /// ([`Session::whole_transactions`] is `Some`) rather than running a
    /// workload's procedure.
    pub const fn whole_transactions(self) -> bool {
        matches!(self, Execution::ServedTransactions | Execution::Dataless)
    }

    /// Whether txbench loads, checks and changes the data itself, through
    /// the session (a database or a key-value store, not a txbench server
    /// or an engine without data).
    pub const fn holds_data(self) -> bool {
        matches!(self, Execution::Statements | Execution::Scripts)
    }
}

/// A transaction's input as [`WholeTransactions::run_transaction`] takes it: any
/// serialisable value, its type erased (a server's client encodes it).
pub type TxnInput<'a> = &'a (dyn erased_serde::Serialize + Sync);

/// The server's clock as one round trip read it: the server read it at some
/// moment between `sent` and `sent + round_trip` by this machine's clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerClock {
    /// The server's time, microseconds since the Unix epoch.
    pub server_us: i64,
    /// When the round trip began, by this machine's clock.
    pub sent: std::time::SystemTime,
    /// How long it took.
    pub round_trip: std::time::Duration,
}

impl ServerClock {
    /// Time `read`, one round trip that answers the server's time in
    /// microseconds (`None`: no answer to read).
    pub async fn read<F>(read: F) -> Result<Option<ServerClock>, DbError>
    where
        F: Future<Output = Result<Option<i64>, DbError>>,
    {
        let sent = std::time::SystemTime::now();
        let timer = std::time::Instant::now();
        let server_us = read.await?;
        let round_trip = timer.elapsed();
        Ok(server_us.map(|server_us| ServerClock {
            server_us,
            sent,
            round_trip,
        }))
    }
}

/// One connection to a database, used by one task at a time: transactions.
/// Schema and bulk loading are a [`Loader`], which a session offers through
/// [`Session::loader`] when its engine can do them.
///
/// Methods return futures so that network engines are truly asynchronous; an
/// embedded engine completes them synchronously and the driver gives each of its
/// sessions an OS thread of its own.
pub trait Session: Send + 'static {
    /// How the session executes a transaction. Read it through
    /// [`Session::execution`]: an [`AnySession`](crate::any_engine::AnySession)
    /// knows its engine's only at run time.
    const EXECUTION: Execution = Execution::Statements;
    /// The session's schema and bulk-load calls ([`NoLoader`] when it has none).
    type Loader: Loader + ?Sized;
    /// Whole transactions executed for the session
    /// ([`NoWholeTransactions`] when it executes statements).
    type Whole: WholeTransactions + ?Sized;
    /// How the session executes a transaction ([`Session::EXECUTION`]).
    fn execution(&self) -> Execution {
        Self::EXECUTION
    }
    /// Its schema and bulk-load calls; `None` for a session that cannot create
    /// tables or load them (a txbench server's client).
    fn loader(&mut self) -> Option<&mut Self::Loader>;
    /// Its whole transactions, where the driver hands it those rather than
    /// running a workload's procedure on it (a txbench server's client, an
    /// engine without data: [`Execution::ServedTransactions`] and
    /// [`Execution::Dataless`]); `None` for a session of statements.
    fn whole_transactions(&mut self) -> Option<&mut Self::Whole> {
        None
    }
    /// Start a transaction.
    fn begin(&mut self, mode: TxMode) -> impl Future<Output = Result<(), DbError>> + Send;
    /// Commit the current transaction.
    fn commit(&mut self) -> impl Future<Output = Result<(), DbError>> + Send;
    /// Roll back the current transaction; does nothing outside a transaction.
    fn rollback(&mut self) -> impl Future<Output = Result<(), DbError>> + Send;
    /// Run a query and return its rows.
    fn query(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<Rows, DbError>> + Send;
    /// Run a statement and return the number of rows it changed.
    fn execute(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<u64, DbError>> + Send;
    /// Run statements that do not depend on each other's results, in order, and
    /// return their replies in order. A network engine sends them all before it
    /// waits for the first answer (one round trip instead of one each); an
    /// embedded engine runs them one by one. The first failure is returned.
    fn pipeline(
        &mut self,
        calls: &[Call<'_>],
    ) -> impl Future<Output = Result<Vec<Reply>, DbError>> + Send {
        each_in_turn(self, calls)
    }
    /// Run a transaction's last statements as [`Session::pipeline`] does and,
    /// if they all succeed, commit it; returns their replies. For statements
    /// whose results cannot change whether the transaction commits. A network
    /// engine that pipelines sends the COMMIT with them (one round trip fewer
    /// per transaction); the first failure is returned and the transaction is
    /// then left for [`Session::rollback`], as after any failed statement.
    fn pipeline_and_commit(
        &mut self,
        calls: &[Call<'_>],
    ) -> impl Future<Output = Result<Vec<Reply>, DbError>> + Send {
        pipeline_then_commit(self, calls)
    }
    /// Whether [`Session::pipeline_and_commit`] would now send the
    /// statements and the COMMIT in one round trip. Where it would not, it
    /// is [`Session::pipeline`] then [`Session::commit`], and a wrapper that
    /// times the phases makes the two calls itself, so that the statements'
    /// time is not booked as the COMMIT's.
    fn commit_travels_with_statements(&self) -> bool {
        false
    }
    /// The server's own version string, for the results ("PostgreSQL 15.2 on ...").
    fn server_version(&mut self) -> impl Future<Output = Result<String, DbError>> + Send {
        async move {
            let rows = self.query_sql("SELECT version()").await?;
            Ok(rows
                .row(0)
                .and_then(|r| r.get(0))
                .and_then(Param::as_str)
                .unwrap_or("unknown")
                .to_string())
        }
    }
    /// The isolation level the session's transactions run at: the one asked
    /// for, else the database's own default; `None` when the engine cannot say
    /// (or the level is weaker than read committed).
    fn isolation_in_effect(
        &mut self,
    ) -> impl Future<Output = Result<Option<Isolation>, DbError>> + Send {
        std::future::ready(Ok(None))
    }
    /// The database server's wall clock, read in one round trip; `None`
    /// where the engine cannot read it (the default) or its clock is this
    /// machine's (an engine in this process). Shards started for one
    /// `--start-at` hold their clocks against it.
    fn server_clock(
        &mut self,
    ) -> impl Future<Output = Result<Option<ServerClock>, DbError>> + Send {
        std::future::ready(Ok(None))
    }
    /// Prepare a statement without running it, so that one the database
    /// refuses is found before a run starts (its own message in the error).
    /// The answer is the number of columns its rows have, where the engine
    /// says (`None` where it does not, or for a statement without rows: a
    /// workload's `into` checks what it can). Engines that prepare nothing
    /// (a txbench server's client) accept any.
    fn prepare(
        &mut self,
        stmt: &'static Statement,
    ) -> impl Future<Output = Result<Option<usize>, DbError>> + Send {
        let _ = stmt;
        std::future::ready(Ok(None))
    }
    /// A handle that stops this session's statement in progress from
    /// elsewhere (a run's end, a signal, a time limit); `None` where the
    /// engine has no way (the default), and its statements run to their end.
    fn interrupter(&self) -> Option<crate::interrupt::Interrupter> {
        None
    }
    /// Run ad-hoc SQL that returns rows (checks, metadata); not prepared.
    fn query_sql(&mut self, sql: &str) -> impl Future<Output = Result<Rows, DbError>> + Send;
    /// The time the calls since the last take spent on the wire, from the
    /// kernel's timestamps of the bytes sent and received (see
    /// [`txbench_wire`]), and the clock it was read from; `None` when the
    /// session keeps no timestamps (the default), or a send or read in
    /// between had none. The driver takes it before and after each
    /// transaction.
    fn take_wire(&mut self) -> Option<txbench_wire::Wire> {
        None
    }
    /// Re-establish a lost connection in place.
    fn reconnect(&mut self) -> impl Future<Output = Result<(), DbError>> + Send {
        std::future::ready(Err(DbError::new(
            crate::error::ErrorKind::Connection,
            "this engine's sessions cannot reconnect",
        )))
    }
}

/// Schema and bulk loading: what a load, a clean and a load's record need
/// beyond transactions. Engines that cannot do them (a txbench server's
/// client) have [`NoLoader`].
pub trait Loader: Send {
    /// Create a table (without secondary indexes). Engines that load faster
    /// without a primary key leave it for [`Loader::add_primary_key`].
    fn create_table(&mut self, table: &Table) -> impl Future<Output = Result<(), DbError>> + Send;
    /// Create a table split into `count` hash partitions by `column`, each
    /// partition a table of its own ([`crate::schema::partition_name`]);
    /// only where [`Engine::hash_partitions`] says the engine can.
    fn create_partitioned_table(
        &mut self,
        table: &Table,
        column: &str,
        count: u32,
    ) -> impl Future<Output = Result<(), DbError>> + Send {
        let _ = (column, count);
        let message = format!("table '{}': this engine has no hash partitions", table.name);
        std::future::ready(Err(DbError::new(crate::error::ErrorKind::Other, message)))
    }
    /// Add the table's primary key after a load, if [`Loader::create_table`] left it out.
    fn add_primary_key(
        &mut self,
        table: &Table,
    ) -> impl Future<Output = Result<(), DbError>> + Send {
        let _ = table;
        std::future::ready(Ok(()))
    }
    /// Add a foreign key constraint (after a load).
    fn add_foreign_key(
        &mut self,
        key: &ForeignKey,
    ) -> impl Future<Output = Result<(), DbError>> + Send {
        std::future::ready(Err(DbError::new(
            crate::error::ErrorKind::Other,
            format!(
                "this engine cannot add foreign key {} after creating the table",
                key.name
            ),
        )))
    }
    /// Create a secondary index.
    fn create_index(&mut self, index: &Index) -> impl Future<Output = Result<(), DbError>> + Send;
    /// Gather the planner's statistics of a table just loaded, where the
    /// engine keeps them by hand (PostgreSQL's ANALYZE); nothing by default.
    fn analyze(&mut self, table: &Table) -> impl Future<Output = Result<(), DbError>> + Send {
        let _ = table;
        std::future::ready(Ok(()))
    }
    /// Drop a table if it exists.
    fn drop_table(&mut self, name: &str) -> impl Future<Output = Result<(), DbError>> + Send;
    /// Whether a table exists.
    fn table_exists(&mut self, name: &str) -> impl Future<Output = Result<bool, DbError>> + Send;
    /// A table's columns as the database declares them, empty when it has
    /// no such table; `None` where the engine keeps no declared columns (a
    /// key-value store), whose tables are only txbench's own.
    fn columns(
        &mut self,
        table: &str,
    ) -> impl Future<Output = Result<Option<Vec<crate::schema::DeclaredColumn>>, DbError>> + Send
    {
        let _ = table;
        std::future::ready(Ok(None))
    }
    /// Whether a table carries [`crate::schema::TABLE_MARK`], which
    /// [`Loader::create_table`] gives it; `None` where the engine keeps no
    /// marks (a key-value store, whose tables only txbench makes).
    fn marked(
        &mut self,
        table: &str,
    ) -> impl Future<Output = Result<Option<bool>, DbError>> + Send {
        let _ = table;
        std::future::ready(Ok(None))
    }
    /// Insert a batch of rows through the engine's fastest path.
    fn insert_batch(
        &mut self,
        table: &Table,
        batch: &RowBatch,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
    /// Tune the session for a bulk load (for example turn journaling off).
    fn begin_bulk_load(&mut self) -> impl Future<Output = Result<(), DbError>> + Send;
    /// Restore the settings for running transactions after a bulk load.
    fn end_bulk_load(&mut self) -> impl Future<Output = Result<(), DbError>> + Send;
    /// Rows the load may write in one transaction, if the engine wants fewer
    /// than the loader's own batching (`None`: no limit of its own).
    fn most_rows_per_commit(&self) -> Option<u64> {
        None
    }
}

/// The loader of a session that has none: no value of it exists, so none of
/// its calls can be made.
#[derive(Debug)]
pub enum NoLoader {}

impl Loader for NoLoader {
    async fn create_table(&mut self, _: &Table) -> Result<(), DbError> {
        match *self {}
    }
    async fn create_index(&mut self, _: &Index) -> Result<(), DbError> {
        match *self {}
    }
    async fn drop_table(&mut self, _: &str) -> Result<(), DbError> {
        match *self {}
    }
    async fn table_exists(&mut self, _: &str) -> Result<bool, DbError> {
        match *self {}
    }
    async fn insert_batch(&mut self, _: &Table, _: &RowBatch) -> Result<(), DbError> {
        match *self {}
    }
    async fn begin_bulk_load(&mut self) -> Result<(), DbError> {
        match *self {}
    }
    async fn end_bulk_load(&mut self) -> Result<(), DbError> {
        match *self {}
    }
}

/// Whole transactions executed for a session, not by txbench's procedures:
/// what a txbench server's client and an engine without data offer through
/// [`Session::whole_transactions`].
pub trait WholeTransactions: Send {
    /// Execute one whole transaction of type `txn_type` (described by `info`)
    /// with `input`; returns how it ended and the server's own execution time.
    fn run_transaction(
        &mut self,
        txn_type: usize,
        info: &crate::txn::TxnTypeInfo,
        input: TxnInput<'_>,
    ) -> impl Future<Output = Result<(crate::txn::Outcome, std::time::Duration), DbError>> + Send;
    /// What the server said of its workload in the handshake (`workload`,
    /// its scale, its constants); `None` where no server spoke (an engine
    /// without data).
    fn served_parameters(&self) -> Option<&[(String, String)]> {
        None
    }
}

/// The whole transactions of a session that executes statements: no value
/// of it exists, so none can be run.
#[derive(Debug)]
pub enum NoWholeTransactions {}

impl WholeTransactions for NoWholeTransactions {
    async fn run_transaction(
        &mut self,
        _: usize,
        _: &crate::txn::TxnTypeInfo,
        _: TxnInput<'_>,
    ) -> Result<(crate::txn::Outcome, std::time::Duration), DbError> {
        match *self {}
    }
}

/// A database txbench can connect to.
pub trait Engine: Send + Sync + 'static {
    /// The engine's session type.
    type Session: Session;

    /// True when the session's futures complete synchronously (an embedded database):
    /// the driver then runs each session on an OS thread of its own. Read it
    /// through [`Engine::blocking`], as [`Session::EXECUTION`] through [`Session::execution`].
    const BLOCKING: bool;

    /// Whether its sessions block ([`Engine::BLOCKING`]).
    fn blocking(&self) -> bool {
        Self::BLOCKING
    }

    /// How its sessions execute a transaction ([`Session::EXECUTION`]).
    fn execution(&self) -> Execution {
        <Self::Session as Session>::EXECUTION
    }

    /// A short name of the engine ("sqlite", "postgres", ...).
    fn name(&self) -> &'static str;

    /// The target with any secret removed, for output.
    fn describe(&self) -> String;

    /// Open a new session.
    fn connect(&self) -> impl Future<Output = Result<Self::Session, DbError>> + Send;

    /// Refuse, by name, a schema this engine cannot hold (a row too wide,
    /// a table a key-value store cannot keep), before anything is created.
    fn can_hold(&self, schema: &Schema) -> Result<(), DbError> {
        let _ = schema;
        Ok(())
    }

    /// Whether its loader splits tables into hash partitions
    /// ([`Loader::create_partitioned_table`]); a workload refuses a load that
    /// asks for them elsewhere, by the engine's name.
    fn hash_partitions(&self) -> bool {
        false
    }

    /// Whether it holds a workload's wider tables only split into hash
    /// partitions (a sharded key-value store): a load must say how many.
    fn partitioned_only(&self) -> bool {
        false
    }

    /// How many sessions may write at once; loaders use no more writers than this.
    fn max_writers(&self) -> usize {
        usize::MAX
    }

    /// The nodes of the database this engine was given (several `--db` URLs).
    fn nodes(&self) -> usize {
        1
    }

    /// Create the database the URL names when the server has none of that
    /// name, as a load's first step (go-tpc does the same); its name when it
    /// was created, `None` when it was there or the engine has no such thing.
    fn create_database(&self) -> impl Future<Output = Result<Option<String>, DbError>> + Send {
        std::future::ready(Ok(None))
    }

    /// True when the database lives only as long as this process (in-memory
    /// SQLite): nothing another command loaded is there, and nothing this
    /// one writes stays.
    fn ephemeral(&self) -> bool {
        false
    }

    /// Whether it holds key-value tables only (Redis, etcd): a workload whose
    /// schema has no key-value form cannot run on it.
    fn key_value_only(&self) -> bool {
        false
    }

    /// A second database beside this one, of the same engine, that the
    /// workload's added terminals (the CH-benCHmark's analytical streams)
    /// run on, a session each, while every other terminal runs here
    /// (`--analytic-db`: the analytics on a replica). Default: none, they
    /// run here.
    fn side(&self) -> Option<&Self> {
        None
    }

    /// Open a new session on node `node` (0-based, below [`Engine::nodes`]), for
    /// runs that keep each terminal's work on one node.
    fn connect_node(
        &self,
        node: usize,
    ) -> impl Future<Output = Result<Self::Session, DbError>> + Send {
        let _ = node;
        self.connect()
    }
}

/// Each call in turn, its answer awaited before the next goes: what
/// [`Session::pipeline`] does where nothing is sent ahead (an embedded engine,
/// or statement round trips).
pub async fn each_in_turn<S: Session + ?Sized>(
    session: &mut S,
    calls: &[Call<'_>],
) -> Result<Vec<Reply>, DbError> {
    let mut out = Vec::with_capacity(calls.len());
    for c in calls {
        out.push(match c.kind {
            CallKind::Query => Reply::Rows(session.query(c.stmt, c.params).await?),
            CallKind::Execute => Reply::Affected(session.execute(c.stmt, c.params).await?),
        });
    }
    Ok(out)
}

/// The statements as a pipeline, then the COMMIT on its own: what
/// [`Session::pipeline_and_commit`] does where the COMMIT cannot go with them.
pub async fn pipeline_then_commit<S: Session + ?Sized>(
    session: &mut S,
    calls: &[Call<'_>],
) -> Result<Vec<Reply>, DbError> {
    let replies = session.pipeline(calls).await?;
    session.commit().await?;
    Ok(replies)
}

/// A session's loader, or the error that says its engine has none: its
/// tables are a server's, loaded through the database's own URL.
pub fn loader_of<S: Session>(session: &mut S) -> Result<&mut S::Loader, DbError> {
    session.loader().ok_or_else(|| {
        DbError::new(
            crate::error::ErrorKind::Other,
            "this engine creates and loads no tables: a txbench server's are loaded through \
             the database's own URL (or by `txbench serve`)",
        )
    })
}
