//! Values across the MySQL wire: parameters bound, rows read back by column
//! type, the DDL types, how names are quoted and isolation levels.

use std::fmt::Write as _;
use std::time::{Duration, UNIX_EPOCH};

use mysql_async::consts::ColumnType as MyType;
use mysql_async::{Params, Row};
use txbench_core::schema::{ColumnType, Quote};
use txbench_core::{DbError, ErrorKind, Isolation, Param, Rows};

/// How MySQL's DDL and loads quote names.
pub(super) const QUOTE: Quote = Quote::Backtick;

/// A parameter as MySQL binds it.
pub(super) fn my_value(p: &Param<'_>) -> mysql_async::Value {
    use mysql_async::Value as V;
    match *p {
        Param::Null => V::NULL,
        Param::Int(v) => V::Int(v),
        Param::Float(v) => V::Double(v),
        Param::Text(s) => V::Bytes(s.as_bytes().to_vec()),
        Param::Timestamp(us) => V::Bytes(datetime_text(us).into_bytes()),
    }
}

/// A parameter as a SQL literal, appended to `out`: numbers and times written
/// in place, text quoted and escaped by mysql_common.
pub(super) fn push_literal(out: &mut String, p: &Param<'_>, no_backslash_escapes: bool) {
    match *p {
        Param::Null => out.push_str("NULL"),
        // As mysql_common writes them (Display).
        Param::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Param::Float(v) => {
            let _ = write!(out, "{v}");
        }
        Param::Timestamp(us) => {
            out.push('\'');
            push_datetime(out, us);
            out.push('\'');
        }
        Param::Text(_) => out.push_str(&my_value(p).as_sql(no_backslash_escapes)),
    }
}

/// `YYYY-MM-DD HH:MM:SS.ffffff` (UTC) of a time in microseconds since the epoch.
pub(super) fn datetime_text(micros: i64) -> String {
    let mut s = String::with_capacity(26);
    push_datetime(&mut s, micros);
    s
}

/// [`datetime_text`], appended to `out`.
pub(super) fn push_datetime(out: &mut String, micros: i64) {
    let t = UNIX_EPOCH + Duration::from_micros(micros.max(0) as u64);
    // RFC 3339 "2026-11-22T22:51:25.123456Z" without the T and the Z.
    let start = out.len();
    let _ = write!(out, "{}", humantime::format_rfc3339_micros(t));
    out.pop();
    out.replace_range(start + 10..start + 11, " ");
}

/// Microseconds since the epoch of a DATETIME value.
pub(super) fn datetime_micros(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> Option<i64> {
    let text = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{us:06}Z");
    let t = humantime::parse_rfc3339(&text).ok()?;
    Some(t.duration_since(UNIX_EPOCH).ok()?.as_micros() as i64)
}

/// A column value as txbench carries it. Text-protocol rows bring every value as
/// bytes, so the column's type decides.
pub(super) fn value_of(v: &mysql_async::Value, ty: MyType) -> Result<Param<'_>, DbError> {
    use mysql_async::Value as V;
    let bad = || DbError::new(ErrorKind::Data, format!("cannot read a {ty:?} value"));
    Ok(match v {
        V::NULL => Param::Null,
        V::Int(i) => Param::Int(*i),
        V::UInt(u) => Param::Int(i64::try_from(*u).map_err(|_| bad())?),
        V::Float(f) => Param::Float(f64::from(*f)),
        V::Double(f) => Param::Float(*f),
        V::Date(y, mo, d, h, mi, s, us) => {
            Param::Timestamp(datetime_micros(*y, *mo, *d, *h, *mi, *s, *us).ok_or_else(bad)?)
        }
        V::Time(..) => return Err(bad()),
        V::Bytes(b) => {
            let text = std::str::from_utf8(b).map_err(|_| bad())?;
            match ty {
                MyType::MYSQL_TYPE_TINY
                | MyType::MYSQL_TYPE_SHORT
                | MyType::MYSQL_TYPE_INT24
                | MyType::MYSQL_TYPE_LONG
                | MyType::MYSQL_TYPE_LONGLONG => Param::Int(text.parse().map_err(|_| bad())?),
                MyType::MYSQL_TYPE_NEWDECIMAL
                | MyType::MYSQL_TYPE_DECIMAL
                | MyType::MYSQL_TYPE_FLOAT
                | MyType::MYSQL_TYPE_DOUBLE => Param::Float(text.parse().map_err(|_| bad())?),
                MyType::MYSQL_TYPE_DATETIME | MyType::MYSQL_TYPE_TIMESTAMP => {
                    let iso = format!("{}Z", text.replace(' ', "T"));
                    let t = humantime::parse_rfc3339(&iso).map_err(|_| bad())?;
                    Param::Timestamp(
                        t.duration_since(UNIX_EPOCH).map_err(|_| bad())?.as_micros() as i64
                    )
                }
                _ => Param::Text(text),
            }
        }
    })
}

pub(super) fn rows_of(rows: Vec<Row>, columns: usize) -> Result<Rows, DbError> {
    let mut out = Rows::with_capacity(columns, rows.len());
    // Every row of a result shares its columns: their types are read once.
    let Some(first) = rows.first() else {
        return Ok(out);
    };
    let types: Vec<MyType> = first
        .columns_ref()
        .iter()
        .map(|c| c.column_type())
        .collect();
    for row in rows {
        for (v, ty) in row.unwrap().iter().zip(&types) {
            out.push(value_of(v, *ty)?);
        }
    }
    Ok(out)
}

pub(super) fn ddl_type(ty: ColumnType) -> String {
    match ty {
        ColumnType::Int => "INT".into(),
        ColumnType::BigInt => "BIGINT".into(),
        ColumnType::Decimal(p, s) => format!("DECIMAL({p},{s})"),
        ColumnType::Char(n) => format!("CHAR({n})"),
        ColumnType::Varchar(n) => format!("VARCHAR({n})"),
        // Up to 16 MiB: MariaDB's TEXT stops at 64 KiB.
        ColumnType::Text => "MEDIUMTEXT".into(),
        ColumnType::Timestamp => "DATETIME(6)".into(),
    }
}

pub(super) fn isolation_sql(i: Isolation) -> &'static str {
    match i {
        Isolation::ReadCommitted => "READ COMMITTED",
        Isolation::RepeatableRead => "REPEATABLE READ",
        Isolation::Serializable => "SERIALIZABLE",
    }
}

pub(super) fn params(ps: &[Param<'_>]) -> Params {
    if ps.is_empty() {
        Params::Empty
    } else {
        Params::Positional(ps.iter().map(my_value).collect())
    }
}
