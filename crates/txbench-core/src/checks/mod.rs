//! The run's checks of its own measurement, each with its statistic and a
//! PASS/WARN/FAIL, and the percentile intervals they justify (after Lancet,
//! ATC'19; see SPEC-NOTES.md "Measuring latency soundly").

mod client;
mod outcomes;
mod over_time;
mod rate_drift;
mod samples;
mod shared_writer;
pub mod wire;

pub use crate::check::{Check, PercentileInterval, Status};
pub use samples::{intervals, total_intervals};

use crate::driver::{OpenLoop, Recording};
use crate::txn::TxnTypeInfo;

impl Check {
    /// A check that fails saying `problem` when there is one, and otherwise
    /// passes saying `fine`.
    fn fail_on(name: &str, statistic: String, problem: Option<String>, fine: &str) -> Check {
        Check {
            name: name.into(),
            statistic,
            status: if problem.is_some() {
                Status::Fail
            } else {
                Status::Pass
            },
            detail: problem.unwrap_or_else(|| fine.into()),
        }
    }
}

/// The percentiles that get intervals.
pub const PERCENTILES: [f64; 6] = [50.0, 90.0, 95.0, 99.0, 99.9, 99.99];

/// The checks of a run and the lag its intervals use.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Every check, in a fixed order.
    pub checks: Vec<Check>,
    /// Intervals use every `lag`-th sample in send order (1: all).
    pub lag: usize,
}

/// Check a recording; `open` is the open-loop load, if any.
pub fn analyse(rec: &Recording, open: Option<&OpenLoop>, types: &[TxnTypeInfo]) -> Analysis {
    let mut checks = vec![outcomes::measured(rec), outcomes::errors(rec, types)];
    checks.extend(outcomes::outcomes(rec, types));
    if let (Some(load), Some(d)) = (open, rec.dispatch.as_ref()) {
        checks.push(client::achieved_rate(rec, load, d));
        checks.extend(client::arrival_process(load, d));
        checks.push(client::queue_growth(&rec.seconds));
    }
    checks.push(client::lateness(rec, open.map(|o| o.pacing)));
    checks.push(over_time::outages(rec));
    let (independence, lag) = samples::independence(rec, open.is_some());
    checks.push(independence);
    checks.push(samples::stationarity(rec, lag));
    checks.extend(outcomes::mix_minimums(rec, types));
    checks.push(outcomes::unfinished(rec, types));
    checks.push(samples::sufficiency(rec, types, lag));
    Analysis { checks, lag }
}

/// The median latency of everything completed in the window (µs), `None`
/// when nothing completed.
fn median_latency_us(rec: &Recording) -> Option<f64> {
    let all = rec.total.all_latencies();
    (!all.is_empty()).then(|| all.value_at_quantile(0.5) as f64)
}

pub use shared_writer::shared_writer;

/// The worst status among the checks (PASS when there are none).
pub fn worst(checks: &[Check]) -> Status {
    checks
        .iter()
        .map(|c| c.status)
        .max()
        .unwrap_or(Status::Pass)
}

/// The names of the checks that came out `status`, in order.
pub fn named(checks: &[Check], status: Status) -> Vec<&str> {
    checks
        .iter()
        .filter(|c| c.status == status)
        .map(|c| c.name.as_str())
        .collect()
}

/// One line that says whether to trust the run: the checks that warned or
/// failed by name, a check that found the client's bias with how much.
pub fn verdict(checks: &[Check]) -> String {
    let quoted = |c: &Check| match wire::verdict_note(c) {
        Some(note) => format!("{} ({note})", c.name),
        None => c.name.clone(),
    };
    let said = |status| -> Vec<String> {
        checks
            .iter()
            .filter(|c| c.status == status)
            .map(quoted)
            .collect()
    };
    match worst(checks) {
        Status::Pass => "SOUND: every measurement check passed".into(),
        Status::Warn => format!(
            "USABLE WITH CARE: warnings on {}",
            said(Status::Warn).join(", ")
        ),
        Status::Fail => {
            // Warnings go unnamed beside failures, but not the client's bias.
            let bias: String = checks
                .iter()
                .filter(|c| wire::verdict_note(c).is_some())
                .map(|c| format!("; {}", quoted(c)))
                .collect();
            format!(
                "NOT SOUND: {} failed; do not trust the latency figures of this run{bias}",
                said(Status::Fail).join(", ")
            )
        }
    }
}
