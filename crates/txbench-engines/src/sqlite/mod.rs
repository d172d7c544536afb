//! Embedded SQLite (bundled in the binary), in memory or in a file.
//!
//! Dialect decisions, all here:
//! * `sqlite::memory:` uses SQLite's `memdb` VFS under a process-unique name, so the
//!   loader, the run's sessions and the checker share one in-memory database; the
//!   engine keeps one connection open so it lives as long as the engine.
//! * Write transactions start with `BEGIN IMMEDIATE`, so writers queue on the busy
//!   timeout instead of deadlocking on a lock upgrade; `SQLITE_BUSY`/`LOCKED` that
//!   still surface are conflicts the driver retries.
//! * `FOR UPDATE` is dropped: a write transaction already holds the write lock.
//! * Tables with a primary key are `WITHOUT ROWID` (clustered by key); money is
//!   `REAL`, timestamps are integer microseconds since the epoch.
//! * Bulk loads turn the journal and syncing off, then restore them (WAL for files).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::future::{Future, ready};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rusqlite::limits::Limit;
use rusqlite::types::{Null, ValueRef};
use rusqlite::{Connection, ErrorCode, OpenFlags};
use txbench_core::engine::CallKind;
use txbench_core::schema::{
    ColumnType, DeclaredColumn, Index, Quote, Statement, TABLE_MARK, Table,
};
use txbench_core::value::RowBatch;
use txbench_core::{
    Call, DbError, Engine, ErrorKind, Isolation, Loader, Param, Reply, Room, Rows, Session, TxMode,
    Value,
};

use crate::target_error::TargetError;

mod functions;
mod interrupt;

/// The page cache of an in-memory database's connections, in KiB (SQLite's
/// default). The pages live in the `memdb` VFS, which copies each page the
/// cache misses into it (it maps pages in place only for a database that
/// cannot grow, so memory-mapped I/O is left off here); a large cache still
/// only costs: at the end of a transaction whose B-tree balancing swapped
/// pages (through a temporary page number past the end of the database)
/// SQLite scans the cache's whole hash table, which at 256 MiB took more of
/// Delivery's time than its statements.
const MEMORY_CACHE_KIB: i64 = 2048;

/// Rows per multi-row INSERT statement during a bulk load, where the
/// statement's parameters stay within SQLite's limit ([`rows_per_insert`]).
const ROWS_PER_INSERT: usize = 64;

/// Settings of a SQLite target.
#[derive(Debug, Clone, PartialEq)]
pub struct SqliteConfig {
    /// The database file; `None` for an in-memory database.
    pub path: Option<PathBuf>,
    /// `journal_mode` while running (default WAL for files, MEMORY in memory).
    pub journal_mode: String,
    /// `synchronous` while running (default FULL, SQLite's own default).
    pub synchronous: String,
    /// Page cache size in KiB (default 262144, i.e. 256 MiB, for a file; 2048
    /// in memory).
    pub cache_kib: i64,
    /// Busy timeout in milliseconds (default 10000).
    pub busy_timeout_ms: u64,
}

impl SqliteConfig {
    /// Parse what follows `sqlite:` in a URL: `:memory:` or a path, then optional
    /// `?journal_mode=..&synchronous=..&cache_kib=..&busy_timeout_ms=..`.
    pub fn parse(rest: &str) -> Result<SqliteConfig, TargetError> {
        let rest = rest.strip_prefix("//").unwrap_or(rest);
        let (location, query) = match rest.split_once('?') {
            Some((l, q)) => (l, Some(q)),
            None => (rest, None),
        };
        let path = match location {
            ":memory:" => None,
            "" => {
                return Err(TargetError(
                    "invalid database URL 'sqlite:': give a file ('sqlite:tpcc.db') or 'sqlite::memory:'".into(),
                ));
            }
            p => Some(PathBuf::from(p)),
        };
        let mut cfg = SqliteConfig {
            journal_mode: if path.is_some() { "WAL" } else { "MEMORY" }.into(),
            cache_kib: if path.is_some() {
                262_144
            } else {
                MEMORY_CACHE_KIB
            },
            path,
            synchronous: "FULL".into(),
            busy_timeout_ms: 10_000,
        };
        for pair in query
            .into_iter()
            .flat_map(|q| q.split('&'))
            .filter(|p| !p.is_empty())
        {
            let (key, value) = pair.split_once('=').ok_or_else(|| {
                TargetError(format!(
                    "invalid SQLite option '{pair}': expected key=value"
                ))
            })?;
            let bad = || TargetError(format!("invalid value '{value}' for SQLite option '{key}'"));
            match key {
                "journal_mode" => {
                    let v = value.to_ascii_uppercase();
                    if !["DELETE", "TRUNCATE", "PERSIST", "MEMORY", "WAL", "OFF"]
                        .contains(&v.as_str())
                    {
                        return Err(bad());
                    }
                    cfg.journal_mode = v;
                }
                "synchronous" => {
                    let v = value.to_ascii_uppercase();
                    if !["OFF", "NORMAL", "FULL", "EXTRA"].contains(&v.as_str()) {
                        return Err(bad());
                    }
                    cfg.synchronous = v;
                }
                "cache_kib" => cfg.cache_kib = value.parse().map_err(|_| bad())?,
                "busy_timeout_ms" => cfg.busy_timeout_ms = value.parse().map_err(|_| bad())?,
                _ => {
                    return Err(TargetError(format!(
                        "unknown SQLite option '{key}' (known: journal_mode, synchronous, cache_kib, busy_timeout_ms)"
                    )));
                }
            }
        }
        Ok(cfg)
    }
}

