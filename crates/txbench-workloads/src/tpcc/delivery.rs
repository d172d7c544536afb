//! Delivery (clause 2.7): deliver the oldest undelivered order of each of the 10
//! districts, in one transaction.

use std::sync::LazyLock;

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, ErrorKind, Outcome, Param, Session, TxMode, Written};

use super::constants::DISTRICTS;
use super::input::DeliveryInput;
use super::load::now_micros;
use super::sets::{district_key_params, district_keys, leak};
use crate::fields::{float, int, keyed, rows};

/// Locked as it is read, so that concurrent Deliveries of a warehouse queue
/// for a district's oldest order instead of reading the same one and all but
/// one failing at its delete.
static OLDEST_NEW_ORDER: Statement = Statement::for_update(
    "delivery: oldest new_order",
    "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1",
);
/// Delivery's statements on every order it delivers at once, for one count
/// of districts delivered.
struct ForOrders {
    delete_new_orders: Statement,
    customers: Statement,
    carrier: Statement,
    lines_delivered: Statement,
    lines_amount: Statement,
    /// Every customer's balance, each customer's amount chosen by its key.
    balances: Statement,
}

/// [`ForOrders`] per count of districts delivered; index `n - 1` holds `n`.
static FOR_ORDERS: LazyLock<Vec<ForOrders>> =
    LazyLock::new(|| (1..=DISTRICTS as usize).map(ForOrders::new).collect());

impl ForOrders {
    fn new(n: usize) -> ForOrders {
        let keys = |key| district_keys(key, n);
        let statement = |name, sql: String| Statement::new(name, leak(sql));
        ForOrders {
            delete_new_orders: statement(
                "delivery: delete new_orders",
                format!(
                    "DELETE FROM new_order WHERE {}",
                    keys(["no_w_id", "no_d_id", "no_o_id"])
                ),
            ),
            customers: statement(
                "delivery: orders",
                format!(
                    "SELECT o_d_id, o_c_id FROM orders WHERE {}",
                    keys(ORDER_KEY)
                ),
            ),
            carrier: statement(
                "delivery: orders update",
                format!(
                    "UPDATE orders SET o_carrier_id = ? WHERE {}",
                    keys(ORDER_KEY)
                ),
            ),
            lines_delivered: statement(
                "delivery: order_lines update",
                format!(
                    "UPDATE order_line SET ol_delivery_d = ? WHERE {}",
                    keys(LINE_KEY)
                ),
            ),
            lines_amount: statement(
                "delivery: order_lines sum",
                format!(
                    "SELECT ol_d_id, sum(ol_amount) FROM order_line WHERE {} GROUP BY ol_d_id",
                    keys(LINE_KEY)
                ),
            ),
            // The ELSE (never taken) gives the CASE a decimal type, which
            // PostgreSQL would otherwise take as text for bare parameters.
            balances: statement(
                "delivery: customers update",
                format!(
                    "UPDATE customer SET c_balance = c_balance + CASE{} ELSE 0.0 END, \
                     c_delivery_cnt = c_delivery_cnt + 1 WHERE {}",
                    " WHEN c_d_id = ? AND c_id = ? THEN ?".repeat(n),
                    keys(["c_w_id", "c_d_id", "c_id"])
                ),
            ),
        }
    }
}

const ORDER_KEY: [&str; 3] = ["o_w_id", "o_d_id", "o_id"];
const LINE_KEY: [&str; 3] = ["ol_w_id", "ol_d_id", "ol_o_id"];

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
    // Its identity before its first write: an attempt that fails from here
    // on is logged, and nothing of it may remain.
    let delivered = orders.iter().flat_map(|&(d, o)| [d, o]);
    written.writing(
        [w, input.carrier_id, delivered_at]
            .into_iter()
            .chain(delivered),
    );
    let balances = if orders.is_empty() {
        Vec::new()
    } else {
        deliver(session, input, delivered_at, &orders).await?
    };
    let update = (!orders.is_empty())
        .then(|| Call::execute(&FOR_ORDERS[orders.len() - 1].balances, &balances));
    written.committing_as_stated();
    session.pipeline_and_commit(update.as_slice()).await?;
    Ok((Outcome::Committed, orders.len()))
}

/// Delete the (district, order) `orders`' new_order rows, set their carrier
/// and their lines' delivery date, and read their customers and amounts, all
/// in one pipeline; returns the parameters of [`ForOrders::balances`]: each
/// customer's district, id and amount, then the customers' keys.
async fn deliver<S: Session>(
    session: &mut S,
    input: &DeliveryInput,
    delivered_at: i64,
    orders: &[(i64, i64)],
) -> Result<Vec<Param<'static>>, DbError> {
    let (w, n) = (input.w_id, orders.len());
    let statements = &FOR_ORDERS[n - 1];
    let keys = district_key_params(w, orders);
    let carrier = before(Param::Int(input.carrier_id), &keys);
    let dated = before(Param::Timestamp(delivered_at), &keys);
    let replies = session
        .pipeline(&[
            Call::execute(&statements.delete_new_orders, &keys),
            Call::query(&statements.customers, &keys),
            Call::execute(&statements.carrier, &carrier),
            Call::execute(&statements.lines_delivered, &dated),
            Call::query(&statements.lines_amount, &keys),
        ])
        .await?;
    if replies[0].affected() != n as u64 {
        // Another Delivery took one between our read and delete.
        return Err(DbError::new(
            ErrorKind::Conflict,
            "delivery: new_order row taken concurrently",
        ));
    }
    let mut balances = Vec::with_capacity(n * 7 + 1);
    let mut customers = Vec::with_capacity(n);
    for &(d, _) in orders {
        let c = int(keyed(rows(&replies[1]), d, "delivered order")?, 1, "o_c_id")?;
        let amount = float(
            keyed(rows(&replies[4]), d, "order line sum")?,
            1,
            "sum(ol_amount)",
        )?;
        balances.extend([Param::Int(d), Param::Int(c), Param::Float(amount)]);
        customers.push((d, c));
    }
    balances.extend(district_key_params(w, &customers));
    Ok(balances)
}

/// `first`, then `rest`.
fn before<'p>(first: Param<'p>, rest: &[Param<'p>]) -> Vec<Param<'p>> {
    std::iter::once(first).chain(rest.iter().copied()).collect()
}
