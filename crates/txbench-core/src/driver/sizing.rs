//! How many sessions a closed loop of terminals with keying and think times
//! needs (Little's law), so that the pool neither throttles the terminals nor
//! opens a session per terminal.
//!
//! With spec waits a terminal spends nearly all its cycle keying and thinking,
//! so 100,000 terminals offer only about 4,800 transactions a second. By
//! Little's law the sessions busy on average are that rate times the time a
//! transaction holds a session; the pool adds a square-root safety margin
//! (the "square-root staffing" rule of M/M/c queues), under which a
//! transaction rarely waits for a session, and any wait it does have is in its
//! response time, which counts from the terminal's scheduled send.

use std::time::Duration;

use crate::workload::TxnTypeInfo;

/// The session hold time the default pool is sized for. Transactions slower
/// than this on average make the pool, not the database, add to response
/// times: the run's queueing-time column shows it, and `--connections` sets
/// the pool outright.
pub const ASSUMED_HOLD: Duration = Duration::from_millis(100);

/// Transactions a second that `terminals` terminals offer when each cycle is
/// keying + transaction + think, the transaction itself taken as instant:
/// terminals / (mean keying + mean think, over the mix). `None` when the types
/// have no waits (back-to-back terminals are always busy).
pub fn offered_rate(types: &[TxnTypeInfo], terminals: usize) -> Option<f64> {
    let cycle = TxnTypeInfo::mix_mean(types, |t| t.keying + t.mean_think);
    (cycle > 0.0).then(|| terminals as f64 / cycle)
}

/// Sessions to serve `rate` transactions a second that hold a session for
/// `hold` each: the mean busy sessions `a = rate x hold` (Little's law) plus
/// `3 sqrt(a)`, at least one.
pub fn sessions_for(rate: f64, hold: Duration) -> usize {
    let busy = rate * hold.as_secs_f64();
    ((busy + 3.0 * busy.sqrt()).ceil() as usize).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_like() -> [TxnTypeInfo; 2] {
        let t = |mix, keying, think| TxnTypeInfo {
            name: "t",
            key: "t",
            mix,
            min_share: None,
            keying: Duration::from_secs(keying),
            mean_think: Duration::from_secs(think),
            p90_limit: Duration::from_secs(5),
            expected_success: None,
            success_drifts_to: None,
        };
        [t(0.5, 18, 12), t(0.5, 3, 12)]
    }

    #[test]
    fn the_offered_rate_is_terminals_over_the_mean_cycle() {
        // Mean cycle (30 + 15) / 2 = 22.5 s.
        let rate = offered_rate(&spec_like(), 90_000).unwrap();
        assert!((rate - 4_000.0).abs() < 1e-6, "{rate}");
        let none = [TxnTypeInfo::back_to_back("b", "b", 1.0, None)];
        assert_eq!(offered_rate(&none, 10), None);
    }

    #[test]
    fn sessions_are_the_busy_mean_plus_a_square_root_margin() {
        // 4,000/s x 0.1 s = 400 busy on average, + 3 x 20.
        assert_eq!(sessions_for(4_000.0, Duration::from_millis(100)), 460);
        // 10 terminals of one warehouse: well under one busy session.
        assert_eq!(sessions_for(0.45, Duration::from_millis(100)), 1);
        assert_eq!(sessions_for(0.0, Duration::from_millis(100)), 1);
    }
}
