//! Delivery (clause 2.7): deliver the oldest undelivered order of each of the 10
//! districts, in one transaction.

use std::sync::LazyLock;

use txbench_core::schema::Statement;
use txbench_core::{
    Call, DbError, ErrorKind, Outcome, Param, Rows, Session, TxMode, Value, Written,
};

use super::constants::DISTRICTS;
use super::input::DeliveryInput;
use super::load::now_micros;
use super::sets::{by_size, district_key_params, district_keys, leak};
use crate::fields::{float, int, rows};

/// Locked as it is read, so that concurrent Deliveries of a warehouse queue
/// for a district's oldest order instead of reading the same one and all but
/// one failing at its delete.
static OLDEST_NEW_ORDER: Statement = Statement::for_update(
    "delivery: oldest new_order",
    "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1",
);
/// A statement on every order delivered at once, one per count of districts
/// delivered; `{keys}` in `sql` stands for the orders' keys, named by `key`.
fn by_district(name: &'static str, sql: &'static str, key: [&str; 3]) -> Vec<Statement> {
    by_size(DISTRICTS as usize, |n| {
        let keys = district_keys(key[0], key[1], key[2], n);
        Statement::new(name, leak(sql.replace("{keys}", &keys)))
    })
}

const NEW_ORDER_KEY: [&str; 3] = ["no_w_id", "no_d_id", "no_o_id"];
const ORDER_KEY: [&str; 3] = ["o_w_id", "o_d_id", "o_id"];
const LINE_KEY: [&str; 3] = ["ol_w_id", "ol_d_id", "ol_o_id"];

static DELETE_NEW_ORDERS: LazyLock<Vec<Statement>> = LazyLock::new(|| {
    by_district(
        "delivery: delete new_orders",
        "DELETE FROM new_order WHERE {keys}",
        NEW_ORDER_KEY,
    )
});
static ORDERS_CUSTOMERS: LazyLock<Vec<Statement>> = LazyLock::new(|| {
    by_district(
        "delivery: orders",
        "SELECT o_d_id, o_c_id FROM orders WHERE {keys}",
        ORDER_KEY,
    )
});
static ORDERS_CARRIER: LazyLock<Vec<Statement>> = LazyLock::new(|| {
    by_district(
        "delivery: orders update",
        "UPDATE orders SET o_carrier_id = ? WHERE {keys}",
        ORDER_KEY,
    )
});
static LINES_DELIVERED: LazyLock<Vec<Statement>> = LazyLock::new(|| {
    by_district(
        "delivery: order_lines update",
        "UPDATE order_line SET ol_delivery_d = ? WHERE {keys}",
        LINE_KEY,
    )
});
static LINES_AMOUNT: LazyLock<Vec<Statement>> = LazyLock::new(|| {
    by_district(
        "delivery: order_lines sum",
        "SELECT ol_d_id, sum(ol_amount) FROM order_line WHERE {keys} GROUP BY ol_d_id",
        LINE_KEY,
    )
});
/// Every customer's balance in one statement, each customer's amount chosen by
/// its key. The ELSE (never taken) gives the CASE a decimal type, which
/// PostgreSQL would otherwise take as text for bare parameters.
static CUSTOMERS_DELIVERED: LazyLock<Vec<Statement>> = LazyLock::new(|| {
    by_size(DISTRICTS as usize, |n| {
        let amounts = " WHEN c_d_id = ? AND c_id = ? THEN ?".repeat(n);
        let keys = district_keys("c_w_id", "c_d_id", "c_id", n);
        Statement::new(
            "delivery: customers update",
            leak(format!(
                "UPDATE customer SET c_balance = c_balance + CASE{amounts} ELSE 0.0 END, \
                 c_delivery_cnt = c_delivery_cnt + 1 WHERE {keys}"
            )),
        )
    })
});

/// (district, order) of the districts with something to deliver, each
/// oldest new_order row locked.
///
/// A locking read that waited for another Delivery finds the row it waited
/// for deleted; PostgreSQL at read committed then answers with no row rather
/// than the next one (the LIMIT was applied before the wait). Those districts
/// are read again, once, in a new statement that sees the other's commit.
async fn oldest_orders<S: Session>(session: &mut S, w: i64) -> Result<Vec<(i64, i64)>, DbError> {
    let all: Vec<i64> = (1..=DISTRICTS).collect();
    let mut found: Vec<(i64, Option<i64>)> = all
        .iter()
        .copied()
        .zip(lock_oldest(session, w, &all).await?)
        .collect();
    let empty: Vec<i64> = found
        .iter()
        .filter(|(_, o)| o.is_none())
        .map(|(d, _)| *d)
        .collect();
    if !empty.is_empty() {
        for (d, o) in empty.iter().zip(lock_oldest(session, w, &empty).await?) {
            found[(*d - 1) as usize].1 = o;
        }
    }
    Ok(found
        .into_iter()
        .filter_map(|(d, o)| Some((d, o?)))
        .collect())
}

