//! PostgreSQL-wire databases (PostgreSQL, CockroachDB, YugabyteDB) over
//! tokio-postgres, a transaction's statements sent by the session itself
//! with one Sync a round trip where it makes the socket (`gate`, `gated`,
//! `round_trip`).
//!
//! Dialect decisions, all here and in `dialect`:
//! * placeholders `?` become `$1, $2, ...`; `FOR UPDATE` is appended where asked;
//! * money is `numeric(p, s)` (bound from f64 through `rust_decimal`), timestamps
//!   are `timestamp`;
//! * tables are created without their primary key, loaded with binary `COPY`,
//!   then keyed, indexed and analyzed;
//! * SQLSTATE 40001 (serialization failure; CockroachDB's and YugabyteDB's
//!   "restart transaction") and 40P01 (deadlock) are conflicts the driver retries;
//!   classes 08 and 57P (connection failures, administrator shutdown) are lost
//!   connections, which the session re-establishes.

mod cancel;
mod dialect;
mod gate;
mod gated;
mod round_trip;
mod row_size;
mod tls;
mod types;
pub mod url;
mod wire;

use std::collections::HashMap;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::future::{try_join, try_join_all};
use futures_util::{TryStreamExt, pin_mut};
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::{Client, NoTls};
use tokio_postgres_rustls::MakeRustlsConnect;
use txbench_core::engine::{CallKind, ServerClock, each_in_turn, pipeline_then_commit};
use txbench_core::schema::{
    DeclaredColumn, ForeignKey, Index, Quote, Schema, Statement, TABLE_MARK, Table, partition_name,
};
use txbench_core::value::RowBatch;
use txbench_core::{
    Call, DbError, Engine, ErrorKind, Isolation, Loader, Param, Reply, RoundTrips, Rows, Session,
    Timestamps, TxMode,
};

use dialect::{begin_sql, map_err, translate};
pub use tls::client_config;
use types::{PgParam, ddl_type, pg_type, value};
pub use url::{PgTarget, SslMode};

/// What the engine and its sessions share: where to connect and how.
struct Shared {
    target: PgTarget,
    tls: Option<MakeRustlsConnect>,
    /// The same TLS settings, for the sockets connected here ([`gated`]).
    tls_config: Option<Arc<rustls::ClientConfig>>,
    isolation: Option<Isolation>,
    next_host: AtomicUsize,
    warned: Mutex<HashSet<String>>,
    /// Whether sessions' sockets are stamped by the kernel.
    timestamps: Timestamps,
}

/// A connection, its kernel timestamps where kept, how its statements are
/// cancelled, and the gate of its socket where the session shares it.
type Connected = (
    Client,
    Option<wire::Stamped>,
    cancel::Canceller,
    Option<gate::Gate>,
);

impl Shared {
    /// Connect to the next host in turn, skipping (with a warning) hosts that fail.
    async fn connect(&self) -> Result<Connected, DbError> {
        let hosts = &self.target.hosts;
        let start = self.next_host.fetch_add(1, Ordering::Relaxed);
        let mut last = None;
        for k in 0..hosts.len() {
            let (name, config) = &hosts[(start + k) % hosts.len()];
            match self.connect_to(config).await {
                Ok(client) => return Ok(client),
                Err(e) => {
                    if hosts.len() > 1
                        && self
                            .warned
                            .lock()
                            .expect("warned lock")
                            .insert(name.clone())
                    {
                        eprintln!(
                            "txbench: warning: skipping PostgreSQL host {name}: {}",
                            e.message
                        );
                    }
                    last = Some(named(e, name));
                }
            }
        }
        Err(last.unwrap_or_else(|| DbError::new(ErrorKind::Connection, "no host to connect to")))
    }

