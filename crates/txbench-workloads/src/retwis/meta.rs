//! What a Retwis load records in the database (`txbench_retwis_meta`): the key
//! space, the value size and the seed, and whether the load finished. The
//! statements are key-value operations too, so Redis keeps the same record.

use txbench_core::schema::{KvOp, Statement};

use super::{ABOUT, schema};
use crate::meta_table::MetaTable;

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

/// Retwis's record of its load. Keys without it are a load interrupted
/// before its record (no other tool loads this key space).
pub static META: MetaTable = MetaTable {
    about: &ABOUT,
    table: &schema::META,
    data: &schema::KV,
    insert: &INSERT,
    select: &SELECT,
    count: None,
    count_varies: false,
};
