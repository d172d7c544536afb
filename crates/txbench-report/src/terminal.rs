//! The terminal summary: headline figures, then one row per transaction type.

use std::fmt::Write as _;

use txbench_core::checks::Status;
use txbench_core::result::{Percentiles, RunResult, TypeResult, is_lower_bound};
use txbench_core::stats::anderson_darling::CRITICAL_1_PERCENT;
use txbench_core::summary::client_share;

pub use crate::millis::grouped;
use crate::millis::ms;

/// A latency figure, marked "≥" when it is only a lower bound.
fn bound(v: f64, lower: bool) -> String {
    if lower {
        format!("≥{}", ms(v))
    } else {
        ms(v)
    }
}

fn row(out: &mut String, t: &TypeResult, w: usize) {
    latency_row(
        out,
        w,
        &t.name,
        t.completed(),
        t.share,
        (&t.latency_ms, t.censored_from_ms),
        [t.expected_rollbacks, t.retries, t.failed()],
    );
}

/// One row of the latency table; `censored_from` marks the figures that are
/// lower bounds; `counts` are rollbacks, retries and errors.
fn latency_row(
    out: &mut String,
    w: usize,
    name: &str,
    completed: u64,
    share: f64,
    (l, censored_from): (&Percentiles, Option<f64>),
    [rollbacks, retries, errors]: [u64; 3],
) {
    let cell = |v: f64| bound(v, is_lower_bound(censored_from, v));
    let _ = writeln!(
        out,
        "{:<w$} {:>10} {:>6.2}% {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>7}",
        name,
        grouped(completed as f64, 0),
        share * 100.0,
        bound(l.mean, censored_from.is_some()),
        cell(l.p25),
        cell(l.p50),
        cell(l.p75),
        cell(l.p90),
        cell(l.p95),
        cell(l.p99),
        cell(l.p999),
        cell(l.max),
        grouped(rollbacks as f64, 0),
        grouped(retries as f64, 0),
        grouped(errors as f64, 0),
    );
}

/// The transactions due in the window that never finished, per type, when
/// there were any: their latency counts at the time they had waited, a lower
/// bound, and the figures it may have changed are marked.
fn unfinished(out: &mut String, r: &RunResult, w: usize) {
    if r.transactions.iter().all(|t| t.given_up() == 0) {
        return;
    }
    let grace = grace_secs(r).map_or(String::new(), |g| {
        format!(
            "; the run waited {:.2} s of its {g} s grace for them",
            r.tail_secs
        )
    });
    let _ = writeln!(
        out,
        "unfinished at end (not done when the window closed{grace}):\n  {:<w$} {:>10} {:>15} {:>10} {:>8} {:>18}",
        "", "unfinished", "done in grace", "given up", "shed", "waited at least ms"
    );
    for t in r.transactions.iter().filter(|t| t.given_up() > 0) {
        let _ = writeln!(
            out,
            "  {:<w$} {:>10} {:>15} {:>10} {:>8} {:>18}",
            t.name,
            grouped(t.unfinished as f64, 0),
            grouped(t.unfinished.saturating_sub(t.abandoned) as f64, 0),
            grouped(t.abandoned as f64, 0),
            grouped(t.shed as f64, 0),
            t.censored_from_ms.map_or("-".into(), ms),
        );
    }
    let _ = writeln!(
        out,
        "  their latency counts in the figures above: measured when done in the grace, else the time\n  \
         they had waited, a lower bound (figures marked ≥ are lower bounds)\n"
    );
}

/// The YCSB workload's name: its summary ends with YCSB's own lines.
const YCSB: &str = "ycsb";