    async fn connect_to(&self, config: &tokio_postgres::Config) -> Result<Connected, DbError> {
        let mut config = config.clone();
        config.ssl_mode(match self.target.ssl {
            SslMode::Disable => tokio_postgres::config::SslMode::Disable,
            SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
            SslMode::Require | SslMode::VerifyFull => tokio_postgres::config::SslMode::Require,
        });
        if self.timestamps == Timestamps::Kernel {
            let (client, stamped) = match &self.tls {
                None => wire::connect(&config, NoTls).await?,
                Some(tls) => wire::connect(&config, tls.clone()).await?,
            };
            let raw_to = match (config.get_hosts().first(), config.get_ports().first()) {
                (Some(tokio_postgres::config::Host::Tcp(host)), Some(port)) => {
                    Some((host.clone(), *port))
                }
                _ => None,
            };
            let cancel = cancel::Canceller::new(client.cancel_token(), raw_to, self.tls.clone());
            return Ok((client, Some(stamped), cancel, None));
        }
        let gated = gated::connect(&config, self.target.ssl, self.tls_config.as_ref()).await?;
        if let Some(g) = gated {
            let token = g.client.cancel_token();
            let cancel = cancel::Canceller::new(token, Some(g.address), self.tls.clone());
            return Ok((g.client, None, cancel, Some(g.gate)));
        }
        let connect_err = |e: tokio_postgres::Error| dialect::connect_error(&e);
        let client = match &self.tls {
            None => {
                let (client, connection) = config.connect(NoTls).await.map_err(connect_err)?;
                tokio::spawn(async move { drop(connection.await) });
                client
            }
            Some(tls) => {
                let (client, connection) =
                    config.connect(tls.clone()).await.map_err(connect_err)?;
                tokio::spawn(async move { drop(connection.await) });
                client
            }
        };
        let cancel = cancel::Canceller::new(client.cancel_token(), None, self.tls.clone());
        Ok((client, None, cancel, None))
    }
}

/// An error of connecting to host `name`, named by it, its code kept.
fn named(e: DbError, name: &str) -> DbError {
    DbError {
        message: format!("{name}: {}", e.message),
        ..e
    }
}

/// The PostgreSQL-wire engine.
pub struct PgEngine {
    shared: Arc<Shared>,
    round_trips: RoundTrips,
}

impl PgEngine {
    /// An engine for a target; `isolation` `None` keeps the database's default.
    pub fn new(target: PgTarget, isolation: Option<Isolation>) -> Self {
        let tls_config = tls::client_config(target.ssl);
        let tls = tls_config.as_deref().map(tls::connector);
        PgEngine {
            shared: Arc::new(Shared {
                target,
                tls,
                tls_config,
                isolation,
                next_host: AtomicUsize::new(0),
                warned: Mutex::new(HashSet::new()),
                timestamps: Timestamps::Client,
            }),
            round_trips: RoundTrips::Pipelined,
        }
    }

    /// The engine with its sessions' sockets stamped by the kernel, or not:
    /// a setting of a new engine, before any session shares what it holds.
    pub fn with_timestamps(mut self, timestamps: Timestamps) -> Self {
        Arc::get_mut(&mut self.shared)
            .expect("a new engine's settings are its alone")
            .timestamps = timestamps;
        self
    }

    /// The engine with its sessions talking as `round_trips` says.
    pub fn with_round_trips(self, round_trips: RoundTrips) -> Self {
        PgEngine {
            round_trips,
            ..self
        }
    }
}

impl Engine for PgEngine {
    type Session = PgSession;
    const BLOCKING: bool = false;

    /// Tables whose rows fit a page (`row_size.rs`): PostgreSQL itself would
    /// create them and refuse their first row mid-load.
    fn can_hold(&self, schema: &Schema) -> Result<(), DbError> {
        match schema.tables.iter().find_map(row_size::too_big) {
            Some(why) => Err(DbError::new(ErrorKind::Other, why)),
            None => Ok(()),
        }
    }

