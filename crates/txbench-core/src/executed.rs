//! What a workload timed of its own streams' transactions: each execution of
//! an analytical stream's query, from its begin to its commit, so that the
//! run can give each stream's figures and mark each query on the charts
//! over time (the driver's recorder keeps types, not terminals).

use std::time::Instant;

/// One transaction of a stream, as the workload timed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Executed {
    /// The stream (from 0).
    pub stream: u32,
    /// Its transaction type.
    pub txn_type: usize,
    /// When it began.
    pub start: Instant,
    /// When it committed.
    pub end: Instant,
    /// The rows of its answer.
    pub rows: u64,
}
