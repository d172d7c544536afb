//! Redis Cluster (`redis-cluster://[user:password@]host:port[,host:port...]`),
//! a sharded key-value store, on the redis crate's cluster-aware client.
//!
//! A workload runs here in its script form ([`Execution::Scripts`]): each
//! transaction is a Lua script ([`KvOp::Script`]) that Redis runs atomically
//! on the node serving its partition; no transaction spans partitions, so a
//! workload that needs several sends one script to each, as its strategy says
//! (never silently in one slot). Nothing else runs, beyond a load's record
//! (a key-value table: [`KvOp::Put`], [`KvOp::Scan`]).
//!
//! Layout. A table split into `n` hash partitions by a column places each
//! row by that column's value: partition `fnv1a(value) mod n`, whose keys all
//! begin with the partition's prefix `{tag}` (one hash slot; the tags spread
//! the partitions evenly over the cluster's slot ranges). Row `k1, k2` of
//! table `t` is the hash `{tag}t:k1:k2` of every column; the set `{tag}t`
//! holds the partition's primary keys of `t` (so a script can walk its rows);
//! an index on one column is the hash `{tag}index:<name>` from the column's
//! value to the primary key. A key-value table stays whole: the hash `{t}t`
//! from each key to its value. The marker `txbench:table:t` says how the table
//! is placed (`whole`, or `<column> <n>`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use redis::cluster::{ClusterClient, ClusterClientBuilder};
use redis::cluster_async::ClusterConnection;
use redis::{RedisError, Value};
use txbench_core::schema::{Index, KvOp, Schema, ScriptOn, Statement, Table};
use txbench_core::{
    Call, CallKind, DbError, Engine, ErrorKind, Execution, Loader, Param, Reply, RowBatch, Rows,
    Session, TxMode,
};

use crate::kv_dispatch::{self, KvResult, KvStore};
use crate::kv_store::{marker, param_text, value_text};
use crate::redact::redact;
use crate::redis::{CONNECT_TIMEOUT, version_in_info};
use crate::target_error::TargetError;

/// How long a session waits for an answer (loads send large batches, and an
/// index is built by one script per partition).
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(120);
/// Hash slots of a Redis Cluster.
const SLOTS: u32 = 16_384;

/// A Redis Cluster to connect to: the nodes a client starts from.
#[derive(Clone, PartialEq, Eq)]
pub struct RedisClusterTarget {
    /// Each starting node as a `redis://` URL (credentials included).
    nodes: Vec<String>,
    display: String,
}

debug_shows_display!(RedisClusterTarget);

impl RedisClusterTarget {
    /// Parse `redis-cluster://[user:password@]host:port[,host:port...]`.
    pub fn parse(url: &str) -> Result<RedisClusterTarget, TargetError> {
        let display = redact(url);
        let bad = |why: &str| TargetError(format!("invalid Redis Cluster URL '{display}': {why}"));
        let rest = url
            .strip_prefix("redis-cluster://")
            .ok_or_else(|| bad("expected redis-cluster://host:port[,host:port...]"))?;
        let (credentials, hosts) = match rest.rsplit_once('@') {
            Some((credentials, hosts)) => (format!("{credentials}@"), hosts),
            None => (String::new(), rest),
        };
        let hosts = hosts.trim_end_matches('/');
        if hosts.is_empty() || hosts.contains('/') || hosts.contains('?') {
            return Err(bad(
                "expected the nodes as host:port separated by commas, and nothing after them",
            ));
        }
        let nodes: Vec<String> = (hosts.split(','))
            .map(|host| format!("redis://{credentials}{}", host.trim()))
            .collect();
        ClusterClient::new(nodes.clone()).map_err(|e| bad(&e.to_string()))?;
        Ok(RedisClusterTarget { nodes, display })
    }
}

/// The Redis Cluster engine.
#[derive(Clone)]
pub struct RedisClusterEngine {
    client: ClusterClient,
    display: String,
}

debug_shows_display!(RedisClusterEngine);

