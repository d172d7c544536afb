//! Whether PostgreSQL can hold a table's rows, decided before anything is
//! created: it creates a table of any row width and refuses the first row
//! too big for a page ("row is too big: size 8168, maximum size 8160"),
//! mid-load. A row is measured as PostgreSQL lays out a heap tuple whose
//! values are all at their declared width and ASCII, after its toaster has
//! moved every value it can out of line.
//!
//! Measured on PostgreSQL 15 with a bigint key and varchar(L) fields of
//! random letters (YCSB's records): at most 738 fields of 10 characters
//! (11 bytes each in the row), 338 of 23 (24 bytes), 451 of 24 or more (an
//! 18-byte pointer each); 1,599 of 1 (the 1,600-column limit).

use txbench_core::schema::{ColumnType, Table};

/// The most columns a table has (`MaxHeapAttributeNumber`).
pub const MOST_COLUMNS: usize = 1600;

/// The most bytes a row takes in an 8 kB page (`MaxHeapTupleSize`).
pub const MOST_ROW_BYTES: usize = 8160;

/// A tuple's header, aligned (no NULL bitmap: the row measured has no NULLs).
const HEADER_BYTES: usize = 24;

/// A value moved out of line: the pointer the row keeps in its place.
const TOAST_POINTER_BYTES: usize = 18;

/// Values larger than this are the ones the toaster moves out of line
/// (`MAXALIGN(TOAST_POINTER_SIZE)`).
const TOASTABLE_ABOVE: usize = 24;

/// What a table's row at full width would take beyond PostgreSQL's limits,
/// or `None` when it fits.
pub fn too_big(table: &Table) -> Option<String> {
    let columns = table.columns.len();
    if columns > MOST_COLUMNS {
        return Some(format!(
            "table '{}' has {columns} columns; PostgreSQL holds at most {MOST_COLUMNS}",
            table.name
        ));
    }
    let bytes = row_bytes(table.columns.iter().map(|c| c.ty));
    (bytes > MOST_ROW_BYTES).then(|| {
        format!(
            "a row of table '{}' at its columns' full width takes {bytes} bytes; \
             PostgreSQL holds at most {MOST_ROW_BYTES} in a row",
            table.name
        )
    })
}

/// The bytes of a heap tuple of these column types, each value at full
/// width, aligned as PostgreSQL aligns them.
fn row_bytes(types: impl Iterator<Item = ColumnType>) -> usize {
    types.fold(HEADER_BYTES, |offset, ty| {
        let (align, size) = layout(ty);
        offset.next_multiple_of(align) + size
    })
}

/// A value's alignment and size in the row.
fn layout(ty: ColumnType) -> (usize, usize) {
    match ty {
        ColumnType::Int => (4, 4),
        ColumnType::BigInt | ColumnType::Timestamp => (8, 8),
        ColumnType::Char(n) | ColumnType::Varchar(n) => varlena(usize::from(n)),
        // Of any length: always moved out of line at full width.
        ColumnType::Text => (1, TOAST_POINTER_BYTES),
        // A numeric's digits in base 10,000, after a 2-byte header.
        ColumnType::Decimal(p, s) => {
            let groups = usize::from(p - s).div_ceil(4) + usize::from(s).div_ceil(4);
            varlena(2 + 2 * groups)
        }
    }
}

/// A variable-length value of `data` bytes: moved out of line when larger
/// than its pointer would be, else kept in the row with a 1-byte header and
/// no alignment.
fn varlena(data: usize) -> (usize, usize) {
    if data + 1 > TOASTABLE_ABOVE {
        (1, TOAST_POINTER_BYTES)
    } else {
        (1, data + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bigint key and `fields` varchar(`length`) columns.
    fn records(fields: usize, length: u16) -> usize {
        row_bytes(
            std::iter::once(ColumnType::BigInt)
                .chain(std::iter::repeat_n(ColumnType::Varchar(length), fields)),
        )
    }

    #[test]
    fn the_widest_records_measured_on_postgresql_fit_and_one_more_field_does_not() {
        for (length, most) in [(10, 738), (23, 338), (24, 451), (100, 451), (10_000, 451)] {
            assert!(records(most, length) <= MOST_ROW_BYTES, "{most} x {length}");
            assert!(
                records(most + 1, length) > MOST_ROW_BYTES,
                "{most} x {length}"
            );
        }
    }

    #[test]
    fn integers_are_aligned() {
        // 24 + 4, then 8-aligned to 32 + 8.
        assert_eq!(
            row_bytes([ColumnType::Int, ColumnType::BigInt].into_iter()),
            40
        );
    }
}
