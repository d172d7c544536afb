//! The population rules the generator follows and the expected success
//! rates are derived from (TATP 1.0, section 2).

/// Probability that a special facility is active.
pub const ACTIVE_SHARE: f64 = 0.85;
/// The call-forwarding start times.
pub const START_TIMES: [i64; 3] = [0, 8, 16];
