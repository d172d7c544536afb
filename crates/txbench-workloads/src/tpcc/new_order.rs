//! New-Order (clause 2.4): enter a complete order in one transaction.

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, Outcome, Param, Session, TxMode, Written};

use super::input::NewOrderInput;
use super::load::now_micros;
use crate::fields::{cents, first, float, int, rows, text};

static WAREHOUSE_TAX: Statement = Statement::new(
    "new_order: warehouse",
    "SELECT w_tax FROM warehouse WHERE w_id = ?",
);
static DISTRICT: Statement = Statement::for_update(
    "new_order: district",
    "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
);
static DISTRICT_NEXT: Statement = Statement::new(
    "new_order: district update",
    "UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?",
);
static CUSTOMER: Statement = Statement::new(
    "new_order: customer",
    "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
);
static INSERT_ORDER: Statement = Statement::new(
    "new_order: insert order",
    "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) \
     VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
);
static INSERT_NEW_ORDER: Statement = Statement::new(
    "new_order: insert new_order",
    "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)",
);
static ITEM: Statement = Statement::new(
    "new_order: item",
    "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?",
);
macro_rules! stock_for_district {
    ($($col:literal),*) => {
        [$(Statement::for_update(
            "new_order: stock",
            concat!("SELECT s_quantity, s_data, ", $col, " FROM stock WHERE s_i_id = ? AND s_w_id = ?"),
        )),*]
    };
}
/// The stock query per district: S_DIST_xx is the district's column (2.4.2.2).
static STOCK: [Statement; 10] = stock_for_district!(
    "s_dist_01",
    "s_dist_02",
    "s_dist_03",
    "s_dist_04",
    "s_dist_05",
    "s_dist_06",
    "s_dist_07",
    "s_dist_08",
    "s_dist_09",
    "s_dist_10"
);
static STOCK_UPDATE: Statement = Statement::new(
    "new_order: stock update",
    "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, \
     s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?",
);
static INSERT_LINE: Statement = Statement::new(
    "new_order: insert order_line",
    "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, \
     ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
);

/// What the terminal displays after a committed New-Order (2.4.3.3), in part.
#[derive(Debug, Clone, PartialEq)]
pub struct NewOrderOutput {
    /// The new order's id.
    pub o_id: i64,
    /// Total amount: sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX).
    pub total: f64,
    /// Brand-generic flag per line, in line order ('B' when both item and stock say ORIGINAL).
    pub brand_generic: Vec<char>,
}

/// The fields New-Order states in [`Written`]: the order's key, its customer,
/// its lines, the sum of their amounts in cents and its entry date (µs), which
/// tells it from another order that later took the same id after a rollback.
pub const ACK_FIELDS: &str = "w_id d_id o_id c_id ol_cnt amount_cents entry_us";