/// The SQLite engine.
pub struct SqliteEngine {
    config: SqliteConfig,
    /// The URI every session opens.
    uri: String,
    /// Keeps an in-memory database alive between sessions.
    _keeper: Option<Mutex<Connection>>,
}

static MEMORY_DATABASES: AtomicUsize = AtomicUsize::new(0);

impl SqliteEngine {
    /// An engine for a configuration; opens the database to check it is usable.
    pub fn new(config: SqliteConfig) -> Result<SqliteEngine, DbError> {
        let uri = match &config.path {
            Some(p) => p.to_string_lossy().into_owned(),
            None => format!(
                "file:/txbench-{}-{}?vfs=memdb",
                std::process::id(),
                MEMORY_DATABASES.fetch_add(1, Ordering::Relaxed)
            ),
        };
        let (keeper, _) = open(&uri, &config).map_err(|mut e| {
            if let Some(why) = config.path.as_deref().and_then(explain_unwritable) {
                e.message = format!("{} ({why})", e.message);
            }
            e
        })?;
        let keeper = if config.path.is_none() {
            lift_memdb_cap(&keeper)?;
            Some(Mutex::new(keeper))
        } else {
            None
        };
        Ok(SqliteEngine {
            config,
            uri,
            _keeper: keeper,
        })
    }

    /// A plain rusqlite connection to the database, with the settings its
    /// sessions have (an in-memory database included): for tools that measure
    /// SQLite without txbench between (examples/sqlite_floor.rs).
    pub fn connection(&self) -> Result<Connection, DbError> {
        open(&self.uri, &self.config).map(|(conn, _)| conn)
    }
}

/// The most an in-memory database may grow to. `memdb` keeps a database in
/// one allocation, which SQLite never makes larger than 2^31 - 257 bytes
/// (`SQLITE_MAX_ALLOCATION_SIZE`): a larger one needs a file.
const MEMDB_MOST_BYTES: i64 = 2_000_000_000;

/// `memdb` caps a database at 1 GiB unless told otherwise
/// (`SQLITE_MEMDB_DEFAULT_MAXSIZE`), and a load past it fails as "database or
/// disk is full" (YCSB's 1M records of 1 KB): raise the cap of the database
/// every session of the engine shares to the most one allocation holds.
fn lift_memdb_cap(conn: &Connection) -> Result<(), DbError> {
    let mut most = MEMDB_MOST_BYTES;
    // SAFETY: the handle is the open connection's, alive for the call; the
    // file control takes a pointer to an sqlite3_int64 that outlives it.
    let rc = unsafe {
        rusqlite::ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            rusqlite::ffi::SQLITE_FCNTL_SIZE_LIMIT,
            (&raw mut most).cast(),
        )
    };
    if rc == rusqlite::ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(DbError::new(
            ErrorKind::Other,
            format!("cannot lift the in-memory database's size cap (SQLite error {rc})"),
        ))
    }
}

