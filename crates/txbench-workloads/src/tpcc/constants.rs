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

/// The five transactions: mix (clause 5.2.3, as [`DECK`] realises it),
/// keying and mean think times (clause 5.2.5.7) and 90th percentile limits (5.2.5.4).
pub const TXN_TYPES: [TxnTypeInfo; 5] = [
    TxnTypeInfo {
        name: "New-Order",
        key: "new_order",
        mix: 896.0 / 2000.0,
        min_share: None,
        keying: secs(18),
        mean_think: secs(12),
        p90_limit: secs(5),
        expected_success: Some(0.99),
        success_drifts_to: None,
    },
    TxnTypeInfo {
        name: "Payment",
        key: "payment",
        mix: 861.0 / 2000.0,
        min_share: Some(0.43),
        keying: secs(3),
        mean_think: secs(12),
        p90_limit: secs(5),
        expected_success: None,
        success_drifts_to: None,
    },
    TxnTypeInfo {
        name: "Order-Status",
        key: "order_status",
        mix: 81.0 / 2000.0,
        min_share: Some(0.04),
        keying: secs(2),
        mean_think: secs(10),
        p90_limit: secs(5),
        expected_success: None,
        success_drifts_to: None,
    },
    TxnTypeInfo {
        name: "Delivery",
        key: "delivery",
        mix: 81.0 / 2000.0,
        min_share: Some(0.04),
        keying: secs(2),
        mean_think: secs(5),
        p90_limit: secs(5),
        expected_success: None,
        success_drifts_to: None,
    },
    TxnTypeInfo {
        name: "Stock-Level",
        key: "stock_level",
        mix: 81.0 / 2000.0,
        min_share: Some(0.04),
        keying: secs(2),
        mean_think: secs(5),
        p90_limit: secs(20),
        expected_success: None,
        success_drifts_to: None,
    },
];

/// The deck of cards of clause 5.2.4.2, as the number of cards of each type
/// (indexed like [`TXN_TYPES`]). Each terminal deals its deck without
/// replacement and reshuffles when it is used up, so over every 2,000 of a
/// terminal's transactions the mix is exact.
///
/// Why not the 23-card deck (10, 10, 1, 1, 1) of the clause's example: it makes
/// New-Order 43.5% of the mix, which caps throughput at 12.61 tpmC per warehouse
/// (98.0% of the 12.86 the clause 4.2 maximum assumes), so no run could reach an
/// efficiency above 98%. This deck keeps each type 0.05 points above its clause
/// 5.2.3 minimum (Payment 43.05%, the others 4.05%; the margin keeps a measured
/// window's share above the minimum despite partial decks) and gives New-Order
/// the rest, 44.8%: at most 12.83 tpmC per warehouse, 99.8% of 12.86.
pub const DECK: [u16; 5] = [896, 861, 81, 81, 81];

/// Cards in [`DECK`].
pub const DECK_SIZE: u16 = DECK[0] + DECK[1] + DECK[2] + DECK[3] + DECK[4];

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
