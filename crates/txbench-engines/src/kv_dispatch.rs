//! The one place a statement's key-value form ([`KvOp`]) becomes an operation
//! of a key-value store: Redis, Redis Cluster and etcd implement [`KvStore`]
//! (the operations they hold), and their sessions' `query` and `execute` are
//! [`query`] and [`execute`]. What a store does not hold it leaves to the
//! trait's defaults, which refuse; the refusal names the statement, in the
//! store's own words ([`KvStore::refusal`]).

use std::future::{Future, ready};

use txbench_core::schema::{KvOp, Statement, Table};
use txbench_core::{CallKind, DbError, Param, Reply, Room, Rows};

use crate::kv_store::{param_int, param_text};

/// A row read from a store: the columns asked for, in order (NULL where a
/// row has no value for one).
pub(crate) type KvRow = Vec<Option<String>>;

/// Why a store's operation gave no answer.
#[derive(Debug)]
pub(crate) enum KvFailure {
    /// The store holds no such operation: the statement is refused.
    Refused,
    /// The store failed it.
    Db(DbError),
}

impl From<DbError> for KvFailure {
    fn from(e: DbError) -> Self {
        KvFailure::Db(e)
    }
}

/// What a store's operation answers.
pub(crate) type KvResult<T> = Result<T, KvFailure>;

/// A refusal, ready: what the defaults answer.
fn refused<T: Send>() -> impl Future<Output = KvResult<T>> + Send {
    ready(Err(KvFailure::Refused))
}

/// The operations of a key-value store, each taking its parameters as the
/// text (or integers) the store keeps. Reads inside a transaction see its
/// own writes; how a store makes a transaction is its own.
pub(crate) trait KvStore: Send {
    /// Why the store cannot run `what` (`query 'x'`, `statement 'x'`).
    fn refusal(&self, what: &str) -> DbError;

    /// The value of `key` in a key-and-value table.
    fn get(
        &mut self,
        _table: &'static str,
        _key: String,
    ) -> impl Future<Output = KvResult<Option<String>>> + Send {
        refused()
    }

    /// Every key and value of a key-and-value table.
    fn scan(
        &mut self,
        _table: &'static str,
    ) -> impl Future<Output = KvResult<Vec<(String, String)>>> + Send {
        refused()
    }

