//! The Redis engine against a real server: key-value statements, optimistic
//! transactions whose reads were changed underneath abort as conflicts, reads
//! see the transaction's own writes, and tables are key prefixes that load and
//! drop. Needs TXBENCH_TEST_REDIS_URL (a server; the test uses its database 13
//! and empties what it wrote); skips with a notice otherwise.

use txbench_core::schema::{Column, ColumnType, KvOp, Statement, Table};
use txbench_core::{Engine, ErrorKind, Loader, Param, RowBatch, Session, TxMode, Value};
use txbench_engines::redis::{RedisEngine, RedisTarget};

fn server_url() -> Option<String> {
    match std::env::var("TXBENCH_TEST_REDIS_URL") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            assert!(
                std::env::var("TXBENCH_REQUIRE_SERVICES").as_deref() != Ok("1"),
                "TXBENCH_TEST_REDIS_URL is not set and TXBENCH_REQUIRE_SERVICES=1"
            );
            eprintln!("skipping: set TXBENCH_TEST_REDIS_URL to run this test");
            None
        }
    }
}

/// The server's database `n` (the URL's own database number replaced).
fn database(base: &str, n: u32) -> String {
    let root = base.trim_end_matches('/');
    let root = match root.rsplit_once('/') {
        Some((r, db)) if db.parse::<u32>().is_ok() => r,
        _ => root,
    };
    format!("{root}/{n}")
}

static KV: Table = Table {
    name: "txbench_redis_test",
    columns: &[
        Column::new("k", ColumnType::BigInt),
        Column::new("v", ColumnType::Varchar(64)),
    ],
    primary_key: &["k"],
};

static GET: Statement = Statement::new("get", "SELECT v FROM txbench_redis_test WHERE k = ?")
    .key_value(KvOp::Get {
        table: "txbench_redis_test",
        key: 0,
    });
static PUT: Statement = Statement::new("put", "UPDATE txbench_redis_test SET v = ? WHERE k = ?")
    .key_value(KvOp::Put {
        table: "txbench_redis_test",
        key: 1,
        value: 0,
    });
static SCAN: Statement =
    Statement::new("scan", "SELECT k, v FROM txbench_redis_test").key_value(KvOp::Scan {
        table: "txbench_redis_test",
    });
static PLAIN_SQL: Statement = Statement::new("count", "SELECT count(*) FROM txbench_redis_test");

async fn get<S: Session>(s: &mut S, k: i64) -> Option<String> {
    let rows = s.query(&GET, &[Param::Int(k)]).await.unwrap();
    rows.row(0)
        .map(|r| r.get(0).unwrap().as_str().unwrap().to_string())
}

#[tokio::test]
async fn optimistic_transactions_abort_when_their_reads_change() {
    let Some(base) = server_url() else { return };
    let engine = RedisEngine::new(RedisTarget::parse(&database(&base, 13)).unwrap()).unwrap();
    let mut a = engine.connect().await.unwrap();
    let mut b = engine.connect().await.unwrap();
    assert!(a.server_version().await.unwrap().starts_with("Redis "));

    // A table is a prefix: created, loaded with MSET, scanned, dropped.
    a.drop_table(KV.name).await.unwrap();
    assert!(!a.table_exists(KV.name).await.unwrap());
    a.create_table(&KV).await.unwrap();
    assert!(a.table_exists(KV.name).await.unwrap());
    let mut batch = RowBatch::for_table(&KV, 100);
    for k in 1..=100 {
        batch.values.push(Value::Int(k));
        batch.values.push(Value::Text(format!("v{k}")));
    }
    a.insert_batch(&KV, &batch).await.unwrap();
    assert_eq!(get(&mut a, 42).await.as_deref(), Some("v42"));
    assert_eq!(get(&mut a, 101).await, None);
    assert_eq!(a.query(&SCAN, &[]).await.unwrap().len(), 100);

    // A reads key 1; B changes it; A's commit aborts and applies nothing.
    a.begin(TxMode::ReadWrite).await.unwrap();
    assert_eq!(get(&mut a, 1).await.as_deref(), Some("v1"));
    b.execute(&PUT, &[Param::Text("from b"), Param::Int(1)])
        .await
        .unwrap();
    assert_eq!(
        a.execute(&PUT, &[Param::Text("from a"), Param::Int(1)])
            .await
            .unwrap(),
        1
    );
    a.execute(&PUT, &[Param::Text("from a"), Param::Int(2)])
        .await
        .unwrap();
    // The transaction reads its own write.
    assert_eq!(get(&mut a, 2).await.as_deref(), Some("from a"));
    let err = a.commit().await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict, "{err}");
    assert_eq!(get(&mut b, 1).await.as_deref(), Some("from b"));
    assert_eq!(get(&mut b, 2).await.as_deref(), Some("v2"));

    // The retry, undisturbed, commits both writes at once.
    a.begin(TxMode::ReadWrite).await.unwrap();
    assert_eq!(get(&mut a, 1).await.as_deref(), Some("from b"));
    a.execute(&PUT, &[Param::Text("from a"), Param::Int(1)])
        .await
        .unwrap();
    a.execute(&PUT, &[Param::Text("from a"), Param::Int(2)])
        .await
        .unwrap();
    a.commit().await.unwrap();
    assert_eq!(get(&mut b, 1).await.as_deref(), Some("from a"));
    assert_eq!(get(&mut b, 2).await.as_deref(), Some("from a"));

    // A read-only transaction is validated too: its snapshot must still hold.
    a.begin(TxMode::ReadOnly).await.unwrap();
    get(&mut a, 3).await;
    b.execute(&PUT, &[Param::Text("changed"), Param::Int(3)])
        .await
        .unwrap();
    assert_eq!(a.commit().await.unwrap_err().kind, ErrorKind::Conflict);

    // A rolled-back transaction leaves no watch behind.
    a.begin(TxMode::ReadWrite).await.unwrap();
    get(&mut a, 4).await;
    a.rollback().await.unwrap();
    b.execute(&PUT, &[Param::Text("changed"), Param::Int(4)])
        .await
        .unwrap();
    a.begin(TxMode::ReadWrite).await.unwrap();
    a.execute(&PUT, &[Param::Text("after"), Param::Int(5)])
        .await
        .unwrap();
    a.commit().await.unwrap();
    assert_eq!(get(&mut b, 5).await.as_deref(), Some("after"));

    // SQL without a key-value form is refused, by name.
    let err = a.query(&PLAIN_SQL, &[]).await.unwrap_err();
    assert!(err.message.contains("'count'"), "{err}");
    assert!(a.query_sql("SELECT 1").await.is_err());

    a.drop_table(KV.name).await.unwrap();
    assert!(!a.table_exists(KV.name).await.unwrap());
    assert_eq!(get(&mut a, 42).await, None);
}

