//! When the database answered: the gaps between its answers and the moments
//! sessions re-established their connections, so that a fault's cost can be
//! measured to the millisecond rather than the second (docs/durability.md).
//!
//! Every worker notes each transaction the database answered (committed, or
//! ended in a rollback the workload expects) with one atomic `fetch_max` on a
//! shared clock of the latest answer; only a gap longer than [`GAP_MIN`] takes
//! a lock, to be kept. Warm-up, window and grace alike: a fault may come at any
//! time. Each gap keeps since when work waited through it, so that a database
//! that was silent is told from one idle between answers at a low rate.

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
    /// Since when work waited in it: the later of its start and the sending
    /// of the transaction whose answer ended it (a silence at a low rate
    /// waits only that transaction's latency); its start when a transaction
    /// failed in it.
    pub waited_from: Duration,
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
    /// The latest failure, encoded as `last`.
    last_failure: AtomicU64,
    kept: Mutex<Answers>,
}

impl Availability {
    /// A clock whose offsets count from `origin` (the run's start).
    pub fn new(origin: Instant) -> Self {
        Availability {
            origin,
            last: AtomicU64::new(0),
            first: AtomicU64::new(0),
            last_failure: AtomicU64::new(0),
            kept: Mutex::new(Answers::default()),
        }
    }

    fn offset(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.origin).as_nanos() as u64 + 1
    }

    /// The database answered at `at` a transaction sent at `sent`.
    pub fn answered(&self, at: Instant, sent: Instant) {
        let now = self.offset(at);
        let before = self.last.fetch_max(now, Ordering::Relaxed);
        if before == 0 {
            let _ = self
                .first
                .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
            return;
        }
        if now > before && now - before >= GAP_MIN.as_nanos() as u64 {
            let waited_from = if self.last_failure.load(Ordering::Relaxed) > before {
                before
            } else {
                self.offset(sent).clamp(before, now)
            };
            let mut kept = self.lock();
            if kept.gaps.len() < KEPT {
                kept.gaps.push(Gap {
                    from: Duration::from_nanos(before - 1),
                    to: Duration::from_nanos(now - 1),
                    waited_from: Duration::from_nanos(waited_from - 1),
                });
            }
        }
    }

    /// A transaction failed at `at` (after its retries): work was due then,
    /// whether or not anything answered.
    pub fn failed(&self, at: Instant) {
        self.last_failure
            .fetch_max(self.offset(at), Ordering::Relaxed);
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
        // Each answer to a transaction sent 1 ms before: a silence in which
        // work waited 1 ms.
        for ms in [5, 10, 20, 400, 410, 411] {
            a.answered(origin + ms * MS, origin + (ms - 1) * MS);
        }
        // An answer noted late (another worker's, older) is no gap.
        a.answered(origin + 300 * MS, origin + 299 * MS);
        a.reconnected(origin + 390 * MS);
        let seen = a.answers();
        assert_eq!(
            seen.gaps,
            vec![Gap {
                from: 20 * MS,
                to: 400 * MS,
                waited_from: 399 * MS,
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

    #[test]
    fn a_silence_keeps_since_when_work_waited_in_it() {
        let origin = Instant::now();
        let a = Availability::new(origin);
        a.answered(origin + 10 * MS, origin + 9 * MS);
        // Sent at 5 ms, answered at 300 ms: it waited through the silence.
        a.answered(origin + 300 * MS, origin + 5 * MS);
        // A terminal's next transaction, sent 1 ms after the last answer,
        // answered at 600 ms: it waited 299 ms of the silence.
        a.answered(origin + 600 * MS, origin + 301 * MS);
        // A failure at 700 ms: work was due through the silence.
        a.failed(origin + 700 * MS);
        a.answered(origin + 900 * MS, origin + 890 * MS);
        // Idle from 900 to 1,200 ms: the next transaction was sent at 1,190 ms.
        a.answered(origin + 1_200 * MS, origin + 1_190 * MS);
        let waited: Vec<Duration> = a
            .answers()
            .gaps
            .iter()
            .map(|g| g.to - g.waited_from)
            .collect();
        assert_eq!(waited, [290 * MS, 299 * MS, 300 * MS, 10 * MS]);
    }
}
