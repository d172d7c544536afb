//! The TATP schema: four tables with the specification's names, the unique index
//! on the alternative key `sub_nbr`, the same key's index as a table of its own
//! (for `--key-access index`), and txbench's metadata table for TATP.

use txbench_core::schema::{Column, ColumnType::*, ForeignKey, Index, Partitioning, Schema, Table};

/// SUBSCRIBER: one row per subscriber, `sub_nbr` its id as 15 digits.
pub static SUBSCRIBER: Table = Table {
    name: "subscriber",
    columns: &[
        Column::new("s_id", Int),
        Column::new("sub_nbr", Char(15)),
        Column::new("bit_1", Int),
        Column::new("bit_2", Int),
        Column::new("bit_3", Int),
        Column::new("bit_4", Int),
        Column::new("bit_5", Int),
        Column::new("bit_6", Int),
        Column::new("bit_7", Int),
        Column::new("bit_8", Int),
        Column::new("bit_9", Int),
        Column::new("bit_10", Int),
        Column::new("hex_1", Int),
        Column::new("hex_2", Int),
        Column::new("hex_3", Int),
        Column::new("hex_4", Int),
        Column::new("hex_5", Int),
        Column::new("hex_6", Int),
        Column::new("hex_7", Int),
        Column::new("hex_8", Int),
        Column::new("hex_9", Int),
        Column::new("hex_10", Int),
        Column::new("byte2_1", Int),
        Column::new("byte2_2", Int),
        Column::new("byte2_3", Int),
        Column::new("byte2_4", Int),
        Column::new("byte2_5", Int),
        Column::new("byte2_6", Int),
        Column::new("byte2_7", Int),
        Column::new("byte2_8", Int),
        Column::new("byte2_9", Int),
        Column::new("byte2_10", Int),
        Column::new("msc_location", BigInt),
        Column::new("vlr_location", BigInt),
    ],
    primary_key: &["s_id"],
};

/// ACCESS_INFO: 1..4 rows per subscriber, distinct `ai_type`.
pub static ACCESS_INFO: Table = Table {
    name: "access_info",
    columns: &[
        Column::new("s_id", Int),
        Column::new("ai_type", Int),
        Column::new("data1", Int),
        Column::new("data2", Int),
        Column::new("data3", Char(3)),
        Column::new("data4", Char(5)),
    ],
    primary_key: &["s_id", "ai_type"],
};

/// SPECIAL_FACILITY: 1..4 rows per subscriber, distinct `sf_type`.
pub static SPECIAL_FACILITY: Table = Table {
    name: "special_facility",
    columns: &[
        Column::new("s_id", Int),
        Column::new("sf_type", Int),
        Column::new("is_active", Int),
        Column::new("error_cntrl", Int),
        Column::new("data_a", Int),
        Column::new("data_b", Char(5)),
    ],
    primary_key: &["s_id", "sf_type"],
};

/// CALL_FORWARDING: 0..3 rows per special facility, distinct `start_time`.
pub static CALL_FORWARDING: Table = Table {
    name: "call_forwarding",
    columns: &[
        Column::new("s_id", Int),
        Column::new("sf_type", Int),
        Column::new("start_time", Int),
        Column::new("end_time", Int),
        Column::new("numberx", Char(15)),
    ],
    primary_key: &["s_id", "sf_type", "start_time"],
};

/// SUBSCRIBER_NBR: the alternative key's own index, kept apart from the
/// subscriber (`--key-access index`): one row per subscriber, its `sub_nbr`
/// and `s_id`, keyed (and, on a partitioned load, placed) by `sub_nbr`. The
/// load writes it with the subscribers; no TATP transaction changes a
/// subscriber's number or adds or removes a subscriber, so the transactions
/// have nothing to keep in it.
pub static SUBSCRIBER_NBR: Table = Table {
    name: "subscriber_nbr",
    columns: &[Column::new("sub_nbr", Char(15)), Column::new("s_id", Int)],
    primary_key: &["sub_nbr"],
};

/// What txbench records about the load.
pub static META: Table = Table {
    name: "txbench_tatp_meta",
    columns: &[
        Column::new("m_key", Varchar(64)),
        Column::new("m_value", Varchar(200)),
    ],
    primary_key: &["m_key"],
};

/// The tables, in creation order.
static TABLES: [Table; 6] = [
    SUBSCRIBER,
    ACCESS_INFO,
    SPECIAL_FACILITY,
    CALL_FORWARDING,
    SUBSCRIBER_NBR,
    META,
];

/// The whole schema, in creation order.
pub static SCHEMA: Schema = Schema {
    tables: &TABLES,
    indexes: &[Index {
        name: "subscriber_sub_nbr",
        table: "subscriber",
        columns: &["sub_nbr"],
        unique: true,
    }],
    foreign_keys: &FOREIGN_KEYS,
    key_value: false,
};

/// The schema of a load split into hash partitions by `s_id`
/// ([`partitioning`]): a unique index must hold the partition key, so the
/// index on `sub_nbr` is each partition's own, and unique only within it, as
/// on a sharded store.
pub static PARTITIONED_SCHEMA: Schema = Schema {
    tables: &TABLES,
    indexes: &[Index {
        name: "subscriber_sub_nbr",
        table: "subscriber",
        columns: &["sub_nbr"],
        unique: false,
    }],
    foreign_keys: &FOREIGN_KEYS,
    key_value: false,
};

/// How `--partitions N` splits the tables: a subscriber's rows by its `s_id`
/// (the same partition number in every table), the alternative key's index by
/// `sub_nbr`.
pub fn partitioning(count: u32) -> Partitioning {
    Partitioning {
        count,
        by: &[
            ("subscriber", "s_id"),
            ("access_info", "s_id"),
            ("special_facility", "s_id"),
            ("call_forwarding", "s_id"),
            ("subscriber_nbr", "sub_nbr"),
        ],
    }
}

/// The foreign keys (optional at load time).
static FOREIGN_KEYS: [ForeignKey; 3] = [
    ForeignKey {
        name: "access_info_subscriber",
        table: "access_info",
        columns: &["s_id"],
        references: "subscriber",
        referenced_columns: &["s_id"],
    },
    ForeignKey {
        name: "special_facility_subscriber",
        table: "special_facility",
        columns: &["s_id"],
        references: "subscriber",
        referenced_columns: &["s_id"],
    },
    ForeignKey {
        name: "call_forwarding_special_facility",
        table: "call_forwarding",
        columns: &["s_id", "sf_type"],
        references: "special_facility",
        referenced_columns: &["s_id", "sf_type"],
    },
];

/// A subscriber number as the integer it spells (they are digits; -1 if
/// not), as the acknowledged-work log states it.
pub fn number(sub_nbr: &str) -> i64 {
    sub_nbr.parse().unwrap_or(-1)
}

/// A subscriber's `sub_nbr`: its id as 15 digits, zero-padded.
pub fn sub_nbr(s_id: i64) -> String {
    format!("{s_id:015}")
}
