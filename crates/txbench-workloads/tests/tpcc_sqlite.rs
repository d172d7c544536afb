//! TPC-C on embedded SQLite: the loader's data rules, each transaction's effect,
//! and the consistency check, on a real 1-warehouse database.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

use txbench_core::{Engine, Outcome, Session, Written};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine, SqliteSession};
use txbench_workloads::opening::Found;
use txbench_workloads::tpcc::input::{
    CustomerKey, DeliveryInput, LineInput, NewOrderInput, OrderStatusInput, PaymentInput,
    StockLevelInput,
};
use txbench_workloads::tpcc::load::load;
use txbench_workloads::tpcc::random::last_name;
use txbench_workloads::tpcc::{
    Tpcc, check, delivery, meta, new_order, order_status, payment, stock_level,
};
use txbench_workloads::{LoadPlan, WorkloadError};

/// A 1-warehouse database loaded once; each test works on its own copy.
fn template() -> &'static Path {
    static TEMPLATE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("template.db");
        let engine = Arc::new(engine_at(&path));
        let rt = tokio::runtime::Runtime::new().unwrap();
        let opts = LoadPlan {
            scale: 1,
            threads: 2,
            seed: 7,
            drop: false,
            foreign_keys: false,
        };
        rt.block_on(load(engine, &opts, Arc::new(AtomicU64::new(0))))
            .unwrap();
        (dir, path)
    });
    path
}

fn engine_at(path: &Path) -> SqliteEngine {
    SqliteEngine::new(SqliteConfig::parse(path.to_str().unwrap()).unwrap()).unwrap()
}

/// A private copy of the template and a session on it.
struct Db {
    _dir: tempfile::TempDir,
    s: SqliteSession,
}

fn fresh() -> Db {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    std::fs::copy(template(), &path).unwrap();
    let engine = engine_at(&path);
    let s = pollster::block_on(engine.connect()).unwrap();
    Db { _dir: dir, s }
}

impl Db {
    fn int(&mut self, sql: &str) -> i64 {
        let rows = pollster::block_on(self.s.query_sql(sql)).unwrap();
        rows.row(0)
            .unwrap()
            .get(0)
            .unwrap()
            .as_i64()
            .unwrap_or_else(|| panic!("no integer from {sql}"))
    }
    fn float(&mut self, sql: &str) -> f64 {
        let rows = pollster::block_on(self.s.query_sql(sql)).unwrap();
        rows.row(0).unwrap().get(0).unwrap().as_f64().unwrap()
    }
    fn text(&mut self, sql: &str) -> String {
        let rows = pollster::block_on(self.s.query_sql(sql)).unwrap();
        rows.row(0)
            .unwrap()
            .get(0)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }
    fn exec(&mut self, sql: &str) {
        let rows = pollster::block_on(self.s.query_sql(sql));
        rows.unwrap();
    }
    fn check_violations(&mut self) -> Vec<(&'static str, i64)> {
        pollster::block_on(check::check(&mut self.s))
            .unwrap()
            .into_iter()
            .filter(|c| !c.passed())
            .map(|c| (c.clause, c.violations))
            .collect()
    }
}

#[test]
fn load_has_the_cardinalities_of_clause_4_3() {
    let mut db = fresh();
    assert_eq!(db.int("SELECT count(*) FROM item"), 100_000);
    assert_eq!(db.int("SELECT count(*) FROM warehouse"), 1);
    assert_eq!(db.int("SELECT count(*) FROM district"), 10);
    assert_eq!(db.int("SELECT count(*) FROM stock"), 100_000);
    assert_eq!(db.int("SELECT count(*) FROM customer"), 30_000);
    assert_eq!(db.int("SELECT count(*) FROM history"), 30_000);
    assert_eq!(db.int("SELECT count(*) FROM orders"), 30_000);
    assert_eq!(db.int("SELECT count(*) FROM new_order"), 9_000);
    let lines = db.int("SELECT count(*) FROM order_line");
    assert_eq!(lines, db.int("SELECT sum(o_ol_cnt) FROM orders"));
    // 30,000 orders of 5..15 lines: mean 10, so about 300,000.
    assert!((295_000..=305_000).contains(&lines), "{lines} order lines");
}

