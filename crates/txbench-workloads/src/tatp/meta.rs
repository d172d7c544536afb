//! What a TATP load records in the database (`txbench_tatp_meta`): the scale and
//! the seed, and whether the load finished.

use std::collections::BTreeMap;

use txbench_core::schema::Statement;
use txbench_core::{DbError, ErrorKind, Param, Session, TxMode};

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
    session.begin(TxMode::ReadWrite).await?;
    for (k, v) in &entries {
        session
            .execute(&INSERT, &[Param::Text(k), Param::Text(v)])
            .await?;
    }
    session.commit().await
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
    let rows = session.query(&SELECT, &[]).await?;
    let map: BTreeMap<&str, &str> = rows
        .iter()
        .filter_map(|r| Some((r[0].as_str()?, r[1].as_str()?)))
        .collect();
    let int = |key: &str| -> Result<Option<i64>, DbError> {
        map.get(key)
            .map(|v| {
                v.parse::<i64>().map_err(|_| {
                    DbError::new(
                        ErrorKind::Data,
                        format!("txbench_tatp_meta: bad value '{v}' for '{key}'"),
                    )
                })
            })
            .transpose()
    };
    Ok(Some(LoadedState {
        subscribers: int("subscribers")?.unwrap_or(0),
        seed: int("seed")?.map(|s| s as u64),
        complete: map.contains_key("complete"),
    }))
}
