//! Stock-Level (clause 2.8): recently sold items whose stock is below a threshold.

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, Outcome, Param, Session, TxMode};

use super::input::StockLevelInput;
use crate::fields::{first, int, rows};

static NEXT_ORDER: Statement = Statement::new(
    "stock_level: district",
    "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
);
static LOW_STOCK: Statement = Statement::new(
    "stock_level: count",
    "SELECT count(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ? AND s_i_id = ol_i_id \
     WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_quantity < ?",
);

/// Execute Stock-Level over the district's last 20 orders; returns the count of
/// distinct items below the threshold.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &StockLevelInput,
) -> Result<(Outcome, i64), DbError> {
    let (w, d) = (input.w_id, input.d_id);
    session.begin(TxMode::ReadOnly).await?;
    let district = session
        .query(&NEXT_ORDER, &[Param::Int(w), Param::Int(d)])
        .await?;
    let next = int(first(&district, "district")?, 0, "d_next_o_id")?;
    let low_key = [
        Param::Int(w),
        Param::Int(w),
        Param::Int(d),
        Param::Int(next),
        Param::Int(next - 20),
        Param::Int(input.threshold),
    ];
    let replies = session
        .pipeline_and_commit(&[Call::query(&LOW_STOCK, &low_key)])
        .await?;
    let low = int(first(rows(&replies[0]), "low stock count")?, 0, "count")?;
    Ok((Outcome::Committed, low))
}
