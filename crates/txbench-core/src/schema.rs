//! Declarative schemas: a workload says what its tables are, each engine renders
//! the DDL in its own dialect, every name quoted ([`Quote`]).

pub use crate::identifier::Quote;

/// The logical type of a column; engines choose the native type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// A 32-bit integer.
    Int,
    /// A 64-bit integer.
    BigInt,
    /// An exact decimal with precision and scale (money, rates).
    Decimal(u8, u8),
    /// Fixed-length text.
    Char(u16),
    /// Variable-length text up to a length.
    Varchar(u16),
    /// Text of any length, kept out of the row where the engine does so
    /// (PostgreSQL's `text`, MariaDB's `MEDIUMTEXT`): an article, a
    /// document.
    Text,
    /// A date and time.
    Timestamp,
}

/// The mark txbench's loads give every table they create (a comment, where
/// the engine keeps one): a table of the same name another tool made since
/// (`sysbench cleanup; sysbench prepare`) lacks it, so a record naming the
/// table is known to describe another table (`Loader::marked`).
pub const TABLE_MARK: &str = "made by txbench";

/// A column as a database declares it (`Loader::columns`): what a run
/// checks the workload's tables against before it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredColumn {
    /// Its name.
    pub name: String,
    /// Its type as the database names it (`integer`, `character varying`,
    /// `varchar(16)`, SQLite's `INTEGER`).
    pub type_name: String,
    /// Whether an insert must give it a value: NOT NULL, no default, not
    /// generated.
    pub required: bool,
}

/// One column of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The column's name.
    pub name: &'static str,
    /// Its logical type.
    pub ty: ColumnType,
    /// Whether it may hold NULL.
    pub nullable: bool,
}

impl Column {
    /// A NOT NULL column.
    pub const fn new(name: &'static str, ty: ColumnType) -> Self {
        Column {
            name,
            ty,
            nullable: false,
        }
    }

    /// A column that may hold NULL.
    pub const fn nullable(name: &'static str, ty: ColumnType) -> Self {
        Column {
            name,
            ty,
            nullable: true,
        }
    }
}

/// A table: its columns in load order and its primary key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    /// The table's name.
    pub name: &'static str,
    /// The columns, in the order loaders supply values.
    pub columns: &'static [Column],
    /// The primary key columns; empty for a table without one (TPC-C history).
    pub primary_key: &'static [&'static str],
}

impl Table {
    /// The columns as `CREATE TABLE` lists them, each its name quoted, its
    /// type in the engine's dialect (`ddl_type`) and `NOT NULL` where it is
    /// not nullable: `"s_id" integer NOT NULL, ...`.
    pub fn column_definitions<T: std::fmt::Display>(
        &self,
        quote: Quote,
        ddl_type: impl Fn(ColumnType) -> T,
    ) -> String {
        let column = |c: &Column| {
            let not_null = if c.nullable { "" } else { " NOT NULL" };
            format!("{} {}{not_null}", quote.name(c.name), ddl_type(c.ty))
        };
        let all: Vec<String> = self.columns.iter().map(column).collect();
        all.join(", ")
    }

    /// The columns' names quoted, in load order: `"s_id", "s_name", ...`.
    pub fn column_list(&self, quote: Quote) -> String {
        quote.list(self.columns.iter().map(|c| c.name))
    }

    /// The primary key's columns quoted: `"w_id", "d_id"`.
    pub fn primary_key_list(&self, quote: Quote) -> String {
        quote.list(self.primary_key.iter().copied())
    }
}

/// A secondary index, created after the data is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Index {
    /// The index's name.
    pub name: &'static str,
    /// The table it indexes.
    pub table: &'static str,
    /// The indexed columns, in order.
    pub columns: &'static [&'static str],
    /// Whether the index enforces uniqueness.
    pub unique: bool,
}

