//! What a Retwis load records in the database (`txbench_retwis_meta`): the key
//! space, the value size and the seed, and whether the load finished. The
//! statements are key-value operations too, so Redis keeps the same record.

use txbench_core::schema::{KvOp, Statement};
use txbench_core::{DbError, Session};

use crate::meta_table;

use super::schema;

static INSERT: Statement = Statement::new(
    "insert retwis meta",
    "INSERT INTO txbench_retwis_meta (m_key, m_value) VALUES (?, ?)",
)
.key_value(KvOp::Put {
    table: "txbench_retwis_meta",
    key: 0,
    value: 1,
});
static SELECT: Statement = Statement::new(
    "select retwis meta",
    "SELECT m_key, m_value FROM txbench_retwis_meta",
)
.key_value(KvOp::Scan {
    table: "txbench_retwis_meta",
});

/// What is loaded in a database.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedState {
    /// Keys in the key space.
    pub keys: i64,
    /// Bytes per value.
    pub value_size: usize,
    /// Whether the load finished (false: a load was interrupted).
    pub complete: bool,
}

/// Record a finished load.
pub async fn write<S: Session>(
    session: &mut S,
    keys: i64,
    value_size: usize,
    seed: u64,
) -> Result<(), DbError> {
    let entries = [
        ("workload", "retwis".to_string()),
        ("keys", keys.to_string()),
        ("value_size", value_size.to_string()),
        ("seed", seed.to_string()),
        ("txbench_version", env!("CARGO_PKG_VERSION").to_string()),
        // Written last: its presence says the load completed.
        ("complete", "1".to_string()),
    ];
    meta_table::write(session, &INSERT, &entries).await
}

/// Read what is loaded; `None` when no Retwis data is there at all. Keys
/// without the record are an interrupted load.
pub async fn read<S: Session>(session: &mut S) -> Result<Option<LoadedState>, DbError> {
    let has_meta = session.table_exists(schema::META.name).await?;
    let has_keys = session.table_exists(schema::KV.name).await?;
    if !has_meta && !has_keys {
        return Ok(None);
    }
    if !has_meta {
        return Ok(Some(LoadedState {
            keys: 0,
            value_size: 0,
            complete: false,
        }));
    }
    let entries = meta_table::read(session, &SELECT, schema::META.name).await?;
    Ok(Some(LoadedState {
        keys: entries.int("keys")?.unwrap_or(0),
        value_size: entries.int("value_size")?.unwrap_or(0).max(0) as usize,
        complete: entries.has("complete"),
    }))
}
