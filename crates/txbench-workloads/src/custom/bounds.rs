//! The bounds on what a workload file sets. A file is input from anyone: a
//! number it gives must not make txbench allocate without end, abort or
//! wrap, so each is held to a bound named in the message that refuses it
//! (docs/workload-file.md lists them).
//!
//! What the file fixes is checked with the file; what depends on the scale
//! (`--scale`, or the scale a database holds) is checked at the load and at
//! the run ([`at_scale`]).

use super::check::{Generator, Spec};
use super::{fits, rows_at};

/// The largest workload file read: a file is a few kilobytes, and one named
/// by mistake (`/dev/zero`) must be refused, not read until memory runs out.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The most rows one load writes, its tables together: ten billion, days of
/// loading on any machine, while the load's list of chunks (one per 1,000
/// rows, 16 bytes each) stays within 160 MB.
pub const MAX_LOAD_ROWS: f64 = 1e10;

/// The most terminals a file's `terminals_per_scale` may make at a scale:
/// the bound of `--terminals`.
pub const MAX_TERMINALS: f64 = 10_000_000.0;

/// The longest string a generator draws: the longest `varchar` a file may
/// declare (MariaDB's row holds 16,383 characters of utf8mb4).
pub const MAX_TEXT_LENGTH: u32 = 16_383;

/// What `spec` would exceed at `scale`, named with the bound;
/// `None` when it fits: the rows a load writes, the terminals it defaults
/// to, and every sequence's keys (past `i64::MAX`, or past its column).
pub fn at_scale(spec: &Spec, scale: i64) -> Option<String> {
    let rows: f64 = spec
        .tables
        .iter()
        .map(|t| (t.rows_per_scale * scale as f64).round().max(1.0))
        .sum();
    if rows > MAX_LOAD_ROWS {
        return Some(format!(
            "the tables would hold {rows:.3e} rows, more than the {MAX_LOAD_ROWS:.0e} a load may write"
        ));
    }
    let terminals = (spec.terminals_per_scale * scale as f64).round();
    if terminals > MAX_TERMINALS {
        return Some(format!(
            "terminals_per_scale {} makes {terminals:.3e} terminals, more than {MAX_TERMINALS:.0e}",
            spec.terminals_per_scale
        ));
    }
    keys_misfit(spec, scale)
}

/// The first column whose keys at `scale` would not fit its type (a
/// sequence's last key, or the last loaded key of the range it draws from):
/// the rest of each generator's values were checked
/// with the file.
fn keys_misfit(spec: &Spec, scale: i64) -> Option<String> {
    spec.tables.iter().find_map(|table| {
        table.columns.iter().find_map(|c| {
            let (start, count) = match &c.generator {
                Generator::Sequence { start } => (*start, rows_at(table.rows_per_scale, scale)),
                Generator::Zipfian { keys, .. }
                | Generator::Latest { keys, .. }
                | Generator::Key(keys)
                | Generator::NextKey(keys) => (keys.start, rows_at(keys.per_scale, scale)),
                _ => return None,
            };
            let misfit = fits::keys_misfit(c.ty, start, count)?;
            Some(format!(
                "table '{}' column '{}': {misfit}",
                table.name, c.name
            ))
        })
    })
}
