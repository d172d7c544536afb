//! The Retwis key-value table on SQL engines: one row per key.

use txbench_core::schema::{Column, ColumnType::*, Index, Schema, Table};

/// The longest value a key may hold.
pub const MAX_VALUE: usize = 1_024;

/// RETWIS_KV: key and value.
pub static KV: Table = Table {
    name: "retwis_kv",
    columns: &[Column::new("k", BigInt), Column::new("v", Varchar(1_024))],
    primary_key: &["k"],
};

/// What txbench records about the load.
pub static META: Table = Table {
    name: "txbench_retwis_meta",
    columns: &[
        Column::new("m_key", Varchar(64)),
        Column::new("m_value", Varchar(200)),
    ],
    primary_key: &["m_key"],
};

/// The whole schema, in creation order.
pub static SCHEMA: Schema = Schema {
    tables: &[KV, META],
    indexes: &[] as &[Index],
    foreign_keys: &[],
    key_value: true,
};
