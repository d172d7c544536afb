//! MySQL-wire databases (MySQL, MariaDB, Galera clusters, TiDB) over mysql_async.
//!
//! Dialect decisions, all here:
//! * the workloads' `?` placeholders are MySQL's own; `FOR UPDATE` is appended
//!   where asked; statements are prepared once per session (binary protocol),
//!   except on Galera, where every statement goes in the text protocol (a
//!   brute-force abort that lands in a prepare is lost: docs/durability.md);
//! * money is `DECIMAL(p, s)` (read back as text and parsed), timestamps are
//!   `DATETIME(6)`, bound as `'YYYY-MM-DD HH:MM:SS.ffffff'` in UTC;
//! * tables are created with their primary key (InnoDB clusters rows by it, and
//!   adding it later rebuilds the table) and loaded with `LOAD DATA LOCAL INFILE`
//!   from a stream (multi-row INSERTs of up to [`MAX_PLACEHOLDERS`] values where
//!   the server's `local_infile` is off), unique and foreign-key checks off;
//! * errors 1213 (deadlock; how Galera reports a certification failure) and 1205
//!   (lock wait timeout) are conflicts the driver retries; a broken connection
//!   (I/O errors, 2006/2013, Galera's 1047 "not ready") is a lost connection.
//!
//! URL: `mysql://user:password@host:port/database`, with mysql_async's options
//! (`?require_ssl=true&verify_ca=true`, ...).

mod errors;
mod kill;
mod load;
mod load_data;
mod types;
mod url;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row};
use txbench_core::engine::{CallKind, ServerClock, each_in_turn, pipeline_then_commit};
use txbench_core::schema::Statement;
use txbench_core::{
    Call, DbError, Engine, ErrorKind, Isolation, Param, Reply, RoundTrips, Rows, Session, TxMode,
};

use errors::{map_err, statement_head};
pub use load::MAX_PLACEHOLDERS;
use types::{isolation_sql, params, push_literal, rows_of};
pub use url::MyTarget;

/// The MySQL-wire engine: one server, or the nodes of a cluster, over which new
/// sessions are spread in turn (a node that does not answer is skipped).
pub struct MyEngine {
    shared: Arc<Shared>,
    round_trips: RoundTrips,
}

struct Shared {
    nodes: Vec<MyTarget>,
    isolation: Option<Isolation>,
    next: AtomicUsize,
    /// The server refused `LOAD DATA LOCAL` (its `local_infile` is off): loads
    /// fall back to multi-row INSERTs.
    local_infile_refused: AtomicBool,
}

impl MyEngine {
    /// An engine for the nodes of one database; `isolation` `None` keeps the
    /// server's default.
    pub fn new(nodes: Vec<MyTarget>, isolation: Option<Isolation>) -> Self {
        assert!(!nodes.is_empty(), "a MySQL engine needs a node");
        MyEngine {
            shared: Arc::new(Shared {
                nodes,
                isolation,
                next: AtomicUsize::new(0),
                local_infile_refused: AtomicBool::new(false),
            }),
            round_trips: RoundTrips::Pipelined,
        }
    }

    /// The engine with its sessions talking as `round_trips` says.
    pub fn with_round_trips(self, round_trips: RoundTrips) -> Self {
        MyEngine {
            round_trips,
            ..self
        }
    }
}

/// How often a session that lost its node and moved to another tries its own
/// node again, between transactions.
const HOME_RETRY: Duration = Duration::from_secs(5);
/// How long that try may take: it is paid by the transaction that makes it.
const HOME_CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

impl Shared {
    /// Connect to the next node in turn; on failure try the others, and report
    /// the last failure when none answers. Returns the node's index too.
    async fn connect(&self) -> Result<(usize, Conn), DbError> {
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let mut last = None;
        for k in 0..self.nodes.len() {
            let node = (start + k) % self.nodes.len();
            match connect(&self.nodes[node], CONNECT_TIMEOUT).await {
                Ok(conn) => return Ok((node, conn)),
                // Refused credentials will not work on another node either.
                Err(e) if e.kind != ErrorKind::Connection => return Err(e),
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("at least one node"))
    }
}

impl Engine for MyEngine {
    type Session = MySession;
    const BLOCKING: bool = false;

