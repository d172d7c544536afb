//! The TPC-C schema (clause 1.3) with the standard table and column names, and
//! txbench's own metadata table.

use txbench_core::schema::{Column, ColumnType::*, ForeignKey, Index, Schema, Table};

macro_rules! col {
    ($name:literal, $ty:expr) => {
        Column::new($name, $ty)
    };
    ($name:literal, $ty:expr, null) => {
        Column::nullable($name, $ty)
    };
}

/// WAREHOUSE.
pub static WAREHOUSE: Table = Table {
    name: "warehouse",
    columns: &[
        col!("w_id", Int),
        col!("w_name", Varchar(10)),
        col!("w_street_1", Varchar(20)),
        col!("w_street_2", Varchar(20)),
        col!("w_city", Varchar(20)),
        col!("w_state", Char(2)),
        col!("w_zip", Char(9)),
        col!("w_tax", Decimal(4, 4)),
        col!("w_ytd", Decimal(12, 2)),
    ],
    primary_key: &["w_id"],
};

/// DISTRICT.
pub static DISTRICT: Table = Table {
    name: "district",
    columns: &[
        col!("d_id", Int),
        col!("d_w_id", Int),
        col!("d_name", Varchar(10)),
        col!("d_street_1", Varchar(20)),
        col!("d_street_2", Varchar(20)),
        col!("d_city", Varchar(20)),
        col!("d_state", Char(2)),
        col!("d_zip", Char(9)),
        col!("d_tax", Decimal(4, 4)),
        col!("d_ytd", Decimal(12, 2)),
        col!("d_next_o_id", Int),
    ],
    primary_key: &["d_w_id", "d_id"],
};

/// CUSTOMER.
pub static CUSTOMER: Table = Table {
    name: "customer",
    columns: &[
        col!("c_id", Int),
        col!("c_d_id", Int),
        col!("c_w_id", Int),
        col!("c_first", Varchar(16)),
        col!("c_middle", Char(2)),
        col!("c_last", Varchar(16)),
        col!("c_street_1", Varchar(20)),
        col!("c_street_2", Varchar(20)),
        col!("c_city", Varchar(20)),
        col!("c_state", Char(2)),
        col!("c_zip", Char(9)),
        col!("c_phone", Char(16)),
        col!("c_since", Timestamp),
        col!("c_credit", Char(2)),
        col!("c_credit_lim", Decimal(12, 2)),
        col!("c_discount", Decimal(4, 4)),
        col!("c_balance", Decimal(12, 2)),
        col!("c_ytd_payment", Decimal(12, 2)),
        col!("c_payment_cnt", Int),
        col!("c_delivery_cnt", Int),
        col!("c_data", Varchar(500)),
    ],
    primary_key: &["c_w_id", "c_d_id", "c_id"],
};

/// HISTORY (no primary key in the specification).
pub static HISTORY: Table = Table {
    name: "history",
    columns: &[
        col!("h_c_id", Int),
        col!("h_c_d_id", Int),
        col!("h_c_w_id", Int),
        col!("h_d_id", Int),
        col!("h_w_id", Int),
        col!("h_date", Timestamp),
        col!("h_amount", Decimal(6, 2)),
        col!("h_data", Varchar(24)),
    ],
    primary_key: &[],
};

/// NEW-ORDER.
pub static NEW_ORDER: Table = Table {
    name: "new_order",
    columns: &[
        col!("no_o_id", Int),
        col!("no_d_id", Int),
        col!("no_w_id", Int),
    ],
    primary_key: &["no_w_id", "no_d_id", "no_o_id"],
};

/// ORDER (named `orders`, as every implementation does: ORDER is reserved).
pub static ORDERS: Table = Table {
    name: "orders",
    columns: &[
        col!("o_id", Int),
        col!("o_d_id", Int),
        col!("o_w_id", Int),
        col!("o_c_id", Int),
        col!("o_entry_d", Timestamp),
        col!("o_carrier_id", Int, null),
        col!("o_ol_cnt", Int),
        col!("o_all_local", Int),
    ],
    primary_key: &["o_w_id", "o_d_id", "o_id"],
};

/// ORDER-LINE.
pub static ORDER_LINE: Table = Table {
    name: "order_line",
    columns: &[
        col!("ol_o_id", Int),
        col!("ol_d_id", Int),
        col!("ol_w_id", Int),
        col!("ol_number", Int),
        col!("ol_i_id", Int),
        col!("ol_supply_w_id", Int),
        col!("ol_delivery_d", Timestamp, null),
        col!("ol_quantity", Int),
        col!("ol_amount", Decimal(6, 2)),
        col!("ol_dist_info", Char(24)),
    ],
    primary_key: &["ol_w_id", "ol_d_id", "ol_o_id", "ol_number"],
};