/// Open a connection with the target's settings, and the handle that stops
/// its work from another thread.
fn open(uri: &str, config: &SqliteConfig) -> Result<(Connection, Arc<interrupt::Stop>), DbError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(uri, flags).map_err(|e| {
        DbError::new(
            ErrorKind::Connection,
            format!("opening SQLite database '{uri}': {e}"),
        )
    })?;
    // SQLite opens a file it may not write read-only without a word; every
    // write would then fail with "attempt to write a readonly database".
    if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
        return Err(DbError::new(
            ErrorKind::Connection,
            format!("SQLite database '{uri}' can only be read: txbench needs to write it"),
        ));
    }
    conn.set_prepared_statement_cache_capacity(256);
    // Query planner stability: without it SQLite re-prepares statements whose plan
    // might depend on a bound value (ORDER BY .. LIMIT ?, ranges) on every bind, which
    // cost about 5% of the TPC-C mix here. A benchmark wants one plan per statement.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )
    .map_err(|e| map_err(e, "enable_qpsg"))?;
    functions::define(&conn)?;
    let stop = interrupt::install(
        &mut conn,
        std::time::Duration::from_millis(config.busy_timeout_ms),
    )?;
    // No memory-mapped I/O: a file is read through the page cache the user
    // sizes, and `memdb` serves no mapping to a database that can grow (every
    // page read would first ask it for one, under its mutex, in vain).
    conn.execute_batch(&format!(
        "PRAGMA cache_size = -{}; PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = OFF; \
         PRAGMA mmap_size = 0;",
        config.cache_kib,
    ))
    .map_err(|e| map_err(e, "pragmas"))?;
    // journal_mode answers with a row, so it is read rather than executed.
    let _: String = conn
        .query_row(
            &format!("PRAGMA journal_mode = {}", config.journal_mode),
            [],
            |r| r.get(0),
        )
        .map_err(|e| map_err(e, "journal_mode"))?;
    conn.execute_batch(&format!("PRAGMA synchronous = {};", config.synchronous))
        .map_err(|e| map_err(e, "synchronous"))?;
    Ok((conn, stop))
}

impl Engine for SqliteEngine {
    type Session = SqliteSession;
    const BLOCKING: bool = true;

    fn name(&self) -> &'static str {
        "sqlite"
    }

    fn describe(&self) -> String {
        match &self.config.path {
            Some(p) => format!("sqlite:{}", p.display()),
            None => "sqlite::memory:".into(),
        }
    }

    fn ephemeral(&self) -> bool {
        self.config.path.is_none()
    }

    fn connect(&self) -> impl Future<Output = Result<SqliteSession, DbError>> + Send {
        let config = Arc::new(self.config.clone());
        ready(
            open(&self.uri, &self.config)
                .map(|(conn, stop)| SqliteSession::new(conn, stop, config)),
        )
    }

    fn max_writers(&self) -> usize {
        1
    }
}

/// Prepared statements of one connection, found by key without hashing SQL
/// text (foldhash, not SipHash: the keys are the program's own, and the lookup
/// is on every statement's path).
struct Prepared<'conn> {
    slots: Vec<Slot<'conn>>,
    index: HashMap<StatementKey, usize, foldhash::fast::FixedState>,
}

/// A prepared statement and the room of its last result, which its next
/// result is given (a New-Order's ten items and their text then take one
/// allocation each, not a vector and a string grown by doubling).
struct Slot<'conn> {
    statement: rusqlite::Statement<'conn>,
    room_last_time: Room,
}