impl Index {
    /// `CREATE [UNIQUE] INDEX ...`: the same in every engine txbench has,
    /// but for how names are quoted.
    pub fn create_sql(&self, quote: Quote) -> String {
        format!(
            "CREATE {}INDEX {} ON {} ({})",
            if self.unique { "UNIQUE " } else { "" },
            quote.name(self.name),
            quote.name(self.table),
            quote.list(self.columns.iter().copied())
        )
    }
}

/// A foreign key, added after the load when asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForeignKey {
    /// The constraint's name.
    pub name: &'static str,
    /// The referencing table.
    pub table: &'static str,
    /// The referencing columns.
    pub columns: &'static [&'static str],
    /// The referenced table.
    pub references: &'static str,
    /// The referenced columns (its primary key).
    pub referenced_columns: &'static [&'static str],
}

impl ForeignKey {
    /// `ALTER TABLE ... ADD CONSTRAINT ... FOREIGN KEY ...` (PostgreSQL and MySQL).
    pub fn add_sql(&self, quote: Quote) -> String {
        format!(
            "ALTER TABLE {} ADD CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})",
            quote.name(self.table),
            quote.name(self.name),
            quote.list(self.columns.iter().copied()),
            quote.name(self.references),
            quote.list(self.referenced_columns.iter().copied())
        )
    }
}

/// A workload's whole schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schema {
    /// The tables, in creation order.
    pub tables: &'static [Table],
    /// The secondary indexes.
    pub indexes: &'static [Index],
    /// Foreign keys (optional at load time).
    pub foreign_keys: &'static [ForeignKey],
    /// Whether every statement of the workload has a key-value form
    /// ([`Statement::kv`]), so that a key-value store may hold tables of
    /// more than a key and a value (a hash per row, in Redis).
    pub key_value: bool,
}

impl Schema {
    /// The table with this name.
    pub fn table(&self, name: &str) -> Option<&'static Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}

/// How a load splits tables into hash partitions, to model a sharded store on
/// one server (PostgreSQL's `PARTITION BY HASH`): partition `i` of a table is
/// the table [`partition_name`]`(table, i)`, and tables partitioned by the
/// same count and a column of the same type put the same key in partitions of
/// the same number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partitioning {
    /// Partitions per table (at least 1).
    pub count: u32,
    /// Each partitioned table and the column it is hashed by; other tables
    /// stay whole.
    pub by: &'static [(&'static str, &'static str)],
}

impl Partitioning {
    /// The column `table` is hashed by, if it is partitioned.
    pub fn column(&self, table: &str) -> Option<&'static str> {
        self.by.iter().find(|(t, _)| *t == table).map(|(_, c)| *c)
    }
}

/// The name of partition `index` of `table`.
pub fn partition_name(table: &str, index: u32) -> String {
    format!("{table}_p{index}")
}

/// A statement a procedure runs, with `?` placeholders in order.
///
/// Engines translate placeholders and row-locking clauses into their dialect and
/// prepare each statement once per session. A statement that is a point read or
/// write of a key-value table also says so ([`Statement::kv`]), so that a
/// key-value store (Redis) runs the same procedure without SQL.
#[derive(Debug)]
pub struct Statement {
    /// A short name for error messages and per-operation latency.
    pub name: &'static str,
    /// The SQL text, portable across engines, with `?` placeholders.
    pub sql: &'static str,
    /// Whether the rows read should be locked for update (`FOR UPDATE` where the engine has it).
    pub for_update: bool,
    /// The same statement as a key-value operation, when it is one.
    pub kv: Option<KvOp>,
}

