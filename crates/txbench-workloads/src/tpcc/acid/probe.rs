//! The reads the ACID tests make to see what a transaction left, and the
//! one change they make that no TPC-C transaction does (an item's price).

use txbench_core::schema::Statement;
use txbench_core::{DbError, Param, Session, TxMode};

use crate::fields::{first, float};

pub(super) static DISTRICT: Statement = Statement::new(
    "acid: district",
    "SELECT d_next_o_id, d_ytd FROM district WHERE d_w_id = ? AND d_id = ?",
);
pub(super) static WAREHOUSE_YTD: Statement = Statement::new(
    "acid: warehouse",
    "SELECT w_ytd FROM warehouse WHERE w_id = ?",
);
pub(super) static CUSTOMER_MONEY: Statement = Statement::new(
    "acid: customer",
    "SELECT c_balance, c_ytd_payment, c_payment_cnt FROM customer \
     WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
);
pub(super) static ORDER_ROWS: Statement = Statement::new(
    "acid: order",
    "SELECT count(*) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
);
pub(super) static ORDER_LINE_ROWS: Statement = Statement::new(
    "acid: order lines",
    "SELECT count(*) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
);
pub(super) static NEW_ORDER_ROWS: Statement = Statement::new(
    "acid: new_order",
    "SELECT count(*) FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?",
);
pub(super) static HISTORY_ROWS: Statement = Statement::new(
    "acid: history",
    "SELECT count(*) FROM history WHERE h_c_w_id = ? AND h_c_d_id = ? AND h_c_id = ?",
);
pub(super) static STOCK_YTD: Statement = Statement::new(
    "acid: stock",
    "SELECT s_ytd FROM stock WHERE s_w_id = ? AND s_i_id = ?",
);
pub(super) static OLDEST_UNDELIVERED: Statement = Statement::new(
    "acid: oldest new_order",
    "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1",
);
pub(super) static ORDER_CUSTOMER: Statement = Statement::new(
    "acid: order's customer",
    "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
);
pub(super) static ORDER_AMOUNT: Statement = Statement::new(
    "acid: order's amount",
    "SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
);
pub(super) static ITEM_PRICE: Statement = Statement::new(
    "acid: item price",
    "SELECT i_price FROM item WHERE i_id = ?",
);
pub(super) static ITEM_PRICE_ADD: Statement = Statement::new(
    "acid: item price change",
    "UPDATE item SET i_price = i_price + ? WHERE i_id = ?",
);
pub(super) static DISTRICT_NEW_ORDERS: Statement = Statement::new(
    "acid: district's new_order rows",
    "SELECT count(*) FROM new_order WHERE no_w_id = ? AND no_d_id = ?",
);
pub(super) static CUSTOMER_ORDERS: Statement = Statement::new(
    "acid: customer's orders",
    "SELECT count(*) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?",
);

/// The integer keys of a statement as parameters.
pub(super) fn keys(values: &[i64]) -> Vec<Param<'static>> {
    values.iter().map(|&v| Param::Int(v)).collect()
}

/// The first row of `stmt`, in a read-only transaction of its own (so that
/// an engine with autocommit off holds no snapshot after it); `None` when
/// there is no row.
pub(super) async fn row<S: Session>(
    session: &mut S,
    stmt: &'static Statement,
    key: &[i64],
) -> Result<Option<Vec<f64>>, DbError> {
    session.begin(TxMode::ReadOnly).await?;
    let rows = session.query(stmt, &keys(key)).await;
    let _ = session.commit().await;
    let rows = rows?;
    let Some(row) = rows.row(0) else {
        return Ok(None);
    };
    // NULL (a sum over no rows) reads as 0.
    Ok(Some(
        (0..row.len())
            .map(|i| float(row, i, stmt.name).unwrap_or(0.0))
            .collect(),
    ))
}

/// The first value of `stmt`'s first row (0 when there is none).
pub(super) async fn value<S: Session>(
    session: &mut S,
    stmt: &'static Statement,
    key: &[i64],
) -> Result<f64, DbError> {
    Ok(row(session, stmt, key)
        .await?
        .and_then(|r| r.first().copied())
        .unwrap_or(0.0))
}

/// `stmt`'s first value, read inside the caller's open transaction.
pub(super) async fn read_in<S: Session>(
    session: &mut S,
    stmt: &'static Statement,
    key: &[i64],
) -> Result<f64, DbError> {
    let rows = session.query(stmt, &keys(key)).await?;
    float(first(&rows, stmt.name)?, 0, stmt.name)
}

/// An order's rows: (orders, order_line, new_order).
pub(super) async fn order_rows<S: Session>(
    session: &mut S,
    key: [i64; 3],
) -> Result<[i64; 3], DbError> {
    Ok([
        value(session, &ORDER_ROWS, &key).await? as i64,
        value(session, &ORDER_LINE_ROWS, &key).await? as i64,
        value(session, &NEW_ORDER_ROWS, &key).await? as i64,
    ])
}

/// The district's next order id.
pub(super) async fn next_order_id<S: Session>(
    session: &mut S,
    w: i64,
    d: i64,
) -> Result<i64, DbError> {
    Ok(value(session, &DISTRICT, &[w, d]).await? as i64)
}

/// S_YTD of the items at warehouse `w`, summed.
pub(super) async fn stock_ytd<S: Session>(
    session: &mut S,
    w: i64,
    items: &[i64],
) -> Result<i64, DbError> {
    let mut sum = 0;
    for &item in items {
        sum += value(session, &STOCK_YTD, &[w, item]).await? as i64;
    }
    Ok(sum)
}
