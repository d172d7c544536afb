//! Reading typed fields out of result rows, with errors that say what was missing.

use txbench_core::{DbError, ErrorKind, Param, Reply, Row, Rows};

/// The rows of a pipelined query's reply (none for a change).
pub fn rows(reply: &Reply) -> &Rows {
    static EMPTY: Rows = Rows::empty();
    reply.rows().unwrap_or(&EMPTY)
}

/// The first row of a result, or a data error naming what was looked up.
pub fn first<'a>(rows: &'a Rows, what: &str) -> Result<Row<'a>, DbError> {
    rows.row(0).ok_or_else(|| DbError::missing(what))
}

/// The row whose first column is `key`, or a data error naming what was looked up.
pub fn keyed<'a>(rows: &'a Rows, key: i64, what: &str) -> Result<Row<'a>, DbError> {
    rows.iter()
        .find(|row| row.get(0).and_then(Param::as_i64) == Some(key))
        .ok_or_else(|| DbError::missing(what))
}

/// Column `i` as an integer.
pub fn int(row: Row<'_>, i: usize, what: &str) -> Result<i64, DbError> {
    row.get(i).and_then(Param::as_i64).ok_or_else(|| bad(what))
}

/// Column `i` as a float.
pub fn float(row: Row<'_>, i: usize, what: &str) -> Result<f64, DbError> {
    row.get(i).and_then(Param::as_f64).ok_or_else(|| bad(what))
}

/// Column `i` as text.
pub fn text<'a>(row: Row<'a>, i: usize, what: &str) -> Result<&'a str, DbError> {
    row.get(i).and_then(Param::as_str).ok_or_else(|| bad(what))
}

fn bad(what: &str) -> DbError {
    DbError::new(
        ErrorKind::Data,
        format!("unexpected NULL or type in {what}"),
    )
}

/// Round money to cents, as a DECIMAL(_, 2) column stores it.
pub fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
