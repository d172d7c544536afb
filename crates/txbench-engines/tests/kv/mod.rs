//! What every key-value engine (Redis, etcd) must do with the key-value form
//! of statements, checked the same way on each: tables are key prefixes that
//! load, scan and drop; optimistic transactions see their own writes, abort
//! as conflicts when a key they read changed underneath and apply nothing
//! then; wider tables hold whole rows, read some of their columns, refuse a
//! second insert of a key, and read in key order.

pub mod single;

use txbench_core::schema::{Column, ColumnType, KvOp, Statement, Table};
use txbench_core::{
    DbError, Engine, ErrorKind, Loader, Param, RowBatch, Rows, Session, TxMode, Value,
};

pub static KV: Table = Table {
    name: "txbench_kv_test",
    columns: &[
        Column::new("k", ColumnType::BigInt),
        Column::new("v", ColumnType::Varchar(64)),
    ],
    primary_key: &["k"],
};

pub static GET: Statement = Statement::new("get", "SELECT v FROM txbench_kv_test WHERE k = ?")
    .key_value(KvOp::Get {
        table: "txbench_kv_test",
        key: 0,
    });
pub static PUT: Statement = Statement::new("put", "UPDATE txbench_kv_test SET v = ? WHERE k = ?")
    .key_value(KvOp::Put {
        table: "txbench_kv_test",
        key: 1,
        value: 0,
    });
pub static SCAN: Statement =
    Statement::new("scan", "SELECT k, v FROM txbench_kv_test").key_value(KvOp::Scan {
        table: "txbench_kv_test",
    });
static PLAIN_SQL: Statement = Statement::new("count", "SELECT count(*) FROM txbench_kv_test");

/// The error connecting with `engine` ends in; a panic saying `why` it had
/// to fail when it connects.
pub async fn connect_error<E: Engine>(engine: &E, why: &str) -> DbError {
    match engine.connect().await {
        Err(e) => e,
        Ok(_) => panic!("connected, yet {why}"),
    }
}

/// An engine whose URL (with the password `secret`) names only closed
/// ports at `host`: a connection error that names the host, not the secret.
pub async fn unreachable_is_a_connection_error<E: Engine>(engine: &E, host: &str) {
    let err = connect_error(engine, "nothing listens there").await;
    assert_eq!(err.kind, ErrorKind::Connection, "{err}");
    assert!(err.message.contains(host), "{err}");
    assert!(!err.message.contains("secret"), "{err}");
}

/// The value of key `k`, if any.
pub async fn get<S: Session>(s: &mut S, k: i64) -> Option<String> {
    let rows = s.query(&GET, &[Param::Int(k)]).await.unwrap();
    rows.row(0)
        .map(|r| r.get(0).unwrap().as_str().unwrap().to_string())
}

/// Put `v` in key `k`.
pub async fn put<S: Session>(s: &mut S, k: i64, v: &str) {
    assert_eq!(
        s.execute(&PUT, &[Param::Text(v), Param::Int(k)])
            .await
            .unwrap(),
        1
    );
}

/// Create [`KV`] afresh with keys 1..=`n`, each `v<k>`.
pub async fn load_kv<S: Session + Loader>(a: &mut S, n: i64) {
    a.drop_table(KV.name).await.unwrap();
    assert!(!a.table_exists(KV.name).await.unwrap());
    a.create_table(&KV).await.unwrap();
    assert!(a.table_exists(KV.name).await.unwrap());
    let mut batch = RowBatch::for_table(&KV, n as usize);
    for k in 1..=n {
        batch.values.push(Value::Int(k));
        batch.values.push(Value::Text(format!("v{k}")));
    }
    a.insert_batch(&KV, &batch).await.unwrap();
}

