//! The selftest's tables on the terminal.

use txbench_report::terminal::grouped;

use super::cases::{Case, Expect};
use super::{Floor, Outcome, Tally};

/// The header of the one-round table.
pub fn case_header() {
    outln!(
        "{:<22} {:>10} {:>14} {:>14} {:>14}  {:<6} {:<40} verdict",
        "case",
        "offered/s",
        "mean ms",
        "p50 ms",
        "p99 ms",
        "theory",
        "checks failed (warned)"
    );
    outln!(
        "{:<22} {:>10} {:>14} {:>14} {:>14}",
        "",
        "",
        "(theory)",
        "(theory)",
        "(theory)"
    );
}

/// One case's row: measured against theory, the checks, and whether the
/// verdict was right.
pub fn case_row(o: &Outcome) {
    let figure = |measured: f64, i: usize| match o.theory_ms {
        Some(t) => format!("{measured:.2} ({:.2})", t[i]),
        None => format!("{measured:.2}"),
    };
    let theory = match o.within_theory {
        Some(true) => "held",
        Some(false) => "OFF",
        None => "-",
    };
    let mut checks = if o.failed.is_empty() {
        "none".to_string()
    } else {
        o.failed.join(", ")
    };
    if !o.warned.is_empty() {
        checks += &format!(" ({})", o.warned.join(", "));
    }
    outln!(
        "{:<22} {:>10} {:>14} {:>14} {:>14}  {:<6} {:<40} {}",
        o.case,
        o.offered_per_s.map_or("closed".into(), |r| grouped(r, 0)),
        figure(o.latency_ms.mean, 0),
        figure(o.latency_ms.p50, 1),
        figure(o.latency_ms.p99, 2),
        theory,
        checks,
        if o.right {
            "right".to_string()
        } else {
            format!("WRONG: expected {}", o.expected)
        } + &again(o)
    );
}

/// Says that a case was run again because the client machine disturbed it.
fn again(o: &Outcome) -> String {
    match o.disturbed {
        0 => String::new(),
        n => format!(
            " (run again: the client was late in {n} earlier run{})",
            if n == 1 { "" } else { "s" }
        ),
    }
}

/// A line per run while repeating.
pub fn progress(round: u32, rounds: u32, o: &Outcome) {
    crate::output::eprint_line(&format!(
        "round {round}/{rounds} {:<22} {}{}{}",
        o.case,
        if o.right { "right" } else { "WRONG" },
        if o.within_theory == Some(false) {
            ", off theory"
        } else {
            ""
        },
        again(o)
    ));
}

/// The calibration table: per case, how often the verdict raised a false
/// alarm (a healthy server found NOT SOUND) or missed a fault, and how many
/// runs the client machine disturbed (run again, not counted).
pub fn calibration(all: &[Case], tallies: &[Tally]) {
    outln!(
        "{:<22} {:>5} {:>14} {:>14} {:>14} {:>12} {:>24} {:>24} {:>10}",
        "case",
        "runs",
        "false alarms",
        "misses",
        "warned",
        "theory off",
        "covered p50/p90/p95/p99",
        "strictly p50/p90/p95/p99",
        "run again"
    );
    let share = |n: usize, of: usize| format!("{n} ({:.0}%)", n as f64 * 100.0 / of as f64);
    let dash = || "-".to_string();
    let covered = |c: Option<f64>| c.map_or_else(dash, |c| format!("{:.0}%", c * 100.0));
    for (case, t) in all.iter().zip(tallies) {
        let healthy = matches!(case.expect, Expect::Sound);
        let wrong = share(t.wrong, t.runs);
        let (alarms, misses) = if healthy {
            (wrong, dash())
        } else {
            (dash(), wrong)
        };
        outln!(
            "{:<22} {:>5} {:>14} {:>14} {:>14} {:>12} {:>24} {:>24} {:>10}",
            case.name,
            t.runs,
            alarms,
            misses,
            if healthy {
                share(t.warned, t.runs)
            } else {
                dash()
            },
            if case.theory.is_some() {
                share(t.off, t.runs)
            } else {
                dash()
            },
            t.covered.map(covered).join("/"),
            t.covered_strictly.map(covered).join("/"),
            t.disturbed
        );
    }
}

/// The header of the noise-floor table.
pub fn floor_header() {
    outln!();
    outln!("client noise floor (null engine: all it measures is the client's own time)");
    outln!(
        "{:>10} {:>11} {:>9} {:>9} {:>9} {:>9}  sound",
        "rate/s",
        "achieved/s",
        "p50 ms",
        "p99 ms",
        "p99.9 ms",
        "max ms"
    );
}

/// The noise floor at one rate.
pub fn floor_row(f: &Floor) {
    outln!(
        "{:>10} {:>11} {:>9.3} {:>9.3} {:>9.3} {:>9.3}  {}",
        grouped(f.rate_per_s, 0),
        grouped(f.achieved_per_s, 0),
        f.latency_ms.p50,
        f.latency_ms.p99,
        f.latency_ms.p999,
        f.latency_ms.max,
        if f.failed.is_empty() {
            "yes".to_string()
        } else {
            format!("NO: {}", f.failed.join("; "))
        }
    );
}
