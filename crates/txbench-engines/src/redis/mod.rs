//! Redis (`redis://[user:password@]host:port[/db]`) for key-value workloads, on
//! the redis crate's commands and parser, each session over a connection of
//! its own (the `connection` module: no hand-off to a shared connection's
//! task on every request).
//!
//! A Redis session runs the statements that declare a key-value form
//! ([`Statement::kv`]); anything else is refused by name. A table is a key
//! prefix: the row with primary key `k` of table `t` is the key `t:k`. A
//! table of a key and one value holds the value as a string; a wider one (a
//! workload whose every statement has a key-value form: YCSB) holds a hash of
//! all the row's columns, key included, and its integer keys in a sorted set
//! (`txbench:keys:t`) that range reads walk in key order.
//!
//! Transactions are optimistic, as Redis offers them: every key a transaction
//! reads is WATCHed (in the same round trip as its GET), its writes are kept in
//! the session (a later read of the same key sees them), and COMMIT sends
//! `MULTI; SET ...; EXEC` in one round trip. When a watched key changed since it
//! was read, EXEC answers nil: the transaction did not happen, and the session
//! reports a conflict, which the driver retries and counts like a serialization
//! failure. A read-only transaction is validated the same way (an empty
//! `MULTI; EXEC`), so its reads are one consistent snapshot too.
//!
//! Outside a transaction (a statement that commits on its own, as YCSB's
//! single-record operations do), an operation on a wide table is one command
//! that Redis runs whole: a read one HMGET, a write one script that checks
//! the row is there (an update's) or is not (an insert's) and writes it, a
//! range read one script that finds the keys and reads their rows; so one
//! round trip each, and no other client's command comes between the check
//! and the write.

use std::time::Duration;

use redis::{Client, RedisError};
use txbench_core::schema::{Index, Schema, Statement, Table};
use txbench_core::{DbError, Engine, ErrorKind, Loader, Param, RowBatch, Rows, Session, TxMode};

use crate::kv_dispatch::{self, KvResult, KvRow, KvStore};
use crate::kv_store::{self, marker, row_key, value_text, whole_rows};
use crate::redact::redact;
use crate::target_error::TargetError;

mod connection;
mod hmget;
use connection::Connection;
use hmget::HmgetRow;

/// The engine's name in its refusals.
const ENGINE: &str = "Redis";

/// One row's write outside a transaction, which Redis runs whole: KEYS[1]
/// the row's hash, KEYS[2] its table's key order; ARGV[1] `insert` or
/// `update`, ARGV[2] an inserted integer key's score (empty otherwise),
/// then the columns and values. An update of no row writes nothing (0), an
/// insert of a row already there nothing either (-1); otherwise the fields
/// are set, an insert's key added to the order, and 1 returned.
static WRITE_ROW: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| {
    redis::Script::new(
        r"
local exists = redis.call('EXISTS', KEYS[1]) == 1
if ARGV[1] == 'insert' then
  if exists then return -1 end
elseif not exists then
  return 0
end
if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end
if ARGV[1] == 'insert' and ARGV[2] ~= '' then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[2]) end
return 1
",
    )
});

/// A scan outside a transaction, which Redis runs whole: KEYS[1] the
/// table's key order; ARGV[1] the first key, ARGV[2] the most rows, ARGV[3]
/// the rows' key prefix, then the key column and the columns read. Each
/// row's values in order (the key column's nil where the row is gone). The
/// rows' keys are made in the script, which a single server allows (a
/// cluster runs workloads in their script form, `redis_cluster.rs`).
static SCAN_ROWS: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| {
    redis::Script::new(
        r"
local keys = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf', 'LIMIT', 0, ARGV[2])
local rows = {}
for i, k in ipairs(keys) do
  rows[i] = redis.call('HMGET', ARGV[3] .. k, unpack(ARGV, 4))
end
return rows
",
    )
});