/// Execute New-Order. An unused item id rolls the transaction back (2.4.2.3) and
/// returns [`Outcome::ExpectedRollback`]; either end is stated in `written`
/// ([`ACK_FIELDS`]; a rollback's amount is 0).
///
/// Statements that do not depend on each other go out as one pipeline, so a
/// network engine needs three round trips: warehouse, district and customer
/// (with BEGIN); the district update, the order rows, every item and every
/// stock row (locked in item order, so concurrent New-Orders cannot deadlock;
/// the 1% rollback locks them too, and releases them when it rolls back);
/// every stock update and order line (with COMMIT).
pub async fn execute<S: Session>(
    session: &mut S,
    input: &NewOrderInput,
    written: &mut Written,
) -> Result<(Outcome, Option<NewOrderOutput>), DbError> {
    let (w, d, c) = (input.w_id, input.d_id, input.c_id);
    let ol_cnt = input.lines.len();
    session.begin(TxMode::ReadWrite).await?;

    let (wd, wdc) = (
        [Param::Int(w)],
        [Param::Int(w), Param::Int(d), Param::Int(c)],
    );
    let replies = session
        .pipeline(&[
            Call::query(&WAREHOUSE_TAX, &wd),
            Call::query(&DISTRICT, &wdc[..2]),
            Call::query(&CUSTOMER, &wdc),
        ])
        .await?;
    let w_tax = float(first(rows(&replies[0]), "warehouse")?, 0, "w_tax")?;
    let district = first(rows(&replies[1]), "district")?;
    let d_tax = float(district, 0, "d_tax")?;
    let o_id = int(district, 1, "d_next_o_id")?;
    let c_discount = float(first(rows(&replies[2]), "customer")?, 0, "c_discount")?;

    let all_local = i64::from(input.all_local());
    let entry = now_micros();
    let next = [Param::Int(o_id + 1), Param::Int(w), Param::Int(d)];
    let order = [
        Param::Int(o_id),
        Param::Int(d),
        Param::Int(w),
        Param::Int(c),
        Param::Timestamp(entry),
        Param::Int(ol_cnt as i64),
        Param::Int(all_local),
    ];
    let item_keys: Vec<[Param<'_>; 1]> = input.lines.iter().map(|l| [Param::Int(l.item)]).collect();
    // Stock rows in item order; each line keeps its own OL_NUMBER.
    let mut order_of_lines: Vec<usize> = (0..ol_cnt).collect();
    order_of_lines.sort_by_key(|&i| (input.lines[i].item, input.lines[i].supply_w_id));
    let stock_keys: Vec<[Param<'_>; 2]> = order_of_lines
        .iter()
        .map(|&i| {
            [
                Param::Int(input.lines[i].item),
                Param::Int(input.lines[i].supply_w_id),
            ]
        })
        .collect();
    let stock_query = &STOCK[(d - 1) as usize];
    let mut calls = vec![
        Call::execute(&DISTRICT_NEXT, &next),
        Call::execute(&INSERT_ORDER, &order),
        Call::execute(&INSERT_NEW_ORDER, &order[..3]),
    ];
    calls.extend(item_keys.iter().map(|k| Call::query(&ITEM, k)));
    calls.extend(stock_keys.iter().map(|k| Call::query(stock_query, k)));
    let replies = session.pipeline(&calls).await?;
    let (items, stocks) = replies[3..].split_at(ol_cnt);
    if items.iter().any(|r| rows(r).is_empty()) {
        // The unused item of the 1% rollback (2.4.2.3): undo everything.
        written.rolling_back([w, d, o_id, c, ol_cnt as i64, 0, entry]);
        session.rollback().await?;
        return Ok((Outcome::ExpectedRollback, None));
    }

    let mut brand_generic = vec!['G'; ol_cnt];
    let mut updates: Vec<[Param<'_>; 5]> = Vec::with_capacity(ol_cnt);
    let mut lines: Vec<[Param<'_>; 9]> = Vec::with_capacity(ol_cnt);
    let mut sum = 0.0;
    let mut sum_cents = 0i64;
    for (&i, stock) in order_of_lines.iter().zip(stocks) {
        let line = input.lines[i];
        let item = first(rows(&items[i]), "item")?;
        let price = float(item, 0, "i_price")?;
        let i_data = text(item, 2, "i_data")?;
        let stock = first(rows(stock), "stock")?;
        let quantity = int(stock, 0, "s_quantity")?;
        let s_data = text(stock, 1, "s_data")?;
        let dist_info = text(stock, 2, "s_dist_xx")?;
        // 2.4.2.2: subtract, or add 91 when fewer than quantity + 10 would remain.
        let new_quantity = if quantity >= line.quantity + 10 {
            quantity - line.quantity
        } else {
            quantity - line.quantity + 91
        };
        if i_data.contains("ORIGINAL") && s_data.contains("ORIGINAL") {
            brand_generic[i] = 'B';
        }
        let amount = cents(line.quantity as f64 * price);
        sum += amount;
        sum_cents += (amount * 100.0).round() as i64;
        updates.push([
            Param::Int(new_quantity),
            Param::Int(line.quantity),
            Param::Int(i64::from(line.supply_w_id != w)),
            Param::Int(line.item),
            Param::Int(line.supply_w_id),
        ]);
        lines.push([
            Param::Int(o_id),
            Param::Int(d),
            Param::Int(w),
            Param::Int(i as i64 + 1),
            Param::Int(line.item),
            Param::Int(line.supply_w_id),
            Param::Int(line.quantity),
            Param::Float(amount),
            Param::Text(dist_info),
        ]);
    }
    let mut calls: Vec<Call<'_>> = updates
        .iter()
        .map(|u| Call::execute(&STOCK_UPDATE, u))
        .collect();
    calls.extend(lines.iter().map(|l| Call::execute(&INSERT_LINE, l)));
    written.committing([w, d, o_id, c, ol_cnt as i64, sum_cents, entry]);
    session.pipeline_and_commit(&calls).await?;
    let total = cents(sum * (1.0 - c_discount) * (1.0 + w_tax + d_tax));
    Ok((
        Outcome::Committed,
        Some(NewOrderOutput {
            o_id,
            total,
            brand_generic,
        }),
    ))
}
