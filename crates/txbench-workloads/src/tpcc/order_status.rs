//! Order-Status (clause 2.6): a customer's last order, read only.

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, Outcome, Param, Session, TxMode};

use super::customer;
use super::input::OrderStatusInput;
use crate::fields::{first, int, rows};

static CUSTOMER: Statement = Statement::new(
    "order_status: customer",
    "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
);
static LAST_ORDER: Statement = Statement::new(
    "order_status: last order",
    "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? \
     ORDER BY o_id DESC LIMIT 1",
);
static LINES: Statement = Statement::new(
    "order_status: order lines",
    "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line \
     WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
);

/// What the terminal displays after an Order-Status (2.6.3.3), in part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderStatusOutput {
    /// The customer's id (resolved from the last name when given by name).
    pub c_id: i64,
    /// The customer's last order.
    pub o_id: i64,
    /// Its order lines shown.
    pub lines: usize,
}

/// Execute Order-Status. The customer row and the last order go out as one
/// pipeline.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &OrderStatusInput,
) -> Result<(Outcome, OrderStatusOutput), DbError> {
    let (w, d) = (input.w_id, input.d_id);
    session.begin(TxMode::ReadOnly).await?;
    let c = customer::resolve(session, w, d, &input.customer).await?;
    let key = [Param::Int(w), Param::Int(d), Param::Int(c)];
    let replies = session
        .pipeline(&[Call::query(&CUSTOMER, &key), Call::query(&LAST_ORDER, &key)])
        .await?;
    first(rows(&replies[0]), "customer")?;
    let o_id = int(
        first(rows(&replies[1]), "customer's last order")?,
        0,
        "o_id",
    )?;
    let line_key = [Param::Int(w), Param::Int(d), Param::Int(o_id)];
    let replies = session
        .pipeline_and_commit(&[Call::query(&LINES, &line_key)])
        .await?;
    let lines = rows(&replies[0]);
    Ok((
        Outcome::Committed,
        OrderStatusOutput {
            c_id: c,
            o_id,
            lines: lines.len(),
        },
    ))
}
