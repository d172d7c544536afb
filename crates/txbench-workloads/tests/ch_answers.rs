//! The CH-benCHmark's 22 queries answer alike on SQLite, PostgreSQL and
//! MariaDB: the same seed loads the same rows on each (the load's clock,
//! which stamps orders and deliveries, set to one instant afterwards), and
//! every query's answer, as a multiset of rows, is the same on all three up
//! to the engines' arithmetic (SQLite keeps money as a double, MariaDB
//! rounds an average to four decimals). A fresh load answers four queries
//! with nothing (no stock ordered, every customer with an order, no balance
//! above zero, no line delivered after another), so the data is first
//! stirred the same way on every engine, as transactions would, for every
//! query to have rows to compare. Needs TXBENCH_TEST_POSTGRES_URL and
//! TXBENCH_TEST_MYSQL_URL for the servers; SQLite's answers are checked
//! against themselves and their expected shape without them.

use std::sync::Arc;

use txbench_core::schema::Statement;
use txbench_core::{Engine, Param, Session, TxMode};
use txbench_engines::mysql::{MyEngine, MyTarget};
use txbench_engines::postgres::{PgEngine, PgTarget};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine};
use txbench_test_support::service::from_env as server_url;
use txbench_workloads::ch::Ch;
use txbench_workloads::ch::queries::{Dialect, NAMES, QUERIES};
use txbench_workloads::{Benchmark, LoadPlan, NoOptions};

/// One cell of an answer, as the engines' types are compared.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Null,
    Number(f64),
    Text(String),
}

type Answer = Vec<Vec<Cell>>;

/// What makes the data the same on every engine and gives every query rows:
/// each statement with the timestamp it takes, if any.
static STIRRED: [(Statement, Option<i64>); 7] = [
    (
        Statement::new("one entry time", "UPDATE orders SET o_entry_d = ?"),
        Some(INSTANT),
    ),
    (
        Statement::new(
            "one delivery time",
            "UPDATE order_line SET ol_delivery_d = ? WHERE ol_delivery_d IS NOT NULL",
        ),
        Some(INSTANT),
    ),
    // Q21: an order's first line delivered after its others.
    (
        Statement::new(
            "first lines later",
            "UPDATE order_line SET ol_delivery_d = ? \
             WHERE ol_delivery_d IS NOT NULL AND ol_number = 1",
        ),
        Some(INSTANT + 3_600_000_000),
    ),
    // Q11: a few items ordered far more than the rest.
    (
        Statement::new(
            "stock ordered",
            "UPDATE stock SET s_order_cnt = CASE WHEN s_i_id % 500 = 0 THEN 1000 ELSE 1 END",
        ),
        None,
    ),
    // Q22: customers without an order, and balances above zero.
    (
        Statement::new("orders gone", "DELETE FROM orders WHERE o_id % 5 = 0"),
        None,
    ),
    (
        Statement::new(
            "balances",
            "UPDATE customer SET c_balance = c_id % 100 - 40",
        ),
        None,
    ),
    // Q20: items whose data starts with "co".
    (
        Statement::new(
            "co items",
            "UPDATE item SET i_data = 'co-op' WHERE i_id % 97 = 0",
        ),
        None,
    ),
];

/// 2026-01-02 03:04:05.678901 UTC, in microseconds since the epoch.
const INSTANT: i64 = 1_767_323_045_678_901;

/// Load scale 1 from seed 7 and answer every query.
async fn answers<E: Engine>(engine: Arc<E>) -> Vec<Answer> {
    let plan = LoadPlan {
        scale: 1,
        threads: 2,
        seed: 7,
        drop: false,
        foreign_keys: false,
    };
    engine.create_database().await.unwrap();
    Ch::load(Arc::clone(&engine), &plan, &NoOptions {}, Arc::default())
        .await
        .unwrap();
    let mut s = engine.connect().await.unwrap();
    s.begin(TxMode::ReadWrite).await.unwrap();
    for (stmt, at) in &STIRRED {
        let params: Vec<Param> = at.map(Param::Timestamp).into_iter().collect();
        s.execute(stmt, &params).await.unwrap();
    }
    s.commit().await.unwrap();
    let dialect = Dialect::of_version(&s.server_version().await.unwrap());
    let mut out = Vec::new();
    for stmt in dialect.statements() {
        s.begin(TxMode::ReadOnly).await.unwrap();
        let rows = s.query(stmt, &[]).await.unwrap();
        s.commit().await.unwrap();
        out.push(canonical(&rows));
    }
    out
}

