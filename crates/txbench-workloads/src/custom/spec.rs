//! A workload file as txbench runs it, once checked ([`super::parse`]): its
//! tables with a generator per column, its transaction types of statements
//! (each with its key-value form where the file gives one), its invariants.

use txbench_core::schema::ColumnType;

use super::bounds;
use super::fits::{self, Drawn};
use super::rows_at;

/// How a column's or a parameter's values are drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum Generator {
    /// 1, 2, 3, ... (or from `start`): a key column; with `per` above 1,
    /// each value `per` rows in turn (1, 1, 2, 2, ...), a column grouping
    /// the rows (pgbench's accounts' branch), no key.
    Sequence {
        /// The first value.
        start: i64,
        /// Rows per value (1: a key).
        per: i64,
    },
    /// Uniform in `[min, max]`, moved up by `home_step` times the
    /// terminal's home (a parameter's: 0 for none).
    Uniform {
        /// Smallest.
        min: i64,
        /// Largest.
        max: i64,
        /// The step between one home's values and the next one's.
        home_step: i64,
    },
    /// Zipfian over a key range, rank 1 the hottest.
    Zipfian {
        /// The keys drawn from.
        keys: KeyRange,
        /// The skew.
        theta: f64,
        /// Ranks spread over the range by a hash (YCSB's scrambled zipfian).
        scrambled: bool,
    },
    /// Skewed to the keys inserted last (YCSB's latest).
    Latest {
        /// The keys drawn from.
        keys: KeyRange,
        /// The skew.
        theta: f64,
    },
    /// Keys of a range bunched at its middle: the mean of `iterations`
    /// uniform draws (sysbench's gaussian).
    Gaussian {
        /// The keys drawn from.
        keys: KeyRange,
        /// Uniform draws averaged.
        iterations: u32,
    },
    /// sysbench's special: `resolution` percent of the draws go to the
    /// `percent` percent of the keys at the middle of the range, the rest
    /// are gaussian.
    Special {
        /// The keys drawn from.
        keys: KeyRange,
        /// Uniform draws a gaussian one averages.
        iterations: u32,
        /// The hot keys' share of the range, in percent.
        percent: f64,
        /// The draws' share that goes to them, in percent.
        resolution: f64,
    },
    /// Pareto over a range, its first keys the hottest (sysbench's pareto:
    /// the first key plus the range's size times `u ^ (ln h / ln (1 - h))`,
    /// `u` uniform in [0, 1)).
    Pareto {
        /// The keys drawn from.
        keys: KeyRange,
        /// The h of sysbench's `--rand-pareto-h` (0.2).
        h: f64,
    },
    /// A normal distribution over `[min, max]`: mean at the middle, a
    /// deviation of a quarter of the range, redrawn outside it (BenchBase's
    /// Gaussian, SmallBank's balances).
    Normal {
        /// Smallest.
        min: i64,
        /// Largest.
        max: i64,
    },
    /// TPC-C's NURand(A, min, max).
    NuRand {
        /// A.
        a: i64,
        /// Smallest.
        min: i64,
        /// Largest.
        max: i64,
    },
    /// Random letters and digits of a length in `[min, max]`.
    Text {
        /// Shortest.
        min: u32,
        /// Longest.
        max: u32,
    },
    /// Random letters and digits of a length drawn in proportion to its
    /// weight: (length, weight) pairs, a histogram of lengths.
    WeightedText(Vec<(u32, u64)>),
    /// A template's characters: each `#` a random digit, each `@` a random
    /// lowercase letter, the rest as written.
    Pattern(String),
    /// Earlier parameters of the transaction summed ([`Sum`]): the end of
    /// sysbench's ranges, Voter's phone number. A parameter's only.
    Add(Sum),
    /// One of the listed values (all integers, or all strings): a column's
    /// rows take them in turn, a parameter draws one uniform.
    List(Vec<toml::Value>),
    /// A random number of exactly `digits` digits.
    Number {
        /// Its digits.
        digits: u32,
    },
    /// The same value always.
    Constant(toml::Value),
    /// The time it is drawn: a timestamp column's.
    Now,
    /// NULL: a nullable column's.
    Null,
    /// The key a row of a `for_each` table is made for (Epinions' item of
    /// a review): one of these keys.
    Parent(KeyRange),
    /// A row's place among the rows of its key in a `for_each` table,
    /// from this number: BenchBase's AuctionMark numbers each item's bids
    /// from 0.
    Ordinal(i64),
    /// What a `from` table's query selects into the column.
    Selected,
    /// A key of a table, uniform over those loaded.
    Key(KeyRange),
    /// A key of a table, uniform over those loaded and those this run's
    /// inserts into its column have finished (`inserted = true`): a find
    /// at or after it reaches the rows the run added (AuctionMark's items
    /// listed during the run). A parameter's only.
    KeyOrInserted(KeyRange),
    /// A key of a table other than an earlier parameter's (by its index),
    /// uniform over the rest: the second customer of a transfer. A
    /// parameter's only.
    OtherKey {
        /// The keys drawn from, the earlier parameter's too.
        keys: KeyRange,
        /// The earlier parameter's index.
        other_than: usize,
    },
    /// A key past every one loaded or inserted so far (an insert's).
    NextKey(KeyRange),
    /// A sequence's or a key's integer as text of `width` digits, zeros
    /// first (BenchBase's SmallBank names its customers so: the key in 64
    /// digits).
    Padded {
        /// What draws the integer.
        inner: Box<Generator>,
        /// Its digits at least.
        width: u32,
    },
    /// An integer drawn in proportion to its weight (`histogram`:
    /// Wikipedia's namespaces, as BenchBase's histograms give them).
    Histogram(Vec<(i64, u64)>),
    /// `inner`'s value as a function of an earlier integer (`seeded_by`):
    /// drawn from a stream seeded by that integer alone, so that a
    /// transaction draws for a key what the load wrote for it (Wikipedia's
    /// page title, made from the page's id).
    Seeded {
        /// What draws the value.
        inner: Box<Generator>,
        /// The earlier column's or parameter's index.
        by: usize,
        /// Text after the value, split where the integer goes (`suffix`).
        suffix: Option<(String, String)>,
    },
    /// `inner`'s value, or `value` instead in `percent` percent of the
    /// draws (`instead`, a parameter's only).
    Instead {
        /// What draws the value otherwise.
        inner: Box<Generator>,
        /// The other value.
        value: toml::Value,
        /// How often, in percent.
        percent: f64,
    },
}