/// What a prepared statement was prepared from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum StatementKey {
    /// A workload statement, by its address (statements are `static`).
    Workload(usize),
    /// A multi-row INSERT into a table, by table and rows.
    Insert(&'static str, usize),
    /// One of the engine's own statements (BEGIN, COMMIT, ...).
    Own(&'static str),
}

self_cell::self_cell!(
    /// A connection with the statements prepared on it.
    struct ConnectionCell {
        owner: Connection,
        #[covariant]
        dependent: Prepared,
    }
);

// SAFETY: the cell owns the connection and every statement that borrows it; no
// reference to either leaves the cell, so moving the whole cell to another thread
// moves them together, which is what `Connection: Send` already allows (the
// connection is opened in multi-thread mode and used by one thread at a time).
unsafe impl Send for ConnectionCell {}

/// One SQLite connection.
pub struct SqliteSession {
    cell: ConnectionCell,
    in_transaction: bool,
    config: Arc<SqliteConfig>,
    stop: Arc<interrupt::Stop>,
}

impl SqliteSession {
    fn new(conn: Connection, stop: Arc<interrupt::Stop>, config: Arc<SqliteConfig>) -> Self {
        SqliteSession {
            stop,
            cell: ConnectionCell::new(conn, |_| Prepared {
                slots: Vec::new(),
                index: HashMap::default(),
            }),
            in_transaction: false,
            config,
        }
    }

    fn conn(&self) -> &Connection {
        self.cell.borrow_owner()
    }

    /// Run `f` on the statement prepared for `key` (preparing `sql` the first time).
    fn with_statement<R>(
        &mut self,
        key: StatementKey,
        sql: impl FnOnce() -> String,
        context: &str,
        f: impl FnOnce(&mut Slot<'_>) -> Result<R, DbError>,
    ) -> Result<R, DbError> {
        self.cell.with_dependent_mut(|conn, prepared| {
            let i = match prepared.index.get(&key) {
                Some(&i) => i,
                None => {
                    let statement = conn.prepare(&sql()).map_err(|e| map_err(e, context))?;
                    prepared.slots.push(Slot {
                        statement,
                        room_last_time: Room::default(),
                    });
                    prepared.index.insert(key, prepared.slots.len() - 1);
                    prepared.slots.len() - 1
                }
            };
            f(&mut prepared.slots[i])
        })
    }

    /// Execute one of the engine's own parameterless statements.
    fn own(&mut self, sql: &'static str) -> Result<(), DbError> {
        self.with_statement(
            StatementKey::Own(sql),
            || sql.to_string(),
            sql,
            |slot| {
                slot.statement
                    .raw_execute()
                    .map(|_| ())
                    .map_err(|e| map_err(e, sql))
            },
        )
    }
}

fn map_err(e: rusqlite::Error, context: &str) -> DbError {
    let code = e.sqlite_error_code();
    let kind = match code {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => ErrorKind::Conflict,
        Some(ErrorCode::ConstraintViolation) => ErrorKind::Constraint,
        Some(ErrorCode::CannotOpen | ErrorCode::NotADatabase) => ErrorKind::Connection,
        _ => ErrorKind::Other,
    };
    let error = match code.and_then(what_to_do) {
        Some(hint) => DbError::new(kind, format!("{context}: {e} ({hint})")),
        None => DbError::new(kind, format!("{context}: {e}")),
    };
    match code {
        Some(ErrorCode::DatabaseBusy) => error.with_code("SQLite busy"),
        Some(ErrorCode::DatabaseLocked) => error.with_code("SQLite locked"),
        Some(c) => error.with_code(format!("SQLite {c:?}")),
        None => error,
    }
}

/// What the user can do about an error SQLite leaves no way around.
fn what_to_do(code: ErrorCode) -> Option<&'static str> {
    match code {
        ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => Some(
            "the file is damaged or not a database, e.g. after a load interrupted by a full \
             disk (loads write without a journal): delete the file and load again",
        ),
        ErrorCode::DiskFull => Some("the disk is full: free space and try again"),
        ErrorCode::ReadOnly => Some(
            "the database can only be read: check the permissions of the file and its \
             directory, and whether its file system is mounted read-only",
        ),
        _ => None,
    }
}

/// Why SQLite may not be able to write `path` (read-only file, directory or
/// file system), or nothing when it looks writable.
fn explain_unwritable(path: &std::path::Path) -> Option<String> {
    use std::io::ErrorKind as Io;
    let why = |e: std::io::Error| match e.kind() {
        Io::ReadOnlyFilesystem => Some("its file system is mounted read-only"),
        Io::PermissionDenied => Some("this user may not write it"),
        _ => None,
    };
    if path.exists() {
        let file = std::fs::OpenOptions::new().write(true).open(path);
        if let Some(why) = file.err().and_then(why) {
            return Some(format!("'{}' is read-only: {why}", path.display()));
        }
    }
    // SQLite creates its journal and WAL files next to the database.
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let probe = dir.join(format!(".txbench-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            None
        }
        Err(e) => why(e).map(|why| {
            format!(
                "directory '{}' is read-only ({why}); SQLite writes its journal there",
                dir.display()
            )
        }),
    }
}

/// Bind `params` to `stmt` as the sessions do (a timestamp as its
/// microseconds); `name` says which statement in an error.
pub fn bind<'p>(
    stmt: &mut rusqlite::Statement<'_>,
    params: impl IntoIterator<Item = Param<'p>>,
    name: &str,
) -> Result<(), DbError> {
    for (i, p) in params.into_iter().enumerate() {
        let idx = i + 1;
        let r = match p {
            Param::Null => stmt.raw_bind_parameter(idx, Null),
            Param::Int(v) | Param::Timestamp(v) => stmt.raw_bind_parameter(idx, v),
            Param::Float(v) => stmt.raw_bind_parameter(idx, v),
            Param::Text(v) => stmt.raw_bind_parameter(idx, v),
        };
        r.map_err(|e| map_err(e, name))?;
    }
    Ok(())
}

/// How a transaction of `mode` begins: a writer takes the write lock at once,
/// so writers queue on the busy timeout instead of deadlocking on an upgrade.
pub fn begin_sql(mode: TxMode) -> &'static str {
    match mode {
        TxMode::ReadWrite => "BEGIN IMMEDIATE",
        // A deferred transaction reads one snapshot: SQLite is serializable.
        TxMode::ReadOnly | TxMode::Snapshot => "BEGIN",
    }
}

