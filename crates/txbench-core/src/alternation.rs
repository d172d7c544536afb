//! Phases without and with a part of the load, alternating in one run, so
//! that what that part costs the rest is measured on the same minutes of the
//! same database, not on two runs (the CH-benCHmark's analytical streams
//! against TPC-C's throughput).
//!
//! The measurement window is cut into phases of one length from its start:
//! phase 0 without the held types, phase 1 with them, phase 2 without, and so
//! on. A terminal's transaction of a held type waits for the next phase with
//! them; the warm-up counts as a phase without.

use std::ops::Range;
use std::time::{Duration, Instant};

/// How a run alternates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternation {
    /// The length of each phase.
    pub phase: Duration,
    /// The transaction types that run only in the phases with them.
    pub held: Range<usize>,
}

impl Alternation {
    /// The phase `offset` (time since the window's start) falls in.
    pub fn phase_at(&self, offset: Duration) -> u64 {
        let phase = self.phase.as_nanos().max(1);
        (offset.as_nanos() / phase) as u64
    }

    /// Whether phase `index` runs the held types.
    pub fn is_with(index: u64) -> bool {
        index % 2 == 1
    }

    /// When a transaction of `txn_type` due `at` may start, the window
    /// starting at `window_start`: at once unless it is held and `at` falls
    /// in a phase without (or in the warm-up), then at the next phase's start.
    pub fn release(&self, txn_type: usize, at: Instant, window_start: Instant) -> Instant {
        if !self.held.contains(&txn_type) {
            return at;
        }
        let k = self.phase_at(at.saturating_duration_since(window_start));
        if at >= window_start && Alternation::is_with(k) {
            return at;
        }
        let next = if at < window_start { 1 } else { k + 1 };
        window_start + self.phase.saturating_mul(next as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_type_waits_for_the_next_phase_with_it_and_others_never_wait() {
        let alt = Alternation {
            phase: Duration::from_secs(10),
            held: 5..27,
        };
        let start = Instant::now() + Duration::from_secs(60);
        let at = |s: f64| start + Duration::from_secs_f64(s);
        assert_eq!(
            alt.release(5, start - Duration::from_secs(3), start),
            at(10.0)
        );
        assert_eq!(alt.release(5, at(0.0), start), at(10.0));
        assert_eq!(alt.release(26, at(9.9), start), at(10.0));
        assert_eq!(alt.release(5, at(10.0), start), at(10.0));
        assert_eq!(alt.release(5, at(19.5), start), at(19.5));
        assert_eq!(alt.release(5, at(20.0), start), at(30.0));
        assert_eq!(alt.release(0, at(20.0), start), at(20.0));
        let early = start - Duration::from_secs(3);
        assert_eq!(alt.release(27, early, start), early);
        assert_eq!(alt.phase_at(Duration::from_secs(35)), 3);
        assert!(Alternation::is_with(3) && !Alternation::is_with(0));
    }
}
