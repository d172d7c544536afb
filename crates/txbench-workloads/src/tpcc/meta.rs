//! What a TPC-C load records in the database (`txbench_meta`): the scale, the seed
//! and the NURand C-Load constants, so a run can choose a valid C-Run.

use txbench_core::schema::Statement;
use txbench_core::{DbError, Session};

use crate::meta_table;

use super::random::NurandConstants;
use super::schema;

static INSERT: Statement = Statement::new(
    "insert meta",
    "INSERT INTO txbench_meta (m_key, m_value) VALUES (?, ?)",
);
static SELECT: Statement = Statement::new("select meta", "SELECT m_key, m_value FROM txbench_meta");
static COUNT_WAREHOUSES: Statement =
    Statement::new("count warehouses", "SELECT count(*) FROM warehouse");

/// What is loaded in a database.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedState {
    /// Warehouses in the database.
    pub warehouses: i64,
    /// The C-Load constants, when txbench loaded the database; `None` for a database
    /// another tool loaded.
    pub constants: Option<NurandConstants>,
    /// The load's seed, when known.
    pub seed: Option<u64>,
    /// Whether txbench's load finished (false: a load was interrupted).
    pub complete: bool,
}

/// Record a finished load.
pub async fn write<S: Session>(
    session: &mut S,
    warehouses: i64,
    seed: u64,
    c: &NurandConstants,
) -> Result<(), DbError> {
    let entries = [
        ("workload", "tpcc".to_string()),
        ("warehouses", warehouses.to_string()),
        ("seed", seed.to_string()),
        ("c_last_load", c.c_last.to_string()),
        ("c_id", c.c_id.to_string()),
        ("ol_i_id", c.ol_i_id.to_string()),
        ("txbench_version", env!("CARGO_PKG_VERSION").to_string()),
        // Written last: its presence says the load completed.
        ("complete", "1".to_string()),
    ];
    meta_table::write(session, &INSERT, &entries).await
}

/// Read what is loaded; `None` when no TPC-C data is there at all.
pub async fn read<S: Session>(session: &mut S) -> Result<Option<LoadedState>, DbError> {
    let has_meta = session.table_exists(schema::META.name).await?;
    let has_warehouse = session.table_exists(schema::WAREHOUSE.name).await?;
    if !has_meta && !has_warehouse {
        return Ok(None);
    }
    if !has_meta {
        // Loaded by another tool: the scale is what the warehouse table holds.
        let rows = session.query(&COUNT_WAREHOUSES, &[]).await?;
        let warehouses = rows.row(0).and_then(|r| r[0].as_i64()).unwrap_or(0);
        return Ok(Some(LoadedState {
            warehouses,
            constants: None,
            seed: None,
            complete: warehouses > 0,
        }));
    }
    let entries = meta_table::read(session, &SELECT, schema::META.name).await?;
    let int = |key: &str| entries.int(key);
    let constants = match (int("c_last_load")?, int("c_id")?, int("ol_i_id")?) {
        (Some(c_last), Some(c_id), Some(ol_i_id)) => Some(NurandConstants {
            c_last,
            c_id,
            ol_i_id,
        }),
        _ => None,
    };
    Ok(Some(LoadedState {
        warehouses: int("warehouses")?.unwrap_or(0),
        constants,
        seed: int("seed")?.map(|s| s as u64),
        complete: entries.has("complete"),
    }))
}