/// The oldest new_order row of each of warehouse `w`'s `districts`, locked.
async fn lock_oldest<S: Session>(
    session: &mut S,
    w: i64,
    districts: &[i64],
) -> Result<Vec<Option<i64>>, DbError> {
    let keys: Vec<[Param<'_>; 2]> = districts
        .iter()
        .map(|&d| [Param::Int(w), Param::Int(d)])
        .collect();
    let calls: Vec<Call<'_>> = keys
        .iter()
        .map(|k| Call::query(&OLDEST_NEW_ORDER, k))
        .collect();
    let replies = session.pipeline(&calls).await?;
    replies
        .iter()
        .map(|r| rows(r).row(0).map(|row| int(row, 0, "no_o_id")).transpose())
        .collect()
}

/// The fields Delivery states in [`Written`]: the warehouse, the carrier, the
/// delivery date written on the lines (µs), and a district and order id per
/// order delivered.
pub const ACK_FIELDS: &str = "w_id carrier_id delivered_us d_id o_id ...";

/// Execute Delivery; returns how many districts had an order to deliver (the
/// others are skipped, as 2.7.4.2 allows).
///
/// Pipelined in three round trips: the oldest new order of every district,
/// locked (and read again where a concurrent Delivery took it); then, for all
/// of them at once, the delete, the orders' customers, the carrier, the
/// delivery dates and the amounts; then every customer's balance, with COMMIT.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &DeliveryInput,
    written: &mut Written,
) -> Result<(Outcome, usize), DbError> {
    let w = input.w_id;
    session.begin(TxMode::ReadWrite).await?;
    let delivered_at = now_micros();
    let orders = oldest_orders(session, w).await?;
    let n = orders.len();
    // Each customer's district, id and amount, then the customers' keys.
    let mut amounts: Vec<Param<'_>> = Vec::with_capacity(n * 7 + 1);
    if n > 0 {
        let keys = district_key_params(w, &orders);
        let carrier: Vec<Param<'_>> = std::iter::once(Param::Int(input.carrier_id))
            .chain(keys.iter().copied())
            .collect();
        let dated: Vec<Param<'_>> = std::iter::once(Param::Timestamp(delivered_at))
            .chain(keys.iter().copied())
            .collect();
        let replies = session
            .pipeline(&[
                Call::execute(&DELETE_NEW_ORDERS[n - 1], &keys),
                Call::query(&ORDERS_CUSTOMERS[n - 1], &keys),
                Call::execute(&ORDERS_CARRIER[n - 1], &carrier),
                Call::execute(&LINES_DELIVERED[n - 1], &dated),
                Call::query(&LINES_AMOUNT[n - 1], &keys),
            ])
            .await?;
        if replies[0].affected() != n as u64 {
            // Another Delivery took one between our read and delete.
            return Err(DbError::new(
                ErrorKind::Conflict,
                "delivery: new_order row taken concurrently",
            ));
        }
        let mut customers = Vec::with_capacity(n);
        for &(d, _) in &orders {
            let c = int(
                of_district(rows(&replies[1]), d, "delivered order")?,
                1,
                "o_c_id",
            )?;
            let amount = float(
                of_district(rows(&replies[4]), d, "order line sum")?,
                1,
                "sum(ol_amount)",
            )?;
            amounts.extend([Param::Int(d), Param::Int(c), Param::Float(amount)]);
            customers.push((d, c));
        }
        amounts.extend(district_key_params(w, &customers));
    }
    let calls: Vec<Call<'_>> = n
        .checked_sub(1)
        .map(|i| Call::execute(&CUSTOMERS_DELIVERED[i], &amounts))
        .into_iter()
        .collect();
    let delivered = orders.iter().flat_map(|&(d, o)| [d, o]);
    written.committing(
        [w, input.carrier_id, delivered_at]
            .into_iter()
            .chain(delivered),
    );
    session.pipeline_and_commit(&calls).await?;
    Ok((Outcome::Committed, n))
}

/// The row of district `d` in a result whose first column is the district.
fn of_district<'r>(rows: &'r Rows, d: i64, what: &str) -> Result<&'r [Value], DbError> {
    rows.iter()
        .find(|row| row[0].as_i64() == Some(d))
        .ok_or_else(|| DbError::missing(what))
}
