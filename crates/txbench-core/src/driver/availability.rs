//! When the database answered: the gaps between its answers and the moments
//! sessions re-established their connections, so that a fault's cost can be
//! measured to the millisecond rather than the second (docs/durability.md).
//!
//! Every worker notes each transaction the database answered (committed, or
//! ended in a rollback the workload expects) with one atomic `fetch_max` on a
//! shared clock of the latest answer; only a gap longer than [`GAP_MIN`] takes
//! a lock, to be kept. Warm-up, window and grace alike: a fault may come at any
//! time.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The shortest silence kept as a gap: shorter ones are the ordinary spacing
/// of answers at low rates, not an outage worth naming.
pub const GAP_MIN: Duration = Duration::from_millis(50);
/// At most this many gaps and reconnections are kept (a run of a flapping
/// database keeps its first ones).
const KEPT: usize = 100_000;

/// A silence between two answers, as offsets from the run's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    /// The last answer before it.
    pub from: Duration,
    /// The first answer after it.
    pub to: Duration,
}

impl Gap {
    /// How long nothing was answered.
    pub fn length(&self) -> Duration {
        self.to - self.from
    }
}

/// What a run saw of its database's answers: offsets from the run's start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answers {
    /// The silences longer than [`GAP_MIN`], in the order they ended.
    pub gaps: Vec<Gap>,
    /// When a session re-established a lost connection.
    pub reconnections: Vec<Duration>,
    /// The first and the last answer, if any came.
    pub span: Option<(Duration, Duration)>,
}

impl Answers {
    /// The longest silence that ends after `at` and begins no later than
    /// `until`: the outage a fault at `at` whose effect began by `until`
    /// caused, when it caused one.
    pub fn outage_after(&self, at: Duration, until: Duration) -> Option<Gap> {
        self.gaps
            .iter()
            .filter(|g| g.to > at && g.from <= until)
            .max_by_key(|g| g.length())
            .copied()
    }
}

/// The shared clock of answers; workers hold it in an `Arc`.
#[derive(Debug)]
pub struct Availability {
    origin: Instant,
    /// The latest answer, in ns since `origin` plus one (0: none yet).
    last: AtomicU64,
    first: AtomicU64,
    kept: Mutex<Answers>,
}

impl Availability {
    /// A clock whose offsets count from `origin` (the run's start).
    pub fn new(origin: Instant) -> Self {
        Availability {
            origin,
            last: AtomicU64::new(0),
            first: AtomicU64::new(0),
            kept: Mutex::new(Answers::default()),
        }
    }

    fn offset(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.origin).as_nanos() as u64 + 1
    }

    /// The database answered at `at`.
    pub fn answered(&self, at: Instant) {
        let now = self.offset(at);
        let before = self.last.fetch_max(now, Ordering::Relaxed);
        if before == 0 {
            let _ = self
                .first
                .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
            return;
        }
        if now > before && now - before >= GAP_MIN.as_nanos() as u64 {
            let mut kept = self.lock();
            if kept.gaps.len() < KEPT {
                kept.gaps.push(Gap {
                    from: Duration::from_nanos(before - 1),
                    to: Duration::from_nanos(now - 1),
                });
            }
        }
    }

    /// A session re-established its lost connection at `at`.
    pub fn reconnected(&self, at: Instant) {
        let at = Duration::from_nanos(self.offset(at) - 1);
        let mut kept = self.lock();
        if kept.reconnections.len() < KEPT {
            kept.reconnections.push(at);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Answers> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What was seen, once the workers are done.
    pub fn answers(&self) -> Answers {
        let mut answers = self.lock().clone();
        let (first, last) = (
            self.first.load(Ordering::Relaxed),
            self.last.load(Ordering::Relaxed),
        );
        if first > 0 {
            answers.span = Some((
                Duration::from_nanos(first - 1),
                Duration::from_nanos(last - 1),
            ));
        }
        answers.reconnections.sort_unstable();
        answers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn silences_longer_than_the_minimum_are_kept_with_their_ends() {
        let origin = Instant::now();
        let a = Availability::new(origin);
        for ms in [5, 10, 20, 400, 410, 411] {
            a.answered(origin + ms * MS);
        }
        // An answer noted late (another worker's, older) is no gap.
        a.answered(origin + 300 * MS);
        a.reconnected(origin + 390 * MS);
        let seen = a.answers();
        assert_eq!(
            seen.gaps,
            vec![Gap {
                from: 20 * MS,
                to: 400 * MS
            }]
        );
        assert_eq!(seen.span, Some((5 * MS, 411 * MS)));
        assert_eq!(seen.reconnections, vec![390 * MS]);
        assert_eq!(
            seen.outage_after(100 * MS, 200 * MS),
            seen.gaps.first().copied()
        );
        assert_eq!(seen.outage_after(400 * MS, 500 * MS), None);
        assert_eq!(
            seen.outage_after(Duration::ZERO, 10 * MS),
            None,
            "began after"
        );
    }
}
