//! Checks of the window over time: whether the database stopped answering
//! while work waited for it.

use super::{Check, Status, median_latency_us};
use crate::driver::{Gap, Recording, Second};

/// A silence shorter than this many median latencies is no stall: with few
/// terminals and slow transactions a while can pass with nothing answered.
const OUTAGE_MEDIANS: f64 = 20.0;
/// The shortest silence named (s): shorter ones are the spacing of answers.
const SILENCE_MIN_S: f64 = 0.1;
/// The shortest outage (s): a silence that fails the run.
const OUTAGE_MIN_S: f64 = 1.0;
/// Ticks come a second apart give or take the timer's jitter.
const TICK_JITTER: f64 = 0.95;

/// A stretch of the window, in seconds from its start, in which nothing was
/// answered although work was due.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stall {
    from: f64,
    to: f64,
}

impl Stall {
    fn length(&self) -> f64 {
        self.to - self.from
    }

    fn overlaps(&self, other: &Stall) -> bool {
        self.from < other.to && other.from < self.to
    }
}

/// Whether the database stopped answering while work waited: the silences
/// the driver kept to the millisecond, from when work waited in each (the
/// transaction that ended it was sent, or the silence began if transactions
/// failed in it), and stretches of whole seconds that completed nothing with work
/// outstanding (a silence no answer ended, at the window's end). WARN from
/// 100 ms and 20 median latencies, FAIL from 1 s (and 20 median latencies).
/// A stall hides in the run's averages (the time around it catches up), so
/// each is named with its start and length.
pub(super) fn outages(rec: &Recording) -> Check {
    let median_s = median_latency_us(rec).map_or(0.0, |us| us / 1e6);
    let named_from = (OUTAGE_MEDIANS * median_s).max(SILENCE_MIN_S);
    let fail_from = (OUTAGE_MEDIANS * median_s).max(OUTAGE_MIN_S);
    let found: Vec<Stall> = stalls_in_window(rec)
        .into_iter()
        .filter(|s| s.length() >= named_from)
        .collect();
    let longest = found.iter().map(Stall::length).fold(0.0, f64::max);
    // Folded from +0.0: a sum of no f64 is -0.0, printed "-0.000 s".
    let total: f64 = found.iter().map(Stall::length).fold(0.0, |a, b| a + b);
    let named = found
        .iter()
        .map(|s| format!("{:.3} s for {:.0} ms", s.from, s.length() * 1e3))
        .collect::<Vec<_>>()
        .join(", ");
    let statistic = format!(
        "{} silence(s) while work was due, {:.3} s in all, the longest {:.0} ms (WARN from \
         {:.0} ms, FAIL from {fail_from:.1} s: 100 ms and 1 s, and {OUTAGE_MEDIANS} median \
         latencies)",
        found.len(),
        total,
        longest * 1e3,
        named_from * 1e3,
    );
    // TICK_JITTER: a stall found from whole seconds measures a little under
    // its length when a tick comes early.
    let (status, detail) = if longest >= TICK_JITTER * fail_from {
        (
            Status::Fail,
            format!(
                "nothing was answered while work was due, at {named} of the window: the database (or \
                 the network to it) stopped answering or failed everything; the run's averages \
                 hide it"
            ),
        )
    } else if !found.is_empty() {
        (
            Status::Warn,
            format!(
                "the database answered nothing while work waited, at {named} of the window: \
                 stalls (a checkpoint, a lock, a pause) that the run's averages hide"
            ),
        )
    } else {
        (
            Status::Pass,
            "no silence of that length while work was due".to_string(),
        )
    };
    Check {
        name: "outages".into(),
        statistic,
        status,
        detail,
    }
}

/// The window's stalls: the silences, from when work waited in each,
/// clipped to the window, and the stalls of whole seconds (at least a
/// second) that no silence covers.
fn stalls_in_window(rec: &Recording) -> Vec<Stall> {
    let origin = rec.window_offset.as_secs_f64();
    let end = rec.measured.as_secs_f64();
    let mut found: Vec<Stall> = rec
        .answers
        .gaps
        .iter()
        .filter_map(|g| clipped(g, origin, end))
        .collect();
    let uncovered: Vec<Stall> = stalls(&rec.seconds)
        .into_iter()
        .filter(|s| s.length() >= TICK_JITTER * OUTAGE_MIN_S)
        .filter(|s| !found.iter().any(|f| f.overlaps(s)))
        .collect();
    found.extend(uncovered);
    found.sort_by(|a, b| a.from.total_cmp(&b.from));
    found
}

/// The part of a silence in which work waited, as a stretch of the window
/// (`origin`: the window's start from the run's, s; `end`: the window's
/// length), if it overlaps it.
fn clipped(gap: &Gap, origin: f64, end: f64) -> Option<Stall> {
    let from = (gap.waited_from.as_secs_f64() - origin).max(0.0);
    let to = (gap.to.as_secs_f64() - origin).min(end);
    (to > from).then_some(Stall { from, to })
}