    fn name(&self) -> &'static str {
        "mysql"
    }

    fn describe(&self) -> String {
        let nodes: Vec<&str> = self
            .shared
            .nodes
            .iter()
            .map(|n| n.display.as_str())
            .collect();
        nodes.join(" ")
    }

    fn nodes(&self) -> usize {
        self.shared.nodes.len()
    }

    async fn connect_node(&self, node: usize) -> Result<MySession, DbError> {
        let node = node % self.shared.nodes.len();
        let target = &self.shared.nodes[node];
        self.session(node, connect(target, CONNECT_TIMEOUT).await?)
            .await
    }

    async fn connect(&self) -> Result<MySession, DbError> {
        let (node, conn) = self.shared.connect().await?;
        self.session(node, conn).await
    }

    async fn create_database(&self) -> Result<Option<String>, DbError> {
        let target = &self.shared.nodes[0];
        match connect(target, CONNECT_TIMEOUT).await {
            // ER_BAD_DB_ERROR: Unknown database.
            Err(e) if e.code.as_deref() == Some("MySQL 1049") => {}
            _ => return Ok(None),
        }
        let Some(name) = target.opts.db_name().map(str::to_string) else {
            return Ok(None);
        };
        let server = MyTarget {
            opts: mysql_async::OptsBuilder::from_opts(target.opts.clone())
                .db_name(None::<String>)
                .into(),
            display: target.display.clone(),
        };
        let mut conn = connect(&server, CONNECT_TIMEOUT).await?;
        let quoted = format!("`{}`", name.replace('`', "``"));
        conn.query_drop(format!("CREATE DATABASE IF NOT EXISTS {quoted}"))
            .await
            .map_err(|e| map_err(e, &format!("creating database {quoted}")))?;
        let _ = conn.disconnect().await;
        Ok(Some(name))
    }
}

impl MyEngine {
    async fn session(&self, node: usize, conn: Conn) -> Result<MySession, DbError> {
        let mut session = MySession {
            conn,
            home: node,
            node,
            home_retry_at: None,
            no_backslash_escapes: false,
            shared: Arc::clone(&self.shared),
            statements: HashMap::new(),
            in_transaction: false,
            sent: false,
            autocommit: false,
            configured: false,
            round_trips: self.round_trips,
            on_galera: false,
            current: Arc::default(),
        };
        session.configure().await?;
        Ok(session)
    }
}

/// How long a connection may take to be made.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

async fn connect(target: &MyTarget, timeout: Duration) -> Result<Conn, DbError> {
    match tokio::time::timeout(timeout, Conn::new(target.opts.clone())).await {
        Ok(Ok(conn)) => Ok(conn),
        Ok(Err(e)) => Err(map_err(e, &target.display)),
        Err(_) => Err(DbError::new(
            ErrorKind::Connection,
            format!(
                "{}: no answer within {} s",
                target.display,
                timeout.as_secs()
            ),
        )),
    }
}

/// One MySQL connection with its prepared statements.
pub struct MySession {
    conn: Conn,
    /// The node the session was opened on, which it goes back to after a
    /// failover once that node answers again.
    home: usize,
    /// The node it is connected to now.
    node: usize,
    /// Away from home: when to try it again.
    home_retry_at: Option<Instant>,
    shared: Arc<Shared>,
    /// The server's sql_mode has NO_BACKSLASH_ESCAPES (literals quote differently).
    no_backslash_escapes: bool,
    /// Prepared statements by the address of their (static) definition.
    statements: HashMap<usize, mysql_async::Statement>,
    /// Between `begin` and `commit`/`rollback`.
    in_transaction: bool,
    /// A statement went to the server since the last COMMIT or ROLLBACK, so the
    /// server has a transaction open (autocommit is off) that one must end.
    /// Outside `begin`..`commit` (metadata, what is loaded) each call ends it
    /// with [`MySession::end_implicit`].
    sent: bool,
    /// The connection runs with autocommit on, for a workload's statements
    /// outside any transaction (an autocommit transaction: sysbench's point
    /// select, pgbench's select-only), so that each commits on its own with
    /// no COMMIT after it; `begin` turns it off again.
    autocommit: bool,
    /// [`MySession::configure`] succeeded on this connection. A connection
    /// that is not configured has autocommit on: a transaction on it would
    /// commit statement by statement, so none starts until it is.
    configured: bool,
    /// Multi-statement batches, or one prepared statement per round trip
    /// (START TRANSACTION included).
    round_trips: RoundTrips,
    /// Whether the server is a Galera node (`wsrep_on`). There, every
    /// statement goes in the text protocol, none prepared: a brute-force
    /// abort (another node's write set taking a lock this transaction holds)
    /// that lands while the node prepares a statement is lost by MariaDB
    /// 10.11: the prepare answers OK, the transaction is gone, and the next
    /// statement starts a new one that COMMIT then commits (a Payment's
    /// customer and history without its warehouse and district; order lines
    /// without their order). examples/galera_prepare_abort.rs reproduces it
    /// without txbench; docs/durability.md has the evidence. A transaction's
    /// last batch does not carry its COMMIT there either (splits were first
    /// blamed on the batches; the prepare was the cause), so that a COMMIT is
    /// only sent once every statement before it has answered.
    on_galera: bool,
    /// The connection's node and id, shared with the session's interrupt
    /// handle.
    current: Arc<std::sync::Mutex<kill::Current>>,
}