/// A column as read in place; text that is not UTF-8 (SQLite does not check
/// what it is given) is carried with its bad bytes replaced.
fn to_param<'a>(v: ValueRef<'a>, lossy: &'a mut String) -> Param<'a> {
    match v {
        ValueRef::Null => Param::Null,
        ValueRef::Integer(i) => Param::Int(i),
        ValueRef::Real(f) => Param::Float(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => Param::Text(match std::str::from_utf8(t) {
            Ok(text) => text,
            Err(_) => {
                *lossy = String::from_utf8_lossy(t).into_owned();
                lossy
            }
        }),
    }
}

/// Whether a table keeps its rows in its primary key's B-tree (WITHOUT
/// ROWID), which suits small rows. SQLite's guidance is to keep such rows
/// under a twentieth of a page: larger ones spill into overflow pages there
/// (YCSB's 1 KB records took a 4 KB page each). A wider table under one
/// integer key is a rowid table, the key its rowid, which holds large rows
/// in place.
fn without_rowid(table: &Table) -> bool {
    const PAGE: usize = 4096;
    let width: usize = table
        .columns
        .iter()
        .map(|c| match c.ty {
            ColumnType::Int => 4,
            ColumnType::BigInt | ColumnType::Timestamp | ColumnType::Decimal(..) => 8,
            ColumnType::Char(n) | ColumnType::Varchar(n) => usize::from(n),
            // Of any length: as wide as a page, for the choice of a rowid.
            ColumnType::Text => PAGE,
        })
        .sum();
    let integer_key = match table.primary_key {
        [key] => table
            .columns
            .iter()
            .any(|c| c.name == *key && matches!(c.ty, ColumnType::Int | ColumnType::BigInt)),
        _ => false,
    };
    let wide_under_integer_key = integer_key && width > PAGE / 20;
    !table.primary_key.is_empty() && !wide_under_integer_key
}

fn column_type(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::Int | ColumnType::BigInt | ColumnType::Timestamp => "INTEGER",
        ColumnType::Decimal(..) => "REAL",
        ColumnType::Char(_) | ColumnType::Varchar(_) | ColumnType::Text => "TEXT",
    }
}

/// The rows of a statement's result, given `room` to begin with.
fn collect_rows(
    st: &mut rusqlite::Statement<'_>,
    room: Room,
    context: &str,
) -> Result<Rows, DbError> {
    let columns = st.column_count();
    let mut out = Rows::with_room(columns, room);
    let mut lossy = String::new();
    let mut rows = st.raw_query();
    while let Some(row) = rows.next().map_err(|e| map_err(e, context))? {
        for i in 0..columns {
            let value = row.get_ref(i).map_err(|e| map_err(e, context))?;
            out.push(to_param(value, &mut lossy));
        }
    }
    Ok(out)
}

/// How SQLite's DDL and loads quote names: standard SQL's double quotes.
const QUOTE: Quote = Quote::Double;

/// Rows a multi-row INSERT of `columns` columns takes: [`ROWS_PER_INSERT`],
/// fewer where that many rows' values would pass the connection's limit on a
/// statement's parameters (32,766 by default: 64 rows of 512 columns do).
fn rows_per_insert(conn: &Connection, columns: usize) -> usize {
    let most = conn
        .limit(Limit::SQLITE_LIMIT_VARIABLE_NUMBER)
        .map_or(999, |n| n.max(1) as usize);
    (most / columns.max(1)).clamp(1, ROWS_PER_INSERT)
}

fn insert_sql(table: &Table, rows: usize) -> String {
    let cols = table.columns.len();
    let mut sql = format!("INSERT INTO {} VALUES ", QUOTE.name(table.name));
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ",(" });
        for c in 0..cols {
            sql.push_str(if c == 0 { "?" } else { ",?" });
        }
        sql.push(')');
    }
    sql
}

impl SqliteSession {
    fn batch(&mut self, sql: &str, context: &str) -> Result<(), DbError> {
        self.conn()
            .execute_batch(sql)
            .map_err(|e| map_err(e, context))
    }

    /// Run one workload statement: the path of `query`, `execute` and `pipeline`.
    fn call_now(&mut self, call: &Call<'_>) -> Result<Reply, DbError> {
        let stmt = call.stmt;
        let key = StatementKey::Workload(stmt as *const Statement as usize);
        self.with_statement(
            key,
            || stmt.sql.to_string(),
            stmt.name,
            |slot| {
                bind(&mut slot.statement, call.params.iter().copied(), stmt.name)?;
                match call.kind {
                    CallKind::Query => {
                        let rows =
                            collect_rows(&mut slot.statement, slot.room_last_time, stmt.name)?;
                        slot.room_last_time = rows.room();
                        Ok(Reply::Rows(rows))
                    }
                    CallKind::Execute => slot
                        .statement
                        .raw_execute()
                        .map(|n| Reply::Affected(n as u64))
                        .map_err(|e| map_err(e, stmt.name)),
                }
            },
        )
    }

