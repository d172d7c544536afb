//! TPC-C's acknowledged work held against the database (docs/durability.md):
//! every New-Order logged is looked up with its lines and their total, every
//! Payment by its history row, every Delivery by its orders' carrier and
//! their new_order rows. Everything is read in one snapshot, a few queries in
//! all, and matched in memory.

use std::collections::{HashMap, HashSet};

use txbench_core::acks::{AckFile, AckLine};
use txbench_core::written::AckStatus;
use txbench_core::{DbError, Param, Row, Rows, Session, TxMode};

use super::constants::{DELIVERY, NEW_ORDER, PAYMENT, TXN_TYPES};
use crate::verify::{Found, TypeVerification, Verification};

/// (warehouse, district, order id).
type OrderKey = (i64, i64, i64);

/// What the database holds of the orders the log names.
struct Orders {
    /// Per order: customer, line count, entry date (µs), carrier (0: none).
    orders: HashMap<OrderKey, [i64; 4]>,
    /// Per order: its order_line rows, the sum of their amounts in cents and
    /// their latest delivery date (µs; 0: undelivered).
    lines: HashMap<OrderKey, (i64, i64, i64)>,
    /// The orders not yet delivered.
    undelivered: HashSet<OrderKey>,
}

/// Hold the log's New-Orders, Payments and Deliveries against the database.
pub async fn verify<S: Session>(session: &mut S, log: &AckFile) -> Result<Verification, DbError> {
    let key = |t: usize| TXN_TYPES[t].key;
    session.begin(TxMode::Snapshot).await?;
    let read = read(session, log).await;
    let _ = session.rollback().await;
    let (orders, payments) = read?;
    let mut new_orders = TypeVerification::new(key(NEW_ORDER));
    for line in log.of_type(key(NEW_ORDER)) {
        new_orders.tally(line.status, new_order(&orders, line)?, &line.fields);
    }
    let mut payment_found = TypeVerification::new(key(PAYMENT));
    for line in log.of_type(key(PAYMENT)) {
        let found = match payments.contains(&payment_key(line)?) {
            true => Found::Present,
            false => Found::Absent,
        };
        payment_found.tally(line.status, found, &line.fields);
    }
    let mut deliveries = TypeVerification::new(key(DELIVERY));
    for line in log.of_type(key(DELIVERY)) {
        deliveries.tally(line.status, delivery(&orders, line)?, &line.fields);
    }
    let verified = [key(NEW_ORDER), key(PAYMENT), key(DELIVERY)];
    Ok(Verification {
        unverified_lines: log
            .lines
            .iter()
            .filter(|l| !verified.contains(&l.txn_type.as_str()))
            .count() as u64,
        types: vec![new_orders, payment_found, deliveries],
    })
}

/// The orders from the lowest order id the log names on, and the history.
async fn read<S: Session>(
    session: &mut S,
    log: &AckFile,
) -> Result<(Orders, HashSet<[i64; 7]>), DbError> {
    let from = lowest_order(log);
    let orders = session
        .query_sql(&format!(
            "SELECT o_w_id, o_d_id, o_id, o_c_id, o_ol_cnt, o_entry_d, o_carrier_id \
             FROM orders WHERE o_id >= {from}"
        ))
        .await?;
    let lines = session
        .query_sql(&format!(
            "SELECT ol_w_id, ol_d_id, ol_o_id, count(*), round(sum(ol_amount) * 100), \
             max(ol_delivery_d) FROM order_line WHERE ol_o_id >= {from} GROUP BY ol_w_id, ol_d_id, ol_o_id"
        ))
        .await?;
    let undelivered = session
        .query_sql(&format!(
            "SELECT no_w_id, no_d_id, no_o_id FROM new_order WHERE no_o_id >= {from}"
        ))
        .await?;
    let history = session
        .query_sql(
            "SELECT h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, round(h_amount * 100), h_date \
             FROM history",
        )
        .await?;
    let orders = Orders {
        orders: keyed(&orders, |r| {
            Ok([int(r, 3)?, int(r, 4)?, int(r, 5)?, int_or_zero(r, 6)?])
        })?,
        lines: keyed(&lines, |r| Ok((int(r, 3)?, int(r, 4)?, int_or_zero(r, 5)?)))?,
        undelivered: keyed(&undelivered, |_| Ok(()))?.into_keys().collect(),
    };
    let payments = history
        .iter()
        .map(|r| {
            let mut k = [0; 7];
            for (i, slot) in k.iter_mut().enumerate() {
                *slot = int(r, i)?;
            }
            Ok(k)
        })
        .collect::<Result<_, DbError>>()?;
    Ok((orders, payments))
}

