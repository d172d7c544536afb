//! Finding a customer by id or by last name (clauses 2.5.2.2 and 2.6.2.2).

use txbench_core::schema::Statement;
use txbench_core::{DbError, Param, Rows, Session};

use super::input::CustomerKey;
use crate::fields::int;

/// The customers of a district with a last name, sorted by first name.
pub static BY_LAST_NAME: Statement = Statement::new(
    "customer by last name",
    "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
);

/// The C_ID of the customer a key names. By last name, the customer at position
/// ceil(n / 2) of those with the name, sorted by C_FIRST.
pub async fn resolve<S: Session>(
    session: &mut S,
    w: i64,
    d: i64,
    key: &CustomerKey,
) -> Result<i64, DbError> {
    match key {
        CustomerKey::Id(id) => Ok(*id),
        CustomerKey::LastName(name) => {
            let rows = session
                .query(
                    &BY_LAST_NAME,
                    &[Param::Int(w), Param::Int(d), Param::Text(name)],
                )
                .await?;
            middle(&rows, name)
        }
    }
}

/// The C_ID at position ceil(n / 2) of the rows of [`BY_LAST_NAME`].
pub fn middle(rows: &Rows, name: &str) -> Result<i64, DbError> {
    let n = rows.len();
    if n == 0 {
        return Err(DbError::missing(format!("customer named {name}")));
    }
    // Position ceil(n/2), 1-based, is index (n - 1) / 2.
    let row = rows.row((n - 1) / 2).expect("index below n");
    int(row, 0, "c_id")
}
