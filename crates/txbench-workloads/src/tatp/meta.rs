//! What a TATP load records in the database (`txbench_tatp_meta`): the scale and
//! the seed, and whether the load finished.

use txbench_core::schema::{KvOp, Statement};
use txbench_core::{DbError, ErrorKind};

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
    count_varies: false,
};

/// The hash partitions of the load whose entry [`PARTITIONS`] is
/// `recorded` (none: whole tables); on a sharded key-value store
/// (`sharded`) at least one, as its every load records; any other count is
/// a data error.
pub fn partitions(recorded: Option<i64>, sharded: bool) -> Result<u32, DbError> {
    let recorded = recorded.unwrap_or(0);
    match u32::try_from(recorded) {
        Ok(0) if sharded => Err(DbError::new(
            ErrorKind::Data,
            "txbench_tatp_meta: a sharded key-value store's load records its partitions, and \
             this one has none",
        )),
        Ok(n) => Ok(n),
        Err(_) => Err(DbError::new(
            ErrorKind::Data,
            format!("txbench_tatp_meta: bad partition count {recorded}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_records_its_partitions_and_a_sharded_store_needs_them() {
        assert_eq!(partitions(None, false).unwrap(), 0);
        assert_eq!(partitions(Some(6), true).unwrap(), 6);
        let none = partitions(None, true).unwrap_err();
        assert!(none.message.contains("records its partitions"), "{none}");
        let bad = partitions(Some(-1), false).unwrap_err();
        assert_eq!(bad.kind, ErrorKind::Data);
        assert!(bad.message.contains("bad partition count -1"), "{bad}");
    }
}
