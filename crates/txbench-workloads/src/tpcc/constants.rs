//! The constants of TPC-C v5.11 in one table: the driver, the auditor and the report
//! all read these.

use std::time::Duration;

use txbench_core::TxnTypeInfo;

/// Index of New-Order in [`TXN_TYPES`].
pub const NEW_ORDER: usize = 0;
/// Index of Payment in [`TXN_TYPES`].
pub const PAYMENT: usize = 1;
/// Index of Order-Status in [`TXN_TYPES`].
pub const ORDER_STATUS: usize = 2;
/// Index of Delivery in [`TXN_TYPES`].
pub const DELIVERY: usize = 3;
/// Index of Stock-Level in [`TXN_TYPES`].
pub const STOCK_LEVEL: usize = 4;

const fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// The five transactions: mix (clause 5.2.3, as the 23-card deck realises it),
/// keying and mean think times (clause 5.2.5.7) and 90th percentile limits (5.2.5.4).
pub const TXN_TYPES: [TxnTypeInfo; 5] = [
    TxnTypeInfo {
        name: "New-Order",
        key: "new_order",
        mix: 10.0 / 23.0,
        keying: secs(18),
        mean_think: secs(12),
        p90_limit: secs(5),
        expected_success: Some(0.99),
    },
    TxnTypeInfo {
        name: "Payment",
        key: "payment",
        mix: 10.0 / 23.0,
        keying: secs(3),
        mean_think: secs(12),
        p90_limit: secs(5),
        expected_success: None,
    },
    TxnTypeInfo {
        name: "Order-Status",
        key: "order_status",
        mix: 1.0 / 23.0,
        keying: secs(2),
        mean_think: secs(10),
        p90_limit: secs(5),
        expected_success: None,
    },
    TxnTypeInfo {
        name: "Delivery",
        key: "delivery",
        mix: 1.0 / 23.0,
        keying: secs(2),
        mean_think: secs(5),
        p90_limit: secs(5),
        expected_success: None,
    },
    TxnTypeInfo {
        name: "Stock-Level",
        key: "stock_level",
        mix: 1.0 / 23.0,
        keying: secs(2),
        mean_think: secs(5),
        p90_limit: secs(20),
        expected_success: None,
    },
];

/// The deck of cards of clause 5.2.4.2: 10 New-Order, 10 Payment and one each of
/// the others; shuffled per pass, it keeps the mix exact over every 23 transactions.
pub const DECK: [usize; 23] = [
    NEW_ORDER,
    NEW_ORDER,
    NEW_ORDER,
    NEW_ORDER,
    NEW_ORDER,
    NEW_ORDER,
    NEW_ORDER,
    NEW_ORDER,
    NEW_ORDER,
    NEW_ORDER,
    PAYMENT,
    PAYMENT,
    PAYMENT,
    PAYMENT,
    PAYMENT,
    PAYMENT,
    PAYMENT,
    PAYMENT,
    PAYMENT,
    PAYMENT,
    ORDER_STATUS,
    DELIVERY,
    STOCK_LEVEL,
];

/// Think times are truncated at this multiple of their mean (clause 5.2.5.4).
pub const THINK_TRUNCATION: f64 = 10.0;

/// The highest tpmC per warehouse that the keying and think times allow.
pub const MAX_TPMC_PER_WAREHOUSE: f64 = 12.86;

/// Items in the catalogue (clause 4.3.3.1).
pub const ITEMS: i64 = 100_000;
/// Districts per warehouse.
pub const DISTRICTS: i64 = 10;
/// Customers per district.
pub const CUSTOMERS: i64 = 3_000;
/// Orders per district at load.
pub const ORDERS: i64 = 3_000;
/// The first undelivered order at load: orders 2101..3000 have new_order rows.
pub const FIRST_NEW_ORDER: i64 = 2_101;
/// Stock rows per warehouse.
pub const STOCK: i64 = ITEMS;
/// Terminals per warehouse (one per district).
pub const TERMINALS_PER_WAREHOUSE: usize = 10;

/// The syllables of customer last names (clause 4.3.2.3).
pub const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];
