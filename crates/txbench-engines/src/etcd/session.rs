//! An etcd session: the key-value operations of a workload's statements over
//! one member's connection, inside optimistic transactions.

use etcd_client::{
    Client, CompactionOptions, Compare, CompareOp, DeleteOptions, GetOptions, GetResponse,
    KvClient, SortOrder, SortTarget, Txn, TxnOp,
};
use txbench_core::schema::{Index, Statement, Table};
use txbench_core::{DbError, ErrorKind, Loader, Param, RowBatch, Rows, Session, TxMode};

use super::layout;
use super::transaction::{MAX_TXN_OPS, Transaction};
use super::{EtcdEngine, classify, status_says};
use crate::kv_dispatch::{self, KvResult, KvRow, KvStore};
use crate::kv_store::{self, marker, row_key, value_text, whole_rows};

/// The key a ping counts: no table's (a table's keys are `table:key`).
const PING_KEY: &str = "txbench ping";

/// The most bytes of keys and values one load request carries: etcd refuses
/// a request over 1.5 MiB by default (`--max-request-bytes`), and the
/// encoding adds a little to each put.
const MAX_LOAD_BYTES: usize = 1024 * 1024;
/// Rows per page when a whole table is read.
const PAGE: i64 = 10_000;

/// A session on one member.
pub struct EtcdSession {
    engine: EtcdEngine,
    client: Client,
    kv: KvClient,
    /// The member connected to (its index in the URL).
    member: usize,
    tx: Transaction,
}

impl EtcdSession {
    pub(super) fn new(engine: EtcdEngine, client: Client, member: usize) -> EtcdSession {
        EtcdSession {
            kv: client.kv_client(),
            engine,
            client,
            member,
            tx: Transaction::default(),
        }
    }

    /// A range request from `key` at the transaction's snapshot (taking the
    /// snapshot's revision from the first one), with the options `options`
    /// builds. A member that has not yet applied the snapshot's revision is
    /// asked again linearizably, which waits for it.
    async fn snapshot_get(
        &mut self,
        key: &str,
        options: impl Fn() -> GetOptions,
    ) -> Result<GetResponse, DbError> {
        let tx = &self.tx;
        let pinned = tx.open && tx.revision > 0;
        let first = if pinned {
            // Reads at a fixed revision are the same on every member that
            // has applied it: no need to reach the leader for them.
            options().with_revision(tx.revision).with_serializable()
        } else if self.engine.target.serializable {
            options().with_serializable()
        } else {
            options()
        };
        let answer = match self.kv.get(key, Some(first)).await {
            Err(e) if pinned && status_says(&e, "future revision") => {
                let again = options().with_revision(self.tx.revision);
                self.kv.get(key, Some(again)).await
            }
            other => other,
        }
        .map_err(classify)?;
        if self.tx.open && self.tx.revision == 0 {
            self.tx.revision = answer.header().map_or(0, |h| h.revision());
        }
        Ok(answer)
    }

    /// The stored value of `key` (the transaction's own write first), read
    /// at the snapshot and kept as read when in a transaction.
    async fn value(&mut self, key: &str) -> Result<Option<String>, DbError> {
        if let Some(v) = self.tx.written(key) {
            return Ok(Some(v.to_string()));
        }
        let answer = self.snapshot_get(key, GetOptions::new).await?;
        let kv = answer.kvs().first();
        if self.tx.open {
            self.tx.read(key, kv.map_or(0, |kv| kv.mod_revision()));
        }
        Ok(kv.map(|kv| String::from_utf8_lossy(kv.value()).into_owned()))
    }

    /// Row `key` of `table` as its columns in table order, or None.
    async fn row(
        &mut self,
        table: &Table,
        key: &str,
    ) -> Result<Option<Vec<Option<String>>>, DbError> {
        if whole_rows(table) {
            let stored = layout::ordered_key(table.name, key);
            return match self.value(&stored).await? {
                Some(v) => layout::decode_row(stored.as_bytes(), v.as_bytes()).map(Some),
                None => Ok(None),
            };
        }
        let stored = row_key(table.name, key);
        Ok(self
            .value(&stored)
            .await?
            .map(|v| vec![Some(key.to_string()), Some(v)]))
    }

