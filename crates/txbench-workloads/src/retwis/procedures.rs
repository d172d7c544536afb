//! The Retwis transactions on SQL engines: each get a point read, each put a
//! point update, in the transaction's order, with the same procedure on every
//! engine (a key-value store runs them as the key-value operations they
//! declare). A key that is not there is a data error: every key is loaded.

use txbench_core::schema::{KvOp, Statement};
use txbench_core::{DbError, Outcome, Param, Session, TxMode, Written};

use super::input::{Op, RetwisInput};

/// Read a key (a Redis GET under WATCH).
pub static GET: Statement =
    Statement::new("get", "SELECT v FROM retwis_kv WHERE k = ?").key_value(KvOp::Get {
        table: "retwis_kv",
        key: 0,
    });
/// Write a key (a Redis SET inside the commit's MULTI/EXEC).
pub static PUT: Statement = Statement::new("put", "UPDATE retwis_kv SET v = ? WHERE k = ?")
    .key_value(KvOp::Put {
        table: "retwis_kv",
        key: 1,
        value: 0,
    });

/// The fields a transaction that writes states in [`Written`]: the keys it put.
pub const ACK_FIELDS: &str = "keys ...";

/// Execute one transaction; `value` is what puts write. One that puts states
/// its keys in `written` before it commits.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &RetwisInput,
    value: &str,
    written: &mut Written,
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
    if !input.read_only() {
        written.committing(input.ops.iter().filter_map(|op| match *op {
            Op::Put(k) => Some(k as i64),
            Op::Get(_) => None,
        }));
    }
    session.commit().await?;
    Ok(Outcome::Committed)
}