    fn name(&self) -> &'static str {
        "postgres"
    }

    fn describe(&self) -> String {
        self.shared.target.display.clone()
    }

    fn nodes(&self) -> usize {
        self.shared.target.hosts.len()
    }

    fn hash_partitions(&self) -> bool {
        true
    }

    async fn connect_node(&self, node: usize) -> Result<PgSession, DbError> {
        let hosts = &self.shared.target.hosts;
        let (name, config) = &hosts[node % hosts.len()];
        let connected = self
            .shared
            .connect_to(config)
            .await
            .map_err(|e| named(e, name))?;
        Ok(self.session(connected))
    }

    async fn connect(&self) -> Result<PgSession, DbError> {
        let connected = self.shared.connect().await?;
        Ok(self.session(connected))
    }

    async fn create_database(&self) -> Result<Option<String>, DbError> {
        let (_, config) = &self.shared.target.hosts[0];
        match self.shared.connect_to(config).await {
            Err(e) if e.code.as_deref() == Some("SQLSTATE 3D000") => {}
            _ => return Ok(None),
        }
        let name = config
            .get_dbname()
            .or(config.get_user())
            .unwrap_or("postgres")
            .to_string();
        // CREATE DATABASE runs from the server's maintenance database.
        let mut maintenance = config.clone();
        maintenance.dbname("postgres");
        let (client, ..) = self.shared.connect_to(&maintenance).await?;
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        match client
            .batch_execute(&format!("CREATE DATABASE {quoted}"))
            .await
        {
            Ok(()) => Ok(Some(name)),
            // Another process made it in the meantime: it is there.
            Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::DUPLICATE_DATABASE) => {
                Ok(None)
            }
            Err(e) => Err(DbError::new(
                ErrorKind::Other,
                format!("creating database {quoted}: {}", dialect::describe(&e)),
            )),
        }
    }
}

impl PgEngine {
    fn session(&self, (client, wire, cancel, gate): Connected) -> PgSession {
        PgSession {
            client,
            gate,
            buffers: round_trip::Buffers::default(),
            wire,
            cancel: Arc::new(std::sync::Mutex::new(Arc::new(cancel))),
            shared: Arc::clone(&self.shared),
            statements: HashMap::new(),
            controls: HashMap::new(),
            in_transaction: false,
            pending_begin: None,
            guarded: false,
            round_trips: self.round_trips,
        }
    }
}

/// One PostgreSQL connection with its prepared statements.
pub struct PgSession {
    client: Client,
    /// The connection's socket, shared with `client`'s connection task, for
    /// round trips with one Sync ([`round_trip`]); `None` where tokio-postgres
    /// made the socket (a Unix socket, kernel timestamps), and every request
    /// goes through `client`.
    gate: Option<gate::Gate>,
    /// The round trips' buffers, kept between them.
    buffers: round_trip::Buffers,
    /// The kernel's stamps of the connection's bytes, where kept.
    wire: Option<wire::Stamped>,
    /// How the connection's statement in progress is cancelled, shared with
    /// the session's interrupt handle.
    cancel: Arc<std::sync::Mutex<Arc<cancel::Canceller>>>,
    shared: Arc<Shared>,
    /// Prepared statements by the address of their (static) definition.
    statements: HashMap<usize, round_trip::Prepared>,
    /// BEGIN, COMMIT and ROLLBACK by their text, prepared on the shared
    /// socket the first time each is sent.
    controls: HashMap<&'static str, round_trip::Control>,
    in_transaction: bool,
    /// A BEGIN not sent yet: it goes out with the transaction's first statements,
    /// written before them on the connection, so it costs no round trip of its own.
    pending_begin: Option<&'static str>,
    /// Whether the connection's default transaction is read only. Each
    /// statement written behind a pending BEGIN is its own request (its own
    /// Sync), so a BEGIN that fails (a cancel landing on it) leaves them to run
    /// as transactions of their own: read-only ones, which cannot commit half
    /// of a transaction. Set before a BEGIN is ever left pending, cleared
    /// before statements outside any transaction (a load's) run.
    guarded: bool,
    /// Pipelined, or one statement per round trip (BEGIN included).
    round_trips: RoundTrips,
}

