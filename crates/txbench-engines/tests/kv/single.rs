//! A table of whole rows for the single-record tests (an integer key and two
//! fields) and its statements: what YCSB's single operations do outside a
//! transaction, on each key-value engine.

use txbench_core::schema::{Column, ColumnType, KvOp, Statement, Table};
use txbench_core::{Loader, Param, RowBatch, Session, Value};

pub static ONE: Table = Table {
    name: "txbench_kv_one",
    columns: &[
        Column::new("id", ColumnType::BigInt),
        Column::new("f0", ColumnType::Varchar(20)),
        Column::new("f1", ColumnType::Varchar(20)),
    ],
    primary_key: &["id"],
};

pub static ONE_READ: Statement =
    Statement::new("read", "SELECT * FROM txbench_kv_one WHERE id = ?").key_value(KvOp::Read {
        table: &ONE,
        key: 0,
        columns: &["id", "f0", "f1"],
    });
pub static ONE_UPDATE: Statement =
    Statement::new("update", "UPDATE txbench_kv_one SET f0 = ? WHERE id = ?").key_value(
        KvOp::Write {
            table: &ONE,
            key: 1,
            set: &[("f0", 0)],
            insert: false,
        },
    );
pub static ONE_UPDATE_F1: Statement =
    Statement::new("update f1", "UPDATE txbench_kv_one SET f1 = ? WHERE id = ?").key_value(
        KvOp::Write {
            table: &ONE,
            key: 1,
            set: &[("f1", 0)],
            insert: false,
        },
    );
/// An update of every field: the whole row.
pub static ONE_UPDATE_ALL: Statement = Statement::new(
    "update all",
    "UPDATE txbench_kv_one SET f0 = ?, f1 = ? WHERE id = ?",
)
.key_value(KvOp::Write {
    table: &ONE,
    key: 2,
    set: &[("f0", 0), ("f1", 1)],
    insert: false,
});
pub static ONE_INSERT: Statement = Statement::new(
    "insert",
    "INSERT INTO txbench_kv_one (id, f0, f1) VALUES (?, ?, ?)",
)
.key_value(KvOp::Write {
    table: &ONE,
    key: 0,
    set: &[("f0", 1), ("f1", 2)],
    insert: true,
});
pub static ONE_RANGE: Statement = Statement::new(
    "range",
    "SELECT id, f0 FROM txbench_kv_one WHERE id >= ? ORDER BY id LIMIT ?",
)
.key_value(KvOp::Range {
    table: &ONE,
    from: 0,
    count: 1,
    columns: &["id", "f0"],
});

/// The table anew with rows 0 to `n - 1`, row k's fields `a{k}` and `b{k}`.
pub async fn load<S: Session + Loader>(a: &mut S, n: i64) {
    a.drop_table(ONE.name).await.unwrap();
    a.create_table(&ONE).await.unwrap();
    let mut batch = RowBatch::for_table(&ONE, n as usize);
    for k in 0..n {
        batch.values.extend([
            Value::Int(k),
            Value::Text(format!("a{k}")),
            Value::Text(format!("b{k}")),
        ]);
    }
    a.insert_batch(&ONE, &batch).await.unwrap();
}

/// Field `column` of row `id`, if the row exists.
pub async fn field<S: Session>(s: &mut S, id: i64, column: usize) -> Option<String> {
    let rows = s.query(&ONE_READ, &[Param::Int(id)]).await.unwrap();
    let row = rows.row(0)?;
    row.get(column).unwrap().as_str().map(str::to_string)
}
