//! What a TPC-C load records in the database (`txbench_meta`): the scale, the seed
//! and the NURand C-Load constants, so a run can choose a valid C-Run.

use txbench_core::schema::Statement;

use super::random::NurandConstants;
use super::{ABOUT, schema};
use crate::error::WorkloadError;
use crate::meta_table::MetaTable;
use crate::opening::Found;

static INSERT: Statement = Statement::new(
    "insert meta",
    "INSERT INTO txbench_meta (m_key, m_value) VALUES (?, ?)",
);
static SELECT: Statement = Statement::new("select meta", "SELECT m_key, m_value FROM txbench_meta");
static COUNT_WAREHOUSES: Statement =
    Statement::new("count warehouses", "SELECT count(*) FROM warehouse");

/// TPC-C's record of its load; a database another tool loaded has none, and
/// its scale is what the warehouse table holds.
pub static META: MetaTable = MetaTable {
    about: &ABOUT,
    table: &schema::META,
    data: &schema::WAREHOUSE,
    insert: &INSERT,
    select: &SELECT,
    count: Some(&COUNT_WAREHOUSES),
    count_varies: false,
};

/// The C-Load constants as the load records them.
pub fn entries(c: &NurandConstants) -> Vec<(&'static str, String)> {
    vec![
        ("c_last_load", c.c_last.to_string()),
        ("c_id", c.c_id.to_string()),
        ("ol_i_id", c.ol_i_id.to_string()),
    ]
}

/// The C-Load constants the load recorded (or the server said); `None` for a
/// database another tool loaded.
pub fn load_constants(found: &Found) -> Result<Option<NurandConstants>, WorkloadError> {
    Ok(
        match (
            found.int("c_last_load")?,
            found.int("c_id")?,
            found.int("ol_i_id")?,
        ) {
            (Some(c_last), Some(c_id), Some(ol_i_id)) => Some(NurandConstants {
                c_last,
                c_id,
                ol_i_id,
            }),
            _ => None,
        },
    )
}