impl PgSession {
    /// A statement prepared on the connection: by tokio-postgres, which
    /// learns its types, and again under a name of the session's own where
    /// the session shares the socket.
    async fn prepared(
        &mut self,
        stmt: &'static Statement,
    ) -> Result<round_trip::Prepared, DbError> {
        let key = stmt as *const Statement as usize;
        if let Some(prepared) = self.statements.get(&key) {
            return Ok(prepared.clone());
        }
        let sql = translate(stmt.sql, stmt.for_update);
        let statement = self
            .client
            .prepare(&sql)
            .await
            .map_err(|e| map_err(&e, stmt.name))?;
        let name: Arc<str> = format!("txbench_{}", self.statements.len()).into();
        self.quiet().await?;
        if let Some(gate) = &self.gate {
            let types = statement.params();
            round_trip::parse(gate, &mut self.buffers, &name, &sql, types, stmt.name).await?;
        }
        let prepared = round_trip::Prepared { name, statement };
        self.statements.insert(key, prepared.clone());
        Ok(prepared)
    }

    /// Send a prepared statement and collect its answer.
    async fn call(
        client: &Client,
        st: &tokio_postgres::Statement,
        call: &Call<'_>,
    ) -> Result<Reply, DbError> {
        let params = call.params.iter().map(|p| PgParam(*p));
        match call.kind {
            CallKind::Execute => client
                .execute_raw(st, params)
                .await
                .map(Reply::Affected)
                .map_err(|e| map_err(&e, call.stmt.name)),
            CallKind::Query => {
                let stream = client
                    .query_raw(st, params)
                    .await
                    .map_err(|e| map_err(&e, call.stmt.name))?;
                pin_mut!(stream);
                let columns = st.columns().len();
                let mut out = Rows::new(columns);
                while let Some(row) = stream
                    .try_next()
                    .await
                    .map_err(|e| map_err(&e, call.stmt.name))?
                {
                    for i in 0..columns {
                        out.push(value(&row, i)?);
                    }
                }
                Ok(Reply::Rows(out))
            }
        }
    }

    /// Every call written before the first answer is awaited, after a pending
    /// BEGIN, and a COMMIT after them if `commit` (polled together,
    /// tokio-postgres sends requests in order and matches the answers so).
    async fn send_together(
        &mut self,
        calls: &[Call<'_>],
        commit: bool,
    ) -> Result<Vec<Reply>, DbError> {
        let mut prepared = Vec::with_capacity(calls.len());
        for c in calls {
            prepared.push((self.prepared(c.stmt).await?, c));
        }
        let begin = self.begin_to_send().await?;
        if self.gate.is_some() {
            let end = commit.then_some("COMMIT");
            return self.on_own_socket(begin, &prepared, end).await;
        }
        let client = &self.client;
        let all = try_join_all(
            prepared
                .iter()
                .map(|(st, c)| Self::call(client, &st.statement, c)),
        );
        if !commit {
            return after_begin(client, begin, all).await;
        }
        let commit = async {
            client
                .batch_execute("COMMIT")
                .await
                .map_err(|e| map_err(&e, "COMMIT"))
        };
        Ok(after_begin(client, begin, try_join(all, commit)).await?.0)
    }

    /// Make the connection ready for a call that carries no BEGIN: send a
    /// BEGIN still pending, or, outside any transaction, let statements write
    /// again in autocommit.
    async fn settle(&mut self) -> Result<(), DbError> {
        if let Some(sql) = self.pending_begin.take() {
            return simple(&self.client, sql).await;
        }
        if !self.in_transaction && self.guarded {
            simple(&self.client, "SET default_transaction_read_only = off").await?;
            self.guarded = false;
        }
        Ok(())
    }

    /// The BEGIN to write before the next calls, if one is pending; outside
    /// any transaction, the connection made ready for autocommit first.
    async fn begin_to_send(&mut self) -> Result<Option<&'static str>, DbError> {
        if !self.in_transaction {
            self.settle().await?;
        }
        Ok(self.pending_begin.take())
    }

