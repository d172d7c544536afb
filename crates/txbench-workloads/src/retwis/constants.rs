//! The constants of Retwis in one table: the mix the driver, the auditor and
//! the report read, and the defaults of a run.

use txbench_core::TxnTypeInfo;

/// Keys in the default key space (TAPIR's experiments: one million).
pub const DEFAULT_KEYS: i64 = 1_000_000;
/// Bytes per value by default.
pub const DEFAULT_VALUE_SIZE: usize = 64;
/// Terminals by default: clients submitting back to back.
pub const DEFAULT_TERMINALS: usize = 8;

/// The four transactions, indexed as [`super::input::ADD_USER`] and the rest,
/// with TAPIR's mix; clients submit back to back.
pub const TXN_TYPES: [TxnTypeInfo; 4] = [
    TxnTypeInfo::back_to_back("Add-User", "add_user", 0.05, None),
    TxnTypeInfo::back_to_back("Follow", "follow", 0.15, None),
    TxnTypeInfo::back_to_back("Post-Tweet", "post_tweet", 0.30, None),
    TxnTypeInfo::back_to_back("Get-Timeline", "get_timeline", 0.50, None),
];
