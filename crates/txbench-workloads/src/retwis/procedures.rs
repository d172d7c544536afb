//! The Retwis transactions on SQL engines: each get a point read, each put a
//! point update, in the transaction's order, with the same procedure on every
//! engine. A key that is not there is a data error: every key is loaded.

use txbench_core::schema::Statement;
use txbench_core::{DbError, Outcome, Param, Session, TxMode};

use super::input::{Op, RetwisInput};

static GET: Statement = Statement::new("retwis get", "SELECT v FROM retwis_kv WHERE k = ?");
static PUT: Statement = Statement::new("retwis put", "UPDATE retwis_kv SET v = ? WHERE k = ?");

/// Execute one transaction; `value` is what puts write.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &RetwisInput,
    value: &str,
) -> Result<Outcome, DbError> {
    let mode = if input.read_only() {
        TxMode::ReadOnly
    } else {
        TxMode::ReadWrite
    };
    session.begin(mode).await?;
    for op in &input.ops {
        match *op {
            Op::Get(k) => {
                if session
                    .query(&GET, &[Param::Int(k as i64)])
                    .await?
                    .is_empty()
                {
                    return Err(DbError::missing(format!("key {k}")));
                }
            }
            Op::Put(k) => {
                let params = [Param::Text(value), Param::Int(k as i64)];
                if session.execute(&PUT, &params).await? != 1 {
                    return Err(DbError::missing(format!("key {k}")));
                }
            }
        }
    }
    session.commit().await?;
    Ok(Outcome::Committed)
}