/// The figures as YCSB's own client prints them (`[OVERALL], RunTime(ms),
/// ...`, then per operation its count, latencies in microseconds and
/// return codes), for a YCSB user's scripts and eyes.
fn ycsb_lines(out: &mut String, r: &RunResult) {
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "[OVERALL], RunTime(ms), {:.0}",
        r.measured_secs * 1000.0
    );
    let _ = writeln!(out, "[OVERALL], Throughput(ops/sec), {:.2}", r.throughput());
    for t in &r.transactions {
        let op = t.name.to_uppercase();
        let us = |ms: f64| (ms * 1000.0).round();
        let l = &t.latency_ms;
        let _ = writeln!(out, "[{op}], Operations, {}", t.completed());
        let _ = writeln!(out, "[{op}], AverageLatency(us), {:.2}", l.mean * 1000.0);
        let _ = writeln!(out, "[{op}], MaxLatency(us), {}", us(l.max));
        let _ = writeln!(out, "[{op}], 95thPercentileLatency(us), {}", us(l.p95));
        let _ = writeln!(out, "[{op}], 99thPercentileLatency(us), {}", us(l.p99));
        let _ = writeln!(out, "[{op}], Return=OK, {}", t.completed());
        if t.failed() > 0 {
            let _ = writeln!(out, "[{op}], Return=ERROR, {}", t.failed());
        }
    }
}

/// The width of the transaction name column: the longest name.
fn name_width(r: &RunResult) -> usize {
    r.transactions
        .iter()
        .map(|t| t.name.len())
        .chain(std::iter::once("transaction".len()))
        .max()
        .unwrap_or(13)
}

/// The whole summary as text: a section after another, each saying nothing
/// when the run has nothing for it.
pub fn summary(r: &RunResult) -> String {
    let mut out = String::new();
    let w = name_width(r);
    header(&mut out, r);
    metrics(&mut out, r);
    out.push_str(&crate::alternation::text(r.alternation.as_ref()));
    latency_table(&mut out, r, w);
    if let Some(line) = answer_rows(r) {
        let _ = writeln!(out, "{line}\n");
    }
    out.push_str(&crate::streams::text(r.streams.as_ref()));
    out.push_str(&crate::freshness::text(r.freshness.as_ref()));
    on_the_wire(&mut out, r, w);
    unfinished(&mut out, r, w);
    success_rates(&mut out, r, w);
    contention(&mut out, r, w);
    operations(&mut out, r);
    phases(&mut out, r, w);
    latency_intervals(&mut out, r, w);
    open_loop(&mut out, r);
    scheduler(&mut out, r);
    measurement_checks(&mut out, r);
    parts(&mut out, r);
    faults(&mut out, r);
    cpu_and_errors(&mut out, r);
    if r.workload == YCSB {
        ycsb_lines(&mut out, r);
    }
    out
}

/// The rows of each query's last answer, in a line, for a run whose types
/// answer with rows (the CH-benCHmark's queries); `None` for the others.
pub fn answer_rows(r: &RunResult) -> Option<String> {
    let answered: Vec<String> = (r.transactions.iter())
        .filter_map(|t| {
            t.answer_rows
                .map(|n| format!("{} {}", t.name, grouped(n as f64, 0)))
        })
        .collect();
    (!answered.is_empty())
        .then(|| format!("rows of each one's last answer: {}", answered.join(", ")))
}

/// A merge's runs side by side, and the slowest of them.
fn parts(out: &mut String, r: &RunResult) {
    if r.parts.len() < 2 {
        return;
    }
    let rows = crate::parts::rows(&r.parts);
    let heads = crate::parts::HEADS;
    let widths: Vec<usize> = (0..heads.len())
        .map(|c| {
            rows.iter()
                .map(|row| row[c].chars().count())
                .fold(heads[c].len(), usize::max)
        })
        .collect();
    let line = |cells: &[&str]| {
        let mut l = String::from(" ");
        for (c, cell) in cells.iter().enumerate() {
            match c {
                // The run's name and its verdict read from the left.
                0 | 7 => l += &format!(" {cell:<w$}", w = widths[c]),
                _ => l += &format!(" {cell:>w$}", w = widths[c]),
            }
        }
        l.trim_end().to_string()
    };
    let _ = writeln!(out, "the merged runs, each by its own figures:");
    let _ = writeln!(out, "{}", line(&heads));
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        let _ = writeln!(out, "{}", line(&cells));
    }
    if let Some(p) = crate::parts::slowest(&r.parts) {
        let _ = writeln!(
            out,
            "  slowest: {} (the highest p99)",
            crate::parts::name(p)
        );
    }
}

