//! What a TATP load records in the database (`txbench_tatp_meta`): the scale and
//! the seed, and whether the load finished.

use txbench_core::schema::{KvOp, Statement};

use super::{ABOUT, schema};
use crate::meta_table::MetaTable;

// Key-value operations too, so that a sharded key-value store keeps the
// same record.
static INSERT: Statement = Statement::new(
    "insert tatp meta",
    "INSERT INTO txbench_tatp_meta (m_key, m_value) VALUES (?, ?)",
)
.key_value(KvOp::Put {
    table: "txbench_tatp_meta",
    key: 0,
    value: 1,
});
static SELECT: Statement = Statement::new(
    "select tatp meta",
    "SELECT m_key, m_value FROM txbench_tatp_meta",
)
.key_value(KvOp::Scan {
    table: "txbench_tatp_meta",
});
static COUNT_SUBSCRIBERS: Statement =
    Statement::new("count subscribers", "SELECT count(*) FROM subscriber");

/// The entry of a load in hash partitions: their count.
pub const PARTITIONS: &str = "partitions";
/// The entry of a load that wrote the alternative key's own index
/// (`subscriber_nbr`); a database loaded before it existed has none.
pub const KEY_INDEX: &str = "key_index";

/// TATP's record of its load; a database another tool loaded has none, and
/// its scale is what the subscriber table holds.
pub static META: MetaTable = MetaTable {
    about: &ABOUT,
    table: &schema::META,
    data: &schema::SUBSCRIBER,
    insert: &INSERT,
    select: &SELECT,
    count: Some(&COUNT_SUBSCRIBERS),
};