    /// Make a failed pending BEGIN harmless before one is ever left pending
    /// (see `guarded`): once per connection in a run's sessions.
    async fn guard(&mut self) -> Result<(), DbError> {
        if !self.guarded {
            simple(&self.client, "SET default_transaction_read_only = on").await?;
            self.guarded = true;
        }
        Ok(())
    }

    /// One round trip with one Sync on the shared socket ([`round_trip`]);
    /// whether a transaction is open after it, the server says.
    async fn on_own_socket(
        &mut self,
        begin: Option<&'static str>,
        calls: &[(round_trip::Prepared, &Call<'_>)],
        end: Option<&'static str>,
    ) -> Result<Vec<Reply>, DbError> {
        self.quiet().await?;
        let begin = self.control_statement(begin).await?;
        let end = self.control_statement(end).await?;
        let gate = self.gate.as_ref().expect("a session sharing its socket");
        let request = round_trip::Request {
            begin: begin.as_ref(),
            calls,
            end: end.as_ref(),
        };
        let answer = round_trip::send(gate, &mut self.buffers, &request).await?;
        self.in_transaction = answer.in_transaction;
        answer.replies
    }

    /// `sql` (a BEGIN, COMMIT or ROLLBACK) as a statement prepared on the
    /// shared socket, in a round trip of its own the first time.
    async fn control_statement(
        &mut self,
        sql: Option<&'static str>,
    ) -> Result<Option<round_trip::Control>, DbError> {
        let Some(sql) = sql else {
            return Ok(None);
        };
        if let Some(control) = self.controls.get(sql) {
            return Ok(Some(control.clone()));
        }
        let name: Arc<str> = format!("txbench_control_{}", self.controls.len()).into();
        let gate = self.gate.as_ref().expect("a session sharing its socket");
        round_trip::parse(gate, &mut self.buffers, &name, sql, &[], sql).await?;
        let control = round_trip::Control { sql, name };
        self.controls.insert(sql, control.clone());
        Ok(Some(control))
    }

    /// Make sure nothing of tokio-postgres's is unanswered before a turn on
    /// the shared socket ([`gate`]): after it wrote, an empty query of its
    /// own, answered after all it sent before.
    async fn quiet(&mut self) -> Result<(), DbError> {
        let Some(gate) = &self.gate else {
            return Ok(());
        };
        if !gate.is_quiet() {
            simple(&self.client, "").await?;
            gate.quiet_now();
        }
        Ok(())
    }

    /// A transaction's BEGIN, COMMIT or ROLLBACK on its own: on the shared
    /// socket where there is one.
    async fn control(
        &mut self,
        begin: Option<&'static str>,
        end: Option<&'static str>,
    ) -> Result<(), DbError> {
        if self.gate.is_some() {
            return self.on_own_socket(begin, &[], end).await.map(drop);
        }
        simple(&self.client, begin.or(end).unwrap_or_default()).await
    }

    /// One call in its own round trip, after a pending BEGIN.
    async fn one_call(&mut self, call: &Call<'_>) -> Result<Reply, DbError> {
        let st = self.prepared(call.stmt).await?;
        let begin = self.begin_to_send().await?;
        if self.gate.is_some() {
            let replies = self.on_own_socket(begin, &[(st, call)], None).await?;
            return replies
                .into_iter()
                .next()
                .ok_or_else(|| DbError::new(ErrorKind::Other, "no answer to a statement"));
        }
        after_begin(
            &self.client,
            begin,
            Self::call(&self.client, &st.statement, call),
        )
        .await
    }

    async fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        self.settle().await?;
        simple(&self.client, sql).await
    }
}

/// One simple-protocol statement on a client.
async fn simple(client: &Client, sql: &str) -> Result<(), DbError> {
    client
        .batch_execute(sql)
        .await
        .map_err(|e| map_err(&e, sql))
}

/// Await `work` after a pending BEGIN, both written before either answer is
/// awaited (polled together, tokio-postgres sends requests in order).
async fn after_begin<T>(
    client: &Client,
    begin: Option<&'static str>,
    work: impl std::future::Future<Output = Result<T, DbError>>,
) -> Result<T, DbError> {
    match begin {
        Some(sql) => Ok(try_join(simple(client, sql), work).await?.1),
        None => work.await,
    }
}

impl Session for PgSession {
    async fn prepare(&mut self, stmt: &'static Statement) -> Result<Option<usize>, DbError> {
        self.prepared(stmt)
            .await
            .map(|st| Some(st.statement.columns().len()))
    }

