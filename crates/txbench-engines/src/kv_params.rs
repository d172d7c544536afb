//! Parameters and loaded values as the text a key-value store holds (Redis,
//! etcd): both store strings, whatever a column's type.

use txbench_core::schema::Statement;
use txbench_core::{DbError, ErrorKind, Param, Value};

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