    fn query_sql_now(&mut self, sql: &str) -> Result<Rows, DbError> {
        let mut st = self.conn().prepare(sql).map_err(|e| map_err(e, sql))?;
        collect_rows(&mut st, Room::default(), sql)
    }

    fn insert_now(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        let cols = table.columns.len();
        if batch.columns != cols {
            return Err(DbError::new(
                ErrorKind::Other,
                format!(
                    "batch for {} has {} columns, the table {}",
                    table.name, batch.columns, cols
                ),
            ));
        }
        let rows = rows_per_insert(self.conn(), cols);
        for chunk in batch.values.chunks(rows * cols) {
            let rows = chunk.len() / cols;
            let key = StatementKey::Insert(table.name, rows);
            self.with_statement(
                key,
                || insert_sql(table, rows),
                table.name,
                |slot| {
                    bind(
                        &mut slot.statement,
                        chunk.iter().map(Value::as_param),
                        table.name,
                    )?;
                    slot.statement
                        .raw_execute()
                        .map(|_| ())
                        .map_err(|e| map_err(e, table.name))
                },
            )?;
        }
        Ok(())
    }
}

impl Session for SqliteSession {
    async fn prepare(&mut self, stmt: &'static Statement) -> Result<Option<usize>, DbError> {
        let key = StatementKey::Workload(stmt as *const Statement as usize);
        self.with_statement(
            key,
            || stmt.sql.to_string(),
            stmt.name,
            |slot| Ok(Some(slot.statement.column_count())),
        )
    }

    type Loader = Self;

    type Whole = txbench_core::NoWholeTransactions;

    fn loader(&mut self) -> Option<&mut Self> {
        Some(self)
    }

    fn server_version(&mut self) -> impl Future<Output = Result<String, DbError>> + Send {
        ready(Ok(format!("SQLite {} (embedded)", rusqlite::version())))
    }

    fn interrupter(&self) -> Option<txbench_core::interrupt::Interrupter> {
        Some(Arc::clone(&self.stop) as txbench_core::interrupt::Interrupter)
    }

    fn begin(&mut self, mode: TxMode) -> impl Future<Output = Result<(), DbError>> + Send {
        let r = self.own(begin_sql(mode));
        self.in_transaction = r.is_ok();
        ready(r)
    }

    fn commit(&mut self) -> impl Future<Output = Result<(), DbError>> + Send {
        let r = self.own("COMMIT");
        // A busy COMMIT leaves the transaction open; the driver rolls it back.
        if r.is_ok() {
            self.in_transaction = false;
        }
        ready(r)
    }

    fn rollback(&mut self) -> impl Future<Output = Result<(), DbError>> + Send {
        let r = if self.in_transaction || !self.conn().is_autocommit() {
            self.in_transaction = false;
            self.own("ROLLBACK")
        } else {
            Ok(())
        };
        ready(r)
    }

