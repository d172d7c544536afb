//! Delivery (clause 2.7): deliver the oldest undelivered order of each of the 10
//! districts, in one transaction.

use txbench_core::schema::Statement;
use txbench_core::{DbError, ErrorKind, Outcome, Param, Session, TxMode};

use super::constants::DISTRICTS;
use super::fields::{first, float, int};
use super::input::DeliveryInput;
use super::load::now_micros;

static OLDEST_NEW_ORDER: Statement = Statement::new(
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

/// Execute Delivery; returns how many districts had an order to deliver (the
/// others are skipped, as 2.7.4.2 allows).
pub async fn execute<S: Session>(
    session: &mut S,
    input: &DeliveryInput,
) -> Result<(Outcome, usize), DbError> {
    let w = input.w_id;
    session.begin(TxMode::ReadWrite).await?;
    let delivered_at = now_micros();
    let mut delivered = 0;
    for d in 1..=DISTRICTS {
        let rows = session
            .query(&OLDEST_NEW_ORDER, &[Param::Int(w), Param::Int(d)])
            .await?;
        let Some(row) = rows.row(0) else { continue };
        let o_id = int(row, 0, "no_o_id")?;
        let key = [Param::Int(w), Param::Int(d), Param::Int(o_id)];
        if session.execute(&DELETE_NEW_ORDER, &key).await? != 1 {
            // Another Delivery took it between our read and delete.
            return Err(DbError::new(
                ErrorKind::Conflict,
                "delivery: new_order row taken concurrently",
            ));
        }
        let rows = session.query(&ORDER_CUSTOMER, &key).await?;
        let c = int(first(&rows, "delivered order")?, 0, "o_c_id")?;
        session
            .execute(
                &ORDER_CARRIER,
                &[Param::Int(input.carrier_id), key[0], key[1], key[2]],
            )
            .await?;
        session
            .execute(
                &LINES_DELIVERED,
                &[Param::Timestamp(delivered_at), key[0], key[1], key[2]],
            )
            .await?;
        let rows = session.query(&LINES_AMOUNT, &key).await?;
        let amount = float(first(&rows, "order line sum")?, 0, "sum(ol_amount)")?;
        session
            .execute(
                &CUSTOMER_DELIVERED,
                &[
                    Param::Float(amount),
                    Param::Int(w),
                    Param::Int(d),
                    Param::Int(c),
                ],
            )
            .await?;
        delivered += 1;
    }
    session.commit().await?;
    Ok((Outcome::Committed, delivered))
}