    type Loader = Self;

    type Whole = txbench_core::NoWholeTransactions;

    fn loader(&mut self) -> Option<&mut Self> {
        Some(self)
    }

    async fn begin(&mut self, mode: TxMode) -> Result<(), DbError> {
        let sql = begin_sql(mode, self.shared.isolation);
        if self.round_trips == RoundTrips::Statement {
            // As lib/pq and go-tpc do: BEGIN answered before the first statement.
            self.control(Some(sql), None).await?;
        } else {
            if self.gate.is_none() {
                // A round trip with one Sync skips all after a failed BEGIN;
                // tokio-postgres's requests, a Sync each, need the guard.
                self.guard().await?;
            }
            self.pending_begin = Some(sql);
        }
        self.in_transaction = true;
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        // After COMMIT the transaction is over whatever the outcome.
        self.in_transaction = false;
        if self.pending_begin.take().is_some() {
            // Nothing was sent: an empty transaction.
            return Ok(());
        }
        self.control(None, Some("COMMIT")).await
    }

    async fn rollback(&mut self) -> Result<(), DbError> {
        if !self.in_transaction {
            return Ok(());
        }
        self.in_transaction = false;
        if self.pending_begin.take().is_some() {
            return Ok(());
        }
        self.control(None, Some("ROLLBACK")).await
    }

    async fn query(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<Rows, DbError> {
        match self.one_call(&Call::query(stmt, params)).await? {
            Reply::Rows(rows) => Ok(rows),
            Reply::Affected(_) => unreachable!("a query answers with rows"),
        }
    }

    async fn execute(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<u64, DbError> {
        Ok(self
            .one_call(&Call::execute(stmt, params))
            .await?
            .affected())
    }

    async fn pipeline(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        match self.round_trips {
            // BEGIN went on its own when the transaction began.
            RoundTrips::Statement => each_in_turn(self, calls).await,
            RoundTrips::Pipelined => self.send_together(calls, false).await,
        }
    }

    /// The statements and the COMMIT written together. A statement that fails
    /// aborts the transaction, and PostgreSQL answers the COMMIT after it with a
    /// rollback, so nothing of a failed transaction is committed.
    async fn pipeline_and_commit(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        if self.round_trips == RoundTrips::Statement || !self.in_transaction {
            return pipeline_then_commit(self, calls).await;
        }
        let replies = self.send_together(calls, true).await?;
        self.in_transaction = false;
        Ok(replies)
    }

    fn commit_travels_with_statements(&self) -> bool {
        self.round_trips == RoundTrips::Pipelined && self.in_transaction
    }

    async fn query_sql(&mut self, sql: &str) -> Result<Rows, DbError> {
        self.settle().await?;
        let st = self
            .client
            .prepare(sql)
            .await
            .map_err(|e| map_err(&e, sql))?;
        let rows = self
            .client
            .query(&st, &[])
            .await
            .map_err(|e| map_err(&e, sql))?;
        let columns = st.columns().len();
        let mut out = Rows::new(columns);
        for row in &rows {
            for i in 0..columns {
                out.push(value(row, i)?);
            }
        }
        Ok(out)
    }

    async fn isolation_in_effect(&mut self) -> Result<Option<Isolation>, DbError> {
        if let Some(asked) = self.shared.isolation {
            return Ok(Some(asked));
        }
        let rows = self
            .query_sql("SELECT current_setting('transaction_isolation')")
            .await?;
        Ok(rows
            .row(0)
            .and_then(|r| r.get(0))
            .and_then(Param::as_str)
            .and_then(Isolation::from_database))
    }

    async fn server_clock(&mut self) -> Result<Option<ServerClock>, DbError> {
        self.settle().await?;
        // clock_timestamp(), not now(): the time of the statement, not of its
        // transaction's start; a simple query: one round trip, no prepare.
        let sql = "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::int8";
        let client = &self.client;
        ServerClock::read(async {
            let messages = client
                .simple_query(sql)
                .await
                .map_err(|e| map_err(&e, sql))?;
            Ok(messages.iter().find_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0)?.parse().ok(),
                _ => None,
            }))
        })
        .await
    }