impl MySession {
    /// Tell the interrupt handle which connection is the session's now.
    fn note_current(&self) {
        *self.current.lock().expect("current connection lock") = kill::Current {
            node: self.node,
            id: self.conn.id(),
        };
    }

    /// Session settings: the isolation level asked for, UTC for DATETIME text.
    ///
    /// Autocommit is off for the session's life: a transaction starts with its
    /// first statement, so BEGIN costs no round trip and COMMIT is one statement.
    /// It also keeps a batch whole: if a server went on with the rest of a
    /// multi-statement batch after aborting the transaction (seen on a Galera
    /// cluster while autocommit was on: orders committed without some of their
    /// lines), those statements open a new transaction that the driver's
    /// ROLLBACK discards instead of committing one by one.
    async fn configure(&mut self) -> Result<(), DbError> {
        self.configured = false;
        self.note_current();
        let mode: Option<String> = self
            .conn
            .query_first("SELECT @@SESSION.sql_mode")
            .await
            .map_err(|e| map_err(e, "sql_mode"))?;
        self.no_backslash_escapes = mode.is_some_and(|m| m.contains("NO_BACKSLASH_ESCAPES"));
        let wsrep: Option<(String, String)> = self
            .conn
            .query_first("SHOW VARIABLES LIKE 'wsrep_on'")
            .await
            .map_err(|e| map_err(e, "wsrep_on"))?;
        self.on_galera = wsrep.is_some_and(|(_, on)| on.eq_ignore_ascii_case("ON"));
        self.run("SET time_zone = '+00:00', autocommit = 0").await?;
        self.autocommit = false;
        // SET TRANSACTION is a statement of its own: neither MariaDB nor
        // MySQL takes it as one more assignment of a SET list.
        if let Some(i) = self.shared.isolation {
            let sql = format!(
                "SET SESSION TRANSACTION ISOLATION LEVEL {}",
                isolation_sql(i)
            );
            self.run(&sql).await?;
        }
        self.configured = true;
        Ok(())
    }

    /// A statement with its parameters written in as SQL literals, appended
    /// to `out`, for a multi-statement pipeline.
    fn push_inline(&self, out: &mut String, call: &Call<'_>) -> Result<(), DbError> {
        let mut params = call.params.iter();
        let mut quoted = false;
        for ch in call.stmt.sql.chars() {
            match ch {
                '\'' => {
                    quoted = !quoted;
                    out.push(ch);
                }
                '?' if !quoted => {
                    let p = params.next().ok_or_else(|| {
                        DbError::new(
                            ErrorKind::Other,
                            format!("{}: too few parameters", call.stmt.name),
                        )
                    })?;
                    push_literal(out, p, self.no_backslash_escapes);
                }
                _ => out.push(ch),
            }
        }
        if call.stmt.for_update {
            out.push_str(" FOR UPDATE");
        }
        Ok(())
    }

