//! What each fault cost the run, from the driver's record of when the
//! database answered (to the millisecond) and the run's seconds.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use txbench_core::driver::{Answers, GAP_MIN, Gap};
use txbench_core::error::ErrorKind;
use txbench_core::faults::{CommandKind, FaultImpact, FaultResult, FaultSecond};
use txbench_core::recorder::Recorder;

use super::inject::Ran;

/// The seconds before a fault its baseline throughput is taken from.
const BASELINE: f64 = 10.0;
/// The seconds after a fault its table shows.
const AFTER: f64 = 30.0;
/// The share of the baseline throughput that counts as recovered.
const RECOVERED: f64 = 0.9;
/// A fault's outage is a silence that began before its command ended, or
/// this soon after: a later silence (a node rejoining, say) is not its own.
const TAKES_EFFECT: Duration = Duration::from_secs(1);

/// One second of the run, as the faults' figures need it.
#[derive(Debug, Clone, Default)]
pub struct RunSecond {
    /// Its end, from the run's start, s.
    pub end_s: f64,
    /// Its length, s.
    pub length_s: f64,
    /// Transactions completed in it.
    pub completed: u64,
    /// Transactions failed in it, by [`ErrorKind`] index.
    pub failed: [u64; ErrorKind::ALL.len()],
    /// The 99th percentile latency of those completed, ms.
    pub p99_ms: Option<f64>,
}

impl RunSecond {
    /// A second from the interval a tick closed, at `end` from the run's start.
    pub fn of(end: Duration, length: Duration, interval: &Recorder) -> RunSecond {
        let mut failed = [0; ErrorKind::ALL.len()];
        for t in &interval.measured {
            for (sum, n) in failed.iter_mut().zip(t.errors) {
                *sum += n;
            }
        }
        let all = interval.all_latencies();
        RunSecond {
            end_s: end.as_secs_f64(),
            length_s: length.as_secs_f64(),
            completed: interval.completed(),
            failed,
            p99_ms: (!all.is_empty()).then(|| all.value_at_quantile(0.99) as f64 / 1000.0),
        }
    }

    fn per_s(&self) -> f64 {
        if self.length_s > 0.0 {
            self.completed as f64 / self.length_s
        } else {
            0.0
        }
    }
}

/// Each command as it ran, a fault with its cost. `run_start` is the run's
/// start by the wall clock; `seconds` are the window's (the warm-up records
/// no per-second numbers); `answers` what the driver saw.
pub fn results(
    ran: &[Ran],
    run_start: SystemTime,
    seconds: &[RunSecond],
    answers: &Answers,
) -> Vec<FaultResult> {
    let offset = |t: SystemTime| t.duration_since(run_start).unwrap_or_default();
    let fault_starts: Vec<Duration> = ran
        .iter()
        .filter(|r| r.planned.kind == CommandKind::Fault)
        .map(|r| offset(r.started))
        .collect();
    ran.iter()
        .map(|r| {
            let at = offset(r.started);
            let next_fault = fault_starts
                .iter()
                .copied()
                .find(|&f| f > at)
                .unwrap_or(Duration::MAX);
            FaultResult {
                kind: r.planned.kind,
                command: txbench_engines::redact(&r.planned.command),
                at_s: r.planned.at.as_secs_f64(),
                started_s: at.as_secs_f64(),
                took_s: r.took.as_secs_f64(),
                exit_code: r.exit_code,
                output: r.output.clone(),
                impact: (r.planned.kind == CommandKind::Fault).then(|| {
                    let began_by = (at + r.took + TAKES_EFFECT).min(next_fault);
                    impact(at, (began_by, next_fault), seconds, answers)
                }),
            }
        })
        .collect()
}

