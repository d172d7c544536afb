//! A workload file as it is written (docs/workload-file.md): tables with a
//! generator per column, transaction types with weights and ordered
//! statements whose named parameters are drawn or read, and invariants. Every
//! name a mistake can be reported against keeps its place in the file.

use serde::Deserialize;
use toml::Spanned;

/// The whole file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadFile {
    /// What the workload is called and scaled by.
    pub workload: Header,
    /// Its tables, in creation order.
    #[serde(default, rename = "table")]
    pub tables: Vec<TableDef>,
    /// Its transaction types.
    #[serde(default, rename = "transaction")]
    pub transactions: Vec<TransactionDef>,
    /// Queries that must return no row on a consistent database (`check`).
    #[serde(default, rename = "invariant")]
    pub invariants: Vec<Invariant>,
    /// Statements that finish the loaded rows, in order, once every table
    /// is written.
    #[serde(default, rename = "after_load")]
    pub after_load: Vec<AfterLoad>,
}

/// The `[workload]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Its name on the command line and in results (`orders`).
    pub name: Spanned<String>,
    /// Its name as people write it; the name when absent.
    #[serde(default)]
    pub title: Option<String>,
    /// What `--scale` counts (`customers`).
    pub scale: String,
    /// The scale loaded when none is asked.
    #[serde(default = "one")]
    pub default_scale: i64,
    /// Terminals per scale unit when none are asked.
    #[serde(default = "one_f64")]
    pub terminals_per_scale: f64,
    /// Mean think time after each transaction (exponential, as TPC-C's),
    /// when terminals keep their waits (`--wait spec`).
    #[serde(default)]
    pub think_time: Option<Spanned<String>>,
    /// The table whose row count is the scale of data another tool loaded
    /// (pgbench's branches: `pgbench -i` keeps no txbench record); it has
    /// one row per unit of the scale.
    #[serde(default)]
    pub scale_from: Option<Spanned<String>>,
}

/// A column of a `from` table names no generator: an empty one.
fn no_generator() -> Spanned<String> {
    Spanned::new(0..0, String::new())
}

fn one() -> i64 {
    1
}

fn one_f64() -> f64 {
    1.0
}

/// A `[[table]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableDef {
    /// Its name.
    pub name: Spanned<String>,
    /// Rows loaded per unit of the scale; or `rows`.
    #[serde(default)]
    pub rows_per_scale: Option<Spanned<f64>>,
    /// Rows loaded at any scale; or `rows_per_scale`.
    #[serde(default)]
    pub rows: Option<Spanned<i64>>,
    /// The `table.column` (a sequence column) for each of whose keys the
    /// table is given a drawn number of rows (`rows_each`): Epinions'
    /// reviews of each item. Instead of `rows` and `rows_per_scale`.
    #[serde(default)]
    pub for_each: Option<Spanned<String>>,
    /// How many rows each key of `for_each` is given.
    #[serde(default)]
    pub rows_each: Option<Spanned<CountDef>>,
    /// A query over the tables before it whose rows the table is loaded
    /// with, once they are written (Twitter's followers, the follows
    /// turned round): its columns take no generator.
    #[serde(default)]
    pub from: Option<Spanned<String>>,
    /// Its primary key's columns.
    pub primary_key: Spanned<Vec<String>>,
    /// Its columns, in load order.
    pub columns: Vec<FieldDef>,
    /// Its secondary indexes, made once it is loaded (sysbench's `k_1`).
    #[serde(default)]
    pub indexes: Vec<IndexDef>,
}

/// How many rows a table of `for_each` gives each key: `gen` is `uniform`
/// (in `[min, max]`) or `zipfian` (0 the likeliest, then 1, ..., up to
/// `max` - 1, as BenchBase's `ZipfianGenerator(max, theta)` draws, raised
/// to `min` when below it); `max`, or `max_per_scale` for a largest count
/// that grows with the scale.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountDef {
    /// `uniform`, `zipfian` or `histogram`.
    #[serde(rename = "gen")]
    pub kind: String,
    /// A `histogram`'s counts and their weights: `[[count, weight], ...]`
    /// (Wikipedia's revisions per page).
    #[serde(default)]
    pub values: Option<Vec<toml::Value>>,
    /// The fewest rows a key is given (0).
    #[serde(default)]
    pub min: Option<i64>,
    /// The most (uniform), or the end of the zipfian's range.
    #[serde(default)]
    pub max: Option<i64>,
    /// `max` per unit of the scale.
    #[serde(default)]
    pub max_per_scale: Option<f64>,
    /// The zipfian's skew.
    #[serde(default)]
    pub theta: Option<f64>,
}

