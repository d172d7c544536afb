//! Checks of the window second by second: whether the database stopped
//! answering while work waited for it.

use super::{Check, median_latency_us};
use crate::driver::Recording;
use crate::driver::Second;

/// A stall shorter than this many median latencies is no outage: with few
/// terminals and slow transactions a second can pass with nothing completed.
const OUTAGE_MEDIANS: f64 = 20.0;
/// The shortest outage reported (s): one whole tick of the run's clock.
const OUTAGE_MIN_S: f64 = 1.0;
/// Ticks come a second apart give or take the timer's jitter.
const TICK_JITTER: f64 = 0.95;

/// A stretch of the window in which nothing completed although work was due.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stall {
    from: f64,
    to: f64,
}

/// Whether the database stopped answering: consecutive seconds in which no
/// transaction completed although work was due (transactions outstanding
/// when each began, or failing in it), lasting at least a second and 20
/// median latencies. An outage
/// hides in the run's averages (the seconds around it catch up), so it fails
/// and is named.
pub(super) fn outages(rec: &Recording) -> Check {
    let median_s = median_latency_us(rec).map_or(0.0, |us| us / 1e6);
    let shortest = (OUTAGE_MEDIANS * median_s).max(OUTAGE_MIN_S);
    let found: Vec<Stall> = stalls(&rec.seconds)
        .into_iter()
        .filter(|s| s.to - s.from >= TICK_JITTER * shortest)
        .collect();
    let total = found.iter().fold(0.0, |sum, s| sum + (s.to - s.from));
    let named: Vec<String> = found
        .iter()
        .map(|s| format!("{:.1}..{:.1} s", s.from, s.to))
        .collect();
    let problem = (!found.is_empty()).then(|| {
        format!(
            "no transaction completed while work was due, at {} of the window: the database (or \
             the network to it) stopped answering or failed everything; the run's averages \
             hide it",
            named.join(", ")
        )
    });
    Check::fail_on(
        "outages",
        format!(
            "{} stretch(es) of {total:.1} s with nothing completed while work was due (FAIL from \
             {shortest:.1} s: 1 s and {OUTAGE_MEDIANS} median latencies)",
            found.len()
        ),
        problem,
        "something completed in every second that had work due",
    )
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
    use super::*;

    fn second(end: f64, completed: u64, outstanding_at_start: u64) -> Second {
        Second {
            end,
            length: 1.0,
            completed,
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
