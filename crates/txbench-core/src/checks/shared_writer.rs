//! Whether analytical queries starved the transactions of an engine with
//! one writer: on SQLite a query holds the database while it scans, and
//! the transactions wait behind it (`ch --analytic-streams 1` on
//! `sqlite::memory:` made 232 tpmC against ~170,000 without the stream,
//! with no word in the verdict).

use super::{Check, Status};
use crate::result::Execution;

/// The share of the window the queries may hold before the transactions'
/// figures describe the wait behind them more than the engine.
const HELD_WARN: f64 = 0.5;

/// The check of a run whose analytical `executions` shared an engine of
/// one writer with its transactions, over a window of `measured_secs`.
pub fn shared_writer(executions: &[Execution], measured_secs: f64) -> Check {
    let held = held_secs(executions, measured_secs);
    let share = if measured_secs > 0.0 {
        held / measured_secs
    } else {
        0.0
    };
    let statistic = format!(
        "queries ran {held:.1} s of the {measured_secs:.1} s window ({:.0}%; WARN from {:.0}%) \
         on an engine with one writer",
        share * 100.0,
        HELD_WARN * 100.0
    );
    let (status, detail) = if share >= HELD_WARN {
        (
            Status::Warn,
            "the analytical streams starved the transactions: on an engine of one writer a \
             query holds the database while it runs and the transactions wait behind it, so \
             the transactional figures measure that wait, not the engine under a mixed load \
             (compare with --analytic-streams 0, or run the streams on an engine that \
             serves readers beside writers)"
                .to_string(),
        )
    } else {
        (
            Status::Pass,
            "the queries held the engine's one writer for less than half the window".into(),
        )
    };
    Check {
        name: "shared writer".into(),
        statistic,
        status,
        detail,
    }
}

/// Seconds of `0..measured_secs` during which some execution ran: the union
/// of their spans, clipped to the window.
fn held_secs(executions: &[Execution], measured_secs: f64) -> f64 {
    let mut spans: Vec<(f64, f64)> = executions
        .iter()
        .map(|e| (e.from_s.max(0.0), e.to_s.min(measured_secs)))
        .filter(|(from, to)| to > from)
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut held = 0.0;
    let mut reached = 0.0f64;
    for (from, to) in spans {
        let start = from.max(reached);
        if to > start {
            held += to - start;
        }
        reached = reached.max(to);
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(from_s: f64, to_s: f64) -> Execution {
        Execution {
            stream: 0,
            name: "Q1".into(),
            from_s,
            to_s,
        }
    }

    #[test]
    fn overlapping_queries_hold_the_union_of_their_spans() {
        let held = held_secs(&[ran(-1.0, 2.0), ran(1.0, 3.0), ran(5.0, 12.0)], 10.0);
        assert!((held - 8.0).abs() < 1e-9, "{held}");
    }

    #[test]
    fn queries_that_hold_most_of_the_window_starve_the_transactions() {
        let check = shared_writer(&[ran(0.0, 9.0)], 10.0);
        assert_eq!(check.status, Status::Warn, "{check:?}");
        assert!(check.detail.contains("starved"), "{check:?}");
        assert_eq!(shared_writer(&[ran(0.0, 1.0)], 10.0).status, Status::Pass);
    }
}
