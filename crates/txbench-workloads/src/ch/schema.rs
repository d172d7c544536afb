//! The three tables the CH-benCHmark adds to TPC-C's nine (Cole et al., DBTest
//! 2011, as BenchBase names their columns): REGION, NATION and SUPPLIER, and
//! the metadata table that records their load apart from TPC-C's, so that they
//! can be loaded onto a TPC-C database and cleaned off it again.

use txbench_core::schema::{Column, ColumnType::*, Schema, Table};

/// REGION: the five regions of the world.
pub static REGION: Table = Table {
    name: "region",
    columns: &[
        Column::new("r_regionkey", Int),
        Column::new("r_name", Varchar(55)),
        Column::new("r_comment", Varchar(152)),
    ],
    primary_key: &["r_regionkey"],
};

/// NATION: 62 nations, keyed by the character codes of `0-9A-Za-z`, the
/// characters TPC-C's `c_state` starts with, so a customer's nation is
/// `ascii(substr(c_state, 1, 1))`.
pub static NATION: Table = Table {
    name: "nation",
    columns: &[
        Column::new("n_nationkey", Int),
        Column::new("n_name", Varchar(25)),
        Column::new("n_regionkey", Int),
        Column::new("n_comment", Varchar(152)),
    ],
    primary_key: &["n_nationkey"],
};

/// SUPPLIER: 10,000 suppliers; stock row (w, i) is supplied by supplier
/// `(w * i) mod 10000`.
pub static SUPPLIER: Table = Table {
    name: "supplier",
    columns: &[
        Column::new("su_suppkey", Int),
        Column::new("su_name", Char(25)),
        Column::new("su_address", Varchar(40)),
        Column::new("su_nationkey", Int),
        Column::new("su_phone", Char(15)),
        Column::new("su_acctbal", Decimal(12, 2)),
        Column::new("su_comment", Varchar(101)),
    ],
    primary_key: &["su_suppkey"],
};

/// The record of the CH-benCHmark's own tables' load (TPC-C's stays in
/// `txbench_meta`).
pub static META: Table = Table {
    name: "txbench_ch_meta",
    columns: &[
        Column::new("m_key", Varchar(64)),
        Column::new("m_value", Varchar(200)),
    ],
    primary_key: &["m_key"],
};

/// The CH-benCHmark's own tables, in creation order: what `txbench ch load`
/// adds to a TPC-C database and `txbench ch clean` drops.
pub static SCHEMA: Schema = Schema {
    tables: &[REGION, NATION, SUPPLIER, META],
    indexes: &[],
    foreign_keys: &[],
    key_value: false,
};
