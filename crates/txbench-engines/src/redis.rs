//! Redis (`redis://[user:password@]host:port[/db]`) for key-value workloads, on
//! the redis crate.
//!
//! A Redis session runs the statements that declare a key-value form
//! ([`Statement::kv`]); anything else is refused by name. A table is a key
//! prefix: the row with primary key `k` of table `t` is the string key `t:k`,
//! holding the row's value column.
//!
//! Transactions are optimistic, as Redis offers them: every key a transaction
//! reads is WATCHed (in the same round trip as its GET), its writes are kept in
//! the session (a later read of the same key sees them), and COMMIT sends
//! `MULTI; SET ...; EXEC` in one round trip. When a watched key changed since it
//! was read, EXEC answers nil: the transaction did not happen, and the session
//! reports a conflict, which the driver retries and counts like a serialization
//! failure. A read-only transaction is validated the same way (an empty
//! `MULTI; EXEC`), so its reads are one consistent snapshot too.

use std::time::Duration;

use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client, RedisError};
use txbench_core::schema::{Index, KvOp, Statement, Table};
use txbench_core::{
    DbError, Engine, ErrorKind, Loader, Param, RowBatch, Rows, Session, TxMode, Value,
};

use crate::redact::redact;
use crate::target_error::TargetError;

/// Keys per SCAN step and per MSET/UNLINK batch.
const BATCH: usize = 10_000;

/// How long a session waits for an answer (loads send large batches).
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long connecting may take before the database counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

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

    async fn open(&self) -> Result<MultiplexedConnection, DbError> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT));
        self.client
            .get_multiplexed_async_connection_with_config(&config)
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
    conn: MultiplexedConnection,
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
    writes: Vec<(String, String)>,
}

impl Engine for RedisEngine {
    type Session = RedisSession;
    const BLOCKING: bool = false;

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
fn classify(e: RedisError) -> DbError {
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

/// The Redis key of row `key` of `table`.
fn row_key(table: &str, key: &str) -> String {
    format!("{table}:{key}")
}

/// A parameter as the text Redis stores.
fn param_text(stmt: &Statement, params: &[Param<'_>], i: usize) -> Result<String, DbError> {
    match params.get(i) {
        Some(Param::Int(v)) => Ok(v.to_string()),
        Some(Param::Text(s)) => Ok((*s).to_string()),
        Some(Param::Float(v)) => Ok(v.to_string()),
        Some(Param::Timestamp(v)) => Ok(v.to_string()),
        Some(Param::Null) | None => Err(DbError::new(
            ErrorKind::Other,
            format!(
                "statement '{}': parameter {} is missing or NULL, which Redis cannot store",
                stmt.name,
                i + 1
            ),
        )),
    }
}

/// A loaded value as the text Redis stores.
fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Text(s) => s.clone(),
        Value::Timestamp(t) => t.to_string(),
    }
}

fn not_key_value(what: &str) -> DbError {
    DbError::new(
        ErrorKind::Other,
        format!("Redis runs key-value workloads only: {what} is not a key-value operation"),
    )
}

/// The marker key that says a table exists.
fn marker(table: &str) -> String {
    format!("txbench:table:{table}")
}

impl RedisSession {
    async fn get(&mut self, table: &str, key: String) -> Result<Option<String>, DbError> {
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
        if let Some((_, v)) = tx.writes.iter().rev().find(|(k, _)| *k == key) {
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

    async fn scan(&mut self, table: &str) -> Result<Vec<(String, String)>, DbError> {
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
    type Loader = Self;

    fn loader(&mut self) -> Option<&mut Self> {
        Some(self)
    }

    async fn server_version(&mut self) -> Result<String, DbError> {
        let info: String = redis::cmd("INFO")
            .arg("server")
            .query_async(&mut self.conn)
            .await
            .map_err(classify)?;
        let version = info
            .lines()
            .find_map(|l| l.strip_prefix("redis_version:"))
            .unwrap_or("unknown");
        Ok(format!("Redis {}", version.trim()))
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
        for (k, v) in &tx.writes {
            pipe.cmd("SET").arg(k).arg(v).ignore();
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
        match stmt.kv {
            Some(KvOp::Get { table, key }) => {
                let key = param_text(stmt, params, key)?;
                let mut rows = Rows::new(1);
                if let Some(v) = self.get(table, key).await? {
                    rows.push_row([Param::Text(&v)]);
                }
                Ok(rows)
            }
            Some(KvOp::Scan { table }) => {
                let mut rows = Rows::new(2);
                for (k, v) in self.scan(table).await? {
                    rows.push_row([Param::Text(&k), Param::Text(&v)]);
                }
                Ok(rows)
            }
            Some(KvOp::Put { .. }) | None => Err(not_key_value(&format!("query '{}'", stmt.name))),
        }
    }

    async fn execute(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<u64, DbError> {
        let Some(KvOp::Put { table, key, value }) = stmt.kv else {
            return Err(not_key_value(&format!("statement '{}'", stmt.name)));
        };
        let key = row_key(table, &param_text(stmt, params, key)?);
        let value = param_text(stmt, params, value)?;
        match self.tx.open {
            true => self.tx.writes.push((key, value)),
            false => redis::cmd("SET")
                .arg(key)
                .arg(value)
                .exec_async(&mut self.conn)
                .await
                .map_err(classify)?,
        }
        Ok(1)
    }

    async fn query_sql(&mut self, sql: &str) -> Result<Rows, DbError> {
        Err(not_key_value(&format!("SQL ('{sql}')")))
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
    /// A key-value table: the primary key is the first column, the value the
    /// second; nothing else fits in a Redis string key.
    async fn create_table(&mut self, table: &Table) -> Result<(), DbError> {
        let fits = table.columns.len() == 2
            && table.primary_key.len() == 1
            && table.primary_key[0] == table.columns[0].name;
        if !fits {
            return Err(DbError::new(
                ErrorKind::Other,
                format!(
                    "Redis holds key-value tables only (a one-column primary key and one value column); table '{}' has {} columns",
                    table.name,
                    table.columns.len()
                ),
            ));
        }
        redis::cmd("SET")
            .arg(marker(table.name))
            .arg("1")
            .exec_async(&mut self.conn)
            .await
            .map_err(classify)
    }

    async fn create_index(&mut self, index: &Index) -> Result<(), DbError> {
        Err(not_key_value(&format!("index '{}'", index.name)))
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