/// What a fault at `at` cost: its outage a silence that began by `began_by`,
/// its reconnections those until the next fault.
fn impact(
    at: Duration,
    (began_by, next): (Duration, Duration),
    seconds: &[RunSecond],
    answers: &Answers,
) -> FaultImpact {
    let f = at.as_secs_f64();
    let from = |d: Duration| d.as_secs_f64() - f;
    // A silence that the database ended, or else one it never ended.
    let (outage, answered_again) = match answers.outage_after(at, began_by) {
        Some(gap) => (Some(gap), true),
        None => (down_to_the_end(began_by, seconds, answers), false),
    };
    let last_answer_s = outage.map(|g| from(g.from));
    let first_answer_s = outage.filter(|_| answered_again).map(|g| from(g.to));
    let before: Vec<&RunSecond> = seconds
        .iter()
        .filter(|s| s.end_s <= f && s.end_s > f - BASELINE && s.length_s > 0.5)
        .collect();
    let baseline_per_s = (!before.is_empty())
        .then(|| before.iter().map(|s| s.per_s()).sum::<f64>() / before.len() as f64);
    // Recovery is looked for once the outage is over (or from the fault),
    // and not at all when the database never answered again.
    let back = f + first_answer_s.unwrap_or(0.0).max(0.0);
    let down_to_the_end = outage.is_some() && !answered_again;
    let recovered = baseline_per_s
        .filter(|_| !down_to_the_end)
        .and_then(|base| {
            seconds
                .iter()
                .find(|s| s.end_s > back && s.per_s() >= RECOVERED * base)
        });
    let until = recovered.map_or(f64::INFINITY, |s| s.end_s);
    let mut errors = BTreeMap::new();
    for s in seconds
        .iter()
        .filter(|s| s.end_s > f && s.end_s - s.length_s < until)
    {
        for (kind, n) in ErrorKind::ALL.iter().zip(s.failed) {
            if n > 0 {
                *errors.entry(kind.name().to_string()).or_insert(0) += n;
            }
        }
    }
    FaultImpact {
        last_answer_s,
        first_answer_s,
        unavailable_s: outage.map(|g| g.length().as_secs_f64()),
        baseline_per_s,
        recovered_90_s: recovered.map(|s| s.end_s - f),
        errors,
        reconnections: answers
            .reconnections
            .iter()
            .filter(|&&r| r >= at && r < next)
            .count() as u64,
        seconds: seconds
            .iter()
            .filter(|s| s.end_s > f - BASELINE && s.end_s <= f + AFTER)
            .map(|s| FaultSecond {
                end_s: s.end_s - f,
                per_s: s.per_s(),
                p99_ms: s.p99_ms,
                failed: s.failed.iter().sum(),
            })
            .collect(),
    }
}