    fn take_wire(&mut self) -> Option<txbench_wire::Wire> {
        self.wire.as_mut()?.take()
    }

    fn interrupter(&self) -> Option<txbench_core::interrupt::Interrupter> {
        Some(Arc::new(cancel::PgInterrupt {
            current: Arc::clone(&self.cancel),
        }))
    }

    async fn reconnect(&mut self) -> Result<(), DbError> {
        let cancel;
        (self.client, self.wire, cancel, self.gate) = self.shared.connect().await?;
        *self.cancel.lock().expect("canceller lock") = Arc::new(cancel);
        self.statements.clear();
        self.controls.clear();
        self.in_transaction = false;
        self.pending_begin = None;
        self.guarded = false;
        Ok(())
    }
}

/// How PostgreSQL's DDL and loads quote names: standard SQL's double quotes.
const QUOTE: Quote = Quote::Double;

/// `CREATE TABLE` of a table's columns (keys come after the load).
fn create_table_sql(table: &Table) -> String {
    let columns = table.column_definitions(QUOTE, ddl_type);
    format!("CREATE TABLE {} ({columns})", QUOTE.name(table.name))
}

/// The comment that marks a table as made by txbench's load.
fn mark_sql(table: &Table) -> String {
    format!(
        "COMMENT ON TABLE {} IS '{TABLE_MARK}'",
        QUOTE.name(table.name)
    )
}

impl Loader for PgSession {
    async fn create_table(&mut self, table: &Table) -> Result<(), DbError> {
        let sql = format!("{}; {}", create_table_sql(table), mark_sql(table));
        self.batch(&sql).await
    }

    /// The table partitioned by hash, and its `count` partitions: rows go
    /// through the parent (COPY, statements) and PostgreSQL routes each to its
    /// partition; keys and indexes made on the parent are made on each.
    async fn create_partitioned_table(
        &mut self,
        table: &Table,
        column: &str,
        count: u32,
    ) -> Result<(), DbError> {
        let mut sql = format!(
            "{} PARTITION BY HASH ({});",
            create_table_sql(table),
            QUOTE.name(column)
        );
        for i in 0..count {
            sql += &format!(
                "CREATE TABLE {} PARTITION OF {} FOR VALUES WITH (MODULUS {count}, REMAINDER {i});",
                QUOTE.name(&partition_name(table.name, i)),
                QUOTE.name(table.name)
            );
        }
        sql += &mark_sql(table);
        self.batch(&sql).await
    }