/// Keys per SCAN step and per MSET/UNLINK batch.
const BATCH: usize = 10_000;

/// How long a session waits for an answer (loads send large batches).
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long connecting may take before the database counts as unreachable.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A Redis server to connect to.
#[derive(Clone, PartialEq, Eq)]
pub struct RedisTarget {
    url: String,
    display: String,
}

debug_shows_display!(RedisTarget);

impl RedisTarget {
    /// Parse a `redis://` URL (the redis crate's syntax: user, password,
    /// host, port, database number).
    pub fn parse(url: &str) -> Result<RedisTarget, TargetError> {
        let display = redact(url);
        redis::Client::open(url)
            .map_err(|e| TargetError(format!("invalid Redis URL '{display}': {e}")))?;
        Ok(RedisTarget {
            url: url.to_string(),
            display,
        })
    }
}

/// The Redis engine.
#[derive(Clone)]
pub struct RedisEngine {
    client: Client,
    display: String,
}

debug_shows_display!(RedisEngine);

impl RedisEngine {
    /// An engine for a parsed target.
    pub fn new(target: RedisTarget) -> Result<RedisEngine, DbError> {
        let client = Client::open(target.url.as_str())
            .map_err(|e| DbError::new(ErrorKind::Other, format!("{}: {e}", target.display)))?;
        Ok(RedisEngine {
            client,
            display: target.display,
        })
    }

    async fn open(&self) -> Result<Connection, DbError> {
        let info = self.client.get_connection_info();
        Connection::open(info, CONNECT_TIMEOUT, RESPONSE_TIMEOUT)
            .await
            .map_err(|e| {
                let mut err = classify(e);
                err.message = format!("connecting to {}: {}", self.display, err.message);
                err
            })
    }
}

/// A session: its own connection (WATCH belongs to a connection) and the
/// transaction in progress.
pub struct RedisSession {
    engine: RedisEngine,
    conn: Connection,
    tx: Transaction,
}

/// What the transaction in progress has done so far; kept between
/// transactions so its write buffer is allocated once per session.
#[derive(Debug, Default)]
struct Transaction {
    /// Whether a transaction is in progress.
    open: bool,
    /// Keys read (and so WATCHed).
    watched: bool,
    /// Writes to send at commit, in order.
    writes: Vec<Write>,
}

