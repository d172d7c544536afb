//! The constants of TATP in one table: the mix, the expected success rates and
//! the parameter ranges the driver, the auditor and the report all read.

use txbench_core::TxnTypeInfo;

/// Index of GET_SUBSCRIBER_DATA in [`TXN_TYPES`].
pub const GET_SUBSCRIBER_DATA: usize = 0;
/// Index of GET_NEW_DESTINATION.
pub const GET_NEW_DESTINATION: usize = 1;
/// Index of GET_ACCESS_DATA.
pub const GET_ACCESS_DATA: usize = 2;
/// Index of UPDATE_SUBSCRIBER_DATA.
pub const UPDATE_SUBSCRIBER_DATA: usize = 3;
/// Index of UPDATE_LOCATION.
pub const UPDATE_LOCATION: usize = 4;
/// Index of INSERT_CALL_FORWARDING.
pub const INSERT_CALL_FORWARDING: usize = 5;
/// Index of DELETE_CALL_FORWARDING.
pub const DELETE_CALL_FORWARDING: usize = 6;

/// Subscribers in the default population.
pub const DEFAULT_SUBSCRIBERS: i64 = 100_000;
/// Terminals of the specification's reference setup.
pub const DEFAULT_TERMINALS: usize = 10;
/// Subscribers per load unit.
pub const CHUNK: i64 = 10_000;

pub use super::population::{ACTIVE_SHARE, START_TIMES};

/// TATP has no keying or think times and no response-time limits: its clients
/// submit back to back.
macro_rules! txn {
    ($name:literal, $key:literal, $mix:expr, $success:expr) => {
        TxnTypeInfo::back_to_back($name, $key, $mix, Some($success))
    };
}

/// The seven transactions with the standard mix (percent of all submitted) and
/// the success rate that follows from the population rules (see
/// [`super::expected`] for how each is derived).
pub const TXN_TYPES: [TxnTypeInfo; 7] = [
    txn!("Get-Subscriber-Data", "get_subscriber_data", 0.35, 1.0),
    txn!(
        "Get-New-Destination",
        "get_new_destination",
        0.10,
        super::expected::GET_NEW_DESTINATION
    )
    .drifting_to(super::expected::GET_NEW_DESTINATION_CHURNED),
    txn!("Get-Access-Data", "get_access_data", 0.35, 0.625),
    txn!(
        "Update-Subscriber-Data",
        "update_subscriber_data",
        0.02,
        0.625
    ),
    txn!("Update-Location", "update_location", 0.14, 1.0),
    txn!(
        "Insert-Call-Forwarding",
        "insert_call_forwarding",
        0.02,
        0.3125
    ),
    txn!(
        "Delete-Call-Forwarding",
        "delete_call_forwarding",
        0.02,
        0.3125
    ),
];

/// Cumulative mix in percent, for drawing a type from one uniform 1..=100.
pub const MIX_PERCENT: [u8; 7] = [35, 45, 80, 82, 96, 98, 100];

/// The A of the subscriber generator NURand(A, 1, N) for a population of `n`.
pub fn nurand_a(n: i64) -> i64 {
    if n <= 1_000_000 {
        65_535
    } else if n <= 10_000_000 {
        1_048_575
    } else {
        2_097_151
    }
}