/// A table is a prefix; a transaction whose read changed underneath aborts
/// and applies nothing; its retry commits; a rolled-back one leaves nothing.
pub async fn optimistic_transactions_abort_when_their_reads_change<S>(a: &mut S, b: &mut S)
where
    S: Session + Loader,
{
    load_kv(a, 300).await;
    assert_eq!(get(a, 42).await.as_deref(), Some("v42"));
    assert_eq!(get(a, 301).await, None);
    assert_eq!(a.query(&SCAN, &[]).await.unwrap().len(), 300);

    // A reads key 1; B changes it; A's commit aborts and applies nothing.
    a.begin(TxMode::ReadWrite).await.unwrap();
    assert_eq!(get(a, 1).await.as_deref(), Some("v1"));
    put(b, 1, "from b").await;
    put(a, 1, "from a").await;
    put(a, 2, "from a").await;
    // The transaction reads its own write.
    assert_eq!(get(a, 2).await.as_deref(), Some("from a"));
    let err = a.commit().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict, "{err}");
    assert_eq!(get(b, 1).await.as_deref(), Some("from b"));
    assert_eq!(get(b, 2).await.as_deref(), Some("v2"));

    // The retry, undisturbed, commits both writes at once.
    a.begin(TxMode::ReadWrite).await.unwrap();
    assert_eq!(get(a, 1).await.as_deref(), Some("from b"));
    put(a, 1, "from a").await;
    put(a, 2, "from a").await;
    a.commit().await.unwrap();
    assert_eq!(get(b, 1).await.as_deref(), Some("from a"));
    assert_eq!(get(b, 2).await.as_deref(), Some("from a"));

    // A rolled-back transaction leaves nothing behind.
    a.begin(TxMode::ReadWrite).await.unwrap();
    get(a, 4).await;
    put(a, 4, "rolled back").await;
    a.rollback().await.unwrap();
    put(b, 4, "changed").await;
    a.begin(TxMode::ReadWrite).await.unwrap();
    put(a, 5, "after").await;
    a.commit().await.unwrap();
    assert_eq!(get(b, 4).await.as_deref(), Some("changed"));
    assert_eq!(get(b, 5).await.as_deref(), Some("after"));

    // SQL without a key-value form is refused, by name.
    let err = a.query(&PLAIN_SQL, &[]).await.unwrap_err();
    assert!(err.message.contains("'count'"), "{err}");
    assert!(a.query_sql("SELECT 1").await.is_err());

    a.drop_table(KV.name).await.unwrap();
    assert!(!a.table_exists(KV.name).await.unwrap());
    assert_eq!(get(a, 42).await, None);
}

static RECORDS: Table = Table {
    name: "txbench_kv_records",
    columns: &[
        Column::new("id", ColumnType::BigInt),
        Column::new("f0", ColumnType::Varchar(16)),
        Column::new("f1", ColumnType::Varchar(16)),
    ],
    primary_key: &["id"],
};
static READ: Statement = Statement::new("read", "SELECT * FROM txbench_kv_records WHERE id = ?")
    .key_value(KvOp::Read {
        table: &RECORDS,
        key: 0,
        columns: &["id", "f0", "f1"],
    });
static UPDATE: Statement = Statement::new(
    "update",
    "UPDATE txbench_kv_records SET f1 = ? WHERE id = ?",
)
.key_value(KvOp::Write {
    table: &RECORDS,
    key: 1,
    set: &[("f1", 0)],
    insert: false,
});
static INSERT: Statement = Statement::new(
    "insert",
    "INSERT INTO txbench_kv_records (id, f0, f1) VALUES (?, ?, ?)",
)
.key_value(KvOp::Write {
    table: &RECORDS,
    key: 0,
    set: &[("f0", 1), ("f1", 2)],
    insert: true,
});
static RANGE: Statement = Statement::new(
    "range",
    "SELECT id, f1 FROM txbench_kv_records WHERE id >= ? ORDER BY id LIMIT ?",
)
.key_value(KvOp::Range {
    table: &RECORDS,
    from: 0,
    count: 1,
    columns: &["id", "f1"],
});
static LAST: Statement = Statement::new("last", "SELECT max(id) FROM txbench_kv_records")
    .key_value(KvOp::Last { table: &RECORDS });

/// Each row of `rows` as text cells.
fn cells(rows: &Rows) -> Vec<Vec<String>> {
    (0..rows.len())
        .map(|i| {
            let row = rows.row(i).unwrap();
            (0..row.len())
                .map(|c| row.get(c).unwrap().as_str().unwrap_or("NULL").to_string())
                .collect()
        })
        .collect()
}

