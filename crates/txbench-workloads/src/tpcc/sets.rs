//! Statements that act on a set of rows at once, one statement per size of the
//! set: a server answers every statement with a reply of its own, and those
//! replies, not the rows, were most of its work when New-Order and Delivery
//! sent a statement per row.

use txbench_core::Param;
use txbench_core::schema::Statement;

/// One statement per set size from 1 to `max`; index `n - 1` holds size `n`.
pub(super) fn by_size(max: usize, statement: impl Fn(usize) -> Statement) -> Vec<Statement> {
    (1..=max).map(statement).collect()
}

/// `n` placeholders separated by commas, for an IN list.
pub(super) fn placeholders(n: usize) -> String {
    vec!["?"; n].join(", ")
}

/// `n` keys of a table whose primary key is (warehouse, district, id), with
/// the warehouse given once: `w = ? AND d IN (...) AND id IN (...) AND ((d = ?
/// AND id = ?) OR ...)`, whose parameters [`district_key_params`] lists. The
/// IN lists are what SQLite searches its WITHOUT ROWID primary key by (at
/// most n x n probes; its OR optimization needs a rowid); the pairs keep only
/// the keys asked for; PostgreSQL (BitmapOr) and MariaDB (ranges) read the
/// pairs through the primary key.
pub(super) fn district_keys([w, d, id]: [&str; 3], n: usize) -> String {
    let one = format!("({d} = ? AND {id} = ?)");
    format!(
        "{w} = ? AND {d} IN ({list}) AND {id} IN ({list}) AND ({pairs})",
        list = placeholders(n),
        pairs = vec![one.as_str(); n].join(" OR ")
    )
}

/// The parameters of [`district_keys`] for warehouse `w` and (district, id) `keys`.
pub(super) fn district_key_params(w: i64, keys: &[(i64, i64)]) -> Vec<Param<'static>> {
    let mut params = Vec::with_capacity(1 + keys.len() * 4);
    params.push(Param::Int(w));
    params.extend(keys.iter().map(|&(d, _)| Param::Int(d)));
    params.extend(keys.iter().map(|&(_, id)| Param::Int(id)));
    params.extend(
        keys.iter()
            .flat_map(|&(d, id)| [Param::Int(d), Param::Int(id)]),
    );
    params
}

/// SQL built once for a statement table that lives as long as the program.
pub(super) fn leak(sql: String) -> &'static str {
    Box::leak(sql.into_boxed_str())
}