impl Generator {
    /// The keys of a table it draws from or past (`of`), if it draws keys.
    pub fn keys_of(&self) -> Option<&KeyRange> {
        match self {
            Generator::Zipfian { keys, .. }
            | Generator::Latest { keys, .. }
            | Generator::Gaussian { keys, .. }
            | Generator::Special { keys, .. }
            | Generator::Pareto { keys, .. }
            | Generator::Key(keys)
            | Generator::KeyOrInserted(keys)
            | Generator::OtherKey { keys, .. }
            | Generator::NextKey(keys)
            | Generator::Parent(keys) => Some(keys),
            _ => None,
        }
    }

    /// The loaded keys it draws from, if it draws keys of a table (not
    /// `next-key`, which draws past them, nor `parent`, which is given).
    pub fn loaded_keys(&self) -> Option<&KeyRange> {
        match self {
            Generator::NextKey(_) | Generator::Parent(_) => None,
            other => other.keys_of(),
        }
    }

    /// The values it draws, as far as the file fixes them.
    pub fn drawn(&self) -> Drawn {
        if let Some(keys) = self.keys_of() {
            return Drawn::KeysFrom(keys.start);
        }
        match self {
            Generator::Uniform { min, max, .. }
            | Generator::Normal { min, max }
            | Generator::NuRand { min, max, .. } => Drawn::Ints(*min, *max),
            Generator::Number { digits } => {
                let low = 10i64.pow(digits - 1);
                Drawn::Ints(if *digits == 1 { 0 } else { low }, low * 10 - 1)
            }
            Generator::Text { max, .. } => Drawn::Text(*max as usize),
            Generator::WeightedText(lengths) => {
                Drawn::Text(lengths.iter().map(|(n, _)| *n as usize).max().unwrap_or(0))
            }
            Generator::Pattern(template) => Drawn::Text(template.chars().count()),
            // Never a column's: only parameters add.
            Generator::Add(_) => Drawn::Ints(i64::MIN, i64::MAX),
            // A list is all integers or all strings (checked with the file).
            Generator::List(values) => {
                let ints = values.iter().filter_map(toml::Value::as_integer);
                match (ints.clone().min(), ints.max()) {
                    (Some(min), Some(max)) => Drawn::Ints(min, max),
                    _ => Drawn::Text(
                        (values.iter().filter_map(toml::Value::as_str))
                            .map(|s| s.chars().count())
                            .max()
                            .unwrap_or(0),
                    ),
                }
            }
            Generator::Sequence { start, .. } => Drawn::KeysFrom(*start),
            Generator::Ordinal(start) => {
                Drawn::Ints(*start, start.saturating_add(bounds::MAX_ROWS_EACH))
            }
            Generator::Now => Drawn::Time,
            // The database holds the query's values to the column's type.
            Generator::Null | Generator::Selected => Drawn::Null,
            Generator::Padded { width, .. } => Drawn::Text(*width as usize),
            Generator::Seeded {
                inner,
                suffix: Some((before, after)),
                ..
            } => match inner.drawn() {
                // The integer's digits and sign, at most 20.
                Drawn::Text(n) => {
                    Drawn::Text(n + before.chars().count() + 20 + after.chars().count())
                }
                other => other,
            },
            Generator::Seeded { inner, .. } | Generator::Instead { inner, .. } => inner.drawn(),
            Generator::Histogram(values) => {
                let ints = values.iter().map(|(v, _)| *v);
                Drawn::Ints(ints.clone().min().unwrap_or(0), ints.max().unwrap_or(0))
            }
            Generator::Constant(v) => match v {
                toml::Value::Integer(i) => Drawn::Ints(*i, *i),
                toml::Value::Boolean(b) => Drawn::Ints(i64::from(*b), i64::from(*b)),
                toml::Value::Float(f) => Drawn::Float(*f),
                other => Drawn::Text(other.as_str().map_or(usize::MAX, |s| s.chars().count())),
            },
            // Every other generator draws a table's keys, answered above.
            _ => unreachable!("keys_of knows every generator of keys"),
        }
    }
}

