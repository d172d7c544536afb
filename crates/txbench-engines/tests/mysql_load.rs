//! A MariaDB load writes exactly what it is given or stops: `LOAD DATA
//! LOCAL` turns every error into a warning and a changed value (text into a
//! number as 0, a number too large clamped, a long string cut), so a load
//! that warned is refused with the server's warning. Needs
//! TXBENCH_TEST_MYSQL_URL; skips with a notice otherwise.

use txbench_core::schema::{Column, ColumnType, Table};
use txbench_core::value::RowBatch;
use txbench_core::{Engine, ErrorKind, Loader, Session, Value};
use txbench_engines::mysql::{MyEngine, MyTarget};

use txbench_test_support::service;

static TABLE: Table = Table {
    name: "txbench_strict_load",
    columns: &[
        Column::new("k", ColumnType::BigInt),
        Column::new("n", ColumnType::Int),
        Column::new("s", ColumnType::Char(5)),
    ],
    primary_key: &["k"],
};

/// One row of (k, n, s).
fn row(k: i64, n: Value, s: &str) -> RowBatch {
    let mut batch = RowBatch::with_capacity(TABLE.name, 3, 1);
    batch
        .values
        .extend([Value::Int(k), n, Value::Text(s.into())]);
    batch
}

#[tokio::test]
async fn a_value_the_server_would_change_stops_the_load() {
    let Some(url) = service::from_env("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    // A database of the test's own, dropped at the end.
    let name = format!("txbench_strict_{}", std::process::id());
    let base = url.rsplit_once('/').map_or(url.as_str(), |(b, _)| b);
    let engine = MyEngine::new(
        vec![MyTarget::parse(&format!("{base}/{name}")).unwrap()],
        None,
    );
    engine.create_database().await.unwrap();
    let mut s = engine.connect().await.unwrap();
    let loader = s.loader().expect("MySQL sessions load");
    loader.create_table(&TABLE).await.unwrap();
    loader
        .insert_batch(&TABLE, &row(1, Value::Int(7), "abcde"))
        .await
        .unwrap();
    for (k, n, text, says) in [
        (
            2,
            Value::Text("hello".into()),
            "abcde",
            "Incorrect integer value",
        ),
        (3, Value::Int(i64::MAX), "abcde", "Out of range value"),
        (4, Value::Int(1), &"x".repeat(50)[..], "Data truncated"),
    ] {
        let e = loader
            .insert_batch(&TABLE, &row(k, n, text))
            .await
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Data, "{e}");
        assert!(e.to_string().contains("the server changed"), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    s.query_sql(&format!("DROP DATABASE {name}")).await.unwrap();
}
