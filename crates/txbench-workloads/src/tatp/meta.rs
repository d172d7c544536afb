//! What a TATP load records in the database (`txbench_tatp_meta`): the scale and
//! the seed, and whether the load finished.

use txbench_core::schema::Statement;
use txbench_core::{DbError, Session};

use crate::meta_table;

use super::schema;

static INSERT: Statement = Statement::new(
    "insert tatp meta",
    "INSERT INTO txbench_tatp_meta (m_key, m_value) VALUES (?, ?)",
);
static SELECT: Statement = Statement::new(
    "select tatp meta",
    "SELECT m_key, m_value FROM txbench_tatp_meta",
);
static COUNT_SUBSCRIBERS: Statement =
    Statement::new("count subscribers", "SELECT count(*) FROM subscriber");

/// What is loaded in a database.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedState {
    /// Subscribers in the database.
    pub subscribers: i64,
    /// The load's seed, when txbench loaded it.
    pub seed: Option<u64>,
    /// Whether txbench's load finished (false: a load was interrupted).
    pub complete: bool,
}

/// Record a finished load.
pub async fn write<S: Session>(
    session: &mut S,
    subscribers: i64,
    seed: u64,
) -> Result<(), DbError> {
    let entries = [
        ("workload", "tatp".to_string()),
        ("subscribers", subscribers.to_string()),
        ("seed", seed.to_string()),
        ("txbench_version", env!("CARGO_PKG_VERSION").to_string()),
        // Written last: its presence says the load completed.
        ("complete", "1".to_string()),
    ];
    meta_table::write(session, &INSERT, &entries).await
}

/// Read what is loaded; `None` when no TATP data is there at all.
pub async fn read<S: Session>(session: &mut S) -> Result<Option<LoadedState>, DbError> {
    let has_meta = session.table_exists(schema::META.name).await?;
    let has_subscribers = session.table_exists(schema::SUBSCRIBER.name).await?;
    if !has_meta && !has_subscribers {
        return Ok(None);
    }
    if !has_meta {
        // Loaded by another tool: the scale is what the subscriber table holds.
        let rows = session.query(&COUNT_SUBSCRIBERS, &[]).await?;
        let subscribers = rows.row(0).and_then(|r| r[0].as_i64()).unwrap_or(0);
        return Ok(Some(LoadedState {
            subscribers,
            seed: None,
            complete: subscribers > 0,
        }));
    }
    let entries = meta_table::read(session, &SELECT, schema::META.name).await?;
    Ok(Some(LoadedState {
        subscribers: entries.int("subscribers")?.unwrap_or(0),
        seed: entries.int("seed")?.map(|s| s as u64),
        complete: entries.has("complete"),
    }))
}