    /// Up to `count` rows of `table` from key `from` on, in key order.
    async fn rows_from(
        &mut self,
        table: &'static Table,
        from: i64,
        count: i64,
    ) -> Result<Vec<Vec<Option<String>>>, DbError> {
        if !whole_rows(table) {
            return Err(kv_store::no_key_order(ENGINE, table));
        }
        if count <= 0 {
            return Ok(Vec::new());
        }
        let (from, end) = (
            layout::ordered_int(table.name, from),
            layout::integers_end(table.name),
        );
        let answer = self
            .snapshot_get(&from, || {
                GetOptions::new().with_range(end.as_str()).with_limit(count)
            })
            .await?;
        let mut rows = Vec::with_capacity(answer.kvs().len());
        for kv in answer.kvs() {
            let key = String::from_utf8_lossy(kv.key());
            // The transaction's own write of a row it reads wins.
            let row = match self.tx.written(&key) {
                Some(v) => layout::decode_row(kv.key(), v.as_bytes())?,
                None => layout::decode_row(kv.key(), kv.value())?,
            };
            if self.tx.open {
                self.tx.read(&key, kv.mod_revision());
            }
            rows.push(row);
        }
        Ok(rows)
    }

    /// The largest integer key of `table`, the transaction's inserts included.
    async fn last_key(&mut self, table: &'static Table) -> Result<Option<i64>, DbError> {
        if !whole_rows(table) {
            return Err(kv_store::no_key_order(ENGINE, table));
        }
        let (from, to) = (layout::prefix(table.name), layout::integers_end(table.name));
        let answer = self
            .snapshot_get(&from, || {
                GetOptions::new()
                    .with_range(to.as_str())
                    .with_sort(SortTarget::Key, SortOrder::Descend)
                    .with_limit(1)
                    .with_keys_only()
            })
            .await?;
        let stored = answer.kvs().first().map(|kv| kv.key().to_vec());
        let own = self
            .tx
            .largest_written(&from, &to)
            .map(|k| k.as_bytes().to_vec());
        Ok(stored
            .into_iter()
            .chain(own)
            .max()
            .and_then(|k| layout::int_of(table.name, &k)))
    }