#[test]
fn load_follows_the_data_rules() {
    let mut db = fresh();
    // ORIGINAL in 10% of I_DATA and S_DATA.
    let items = db.int("SELECT count(*) FROM item WHERE i_data LIKE '%ORIGINAL%'");
    assert!((9_000..=11_000).contains(&items), "{items}");
    let stock = db.int("SELECT count(*) FROM stock WHERE s_data LIKE '%ORIGINAL%'");
    assert!((9_000..=11_000).contains(&stock), "{stock}");
    // 10% bad credit.
    let bc = db.int("SELECT count(*) FROM customer WHERE c_credit = 'BC'");
    assert!((2_700..=3_300).contains(&bc), "{bc}");
    assert_eq!(
        db.int("SELECT count(*) FROM customer WHERE c_credit NOT IN ('BC', 'GC')"),
        0
    );
    assert_eq!(
        db.int("SELECT count(*) FROM customer WHERE c_middle <> 'OE'"),
        0
    );
    // The first 1000 customers of each district carry the names of c_id - 1.
    for c in [1, 2, 371, 1000] {
        let name = db.text(&format!(
            "SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = {c}"
        ));
        assert_eq!(name, last_name(c - 1));
    }
    // Every name appears in every district, so Payment by name always finds one.
    assert_eq!(
        db.int("SELECT count(DISTINCT c_last) FROM customer WHERE c_d_id = 9"),
        1000
    );
    // Money and counters at their initial values.
    assert_eq!(
        db.int(
            "SELECT count(*) FROM customer WHERE c_balance <> -10 OR c_ytd_payment <> 10 \
                       OR c_payment_cnt <> 1 OR c_delivery_cnt <> 0 OR c_credit_lim <> 50000"
        ),
        0
    );
    assert_eq!(
        db.int("SELECT count(*) FROM customer WHERE c_discount < 0 OR c_discount > 0.5"),
        0
    );
    assert_eq!(
        db.int("SELECT count(*) FROM customer WHERE length(c_data) < 300 OR length(c_data) > 500"),
        0
    );
    assert_eq!(
        db.int("SELECT count(*) FROM customer WHERE c_zip NOT LIKE '____11111'"),
        0
    );
    assert_eq!(db.float("SELECT w_ytd FROM warehouse"), 300_000.0);
    assert_eq!(
        db.int("SELECT count(*) FROM district WHERE d_ytd <> 30000 OR d_next_o_id <> 3001"),
        0
    );
    assert_eq!(
        db.int("SELECT count(*) FROM district WHERE d_tax < 0 OR d_tax > 0.2"),
        0
    );
    assert_eq!(
        db.int("SELECT count(*) FROM stock WHERE s_quantity < 10 OR s_quantity > 100"),
        0
    );
    assert_eq!(
        db.int(
            "SELECT count(*) FROM stock WHERE length(s_dist_01) <> 24 OR length(s_dist_10) <> 24"
        ),
        0
    );
    assert_eq!(db.int("SELECT count(*) FROM item WHERE i_price < 1 OR i_price > 100 OR i_im_id < 1 OR i_im_id > 10000"), 0);
    // O_C_ID is a permutation of 1..3000 in each district.
    assert_eq!(
        db.int("SELECT count(DISTINCT o_c_id) FROM orders WHERE o_d_id = 3"),
        3_000
    );
    assert_eq!(db.int("SELECT min(o_c_id) FROM orders WHERE o_d_id = 3"), 1);
    assert_eq!(
        db.int("SELECT max(o_c_id) FROM orders WHERE o_d_id = 3"),
        3_000
    );
    // Orders below 2101 are delivered: carrier set, amounts 0, delivery date set.
    assert_eq!(
        db.int("SELECT count(*) FROM orders WHERE (o_id < 2101) <> (o_carrier_id IS NOT NULL)"),
        0
    );
    assert_eq!(
        db.int(
            "SELECT count(*) FROM orders WHERE o_ol_cnt < 5 OR o_ol_cnt > 15 OR o_all_local <> 1"
        ),
        0
    );
    assert_eq!(db.int("SELECT count(*) FROM order_line WHERE ol_o_id < 2101 AND (ol_amount <> 0 OR ol_delivery_d IS NULL)"), 0);
    assert_eq!(
        db.int(
            "SELECT count(*) FROM order_line WHERE ol_o_id >= 2101 \
                       AND (ol_amount < 0.01 OR ol_amount > 9999.99 OR ol_delivery_d IS NOT NULL)"
        ),
        0
    );
    assert_eq!(
        db.int("SELECT count(*) FROM order_line WHERE ol_quantity <> 5 OR ol_supply_w_id <> 1"),
        0
    );
    assert_eq!(db.int("SELECT min(no_o_id) FROM new_order"), 2101);
    assert_eq!(db.int("SELECT max(no_o_id) FROM new_order"), 3000);
}