/// A write kept for the commit.
#[derive(Debug)]
enum Write {
    /// A string key's new value.
    Set(String, String),
    /// Fields of a row's hash.
    Hash(String, Vec<(&'static str, String)>),
    /// An integer key added to a table's key order.
    Index(String, i64),
}

impl Write {
    /// The key it writes.
    fn key(&self) -> &str {
        match self {
            Write::Set(k, _) | Write::Hash(k, _) | Write::Index(k, _) => k,
        }
    }

    fn add_to(&self, pipe: &mut redis::Pipeline) {
        match self {
            Write::Set(k, v) => pipe.cmd("SET").arg(k).arg(v).ignore(),
            Write::Hash(k, fields) => {
                let cmd = pipe.cmd("HSET").arg(k);
                for (f, v) in fields {
                    cmd.arg(*f).arg(v);
                }
                cmd.ignore()
            }
            Write::Index(k, key) => pipe.cmd("ZADD").arg(k).arg(*key).arg(*key).ignore(),
        };
    }
}

impl Engine for RedisEngine {
    fn key_value_only(&self) -> bool {
        true
    }

    type Session = RedisSession;
    const BLOCKING: bool = false;

    fn can_hold(&self, schema: &Schema) -> Result<(), DbError> {
        kv_store::can_hold(ENGINE, schema)
    }

    fn name(&self) -> &'static str {
        "redis"
    }

    fn describe(&self) -> String {
        self.display.clone()
    }

    async fn connect(&self) -> Result<RedisSession, DbError> {
        Ok(RedisSession {
            conn: self.open().await?,
            engine: self.clone(),
            tx: Transaction::default(),
        })
    }
}

/// Map a redis error into txbench's classification. A server that is
/// restarting (LOADING), has lost its primary (MASTERDOWN) or asks to try
/// again is unavailable, like a dropped connection: the driver reconnects
/// and retries rather than counting a failed transaction of another kind.
pub(crate) fn classify(e: RedisError) -> DbError {
    if matches!(e.retry_method(), redis::RetryMethod::MovedRedirect) {
        // A node of a Redis Cluster sends a key it does not serve elsewhere.
        return DbError::new(
            ErrorKind::Other,
            format!(
                "the server is a node of a Redis Cluster ({e}): give its address as \
                 redis-cluster://HOST:PORT"
            ),
        );
    }
    let kind = if e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
        || matches!(e.retry_method(), redis::RetryMethod::WaitAndRetry)
    {
        ErrorKind::Connection
    } else {
        ErrorKind::Other
    };
    DbError::new(kind, e.to_string())
}

/// The version in the text of `INFO server`.
pub(crate) fn version_in_info(info: &str) -> &str {
    info.lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .map_or("unknown", str::trim)
}

/// The sorted set of a hashed table's integer keys, each scored by itself.
fn key_order(table: &str) -> String {
    format!("txbench:keys:{table}")
}

/// `row` (its key, then `columns`) as the transaction's write `w` of it left it.
fn own_write(table: &Table, columns: &[&str], w: &Write, row: &mut [Option<String>]) {
    let pk = table.primary_key[0];
    let mut put = |column: &str, v: &str| {
        if column == pk {
            row[0] = Some(v.to_string());
        }
        for (c, cell) in columns.iter().zip(row.iter_mut().skip(1)) {
            if *c == column {
                *cell = Some(v.to_string());
            }
        }
    };
    match w {
        Write::Set(k, v) => {
            let key = k.split_once(':').map_or("", |(_, key)| key);
            put(pk, key);
            put(table.columns[1].name, v);
        }
        Write::Hash(_, fields) => fields.iter().for_each(|(c, v)| put(c, v)),
        Write::Index(..) => {}
    }
}

impl RedisSession {
    /// Rows of a hashed table: a hash of every column per row, and the
    /// integer keys in the table's key order, in one round trip.
    async fn insert_hashes(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        let pk = table
            .columns
            .iter()
            .position(|c| c.name == table.primary_key[0])
            .ok_or_else(|| kv_store::not_key_value_table(ENGINE, table))?;
        let mut pipe = redis::pipe();
        let mut order = redis::cmd("ZADD");
        order.arg(key_order(table.name));
        let mut ordered = false;
        for row in batch.rows() {
            let key = row.get(pk).map(value_text).unwrap_or_default();
            let cmd = pipe.cmd("HSET").arg(row_key(table.name, &key));
            for (c, v) in table.columns.iter().zip(row) {
                cmd.arg(c.name).arg(value_text(v));
            }
            cmd.ignore();
            if let Ok(k) = key.parse::<i64>() {
                order.arg(k).arg(k);
                ordered = true;
            }
        }
        if ordered {
            pipe.add_command(order).ignore();
        }
        pipe.exec_async(&mut self.conn).await.map_err(classify)
    }

    /// The value of `key` in a key-and-value table (the transaction's own
    /// writes seen), WATCHed when in a transaction.
    async fn read_value(&mut self, table: &str, key: String) -> Result<Option<String>, DbError> {
        let key = row_key(table, &key);
        let tx = &mut self.tx;
        if !tx.open {
            return redis::cmd("GET")
                .arg(&key)
                .query_async(&mut self.conn)
                .await
                .map_err(classify);
        }
        // Read your own writes: the latest buffered write of the key wins.
        let buffered = tx.writes.iter().rev().find_map(|w| match w {
            Write::Set(k, v) if *k == key => Some(v),
            _ => None,
        });
        if let Some(v) = buffered {
            return Ok(Some(v.clone()));
        }
        tx.watched = true;
        let (value,): (Option<String>,) = redis::pipe()
            .cmd("WATCH")
            .arg(&key)
            .ignore()
            .cmd("GET")
            .arg(&key)
            .query_async(&mut self.conn)
            .await
            .map_err(classify)?;
        Ok(value)
    }