    fn query(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<Rows, DbError>> + Send {
        ready(self.call_now(&Call::query(stmt, params)).map(|r| match r {
            Reply::Rows(rows) => rows,
            Reply::Affected(_) => Rows::empty(),
        }))
    }

    fn execute(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> impl Future<Output = Result<u64, DbError>> + Send {
        ready(
            self.call_now(&Call::execute(stmt, params))
                .map(|r| r.affected()),
        )
    }

    fn query_sql(&mut self, sql: &str) -> impl Future<Output = Result<Rows, DbError>> + Send {
        ready(self.query_sql_now(sql))
    }

    /// SQLite runs every transaction serializable (one writer at a time,
    /// readers on a snapshot).
    fn isolation_in_effect(
        &mut self,
    ) -> impl Future<Output = Result<Option<Isolation>, DbError>> + Send {
        ready(Ok(Some(Isolation::Serializable)))
    }
}

/// [`TABLE_MARK`] as the comment a table's CREATE text carries.
fn sqlite_mark() -> String {
    format!("/* {TABLE_MARK} */")
}

impl Loader for SqliteSession {
    fn create_table(&mut self, table: &Table) -> impl Future<Output = Result<(), DbError>> + Send {
        let mut sql = format!(
            "CREATE TABLE {} ({}",
            QUOTE.name(table.name),
            table.column_definitions(QUOTE, column_type)
        );
        if !table.primary_key.is_empty() {
            let _ = write!(sql, ", PRIMARY KEY ({})", table.primary_key_list(QUOTE));
        }
        // SQLite keeps a table's CREATE text as written, comments and all:
        // the mark a table made since by another tool lacks.
        let _ = write!(sql, " {})", sqlite_mark());
        if without_rowid(table) {
            sql.push_str(" WITHOUT ROWID");
        }
        ready(self.batch(&sql, table.name))
    }

    fn create_index(&mut self, index: &Index) -> impl Future<Output = Result<(), DbError>> + Send {
        let sql = index.create_sql(QUOTE);
        ready(self.batch(&sql, index.name))
    }

    fn drop_table(&mut self, name: &str) -> impl Future<Output = Result<(), DbError>> + Send {
        let sql = format!("DROP TABLE IF EXISTS {}", QUOTE.name(name));
        ready(self.batch(&sql, name))
    }

    fn table_exists(&mut self, name: &str) -> impl Future<Output = Result<bool, DbError>> + Send {
        let r = self
            .conn()
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [name],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| map_err(e, "table_exists"));
        ready(r)
    }

    fn marked(
        &mut self,
        table: &str,
    ) -> impl Future<Output = Result<Option<bool>, DbError>> + Send {
        let r = self
            .conn()
            .query_row(
                "SELECT count(*) FROM sqlite_master \
                 WHERE type = 'table' AND name = ?1 AND instr(sql, ?2) > 0",
                [table, &sqlite_mark()],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| Some(n > 0))
            .map_err(|e| map_err(e, "marked"));
        ready(r)
    }

    fn columns(
        &mut self,
        table: &str,
    ) -> impl Future<Output = Result<Option<Vec<DeclaredColumn>>, DbError>> + Send {
        let read = || -> rusqlite::Result<Vec<DeclaredColumn>> {
            let mut st = self.conn().prepare(
                "SELECT name, type, \"notnull\" AND dflt_value IS NULL \
                 AND NOT (pk = 1 AND upper(type) = 'INTEGER') FROM pragma_table_info(?1)",
            )?;
            let rows = st.query_map([table], |r| {
                Ok(DeclaredColumn {
                    name: r.get(0)?,
                    type_name: r.get(1)?,
                    required: r.get(2)?,
                })
            })?;
            rows.collect()
        };
        ready(read().map(Some).map_err(|e| map_err(e, "columns")))
    }

    fn insert_batch(
        &mut self,
        table: &Table,
        batch: &RowBatch,
    ) -> impl Future<Output = Result<(), DbError>> + Send {
        ready(self.insert_now(table, batch))
    }

    fn begin_bulk_load(&mut self) -> impl Future<Output = Result<(), DbError>> + Send {
        // Journal off: a load that fails is redone with --drop, so nothing is written twice.
        let r = self
            .conn()
            .query_row("PRAGMA journal_mode = OFF", [], |r| r.get::<_, String>(0))
            .map_err(|e| map_err(e, "journal_mode"))
            .and_then(|_| self.batch("PRAGMA synchronous = OFF", "synchronous"));
        ready(r)
    }

    fn end_bulk_load(&mut self) -> impl Future<Output = Result<(), DbError>> + Send {
        let journal = self.config.journal_mode.clone();
        let sync = self.config.synchronous.clone();
        let r = self
            .conn()
            .query_row(&format!("PRAGMA journal_mode = {journal}"), [], |r| {
                r.get::<_, String>(0)
            })
            .map_err(|e| map_err(e, "journal_mode"))
            .and_then(|_| self.batch(&format!("PRAGMA synchronous = {sync}"), "synchronous"));
        ready(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_rows_under_one_integer_key_live_in_a_rowid_table() {
        use txbench_core::schema::Column;
        static KEY: [Column; 2] = [
            Column::new("k", ColumnType::BigInt),
            Column::new("v", ColumnType::Varchar(100)),
        ];
        static WIDE: [Column; 3] = [
            Column::new("k", ColumnType::BigInt),
            Column::new("a", ColumnType::Varchar(100)),
            Column::new("b", ColumnType::Varchar(200)),
        ];
        let table = |columns: &'static [Column], primary_key: &'static [&'static str]| Table {
            name: "t",
            columns,
            primary_key,
        };
        assert!(without_rowid(&table(&KEY, &["k"])));
        assert!(!without_rowid(&table(&WIDE, &["k"])));
        assert!(without_rowid(&table(&WIDE, &["k", "a"])));
        assert!(without_rowid(&table(&WIDE, &["a"])));
        assert!(!without_rowid(&table(&KEY, &[])));
    }
    use txbench_core::schema::Column;

    static KV: Table = Table {
        name: "kv",
        columns: &[
            Column::new("k", ColumnType::Int),
            Column::nullable("v", ColumnType::Varchar(20)),
        ],
        primary_key: &["k"],
    };
    static GET: Statement = Statement::new("get", "SELECT v FROM kv WHERE k = ?");
    static PUT: Statement = Statement::new("put", "UPDATE kv SET v = ? WHERE k = ?");

    #[test]
    fn memory_database_is_shared_between_sessions() {
        let engine = SqliteEngine::new(SqliteConfig::parse(":memory:").unwrap()).unwrap();
        let mut a = pollster::block_on(engine.connect()).unwrap();
        let mut b = pollster::block_on(engine.connect()).unwrap();
        pollster::block_on(async {
            a.create_table(&KV).await.unwrap();
            let mut batch = RowBatch::with_capacity("kv", 2, 200);
            for k in 0..200 {
                batch.values.push(Value::Int(k));
                batch.values.push(if k % 2 == 0 {
                    Value::Text(format!("v{k}"))
                } else {
                    Value::Null
                });
            }
            a.insert_batch(&KV, &batch).await.unwrap();
            b.begin(TxMode::ReadWrite).await.unwrap();
            assert_eq!(
                b.execute(&PUT, &[Param::Text("x"), Param::Int(3)])
                    .await
                    .unwrap(),
                1
            );
            b.commit().await.unwrap();
            let rows = a.query(&GET, &[Param::Int(3)]).await.unwrap();
            assert_eq!(rows.row(0).unwrap().get(0).unwrap(), Param::Text("x"));
            let rows = a.query(&GET, &[Param::Int(4)]).await.unwrap();
            assert_eq!(rows.row(0).unwrap().get(0).unwrap(), Param::Text("v4"));
            let n = a.query_sql("SELECT count(*) FROM kv").await.unwrap();
            assert_eq!(n.row(0).unwrap().get(0).unwrap(), Param::Int(200));
        });
    }

    #[test]
    fn rollback_undoes_and_busy_is_a_conflict() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("{}?busy_timeout_ms=0", dir.path().join("t.db").display());
        let engine = SqliteEngine::new(SqliteConfig::parse(&url).unwrap()).unwrap();
        let mut a = pollster::block_on(engine.connect()).unwrap();
        let mut b = pollster::block_on(engine.connect()).unwrap();
        pollster::block_on(async {
            a.create_table(&KV).await.unwrap();
            a.begin(TxMode::ReadWrite).await.unwrap();
            static INS: Statement = Statement::new("ins", "INSERT INTO kv VALUES (1, 'a')");
            a.execute(&INS, &[]).await.unwrap();
            let e = b.begin(TxMode::ReadWrite).await.unwrap_err();
            assert_eq!(e.kind, ErrorKind::Conflict, "{e}");
            a.rollback().await.unwrap();
            let n = b.query_sql("SELECT count(*) FROM kv").await.unwrap();
            assert_eq!(n.row(0).unwrap().get(0).unwrap(), Param::Int(0));
        });
    }

    #[test]
    fn memory_writers_on_two_threads_wait_for_each_other() {
        let engine = SqliteEngine::new(SqliteConfig::parse(":memory:").unwrap()).unwrap();
        let mut a = pollster::block_on(engine.connect()).unwrap();
        let mut b = pollster::block_on(engine.connect()).unwrap();
        static INS: Statement = Statement::new("ins", "INSERT INTO kv VALUES (?, 'x')");
        pollster::block_on(a.create_table(&KV)).unwrap();
        pollster::block_on(a.begin(TxMode::ReadWrite)).unwrap();
        pollster::block_on(a.execute(&INS, &[Param::Int(1)])).unwrap();
        // b's writer waits (unlock notify) until a commits on the other thread.
        let waiter = std::thread::spawn(move || {
            pollster::block_on(async {
                b.begin(TxMode::ReadWrite).await.unwrap();
                b.execute(&INS, &[Param::Int(2)]).await.unwrap();
                b.commit().await.unwrap();
                b.query_sql("SELECT count(*) FROM kv").await.unwrap()
            })
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        pollster::block_on(a.commit()).unwrap();
        let n = waiter.join().unwrap();
        assert_eq!(n.row(0).unwrap().get(0).unwrap(), Param::Int(2));
    }

    #[test]
    fn bad_options_are_named() {
        let e = SqliteConfig::parse("t.db?synchronous=sometimes").unwrap_err();
        assert!(e.0.contains("sometimes"), "{e}");
        let e = SqliteConfig::parse("t.db?colour=red").unwrap_err();
        assert!(e.0.contains("colour"), "{e}");
    }
}