/// An `add`: the earlier parameter `to` times `times`, plus `value`, plus
/// the earlier parameter `plus` if one is named (`area * 10000000 +
/// local`); the parameters by their index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sum {
    /// The parameter multiplied.
    pub to: usize,
    /// What it is multiplied by (1 unless told).
    pub times: i64,
    /// A constant added.
    pub value: i64,
    /// A second parameter added.
    pub plus: Option<usize>,
}

impl Sum {
    /// The sum, of the earlier parameters' integers `earlier` gives; `None`
    /// when one of them is not an integer. Saturates at the integers' ends.
    pub fn of(&self, earlier: impl Fn(usize) -> Option<i64>) -> Option<i64> {
        let scaled = earlier(self.to)?.saturating_mul(self.times);
        let plus = match self.plus {
            Some(i) => earlier(i)?,
            None => 0,
        };
        Some(scaled.saturating_add(self.value).saturating_add(plus))
    }
}

/// How many rows a table is loaded with.
#[derive(Debug, Clone, PartialEq)]
pub enum Rows {
    /// So many per unit of the scale (0: loaded empty, the transactions
    /// fill it).
    PerScale(f64),
    /// So many at any scale (`rows = N`): a table of the workload's
    /// definition, such as Voter's area codes.
    Fixed(i64),
    /// A drawn number for each key of another table (`for_each`):
    /// Epinions' reviews of each item.
    ForEach(Box<Each>),
    /// The rows of a query over the tables loaded before it (`from`),
    /// inserted once they are written: Twitter's followers.
    Selected(String),
}

impl Rows {
    /// The rows at `scale`; a `for_each` table's on average (the load
    /// draws them, [`Each`]).
    pub fn at(&self, scale: i64) -> i64 {
        match self {
            Rows::PerScale(per_scale) => rows_at(*per_scale, scale),
            Rows::Fixed(rows) => *rows,
            Rows::ForEach(each) => {
                let mean = each.count.mean(scale) * each.parent.rows.at(scale) as f64;
                mean.round() as i64
            }
            // The query's, which no file says: none are generated.
            Rows::Selected(_) => 0,
        }
    }

    /// Whether the table is loaded empty at every scale.
    pub fn none(&self) -> bool {
        matches!(self, Rows::PerScale(0.0) | Rows::Fixed(0))
    }
}

/// The rows of a `for_each` table: for each key of `parent`, `count` of
/// them.
#[derive(Debug, Clone, PartialEq)]
pub struct Each {
    /// The keys each given rows.
    pub parent: KeyRange,
    /// How many each.
    pub count: Count,
}

