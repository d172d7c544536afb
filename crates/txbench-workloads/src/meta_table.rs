//! The key-value table in which a workload's load records its scale, seed and
//! constants (`txbench_meta` for TPC-C, `txbench_tatp_meta` for TATP).

use std::collections::BTreeMap;

use txbench_core::schema::Statement;
use txbench_core::{DbError, ErrorKind, Param, Session, TxMode};

/// Write `entries` in one transaction through `insert` (`INSERT ... VALUES (?, ?)`).
/// Callers put `("complete", "1")` last: its presence says the load finished.
pub async fn write<S: Session>(
    session: &mut S,
    insert: &'static Statement,
    entries: &[(&str, String)],
) -> Result<(), DbError> {
    session.begin(TxMode::ReadWrite).await?;
    for (k, v) in entries {
        session
            .execute(insert, &[Param::Text(k), Param::Text(v)])
            .await?;
    }
    session.commit().await
}

/// The entries of a metadata table.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    table: &'static str,
    map: BTreeMap<String, String>,
}

impl Entries {
    /// An integer entry; a value that is not one is a data error naming it.
    pub fn int(&self, key: &str) -> Result<Option<i64>, DbError> {
        self.map
            .get(key)
            .map(|v| {
                v.parse::<i64>().map_err(|_| {
                    DbError::new(
                        ErrorKind::Data,
                        format!("{}: bad value '{v}' for '{key}'", self.table),
                    )
                })
            })
            .transpose()
    }

    /// Whether an entry is there.
    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }
}

/// Read every entry through `select` (`SELECT m_key, m_value FROM <table>`).
pub async fn read<S: Session>(
    session: &mut S,
    select: &'static Statement,
    table: &'static str,
) -> Result<Entries, DbError> {
    let rows = session.query(select, &[]).await?;
    let map = rows
        .iter()
        .filter_map(|r| Some((r[0].as_str()?.to_string(), r[1].as_str()?.to_string())))
        .collect();
    Ok(Entries { table, map })
}