/// Error counts by kind, "connection 4, other 1" ("none" when there are none).
pub fn error_counts(errors: &std::collections::BTreeMap<String, u64>) -> String {
    if errors.is_empty() {
        return "none".into();
    }
    let parts: Vec<String> = errors.iter().map(|(k, n)| format!("{k} {n}")).collect();
    parts.join(", ")
}

/// Each scheduled command, and what each fault cost the run.
fn faults(out: &mut String, r: &RunResult) {
    if r.faults.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "faults (times from the run's start, costs from the fault):"
    );
    let secs = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3} s"));
    for (n, f) in r.faults.iter().enumerate() {
        let exit = f
            .exit_code
            .map_or("killed".to_string(), |c| format!("exit {c}"));
        let _ = writeln!(
            out,
            "  {} {} at {:.3} s: {} ({exit}, {:.2} s)",
            f.kind.name(),
            n + 1,
            f.started_s,
            f.command,
            f.took_s
        );
        let Some(i) = &f.impact else { continue };
        let outage = match (i.unavailable_s, i.first_answer_s) {
            (Some(u), Some(_)) => format!(
                "unavailable {u:.3} s (last answer {}, first after {})",
                secs(i.last_answer_s),
                secs(i.first_answer_s)
            ),
            (u, None) if i.last_answer_s.is_some() => format!(
                "unavailable to the run's end{} (no answer after the last, {})",
                u.map_or(String::new(), |u| format!(", {u:.3} s")),
                secs(i.last_answer_s)
            ),
            _ => "no outage (no silence over 50 ms)".into(),
        };
        let recovered = match (i.baseline_per_s, i.recovered_90_s) {
            (Some(b), Some(t)) => format!("90% of {} txn/s again after {t:.1} s", grouped(b, 0)),
            (Some(b), None) => format!("never back to 90% of {} txn/s", grouped(b, 0)),
            (None, _) => "no baseline second before it".into(),
        };
        let _ = writeln!(
            out,
            "    {outage}; {recovered}; errors {}; {} sessions re-established",
            error_counts(&i.errors),
            i.reconnections
        );
    }
}