/// How many rows a key of a `for_each` table is given.
#[derive(Debug, Clone, PartialEq)]
pub struct Count {
    /// The fewest.
    pub min: i64,
    /// The most (uniform), or the zipfian range's end: `max - 1` at most.
    pub max: Rows,
    /// `None`: uniform in `[min, max]`; a skew: a zipfian over `0..max`,
    /// 0 the likeliest, raised to `min` when below it.
    pub theta: Option<f64>,
    /// Counts drawn in proportion to their weights (then `min` and `max`
    /// are the smallest and largest of them, and `theta` is `None`).
    pub histogram: Option<Vec<(i64, u64)>>,
}

impl Count {
    /// The zipfian sums that give a mean are taken over at most this many
    /// counts (the bound of a count's range, [`bounds::MAX_ROWS_EACH`]).
    fn range_end(&self, scale: i64) -> i64 {
        self.max.at(scale).clamp(1, bounds::MAX_ROWS_EACH)
    }

    /// The count's mean at `scale`: what a `for_each` table's rows are
    /// estimated by before its load draws them.
    pub fn mean(&self, scale: i64) -> f64 {
        if let Some(counts) = &self.histogram {
            let total: f64 = counts.iter().map(|(_, w)| *w as f64).sum();
            return counts
                .iter()
                .map(|(n, w)| *n as f64 * *w as f64)
                .sum::<f64>()
                / total;
        }
        let end = self.range_end(scale);
        match self.theta {
            None => (self.min + end.max(self.min)) as f64 / 2.0,
            Some(theta) => {
                let (mut weighted, mut total) = (0.0, 0.0);
                for rank in 1..=end {
                    let p = (rank as f64).powf(-theta);
                    weighted += p * (rank - 1).max(self.min) as f64;
                    total += p;
                }
                weighted / total
            }
        }
    }
}

/// The keys of a table's sequence column: from `start`, as many as the
/// table's rows (their end is known once the scale is).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRange {
    /// The table.
    pub table: String,
    /// The column.
    pub column: String,
    /// Its first key.
    pub start: i64,
    /// How many keys there are: the table's rows.
    pub rows: Rows,
}

/// What a statement must return or change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Exactly one row; anything else is a data error.
    One,
    /// One row, or none: then the transaction ends as an expected rollback.
    OneOrNone,
    /// No row: a row ends the transaction as an expected rollback (a check
    /// that something is not there yet, such as a seat not yet sold).
    None,
    /// Any number of rows.
    Any,
}

impl Expect {
    /// Whether its answer can end the transaction as an expected rollback,
    /// so that a COMMIT must wait for it.
    pub fn may_roll_back(self) -> bool {
        matches!(self, Expect::OneOrNone | Expect::None)
    }
}

/// A column of a checked table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
    /// Whether it may hold NULL.
    pub nullable: bool,
    /// How its values are drawn at load.
    pub generator: Generator,
    /// In a `for_each` table: no two rows of one key draw the same value.
    pub distinct: Option<Distinct>,
}

/// A `distinct` column of a `for_each` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Distinct {
    /// An earlier column of the row whose value it never draws (Twitter's
    /// follower never follows themself).
    pub other_than: Option<usize>,
}

/// A checked table.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Its name.
    pub name: String,
    /// How many rows it is loaded with.
    pub rows: Rows,
    /// Its primary key.
    pub primary_key: Vec<String>,
    /// Its columns, `repeat`ed ones expanded.
    pub columns: Vec<Column>,
    /// Its secondary indexes.
    pub indexes: Vec<Index>,
}

/// A secondary index of a checked table.
#[derive(Clone, PartialEq)]
pub struct Index {
    /// Its name, one of the file's.
    pub name: String,
    /// The columns it indexes, in order.
    pub columns: Vec<String>,
    /// Whether the database refuses two rows of the same values in them.
    pub unique: bool,
}

/// A load records the digest of its tables' `Debug` text: an index that
/// is not unique prints as the (name, columns) pair it was before indexes
/// could be unique, so that data loaded then still runs.
impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut t = f.debug_tuple("");
        t.field(&self.name).field(&self.columns);
        if self.unique {
            t.field(&"unique");
        }
        t.finish()
    }
}