    /// Set `values` in row `key` of `table` in the transaction: 1, or 0 when
    /// an update finds no row; an insert that finds one is refused.
    async fn write_row(
        &mut self,
        table: &'static Table,
        key: String,
        values: Vec<(&'static str, String)>,
        insert: bool,
    ) -> Result<u64, DbError> {
        let current = self.row(table, &key).await?;
        let row = match (current, insert) {
            (None, false) => return Ok(0),
            (Some(_), true) => {
                return Err(kv_store::duplicate_key(table, &key));
            }
            (current, _) => row_with(table, current, &key, values),
        };
        let (stored, value) = stored_form(table, &key, &row);
        self.tx.write(stored, value);
        Ok(1)
    }

    /// A write outside a transaction. One that gives the whole row (an
    /// insert, or an update of every column) is one Txn that puts it if the
    /// key is absent (insert) or there (update); one that changes part of a
    /// row needs the rest, so it reads the row and puts it back if unchanged
    /// (etcd keeps a row as one value and cannot change part of it).
    async fn write_alone(
        &mut self,
        table: &'static Table,
        key: String,
        values: Vec<(&'static str, String)>,
        insert: bool,
    ) -> Result<u64, DbError> {
        if !insert && !gives_every_column(table, &values) {
            self.tx.begin();
            return match self.write_row(table, key, values, insert).await {
                Ok(changed) => self.commit().await.map(|()| changed),
                Err(e) => {
                    self.tx.end();
                    Err(e)
                }
            };
        }
        let row = row_with(table, None, &key, values);
        let (stored, value) = stored_form(table, &key, &row);
        // A key's version is 0 while it is absent.
        let there = if insert {
            CompareOp::Equal
        } else {
            CompareOp::Greater
        };
        let txn = Txn::new()
            .when([Compare::version(stored.as_str(), there, 0)])
            .and_then([TxnOp::put(stored, value, None)]);
        let written = self.kv.txn(txn).await.map_err(classify)?.succeeded();
        match (written, insert) {
            (true, _) => Ok(1),
            (false, false) => Ok(0),
            (false, true) => Err(kv_store::duplicate_key(table, &key)),
        }
    }

    /// Every (key, value) of a key-and-value table, page by page.
    async fn read_all(&mut self, table: &str) -> Result<Vec<(String, String)>, DbError> {
        let prefix = layout::prefix(table);
        let end = layout::prefix_end(table);
        let mut from = prefix.clone().into_bytes();
        let mut out = Vec::new();
        loop {
            let options = GetOptions::new().with_range(end.as_str()).with_limit(PAGE);
            let answer = self
                .kv
                .get(from.clone(), Some(options))
                .await
                .map_err(classify)?;
            for kv in answer.kvs() {
                let key = String::from_utf8_lossy(&kv.key()[prefix.len()..]).into_owned();
                out.push((key, String::from_utf8_lossy(kv.value()).into_owned()));
            }
            match answer.kvs().last() {
                Some(kv) if answer.more() => {
                    from = kv.key().to_vec();
                    from.push(0);
                }
                _ => return Ok(out),
            }
        }
    }
}

/// etcd holds every key-value operation but scripts: a key-and-value table
/// as one key per row, a table of whole rows as encoded rows under keys in
/// integer order; a transaction is one Txn of compares and puts.
impl KvStore for EtcdSession {
    fn refusal(&self, what: &str) -> DbError {
        kv_store::not_key_value(ENGINE, what)
    }

    async fn get(&mut self, table: &'static str, key: String) -> KvResult<Option<String>> {
        Ok(self.value(&row_key(table, &key)).await?)
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
        let row = self.row(table, &key).await?;
        Ok(row.map(|row| project(table, &row, columns)))
    }

    async fn range(
        &mut self,
        table: &'static Table,
        from: i64,
        count: i64,
        columns: &'static [&'static str],
    ) -> KvResult<Vec<KvRow>> {
        let rows = self.rows_from(table, from, count).await?;
        Ok(rows
            .iter()
            .map(|row| project(table, row, columns))
            .collect())
    }

    async fn last(&mut self, table: &'static Table) -> KvResult<Option<i64>> {
        Ok(self.last_key(table).await?)
    }

    /// A serializable count of a key nobody writes: the member answers it
    /// from its own store, with no round of consensus.
    async fn ping(&mut self) -> KvResult<()> {
        let options = GetOptions::new().with_count_only().with_serializable();
        self.kv
            .get(PING_KEY, Some(options))
            .await
            .map_err(classify)?;
        Ok(())
    }

    async fn put(&mut self, table: &'static str, key: String, value: String) -> KvResult<()> {
        let key = row_key(table, &key);
        if self.tx.open {
            self.tx.write(key, value);
        } else {
            self.kv.put(key, value, None).await.map_err(classify)?;
        }
        Ok(())
    }

    async fn write(
        &mut self,
        table: &'static Table,
        key: String,
        values: Vec<(&'static str, String)>,
        insert: bool,
    ) -> KvResult<u64> {
        if self.tx.open {
            return Ok(self.write_row(table, key, values, insert).await?);
        }
        Ok(self.write_alone(table, key, values, insert).await?)
    }
}

/// Row `key` of `table` with `values` set in it: `current` changed, or a new
/// row of NULLs but its key.
fn row_with(
    table: &Table,
    current: Option<Vec<Option<String>>>,
    key: &str,
    values: Vec<(&'static str, String)>,
) -> Vec<Option<String>> {
    let mut row = current.unwrap_or_else(|| {
        let mut row = vec![None; table.columns.len()];
        if let Some(i) = column_index(table, table.primary_key[0]) {
            row[i] = Some(key.to_string());
        }
        row
    });
    for (column, value) in values {
        if let Some(i) = column_index(table, column) {
            row[i] = Some(value);
        }
    }
    row
}

/// The key and value row `key` of `table` is stored as.
fn stored_form(table: &Table, key: &str, row: &[Option<String>]) -> (String, String) {
    if whole_rows(table) {
        (
            layout::ordered_key(table.name, key),
            layout::encode_row(row),
        )
    } else {
        let value = row.get(1).cloned().flatten().unwrap_or_default();
        (row_key(table.name, key), value)
    }
}

/// Whether `values` set every column of `table` but its key.
fn gives_every_column(table: &Table, values: &[(&str, String)]) -> bool {
    table
        .columns
        .iter()
        .filter(|c| c.name != table.primary_key[0])
        .all(|c| values.iter().any(|(v, _)| *v == c.name))
}

/// The position of `column` in `table`.
fn column_index(table: &Table, column: &str) -> Option<usize> {
    table.columns.iter().position(|c| c.name == column)
}

/// `columns` of a whole row in table order.
fn project(table: &Table, row: &[Option<String>], columns: &[&str]) -> Vec<Option<String>> {
    columns
        .iter()
        .map(|c| column_index(table, c).and_then(|i| row.get(i).cloned().flatten()))
        .collect()
}

/// The engine's name in its refusals.
pub(super) const ENGINE: &str = "etcd";

impl Session for EtcdSession {
    /// Nothing to prepare: a statement runs when it has a key-value form.
    async fn prepare(&mut self, stmt: &'static Statement) -> Result<Option<usize>, DbError> {
        kv_store::prepare(ENGINE, stmt).map(|()| None)
    }

    type Loader = Self;

    type Whole = txbench_core::NoWholeTransactions;

    fn loader(&mut self) -> Option<&mut Self> {
        Some(self)
    }

    /// The version, the members and the read consistency, for the results.
    async fn server_version(&mut self) -> Result<String, DbError> {
        let status = self.client.status().await.map_err(classify)?;
        let members = self.client.member_list().await.map_err(classify)?;
        let reads = if self.engine.target.serializable {
            "serializable reads"
        } else {
            "linearizable reads"
        };
        Ok(format!(
            "etcd {}, {} members, {reads}",
            status.version(),
            members.members().len()
        ))
    }

    async fn begin(&mut self, _mode: TxMode) -> Result<(), DbError> {
        self.tx.begin();
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        if !self.tx.open || !self.tx.wrote() {
            // Nothing written: the reads were one snapshot already.
            self.tx.end();
            return Ok(());
        }
        let txn = self.tx.take_commit().map_err(|(compares, puts)| {
            DbError::new(
                ErrorKind::Other,
                format!(
                    "the transaction needs {compares} compares and {puts} puts: more than the {MAX_TXN_OPS} of each one etcd Txn holds (--max-txn-ops)"
                ),
            )
        })?;
        let answer = self.kv.txn(txn).await.map_err(classify)?;
        if answer.succeeded() {
            Ok(())
        } else {
            Err(DbError::new(
                ErrorKind::Conflict,
                "etcd Txn compare failed: a key the transaction read or wrote changed before it committed",
            ))
        }
    }

    async fn rollback(&mut self) -> Result<(), DbError> {
        // Nothing was sent: the writes were only kept here.
        self.tx.end();
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

    /// Move to the next member that answers (the one after this session's,
    /// round the list: a dead member is skipped).
    async fn reconnect(&mut self) -> Result<(), DbError> {
        let (client, member) = self.engine.connect_from(self.member + 1).await?;
        *self = EtcdSession::new(self.engine.clone(), client, member);
        Ok(())
    }
}

impl Loader for EtcdSession {
    /// A table: its marker key (its rows are written as they come).
    async fn create_table(&mut self, table: &Table) -> Result<(), DbError> {
        if table.primary_key.len() != 1 {
            return Err(kv_store::not_key_value_table(ENGINE, table));
        }
        self.kv
            .put(marker(table.name), "1", None)
            .await
            .map_err(classify)?;
        Ok(())
    }

    async fn create_index(&mut self, index: &Index) -> Result<(), DbError> {
        Err(kv_store::not_key_value(
            ENGINE,
            &format!("index '{}'", index.name),
        ))
    }

    async fn drop_table(&mut self, name: &str) -> Result<(), DbError> {
        let rows = DeleteOptions::new().with_range(layout::prefix_end(name));
        self.kv
            .delete(layout::prefix(name), Some(rows))
            .await
            .map_err(classify)?;
        self.kv.delete(marker(name), None).await.map_err(classify)?;
        Ok(())
    }

    async fn table_exists(&mut self, name: &str) -> Result<bool, DbError> {
        let answer = self
            .kv
            .get(marker(name), Some(GetOptions::new().with_count_only()))
            .await
            .map_err(classify)?;
        Ok(answer.count() > 0)
    }

    /// Rows in etcd Txns of at most 128 puts and 1 MiB, within etcd's
    /// default limits (128 operations, 1.5 MiB a request).
    async fn insert_batch(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        let pk = column_index(table, table.primary_key[0])
            .ok_or_else(|| kv_store::not_key_value_table(ENGINE, table))?;
        let mut puts = Vec::with_capacity(MAX_TXN_OPS);
        let mut bytes = 0;
        for row in batch.rows() {
            let key = row.get(pk).map(value_text).unwrap_or_default();
            let (key, value) = if whole_rows(table) {
                let cells: Vec<Option<String>> = row.iter().map(|v| Some(value_text(v))).collect();
                (
                    layout::ordered_key(table.name, &key),
                    layout::encode_row(&cells),
                )
            } else {
                let value = row.get(1).map(value_text).unwrap_or_default();
                (row_key(table.name, &key), value)
            };
            if puts.len() == MAX_TXN_OPS || bytes + key.len() + value.len() > MAX_LOAD_BYTES {
                self.put_all(std::mem::take(&mut puts)).await?;
                bytes = 0;
            }
            bytes += key.len() + value.len();
            puts.push(TxnOp::put(key, value, None));
        }
        self.put_all(puts).await
    }

    async fn begin_bulk_load(&mut self) -> Result<(), DbError> {
        Ok(())
    }

    /// Compact the store at its revision: a loaded store runs as a cluster
    /// compacted on schedule does (Kubernetes compacts every 5 minutes),
    /// not as one just loaded, which etcd 3.4 serves at a third of the rate
    /// (bench/RESULTS.md, 2026-11-26).
    async fn end_bulk_load(&mut self) -> Result<(), DbError> {
        let now = self
            .kv
            .get(marker(""), Some(GetOptions::new().with_count_only()))
            .await
            .map_err(classify)?;
        let revision = now.header().map_or(0, |h| h.revision());
        // Physical: answered once the compaction is done, not begun, so that
        // the runs that follow do not overlap it.
        let mut waiting = self
            .engine
            .connect_member_waiting(self.member, super::COMPACTION_TIMEOUT)
            .await?
            .kv_client();
        match waiting
            .compact(revision, Some(CompactionOptions::new().with_physical()))
            .await
        {
            // Compacted there already (by another load or the schedule).
            Err(e) if status_says(&e, "compacted") => Ok(()),
            other => other.map(|_| ()).map_err(classify),
        }
    }
}

impl EtcdSession {
    /// `puts` in one etcd Txn (one Raft entry).
    async fn put_all(&mut self, puts: Vec<TxnOp>) -> Result<(), DbError> {
        if puts.is_empty() {
            return Ok(());
        }
        self.kv
            .txn(Txn::new().and_then(puts))
            .await
            .map_err(classify)?;
        Ok(())
    }
}