    /// On a Galera node, make the snapshot wait until the node has applied
    /// everything the cluster committed before it (`wsrep_sync_wait`): a
    /// check run on one node just after a run elsewhere would otherwise read
    /// some transactions' writes and not yet others' and report violations
    /// that are not there. Servers without Galera's variable (MySQL) have
    /// nothing to wait for.
    async fn causal_reads(&mut self) -> Result<(), DbError> {
        const UNKNOWN_SYSTEM_VARIABLE: u16 = 1193;
        match self
            .conn
            .query_drop("SET SESSION wsrep_sync_wait = 1")
            .await
        {
            Err(mysql_async::Error::Server(e)) if e.code == UNKNOWN_SYSTEM_VARIABLE => Ok(()),
            other => other.map_err(|e| map_err(e, "SET SESSION wsrep_sync_wait = 1")),
        }
    }

    /// A session that moved to another node when its own was lost goes back,
    /// between transactions, once its node answers again (tried every
    /// [`HOME_RETRY`], for at most [`HOME_CONNECT_TIMEOUT`]), so that a node
    /// that rejoins a cluster takes its share of the load again.
    async fn go_home_when_due(&mut self) -> Result<(), DbError> {
        match self.home_retry_at {
            Some(at) if Instant::now() >= at && !self.sent => {}
            _ => return Ok(()),
        }
        self.home_retry_at = Some(Instant::now() + HOME_RETRY);
        let Ok(conn) = connect(&self.shared.nodes[self.home], HOME_CONNECT_TIMEOUT).await else {
            return Ok(());
        };
        // A node that takes connections may not take statements yet (a Galera
        // node still joining answers "WSREP has not yet prepared node"): the
        // session moves only once its settings are in place there, and
        // otherwise stays where it is, configured.
        let away = std::mem::replace(&mut self.conn, conn);
        let away_node = std::mem::replace(&mut self.node, self.home);
        let prepared = std::mem::take(&mut self.statements);
        let was_configured = self.configured;
        if self.configure().await.is_ok() {
            self.home_retry_at = None;
            return Ok(());
        }
        self.conn = away;
        self.node = away_node;
        self.note_current();
        self.statements = prepared;
        self.configured = was_configured;
        Ok(())
    }

    /// `calls` (and a COMMIT after them if `commit`) as one multi-statement
    /// text query; the replies of the calls.
    async fn multi_statement(
        &mut self,
        calls: &[Call<'_>],
        commit: bool,
    ) -> Result<Vec<Reply>, DbError> {
        let guess: usize = calls
            .iter()
            .map(|c| c.stmt.sql.len() + 16 * c.params.len())
            .sum();
        let mut sql = String::with_capacity(guess + 8);
        for c in calls {
            if !sql.is_empty() {
                sql.push_str(";\n");
            }
            self.push_inline(&mut sql, c)?;
        }
        if commit {
            sql.push_str(";\nCOMMIT");
        }
        let name = calls.first().map_or("pipeline", |c| c.stmt.name);
        self.sent = true;
        let mut result = self
            .conn
            .query_iter(sql)
            .await
            .map_err(|e| map_err(e, name))?;
        let mut replies = Vec::with_capacity(calls.len());
        for c in calls {
            match c.kind {
                CallKind::Execute => {
                    // The set's OK packet is read: its count is current until the
                    // set is consumed.
                    let n = result.affected_rows();
                    let _: Vec<Row> = result
                        .collect()
                        .await
                        .map_err(|e| map_err(e, c.stmt.name))?;
                    replies.push(Reply::Affected(n));
                }
                CallKind::Query => {
                    let columns = result.columns_ref().len();
                    let rows: Vec<Row> = result
                        .collect()
                        .await
                        .map_err(|e| map_err(e, c.stmt.name))?;
                    replies.push(Reply::Rows(rows_of(rows, columns)?));
                }
            }
        }
        if commit {
            result
                .drop_result()
                .await
                .map_err(|e| map_err(e, "COMMIT"))?;
        }
        Ok(replies)
    }

    /// One statement in the text protocol, its parameters written in as
    /// literals: how statements go to a Galera node (see `on_galera`).
    async fn text_call(&mut self, call: Call<'_>) -> Result<Reply, DbError> {
        let mut replies = self.multi_statement(&[call], false).await?;
        self.end_implicit().await?;
        Ok(replies.pop().expect("one reply per call"))
    }

    async fn run(&mut self, sql: &str) -> Result<(), DbError> {
        self.conn
            .query_drop(sql)
            .await
            .map_err(|e| map_err(e, statement_head(sql)))
    }

    /// Commit the implicit transaction a statement outside `begin`..`commit`
    /// opened (the session runs with autocommit off), so that no idle session
    /// holds locks or an old snapshot.
    async fn end_implicit(&mut self) -> Result<(), DbError> {
        if self.in_transaction {
            return Ok(());
        }
        self.sent = false;
        if self.autocommit {
            // Each statement committed itself.
            return Ok(());
        }
        self.run("COMMIT").await
    }

    /// Outside any transaction, turn autocommit on (once, until the next
    /// `begin`): a workload's statements there commit each on its own, as
    /// sysbench's and pgbench's single statements do, with no COMMIT sent.
    async fn autocommit_outside_transactions(&mut self) -> Result<(), DbError> {
        if self.in_transaction || self.autocommit || !self.configured {
            return Ok(());
        }
        // Turning autocommit on commits what a statement before left open.
        self.run("SET autocommit = 1").await?;
        self.sent = false;
        self.autocommit = true;
        Ok(())
    }

    async fn prepared(
        &mut self,
        stmt: &'static Statement,
    ) -> Result<mysql_async::Statement, DbError> {
        let key = stmt as *const Statement as usize;
        if let Some(st) = self.statements.get(&key) {
            return Ok(st.clone());
        }
        let sql = if stmt.for_update {
            format!("{} FOR UPDATE", stmt.sql)
        } else {
            stmt.sql.to_string()
        };
        let st = self
            .conn
            .prep(sql)
            .await
            .map_err(|e| map_err(e, stmt.name))?;
        self.statements.insert(key, st.clone());
        Ok(st)
    }
}

impl Session for MySession {
    async fn prepare(&mut self, stmt: &'static Statement) -> Result<Option<usize>, DbError> {
        self.prepared(stmt).await.map(|st| Some(st.columns().len()))
    }