impl RedisClusterEngine {
    /// An engine for a parsed target.
    pub fn new(target: RedisClusterTarget) -> Result<RedisClusterEngine, DbError> {
        let client = ClusterClientBuilder::new(target.nodes)
            .connection_timeout(CONNECT_TIMEOUT)
            .response_timeout(RESPONSE_TIMEOUT)
            .build()
            .map_err(|e| DbError::new(ErrorKind::Other, format!("{}: {e}", target.display)))?;
        Ok(RedisClusterEngine {
            client,
            display: target.display,
        })
    }

    async fn open(&self) -> Result<ClusterConnection, DbError> {
        self.client.get_async_connection().await.map_err(|e| {
            let mut err = classify(e);
            err.message = format!("connecting to {}: {}", self.display, err.message);
            err
        })
    }
}

impl Engine for RedisClusterEngine {
    fn key_value_only(&self) -> bool {
        true
    }

    type Session = RedisClusterSession;
    const BLOCKING: bool = false;

    /// Every table needs a primary key (its rows' keys).
    fn can_hold(&self, schema: &Schema) -> Result<(), DbError> {
        match schema.tables.iter().find(|t| t.primary_key.is_empty()) {
            Some(t) => Err(DbError::new(
                ErrorKind::Other,
                format!(
                    "Redis Cluster keeps rows by primary key; table '{}' has none",
                    t.name
                ),
            )),
            None => Ok(()),
        }
    }

    fn name(&self) -> &'static str {
        "redis-cluster"
    }

    fn describe(&self) -> String {
        self.display.clone()
    }

    async fn connect(&self) -> Result<RedisClusterSession, DbError> {
        Ok(RedisClusterSession {
            conn: self.open().await?,
            engine: self.clone(),
            scripts: HashMap::new(),
            tags: HashMap::new(),
            placements: HashMap::new(),
        })
    }

    fn hash_partitions(&self) -> bool {
        true
    }

    fn partitioned_only(&self) -> bool {
        true
    }
}

/// How a table is placed ([`RedisClusterSession`]'s layout).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Placement {
    /// A key-value table, whole in one hash.
    Whole,
    /// Split into `count` partitions by `column`.
    Partitioned { column: String, count: u32 },
}

impl Placement {
    fn parse(text: &str) -> Option<Placement> {
        if text == "whole" {
            return Some(Placement::Whole);
        }
        let (column, count) = text.split_once(' ')?;
        let count = count.parse().ok().filter(|&n| n > 0)?;
        Some(Placement::Partitioned {
            column: column.to_string(),
            count,
        })
    }

    fn text(&self) -> String {
        match self {
            Placement::Whole => "whole".to_string(),
            Placement::Partitioned { column, count } => format!("{column} {count}"),
        }
    }
}

/// A session: its own cluster connection, the scripts it has loaded, and
/// what it learnt of the layout.
pub struct RedisClusterSession {
    engine: RedisClusterEngine,
    conn: ClusterConnection,
    /// Each script (its SHA1 computed once), by its source's address.
    scripts: HashMap<usize, Arc<redis::Script>>,
    /// The partitions' key prefixes, per partition count.
    tags: HashMap<u32, Vec<Arc<str>>>,
    /// Tables' placements read from their markers (loads).
    placements: HashMap<String, Placement>,
}

/// Map a redis error into txbench's classification as for one Redis
/// ([`crate::redis::classify`]), and a redirection the cluster client could
/// not follow (MOVED, ASK: the slots moved) as unavailable too, so that the
/// driver reconnects, which reads the slots again.
fn classify(e: RedisError) -> DbError {
    let moved = e.is_cluster_error();
    let mut err = crate::redis::classify(e);
    if moved {
        err.kind = ErrorKind::Connection;
    }
    err
}

/// The partition of a placing value, given as the text the store holds.
pub fn partition_of(value: &str, count: u32) -> u32 {
    // FNV-1a: stable across processes and versions, unlike std's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in value.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (hash % u64::from(count.max(1))) as u32
}