impl Table {
    /// What its count of rows a key would exceed at `scale` (a `for_each`
    /// table's), named with the bound.
    fn count_beyond(&self, scale: i64) -> Option<String> {
        let Rows::ForEach(each) = &self.rows else {
            return None;
        };
        let most = each.count.max.at(scale);
        (most > bounds::MAX_ROWS_EACH).then(|| {
            format!(
                "table '{}': rows_each up to {most} rows a key, more than {}",
                self.name,
                bounds::MAX_ROWS_EACH
            )
        })
    }
}

/// A checked statement: its SQL with `?` placeholders, and what fills each.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// Its name.
    pub name: String,
    /// The SQL with each `:name` replaced by `?`.
    pub sql: String,
    /// The parameter names filling the placeholders, in order.
    pub args: Vec<String>,
    /// Whether it returns rows (a SELECT) rather than changing them.
    pub query: bool,
    /// What it must return or change.
    pub expect: Expect,
    /// Columns of its first row kept as parameters.
    pub into: Vec<String>,
    /// The list its rows' first column is kept as, and the most values it
    /// holds ([`ListRead`]).
    pub into_list: Option<ListRead>,
    /// The lists it uses: it is not sent when one came back empty, and
    /// returns no rows.
    pub lists: Vec<String>,
    /// The statements before it that it needs (uses a value they read);
    /// statements that need none of each other may be pipelined.
    pub after: Vec<usize>,
    /// Its key-value form, when the file gives one.
    pub kv: Option<KvForm>,
    /// Other forms of it with the same placeholders (SQL and key-value
    /// form), one of which runs instead when `pick` says: YCSB's update of
    /// a field chosen at random. Made by txbench; files do not write them.
    pub variants: Vec<(String, Option<KvForm>)>,
    /// The drawn parameter whose value chooses the form that runs: 0 is
    /// this one, 1 the first variant, ... (modulo their number).
    pub pick: Option<String>,
    /// How long the terminal waits after its reply, in the transaction.
    pub pause_after: Option<std::time::Duration>,
    /// The parameter (drawn or read) and the integer it must be for the
    /// statement to be sent (`when`); otherwise it returns no rows.
    pub when: Option<(String, i64)>,
    /// Its line in the file.
    pub line: usize,
}

/// A list a query reads for the later statements: the first column of up
/// to `rows` of its rows. A statement's `:name` of it is `rows`
/// placeholders, `name#0` to `name#{rows - 1}`, the values after the last
/// one read each the last one again (as BenchBase fills its `IN` lists).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRead {
    /// Its name.
    pub name: String,
    /// The most values.
    pub rows: usize,
}

impl ListRead {
    /// The name of its `i`-th placeholder's value.
    pub fn slot(name: &str, i: usize) -> String {
        format!("{name}#{i}")
    }

    /// The name of its length, which says whether it is empty.
    pub fn length(name: &str) -> String {
        format!("{name}#len")
    }
}

/// A checked transaction type.
#[derive(Debug, Clone, PartialEq)]
pub struct Transaction {
    /// Its name.
    pub name: String,
    /// Its share of the mix (0..1).
    pub share: f64,
    /// Whether it only reads.
    pub read_only: bool,
    /// Whether each statement commits on its own (no BEGIN or COMMIT).
    pub autocommit: bool,
    /// Whether a duplicate key is a conflict to retry.
    pub retry_duplicates: bool,
    /// The share that should commit, when the file says.
    pub expected_success: Option<f64>,
    /// How many times its statements run in one transaction, each time
    /// with parameters of their own.
    pub repeat: usize,
    /// Its drawn parameters.
    pub params: Vec<(String, Generator)>,
    /// Its statements.
    pub statements: Vec<Statement>,
}

/// A workload file, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The file, as it was named.
    pub file: String,
    /// Its name.
    pub name: String,
    /// Its title.
    pub title: String,
    /// What the scale counts.
    pub scale_unit: String,
    /// The default scale.
    pub default_scale: i64,
    /// Terminals per scale unit.
    pub terminals_per_scale: f64,
    /// Mean think time (s).
    pub think_secs: f64,
    /// Its tables.
    pub tables: Vec<Table>,
    /// The table (of one row per unit of the scale) whose row count is the
    /// scale of data another tool loaded, when the file names one.
    pub scale_from: Option<String>,
    /// Its transaction types.
    pub transactions: Vec<Transaction>,
    /// Its invariants: (what, query).
    pub invariants: Vec<(String, String)>,
    /// The statements that finish the loaded rows, by name, in order
    /// (`[[after_load]]`).
    pub after_load: Vec<(String, String)>,
}

