//! Freshness: how old the data an analytical reader saw was, as HATtrick
//! (Milkai et al., SIGMOD 2022) defines it: at the moment a reader asks, the
//! time since the first transaction it cannot see was acknowledged (0 when it
//! sees every one acknowledged by then), and how many acknowledged
//! transactions it cannot see.
//!
//! A workload that probes (the CH-benCHmark's streams, once a round) keeps a
//! [`Probe`] per look; the run keeps those in its window and summarises them
//! ([`crate::result::freshness`]).

use std::time::{Duration, Instant};

use crate::result::Look;

/// One look of a reader at the newest data it can see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// When the reader asked.
    pub at: Instant,
    /// The reader (an analytical stream's number).
    pub stream: u32,
    /// Its round: the how-manyth look of this reader (0 is the first).
    pub round: u32,
    /// Transactions acknowledged before `at` that the reader could not see.
    pub unseen: u64,
    /// How long before `at` the oldest of them was acknowledged; zero when
    /// it saw every one.
    pub age: Duration,
}

impl Probe {
    /// The look at `at`, given the acknowledgements (of what it could not
    /// see) it was asked after: how many and the oldest.
    pub fn of(at: Instant, reader: (u32, u32), unseen: impl IntoIterator<Item = Instant>) -> Probe {
        let (count, oldest) = unseen
            .into_iter()
            .filter(|acked| *acked <= at)
            .fold((0, None::<Instant>), |(n, oldest), acked| {
                (n + 1, Some(oldest.map_or(acked, |o| o.min(acked))))
            });
        Probe {
            at,
            stream: reader.0,
            round: reader.1,
            unseen: count,
            age: oldest.map_or(Duration::ZERO, |o| at - o),
        }
    }
}

/// The looks taken in the window `start..end`, in the order taken, placed
/// from its start.
pub fn looks_in(mut probes: Vec<Probe>, (start, end): (Instant, Instant)) -> Vec<Look> {
    probes.retain(|p| p.at >= start && p.at < end);
    probes.sort_by_key(|p| p.at);
    probes
        .into_iter()
        .map(|p| Look {
            at_s: (p.at - start).as_secs_f64(),
            stream: p.stream,
            round: p.round,
            unseen: p.unseen,
            age_ms: p.age.as_secs_f64() * 1e3,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_age_is_the_oldest_unseen_acknowledgement_before_the_look() {
        let t0 = Instant::now();
        let at = t0 + Duration::from_millis(500);
        let acked = [
            t0 + Duration::from_millis(200),
            t0 + Duration::from_millis(100),
            // Acknowledged after the reader asked: not yet due to be seen.
            t0 + Duration::from_millis(700),
        ];
        let probe = Probe::of(at, (1, 4), acked);
        assert_eq!((probe.stream, probe.round), (1, 4));
        assert_eq!(probe.unseen, 2);
        assert_eq!(probe.age, Duration::from_millis(400));
        let fresh = Probe::of(at, (0, 0), [t0 + Duration::from_millis(900)]);
        assert_eq!((fresh.unseen, fresh.age), (0, Duration::ZERO));
    }

    #[test]
    fn only_the_window_s_looks_are_kept_in_order_from_its_start() {
        let start = Instant::now();
        let end = start + Duration::from_secs(10);
        let at = |ms| Probe::of(start + Duration::from_millis(ms), (0, 0), []);
        let probes = vec![at(9_000), at(1_500), at(10_000)];
        let before = Probe::of(start, (0, 0), []);
        let mut all = probes.clone();
        all.push(before);
        let looks = looks_in(all, (start + Duration::from_millis(1), end));
        let at_s: Vec<f64> = looks.iter().map(|l| (l.at_s * 1e3).round()).collect();
        assert_eq!(at_s, [1_499.0, 8_999.0]);
    }
}