/// Key prefixes `{tag}` for `count` partitions: partition `i`'s tag hashes
/// to a slot in the `i`th of `count` equal ranges of the slots, so that a
/// cluster whose nodes serve equal ranges (as `redis-cli --cluster create`
/// makes them) holds equal shares of the partitions.
fn partition_tags(count: u32) -> Vec<Arc<str>> {
    (0..count)
        .map(|i| {
            (0u64..)
                .map(|k| format!("{i}.{k}"))
                .find(|tag| {
                    let slot =
                        u32::from(crc16::State::<crc16::XMODEM>::calculate(tag.as_bytes())) % SLOTS;
                    u64::from(slot) * u64::from(count) / u64::from(SLOTS) == u64::from(i)
                })
                .map(|tag| Arc::from(format!("{{{tag}}}")))
                .expect("every range of slots has a tag")
        })
        .collect()
}

/// Why this store cannot run `what`.
fn not_a_script(what: &str) -> DbError {
    DbError::new(
        ErrorKind::Other,
        format!(
            "Redis Cluster runs a workload's scripts, one per partition (TATP's script form): \
             {what} has none"
        ),
    )
}

/// The key of a whole key-value table's hash.
fn whole_table(table: &str) -> String {
    format!("{{{table}}}{table}")
}

/// The set of the indexes built on a table.
fn indexes_of(table: &str) -> String {
    format!("txbench:indexes:{table}")
}

/// A script's reply as rows: an array of rows, each an array of values.
fn rows_of(stmt: &Statement, reply: Value) -> Result<Rows, DbError> {
    let bad = |what: &str| {
        DbError::new(
            ErrorKind::Data,
            format!("script '{}': {what} in its reply", stmt.name),
        )
    };
    let rows = match reply {
        Value::Array(rows) => rows,
        Value::Nil => return Ok(Rows::new(0)),
        _ => return Err(bad("no array of rows")),
    };
    let columns = match rows.first() {
        Some(Value::Array(first)) => first.len(),
        Some(_) => return Err(bad("a row that is not an array")),
        None => 0,
    };
    let mut out = Rows::with_capacity(columns, rows.len());
    for row in rows {
        let Value::Array(cells) = row else {
            return Err(bad("a row that is not an array"));
        };
        if cells.len() != columns {
            return Err(bad("rows of different widths"));
        }
        for cell in &cells {
            match cell {
                Value::Nil => out.push(Param::Null),
                Value::Int(v) => out.push(Param::Int(*v)),
                Value::BulkString(bytes) => {
                    let text = std::str::from_utf8(bytes).map_err(|_| bad("text not UTF-8"))?;
                    out.push(Param::Text(text));
                }
                Value::SimpleString(text) => out.push(Param::Text(text)),
                _ => return Err(bad("a value neither text, integer nor nil")),
            }
        }
    }
    Ok(out)
}

/// A change's reply: the rows it changed.
fn changed_of(stmt: &Statement, reply: Value) -> Result<u64, DbError> {
    match reply {
        Value::Int(n) if n >= 0 => Ok(n as u64),
        _ => Err(DbError::new(
            ErrorKind::Data,
            format!("script '{}': its reply is not a count of rows", stmt.name),
        )),
    }
}

/// A script call ready to send: the script, its partition's prefix, its
/// arguments.
struct Invocation {
    script: Arc<redis::Script>,
    tag: Arc<str>,
    args: Vec<String>,
}

impl Invocation {
    async fn send(self, mut conn: ClusterConnection) -> Result<Value, DbError> {
        let mut call = self.script.key(&*self.tag);
        for arg in &self.args {
            call.arg(arg);
        }
        call.invoke_async(&mut conn).await.map_err(classify)
    }
}

/// Send `calls` at once (each to its partition's node, in parallel) and
/// return their replies in order.
async fn send_all(conn: &ClusterConnection, calls: Vec<Invocation>) -> Result<Vec<Value>, DbError> {
    futures_util::future::try_join_all(calls.into_iter().map(|call| call.send(conn.clone()))).await
}