/// ITEM.
pub static ITEM: Table = Table {
    name: "item",
    columns: &[
        col!("i_id", Int),
        col!("i_im_id", Int),
        col!("i_name", Varchar(24)),
        col!("i_price", Decimal(5, 2)),
        col!("i_data", Varchar(50)),
    ],
    primary_key: &["i_id"],
};

/// STOCK.
pub static STOCK: Table = Table {
    name: "stock",
    columns: &[
        col!("s_i_id", Int),
        col!("s_w_id", Int),
        col!("s_quantity", Int),
        col!("s_dist_01", Char(24)),
        col!("s_dist_02", Char(24)),
        col!("s_dist_03", Char(24)),
        col!("s_dist_04", Char(24)),
        col!("s_dist_05", Char(24)),
        col!("s_dist_06", Char(24)),
        col!("s_dist_07", Char(24)),
        col!("s_dist_08", Char(24)),
        col!("s_dist_09", Char(24)),
        col!("s_dist_10", Char(24)),
        col!("s_ytd", Int),
        col!("s_order_cnt", Int),
        col!("s_remote_cnt", Int),
        col!("s_data", Varchar(50)),
    ],
    primary_key: &["s_w_id", "s_i_id"],
};

/// txbench's record of what was loaded: scale, seed and the NURand C-Load constants.
pub static META: Table = Table {
    name: "txbench_meta",
    columns: &[col!("m_key", Varchar(64)), col!("m_value", Varchar(200))],
    primary_key: &["m_key"],
};

/// The whole schema, in creation order.
pub static SCHEMA: Schema = Schema {
    tables: &[
        WAREHOUSE, DISTRICT, CUSTOMER, HISTORY, NEW_ORDER, ORDERS, ORDER_LINE, ITEM, STOCK, META,
    ],
    indexes: &[
        Index {
            name: "customer_name",
            table: "customer",
            columns: &["c_w_id", "c_d_id", "c_last", "c_first"],
            unique: false,
        },
        Index {
            name: "orders_customer",
            table: "orders",
            columns: &["o_w_id", "o_d_id", "o_c_id", "o_id"],
            unique: false,
        },
    ],
    foreign_keys: &FOREIGN_KEYS,
    key_value: false,
};

macro_rules! fk {
    ($name:literal, $table:literal, [$($c:literal),*], $ref:literal, [$($r:literal),*]) => {
        ForeignKey { name: $name, table: $table, columns: &[$($c),*], references: $ref, referenced_columns: &[$($r),*] }
    };
}

/// The referential integrity of clause 1.3 (added only with `--foreign-keys`).
static FOREIGN_KEYS: [ForeignKey; 10] = [
    fk!(
        "fk_district_warehouse",
        "district",
        ["d_w_id"],
        "warehouse",
        ["w_id"]
    ),
    fk!(
        "fk_customer_district",
        "customer",
        ["c_w_id", "c_d_id"],
        "district",
        ["d_w_id", "d_id"]
    ),
    fk!(
        "fk_history_customer",
        "history",
        ["h_c_w_id", "h_c_d_id", "h_c_id"],
        "customer",
        ["c_w_id", "c_d_id", "c_id"]
    ),
    fk!(
        "fk_history_district",
        "history",
        ["h_w_id", "h_d_id"],
        "district",
        ["d_w_id", "d_id"]
    ),
    fk!(
        "fk_new_order_orders",
        "new_order",
        ["no_w_id", "no_d_id", "no_o_id"],
        "orders",
        ["o_w_id", "o_d_id", "o_id"]
    ),
    fk!(
        "fk_orders_customer",
        "orders",
        ["o_w_id", "o_d_id", "o_c_id"],
        "customer",
        ["c_w_id", "c_d_id", "c_id"]
    ),
    fk!(
        "fk_order_line_orders",
        "order_line",
        ["ol_w_id", "ol_d_id", "ol_o_id"],
        "orders",
        ["o_w_id", "o_d_id", "o_id"]
    ),
    fk!(
        "fk_order_line_stock",
        "order_line",
        ["ol_supply_w_id", "ol_i_id"],
        "stock",
        ["s_w_id", "s_i_id"]
    ),
    fk!(
        "fk_stock_warehouse",
        "stock",
        ["s_w_id"],
        "warehouse",
        ["w_id"]
    ),
    fk!("fk_stock_item", "stock", ["s_i_id"], "item", ["i_id"]),
];