    type Loader = Self;

    type Whole = txbench_core::NoWholeTransactions;

    fn loader(&mut self) -> Option<&mut Self> {
        Some(self)
    }

    async fn begin(&mut self, mode: TxMode) -> Result<(), DbError> {
        self.go_home_when_due().await?;
        if !self.configured {
            // Its reconnection found a node that did not take the settings.
            self.configure().await?;
        }
        // Read-write and read-only transactions start with their first statement
        // (autocommit is off; InnoDB treats a transaction as read-only until it
        // writes). A consistency check needs its snapshot taken now.
        if self.autocommit {
            self.run("SET autocommit = 0").await?;
            self.autocommit = false;
        }
        if mode == TxMode::Snapshot {
            self.causal_reads().await?;
            self.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                .await?;
            self.run("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")
                .await?;
            self.sent = true;
        } else if self.round_trips == RoundTrips::Statement {
            // As go-tpc's driver does: a transaction begins with a statement
            // of its own.
            self.run("START TRANSACTION").await?;
            self.sent = true;
        }
        self.in_transaction = true;
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        self.in_transaction = false;
        if !std::mem::take(&mut self.sent) {
            // Nothing was sent: an empty transaction.
            return Ok(());
        }
        self.run("COMMIT").await
    }

    async fn rollback(&mut self) -> Result<(), DbError> {
        if !self.in_transaction {
            return Ok(());
        }
        self.in_transaction = false;
        self.sent = false;
        // Sent even when no statement succeeded: after an error the server may
        // hold a transaction that a later statement of a batch opened.
        self.run("ROLLBACK").await
    }

    async fn query(&mut self, stmt: &'static Statement, ps: &[Param<'_>]) -> Result<Rows, DbError> {
        self.autocommit_outside_transactions().await?;
        if self.on_galera {
            return match self.text_call(Call::query(stmt, ps)).await? {
                Reply::Rows(rows) => Ok(rows),
                Reply::Affected(_) => Ok(Rows::default()),
            };
        }
        let st = self.prepared(stmt).await?;
        let columns = st.columns().len();
        self.sent = true;
        let rows: Vec<Row> = self
            .conn
            .exec(&st, params(ps))
            .await
            .map_err(|e| map_err(e, stmt.name))?;
        self.end_implicit().await?;
        rows_of(rows, columns)
    }