/// A secondary index of a table: `{ name = "k_1", columns = ["k"] }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexDef {
    /// Its name, one of the file's.
    pub name: Spanned<String>,
    /// The columns it indexes, in order.
    pub columns: Spanned<Vec<String>>,
    /// Whether no two rows may hold the same values in them (BenchBase's
    /// `UNIQUE (r_f_id, r_seat)`: a seat sold once).
    #[serde(default)]
    pub unique: bool,
}

/// A column of a table, or a drawn parameter of a transaction: its name and
/// how its values are drawn (a column also has a type, and may repeat).
/// Which settings a generator takes is checked once the file is read, each
/// mistake by name.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldDef {
    /// Its name; a repeated column's `{i}` is replaced by 0, 1, ...
    pub name: Spanned<String>,
    /// A column's type: `int`, `bigint`, `decimal(P,S)`, `char(N)`,
    /// `varchar(N)`, `timestamp`.
    #[serde(default, rename = "type")]
    pub ty: Option<Spanned<String>>,
    /// Columns of the same definition, numbered by `{i}` (YCSB's
    /// field0..field9).
    #[serde(default)]
    pub repeat: Option<Spanned<u32>>,
    /// A column that may hold NULL (a statement may leave it out; `null`
    /// loads it so); columns are NOT NULL otherwise.
    #[serde(default)]
    pub nullable: Option<Spanned<bool>>,
    /// `sequence`, `uniform`, `zipfian`, `latest`, `gaussian`, `special`,
    /// `pareto`, `nurand`, `string`, `pattern`, `number`, `constant`, `key`
    /// (a key of a table), `next-key` (a key past every one loaded or
    /// inserted), `add` (an earlier parameter plus a constant), `now`, `null`.
    #[serde(rename = "gen", default = "no_generator")]
    pub kind: Spanned<String>,
    /// Smallest value (uniform, nurand; sequence's first).
    #[serde(default)]
    pub min: Option<i64>,
    /// A sequence's rows per value: each value stands in this many rows in
    /// turn (pgbench's accounts' branch: 100,000 accounts a branch).
    #[serde(default)]
    pub per: Option<Spanned<i64>>,
    /// Largest value.
    #[serde(default)]
    pub max: Option<i64>,
    /// Zipfian or latest skew (YCSB's is 0.99, the default).
    #[serde(default)]
    pub theta: Option<f64>,
    /// Zipfian ranks spread over the key space by a hash, as YCSB's scrambled
    /// zipfian does, so that the hot keys are not neighbours.
    #[serde(default)]
    pub scrambled: Option<bool>,
    /// NURand's A.
    #[serde(default)]
    pub a: Option<i64>,
    /// A string's or a number's length (exact).
    #[serde(default)]
    pub length: Option<u32>,
    /// A string's shortest length (with `max_length`).
    #[serde(default)]
    pub min_length: Option<u32>,
    /// A string's longest length.
    #[serde(default)]
    pub max_length: Option<u32>,
    /// A string's lengths with their weights, `[[length, weight], ...]`: a
    /// histogram of lengths (BenchBase's Twitter's tweets and names).
    #[serde(default)]
    pub lengths: Option<Vec<(u32, u64)>>,
    /// A constant's value; what `add` adds.
    #[serde(default)]
    pub value: Option<toml::Value>,
    /// A `pattern`'s template: each `#` a random digit, each `@` a random
    /// lowercase letter, the rest as written (sysbench's `c` and `pad`).
    #[serde(default)]
    pub pattern: Option<String>,
    /// The earlier parameter `add` adds to.
    #[serde(default)]
    pub to: Option<Spanned<String>>,
    /// What `add` multiplies `to` by.
    #[serde(default)]
    pub times: Option<i64>,
    /// A second earlier parameter `add` adds.
    #[serde(default)]
    pub plus: Option<Spanned<String>>,
    /// A `list`'s values.
    #[serde(default)]
    pub values: Option<Vec<toml::Value>>,
    /// The digits a `sequence`'s or a `key`'s integer is written in, as
    /// text padded with zeros.
    #[serde(default)]
    pub width: Option<u32>,
    /// The earlier parameter whose key a `key` draw leaves out; in a
    /// table of `for_each`, the earlier column whose value a `distinct`
    /// column's draw leaves out (Twitter's user follows no one twice and
    /// never themself).
    #[serde(default)]
    pub other_than: Option<Spanned<String>>,
    /// A `key` parameter's: draws the keys this run's inserts into the
    /// column have finished too, not only the loaded ones.
    #[serde(default)]
    pub inserted: Option<Spanned<bool>>,
    /// In a table of `for_each`: no two rows of one key draw the same
    /// value of this column (Epinions' item is reviewed once by a user).
    #[serde(default)]
    pub distinct: Option<Spanned<bool>>,
    /// Uniform draws a `gaussian` or `special` value averages (sysbench's
    /// `--rand-spec-iter`, 12).
    #[serde(default)]
    pub iterations: Option<u32>,
    /// The share of the keys, in percent, that `special` makes hot
    /// (sysbench's `--rand-spec-pct`, 1).
    #[serde(default)]
    pub percent: Option<f64>,
    /// The share of `special`'s draws, in percent, that go to the hot keys
    /// (sysbench's `--rand-spec-res`, 75).
    #[serde(default)]
    pub resolution: Option<f64>,
    /// `pareto`'s h (sysbench's `--rand-pareto-h`, 0.2).
    #[serde(default)]
    pub h: Option<f64>,
    /// A `uniform` parameter's draw moved up by this much times the
    /// terminal's home (its index modulo the default terminals): each
    /// terminal keeps to keys of its own, as BenchBase's ResourceStresser
    /// gives each worker its own range.
    #[serde(default)]
    pub home_step: Option<Spanned<i64>>,
    /// The earlier column (of a table) or parameter (of a transaction),
    /// an integer, whose value alone this one's is drawn from: the same
    /// value for the same integer at the load and in the run.
    #[serde(default)]
    pub seeded_by: Option<Spanned<String>>,
    /// Text appended to a `seeded_by` value, `{}` standing for the
    /// integer it is seeded by: BenchBase's Wikipedia ends each page's
    /// title with `" [id]"`, so that no two pages share one.
    #[serde(default)]
    pub suffix: Option<Spanned<String>>,
    /// A parameter's other value, drawn instead of the generator's in
    /// `percent` percent of the draws: BenchBase's Wikipedia edits a
    /// page as the anonymous user 0 in 26 percent of its updates.
    #[serde(default)]
    pub instead: Option<Spanned<InsteadDef>>,
    /// The `table.column` whose keys `key`, `zipfian`, `latest` and
    /// `next-key` draw from (a sequence column).
    #[serde(default)]
    pub of: Option<Spanned<String>>,
}

