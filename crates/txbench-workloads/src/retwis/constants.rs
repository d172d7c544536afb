//! The constants of Retwis in one table: the mix the driver, the auditor and
//! the report read, and the defaults of a run.

use std::time::Duration;

use txbench_core::TxnTypeInfo;

/// Keys in the default key space (TAPIR's experiments: one million).
pub const DEFAULT_KEYS: i64 = 1_000_000;
/// Bytes per value by default.
pub const DEFAULT_VALUE_SIZE: usize = 64;
/// Terminals by default: clients submitting back to back.
pub const DEFAULT_TERMINALS: usize = 8;

/// Retwis has no keying or think times and no response-time limits (the limit
/// is left at a day so no check trips on it).
const NONE: Duration = Duration::ZERO;
const NO_LIMIT: Duration = Duration::from_secs(86_400);

macro_rules! txn {
    ($name:literal, $key:literal, $mix:expr) => {
        TxnTypeInfo {
            name: $name,
            key: $key,
            mix: $mix,
            keying: NONE,
            mean_think: NONE,
            p90_limit: NO_LIMIT,
            expected_success: None,
        }
    };
}

/// The four transactions, indexed as [`super::input::ADD_USER`] and the rest,
/// with TAPIR's mix.
pub const TXN_TYPES: [TxnTypeInfo; 4] = [
    txn!("Add-User", "add_user", 0.05),
    txn!("Follow", "follow", 0.15),
    txn!("Post-Tweet", "post_tweet", 0.30),
    txn!("Get-Timeline", "get_timeline", 0.50),
];