#[test]
fn load_records_c_load_and_refuses_a_second_load() {
    let mut db = fresh();
    let state = pollster::block_on(meta::META.read(&mut db.s))
        .unwrap()
        .unwrap();
    assert_eq!(state.scale, 1);
    assert!(state.complete);
    let c_load = meta::load_constants(&Found::Loaded(state))
        .unwrap()
        .unwrap();
    // The run's C-Run is valid against it (clause 2.1.6.1).
    let tpcc = pollster::block_on(Tpcc::open(&mut db.s, Some(1), 99)).unwrap();
    let delta = (tpcc.run_constants().c_last - c_load.c_last).abs();
    assert!(
        (65..=119).contains(&delta) && delta != 96 && delta != 112,
        "delta {delta}"
    );
    assert_eq!(tpcc.run_constants().c_id, c_load.c_id);
    // A run asking for another scale is refused.
    let err = pollster::block_on(Tpcc::open(&mut db.s, Some(3), 99)).unwrap_err();
    assert!(
        matches!(
            err,
            WorkloadError::ScaleMismatch {
                asked: 3,
                loaded: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn check_passes_after_load_and_fails_on_a_broken_row() {
    let mut db = fresh();
    assert_eq!(db.check_violations(), vec![]);
    db.exec("UPDATE district SET d_ytd = d_ytd + 1 WHERE d_id = 5");
    let v = db.check_violations();
    assert!(v.contains(&("3.3.2.1", 1)), "{v:?}");
    assert!(v.contains(&("3.3.2.9", 1)), "{v:?}");
    db.exec("DELETE FROM order_line WHERE ol_d_id = 2 AND ol_o_id = 17 AND ol_number = 1");
    let v = db.check_violations();
    assert!(
        v.contains(&("3.3.2.4", 1)) && v.contains(&("3.3.2.6", 1)),
        "{v:?}"
    );
}

fn new_order_input(lines: &[(i64, i64, i64)]) -> NewOrderInput {
    NewOrderInput {
        w_id: 1,
        d_id: 3,
        c_id: 42,
        lines: lines
            .iter()
            .map(|&(item, supply_w_id, quantity)| LineInput {
                item,
                supply_w_id,
                quantity,
            })
            .collect(),
    }
}

#[test]
fn new_order_enters_the_order_and_updates_stock() {
    let mut db = fresh();
    let q = |db: &mut Db, i: i64| {
        db.int(&format!(
            "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = {i}"
        ))
    };
    let (q7, q500) = (q(&mut db, 7), q(&mut db, 500));
    let input = new_order_input(&[(500, 1, 3), (7, 1, 9)]);
    let (outcome, out) =
        pollster::block_on(new_order::execute(&mut db.s, &input, &mut Written::new())).unwrap();
    assert_eq!(outcome, Outcome::Committed);
    let out = out.unwrap();
    assert_eq!(out.o_id, 3001);
    assert_eq!(
        db.int("SELECT d_next_o_id FROM district WHERE d_id = 3"),
        3002
    );
    assert_eq!(
        db.int("SELECT o_c_id FROM orders WHERE o_d_id = 3 AND o_id = 3001"),
        42
    );
    assert_eq!(
        db.int("SELECT o_ol_cnt FROM orders WHERE o_d_id = 3 AND o_id = 3001"),
        2
    );
    assert_eq!(
        db.int("SELECT count(*) FROM new_order WHERE no_d_id = 3 AND no_o_id = 3001"),
        1
    );
    // Lines keep their input order in OL_NUMBER though stock is locked in item order.
    assert_eq!(
        db.int(
            "SELECT ol_i_id FROM order_line WHERE ol_d_id = 3 AND ol_o_id = 3001 AND ol_number = 1"
        ),
        500
    );
    assert_eq!(
        db.int(
            "SELECT ol_i_id FROM order_line WHERE ol_d_id = 3 AND ol_o_id = 3001 AND ol_number = 2"
        ),
        7
    );
    let dist = db.text("SELECT ol_dist_info FROM order_line WHERE ol_d_id = 3 AND ol_o_id = 3001 AND ol_number = 2");
    assert_eq!(
        dist,
        db.text("SELECT s_dist_03 FROM stock WHERE s_w_id = 1 AND s_i_id = 7")
    );
    let amount = db.float(
        "SELECT ol_amount FROM order_line WHERE ol_d_id = 3 AND ol_o_id = 3001 AND ol_number = 1",
    );
    let price = db.float("SELECT i_price FROM item WHERE i_id = 500");
    assert!((amount - 3.0 * price).abs() < 0.005);
    // 2.4.2.2: subtract, or add 91 when fewer than quantity + 10 would remain.
    let expect = |before: i64, qty: i64| {
        if before >= qty + 10 {
            before - qty
        } else {
            before - qty + 91
        }
    };
    assert_eq!(q(&mut db, 500), expect(q500, 3));
    assert_eq!(q(&mut db, 7), expect(q7, 9));
    assert_eq!(db.int("SELECT s_ytd + 10 * s_order_cnt + 100 * s_remote_cnt FROM stock WHERE s_w_id = 1 AND s_i_id = 7"), 19);
    assert_eq!(db.check_violations(), vec![]);
}

/// 2.4.2.2 per line, in line order: an item ordered twice from one warehouse
/// has its stock updated twice, the second time from what the first left.
#[test]
fn new_order_with_an_item_twice_updates_its_stock_line_after_line() {
    let mut db = fresh();
    let stock = |db: &mut Db, what: &str| {
        db.int(&format!(
            "SELECT {what} FROM stock WHERE s_w_id = 1 AND s_i_id = 500"
        ))
    };
    db.exec("UPDATE stock SET s_quantity = 25 WHERE s_w_id = 1 AND s_i_id = 500");
    let (ytd, count) = (stock(&mut db, "s_ytd"), stock(&mut db, "s_order_cnt"));
    // 25 - 9 = 16 (16 >= 9 + 10 held); then 16 < 8 + 10, so 16 - 8 + 91 = 99.
    let input = new_order_input(&[(500, 1, 9), (7, 1, 1), (500, 1, 8)]);
    let (outcome, _) =
        pollster::block_on(new_order::execute(&mut db.s, &input, &mut Written::new())).unwrap();
    assert_eq!(outcome, Outcome::Committed);
    assert_eq!(stock(&mut db, "s_quantity"), 99);
    assert_eq!(stock(&mut db, "s_ytd"), ytd + 17);
    assert_eq!(stock(&mut db, "s_order_cnt"), count + 2);
    assert_eq!(
        db.int(
            "SELECT count(*) FROM order_line WHERE ol_d_id = 3 AND ol_o_id = 3001 AND ol_i_id = 500"
        ),
        2
    );
    assert_eq!(
        db.int("SELECT ol_quantity FROM order_line WHERE ol_d_id = 3 AND ol_o_id = 3001 AND ol_number = 3"),
        8
    );
    assert_eq!(db.check_violations(), vec![]);
}

#[test]
fn new_order_with_an_unused_item_rolls_back_without_a_trace() {
    let mut db = fresh();
    let before = db.int("SELECT sum(s_quantity) + sum(s_order_cnt) FROM stock");
    let input = new_order_input(&[(500, 1, 3), (7, 1, 9), (100_001, 1, 1)]);
    assert!(input.will_roll_back());
    let (outcome, out) =
        pollster::block_on(new_order::execute(&mut db.s, &input, &mut Written::new())).unwrap();
    assert_eq!(outcome, Outcome::ExpectedRollback);
    assert!(out.is_none());
    assert_eq!(
        db.int("SELECT d_next_o_id FROM district WHERE d_id = 3"),
        3001
    );
    assert_eq!(db.int("SELECT count(*) FROM orders WHERE o_id > 3000"), 0);
    assert_eq!(
        db.int("SELECT count(*) FROM new_order WHERE no_o_id > 3000"),
        0
    );
    assert_eq!(
        db.int("SELECT count(*) FROM order_line WHERE ol_o_id > 3000"),
        0
    );
    assert_eq!(
        db.int("SELECT sum(s_quantity) + sum(s_order_cnt) FROM stock"),
        before
    );
}

#[test]
fn payment_moves_money_and_records_history() {
    let mut db = fresh();
    let input = PaymentInput {
        w_id: 1,
        d_id: 2,
        c_w_id: 1,
        c_d_id: 6,
        customer: CustomerKey::Id(1234),
        amount: 1234.56,
    };
    let (outcome, c) =
        pollster::block_on(payment::execute(&mut db.s, &input, &mut Written::new())).unwrap();
    assert_eq!((outcome, c), (Outcome::Committed, 1234));
    assert!((db.float("SELECT w_ytd FROM warehouse") - 301_234.56).abs() < 1e-6);
    assert!((db.float("SELECT d_ytd FROM district WHERE d_id = 2") - 31_234.56).abs() < 1e-6);
    assert_eq!(
        db.float("SELECT d_ytd FROM district WHERE d_id = 6"),
        30_000.0
    );
    let key = "c_w_id = 1 AND c_d_id = 6 AND c_id = 1234";
    assert!(
        (db.float(&format!("SELECT c_balance FROM customer WHERE {key}")) - (-1244.56)).abs()
            < 1e-6
    );
    assert!(
        (db.float(&format!("SELECT c_ytd_payment FROM customer WHERE {key}")) - 1244.56).abs()
            < 1e-6
    );
    assert_eq!(
        db.int(&format!("SELECT c_payment_cnt FROM customer WHERE {key}")),
        2
    );
    assert_eq!(db.int("SELECT count(*) FROM history WHERE h_c_id = 1234 AND h_c_d_id = 6 AND h_d_id = 2 AND h_amount = 1234.56"), 1);
    let h_data = db.text("SELECT h_data FROM history WHERE h_amount = 1234.56");
    let names = db.text(
        "SELECT w_name || '    ' || (SELECT d_name FROM district WHERE d_id = 2) FROM warehouse",
    );
    assert_eq!(h_data, names);
    assert_eq!(db.check_violations(), vec![]);
}

#[test]
fn payment_to_a_bad_credit_customer_prepends_to_c_data() {
    let mut db = fresh();
    let c = db.int("SELECT c_id FROM customer WHERE c_d_id = 1 AND c_credit = 'BC' LIMIT 1");
    let input = PaymentInput {
        w_id: 1,
        d_id: 1,
        c_w_id: 1,
        c_d_id: 1,
        customer: CustomerKey::Id(c),
        amount: 10.5,
    };
    pollster::block_on(payment::execute(&mut db.s, &input, &mut Written::new())).unwrap();
    let data = db.text(&format!(
        "SELECT c_data FROM customer WHERE c_d_id = 1 AND c_id = {c}"
    ));
    assert!(data.starts_with(&format!("{c} 1 1 1 1 10.50 ")), "{data}");
    assert!(data.len() <= 500);
}

#[test]
fn by_last_name_takes_the_middle_customer_sorted_by_first_name() {
    let mut db = fresh();
    let name = last_name(5);
    let n = db.int(&format!(
        "SELECT count(*) FROM customer WHERE c_d_id = 4 AND c_last = '{name}'"
    ));
    assert!(n >= 1);
    let expected = db.int(&format!(
        "SELECT c_id FROM customer WHERE c_d_id = 4 AND c_last = '{name}' ORDER BY c_first LIMIT 1 OFFSET {}",
        (n - 1) / 2
    ));
    let input = PaymentInput {
        w_id: 1,
        d_id: 4,
        c_w_id: 1,
        c_d_id: 4,
        customer: CustomerKey::LastName(name),
        amount: 1.0,
    };
    let (_, c) =
        pollster::block_on(payment::execute(&mut db.s, &input, &mut Written::new())).unwrap();
    assert_eq!(c, expected);
}

#[test]
fn order_status_reads_the_last_order_and_changes_nothing() {
    let mut db = fresh();
    let c = 77;
    let last = db.int(&format!(
        "SELECT max(o_id) FROM orders WHERE o_d_id = 8 AND o_c_id = {c}"
    ));
    let lines = db.int(&format!(
        "SELECT o_ol_cnt FROM orders WHERE o_d_id = 8 AND o_id = {last}"
    ));
    let input = OrderStatusInput {
        w_id: 1,
        d_id: 8,
        customer: CustomerKey::Id(c),
    };
    let (outcome, shown) = pollster::block_on(order_status::execute(&mut db.s, &input)).unwrap();
    assert_eq!(outcome, Outcome::Committed);
    assert_eq!(shown.lines as i64, lines);
    assert_eq!((shown.c_id, shown.o_id), (c, last));
}

#[test]
fn delivery_delivers_the_oldest_order_of_every_district() {
    let mut db = fresh();
    // Every district's oldest order, its customer, and what the customer is owed.
    let owed: Vec<(i64, i64, f64, f64)> = (1..=10)
        .map(|d| {
            let c = db.int(&format!(
                "SELECT o_c_id FROM orders WHERE o_d_id = {d} AND o_id = 2101"
            ));
            let amount = db.float(&format!(
                "SELECT sum(ol_amount) FROM order_line WHERE ol_d_id = {d} AND ol_o_id = 2101"
            ));
            let balance = db.float(&format!(
                "SELECT c_balance FROM customer WHERE c_d_id = {d} AND c_id = {c}"
            ));
            (d, c, amount, balance)
        })
        .collect();
    let input = DeliveryInput {
        w_id: 1,
        carrier_id: 7,
    };
    let (outcome, delivered) =
        pollster::block_on(delivery::execute(&mut db.s, &input, &mut Written::new())).unwrap();
    assert_eq!((outcome, delivered), (Outcome::Committed, 10));
    assert_eq!(db.int("SELECT min(no_o_id) FROM new_order"), 2102);
    assert_eq!(db.int("SELECT count(*) FROM new_order"), 8_990);
    assert_eq!(
        db.int("SELECT count(*) FROM orders WHERE o_id = 2101 AND o_carrier_id = 7"),
        10
    );
    assert_eq!(
        db.int("SELECT count(*) FROM order_line WHERE ol_o_id = 2101 AND ol_delivery_d IS NULL"),
        0
    );
    for (d, c, amount, balance) in owed {
        let key = format!("c_d_id = {d} AND c_id = {c}");
        let now = db.float(&format!("SELECT c_balance FROM customer WHERE {key}"));
        assert!(
            (now - (balance + amount)).abs() < 1e-6,
            "district {d}: {balance} + {amount} != {now}"
        );
        assert_eq!(
            db.int(&format!("SELECT c_delivery_cnt FROM customer WHERE {key}")),
            1
        );
    }
    assert_eq!(db.check_violations(), vec![]);
}

#[test]
fn stock_level_counts_recent_items_below_the_threshold() {
    let mut db = fresh();
    let expected = db.int(
        "SELECT count(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = 1 AND ol_d_id = 2 \
         AND ol_o_id BETWEEN 2981 AND 3000 AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < 60",
    );
    let input = StockLevelInput {
        w_id: 1,
        d_id: 2,
        threshold: 60,
    };
    let (_, low) = pollster::block_on(stock_level::execute(&mut db.s, &input)).unwrap();
    assert_eq!(low, expected);
    assert!(low > 0, "a threshold of 60 finds some of about 200 items");
}

#[test]
fn check_passes_after_a_run() {
    use txbench_core::driver::{self, RetryPolicy, RunOptions, WaitMode};
    let db = fresh();
    let dir = db._dir.path().to_path_buf();
    let engine = Arc::new(engine_at(&dir.join("t.db")));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut s = pollster::block_on(engine.connect()).unwrap();
    let tpcc = Arc::new(pollster::block_on(Tpcc::open(&mut s, None, 5)).unwrap());
    let opts = RunOptions {
        duration: std::time::Duration::from_secs(2),
        transactions: None,
        warmup: std::time::Duration::from_millis(200),
        terminals: 10,
        connections: 2,
        wait: WaitMode::None,
        seed: 5,
        retry: RetryPolicy::default(),
        affinity: false,
        start_at: None,
        grace: txbench_core::driver::DEFAULT_GRACE,
        acks: None,
        schedule: Vec::new(),
        open: None,
    };
    let (_stop_tx, stop) = tokio::sync::watch::channel(false);
    let rec = rt
        .block_on(driver::run(&engine, &tpcc, &opts, stop, |_| {}))
        .unwrap();
    let done = rec.total.completed();
    assert!(done > 100, "only {done} transactions in 2 s");
    let failed: u64 = rec.total.measured.iter().map(|t| t.failed()).sum();
    assert_eq!(failed, 0, "{:?}", rec.total.error_samples);
    let violations = pollster::block_on(check::check(&mut s)).unwrap();
    assert!(violations.iter().all(|c| c.passed()), "{violations:?}");
    let orders = pollster::block_on(s.query_sql("SELECT count(*) FROM orders")).unwrap();
    let orders = orders.row(0).unwrap().get(0).unwrap().as_i64().unwrap();
    assert!(orders > 30_000, "New-Orders entered orders: {orders}");
}

/// The ACID tests on a private copy of the template, with the engine
/// `wrap` makes of it; the report.
fn acid_on<E: Engine>(wrap: impl FnOnce(SqliteEngine) -> E) -> txbench_workloads::acid::AcidReport {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    std::fs::copy(template(), &path).unwrap();
    let engine = Arc::new(wrap(engine_at(&path)));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(txbench_workloads::tpcc::acid::tests(engine, 11))
        .unwrap()
}

#[test]
fn every_acid_test_passes_on_sqlite() {
    use txbench_workloads::acid::AcidStatus;
    let report = acid_on(|e| e);
    assert_eq!(
        report.isolation,
        Some(txbench_core::Isolation::Serializable)
    );
    assert_eq!(report.tests.len(), 13, "{report:#?}");
    for t in &report.tests {
        assert_eq!(t.status, AcidStatus::Pass, "{t:#?}");
        assert!(t.evidence.len() >= 2, "{t:#?}");
    }
}

/// An engine whose sessions commit when asked to roll back: a database that
/// breaks atomicity, for the tests to catch.
struct IgnoresRollback(SqliteEngine);

struct Careless(SqliteSession);

impl Engine for IgnoresRollback {
    type Session = Careless;
    const BLOCKING: bool = true;
    fn name(&self) -> &'static str {
        "careless"
    }
    fn describe(&self) -> String {
        self.0.describe()
    }
    async fn connect(&self) -> Result<Careless, txbench_core::DbError> {
        Ok(Careless(self.0.connect().await?))
    }
    fn max_writers(&self) -> usize {
        1
    }
}

impl Session for Careless {
    type Loader = SqliteSession;
    type Whole = txbench_core::NoWholeTransactions;
    fn loader(&mut self) -> Option<&mut SqliteSession> {
        Some(&mut self.0)
    }
    async fn begin(&mut self, mode: txbench_core::TxMode) -> Result<(), txbench_core::DbError> {
        self.0.begin(mode).await
    }
    async fn commit(&mut self) -> Result<(), txbench_core::DbError> {
        self.0.commit().await
    }
    /// Commits instead (nothing to commit outside a transaction is no error).
    async fn rollback(&mut self) -> Result<(), txbench_core::DbError> {
        let _ = self.0.commit().await;
        Ok(())
    }
    async fn query(
        &mut self,
        stmt: &'static txbench_core::schema::Statement,
        params: &[txbench_core::Param<'_>],
    ) -> Result<txbench_core::Rows, txbench_core::DbError> {
        self.0.query(stmt, params).await
    }
    async fn execute(
        &mut self,
        stmt: &'static txbench_core::schema::Statement,
        params: &[txbench_core::Param<'_>],
    ) -> Result<u64, txbench_core::DbError> {
        self.0.execute(stmt, params).await
    }
    async fn query_sql(&mut self, sql: &str) -> Result<txbench_core::Rows, txbench_core::DbError> {
        self.0.query_sql(sql).await
    }
}

#[test]
fn acid_names_a_database_that_commits_what_it_was_told_to_roll_back() {
    use txbench_workloads::acid::AcidStatus;
    let report = acid_on(IgnoresRollback);
    let failed: Vec<(&str, &str)> = report
        .tests
        .iter()
        .filter(|t| t.status == AcidStatus::Fail)
        .map(|t| (t.clause, t.name.as_str()))
        .collect();
    // The rolled-back New-Order and Payment are found, and so are the
    // rolled-back New-Order's id taken and the Delivery's balance kept.
    for clause in ["3.2.2.2", "3.4.2.2", "3.4.2.4", "3.4.2.6"] {
        assert!(
            failed.iter().any(|(c, _)| *c == clause),
            "{clause} not failed: {failed:?}"
        );
    }
    assert!(!report.passed());
    let leaked = report
        .tests
        .iter()
        .find(|t| t.clause == "3.2.2.2" && t.name.starts_with("New-Order"))
        .unwrap();
    assert!(
        leaked.evidence.iter().any(|e| e.contains("leaked 1")),
        "{leaked:#?}"
    );
    // What commits passes: the tests tell the two apart.
    for t in report.tests.iter().filter(|t| t.clause == "3.2.2.1") {
        assert_eq!(t.status, AcidStatus::Pass, "{t:#?}");
    }
}
