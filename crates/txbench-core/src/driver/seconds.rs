//! What each second of the measurement window saw, for the checks that look at
//! the run over time: whether the client queue grew, and whether the database
//! stopped answering while work waited for it.

use std::time::Instant;

use super::worker::Window;
use crate::recorder::Recorder;

/// One second of the measurement window (one tick of the run's clock).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Second {
    /// Where it ends, in seconds since the window's start.
    pub end: f64,
    /// How much of it lies inside the window (s): the first and last ticks of
    /// a window cover only part of theirs.
    pub length: f64,
    /// Transactions completed in it (committed, or ended in a rollback the
    /// workload expects).
    pub completed: u64,
    /// Of those, the ones that committed.
    pub committed: u64,
    /// Transactions that failed in it (after their retries): work that was
    /// due even when none was outstanding at its start (a database that
    /// refuses connections fails every transaction at once).
    pub failed: u64,
    /// Mean time those waited in the client before they started (ms).
    pub queue_ms: Option<f64>,
    /// Transactions sent and not finished when it began: a second that
    /// completed none of them had work waiting.
    pub outstanding_at_start: u64,
}

impl Second {
    /// Whether it is a whole tick: a partial first or last one (under half
    /// a second of the window) says little about a rate.
    pub fn is_whole(&self) -> bool {
        self.length >= 0.5
    }
}

/// The seconds of a window, one per tick.
#[derive(Debug, Default)]
pub struct Seconds {
    seconds: Vec<Second>,
    outstanding: u64,
}

impl Seconds {
    /// Note the tick at `now` that closed an interval begun at `last_tick`,
    /// with `interval`'s numbers and `outstanding` transactions sent and not
    /// finished at the tick. Ticks outside the window only note the count.
    pub fn tick(
        &mut self,
        window: Window,
        last_tick: Instant,
        now: Instant,
        interval: &Recorder,
        outstanding: u64,
    ) {
        if window.overlaps(last_tick, now) {
            let (from, to) = (last_tick.max(window.start), now.min(window.end));
            self.seconds.push(Second {
                end: (to - window.start).as_secs_f64(),
                length: (to - from).as_secs_f64(),
                completed: interval.measured.iter().map(|t| t.completed()).sum(),
                committed: interval.measured.iter().map(|t| t.committed).sum(),
                failed: interval.measured.iter().map(|t| t.failed()).sum(),
                queue_ms: mean_queue_ms(interval),
                outstanding_at_start: self.outstanding,
            });
        }
        self.outstanding = outstanding;
    }

    /// The seconds noted, in order.
    pub fn into_vec(self) -> Vec<Second> {
        self.seconds
    }
}

/// Mean queueing time of an interval's measured transactions, all types (ms).
fn mean_queue_ms(interval: &Recorder) -> Option<f64> {
    let (sum, n) = interval.measured.iter().fold((0.0, 0u64), |(sum, n), t| {
        (
            sum + t.queue.mean() * t.queue.len() as f64,
            n + t.queue.len(),
        )
    });
    (n > 0).then(|| sum / n as f64 / 1000.0)
}