impl Spec {
    /// Whether every statement has a key-value form, so that a key-value
    /// store (Redis) runs the workload.
    pub fn key_value(&self) -> bool {
        self.transactions
            .iter()
            .flat_map(|t| &t.statements)
            .all(|s| s.kv.is_some())
    }

    /// What it would exceed at `scale`, named with the bound ([`bounds`]);
    /// `None` when it fits: the rows a load writes, the terminals it
    /// defaults to, and every sequence's keys (past `i64::MAX`, or past its
    /// column).
    pub fn beyond_bounds(&self, scale: i64) -> Option<String> {
        if let Some(beyond) = self.tables.iter().find_map(|t| t.count_beyond(scale)) {
            return Some(beyond);
        }
        let rows: f64 = (self.tables.iter()).map(|t| t.rows.at(scale) as f64).sum();
        if rows > bounds::MAX_LOAD_ROWS {
            return Some(format!(
                "the tables would hold {rows:.3e} rows, more than the {:.0e} a load may write",
                bounds::MAX_LOAD_ROWS
            ));
        }
        let terminals = (self.terminals_per_scale * scale as f64).round();
        if terminals > bounds::MAX_TERMINALS {
            return Some(format!(
                "terminals_per_scale {} makes {terminals:.3e} terminals, more than {:.0e}",
                self.terminals_per_scale,
                bounds::MAX_TERMINALS
            ));
        }
        self.keys_misfit(scale)
    }

    /// The first column whose keys at `scale` would not fit its type (a
    /// sequence's last key, or the last loaded key of the range it draws
    /// from): the rest of each generator's values were checked with the file.
    fn keys_misfit(&self, scale: i64) -> Option<String> {
        self.tables.iter().find_map(|table| {
            table.columns.iter().find_map(|c| {
                let (start, count) = key_span(&c.generator, &table.rows, scale)?;
                let misfit = fits::keys_misfit(c.ty, start, count)?;
                Some(format!(
                    "table '{}' column '{}': {misfit}",
                    table.name, c.name
                ))
            })
        })
    }
}

/// The first key and the number of keys `g` draws at `scale` (a sequence
/// in a table of `rows`), if it draws keys; a padded one's are its
/// digits, whose count a text column must hold.
fn key_span(g: &Generator, rows: &Rows, scale: i64) -> Option<(i64, i64)> {
    match g {
        // A drawn table's sequence is checked with its drawn rows, at load.
        Generator::Sequence { .. } if matches!(rows, Rows::ForEach(_)) => None,
        Generator::Sequence { start, .. } => Some((*start, rows.at(scale))),
        Generator::Padded { inner, .. } => key_span(inner, rows, scale),
        other => (other.keys_of()).map(|keys| (keys.start, keys.rows.at(scale))),
    }
}

/// A checked key-value form. Each value is an index into the statement's
/// placeholders (the first one of that name).
#[derive(Debug, Clone, PartialEq)]
pub enum KvForm {
    /// One row's `columns` by key.
    Read {
        /// The table.
        table: String,
        /// The key's placeholder.
        key: usize,
        /// The columns read, in the SQL's order.
        columns: Vec<String>,
    },
    /// Columns of one row set (an update), or a new row (an insert).
    Write {
        /// The table.
        table: String,
        /// The key's placeholder.
        key: usize,
        /// Each column set and its value's placeholder.
        set: Vec<(String, usize)>,
        /// Whether it adds the row.
        insert: bool,
    },
    /// Up to `count` rows in key order from `from`.
    Scan {
        /// The table.
        table: String,
        /// The first key's placeholder.
        from: usize,
        /// The row count's placeholder.
        count: usize,
        /// The columns read.
        columns: Vec<String>,
    },
    /// A round trip that does nothing: one row of the integer 1.
    Ping,
}

impl KvForm {
    /// The table it reads or writes (none for a ping).
    pub fn table(&self) -> Option<&str> {
        match self {
            KvForm::Read { table, .. }
            | KvForm::Write { table, .. }
            | KvForm::Scan { table, .. } => Some(table),
            KvForm::Ping => None,
        }
    }
}