/// A wider table holds whole rows with their integer keys in order: reads
/// of some columns, updates that find a row or not, inserts that refuse a
/// key already there, range reads in key order and the largest key; all
/// inside optimistic transactions that see their own writes and abort when
/// a row they read or wrote changed.
pub async fn wide_tables_hold_rows_in_key_order<S: Session + Loader>(a: &mut S, b: &mut S) {
    a.drop_table(RECORDS.name).await.unwrap();
    a.create_table(&RECORDS).await.unwrap();
    let mut batch = RowBatch::for_table(&RECORDS, 50);
    for k in (0..100).step_by(2) {
        batch.values.push(Value::Int(k));
        batch.values.push(Value::Text(format!("a{k}")));
        batch.values.push(Value::Text(format!("b{k}")));
    }
    a.insert_batch(&RECORDS, &batch).await.unwrap();

    let read = |k: i64| [Param::Int(k)];
    let rows = a.query(&READ, &read(42)).await.unwrap();
    assert_eq!(cells(&rows), [["42", "a42", "b42"]]);
    assert_eq!(a.query(&READ, &read(43)).await.unwrap().len(), 0);
    let rows = a
        .query(&RANGE, &[Param::Int(91), Param::Int(3)])
        .await
        .unwrap();
    assert_eq!(cells(&rows), [["92", "b92"], ["94", "b94"], ["96", "b96"]]);
    let last = a.query(&LAST, &[]).await.unwrap();
    assert_eq!(last.row(0).unwrap().get(0).unwrap().as_i64(), Some(98));

    // An update of a missing row changes none; an insert of an existing
    // key is refused.
    a.begin(TxMode::ReadWrite).await.unwrap();
    let none = [Param::Text("x"), Param::Int(43)];
    assert_eq!(a.execute(&UPDATE, &none).await.unwrap(), 0);
    let twice = [Param::Int(42), Param::Text("x"), Param::Text("y")];
    let err = a.execute(&INSERT, &twice).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Constraint, "{err}");
    a.rollback().await.unwrap();

    // An insert, then an update of it, read back in the transaction, and
    // in key order after the commit.
    a.begin(TxMode::ReadWrite).await.unwrap();
    let new = [Param::Int(101), Param::Text("new0"), Param::Text("new1")];
    assert_eq!(a.execute(&INSERT, &new).await.unwrap(), 1);
    let changed = [Param::Text("changed"), Param::Int(101)];
    assert_eq!(a.execute(&UPDATE, &changed).await.unwrap(), 1);
    let rows = a.query(&READ, &read(101)).await.unwrap();
    assert_eq!(cells(&rows), [["101", "new0", "changed"]]);
    assert_eq!(b.query(&READ, &read(101)).await.unwrap().len(), 0);
    a.commit().await.unwrap();
    let rows = b
        .query(&RANGE, &[Param::Int(97), Param::Int(5)])
        .await
        .unwrap();
    assert_eq!(cells(&rows), [["98", "b98"], ["101", "changed"]]);
    let last = b.query(&LAST, &[]).await.unwrap();
    assert_eq!(last.row(0).unwrap().get(0).unwrap().as_i64(), Some(101));

    // A reads row 10 and updates it; B updates it first: A's commit aborts.
    a.begin(TxMode::ReadWrite).await.unwrap();
    a.query(&READ, &read(10)).await.unwrap();
    b.execute(&UPDATE, &[Param::Text("from b"), Param::Int(10)])
        .await
        .unwrap();
    a.execute(&UPDATE, &[Param::Text("from a"), Param::Int(10)])
        .await
        .unwrap();
    assert_eq!(a.commit().await.unwrap_err().kind, ErrorKind::Conflict);
    let rows = b.query(&READ, &read(10)).await.unwrap();
    assert_eq!(cells(&rows), [["10", "a10", "from b"]]);

    a.drop_table(RECORDS.name).await.unwrap();
    assert!(!a.table_exists(RECORDS.name).await.unwrap());
    assert_eq!(b.query(&LAST, &[]).await.unwrap().len(), 0);
}
