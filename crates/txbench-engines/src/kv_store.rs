//! What the key-value engines (Redis, etcd) share: which workloads and
//! statements they run, how a table is laid out (a key prefix, a marker key
//! that says it exists, a value or a whole row per key), the refusals of the
//! rest, and parameters and loaded values as the text they store (both hold
//! strings, whatever a column's type).

use txbench_core::schema::{Schema, Statement, Table};
use txbench_core::{DbError, ErrorKind, Param, Value};

/// Whether a table holds whole rows: all but a key and one value (which
/// are stored as the value itself).
pub fn whole_rows(table: &Table) -> bool {
    !(table.columns.len() == 2 && table.primary_key == [table.columns[0].name])
}

/// The store's key of row `key` of a key-and-value `table`.
pub fn row_key(table: &str, key: &str) -> String {
    format!("{table}:{key}")
}

/// The marker key that says a table exists.
pub fn marker(table: &str) -> String {
    format!("txbench:table:{table}")
}

/// Refuse, naming `engine`, a schema it cannot hold: every table needs a
/// one-column primary key, and to be a key and one value unless every
/// statement of the workload has a key-value form.
pub fn can_hold(engine: &str, schema: &Schema) -> Result<(), DbError> {
    for table in schema.tables {
        if table.primary_key.len() != 1 || (whole_rows(table) && !schema.key_value) {
            return Err(not_key_value_table(engine, table));
        }
    }
    Ok(())
}

/// Refuse, naming `engine`, a statement without a key-value form.
pub fn prepare(engine: &str, stmt: &Statement) -> Result<(), DbError> {
    match stmt.kv {
        Some(_) => Ok(()),
        None => Err(not_key_value(engine, &format!("statement '{}'", stmt.name))),
    }
}

/// Why `engine` cannot hold `table` for this workload.
pub fn not_key_value_table(engine: &str, table: &Table) -> DbError {
    DbError::new(
        ErrorKind::Other,
        format!(
            "{engine} holds key-value tables only (a one-column primary key and one value column, or more columns when every statement has a key-value form); table '{}' has {} columns and a primary key of {}",
            table.name,
            table.columns.len(),
            table.primary_key.len()
        ),
    )
}

/// Why `engine` cannot run `what` (a statement, an index, SQL).
/// An insert of a row whose key `table` already holds: a constraint
/// failure, as a SQL engine's duplicate key is (retried where the workload
/// asks).
pub fn duplicate_key(table: &Table, key: &str) -> DbError {
    DbError::new(
        ErrorKind::Constraint,
        format!("duplicate key: table '{}' has a row {key}", table.name),
    )
}

pub fn not_key_value(engine: &str, what: &str) -> DbError {
    DbError::new(
        ErrorKind::Other,
        format!("{engine} runs key-value workloads only: {what} is not a key-value operation"),
    )
}

/// Why `engine` cannot read `table` in key order.
pub fn no_key_order(engine: &str, table: &Table) -> DbError {
    DbError::new(
        ErrorKind::Other,
        format!(
            "{engine} keeps key order only for tables of more than a key and a value: table '{}' has none",
            table.name
        ),
    )
}

/// Parameter `i` of `stmt` as the text stored.
pub fn param_text(stmt: &Statement, params: &[Param<'_>], i: usize) -> Result<String, DbError> {
    match params.get(i) {
        Some(Param::Int(v)) => Ok(v.to_string()),
        Some(Param::Text(s)) => Ok((*s).to_string()),
        Some(Param::Float(v)) => Ok(v.to_string()),
        Some(Param::Timestamp(v)) => Ok(v.to_string()),
        Some(Param::Null) | None => Err(DbError::new(
            ErrorKind::Other,
            format!(
                "statement '{}': parameter {} is missing or NULL, which a key-value store cannot hold",
                stmt.name,
                i + 1
            ),
        )),
    }
}

/// Integer parameter `i` of `stmt` (a range's bounds).
pub fn param_int(stmt: &Statement, params: &[Param<'_>], i: usize) -> Result<i64, DbError> {
    let parsed = match params.get(i) {
        Some(Param::Int(v)) => Some(*v),
        Some(Param::Text(t)) => t.parse().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| {
        DbError::new(
            ErrorKind::Data,
            format!(
                "statement '{}': parameter {} is not an integer",
                stmt.name,
                i + 1
            ),
        )
    })
}

/// A loaded value as the text stored (NULL as the empty string).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Text(s) => s.clone(),
        Value::Timestamp(t) => t.to_string(),
    }
}