/// The maximal runs of seconds in which nothing completed and work was due:
/// outstanding when each began, or failing in it.
fn stalls(seconds: &[Second]) -> Vec<Stall> {
    let mut found: Vec<Stall> = Vec::new();
    let mut open: Option<Stall> = None;
    for s in seconds {
        let stalled = s.completed == 0 && (s.outstanding_at_start > 0 || s.failed > 0);
        match (&mut open, stalled) {
            (Some(run), true) => run.to = s.end,
            (None, true) => {
                open = Some(Stall {
                    from: s.end - s.length,
                    to: s.end,
                })
            }
            (Some(_), false) => found.extend(open.take()),
            (None, false) => {}
        }
    }
    found.extend(open);
    found
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant, SystemTime};

    use super::*;
    use crate::driver::{Answers, CpuUsage};
    use crate::recorder::Recorder;

    /// A 20 s window after a 2 s warm-up, transactions of 2 ms, some
    /// completed every second, and `gaps` (ms from the run's start: from,
    /// to, and since when work waited).
    fn recording(gaps: &[(u64, u64, u64)]) -> Recording {
        let mut total = Recorder::new(1);
        let t = &mut total.measured[0];
        t.committed = 10_000;
        t.latency.record_n(2_000, 10_000).unwrap();
        let gaps = gaps
            .iter()
            .map(|&(from, to, waited_from)| Gap {
                from: Duration::from_millis(from),
                to: Duration::from_millis(to),
                waited_from: Duration::from_millis(waited_from),
            })
            .collect();
        Recording {
            total,
            window_start: SystemTime::now(),
            window: (Instant::now(), Instant::now()),
            measured: Duration::from_secs(20),
            interrupted: false,
            count: None,
            wall: Duration::from_secs(22),
            tail: Duration::ZERO,
            cpu: CpuUsage::default(),
            dispatch: None,
            scheduler: None,
            samples: Vec::new(),
            seconds: (1..=20).map(|s| second(s as f64, 500, 2)).collect(),
            segments: Vec::new(),
            answers: Answers {
                gaps,
                ..Answers::default()
            },
            window_offset: Duration::from_secs(2),
            phases: Vec::new(),
        }
    }

    #[test]
    fn a_stall_across_two_seconds_is_named_to_the_millisecond() {
        // A 1 s stall from 10.5 s to 11.5 s of the window: every second
        // completed something, so whole seconds never showed it.
        let check = outages(&recording(&[(12_499, 13_502, 12_500)]));
        assert_eq!(check.status, Status::Fail, "{check:?}");
        assert!(check.detail.contains("10.500 s for 1002 ms"), "{check:?}");
    }

    #[test]
    fn short_stalls_warn_and_idle_silences_pass() {
        // Work waited 300 ms of the first; the second was idle but for the
        // 2 ms of the transaction that ended it.
        let check = outages(&recording(&[(5_000, 5_300, 5_000), (8_000, 8_900, 8_898)]));
        assert_eq!(check.status, Status::Warn, "{check:?}");
        assert!(check.detail.contains("3.000 s for 300 ms"), "{check:?}");
        assert!(!check.detail.contains("6.000 s"), "{check:?}");
        // Under 100 ms, or in the warm-up: nothing named.
        let check = outages(&recording(&[(5_000, 5_090, 5_000), (500, 1_900, 500)]));
        assert_eq!(check.status, Status::Pass, "{check:?}");
    }

    #[test]
    fn a_silence_no_answer_ended_is_found_from_whole_seconds() {
        let mut rec = recording(&[]);
        for s in &mut rec.seconds[17..] {
            s.completed = 0;
        }
        let check = outages(&rec);
        assert_eq!(check.status, Status::Fail, "{check:?}");
        assert!(check.detail.contains("17.000 s for 3000 ms"), "{check:?}");
    }

    fn second(end: f64, completed: u64, outstanding_at_start: u64) -> Second {
        Second {
            end,
            length: 1.0,
            completed,
            committed: completed,
            failed: 0,
            queue_ms: None,
            outstanding_at_start,
        }
    }

    #[test]
    fn a_stall_is_nothing_completed_while_work_was_outstanding() {
        let seconds = [
            second(1.0, 50, 0),
            second(2.0, 0, 3),
            second(3.0, 0, 3),
            second(4.0, 60, 3),
            // Nothing due: an idle second, not a stall.
            second(5.0, 0, 0),
            second(6.0, 0, 1),
        ];
        assert_eq!(
            stalls(&seconds),
            vec![Stall { from: 1.0, to: 3.0 }, Stall { from: 5.0, to: 6.0 }]
        );
    }

    #[test]
    fn a_second_that_only_failed_is_a_stall() {
        // A database refusing connections: every transaction fails at once,
        // so none is outstanding at a tick, yet work was due.
        let failing = Second {
            failed: 500,
            ..second(2.0, 0, 0)
        };
        let seconds = [second(1.0, 50, 0), failing, second(3.0, 40, 0)];
        assert_eq!(stalls(&seconds), vec![Stall { from: 1.0, to: 2.0 }]);
    }
}