/// `instead = { value = 0, percent = 26 }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InsteadDef {
    /// The value drawn instead.
    pub value: toml::Value,
    /// How often, in percent of the draws (above 0, at most 100).
    pub percent: f64,
}

/// A `[[transaction]]`: a type of the mix.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransactionDef {
    /// Its name in results (`New-Order`).
    pub name: Spanned<String>,
    /// Its share of the mix, in percent; the weights sum to 100.
    pub weight: Spanned<f64>,
    /// Whether it only reads.
    #[serde(default)]
    pub read_only: bool,
    /// Whether each statement commits on its own, with no BEGIN or COMMIT
    /// sent (pgbench's select-only, sysbench's single-statement scripts
    /// and `--skip-trx`).
    #[serde(default)]
    pub autocommit: bool,
    /// Whether a duplicate key is a conflict to retry rather than an error
    /// (sysbench's drivers retry one: two delete-and-inserts of one id at
    /// once insert it twice under PostgreSQL's read committed).
    #[serde(default)]
    pub retry_duplicates: bool,
    /// The share of its transactions that should commit rather than end in
    /// an expected rollback (a `one-or-none` that found none); when given,
    /// the run's outcomes check holds the type to it.
    #[serde(default)]
    pub expected_success: Option<Spanned<f64>>,
    /// How many times its statements run, one after the other, in the one
    /// transaction, its parameters drawn afresh each time (BenchBase's
    /// ResourceStresser updates 50 rows a transaction, one at a time).
    #[serde(default)]
    pub repeat: Option<Spanned<i64>>,
    /// Its parameters, drawn before it starts, by name.
    #[serde(default)]
    pub params: Vec<FieldDef>,
    /// Its statements, in order.
    pub statements: Vec<StatementDef>,
}