impl RedisClusterSession {
    /// The prefix of partition `index` of `count`.
    fn tag(&mut self, index: u32, count: u32) -> Arc<str> {
        let tags = self
            .tags
            .entry(count)
            .or_insert_with(|| partition_tags(count));
        Arc::clone(&tags[index as usize])
    }

    /// The script of `source`, made once per session.
    fn script_of(&mut self, source: &'static str) -> Arc<redis::Script> {
        let script = (self.scripts)
            .entry(source.as_ptr() as usize)
            .or_insert_with(|| Arc::new(redis::Script::new(source)));
        Arc::clone(script)
    }

    /// `stmt`'s script with `params`, on its partition.
    fn invocation(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<Invocation, DbError> {
        let Some(KvOp::Script {
            source,
            on,
            partitions,
        }) = stmt.kv
        else {
            return Err(not_a_script(&format!("statement '{}'", stmt.name)));
        };
        let args = (0..params.len())
            .map(|i| param_text(stmt, params, i))
            .collect::<Result<Vec<_>, _>>()?;
        let index = match on {
            ScriptOn::PartitionOf { param } => {
                let value = args.get(param).ok_or_else(|| {
                    let what = format!("script '{}': no parameter {}", stmt.name, param + 1);
                    DbError::new(ErrorKind::Other, what)
                })?;
                partition_of(value, partitions)
            }
            ScriptOn::Partition { index } => index,
        };
        if index >= partitions {
            return Err(DbError::new(
                ErrorKind::Other,
                format!("script '{}': partition {index} of {partitions}", stmt.name),
            ));
        }
        Ok(Invocation {
            script: self.script_of(source),
            tag: self.tag(index, partitions),
            args,
        })
    }

    /// Run a script statement and return its reply.
    async fn run_script(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<Value, DbError> {
        let call = self.invocation(stmt, params)?;
        call.send(self.conn.clone()).await
    }

    /// Run a command on the cluster (routed by its key).
    async fn command<T: redis::FromRedisValue>(&mut self, cmd: &redis::Cmd) -> Result<T, DbError> {
        cmd.query_async(&mut self.conn).await.map_err(classify)
    }

    /// How `table` is placed, from its marker (read once per session).
    async fn placement(&mut self, table: &str) -> Result<Placement, DbError> {
        if let Some(p) = self.placements.get(table) {
            return Ok(p.clone());
        }
        let text: Option<String> = self.command(redis::cmd("GET").arg(marker(table))).await?;
        let placement = text.as_deref().and_then(Placement::parse).ok_or_else(|| {
            DbError::new(
                ErrorKind::Data,
                format!("table '{table}' is not in this Redis Cluster (no placement marker)"),
            )
        })?;
        self.placements.insert(table.to_string(), placement.clone());
        Ok(placement)
    }

    /// Run `source` once on every partition of `count`, with `args`, at once.
    async fn on_every_partition(
        &mut self,
        source: &'static str,
        count: u32,
        args: &[&str],
    ) -> Result<(), DbError> {
        let calls = (0..count)
            .map(|index| Invocation {
                script: self.script_of(source),
                tag: self.tag(index, count),
                args: args.iter().map(|a| a.to_string()).collect(),
            })
            .collect();
        send_all(&self.conn, calls).await.map(drop)
    }
}

/// Builds index `ARGV[1]` of table `ARGV[2]` on column `ARGV[3]` in a
/// partition, from the partition's rows.
const BUILD_INDEX: &str = "local P = KEYS[1]
local idx = P .. 'index:' .. ARGV[1]
for _, pk in ipairs(redis.call('SMEMBERS', P .. ARGV[2])) do
  local v = redis.call('HGET', P .. ARGV[2] .. ':' .. pk, ARGV[3])
  if v then redis.call('HSET', idx, v, pk) end
end
return 0
";

/// Removes table `ARGV[1]`'s rows from a partition, with its indexes
/// `ARGV[2..]`.
const DROP_PARTITION: &str = "local P = KEYS[1]
local rows = P .. ARGV[1]
for _, pk in ipairs(redis.call('SMEMBERS', rows)) do redis.call('UNLINK', rows .. ':' .. pk) end
redis.call('UNLINK', rows)
for i = 2, #ARGV do redis.call('UNLINK', P .. 'index:' .. ARGV[i]) end
return 0
";

impl Session for RedisClusterSession {
    const EXECUTION: Execution = Execution::Scripts;

    /// A script is loaded on every primary; a key-value operation of a
    /// load's record needs nothing; anything else is refused by name.
    async fn prepare(&mut self, stmt: &'static Statement) -> Result<Option<usize>, DbError> {
        match stmt.kv {
            Some(KvOp::Script { source, .. }) => {
                self.script_of(source)
                    .prepare_invoke()
                    .load_async(&mut self.conn)
                    .await
                    .map_err(classify)?;
                Ok(None)
            }
            Some(KvOp::Put { .. } | KvOp::Scan { .. }) => Ok(None),
            _ => Err(not_a_script(&format!("statement '{}'", stmt.name))),
        }
    }

    type Loader = Self;

    type Whole = txbench_core::NoWholeTransactions;

    fn loader(&mut self) -> Option<&mut Self> {
        Some(self)
    }

    async fn server_version(&mut self) -> Result<String, DbError> {
        let info: Value = self.command(redis::cmd("INFO").arg("server")).await?;
        // Asked of every node, the answer is a map of node to text.
        let first = match info {
            Value::Map(nodes) => nodes.into_iter().next().map(|(_, v)| v),
            one => Some(one),
        };
        let text = first
            .and_then(|v| redis::from_redis_value::<String>(v).ok())
            .unwrap_or_default();
        Ok(format!("Redis Cluster {}", version_in_info(&text)))
    }

    /// Each script is a transaction of its own: nothing to begin.
    async fn begin(&mut self, _mode: TxMode) -> Result<(), DbError> {
        Ok(())
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        Ok(())
    }

    /// A script that fails changes nothing (it checks before it writes).
    async fn rollback(&mut self) -> Result<(), DbError> {
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

    /// Scripts that do not depend on each other, sent at once (one round
    /// trip to each node concerned, in parallel).
    async fn pipeline(&mut self, calls: &[Call<'_>]) -> Result<Vec<Reply>, DbError> {
        let invocations = (calls.iter())
            .map(|c| self.invocation(c.stmt, c.params))
            .collect::<Result<Vec<_>, _>>()?;
        let replies = send_all(&self.conn, invocations).await?;
        (calls.iter().zip(replies))
            .map(|(c, reply)| match c.kind {
                CallKind::Query => rows_of(c.stmt, reply).map(Reply::Rows),
                CallKind::Execute => changed_of(c.stmt, reply).map(Reply::Affected),
            })
            .collect()
    }

    async fn query_sql(&mut self, sql: &str) -> Result<Rows, DbError> {
        Err(not_a_script(&format!("SQL ('{sql}')")))
    }

    async fn reconnect(&mut self) -> Result<(), DbError> {
        self.conn = self.engine.open().await?;
        Ok(())
    }
}

impl Loader for RedisClusterSession {
    /// A key-value table (a key and one value), whole; a wider table only
    /// split into partitions.
    async fn create_table(&mut self, table: &Table) -> Result<(), DbError> {
        if !(table.columns.len() == 2 && table.primary_key == [table.columns[0].name]) {
            return Err(DbError::new(
                ErrorKind::Other,
                format!(
                    "Redis Cluster holds table '{}' ({} columns) only split into hash \
                     partitions: load with --partitions N",
                    table.name,
                    table.columns.len()
                ),
            ));
        }
        self.place(table.name, Placement::Whole).await
    }

    async fn create_partitioned_table(
        &mut self,
        table: &Table,
        column: &str,
        count: u32,
    ) -> Result<(), DbError> {
        let column = column.to_string();
        self.place(table.name, Placement::Partitioned { column, count })
            .await
    }

    /// An index on one column of a partitioned table: each partition's own,
    /// built from its rows.
    async fn create_index(&mut self, index: &Index) -> Result<(), DbError> {
        let (Placement::Partitioned { count, .. }, [column]) =
            (self.placement(index.table).await?, index.columns)
        else {
            return Err(not_a_script(&format!(
                "index '{}' (on more than one column, or of a whole table)",
                index.name
            )));
        };
        let cmd = redis::cmd("SADD")
            .arg(indexes_of(index.table))
            .arg(index.name)
            .clone();
        let _: i64 = self.command(&cmd).await?;
        self.on_every_partition(BUILD_INDEX, count, &[index.name, index.table, column])
            .await
    }

    async fn drop_table(&mut self, name: &str) -> Result<(), DbError> {
        self.placements.remove(name);
        let placement: Option<String> = self.command(redis::cmd("GET").arg(marker(name))).await?;
        match placement.as_deref().and_then(Placement::parse) {
            Some(Placement::Partitioned { count, .. }) => {
                let indexes: Vec<String> = self
                    .command(redis::cmd("SMEMBERS").arg(indexes_of(name)))
                    .await?;
                let mut args = vec![name];
                args.extend(indexes.iter().map(String::as_str));
                self.on_every_partition(DROP_PARTITION, count, &args)
                    .await?;
            }
            Some(Placement::Whole) | None => {
                let _: i64 = self
                    .command(redis::cmd("UNLINK").arg(whole_table(name)))
                    .await?;
            }
        }
        for key in [marker(name), indexes_of(name)] {
            let _: i64 = self.command(redis::cmd("UNLINK").arg(key)).await?;
        }
        Ok(())
    }

    async fn table_exists(&mut self, name: &str) -> Result<bool, DbError> {
        self.command(redis::cmd("EXISTS").arg(marker(name))).await
    }

    /// Rows as hashes in their partitions (and their keys in its set), or
    /// a key-value table's entries: a pipeline per partition (a cluster
    /// pipeline stays in one slot), all sent at once.
    async fn insert_batch(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        let mut pipes: HashMap<Arc<str>, redis::Pipeline> = HashMap::new();
        match self.placement(table.name).await? {
            Placement::Whole => {
                let pipe = pipes.entry(Arc::from(table.name)).or_default();
                let cmd = pipe.cmd("HSET").arg(whole_table(table.name));
                for row in batch.rows() {
                    cmd.arg(row.first().map(value_text).unwrap_or_default())
                        .arg(row.get(1).map(value_text).unwrap_or_default());
                }
                cmd.ignore();
            }
            Placement::Partitioned { column, count } => {
                let position = |name: &str| table.columns.iter().position(|c| c.name == name);
                let placed_by = position(&column).ok_or_else(|| {
                    DbError::new(
                        ErrorKind::Data,
                        format!("table '{}' has no column '{column}'", table.name),
                    )
                })?;
                let keys: Vec<usize> = (table.primary_key.iter())
                    .filter_map(|c| position(c))
                    .collect();
                for row in batch.rows() {
                    let by = row.get(placed_by).map(value_text).unwrap_or_default();
                    let tag = self.tag(partition_of(&by, count), count);
                    let pk: Vec<String> = keys.iter().map(|&i| value_text(&row[i])).collect();
                    let pk = pk.join(":");
                    let rows = format!("{tag}{}", table.name);
                    let pipe = pipes.entry(tag).or_default();
                    let hset = pipe.cmd("HSET").arg(format!("{rows}:{pk}"));
                    for (c, v) in table.columns.iter().zip(row) {
                        hset.arg(c.name).arg(value_text(v));
                    }
                    hset.ignore();
                    pipe.cmd("SADD").arg(rows).arg(pk).ignore();
                }
            }
        }
        let sent = pipes.into_values().map(|pipe| {
            let mut conn = self.conn.clone();
            async move { pipe.exec_async(&mut conn).await.map_err(classify) }
        });
        futures_util::future::try_join_all(sent).await?;
        Ok(())
    }

    async fn begin_bulk_load(&mut self) -> Result<(), DbError> {
        Ok(())
    }

    async fn end_bulk_load(&mut self) -> Result<(), DbError> {
        Ok(())
    }
}

impl RedisClusterSession {
    /// Record how `table` is placed.
    async fn place(&mut self, table: &str, placement: Placement) -> Result<(), DbError> {
        let cmd = redis::cmd("SET")
            .arg(marker(table))
            .arg(placement.text())
            .clone();
        let _: () = self.command(&cmd).await?;
        self.placements.insert(table.to_string(), placement);
        Ok(())
    }
}

/// Redis Cluster runs scripts (a whole transaction on one partition), and
/// holds a load's key-and-value records as one hash; the rest is refused.
impl KvStore for RedisClusterSession {
    fn refusal(&self, what: &str) -> DbError {
        not_a_script(what)
    }

    async fn scan(&mut self, table: &'static str) -> KvResult<Vec<(String, String)>> {
        Ok(self
            .command(redis::cmd("HGETALL").arg(whole_table(table)))
            .await?)
    }

    async fn put(&mut self, table: &'static str, key: String, value: String) -> KvResult<()> {
        let cmd = redis::cmd("HSET")
            .arg(whole_table(table))
            .arg(key)
            .arg(value)
            .clone();
        let _: i64 = self.command(&cmd).await?;
        Ok(())
    }

    async fn script(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
        kind: CallKind,
    ) -> KvResult<Reply> {
        let reply = self.run_script(stmt, params).await?;
        Ok(match kind {
            CallKind::Query => Reply::Rows(rows_of(stmt, reply)?),
            CallKind::Execute => Reply::Affected(changed_of(stmt, reply)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urls_and_names_bad_ones_without_secrets() {
        let t = RedisClusterTarget::parse("redis-cluster://127.0.0.1:7001,127.0.0.1:7002").unwrap();
        assert_eq!(
            t.nodes,
            ["redis://127.0.0.1:7001", "redis://127.0.0.1:7002"]
        );
        let t = RedisClusterTarget::parse("redis-cluster://app:secret@h1:7001,h2:7002").unwrap();
        assert_eq!(t.nodes[1], "redis://app:secret@h2:7002");
        assert!(!format!("{t:?}").contains("secret"));
        for bad in [
            "redis-cluster://",
            "redis-cluster://app:secret@h1:7001/0",
            "redis-cluster://app:secret@h1:notaport",
        ] {
            let e = RedisClusterTarget::parse(bad).unwrap_err();
            assert!(e.0.starts_with("invalid Redis Cluster URL"), "{bad}: {e}");
            assert!(!e.0.contains("secret"), "{e}");
        }
    }

    #[test]
    fn partitions_spread_over_equal_slot_ranges() {
        for count in [1, 3, 8, 16] {
            let tags = partition_tags(count);
            assert_eq!(tags.len(), count as usize);
            for (i, tag) in tags.iter().enumerate() {
                let inner = tag.trim_start_matches('{').trim_end_matches('}');
                let slot =
                    u32::from(crc16::State::<crc16::XMODEM>::calculate(inner.as_bytes())) % SLOTS;
                assert_eq!((slot * count / SLOTS) as usize, i, "{tag}");
            }
        }
        // Stable, and every partition drawn.
        assert_eq!(partition_of("42", 8), partition_of("42", 8));
        let mut seen = [false; 8];
        for s_id in 1..=1000 {
            seen[partition_of(&s_id.to_string(), 8) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn placements_read_back_as_written() {
        for p in [
            Placement::Whole,
            Placement::Partitioned {
                column: "s_id".into(),
                count: 8,
            },
        ] {
            assert_eq!(Placement::parse(&p.text()), Some(p));
        }
        assert_eq!(Placement::parse("s_id 0"), None);
    }
}
