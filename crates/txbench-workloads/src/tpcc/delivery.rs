//! Delivery (clause 2.7): deliver the oldest undelivered order of each of the 10
//! districts, in one transaction.

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, ErrorKind, Outcome, Param, Session, TxMode, Written};

use super::constants::DISTRICTS;
use super::input::DeliveryInput;
use super::load::now_micros;
use crate::fields::{first, float, int, rows};

/// Locked as it is read, so that concurrent Deliveries of a warehouse queue
/// for a district's oldest order instead of reading the same one and all but
/// one failing at its delete.
static OLDEST_NEW_ORDER: Statement = Statement::for_update(
    "delivery: oldest new_order",
    "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1",
);
static DELETE_NEW_ORDER: Statement = Statement::new(
    "delivery: delete new_order",
    "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?",
);
static ORDER_CUSTOMER: Statement = Statement::new(
    "delivery: order",
    "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
);
static ORDER_CARRIER: Statement = Statement::new(
    "delivery: order update",
    "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
);
static LINES_DELIVERED: Statement = Statement::new(
    "delivery: order_line update",
    "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
);
static LINES_AMOUNT: Statement = Statement::new(
    "delivery: order_line sum",
    "SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
);
static CUSTOMER_DELIVERED: Statement = Statement::new(
    "delivery: customer update",
    "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 \
     WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
);

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
/// locked (and read again where a concurrent Delivery took it); then for each,
/// the delete, the order's customer, the carrier, the delivery dates and the
/// amount; then the customers' balances, with COMMIT.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &DeliveryInput,
    written: &mut Written,
) -> Result<(Outcome, usize), DbError> {
    let w = input.w_id;
    session.begin(TxMode::ReadWrite).await?;
    let delivered_at = now_micros();
    let orders = oldest_orders(session, w).await?;
    let keys: Vec<[Param<'_>; 3]> = orders
        .iter()
        .map(|&(d, o)| [Param::Int(w), Param::Int(d), Param::Int(o)])
        .collect();
    let carrier: Vec<[Param<'_>; 4]> = keys
        .iter()
        .map(|k| [Param::Int(input.carrier_id), k[0], k[1], k[2]])
        .collect();
    let dated: Vec<[Param<'_>; 4]> = keys
        .iter()
        .map(|k| [Param::Timestamp(delivered_at), k[0], k[1], k[2]])
        .collect();
    let mut calls = Vec::with_capacity(keys.len() * 5);
    for i in 0..keys.len() {
        calls.extend([
            Call::execute(&DELETE_NEW_ORDER, &keys[i]),
            Call::query(&ORDER_CUSTOMER, &keys[i]),
            Call::execute(&ORDER_CARRIER, &carrier[i]),
            Call::execute(&LINES_DELIVERED, &dated[i]),
            Call::query(&LINES_AMOUNT, &keys[i]),
        ]);
    }
    let replies = session.pipeline(&calls).await?;

    let mut balances: Vec<[Param<'_>; 4]> = Vec::with_capacity(orders.len());
    for (&(d, _), r) in orders.iter().zip(replies.chunks_exact(5)) {
        if r[0].affected() != 1 {
            // Another Delivery took it between our read and delete.
            return Err(DbError::new(
                ErrorKind::Conflict,
                "delivery: new_order row taken concurrently",
            ));
        }
        let c = int(first(rows(&r[1]), "delivered order")?, 0, "o_c_id")?;
        let amount = float(first(rows(&r[4]), "order line sum")?, 0, "sum(ol_amount)")?;
        balances.push([
            Param::Float(amount),
            Param::Int(w),
            Param::Int(d),
            Param::Int(c),
        ]);
    }
    let calls: Vec<Call<'_>> = balances
        .iter()
        .map(|b| Call::execute(&CUSTOMER_DELIVERED, b))
        .collect();
    let delivered = orders.iter().flat_map(|&(d, o)| [d, o]);
    written.committing(
        [w, input.carrier_id, delivered_at]
            .into_iter()
            .chain(delivered),
    );
    session.pipeline_and_commit(&calls).await?;
    Ok((Outcome::Committed, orders.len()))
}
