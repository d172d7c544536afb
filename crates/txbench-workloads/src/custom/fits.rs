//! Whether a column's generator draws only values its type holds, so that a
//! load writes exactly what the file says on every engine: MariaDB's
//! `LOAD DATA LOCAL` would turn a misfit into a warning and a changed value
//! (text into a number as 0, a large number clamped, a long string cut),
//! PostgreSQL refuses it mid-load, and SQLite stores it as written.
//!
//! What the file fixes is checked with the file ([`misfit`]); where a
//! sequence's keys end depends on the scale, at the load ([`keys_misfit`]).

use txbench_core::schema::ColumnType;

/// The values a generator draws, as far as the file fixes them.
#[derive(Debug, Clone, PartialEq)]
pub enum Drawn {
    /// Integers in `[min, max]`.
    Ints(i64, i64),
    /// Keys from the first, as many as the scale makes.
    KeysFrom(i64),
    /// Text of at most this many characters.
    Text(usize),
    /// A number with a fraction.
    Float(f64),
    /// A point in time.
    Time,
    /// NULL (in a nullable column, which the check of the file made sure of).
    Null,
}

/// What the values drawn would lose in a column of type `ty`, or `None`
/// when every one fits.
pub fn misfit(ty: ColumnType, drawn: &Drawn) -> Option<String> {
    match *drawn {
        Drawn::Ints(min, max) => ints_misfit(ty, min, max),
        Drawn::KeysFrom(start) => ints_misfit(ty, start, start),
        Drawn::Text(chars) => text_misfit(ty, chars),
        Drawn::Float(f) => float_misfit(ty, f),
        Drawn::Null => None,
        Drawn::Time if ty == ColumnType::Timestamp => None,
        Drawn::Time => Some(format!(
            "a time in a column of type {ty:?}: it needs timestamp"
        )),
    }
}

/// What the keys of a sequence from `start`, `rows` of them, would lose in
/// a column of type `ty` (the last one too large, or past `i64::MAX`).
pub fn keys_misfit(ty: ColumnType, start: i64, rows: i64) -> Option<String> {
    let Some(last) = start.checked_add(rows.saturating_sub(1)) else {
        return Some(format!(
            "{rows} keys from {start} go past the largest integer, {}",
            i64::MAX
        ));
    };
    ints_misfit(ty, start, last)
}

fn ints_misfit(ty: ColumnType, min: i64, max: i64) -> Option<String> {
    let fits = |low: i64, high: i64| low <= min && max <= high;
    match ty {
        ColumnType::Int if !fits(i32::MIN.into(), i32::MAX.into()) => Some(format!(
            "values up to {} do not fit an int (-2147483648 to 2147483647): use bigint",
            if max > i64::from(i32::MAX) { max } else { min }
        )),
        ColumnType::Decimal(p, s) => {
            let limit = 10i128.pow(u32::from(p - s));
            let widest = i128::from(min).abs().max(i128::from(max).abs());
            (widest >= limit).then(|| {
                format!(
                    "{widest} does not fit decimal({p},{s}): at most {} digits before the point",
                    p - s
                )
            })
        }
        ColumnType::Char(n) | ColumnType::Varchar(n) => {
            let chars = min.to_string().len().max(max.to_string().len());
            (chars > usize::from(n)).then(|| {
                format!(
                    "numbers of up to {chars} characters do not fit {}({n})",
                    text_type(ty)
                )
            })
        }
        ColumnType::Timestamp => Some("numbers in a timestamp column".into()),
        // Digits of any number.
        ColumnType::Text => None,
        _ => None,
    }
}

fn text_misfit(ty: ColumnType, chars: usize) -> Option<String> {
    match ty {
        ColumnType::Char(n) | ColumnType::Varchar(n) if chars > usize::from(n) => Some(format!(
            "text of up to {chars} characters does not fit {}({n})",
            text_type(ty)
        )),
        ColumnType::Char(_) | ColumnType::Varchar(_) | ColumnType::Text => None,
        _ => Some(format!(
            "text in a column of a number or time type ({ty:?})"
        )),
    }
}

fn float_misfit(ty: ColumnType, f: f64) -> Option<String> {
    match ty {
        ColumnType::Decimal(p, s) => {
            let scaled = f * 10f64.powi(i32::from(s));
            let exact = scaled.fract() == 0.0 && scaled.abs() < 10f64.powi(i32::from(p));
            (!exact).then(|| format!("{f} is not exactly a decimal({p},{s})"))
        }
        ColumnType::Char(_) | ColumnType::Varchar(_) | ColumnType::Text => {
            text_misfit(ty, f.to_string().len())
        }
        _ => Some(format!("{f} has a fraction: the column is {ty:?}")),
    }
}

fn text_type(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::Char(_) => "char",
        _ => "varchar",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_that_an_engine_would_change_are_misfits() {
        assert!(misfit(ColumnType::BigInt, &Drawn::Text(5)).is_some());
        let huge = Drawn::Ints(0, i64::MAX);
        let said = misfit(ColumnType::Int, &huge).unwrap();
        assert!(said.contains("9223372036854775807"), "{said}");
        assert!(misfit(ColumnType::BigInt, &huge).is_none());
        let said = misfit(ColumnType::Char(5), &Drawn::Text(50)).unwrap();
        assert_eq!(said, "text of up to 50 characters does not fit char(5)");
        assert!(misfit(ColumnType::Varchar(50), &Drawn::Text(50)).is_none());
        assert!(misfit(ColumnType::Decimal(4, 2), &Drawn::Ints(-99, 99)).is_none());
        assert!(misfit(ColumnType::Decimal(4, 2), &Drawn::Ints(0, 100)).is_some());
        assert!(misfit(ColumnType::Decimal(4, 2), &Drawn::Float(1.25)).is_none());
        assert!(misfit(ColumnType::Decimal(4, 2), &Drawn::Float(1.005)).is_some());
        assert!(misfit(ColumnType::Char(3), &Drawn::Ints(1000, 9999)).is_some());
        assert!(misfit(ColumnType::Char(4), &Drawn::Ints(1000, 9999)).is_none());
    }

    #[test]
    fn keys_are_held_to_their_last_value_at_the_scale() {
        assert!(keys_misfit(ColumnType::Int, 1, 1_000).is_none());
        assert!(keys_misfit(ColumnType::Int, i64::from(i32::MAX), 2).is_some());
        let said = keys_misfit(ColumnType::BigInt, 9_223_372_036_854_775_800, 10).unwrap();
        assert!(said.contains("go past the largest integer"), "{said}");
    }
}