/// The lowest order id any New-Order or Delivery line names (1 when none do).
fn lowest_order(log: &AckFile) -> i64 {
    let new_orders = log
        .of_type(TXN_TYPES[NEW_ORDER].key)
        .filter_map(|l| l.fields.get(2));
    let delivered = log
        .of_type(TXN_TYPES[DELIVERY].key)
        .flat_map(|l| l.fields.iter().skip(4).step_by(2));
    new_orders.chain(delivered).copied().min().unwrap_or(1)
}

/// Rows keyed by their first three columns, each with the rest as `value` reads it.
fn keyed<T>(
    rows: &Rows,
    value: impl Fn(Row<'_>) -> Result<T, DbError>,
) -> Result<HashMap<OrderKey, T>, DbError> {
    rows.iter()
        .map(|r| Ok(((int(r, 0)?, int(r, 1)?, int(r, 2)?), value(r)?)))
        .collect()
}

/// Column `i` as a whole number from the database: an integer, a timestamp
/// (µs) or a number that is whole (a rounded amount, however the engine
/// returns it).
fn int(row: Row<'_>, i: usize) -> Result<i64, DbError> {
    let v = row.get(i).unwrap_or(Param::Null);
    match v {
        Param::Float(f) => Some(f.round() as i64),
        Param::Text(t) => t.parse::<f64>().ok().map(|f| f.round() as i64),
        v => v.as_i64(),
    }
    .ok_or_else(|| {
        DbError::new(
            txbench_core::ErrorKind::Data,
            format!("not a number: {v:?}"),
        )
    })
}

fn int_or_zero(row: Row<'_>, i: usize) -> Result<i64, DbError> {
    if row.get(i) == Some(Param::Null) {
        Ok(0)
    } else {
        int(row, i)
    }
}

fn fields<const N: usize>(line: &AckLine) -> Result<[i64; N], DbError> {
    line.fields
        .get(..N)
        .and_then(|f| f.try_into().ok())
        .ok_or_else(|| {
            DbError::new(
                txbench_core::ErrorKind::Data,
                format!(
                    "a {} line of the log has {} fields, not {N}",
                    line.txn_type,
                    line.fields.len()
                ),
            )
        })
}

/// A New-Order is there when its order row is (same customer, line count and
/// entry date: another order may have taken the id of one rolled back) and
/// whole when its lines are all there with the amounts it wrote. Lines under
/// its id with no order row at all are part of a New-Order without the rest:
/// every New-Order that commits writes its order row.
fn new_order(db: &Orders, line: &AckLine) -> Result<Found, DbError> {
    let [w, d, o, c, ol_cnt, cents, entry] = fields::<7>(line)?;
    let Some(&[oc, cnt, entry_d, _]) = db.orders.get(&(w, d, o)) else {
        return Ok(match db.lines.contains_key(&(w, d, o)) {
            true => Found::Partial,
            false => Found::Absent,
        });
    };
    if (oc, cnt, entry_d) != (c, ol_cnt, entry) {
        return Ok(Found::Absent);
    }
    let whole = match line.status {
        // A rollback's amounts were never computed: any line is a leak.
        AckStatus::RolledBack => true,
        _ => db
            .lines
            .get(&(w, d, o))
            .is_some_and(|&(n, sum, _)| (n, sum) == (ol_cnt, cents)),
    };
    Ok(if whole {
        Found::Present
    } else {
        Found::Partial
    })
}

/// A Payment's history row: customer, district, amount and date.
fn payment_key(line: &AckLine) -> Result<[i64; 7], DbError> {
    fields::<7>(line)
}

/// A Delivery is there when each of its orders has its carrier, its lines
/// its delivery date (which tells it from a later Delivery of an order it
/// rolled back) and no new_order row left.
fn delivery(db: &Orders, line: &AckLine) -> Result<Found, DbError> {
    let [w, carrier, delivered_at] = fields::<3>(line)?;
    let delivered = line.fields[3..].chunks_exact(2).map(|p| {
        let key = (w, p[0], p[1]);
        let carried = db.orders.get(&key).is_some_and(|o| o[3] == carrier);
        let dated = db.lines.get(&key).is_some_and(|l| l.2 == delivered_at);
        carried && dated && !db.undelivered.contains(&key)
    });
    let (mut done, mut all) = (0, 0);
    for d in delivered {
        all += 1;
        done += usize::from(d);
    }
    Ok(match done {
        // Nothing to deliver: nothing to find, so what the log says stands.
        _ if all == 0 && line.status == AckStatus::RolledBack => Found::Absent,
        _ if all == 0 => Found::Present,
        0 => Found::Absent,
        n if n == all => Found::Present,
        _ => Found::Partial,
    })
}