    /// The rows of `keys` that exist, each as `columns` in order (the
    /// transaction's own writes seen), WATCHed when in a transaction.
    async fn read_rows(
        &mut self,
        table: &'static Table,
        keys: &[String],
        columns: &[&str],
    ) -> Result<Vec<Vec<Option<String>>>, DbError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let pk = table.primary_key[0];
        let row_keys: Vec<String> = keys.iter().map(|k| row_key(table.name, k)).collect();
        let mut pipe = redis::pipe();
        if self.tx.open {
            self.tx.watched = true;
            pipe.cmd("WATCH").arg(&row_keys).ignore();
        }
        // Each row as its key (None when absent), then `columns`.
        let mut rows: Vec<Vec<Option<String>>> = if whole_rows(table) {
            for rk in &row_keys {
                pipe.cmd("HMGET").arg(rk).arg(pk).arg(columns);
            }
            pipe.query_async(&mut self.conn).await.map_err(classify)?
        } else {
            for rk in &row_keys {
                pipe.cmd("GET").arg(rk);
            }
            let values: Vec<Option<String>> =
                pipe.query_async(&mut self.conn).await.map_err(classify)?;
            let value_column = table.columns[1].name;
            keys.iter()
                .zip(values)
                .map(|(k, v)| {
                    let present = v.is_some().then(|| k.clone());
                    let cells = columns.iter().map(|c| match *c {
                        c if c == pk => present.clone(),
                        c if c == value_column => v.clone(),
                        _ => None,
                    });
                    std::iter::once(present.clone()).chain(cells).collect()
                })
                .collect()
        };
        for (rk, row) in row_keys.iter().zip(&mut rows) {
            for w in self.tx.writes.iter().filter(|w| w.key() == rk) {
                own_write(table, columns, w, row);
            }
        }
        Ok(rows
            .into_iter()
            .filter(|r| r[0].is_some())
            .map(|mut r| r.split_off(1))
            .collect())
    }

    /// Row `key` of a table of whole rows outside a transaction, as a
    /// result of `columns` (no row or one): one HMGET, no pipeline (nothing
    /// is WATCHed and no write of the session's own can be pending), its
    /// answer read straight into the result.
    async fn read_alone(
        &mut self,
        table: &'static Table,
        key: &str,
        columns: &[&str],
    ) -> Result<Rows, DbError> {
        let pk = table.primary_key[0];
        let mut cmd = redis::cmd("HMGET");
        cmd.arg(row_key(table.name, key));
        // A row always holds its key's field: it tells a row that exists
        // from one that does not, so it is asked for when not among `columns`.
        let key_at = columns.iter().position(|c| *c == pk);
        if key_at.is_none() {
            cmd.arg(pk);
        }
        cmd.arg(columns);
        let shape = HmgetRow::new(key_at, columns.len());
        let answer = self
            .conn
            .answer(&cmd, |frame, bytes| shape.rows(frame, bytes));
        answer.await.map_err(classify)
    }

    /// Up to `count` keys of `table` from `from` on, in key order.
    async fn range_keys(
        &mut self,
        table: &'static Table,
        from: i64,
        count: i64,
    ) -> Result<Vec<String>, DbError> {
        if !whole_rows(table) {
            return Err(kv_store::no_key_order(ENGINE, table));
        }
        if count <= 0 {
            return Ok(Vec::new());
        }
        redis::cmd("ZRANGEBYSCORE")
            .arg(key_order(table.name))
            .arg(from)
            .arg("+inf")
            .arg("LIMIT")
            .arg(0)
            .arg(count)
            .query_async(&mut self.conn)
            .await
            .map_err(classify)
    }