    async fn add_primary_key(&mut self, table: &Table) -> Result<(), DbError> {
        if table.primary_key.is_empty() {
            return Ok(());
        }
        self.batch(&format!(
            "ALTER TABLE {} ADD PRIMARY KEY ({})",
            QUOTE.name(table.name),
            table.primary_key_list(QUOTE)
        ))
        .await
    }

    async fn add_foreign_key(&mut self, key: &ForeignKey) -> Result<(), DbError> {
        self.batch(&key.add_sql(QUOTE)).await
    }

    async fn create_index(&mut self, index: &Index) -> Result<(), DbError> {
        self.batch(&index.create_sql(QUOTE)).await
    }

    async fn drop_table(&mut self, name: &str) -> Result<(), DbError> {
        self.batch(&format!(
            "DROP TABLE IF EXISTS {} CASCADE",
            QUOTE.name(name)
        ))
        .await
    }

    async fn table_exists(&mut self, name: &str) -> Result<bool, DbError> {
        self.settle().await?;
        let row = self
            .client
            .query_one(
                "SELECT count(*) FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_name = $1",
                &[&name],
            )
            .await
            .map_err(|e| map_err(&e, "table_exists"))?;
        Ok(row.get::<_, i64>(0) > 0)
    }

    async fn columns(&mut self, table: &str) -> Result<Option<Vec<DeclaredColumn>>, DbError> {
        self.settle().await?;
        let rows = self
            .client
            .query(
                "SELECT column_name::text, data_type::text, \
                 is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO' \
                 AND is_generated = 'NEVER' \
                 FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1",
                &[&table],
            )
            .await
            .map_err(|e| map_err(&e, "columns"))?;
        Ok(Some(
            (rows.iter())
                .map(|r| DeclaredColumn {
                    name: r.get(0),
                    type_name: r.get(1),
                    required: r.get(2),
                })
                .collect(),
        ))
    }

    async fn marked(&mut self, table: &str) -> Result<Option<bool>, DbError> {
        self.settle().await?;
        let row = self
            .client
            .query_opt(
                "SELECT obj_description(c.oid, 'pg_class') = $2 FROM pg_class c \
                 JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = current_schema() AND c.relname = $1",
                &[&table, &TABLE_MARK],
            )
            .await
            .map_err(|e| map_err(&e, "marked"))?;
        Ok(Some(
            row.and_then(|r| r.get::<_, Option<bool>>(0)) == Some(true),
        ))
    }

    async fn insert_batch(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        self.settle().await?;
        let types: Vec<_> = table.columns.iter().map(|c| pg_type(c.ty)).collect();
        let sql = format!(
            "COPY {} ({}) FROM STDIN BINARY",
            QUOTE.name(table.name),
            table.column_list(QUOTE)
        );
        let sink = self
            .client
            .copy_in(&sql)
            .await
            .map_err(|e| map_err(&e, table.name))?;
        let writer = BinaryCopyInWriter::new(sink, &types);
        pin_mut!(writer);
        // One parameter buffer for the whole batch: no allocation per row.
        let mut params: Vec<PgParam<'_>> = Vec::with_capacity(table.columns.len());
        for row in batch.rows() {
            params.clear();
            params.extend(row.iter().map(PgParam::of));
            writer
                .as_mut()
                .write_raw(params.iter())
                .await
                .map_err(|e| map_err(&e, table.name))?;
        }
        writer.finish().await.map_err(|e| map_err(&e, table.name))?;
        Ok(())
    }

    async fn begin_bulk_load(&mut self) -> Result<(), DbError> {
        self.batch("SET synchronous_commit = off").await
    }

    /// Fresh statistics, so the planner uses the keys just built: the
    /// workload's tables only, each as its keys are done.
    async fn analyze(&mut self, table: &Table) -> Result<(), DbError> {
        self.batch(&format!("ANALYZE {}", QUOTE.name(table.name)))
            .await
    }

    async fn end_bulk_load(&mut self) -> Result<(), DbError> {
        self.batch("RESET synchronous_commit").await
    }
}