    async fn execute(
        &mut self,
        stmt: &'static Statement,
        ps: &[Param<'_>],
    ) -> Result<u64, DbError> {
        self.autocommit_outside_transactions().await?;
        if self.on_galera {
            return Ok(self.text_call(Call::execute(stmt, ps)).await?.affected());
        }
        let st = self.prepared(stmt).await?;
        self.sent = true;
        self.conn
            .exec_drop(&st, params(ps))
            .await
            .map_err(|e| map_err(e, stmt.name))?;
        let affected = self.conn.affected_rows();
        self.end_implicit().await?;
        Ok(affected)
    }

    /// Independent statements in one round trip: the classic protocol cannot
    /// pipeline prepared statements, so they go as one multi-statement query with
    /// their parameters written in as literals, and the replies come back as
    /// consecutive result sets. A single statement stays prepared.
    async fn pipeline(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        // Nothing to send, or one statement: it stays prepared (an empty
        // multi-statement query is an error, "Query was empty").
        if calls.len() <= 1 || self.round_trips == RoundTrips::Statement {
            return each_in_turn(self, calls).await;
        }
        self.autocommit_outside_transactions().await?;
        let replies = self.multi_statement(calls, false).await?;
        self.end_implicit().await?;
        Ok(replies)
    }

    /// The statements and the COMMIT in one multi-statement query. The server
    /// stops at the first statement that fails, so a COMMIT after a failure is
    /// never executed (except on Galera: see `on_galera`).
    async fn pipeline_and_commit(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        if self.round_trips == RoundTrips::Statement
            || calls.is_empty()
            || !self.in_transaction
            || self.on_galera
        {
            return pipeline_then_commit(self, calls).await;
        }
        let replies = self.multi_statement(calls, true).await?;
        self.in_transaction = false;
        self.sent = false;
        Ok(replies)
    }

    fn commit_travels_with_statements(&self) -> bool {
        self.round_trips == RoundTrips::Pipelined && self.in_transaction && !self.on_galera
    }

    async fn query_sql(&mut self, sql: &str) -> Result<Rows, DbError> {
        self.sent = true;
        let mut result = self
            .conn
            .query_iter(sql)
            .await
            .map_err(|e| map_err(e, sql))?;
        let columns = result.columns().map_or(0, |c| c.len());
        let rows: Vec<Row> = result.collect().await.map_err(|e| map_err(e, sql))?;
        drop(result);
        self.end_implicit().await?;
        rows_of(rows, columns)
    }

    async fn isolation_in_effect(&mut self) -> Result<Option<Isolation>, DbError> {
        if let Some(asked) = self.shared.isolation {
            return Ok(Some(asked));
        }
        // MariaDB names it tx_isolation; MySQL 8 only transaction_isolation.
        let mut level: Option<String> = None;
        for sql in ["SELECT @@tx_isolation", "SELECT @@transaction_isolation"] {
            if let Ok(found) = self.conn.query_first(sql).await {
                level = found;
                break;
            }
        }
        self.end_implicit().await?;
        Ok(level.as_deref().and_then(Isolation::from_database))
    }

    async fn server_clock(&mut self) -> Result<Option<ServerClock>, DbError> {
        // SYSDATE(6), not NOW(6): the time of the call, not of the statement's
        // start; the implicit transaction's end after, outside the round trip.
        let sql = "SELECT CAST(UNIX_TIMESTAMP(SYSDATE(6)) * 1000000 AS SIGNED)";
        self.sent = true;
        let conn = &mut self.conn;
        let read = ServerClock::read(async {
            conn.query_first::<i64, _>(sql)
                .await
                .map_err(|e| map_err(e, sql))
        })
        .await?;
        self.end_implicit().await?;
        Ok(read)
    }

    fn interrupter(&self) -> Option<txbench_core::interrupt::Interrupter> {
        Some(Arc::new(kill::MyInterrupt {
            shared: Arc::clone(&self.shared),
            current: Arc::clone(&self.current),
        }))
    }

    async fn reconnect(&mut self) -> Result<(), DbError> {
        // Any node that answers: a client fails over rather than wait for its node
        // (with affinity the session then serves its terminals from another node).
        (self.node, self.conn) = self.shared.connect().await?;
        self.home_retry_at = (self.node != self.home).then(|| Instant::now() + HOME_RETRY);
        self.statements.clear();
        self.in_transaction = false;
        self.sent = false;
        self.configure().await
    }
}

#[cfg(test)]
mod tests {
    use super::errors::*;
    use super::types::*;
    use super::*;
    use mysql_async::consts::ColumnType as MyType;