/// A statement as an operation on a key-value table: a table with a
/// one-column primary key. Key-value stores keep each row under the key
/// `<table>:<primary key>`: [`KvOp::Get`], [`KvOp::Put`] and [`KvOp::Scan`]
/// are for tables of a key and one value, the others for any such table (a
/// hash of its columns per row, in Redis).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvOp {
    /// Read one key: parameter `key` is the key; the reply is one row holding
    /// the value, or no row when the key is absent.
    Get {
        /// The table.
        table: &'static str,
        /// Which parameter is the key.
        key: usize,
    },
    /// Write one key: parameter `key` is the key and parameter `value` its new
    /// value; the reply is one changed row.
    Put {
        /// The table.
        table: &'static str,
        /// Which parameter is the key.
        key: usize,
        /// Which parameter is the value.
        value: usize,
    },
    /// Read the whole table as (key, value) rows (small tables: metadata).
    Scan {
        /// The table.
        table: &'static str,
    },
    /// Read some columns of one row: parameter `key` is the primary key; the
    /// reply is one row of `columns` in order, or no row when it is absent.
    Read {
        /// The table.
        table: &'static Table,
        /// Which parameter is the key.
        key: usize,
        /// The columns to read.
        columns: &'static [&'static str],
    },
    /// Set columns of one row, each to a parameter: an update changes a row
    /// that exists (the reply is 1 changed row, or 0 when there is none); an
    /// insert adds one that does not (a row already there is an error).
    Write {
        /// The table.
        table: &'static Table,
        /// Which parameter is the key.
        key: usize,
        /// Each column set, and which parameter is its value.
        set: &'static [(&'static str, usize)],
        /// Whether it adds the row rather than changing it.
        insert: bool,
    },
    /// Read up to parameter `count` rows in key order from the key of
    /// parameter `from` on: `columns` of each (integer keys only).
    Range {
        /// The table.
        table: &'static Table,
        /// Which parameter is the first key.
        from: usize,
        /// Which parameter is the most rows.
        count: usize,
        /// The columns to read.
        columns: &'static [&'static str],
    },
    /// A round trip that does nothing: one row of the integer 1, as
    /// `SELECT 1` answers (BenchBase's NoOp).
    Ping,
    /// The largest key of the table (integer keys only): one row of it, or
    /// no row when the table is empty.
    Last {
        /// The table.
        table: &'static Table,
    },
    /// A script the store runs atomically on one partition of a sharded
    /// key-value store (Lua on Redis Cluster), a whole single-partition
    /// transaction in one request: the workload's own procedure next to its
    /// data. Its parameters are its arguments (`ARGV`), as text, in order;
    /// `KEYS[1]` is the partition's key prefix `P` (`{tag}`, which places every
    /// key that starts with it in the partition). Rows are laid out as the
    /// store loaded them ([`crate::Loader::create_partitioned_table`]):
    ///
    /// * row `k1, k2, ...` (its primary key's values) of table `t`: the hash
    ///   `P t:k1:k2...`, one field per column, values as text;
    /// * the primary keys of `t`'s rows in the partition: the set `P t`;
    /// * index `i` on one column of `t`: the hash `P index:i`, from the
    ///   column's value to the row's primary key.
    ///
    /// A query's reply is an array of rows, each an array of values; a
    /// change's is the number of rows it changed.
    Script {
        /// The script's source (Lua).
        source: &'static str,
        /// The partition it runs on.
        on: ScriptOn,
        /// The partitions the tables are split into at load.
        partitions: u32,
    },
}

/// The partition a [`KvOp::Script`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptOn {
    /// The one that holds parameter `param`'s value: where a row whose
    /// partitioning column has that value was placed.
    PartitionOf {
        /// Which parameter places it.
        param: usize,
    },
    /// Partition number `index` (0-based): for a script sent to every
    /// partition, one statement each.
    Partition {
        /// The partition's number.
        index: u32,
    },
}

impl Statement {
    /// A statement that reads or writes without explicit row locks.
    pub const fn new(name: &'static str, sql: &'static str) -> Self {
        Statement {
            name,
            sql,
            for_update: false,
            kv: None,
        }
    }

    /// A query whose rows are locked for a later update in the same transaction.
    pub const fn for_update(name: &'static str, sql: &'static str) -> Self {
        Statement {
            name,
            sql,
            for_update: true,
            kv: None,
        }
    }

    /// The statement, which is also the key-value operation `op`.
    pub const fn key_value(self, op: KvOp) -> Self {
        Statement {
            kv: Some(op),
            ..self
        }
    }
}