#[tokio::test]
async fn an_unreachable_server_is_a_connection_error_naming_it() {
    let engine =
        RedisEngine::new(RedisTarget::parse("redis://app:secret@127.0.0.1:1/0").unwrap()).unwrap();
    let err = match engine.connect().await {
        Err(e) => e,
        Ok(_) => panic!("connected to port 1"),
    };
    assert_eq!(err.kind, ErrorKind::Connection, "{err}");
    assert!(err.message.contains("127.0.0.1:1"), "{err}");
    assert!(!err.message.contains("secret"), "{err}");
}

static RECORDS: Table = Table {
    name: "txbench_redis_records",
    columns: &[
        Column::new("id", ColumnType::BigInt),
        Column::new("f0", ColumnType::Varchar(16)),
        Column::new("f1", ColumnType::Varchar(16)),
    ],
    primary_key: &["id"],
};
static READ: Statement = Statement::new("read", "SELECT * FROM txbench_redis_records WHERE id = ?")
    .key_value(KvOp::Read {
        table: &RECORDS,
        key: 0,
        columns: &["id", "f0", "f1"],
    });
static UPDATE: Statement = Statement::new(
    "update",
    "UPDATE txbench_redis_records SET f1 = ? WHERE id = ?",
)
.key_value(KvOp::Write {
    table: &RECORDS,
    key: 1,
    set: &[("f1", 0)],
    insert: false,
});
static INSERT: Statement = Statement::new(
    "insert",
    "INSERT INTO txbench_redis_records (id, f0, f1) VALUES (?, ?, ?)",
)
.key_value(KvOp::Write {
    table: &RECORDS,
    key: 0,
    set: &[("f0", 1), ("f1", 2)],
    insert: true,
});
static RANGE: Statement = Statement::new(
    "range",
    "SELECT id, f1 FROM txbench_redis_records WHERE id >= ? ORDER BY id LIMIT ?",
)
.key_value(KvOp::Range {
    table: &RECORDS,
    from: 0,
    count: 1,
    columns: &["id", "f1"],
});
static LAST: Statement = Statement::new("last", "SELECT max(id) FROM txbench_redis_records")
    .key_value(KvOp::Last { table: &RECORDS });

/// Each row of `rows` as text cells.
fn cells(rows: &txbench_core::Rows) -> Vec<Vec<String>> {
    (0..rows.len())
        .map(|i| {
            let row = rows.row(i).unwrap();
            (0..row.len())
                .map(|c| row.get(c).unwrap().as_str().unwrap_or("NULL").to_string())
                .collect()
        })
        .collect()
}

/// A wider table is a hash per row with its integer keys in order: reads of
/// some columns, updates that find a row or not, inserts that refuse a key
/// already there, range reads in key order and the largest key; all inside
/// optimistic transactions that see their own writes and abort when a row
/// they read or wrote changed.
#[tokio::test]
async fn wide_tables_are_hashes_with_their_keys_in_order() {
    let Some(base) = server_url() else { return };
    let engine = RedisEngine::new(RedisTarget::parse(&database(&base, 12)).unwrap()).unwrap();
    let mut a = engine.connect().await.unwrap();
    let mut b = engine.connect().await.unwrap();
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