    #[test]
    fn datetimes_round_trip_through_text_and_fields() {
        let us = 1_795_385_965_138_449;
        let text = datetime_text(us);
        assert_eq!(text, "2026-11-22 22:19:25.138449");
        assert_eq!(datetime_micros(2026, 11, 22, 22, 19, 25, 138_449), Some(us));
        let bytes = mysql_async::Value::Bytes(text.into_bytes());
        let v = value_of(&bytes, MyType::MYSQL_TYPE_DATETIME);
        assert_eq!(v.unwrap(), Param::Timestamp(us));
    }

    #[test]
    fn literals_are_written_as_mysql_common_writes_them() {
        let params = [
            Param::Null,
            Param::Int(-42),
            Param::Float(0.1),
            Param::Float(1234.5),
            Param::Timestamp(1_795_385_965_138_449),
            Param::Text("it's a \\ test"),
        ];
        for p in &params {
            for no_backslash in [false, true] {
                let mut ours = String::from("x");
                push_literal(&mut ours, p, no_backslash);
                assert_eq!(ours[1..], my_value(p).as_sql(no_backslash), "{p:?}");
            }
        }
    }

    #[test]
    fn text_protocol_values_follow_the_column_type() {
        let b = |s: &str| mysql_async::Value::Bytes(s.as_bytes().to_vec());
        let (int, decimal, text) = (b("42"), b("3.25"), b("ORIGINAL"));
        assert_eq!(
            value_of(&int, MyType::MYSQL_TYPE_LONG).unwrap(),
            Param::Int(42)
        );
        assert_eq!(
            value_of(&decimal, MyType::MYSQL_TYPE_NEWDECIMAL).unwrap(),
            Param::Float(3.25)
        );
        assert_eq!(
            value_of(&text, MyType::MYSQL_TYPE_VAR_STRING).unwrap(),
            Param::Text("ORIGINAL")
        );
        assert!(value_of(&b("x"), MyType::MYSQL_TYPE_LONG).is_err());
    }

    #[test]
    fn classifies_conflicts_and_lost_connections() {
        assert_eq!(server_error_kind(1213), ErrorKind::Conflict);
        assert_eq!(server_error_kind(1205), ErrorKind::Conflict);
        assert_eq!(server_error_kind(1047), ErrorKind::Connection);
        assert_eq!(server_error_kind(1062), ErrorKind::Constraint);
        // Refused credentials are not worth reconnecting for.
        assert_eq!(server_error_kind(1045), ErrorKind::Other);
    }

    #[test]
    fn urls_need_a_database_and_hide_passwords() {
        let e = MyTarget::parse("mysql://root:secret@127.0.0.1:3306").unwrap_err();
        assert!(
            e.0.contains("names no database") && !e.0.contains("secret"),
            "{e}"
        );
        let t = MyTarget::parse("mysql://root:secret@127.0.0.1:3306/tpcc").unwrap();
        assert_eq!(t.display, "mysql://root:***@127.0.0.1:3306/tpcc");
    }

    #[test]
    fn session_variables_become_set_statements_and_the_rest_goes_to_the_driver() {
        let t = MyTarget::parse(
            "mysql://root@h/tpcc?session_variables=innodb_lock_wait_timeout=1,sql_mode=ANSI\
             &stmt_cache_size=8",
        )
        .unwrap();
        assert_eq!(
            t.opts.init(),
            [
                "SET SESSION innodb_lock_wait_timeout = 1",
                "SET SESSION sql_mode = ANSI"
            ]
        );
        for bad in ["x", "a=1;DROP TABLE t", "=1", "a="] {
            let e =
                MyTarget::parse(&format!("mysql://root@h/t?session_variables={bad}")).unwrap_err();
            assert!(e.0.contains(&format!("'{bad}'")), "{e}");
        }
    }
}