/// One statement of a transaction.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatementDef {
    /// Its name in errors and per-operation latency; `s1`, `s2`, ... when absent.
    #[serde(default)]
    pub name: Option<String>,
    /// Its SQL, with `:name` parameters.
    pub sql: Spanned<String>,
    /// The rows it must return (a query) or change: `one`, `one-or-none`
    /// (none ends the transaction as an expected rollback, counted as
    /// TATP's misses are), `none` (a row ends it so), or `any`.
    #[serde(default = "any")]
    pub expect: Spanned<String>,
    /// Names for its first row's columns, in the order the query returns
    /// them: parameters of the later statements.
    #[serde(default)]
    pub into: Vec<Spanned<String>>,
    /// The first column of the rows the query returns, up to `rows` of
    /// them, as the list `name` of the later statements (BenchBase's
    /// Twitter reads whom a user follows, then their tweets `IN` them).
    #[serde(default)]
    pub into_list: Option<Spanned<ListDef>>,
    /// The same statement as a key-value operation, for key-value stores
    /// (Redis): a workload whose every statement has one runs there.
    #[serde(default)]
    pub kv: Option<Spanned<KvDef>>,
    /// How long the terminal waits after its reply, inside the
    /// transaction and holding what it locked, before its next round trip
    /// (`"1s"`, `"2ms"`): BenchBase's ResourceStresser sleeps between its
    /// updates.
    #[serde(default)]
    pub pause_after: Option<Spanned<String>>,
    /// Sent only when a parameter, drawn or read, is this integer (a
    /// branch: BenchBase's Wikipedia also watches an article's talk page,
    /// `when = { param = "ns", equals = 0 }`); otherwise it is not sent
    /// and returns no rows.
    #[serde(default)]
    pub when: Option<Spanned<WhenDef>>,
}

/// `when = { param = "ns", equals = 0 }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhenDef {
    /// The parameter: drawn, or read by an earlier statement's `into`.
    pub param: String,
    /// The integer it must be for the statement to be sent.
    pub equals: i64,
}

/// A list a query reads: `{ name = "f", rows = 20 }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListDef {
    /// The list's name, `:name` in the later statements.
    pub name: String,
    /// The most values it holds, and the placeholders `:name` stands for.
    pub rows: u32,
}

/// A statement's key-value form: `op` is `read`, `update`, `insert` or
/// `scan`; its values are the statement's own `:name` parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KvDef {
    /// `read` (one row by key), `update` (columns of one row), `insert`
    /// (a new row), `scan` (rows in key order from a key) or `ping` (a
    /// round trip that does nothing).
    pub op: Spanned<String>,
    /// The table (a one-column primary key); none for `ping`.
    #[serde(default)]
    pub table: Option<Spanned<String>>,
    /// The row's key (read, update, insert).
    #[serde(default)]
    pub key: Option<Spanned<String>>,
    /// The columns read (read, scan), in the order of the SQL's; all the
    /// table's when absent.
    #[serde(default)]
    pub columns: Option<Spanned<Vec<String>>>,
    /// The columns set, each to a parameter (update, insert).
    #[serde(default)]
    pub set: Option<Spanned<std::collections::BTreeMap<String, String>>>,
    /// The first key (scan).
    #[serde(default)]
    pub from: Option<Spanned<String>>,
    /// The most rows (scan).
    #[serde(default)]
    pub count: Option<Spanned<String>>,
}

fn any() -> Spanned<String> {
    Spanned::new(0..0, "any".to_string())
}

/// An `[[after_load]]`: a statement that finishes the loaded rows from
/// the others (Twitter's email made of its name, Wikipedia's page pointing
/// at its newest revision).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AfterLoad {
    /// What it does, in words.
    pub name: String,
    /// The statement: no query, no parameters.
    pub sql: Spanned<String>,
}

/// A query that must return no row.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invariant {
    /// What it checks, in words.
    pub name: String,
    /// The query.
    pub sql: String,
}