/// The silence from the last answer to the run's end, when that answer came
/// by `began_by` (the fault's effect) and the run went on longer than a gap
/// ([`GAP_MIN`]) after it: the database never answered again. It ends
/// with the run's last second.
fn down_to_the_end(began_by: Duration, seconds: &[RunSecond], answers: &Answers) -> Option<Gap> {
    let (_, last) = answers.span?;
    let end = Duration::from_secs_f64(seconds.last()?.end_s);
    (last <= began_by && end.saturating_sub(last) >= GAP_MIN).then_some(Gap {
        from: last,
        to: end,
        waited_from: last,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::faults::plan::PlannedCommand;

    const MS: Duration = Duration::from_millis(1);

    /// A fault `command` planned `at`, started at `started` and run for
    /// `took`, ending with `exit_code`.
    fn fault(
        command: &str,
        at: Duration,
        (started, took): (SystemTime, Duration),
        exit_code: Option<i32>,
    ) -> Ran {
        Ran {
            planned: PlannedCommand {
                kind: CommandKind::Fault,
                at,
                command: command.into(),
                limit: Duration::from_secs(120),
            },
            started,
            took,
            exit_code,
            output: String::new(),
        }
    }

    fn second(end_s: f64, completed: u64, failed: u64) -> RunSecond {
        let mut f = [0; ErrorKind::ALL.len()];
        f[ErrorKind::Connection as usize] = failed;
        RunSecond {
            end_s,
            length_s: 1.0,
            completed,
            failed: f,
            p99_ms: Some(2.0),
        }
    }

    #[test]
    fn a_fault_s_outage_recovery_errors_and_reconnections_are_measured() {
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let ran = [fault(
            "kill postgres://u:secret@h/db",
            5_000 * MS,
            (start + 5_010 * MS, 30 * MS),
            Some(0),
        )];
        // 100/s for 5 s, nothing for 2 s, then 50/s, then 95/s.
        let mut seconds: Vec<RunSecond> = (1..=5).map(|s| second(s as f64, 100, 0)).collect();
        seconds.push(second(6.0, 1, 4));
        seconds.push(second(7.0, 0, 0));
        seconds.push(second(8.0, 50, 0));
        seconds.push(second(9.0, 95, 0));
        let answers = Answers {
            gaps: vec![
                Gap {
                    from: 1_000 * MS,
                    to: 1_100 * MS,
                    waited_from: 1_000 * MS,
                },
                Gap {
                    from: 5_005 * MS,
                    to: 7_300 * MS,
                    waited_from: 5_005 * MS,
                },
                // A longer silence that began well after the command ended
                // (a node rejoining) is not the fault's.
                Gap {
                    from: 7_400 * MS,
                    to: 9_950 * MS,
                    waited_from: 7_400 * MS,
                },
            ],
            reconnections: vec![7_200 * MS, 7_250 * MS, 9_500 * MS],
            span: Some((10 * MS, 9_990 * MS)),
        };
        let r = &results(&ran, start, &seconds, &answers)[0];
        assert_eq!(r.command, "kill postgres://u:***@h/db");
        let i = r.impact.as_ref().unwrap();
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-9;
        assert!(close(i.last_answer_s, -0.005), "{i:?}");
        assert!(close(i.first_answer_s, 2.29), "{i:?}");
        assert!(close(i.unavailable_s, 2.295), "{i:?}");
        assert!(close(i.baseline_per_s, 100.0), "{i:?}");
        assert!(close(i.recovered_90_s, 3.99), "{i:?}");
        assert_eq!(i.errors.get("connection"), Some(&4));
        assert_eq!(i.reconnections, 3);
        assert_eq!(i.seconds.len(), 9);
    }

    #[test]
    fn a_database_that_never_answers_again_is_down_to_the_end() {
        let start = SystemTime::UNIX_EPOCH;
        let ran = [fault("stop", 2_000 * MS, (start + 2_000 * MS, MS), None)];
        let answers = Answers {
            gaps: vec![],
            reconnections: vec![],
            span: Some((Duration::ZERO, 1_990 * MS)),
        };
        let i = results(
            &ran,
            start,
            &[second(1.0, 10, 0), second(2.0, 10, 0), second(3.0, 0, 5)],
            &answers,
        )[0]
        .impact
        .clone()
        .unwrap();
        assert_eq!(i.first_answer_s, None);
        assert!((i.last_answer_s.unwrap() + 0.01).abs() < 1e-9);
        assert!((i.unavailable_s.unwrap() - 1.01).abs() < 1e-9, "{i:?}");
        assert_eq!(i.recovered_90_s, None);
        assert_eq!(i.errors.get("connection"), Some(&5));
    }

    /// The run: `stop -m immediate` at 3 s took 150 ms, transactions
    /// in flight answered while it ran, and the run's seconds ended 3 ms past
    /// whole seconds, so one full second ended just after the fault. It was
    /// reported as no outage and recovered after 0.003 s.
    #[test]
    fn answers_while_the_fault_ran_then_none_is_down_to_the_end() {
        let start = SystemTime::UNIX_EPOCH;
        let ran = [fault(
            "stop",
            3_000 * MS,
            (start + 3_000 * MS, 150 * MS),
            Some(0),
        )];
        let answers = Answers {
            gaps: vec![],
            reconnections: vec![],
            span: Some((Duration::ZERO, 3_100 * MS)),
        };
        let mut seconds: Vec<RunSecond> =
            [(1.003, 1209), (2.003, 1209), (3.003, 1209), (4.003, 100)]
                .map(|(end, n)| second(end, n, 0))
                .to_vec();
        seconds.push(RunSecond {
            length_s: 0.997,
            ..second(5.0, 0, 30)
        });
        let i = results(&ran, start, &seconds, &answers)[0]
            .impact
            .clone()
            .unwrap();
        assert!((i.last_answer_s.unwrap() - 0.1).abs() < 1e-9, "{i:?}");
        assert_eq!(i.first_answer_s, None);
        assert!((i.unavailable_s.unwrap() - 1.9).abs() < 1e-9, "{i:?}");
        assert_eq!(i.recovered_90_s, None, "{i:?}");
        assert_eq!(i.errors.get("connection"), Some(&30));
    }

    #[test]
    fn a_run_that_ended_as_the_database_answered_had_no_outage() {
        let start = SystemTime::UNIX_EPOCH;
        let ran = [fault("true", 2_000 * MS, (start + 2_000 * MS, MS), Some(0))];
        let answers = Answers {
            gaps: vec![],
            reconnections: vec![],
            span: Some((Duration::ZERO, 2_990 * MS)),
        };
        let seconds = [second(1.0, 10, 0), second(2.0, 10, 0), second(3.0, 10, 0)];
        let i = results(&ran, start, &seconds, &answers)[0]
            .impact
            .clone()
            .unwrap();
        assert_eq!((i.last_answer_s, i.unavailable_s), (None, None), "{i:?}");
        assert!((i.recovered_90_s.unwrap() - 1.0).abs() < 1e-9, "{i:?}");
    }
}