    /// The writes that set `values` in row `key` of `table`, or None when
    /// an update finds no row; an insert that finds one is refused.
    async fn row_writes(
        &mut self,
        table: &'static Table,
        key: String,
        mut values: Vec<(&'static str, String)>,
        insert: bool,
    ) -> Result<Option<Vec<Write>>, DbError> {
        let pk = table.primary_key[0];
        let rk = row_key(table.name, &key);
        let written = self.tx.writes.iter().any(|w| match w {
            Write::Set(k, _) => *k == rk,
            Write::Hash(k, fields) => *k == rk && fields.iter().any(|(c, _)| *c == pk),
            Write::Index(..) => false,
        });
        let exists = written || {
            let mut pipe = redis::pipe();
            if self.tx.open {
                self.tx.watched = true;
                pipe.cmd("WATCH").arg(&rk).ignore();
            }
            pipe.cmd("EXISTS").arg(&rk);
            let (n,): (i64,) = pipe.query_async(&mut self.conn).await.map_err(classify)?;
            n > 0
        };
        match (insert, exists) {
            (false, false) => return Ok(None),
            (true, true) => {
                return Err(kv_store::duplicate_key(table, &key));
            }
            _ => {}
        }
        if !whole_rows(table) {
            let value_column = table.columns[1].name;
            let value = values.into_iter().find(|(c, _)| *c == value_column);
            return Ok(Some(match (value, insert) {
                (Some((_, v)), _) => vec![Write::Set(rk, v)],
                (None, true) => vec![Write::Set(rk, String::new())],
                (None, false) => Vec::new(),
            }));
        }
        let mut writes = Vec::with_capacity(2);
        if insert {
            values.insert(0, (pk, key.clone()));
            if let Ok(k) = key.parse::<i64>() {
                writes.push(Write::Index(key_order(table.name), k));
            }
        }
        writes.insert(0, Write::Hash(rk, values));
        Ok(Some(writes))
    }

    /// Outside a transaction, one row's write as one command that Redis
    /// runs atomically ([`WRITE_ROW`]): the check that the row is there (an
    /// update's) or is not (an insert's) and the write in one round trip,
    /// where a check then a write would be two and another client's write
    /// could come between them. 1 row written, or 0 for an update of none.
    async fn write_at_once(
        &mut self,
        table: &'static Table,
        key: String,
        values: Vec<(&'static str, String)>,
        insert: bool,
    ) -> Result<u64, DbError> {
        let pk = table.primary_key[0];
        let mut call = WRITE_ROW.prepare_invoke();
        call.key(row_key(table.name, &key))
            .key(key_order(table.name))
            .arg(if insert { "insert" } else { "update" })
            .arg(match (insert, key.parse::<i64>()) {
                (true, Ok(k)) => k.to_string(),
                _ => String::new(),
            });
        if insert {
            call.arg(pk).arg(&key);
        }
        for (column, value) in &values {
            call.arg(*column).arg(value);
        }
        let written: i64 = call.invoke_async(&mut self.conn).await.map_err(classify)?;
        match written {
            -1 => Err(kv_store::duplicate_key(table, &key)),
            n => Ok(n as u64),
        }
    }

    /// Outside a transaction, a scan as one command ([`SCAN_ROWS`]): up to
    /// `count` rows from key `from` on, each as `columns`, read in the one
    /// round trip that finds their keys.
    async fn scan_at_once(
        &mut self,
        table: &'static Table,
        from: i64,
        count: i64,
        columns: &[&str],
    ) -> Result<Vec<KvRow>, DbError> {
        let mut call = SCAN_ROWS.prepare_invoke();
        call.key(key_order(table.name))
            .arg(from)
            .arg(count)
            .arg(row_key(table.name, ""))
            .arg(table.primary_key[0])
            .arg(columns);
        let rows: Vec<Vec<Option<String>>> =
            call.invoke_async(&mut self.conn).await.map_err(classify)?;
        // A key in the order whose row is gone is no row.
        Ok(rows
            .into_iter()
            .filter(|r| r.first().is_some_and(Option::is_some))
            .map(|mut r| r.split_off(1))
            .collect())
    }

    /// Send `writes`: kept for EXEC in a transaction, at once outside one.
    async fn apply(&mut self, writes: Vec<Write>) -> Result<(), DbError> {
        if self.tx.open {
            self.tx.writes.extend(writes);
            return Ok(());
        }
        let mut pipe = redis::pipe();
        for w in &writes {
            w.add_to(&mut pipe);
        }
        pipe.exec_async(&mut self.conn).await.map_err(classify)
    }

    /// Every key and value of a key-and-value table.
    async fn read_all(&mut self, table: &str) -> Result<Vec<(String, String)>, DbError> {
        let prefix = row_key(table, "");
        let mut keys: Vec<String> = Vec::new();
        let mut cursor: u64 = 0;
        loop {
            let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(format!("{prefix}*"))
                .arg("COUNT")
                .arg(BATCH)
                .query_async(&mut self.conn)
                .await
                .map_err(classify)?;
            keys.extend(batch);
            if next == 0 {
                break;
            }
            cursor = next;
        }
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let values: Vec<Option<String>> = redis::cmd("MGET")
            .arg(&keys)
            .query_async(&mut self.conn)
            .await
            .map_err(classify)?;
        Ok(keys
            .into_iter()
            .zip(values)
            .filter_map(|(k, v)| Some((k[prefix.len()..].to_string(), v?)))
            .collect())
    }
}

impl Session for RedisSession {
    /// Nothing to prepare: a statement runs when it has a key-value form.
    async fn prepare(&mut self, stmt: &'static Statement) -> Result<Option<usize>, DbError> {
        kv_store::prepare(ENGINE, stmt).map(|()| None)
    }

    type Loader = Self;

    type Whole = txbench_core::NoWholeTransactions;

    fn loader(&mut self) -> Option<&mut Self> {
        Some(self)
    }

    async fn server_version(&mut self) -> Result<String, DbError> {
        let info: String = redis::cmd("INFO")
            .arg("server")
            .query_async(&mut self.conn)
            .await
            .map_err(classify)?;
        Ok(format!("Redis {}", version_in_info(&info)))
    }

    async fn server_clock(&mut self) -> Result<Option<txbench_core::engine::ServerClock>, DbError> {
        let conn = &mut self.conn;
        txbench_core::engine::ServerClock::read(async {
            // TIME: seconds and microseconds, as two strings.
            let (secs, micros): (i64, i64) = redis::cmd("TIME")
                .query_async(conn)
                .await
                .map_err(classify)?;
            Ok(Some(secs * 1_000_000 + micros))
        })
        .await
    }

    async fn begin(&mut self, _mode: TxMode) -> Result<(), DbError> {
        let tx = &mut self.tx;
        tx.open = true;
        tx.watched = false;
        tx.writes.clear();
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        let tx = &mut self.tx;
        if !std::mem::take(&mut tx.open) || (!tx.watched && tx.writes.is_empty()) {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        for w in &tx.writes {
            w.add_to(&mut pipe);
        }
        // EXEC answers nil when a watched key changed: nothing was applied.
        let applied: Option<()> = pipe.query_async(&mut self.conn).await.map_err(classify)?;
        match applied {
            Some(()) => Ok(()),
            None => Err(DbError::new(
                ErrorKind::Conflict,
                "EXEC aborted: a key the transaction read changed before it committed",
            )),
        }
    }

    async fn rollback(&mut self) -> Result<(), DbError> {
        if std::mem::take(&mut self.tx.open) && self.tx.watched {
            redis::cmd("UNWATCH")
                .exec_async(&mut self.conn)
                .await
                .map_err(classify)?;
        }
        Ok(())
    }

    async fn query(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<Rows, DbError> {
        kv_dispatch::query(self, stmt, params).await
    }

    async fn execute(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<u64, DbError> {
        kv_dispatch::execute(self, stmt, params).await
    }

    async fn query_sql(&mut self, sql: &str) -> Result<Rows, DbError> {
        Err(kv_store::not_key_value(ENGINE, &format!("SQL ('{sql}')")))
    }

    async fn reconnect(&mut self) -> Result<(), DbError> {
        let mut conn = self.engine.open().await?;
        // A restarting server takes connections while it loads its data and
        // answers LOADING to every command: only a PONG means it serves again.
        redis::cmd("PING")
            .exec_async(&mut conn)
            .await
            .map_err(classify)?;
        self.conn = conn;
        self.tx.open = false;
        Ok(())
    }
}

impl Loader for RedisSession {
    /// A table under a one-column primary key: its marker key (its rows are
    /// written as they come).
    async fn create_table(&mut self, table: &Table) -> Result<(), DbError> {
        if table.primary_key.len() != 1 {
            return Err(kv_store::not_key_value_table(ENGINE, table));
        }
        redis::cmd("SET")
            .arg(marker(table.name))
            .arg("1")
            .exec_async(&mut self.conn)
            .await
            .map_err(classify)
    }

    async fn create_index(&mut self, index: &Index) -> Result<(), DbError> {
        Err(kv_store::not_key_value(
            ENGINE,
            &format!("index '{}'", index.name),
        ))
    }

    async fn drop_table(&mut self, name: &str) -> Result<(), DbError> {
        let pattern = format!("{}*", row_key(name, ""));
        let mut cursor: u64 = 0;
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(BATCH)
                .query_async(&mut self.conn)
                .await
                .map_err(classify)?;
            if !keys.is_empty() {
                redis::cmd("UNLINK")
                    .arg(&keys)
                    .exec_async(&mut self.conn)
                    .await
                    .map_err(classify)?;
            }
            if next == 0 {
                break;
            }
            cursor = next;
        }
        redis::cmd("DEL")
            .arg(marker(name))
            .arg(key_order(name))
            .exec_async(&mut self.conn)
            .await
            .map_err(classify)
    }

    async fn table_exists(&mut self, name: &str) -> Result<bool, DbError> {
        redis::cmd("EXISTS")
            .arg(marker(name))
            .query_async(&mut self.conn)
            .await
            .map_err(classify)
    }

    async fn insert_batch(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        if whole_rows(table) {
            return self.insert_hashes(table, batch).await;
        }
        let mut cmd = redis::cmd("MSET");
        let mut any = false;
        for row in batch.rows() {
            let (Some(k), Some(v)) = (row.first(), row.get(1)) else {
                return Err(DbError::new(
                    ErrorKind::Other,
                    format!("table '{}': a row without a key and a value", table.name),
                ));
            };
            cmd.arg(row_key(table.name, &value_text(k)))
                .arg(value_text(v));
            any = true;
        }
        if !any {
            return Ok(());
        }
        cmd.exec_async(&mut self.conn).await.map_err(classify)
    }

    async fn begin_bulk_load(&mut self) -> Result<(), DbError> {
        Ok(())
    }

    async fn end_bulk_load(&mut self) -> Result<(), DbError> {
        Ok(())
    }
}

/// Redis holds every key-value operation but scripts: a key-and-value table
/// as strings, a table of whole rows as hashes with a sorted set of its keys.
impl KvStore for RedisSession {
    fn refusal(&self, what: &str) -> DbError {
        kv_store::not_key_value(ENGINE, what)
    }

    async fn get(&mut self, table: &'static str, key: String) -> KvResult<Option<String>> {
        Ok(self.read_value(table, key).await?)
    }

    async fn scan(&mut self, table: &'static str) -> KvResult<Vec<(String, String)>> {
        Ok(self.read_all(table).await?)
    }

    async fn read(
        &mut self,
        table: &'static Table,
        key: String,
        columns: &'static [&'static str],
    ) -> KvResult<Option<KvRow>> {
        Ok(self.read_rows(table, &[key], columns).await?.pop())
    }

    async fn read_result(
        &mut self,
        table: &'static Table,
        key: String,
        columns: &'static [&'static str],
    ) -> KvResult<Rows> {
        if !self.tx.open && whole_rows(table) {
            return Ok(self.read_alone(table, &key, columns).await?);
        }
        let row = self.read(table, key, columns).await?;
        Ok(kv_dispatch::rows_of(columns.len(), row.as_slice()))
    }

    async fn range(
        &mut self,
        table: &'static Table,
        from: i64,
        count: i64,
        columns: &'static [&'static str],
    ) -> KvResult<Vec<KvRow>> {
        if !self.tx.open && whole_rows(table) && count > 0 {
            return Ok(self.scan_at_once(table, from, count, columns).await?);
        }
        let keys = self.range_keys(table, from, count).await?;
        Ok(self.read_rows(table, &keys, columns).await?)
    }

    async fn ping(&mut self) -> KvResult<()> {
        let cmd = redis::cmd("PING");
        let _pong: String = cmd.query_async(&mut self.conn).await.map_err(classify)?;
        Ok(())
    }

    async fn last(&mut self, table: &'static Table) -> KvResult<Option<i64>> {
        if !whole_rows(table) {
            return Err(kv_store::no_key_order(ENGINE, table).into());
        }
        let last: Vec<(String, f64)> = redis::cmd("ZREVRANGE")
            .arg(key_order(table.name))
            .arg(0)
            .arg(0)
            .arg("WITHSCORES")
            .query_async(&mut self.conn)
            .await
            .map_err(classify)?;
        Ok(last.first().map(|(_, score)| *score as i64))
    }

    async fn put(&mut self, table: &'static str, key: String, value: String) -> KvResult<()> {
        Ok(self
            .apply(vec![Write::Set(row_key(table, &key), value)])
            .await?)
    }

    async fn write(
        &mut self,
        table: &'static Table,
        key: String,
        values: Vec<(&'static str, String)>,
        insert: bool,
    ) -> KvResult<u64> {
        if !self.tx.open && whole_rows(table) {
            return Ok(self.write_at_once(table, key, values, insert).await?);
        }
        let Some(writes) = self.row_writes(table, key, values, insert).await? else {
            return Ok(0);
        };
        self.apply(writes).await?;
        Ok(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restarting_server_is_unavailable_not_another_error() {
        use redis::{ErrorKind as Redis, ServerErrorKind};
        for kind in [ServerErrorKind::BusyLoading, ServerErrorKind::MasterDown] {
            let e = RedisError::from((Redis::Server(kind), "the server is not ready"));
            assert_eq!(classify(e).kind, ErrorKind::Connection, "{kind:?}");
        }
        let e = RedisError::from((Redis::Server(ServerErrorKind::ReadOnly), "read only"));
        assert_eq!(classify(e).kind, ErrorKind::Other);
    }

    #[test]
    fn parses_urls_and_names_bad_ones_without_secrets() {
        assert!(RedisTarget::parse("redis://127.0.0.1:6379/0").is_ok());
        let e = RedisTarget::parse("redis://app:secret@[bad/0").unwrap_err();
        assert!(!e.0.contains("secret"), "{e}");
        assert!(e.0.contains("Redis URL"), "{e}");
    }

    #[test]
    fn rows_live_under_table_prefixed_keys() {
        assert_eq!(row_key("retwis_kv", "42"), "retwis_kv:42");
        assert_eq!(marker("retwis_kv"), "txbench:table:retwis_kv");
    }
}