/// The workload, target and length, and the settings that shape the figures.
fn header(out: &mut String, r: &RunResult) {
    let _ = writeln!(
        out,
        "{} on {} ({}), {:.1} s measured{}",
        r.title(),
        r.target,
        r.engine,
        r.measured_secs,
        if r.interrupted { ", interrupted" } else { "" }
    );
    let settings = headline_settings(r);
    if !settings.is_empty() {
        let _ = writeln!(out, "  {}", settings.join(", "));
    }
    if let Some(line) = shared_sessions(r).or_else(|| client_late(r)) {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(out);
}

/// The client lateness check, where it did not pass.
fn late_client(r: &RunResult) -> Option<&txbench_core::check::Check> {
    (r.checks.iter()).find(|c| c.name == "client lateness" && c.status != Status::Pass)
}

/// When the client sent late, that it did: its delay is inside every
/// latency counted from the intended start.
pub fn client_late(r: &RunResult) -> Option<String> {
    let check = late_client(r)?;
    Some(format!(
        "the client sent late (client lateness {}): part of the latency is the client's own \
         delay, not the database's; {}",
        if check.status == Status::Fail {
            "FAIL"
        } else {
            "WARN"
        },
        check.detail
    ))
}

/// The share of the latency spent queueing for a session from which the
/// summary's head says so.
const SHARED_MATERIAL: f64 = 0.10;

/// When terminals outnumber the sessions they share, how much of the
/// latency they spent waiting in txbench for one: with one SQLite
/// connection for ten terminals, most of a transaction's latency is its
/// turn, not the database's work.
pub fn shared_sessions(r: &RunResult) -> Option<String> {
    let s = r.settings.as_ref()?;
    if s.connections >= s.terminals {
        return None;
    }
    // A late client's delay counts from the intended start too: the wait is
    // then the client's lateness, which its own check names, not sessions
    // shared.
    if late_client(r).is_some() {
        return None;
    }
    let measured = r.transactions.iter().filter(|t| t.latency_ms.samples > 0);
    let (queued, total) = measured.fold((0.0, 0.0), |(q, l), t| {
        let n = t.latency_ms.samples as f64;
        (q + n * t.phases_ms.queue, l + n * t.latency_ms.mean)
    });
    // Under a tenth of the latency, the queue is not what the figures show.
    if total <= 0.0 || queued / total < SHARED_MATERIAL {
        return None;
    }
    let why = if r.engine == "sqlite" {
        " (SQLite writes through one connection at a time)"
    } else {
        ""
    };
    Some(format!(
        "{} terminals share {} {}{why}: {:.0}% of their latency was queueing in txbench for \
         one; the latency of the database alone is in 'where the time went'",
        s.terminals,
        s.connections,
        if s.connections == 1 {
            "connection"
        } else {
            "connections"
        },
        100.0 * (queued / total).min(1.0)
    ))
}

/// The settings a reader wants first: the scale, terminals, sessions, waits
/// and seed ("warehouses 4, terminals 40, ...").
fn headline_settings(r: &RunResult) -> Vec<String> {
    let Some(s) = &r.settings else {
        // A file older than typed settings keeps them among the parameters.
        return ["warehouses", "terminals", "connections", "wait", "seed"]
            .iter()
            .filter_map(|k| r.parameters.get(*k).map(|v| format!("{k} {v}")))
            .collect();
    };
    let mut out = vec![
        format!("{} {}", s.scale.unit, s.scale.value),
        format!("terminals {}", s.terminals),
        format!("connections {}", s.connections),
        format!("wait {}", s.wait_name()),
        format!("seed {}", s.seed),
    ];
    if let Some(n) = s.transactions {
        // The window was the time these took, not a set length.
        out.push(format!("until {} transactions", grouped(n as f64, 0)));
    }
    if s.round_trips != txbench_core::RoundTrips::Pipelined {
        // Said where it is not the default: the numbers are not comparable.
        out.push(format!("round trips {}", s.round_trips.name()));
    }
    if s.timestamps != txbench_core::Timestamps::Client {
        out.push(format!("timestamps {}", s.timestamps.name()));
    }
    // The workload's own options as asked (Retwis's zipf, TATP's key_access);
    // one not given is its default, recorded as nothing.
    for (name, value) in &s.options {
        match value {
            serde_json::Value::Null => {}
            serde_json::Value::String(v) => out.push(format!("{name} {v}")),
            v => out.push(format!("{name} {v}")),
        }
    }
    out
}

/// The grace the run had for what was unfinished when its window closed, as
/// it recorded it.
fn grace_secs(r: &RunResult) -> Option<String> {
    match &r.settings {
        Some(s) => Some(s.grace_secs.to_string()),
        None => r.parameters.get("grace_secs").cloned(),
    }
}

/// The headline figures, throughput with its interval.
fn metrics(out: &mut String, r: &RunResult) {
    for m in &r.metrics {
        let decimals = if m.unit.starts_with('%') || m.value < 100.0 {
            2
        } else {
            0
        };
        let interval = match m.interval {
            Some([low, high]) => format!(
                "  (95% interval {}..{})",
                grouped(low, decimals),
                grouped(high, decimals)
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  {:<12} {:>14} {}{interval}",
            m.name,
            grouped(m.value, decimals),
            m.unit
        );
        if m.name == "efficiency" && m.value > 100.0 {
            let _ = writeln!(out, "  {}", over_efficient(r.measured_secs));
        }
    }
    let _ = writeln!(out);
}

/// TPC-C's mean keying-and-think cycle, over the mix (clause 5.2.5.7): 45%
/// New-Order at 18 + 12 s, 43% Payment at 3 + 12 s, 4% each Order-Status
/// at 2 + 10 s, Delivery and Stock-Level at 2 + 5 s.
const SPEC_CYCLE_SECS: f64 = 21.0;

/// Why an efficiency over 100% is not one: terminals at the specification's
/// pace cannot do it, so the window caught their cycles bunched.
fn over_efficient(measured_secs: f64) -> String {
    let why = if measured_secs < 10.0 * SPEC_CYCLE_SECS {
        format!(
            "the {measured_secs:.0} s window is too short against a keying-and-think cycle of \
             about {SPEC_CYCLE_SECS:.0} s, and caught the terminals' cycles bunched"
        )
    } else {
        "the terminals did not keep the specification's pace".to_string()
    };
    format!(
        "(over 100%: more New-Orders than the terminals can make at the specification's waits; \
         {why}: measure 10 minutes or more)"
    )
}

/// Per type: count, share, latency percentiles, rollbacks, retries, errors; and all types together.
fn latency_table(out: &mut String, r: &RunResult, w: usize) {
    let _ = writeln!(
        out,
        "{:<w$} {:>10} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>7}",
        if r.workload == YCSB {
            "operation"
        } else {
            "transaction"
        },
        "count",
        "share",
        "mean ms",
        "p25",
        "p50",
        "p75",
        "p90",
        "p95",
        "p99",
        "p99.9",
        "max",
        "rollbacks",
        "retries",
        "errors"
    );
    for t in r.transactions.iter().filter(|t| t.shown()) {
        row(out, t, w);
    }
    if let Some(total) = r
        .total_latency_ms
        .as_ref()
        .filter(|_| r.transactions.len() > 1)
    {
        let sum = |f: fn(&TypeResult) -> u64| r.transactions.iter().map(f).sum::<u64>();
        latency_row(
            out,
            w,
            "all",
            sum(TypeResult::completed),
            1.0,
            (total, r.total_censored_from_ms),
            [
                sum(|t| t.expected_rollbacks),
                sum(|t| t.retries),
                sum(TypeResult::failed),
            ],
        );
    }
    let _ = writeln!(out);
}

/// The time on the wire from the kernel's timestamps next to the latency the
/// client measured, per type and for all, with the difference: the client's
/// own share.
fn on_the_wire(out: &mut String, r: &RunResult, w: usize) {
    let Some(wire) = &r.wire else { return };
    let _ = writeln!(
        out,
        "on the wire (kernel {} timestamps; {} of {} transactions stamped{}), against the latency measured:\n  \
         {:<w$} {:>9} {:>9} {:>15} {:>9} {:>9} {:>15}",
        wire.clock,
        grouped(wire.stamped as f64, 0),
        grouped((wire.stamped + wire.unstamped) as f64, 0),
        round_trips_each(wire),
        "",
        "p50 ms",
        "wire",
        "client's share",
        "p99 ms",
        "wire",
        "client's share",
    );
    let line = |out: &mut String, name: &str, l: &Percentiles, on: &Percentiles| {
        let share = |app: f64, on: f64| {
            let (client, share) = client_share(app, on);
            format!("{} ({:.0}%)", ms(client), 100.0 * share)
        };
        let _ = writeln!(
            out,
            "  {name:<w$} {:>9} {:>9} {:>15} {:>9} {:>9} {:>15}",
            ms(l.p50),
            ms(on.p50),
            share(l.p50, on.p50),
            ms(l.p99),
            ms(on.p99),
            share(l.p99, on.p99),
        );
    };
    for t in &r.transactions {
        if let Some(on) = &t.wire_ms {
            line(out, &t.name, &t.latency_ms, on);
        }
    }
    if let Some(total) = r
        .total_latency_ms
        .as_ref()
        .filter(|_| r.transactions.len() > 1)
    {
        line(out, "all", total, &wire.total_wire_ms);
    }
    let _ = writeln!(out);
}

/// ", 2.40 round trips each" where the run counted its round trips on the
/// wire (results written before were not).
pub fn round_trips_each(wire: &txbench_core::result::WireResult) -> String {
    if wire.round_trips_per_transaction > 0.0 {
        format!(", {:.2} round trips each", wire.round_trips_per_transaction)
    } else {
        String::new()
    }
}

/// The observed share of commits against the workload's expected one, per type.
fn success_rates(out: &mut String, r: &RunResult, w: usize) {
    if r.transactions.iter().any(|t| t.expected_success.is_some()) {
        let _ = writeln!(out, "success rate, observed (expected):");
        for t in &r.transactions {
            if let (Some(expected), Some(seen)) = (t.expected_success_text(), t.success_rate()) {
                let _ = writeln!(out, "  {:<w$} {:>7.2}% ({expected})", t.name, seen * 100.0);
            }
        }
        let _ = writeln!(out);
    }
}

/// Where each type's time went: queueing, begin, statements, commit, other.
fn phases(out: &mut String, r: &RunResult, w: usize) {
    if r.transactions.iter().any(|t| t.latency_ms.samples > 0) {
        if r.engine == "txbench" {
            let _ = writeln!(
                out,
                "a txbench server ran the transactions: \"statements\" is its own execution time, \
                 \"other\" the network and its queue"
            );
        }
        let _ = writeln!(
            out,
            "where the time went (mean ms per transaction):\n  {:<w$} {:>9} {:>9} {:>11} {:>9} {:>9}",
            "", "queueing", "begin", "statements", "commit", "other"
        );
        for t in r.transactions.iter().filter(|t| t.latency_ms.samples > 0) {
            let p = &t.phases_ms;
            let _ = writeln!(
                out,
                "  {:<w$} {:>9} {:>9} {:>11} {:>9} {:>9}",
                t.name,
                ms(p.queue),
                ms(p.begin),
                ms(p.statements),
                ms(p.commit),
                ms(p.other)
            );
        }
        let _ = writeln!(out);
    }
}

/// The percentiles' 95% intervals, per type and for all types.
fn latency_intervals(out: &mut String, r: &RunResult, w: usize) {
    if r.transactions
        .iter()
        .any(|t| !t.latency_intervals_ms.is_empty())
    {
        let _ = writeln!(out, "95% confidence intervals of latency (ms):");
        let rows = r
            .transactions
            .iter()
            .filter(|t| t.shown())
            .map(|t| (t.name.as_str(), &t.latency_intervals_ms))
            .chain([("all types", &r.total_latency_intervals_ms)]);
        for (name, intervals) in rows {
            let cells: Vec<String> = intervals
                .iter()
                .filter(|i| i.percentile >= 50.0 && i.percentile <= 99.9)
                .map(|i| match (i.low, i.high) {
                    (Some(lo), Some(hi)) => format!("p{} [{}, {}]", i.percentile, ms(lo), ms(hi)),
                    _ => format!("p{} insufficient samples", i.percentile),
                })
                .collect();
            if !cells.is_empty() {
                let _ = writeln!(out, "  {:<w$} {}", name, cells.join("  "));
            }
        }
        let _ = writeln!(out);
    }
}

/// The open loop's offer, achievement, shedding and the dispatcher's lateness.
fn open_loop(out: &mut String, r: &RunResult) {
    if let Some(o) = &r.open_loop {
        let _ = writeln!(
            out,
            "open loop ({}): offered {}/s, achieved {}/s ({:.1}%), shed {}, dispatcher lateness p50 {:.0} us p99 {:.0} us max {:.0} us",
            o.arrival,
            grouped(o.offered_rate, 0),
            grouped(o.achieved_rate, 0),
            o.achieved_ratio * 100.0,
            o.shed,
            o.lateness_us.p50,
            o.lateness_us.p99,
            o.lateness_us.max,
        );
        if let Some(schedule) = &o.schedule {
            let _ = writeln!(
                out,
                "  rate schedule: {schedule} (offered is its mean over the window; timeline.csv has it per second)"
            );
        }
        if let Some(ad) = o.send_gaps_anderson_darling {
            let _ = writeln!(
                out,
                "  send gaps vs exponential (sends thinned at random to {}/s): Anderson-Darling A2* = {ad:.3} ({} at 1%, critical {})",
                grouped(o.send_gaps_thinned_to, 0),
                if ad > CRITICAL_1_PERCENT {
                    "rejected"
                } else {
                    "not rejected"
                },
                CRITICAL_1_PERCENT
            );
        }
        let queue: Vec<String> = r
            .transactions
            .iter()
            .filter(|t| t.shown())
            .map(|t| format!("{} {}", t.name, ms(t.queue_ms.p99)))
            .collect();
        let _ = writeln!(out, "  client queueing p99 ms: {}", queue.join(", "));
        let _ = writeln!(out);
    }
}

/// The closed-loop scheduler's terminals and lateness.
fn scheduler(out: &mut String, r: &RunResult) {
    if let Some(s) = &r.scheduler {
        let _ = writeln!(
            out,
            "closed loop: {} terminals, scheduler lateness p50 {:.0} us p99 {:.0} us max {:.0} us ({} sends in the window)",
            grouped(s.terminals as f64, 0),
            s.lateness_us.p50,
            s.lateness_us.p99,
            s.lateness_us.max,
            grouped(s.scheduled as f64, 0)
        );
        let _ = writeln!(out);
    }
}

/// Every check of the measurement and the verdict.
fn measurement_checks(out: &mut String, r: &RunResult) {
    if !r.checks.is_empty() {
        let _ = writeln!(out, "measurement checks:");
        for c in &r.checks {
            let status = match c.status {
                Status::Pass => "PASS",
                Status::Warn => "WARN",
                Status::Fail => "FAIL",
            };
            let _ = writeln!(
                out,
                "  {status}  {:<18} {}  ({})",
                c.name, c.statistic, c.detail
            );
        }
        let _ = writeln!(out, "verdict: {}", r.verdict);
        let _ = writeln!(out);
    }
}

/// The client's CPU and the errors seen.
fn cpu_and_errors(out: &mut String, r: &RunResult) {
    let cpu = &r.cpu;
    match (cpu.engine_thread_secs, cpu.driver_share) {
        (Some(engine), Some(share)) => {
            let _ = writeln!(
                out,
                "CPU: {:.1} s in all, {:.1} s executing transactions in the embedded engine; outside them {:.1}%",
                cpu.process_secs,
                engine,
                share * 100.0
            );
        }
        _ => {
            let _ = writeln!(out, "CPU: {:.1} s (txbench process)", cpu.process_secs);
        }
    }
    if !r.error_samples.is_empty() {
        let _ = writeln!(out, "errors seen:");
        for e in &r.error_samples {
            let _ = writeln!(out, "  [{}] {}", e.kind, e.message);
        }
    }
}

/// Aborts per type, when any attempt aborted in a conflict: committed
/// transactions per second, the share of attempts that aborted, and retries
/// per committed transaction.
fn contention(out: &mut String, r: &RunResult, w: usize) {
    if r.transactions.iter().all(|t| t.aborts() == 0) {
        return;
    }
    let secs = r.measured_secs.max(1e-9);
    let _ = writeln!(
        out,
        "conflicts:\n  {:<w$} {:>13} {:>9} {:>9} {:>17}",
        "", "committed/s", "attempts", "aborted", "retries/committed"
    );
    let line =
        |out: &mut String, name: &str, committed: u64, attempts: u64, aborts: u64, retries: u64| {
            let _ = writeln!(
                out,
                "  {:<w$} {:>13} {:>9} {:>8.2}% {:>17.3}",
                name,
                grouped(committed as f64 / secs, 1),
                grouped(attempts as f64, 0),
                if attempts > 0 {
                    aborts as f64 / attempts as f64 * 100.0
                } else {
                    0.0
                },
                if committed > 0 {
                    retries as f64 / committed as f64
                } else {
                    0.0
                },
            );
        };
    for t in &r.transactions {
        line(
            out,
            &t.name,
            t.committed,
            t.attempts(),
            t.aborts(),
            t.retries,
        );
    }
    let sum = |f: fn(&TypeResult) -> u64| r.transactions.iter().map(f).sum::<u64>();
    line(
        out,
        "all",
        sum(|t| t.committed),
        sum(TypeResult::attempts),
        sum(TypeResult::aborts),
        sum(|t| t.retries),
    );
    retry_causes(out, r, w);
    let _ = writeln!(out);
}

/// What the retried attempts ended in, per type ("New-Order  SQLSTATE 40001
/// ×12"), most frequent first.
fn retry_causes(out: &mut String, r: &RunResult, w: usize) {
    if r.transactions.iter().all(|t| t.retry_causes.is_empty()) {
        return;
    }
    let _ = writeln!(out, "  retried after:");
    for t in r.transactions.iter().filter(|t| !t.retry_causes.is_empty()) {
        let mut causes: Vec<(&String, &u64)> = t.retry_causes.iter().collect();
        causes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let causes: Vec<String> = causes
            .iter()
            .map(|(cause, n)| format!("{cause} ×{}", grouped(**n as f64, 0)))
            .collect();
        let _ = writeln!(out, "  {:<w$} {}", t.name, causes.join(", "));
    }
}

/// The latency of the operations the workload times on their own.
fn operations(out: &mut String, r: &RunResult) {
    if r.operations.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "operations (every attempt):\n  {:<10} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "", "count", "mean ms", "p50", "p90", "p99", "p99.9", "max"
    );
    for o in &r.operations {
        let l = &o.latency_ms;
        let _ = writeln!(
            out,
            "  {:<10} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
            o.name,
            grouped(l.samples as f64, 0),
            ms(l.mean),
            ms(l.p50),
            ms(l.p90),
            ms(l.p99),
            ms(l.p999),
            ms(l.max)
        );
    }
    let _ = writeln!(out);
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn an_efficiency_over_100_percent_says_why_it_is_not_one() {
        let short = super::over_efficient(10.0);
        assert!(short.contains("the 10 s window is too short"), "{short}");
        let long = super::over_efficient(3600.0);
        assert!(
            long.contains("did not keep the specification's pace"),
            "{long}"
        );
    }

    /// A run of 10 terminals on `connections` sessions whose transactions
    /// took 10 ms each, `queue_ms` of it waiting for a session.
    fn queued_run(connections: usize, queue_ms: f64) -> RunResult {
        let mut r = crate::fixtures::summary(1, 0.0);
        r.settings.as_mut().expect("settings").connections = connections;
        for t in &mut r.transactions {
            t.latency_ms.samples = 1000;
            t.latency_ms.mean = 10.0;
            t.phases_ms.queue = queue_ms;
        }
        r
    }

    #[test]
    fn the_answers_line_names_each_type_that_kept_its_rows() {
        let mut r = crate::fixtures::summary(1, 0.0);
        assert_eq!(answer_rows(&r), None);
        r.transactions[1].answer_rows = Some(1_500);
        assert_eq!(
            answer_rows(&r).as_deref(),
            Some("rows of each one's last answer: B 1,500")
        );
        assert!(summary(&r).contains("rows of each one's last answer: B 1,500\n"));
    }

    #[test]
    fn the_shared_session_line_names_queueing_where_it_is_the_latency() {
        let line = shared_sessions(&queued_run(1, 8.0)).expect("a line");
        assert!(
            line.starts_with("10 terminals share 1 connection"),
            "{line}"
        );
        assert!(line.contains("80% of their latency was queueing"), "{line}");
    }

    #[test]
    fn no_shared_session_line_without_sharing_or_material_queueing() {
        assert_eq!(shared_sessions(&queued_run(10, 8.0)), None, "no sharing");
        assert_eq!(shared_sessions(&queued_run(1, 0.5)), None, "5% queueing");
    }

    #[test]
    fn a_late_client_is_named_instead_of_shared_sessions() {
        let mut r = queued_run(1, 8.0);
        r.checks.push(txbench_core::check::Check {
            name: "client lateness".into(),
            statistic: "p99 40 ms late".into(),
            status: Status::Warn,
            detail: "the client sent late".into(),
        });
        assert_eq!(shared_sessions(&r), None);
        let line = client_late(&r).expect("lateness named");
        assert!(
            line.starts_with("the client sent late (client lateness WARN)"),
            "{line}"
        );
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(grouped(1234567.891, 2), "1,234,567.89");
        assert_eq!(grouped(999.0, 0), "999");
        assert_eq!(grouped(1000.0, 0), "1,000");
        assert_eq!(grouped(-12345.0, 0), "-12,345");
        assert_eq!(grouped(0.5, 2), "0.50");
    }
}