/// The rows as cells, sorted (the queries order by figures that tie, and
/// the engines order text by their collations).
fn canonical(rows: &txbench_core::value::Rows) -> Answer {
    let mut out: Answer = rows
        .iter()
        .map(|row| {
            row.values()
                .map(|v| match v {
                    Param::Null => Cell::Null,
                    Param::Int(i) | Param::Timestamp(i) => Cell::Number(i as f64),
                    Param::Float(f) => Cell::Number(f),
                    // A server's decimal as text; an all-digit phone number
                    // reads the same on every engine, and a brand "NaN" or
                    // "inf" stays text.
                    Param::Text(t) => match t.parse::<f64>() {
                        Ok(n) if n.is_finite() => Cell::Number(n),
                        _ => Cell::Text(t.to_string()),
                    },
                })
                .collect()
        })
        .collect();
    out.sort_by_key(|row| sort_key(row));
    out
}

/// A row's order: its text and its numbers to a cent, as text.
fn sort_key(row: &[Cell]) -> String {
    row.iter()
        .map(|c| match c {
            Cell::Null => "~".to_string(),
            Cell::Number(n) => format!("{n:020.2}"),
            Cell::Text(t) => t.clone(),
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// Whether two cells are the same value: numbers within the engines'
/// rounding (MariaDB's averages and quotients keep four decimals).
fn same(a: &Cell, b: &Cell) -> bool {
    match (a, b) {
        (Cell::Number(x), Cell::Number(y)) => (x - y).abs() <= 1e-3 + 1e-9 * x.abs().max(y.abs()),
        _ => a == b,
    }
}

fn assert_alike(name: &str, expected: &[Answer], got: &[Answer]) {
    for (q, (e, g)) in expected.iter().zip(got).enumerate() {
        assert_eq!(e.len(), g.len(), "{name} {}: row counts", NAMES[q]);
        for (i, (er, gr)) in e.iter().zip(g).enumerate() {
            let alike = er.len() == gr.len() && er.iter().zip(gr).all(|(a, b)| same(a, b));
            assert!(alike, "{name} {} row {i}: {er:?} against {gr:?}", NAMES[q]);
        }
    }
}

fn on_runtime<T>(work: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(work)
}

fn sqlite_answers() -> Vec<Answer> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ch.db");
    let engine = SqliteEngine::new(SqliteConfig::parse(path.to_str().unwrap()).unwrap()).unwrap();
    on_runtime(answers(Arc::new(engine)))
}

/// The URL with its database replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a database in the URL");
    format!("{base}/{name}")
}

#[test]
fn the_queries_answer_alike_on_every_engine() {
    let sqlite = sqlite_answers();
    assert_eq!(sqlite.len(), QUERIES);
    let empty: Vec<&str> = (0..QUERIES)
        .filter(|&q| sqlite[q].is_empty())
        .map(|q| NAMES[q])
        .collect();
    assert!(empty.is_empty(), "queries answering nothing: {empty:?}");
    let name = format!("txbench_ch_{}", std::process::id());
    if let Some(url) = server_url("TXBENCH_TEST_POSTGRES_URL") {
        let engine = PgEngine::new(PgTarget::parse(&with_database(&url, &name)).unwrap(), None);
        let got = on_runtime(answers(Arc::new(engine)));
        on_runtime(async {
            let admin = PgEngine::new(PgTarget::parse(&url).unwrap(), None);
            let mut s = admin.connect().await.unwrap();
            s.query_sql(&format!("DROP DATABASE {name} WITH (FORCE)"))
                .await
                .unwrap();
        });
        assert_alike("PostgreSQL", &sqlite, &got);
    }
    if let Some(url) = server_url("TXBENCH_TEST_MYSQL_URL") {
        let target = |u: &str| vec![MyTarget::parse(u).unwrap()];
        let engine = MyEngine::new(target(&with_database(&url, &name)), None);
        let got = on_runtime(answers(Arc::new(engine)));
        on_runtime(async {
            let admin = MyEngine::new(target(&url), None);
            let mut s = admin.connect().await.unwrap();
            s.query_sql(&format!("DROP DATABASE {name}")).await.unwrap();
        });
        assert_alike("MariaDB", &sqlite, &got);
    }
}