    /// Row `key` of `table` as `columns`, if it exists.
    fn read(
        &mut self,
        _table: &'static Table,
        _key: String,
        _columns: &'static [&'static str],
    ) -> impl Future<Output = KvResult<Option<KvRow>>> + Send {
        refused()
    }

    /// Row `key` of `table` as a result of `columns` (no row or one): by
    /// default [`KvStore::read`]'s row; a store that can read it straight
    /// into the result does.
    fn read_result(
        &mut self,
        table: &'static Table,
        key: String,
        columns: &'static [&'static str],
    ) -> impl Future<Output = KvResult<Rows>> + Send {
        async move {
            let row = self.read(table, key, columns).await?;
            Ok(rows_of(columns.len(), row.as_slice()))
        }
    }

    /// Up to `count` rows of `table` from key `from` on, in key order, as
    /// `columns`.
    fn range(
        &mut self,
        _table: &'static Table,
        _from: i64,
        _count: i64,
        _columns: &'static [&'static str],
    ) -> impl Future<Output = KvResult<Vec<KvRow>>> + Send {
        refused()
    }

    /// A round trip that does nothing.
    fn ping(&mut self) -> impl Future<Output = KvResult<()>> + Send {
        refused()
    }

    /// The largest key of `table`, if it has rows.
    fn last(
        &mut self,
        _table: &'static Table,
    ) -> impl Future<Output = KvResult<Option<i64>>> + Send {
        refused()
    }

    /// Set `key` to `value` in a key-and-value table.
    fn put(
        &mut self,
        _table: &'static str,
        _key: String,
        _value: String,
    ) -> impl Future<Output = KvResult<()>> + Send {
        refused()
    }

    /// Set `values` in row `key` of `table` (inserting it when `insert`):
    /// the rows changed.
    fn write(
        &mut self,
        _table: &'static Table,
        _key: String,
        _values: Vec<(&'static str, String)>,
        _insert: bool,
    ) -> impl Future<Output = KvResult<u64>> + Send {
        refused()
    }

    /// Run a script statement ([`KvOp::Script`]) with `params`: its rows
    /// for a query, the rows it changed otherwise.
    fn script(
        &mut self,
        _stmt: &'static Statement,
        _params: &[Param<'_>],
        _kind: CallKind,
    ) -> impl Future<Output = KvResult<Reply>> + Send {
        refused()
    }
}

/// Run a query's key-value form on `store`.
pub(crate) async fn query<S: KvStore>(
    store: &mut S,
    stmt: &'static Statement,
    params: &[Param<'_>],
) -> Result<Rows, DbError> {
    let answer = match stmt.kv {
        Some(KvOp::Get { table, key }) => {
            let key = param_text(stmt, params, key)?;
            (store.get(table, key).await).map(|value| {
                let mut rows = Rows::new(1);
                if let Some(v) = value {
                    rows.push_row([Param::Text(&v)]);
                }
                rows
            })
        }
        Some(KvOp::Scan { table }) => (store.scan(table).await).map(|all| {
            let mut rows = Rows::with_capacity(2, all.len());
            for (k, v) in &all {
                rows.push_row([Param::Text(k), Param::Text(v)]);
            }
            rows
        }),
        Some(KvOp::Read {
            table,
            key,
            columns,
        }) => {
            let key = param_text(stmt, params, key)?;
            store.read_result(table, key, columns).await
        }
        Some(KvOp::Range {
            table,
            from,
            count,
            columns,
        }) => {
            let (from, count) = (
                param_int(stmt, params, from)?,
                param_int(stmt, params, count)?,
            );
            (store.range(table, from, count, columns).await)
                .map(|rows| rows_of(columns.len(), &rows))
        }
        Some(KvOp::Ping) => (store.ping().await).map(|()| {
            let mut rows = Rows::new(1);
            rows.push_row([Param::Int(1)]);
            rows
        }),
        Some(KvOp::Last { table }) => (store.last(table).await).map(|last| {
            let mut rows = Rows::new(1);
            if let Some(k) = last {
                rows.push_row([Param::Int(k)]);
            }
            rows
        }),
        Some(KvOp::Script { .. }) => {
            (store.script(stmt, params, CallKind::Query).await).map(|reply| match reply {
                Reply::Rows(rows) => rows,
                Reply::Affected(_) => Rows::empty(),
            })
        }
        Some(KvOp::Put { .. } | KvOp::Write { .. }) | None => Err(KvFailure::Refused),
    };
    answer.map_err(|f| named(store, f, "query", stmt))
}

/// Run a change's key-value form on `store`: the rows it changed.
pub(crate) async fn execute<S: KvStore>(
    store: &mut S,
    stmt: &'static Statement,
    params: &[Param<'_>],
) -> Result<u64, DbError> {
    let answer = match stmt.kv {
        Some(KvOp::Put { table, key, value }) => {
            let (key, value) = (
                param_text(stmt, params, key)?,
                param_text(stmt, params, value)?,
            );
            (store.put(table, key, value).await).map(|()| 1)
        }
        Some(KvOp::Write {
            table,
            key,
            set,
            insert,
        }) => {
            let key = param_text(stmt, params, key)?;
            let values = set
                .iter()
                .map(|(c, i)| Ok((*c, param_text(stmt, params, *i)?)))
                .collect::<Result<Vec<_>, DbError>>()?;
            store.write(table, key, values, insert).await
        }
        Some(KvOp::Script { .. }) => {
            (store.script(stmt, params, CallKind::Execute).await).map(|reply| match reply {
                Reply::Affected(n) => n,
                Reply::Rows(_) => 0,
            })
        }
        _ => Err(KvFailure::Refused),
    };
    answer.map_err(|f| named(store, f, "statement", stmt))
}

/// A failure as the session's error: a refusal names the statement.
fn named<S: KvStore>(store: &S, failure: KvFailure, what: &str, stmt: &Statement) -> DbError {
    match failure {
        KvFailure::Refused => store.refusal(&format!("{what} '{}'", stmt.name)),
        KvFailure::Db(e) => e,
    }
}

/// Rows of `width` columns from the rows a store read.
pub(crate) fn rows_of(width: usize, rows: &[KvRow]) -> Rows {
    // Room for all their text at once: no buffer grows while it is copied.
    let text = rows.iter().flatten().flatten().map(String::len).sum();
    let room = Room {
        rows: rows.len(),
        text,
    };
    let mut out = Rows::with_room(width, room);
    for row in rows {
        out.push_row(
            row.iter()
                .map(|v| v.as_deref().map_or(Param::Null, Param::Text)),
        );
    }
    out
}
