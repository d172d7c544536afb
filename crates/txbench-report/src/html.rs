//! `report.html`: one self-contained page (inline CSS and SVG, no script, nothing
//! fetched) with a run's figures, plots, checks and verdict, or a sweep's.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use txbench_core::checks::Status;
use txbench_core::result::{Percentiles, RunResult, SweepResult, VariantSweeps, is_lower_bound};
use txbench_core::summary::client_share;

use crate::figures::TimelineFigures;
use crate::hlog::IntervalLog;
pub use crate::markup::escape;
use crate::millis::{grouped, ms};
use crate::plots::{self, Series};

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;margin:.5em 0;display:block;overflow-x:auto;max-width:100%}td,th{padding:.25em .6em;border-bottom:1px solid #e4e4e4;text-align:right}\
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}\
.PASS{color:#0a6e31;font-weight:600}.WARN{color:#a66300;font-weight:600}.FAIL{color:#b00020;font-weight:600}\
.verdict{padding:.6em 1em;border-radius:4px;font-weight:600}.v-PASS{background:#e3f4e8}.v-WARN{background:#fff3dc}.v-FAIL{background:#fde4e7}\
.muted{color:#666}.chart{margin:1em 0}.chart svg{width:100%;height:auto}.legend{display:flex;flex-wrap:wrap;gap:.4em 1.2em;margin:.2em 0 1.5em;font-size:.9em}.key{display:inline-flex;align-items:center;gap:.4em}.swatch{display:inline-block;width:1.6em;height:.25em}.errors td{text-align:left;font-family:ui-monospace,monospace;font-size:.85em}";

pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n{body}\n</body></html>\n",
        escape(title)
    )
}

fn worst_status(r: &RunResult) -> Status {
    r.checks
        .iter()
        .map(|c| c.status)
        .max()
        .unwrap_or(Status::Pass)
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Pass => "PASS",
        Status::Warn => "WARN",
        Status::Fail => "FAIL",
    }
}

/// Cells of the percentiles (and the mean, with `mean`); a figure at or above
/// `censored_from` (ms), the least lower bound of the unfinished ones, is
/// itself a lower bound and marked "≥".
fn percentile_cells(p: &Percentiles, mean: bool, censored_from: Option<f64>) -> String {
    let lower = |v: f64| is_lower_bound(censored_from, v);
    let cell = |v: f64, lower: bool| format!("<td>{}{}</td>", if lower { "≥" } else { "" }, ms(v));
    let mut cells = String::new();
    if mean {
        cells += &cell(p.mean, censored_from.is_some());
    }
    for v in [p.p25, p.p50, p.p75, p.p90, p.p95, p.p99, p.p999, p.max] {
        cells += &cell(v, lower(v));
    }
    cells
}

/// The report of one run; `log` is its interval log when there is one (the plots
/// come from it).
pub fn run_report(r: &RunResult, log: Option<&IntervalLog>, figures: &TimelineFigures) -> String {
    let mut b = String::new();
    let title = format!("{} on {}", r.title(), r.target);
    heading(&mut b, r, &title);
    headline(&mut b, r);
    b.push_str(&crate::alternation::html(r.alternation.as_ref()));
    transactions(&mut b, r);
    b.push_str(&crate::freshness::html(r.freshness.as_ref()));
    b.push_str(&crate::streams::html(r.streams.as_ref()));
    latency_boxes(&mut b, r);
    conflicts(&mut b, r);
    operations(&mut b, r);
    time_spent(&mut b, r);
    on_the_wire(&mut b, r);
    if let Some(log) = log {
        charts(&mut b, r, log, figures);
    }
    errors_seen(&mut b, r);
    confidence_intervals(&mut b, r);
    parts(&mut b, r);
    faults(&mut b, r);
    open_loop(&mut b, r);
    measurement_checks(&mut b, r);
    configuration(&mut b, r);
    page(&title, &b)
}

/// A merge's runs side by side, and the slowest of them.
fn parts(b: &mut String, r: &RunResult) {
    if r.parts.len() < 2 {
        return;
    }
    let _ = writeln!(b, "<h2>The merged runs</h2><table><tr>");
    for head in crate::parts::HEADS {
        let _ = write!(b, "<th>{head}</th>");
    }
    let _ = writeln!(b, "</tr>");
    for row in crate::parts::rows(&r.parts) {
        let cells: String = row
            .iter()
            .map(|c| format!("<td>{}</td>", escape(c)))
            .collect();
        let _ = writeln!(b, "<tr>{cells}</tr>");
    }
    let _ = writeln!(b, "</table>");
    if let Some(p) = crate::parts::slowest(&r.parts) {
        let _ = writeln!(
            b,
            "<p>The slowest: {} (the highest p99).</p>",
            escape(&crate::parts::name(p))
        );
    }
}

/// The title, when and how long the run was, and the verdict.
fn heading(b: &mut String, r: &RunResult, title: &str) {
    let _ = writeln!(b, "<h1>{}</h1>", escape(title));
    let _ = writeln!(
        b,
        "<p class=\"muted\">started {} &middot; {:.1} s measured{} &middot; txbench {} &middot; server: {}</p>",
        escape(&r.started_at),
        r.measured_secs,
        if r.interrupted { " (interrupted)" } else { "" },
        escape(&r.txbench_version),
        escape(&r.server_version)
    );
    if !r.verdict.is_empty() {
        let s = status_name(worst_status(r));
        let _ = writeln!(b, "<p class=\"verdict v-{s}\">{}</p>", escape(&r.verdict));
    } // The files beside the page (docs/results.md), for the numbers behind it.
    let files = [
        crate::results::SUMMARY_FILE,
        crate::results::TIMELINE_FILE,
        crate::results::HLOG_FILE,
        crate::results::CONFIG_FILE,
    ];
    let links: Vec<String> = files
        .iter()
        .map(|f| format!("<a href=\"{f}\">{f}</a>"))
        .collect();
    let _ = writeln!(
        b,
        "<p class=\"muted\">beside this page: {}</p>",
        links.join(" &middot; ")
    );
}

/// The headline figures.
fn headline(b: &mut String, r: &RunResult) {
    let _ = writeln!(b, "<h2>Headline</h2><table>");
    for m in &r.metrics {
        let _ = writeln!(
            b,
            "<tr><td>{}</td><td>{} {}</td></tr>",
            escape(&m.name),
            grouped(m.value, if m.value.abs() >= 100.0 { 0 } else { 2 }),
            escape(&m.unit)
        );
    }
    if r.metric("throughput").is_none() {
        let _ = writeln!(
            b,
            "<tr><td>throughput</td><td>{} txn/s</td></tr>",
            grouped(r.throughput(), 0)
        );
    }
    let _ = writeln!(b, "</table>");
}

/// Per type: what became of its transactions (counts, shares, rollbacks,
/// success, retries, errors, unfinished), then its latency percentiles: two
/// tables narrow enough for a laptop's screen, the outcomes first.
fn transactions(b: &mut String, r: &RunResult) {
    let _ = writeln!(
        b,
        "<h2>Transactions</h2><table><tr><th>type</th><th>completed</th><th>share</th><th>spec share</th>\
         <th>rollbacks</th><th>success (expected)</th><th>retries</th><th>errors</th><th>unfinished</th></tr>"
    );
    let all = r.transactions.len() > 1;
    for t in r.transactions.iter().filter(|t| t.shown()) {
        let success = match (t.success_rate(), t.expected_success_text()) {
            (Some(seen), Some(expected)) => format!("{:.2}% ({expected})", seen * 100.0),
            // The workload declares no expectation: none is shown.
            (Some(seen), None) => format!("{:.2}% (-)", seen * 100.0),
            (None, _) => String::new(),
        };
        let _ = writeln!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{:.2}%</td><td>{:.2}%</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&t.name),
            grouped(t.completed() as f64, 0),
            t.share * 100.0,
            t.spec_share * 100.0,
            grouped(t.expected_rollbacks as f64, 0),
            success,
            grouped(t.retries as f64, 0),
            grouped(t.failed() as f64, 0),
            grouped(t.given_up() as f64, 0)
        );
    }
    if all {
        let sum = |f: fn(&txbench_core::result::TypeResult) -> u64| {
            grouped(r.transactions.iter().map(f).sum::<u64>() as f64, 0)
        };
        let _ = writeln!(
            b,
            "<tr><td>all</td><td>{}</td><td>100%</td><td></td><td>{}</td><td></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            sum(|t| t.completed()),
            sum(|t| t.expected_rollbacks),
            sum(|t| t.retries),
            sum(|t| t.failed()),
            sum(|t| t.given_up())
        );
    }
    let _ = writeln!(b, "</table>");
    if let Some(line) = crate::terminal::answer_rows(r) {
        let _ = writeln!(b, "<p class=\"muted\">{}</p>", escape(&line));
    }
    let _ = writeln!(
        b,
        "<h2>Latency</h2><table><tr><th>type</th><th>mean ms</th><th>p25</th><th>p50</th><th>p75</th>\
         <th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th></tr>"
    );
    for t in r.transactions.iter().filter(|t| t.shown()) {
        let _ = writeln!(
            b,
            "<tr><td>{}</td>{}</tr>",
            escape(&t.name),
            percentile_cells(&t.latency_ms, true, t.censored_from_ms)
        );
    }
    if let Some(total) = r.total_latency_ms.as_ref().filter(|_| all) {
        let _ = writeln!(
            b,
            "<tr><td>all</td>{}</tr>",
            percentile_cells(total, true, r.total_censored_from_ms)
        );
    }
    let _ = writeln!(b, "</table>");
}

/// Each type's latency as a box, side by side.
fn latency_boxes(b: &mut String, r: &RunResult) {
    let boxes: Vec<plots::LatencyBox> = r
        .transactions
        .iter()
        .filter(|t| t.latency_ms.samples > 0)
        .map(|t| {
            let l = &t.latency_ms;
            plots::LatencyBox {
                name: t.name.clone(),
                figures: [l.min, l.p25, l.p50, l.p75, l.p99, l.max],
            }
        })
        .collect();
    if !boxes.is_empty() {
        let _ = writeln!(
            b,
            "<div class=\"chart\">{}</div>",
            plots::latency_boxes(&boxes)
        );
    }
}

/// Aborted attempts per type, when any attempt aborted.
fn conflicts(b: &mut String, r: &RunResult) {
    if r.transactions.iter().any(|t| t.aborts() > 0) {
        let _ = writeln!(
            b,
            "<h2>Conflicts</h2><p class=\"muted\">Attempts that ended in a conflict \
             (serialization failure, deadlock, busy database, or an optimistic transaction whose reads changed) \
             and were retried, or failed when out of retries.</p>\
             <table><tr><th>type</th><th>committed/s</th><th>attempts</th><th>aborted</th><th>retries per committed</th>\
             <th>retried after</th></tr>"
        );
        let secs = r.measured_secs.max(1e-9);
        for t in &r.transactions {
            let causes: Vec<String> = t
                .retry_causes
                .iter()
                .map(|(cause, n)| format!("{} ×{}", escape(cause), grouped(*n as f64, 0)))
                .collect();
            let _ = writeln!(
                b,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}%</td><td>{:.3}</td><td>{}</td></tr>",
                escape(&t.name),
                grouped(t.committed as f64 / secs, 1),
                grouped(t.attempts() as f64, 0),
                t.abort_rate().unwrap_or(0.0) * 100.0,
                if t.committed > 0 {
                    t.retries as f64 / t.committed as f64
                } else {
                    0.0
                },
                causes.join(", ")
            );
        }
        let _ = writeln!(b, "</table>");
    }
}

/// The latency of single operations, when the workload times any.
fn operations(b: &mut String, r: &RunResult) {
    if !r.operations.is_empty() {
        let _ = writeln!(
            b,
            "<h2>Operations</h2><p class=\"muted\">The time of single operations inside the measured transactions, \
             every attempt counted.</p><table><tr><th>operation</th><th>count</th><th>mean ms</th>\
             <th>p25</th><th>p50</th><th>p75</th><th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th></tr>"
        );
        for o in &r.operations {
            let _ = writeln!(
                b,
                "<tr><td>{}</td><td>{}</td><td>{}</td>{}</tr>",
                escape(&o.name),
                grouped(o.latency_ms.samples as f64, 0),
                ms(o.latency_ms.mean),
                percentile_cells(&o.latency_ms, false, None)
            );
        }
        let _ = writeln!(b, "</table>");
    }
}

/// Where each type's time went: queueing, service, and the session's phases.
fn time_spent(b: &mut String, r: &RunResult) {
    let _ = writeln!(
        b,
        "<h2>Where the time went</h2><p class=\"muted\">Latency counts from the intended start; \
         queueing is the wait in the client for a free session, service the execution. \
         Means per transaction: queueing, then BEGIN, the statements and COMMIT as the session saw them, \
         and the rest of the service time (the procedure's own code, retry backoff).</p>\
         <table><tr><th>type</th><th>latency p50 ms</th><th>p99</th><th>queueing p50</th><th>p99</th>\
         <th>service p50</th><th>p99</th><th>mean queueing</th><th>begin</th><th>statements</th><th>commit</th><th>other</th></tr>"
    );
    for t in r.transactions.iter().filter(|t| t.shown()) {
        let p = &t.phases_ms;
        let _ = writeln!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&t.name),
            ms(t.latency_ms.p50),
            ms(t.latency_ms.p99),
            ms(t.queue_ms.p50),
            ms(t.queue_ms.p99),
            ms(t.service_ms.p50),
            ms(t.service_ms.p99),
            ms(p.queue),
            ms(p.begin),
            ms(p.statements),
            ms(p.commit),
            ms(p.other)
        );
    }
    let _ = writeln!(b, "</table>");
}

/// The time on the wire from the kernel's timestamps next to the latency the
/// client measured, per type, and the client's own share (the difference).
fn on_the_wire(b: &mut String, r: &RunResult) {
    let Some(wire) = &r.wire else { return };
    let _ = writeln!(
        b,
        "<h2>On the wire</h2><p class=\"muted\">The time on the wire is read from the kernel's {} \
         timestamps of each transaction's bytes (the request's leaving, the answer's arriving), \
         so the client's own scheduling and processing are not in it; the client's share is the \
         latency's percentile less the wire's. {} of {} transactions stamped{}.</p>\
         <table><tr><th>type</th><th>latency p50 ms</th><th>wire p50</th><th>client's share</th>\
         <th>latency p99</th><th>wire p99</th><th>client's share</th><th>wire p99.9</th></tr>",
        escape(&wire.clock),
        grouped(wire.stamped as f64, 0),
        grouped((wire.stamped + wire.unstamped) as f64, 0),
        crate::terminal::round_trips_each(wire),
    );
    let share = |app: f64, on: f64| {
        let (client, share) = client_share(app, on);
        format!("{} ({:.0}%)", ms(client), 100.0 * share)
    };
    let all = r
        .total_latency_ms
        .as_ref()
        .map(|l| ("all", l, &wire.total_wire_ms));
    let types = r
        .transactions
        .iter()
        .filter_map(|t| Some((t.name.as_str(), &t.latency_ms, t.wire_ms.as_ref()?)));
    for (name, l, on) in types.chain(all) {
        let _ = writeln!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(name),
            ms(l.p50),
            ms(on.p50),
            share(l.p50, on.p50),
            ms(l.p99),
            ms(on.p99),
            share(l.p99, on.p99),
            ms(on.p999),
        );
    }
    let _ = writeln!(b, "</table>");
}

/// The latency distribution and throughput and p99 over time, from the interval log.
fn charts(b: &mut String, r: &RunResult, log: &IntervalLog, figures: &TimelineFigures) {
    let totals = log.totals();
    let ccdf: Vec<Series> = r
        .transactions
        .iter()
        .filter_map(|t| {
            let h = totals.get(&t.key).filter(|h| !h.is_empty())?;
            Some(Series {
                name: t.name.clone(),
                points: plots::ccdf_points(h),
            })
        })
        .collect();
    let _ = writeln!(b, "<h2>Latency distribution</h2>");
    if ccdf.is_empty() {
        let _ = writeln!(b, "<p>No latencies were measured.</p>");
    } else {
        let names: Vec<&str> = ccdf.iter().map(|s| s.name.as_str()).collect();
        let _ = writeln!(
            b,
            "<div class=\"chart\">{}</div>{}",
            plots::latency_ccdf(&ccdf),
            plots::legend(&names, &[])
        );
    }
    let (mut throughput, p99) = over_time(r, log);
    throughput[0]
        .points
        .splice(0..0, r.warmup_per_s.iter().copied());
    throughput.extend(figures.offered.clone());
    let timing = timing(r);
    let names =
        |series: &[Series]| -> Vec<String> { series.iter().map(|s| s.name.clone()).collect() };
    let title = "Throughput, one point a second";
    let y_desc = "transactions/s";
    // A headline per second shares the left-hand axis; one in another unit
    // (tpmC, per minute) has the right-hand axis.
    let (left, right): (Option<&Series>, Option<&Series>) = match &figures.headline {
        Some(h) if per_second(r, &h.name) => (Some(h), None),
        h => (None, h.as_ref()),
    };
    throughput.extend(left.cloned());
    let (throughput_chart, mut throughput_names) = match right {
        Some(headline) => (
            plots::over_time_with_right(
                title,
                y_desc,
                &throughput,
                &plots::RightAxis {
                    desc: &headline.name,
                    series: headline,
                },
                &timing,
            ),
            names(&throughput),
        ),
        None => (
            plots::over_time(title, y_desc, &throughput, &timing, false),
            names(&throughput),
        ),
    };
    if let Some(h) = right {
        throughput_names.push(format!("{} (right axis)", h.name));
    }
    let _ = writeln!(
        b,
        "<h2>Over time</h2><div class=\"chart\">{throughput_chart}</div>{}<div class=\"chart\">{}</div>{}",
        plots::legend(&throughput_names, &timing.keys()),
        plots::over_time(
            "p99 latency, one point a second (log scale)",
            "p99 latency (ms)",
            &p99,
            &timing,
            true
        ),
        plots::legend(&names(&p99), &timing.keys())
    );
}

/// The errors the run met, by kind, with the messages kept as samples.
fn errors_seen(b: &mut String, r: &RunResult) {
    if r.error_samples.is_empty() {
        return;
    }
    let _ = writeln!(
        b,
        "<h2>Errors seen</h2><p class=\"muted\">A few distinct messages of each kind, as the \
         database (or txbench) gave them; counts per type are in the transactions table.</p>\
         <table class=\"errors\"><tr><th>kind</th><th>message</th></tr>"
    );
    for e in &r.error_samples {
        let _ = writeln!(
            b,
            "<tr><td>{}</td><td>{}</td></tr>",
            escape(&e.kind),
            escape(&e.message)
        );
    }
    let _ = writeln!(b, "</table>");
}

/// The percentiles' 95% intervals.
fn confidence_intervals(b: &mut String, r: &RunResult) {
    let _ = writeln!(
        b,
        "<h2>Confidence intervals</h2><p class=\"muted\">95% intervals of the latency percentiles (ms), \
         from batches of the window's seconds (else order statistics of a sample in send order).</p><table><tr><th>type</th>"
    );
    if let Some(first) = r.transactions.first() {
        for i in &first.latency_intervals_ms {
            let _ = write!(b, "<th>p{}</th>", i.percentile);
        }
    }
    let _ = writeln!(b, "</tr>");
    let rows = r
        .transactions
        .iter()
        .filter(|t| t.shown())
        .map(|t| (t.name.as_str(), &t.latency_intervals_ms))
        .chain([("all types", &r.total_latency_intervals_ms)])
        .filter(|(_, intervals)| !intervals.is_empty());
    for (name, intervals) in rows {
        let cells: String = intervals
            .iter()
            .map(|i| match (i.low, i.high) {
                (Some(l), Some(h)) => format!("<td>[{}, {}]</td>", ms(l), ms(h)),
                _ => "<td class=\"muted\">insufficient samples</td>".to_string(),
            })
            .collect();
        let _ = writeln!(b, "<tr><td>{}</td>{cells}</tr>", escape(name));
    }
    let _ = writeln!(b, "</table>");
}

/// The open loop's offer, achievement and dispatcher lateness.
fn open_loop(b: &mut String, r: &RunResult) {
    if let Some(o) = &r.open_loop {
        let _ = writeln!(
            b,
            "<h2>Open loop</h2><table><tr><td>arrivals</td><td>{}</td></tr>{}\
             <tr><td>offered</td><td>{}/s</td></tr><tr><td>achieved</td><td>{}/s ({:.1}%)</td></tr>\
             <tr><td>shed</td><td>{}</td></tr><tr><td>dispatcher lateness p50 / p99 / max</td><td>{:.0} / {:.0} / {:.0} us</td></tr></table>",
            escape(&o.arrival),
            o.schedule.as_ref().map_or(String::new(), |s| format!(
                "<tr><td>rate schedule (offered is its mean)</td><td><code>{}</code></td></tr>",
                escape(s)
            )),
            grouped(o.offered_rate, 0),
            grouped(o.achieved_rate, 0),
            o.achieved_ratio * 100.0,
            o.shed,
            o.lateness_us.p50,
            o.lateness_us.p99,
            o.lateness_us.max
        );
    }
}

/// Whether the run's headline figure `name` is a rate per second (its unit
/// in the summary ends so: MQTh's "successful txn/s").
fn per_second(r: &RunResult, name: &str) -> bool {
    r.metrics
        .iter()
        .find(|m| m.name == name)
        .is_some_and(|m| m.unit.ends_with("/s"))
}

/// What the charts over time mark: the warm-up shaded before 0, the phases
/// with the held types of an alternating run shaded, each command as a line
/// where it started, and each fault's outage shaded (to the next command,
/// or to the first answer after it).
fn timing(r: &RunResult) -> plots::Timing {
    let warmup = r.settings.as_ref().map_or(0.0, |s| s.warmup_secs);
    let mut timing = plots::Timing::default();
    if warmup > 0.0 {
        timing.bands.push(plots::Band {
            name: "warm-up (not measured)".into(),
            from: -warmup,
            to: 0.0,
            colour: plots::WARMUP,
        });
    }
    timing
        .bands
        .extend(crate::alternation::bands(r.alternation.as_ref()));
    timing.lanes = crate::streams::lanes(r.streams.as_ref());
    for (i, f) in r.faults.iter().enumerate() {
        let x = f.started_s - warmup;
        let fault = f.kind == txbench_core::faults::CommandKind::Fault;
        timing.marks.push(plots::Mark {
            name: format!("{} {}", f.kind.name(), i + 1),
            x,
            fault,
        });
        let next = r.faults.get(i + 1).map(|n| n.started_s - warmup);
        let answered = f
            .impact
            .as_ref()
            .and_then(|i| i.first_answer_s)
            .map(|s| x + s);
        if let (true, Some(to)) = (fault, next.or(answered)) {
            timing.bands.push(plots::Band {
                name: format!("while fault {} held", i + 1),
                from: x,
                to,
                colour: plots::FAULT,
            });
        }
    }
    timing
}

/// Each scheduled command, and what each fault cost.
fn faults(b: &mut String, r: &RunResult) {
    if r.faults.is_empty() {
        return;
    }
    let _ = writeln!(
        b,
        "<h2>Faults</h2><table><tr><th></th><th>command</th><th>at (s)</th><th>exit</th>\
         <th>unavailable (s)</th><th>last / first answer (s)</th><th>recovered 90% (s)</th>\
         <th>errors</th><th>sessions re-established</th></tr>"
    );
    let secs = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.3}"));
    for (i, f) in r.faults.iter().enumerate() {
        let exit = f.exit_code.map_or("killed".to_string(), |c| c.to_string());
        let cost = match &f.impact {
            Some(i) => format!(
                "<td>{}</td><td>{} / {}</td><td>{}</td><td>{}</td><td>{}</td>",
                match (i.unavailable_s, i.first_answer_s) {
                    (Some(u), None) => format!("{u:.3}, to the run's end"),
                    (u, _) => secs(u),
                },
                secs(i.last_answer_s),
                secs(i.first_answer_s),
                secs(i.recovered_90_s),
                escape(&crate::terminal::error_counts(&i.errors)),
                i.reconnections
            ),
            None => "<td colspan=\"5\"></td>".into(),
        };
        let _ = writeln!(
            b,
            "<tr><td>{} {}</td><td><code>{}</code></td><td>{:.3}</td><td>{exit}</td>{cost}</tr>",
            f.kind.name(),
            i + 1,
            escape(&f.command),
            f.started_s
        );
    }
    let _ = writeln!(b, "</table>");
}

/// Every check of the measurement.
fn measurement_checks(b: &mut String, r: &RunResult) {
    let _ = writeln!(
        b,
        "<h2>Measurement checks</h2><table><tr><th>check</th><th>status</th><th>statistic</th><th>meaning</th></tr>"
    );
    for c in &r.checks {
        let s = status_name(c.status);
        let _ = writeln!(
            b,
            "<tr><td>{}</td><td class=\"{s}\">{s}</td><td>{}</td><td>{}</td></tr>",
            escape(&c.name),
            escape(&c.statistic),
            escape(&c.detail)
        );
    }
    let _ = writeln!(b, "</table>");
}

/// The run's settings and the client machine.
fn configuration(b: &mut String, r: &RunResult) {
    let _ = writeln!(b, "<h2>Configuration</h2><table>");
    let _ = writeln!(
        b,
        "<tr><td>to repeat it</td><td><code>txbench {} run --config {}</code> (the flags as \
         <a href=\"{}\">{}</a> beside this page has them, passwords left out)</td></tr>",
        escape(&r.workload),
        crate::results::CONFIG_FILE,
        crate::results::CONFIG_FILE,
        crate::results::CONFIG_FILE
    );
    let settings = r.settings.iter().flat_map(|s| s.rows());
    for (k, v) in settings.chain(r.parameters.clone()) {
        let _ = writeln!(b, "<tr><td>{}</td><td>{}</td></tr>", escape(&k), escape(&v));
    }
    let m = &r.machine;
    let _ = writeln!(
        b,
        "<tr><td>client machine</td><td>{} ({}, {} cores, {:.1} GiB, {}, kernel {})</td></tr>",
        escape(&m.hostname),
        escape(&m.cpu),
        m.cores,
        m.memory_bytes as f64 / (1u64 << 30) as f64,
        escape(&m.os),
        escape(&m.kernel)
    );
    let _ = writeln!(
        b,
        "<tr><td>CPU of the txbench process</td><td>{:.1} s</td></tr></table>",
        r.cpu.process_secs
    );
}

/// Throughput (all types) and p99 (per type) of each logged interval.
fn over_time(r: &RunResult, log: &IntervalLog) -> (Vec<Series>, Vec<Series>) {
    let mut per_second: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    let mut p99 = Vec::new();
    for t in &r.transactions {
        let mut points = Vec::new();
        for i in log.of(&t.key) {
            let end = (i.start + i.length).as_secs_f64();
            let secs = i.length.as_secs_f64();
            // A sliver of an interval (the window's first few milliseconds)
            // gives a rate of noise.
            if secs >= 0.25 {
                let slot = per_second
                    .entry(i.start.as_millis() as u64)
                    .or_insert((end, 0.0));
                slot.1 += i.histogram.len() as f64 / secs;
            }
            // A sliver's p99 is a handful of transactions, not a second's.
            if !i.histogram.is_empty() && secs >= 0.25 {
                points.push((end, i.histogram.value_at_quantile(0.99) as f64 / 1000.0));
            }
        }
        p99.push(Series {
            name: t.name.clone(),
            points,
        });
    }
    let throughput = vec![Series {
        name: "all types".into(),
        points: per_second.into_values().collect(),
    }];
    (throughput, p99)
}

/// The report of a sweep, from its summary and each step's result.
pub fn sweep_report(s: &SweepResult, steps: &[RunResult]) -> String {
    let mut b = String::new();
    let target = steps.first().map_or("?", |r| r.target.as_str());
    let title = format!("Capacity sweep on {target}");
    let _ = writeln!(b, "<h1>{}</h1>", escape(&title));
    sweep_capacity(&mut b, s);
    sweep_chart(&mut b, s, steps);
    sweep_steps(&mut b, s);
    page(&title, &b)
}

/// The sweep's verdict: the capacity found, or that no step met the objective.
fn sweep_capacity(b: &mut String, s: &SweepResult) {
    let (class, text) = match s.capacity_rate {
        Some(c) => (
            "PASS",
            format!(
                "capacity: {} transactions/s offered met {} with at least 90% of the load \
                 completed (from steps whose own measurement was not NOT SOUND)",
                grouped(c, 0),
                escape(&s.objective)
            ),
        ),
        None => ("FAIL", format!("no step met {}", escape(&s.objective))),
    };
    let _ = writeln!(b, "<p class=\"verdict v-{class}\">{text}</p>");
    let limit_step = |kind: &str| s.steps.iter().find(|st| st.limit.as_deref() == Some(kind));
    let said = match s.limit.as_deref() {
        Some(kind @ ("database" | "client")) => limit_step(kind).map(|st| {
            let whose = if kind == "client" {
                "the client's, not the database's: add driver threads or client machines"
            } else {
                "the database's"
            };
            format!(
                "The limit found is {whose} (at {}/s: {}).",
                grouped(st.offered_rate, 0),
                escape(st.failed_because.as_deref().unwrap_or("failed"))
            )
        }),
        Some(_) => None,
        None => Some("No limit found within the rates swept.".into()),
    };
    if let Some(said) = said {
        let _ = writeln!(b, "<p>{said}</p>");
    }
}

/// Latency against achieved rate: each step's slowest type at p50 and at the
/// objective's percentile, with the objective and the capacity marked.
fn sweep_chart(b: &mut String, s: &SweepResult, steps: &[RunResult]) {
    let every_type: &[&str] = &[];
    // Every step is drawn; one at the client's limit measured the client's
    // delay, not the database's latency at that rate, and one not sound
    // measured nothing to trust: both are crossed out.
    let mut points: Vec<(f64, f64, f64)> = (steps.iter().zip(&s.steps))
        .map(|(r, step)| {
            let worst_p50 = r.slowest_at(50.0, every_type);
            (step.achieved_rate, worst_p50, step.worst_latency_ms)
        })
        .collect();
    let flagged: Vec<(f64, f64)> = (s.steps.iter())
        .filter(|step| {
            step.limit.as_deref() == Some("client") || step.verdict.starts_with("NOT SOUND")
        })
        .map(|step| (step.achieved_rate, step.worst_latency_ms.max(1e-3)))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let pct = if s.objective_percentile > 0.0 {
        format!("p{}", s.objective_percentile)
    } else {
        "objective percentile".to_string()
    };
    let series = [
        Series {
            name: pct,
            points: points.iter().map(|p| (p.0, p.2.max(1e-3))).collect(),
        },
        Series {
            name: "p50".into(),
            points: points.iter().map(|p| (p.0, p.1.max(1e-3))).collect(),
        },
    ];
    let limit = if s.objective_limit_ms > 0.0 {
        s.objective_limit_ms
    } else {
        points.iter().map(|p| p.2).fold(1.0, f64::max)
    };
    let capacity_achieved = s.capacity_rate.and_then(|c| {
        (s.steps.iter())
            .find(|st| st.offered_rate == c)
            .map(|st| st.achieved_rate)
    });
    let mut keys = vec![(format!("objective {}", s.objective), plots::OBJECTIVE)];
    if !flagged.is_empty() {
        keys.push((
            "crossed: not sound, or the client's limit".into(),
            plots::UNSOUND,
        ));
    }
    if let Some(c) = capacity_achieved {
        keys.push((
            format!("capacity {}/s achieved", grouped(c, 0)),
            plots::CAPACITY,
        ));
    }
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    let _ = writeln!(
        b,
        "<div class=\"chart\">{}</div>{}",
        plots::sweep(
            &series,
            (&s.objective, limit),
            capacity_achieved,
            "latency of the slowest type",
            &flagged
        ),
        plots::legend(&names, &keys)
    );
}

/// Sweeps of a workload's variants side by side: each one's capacity, and
/// one chart of the latency of the types they differ in against achieved
/// rate, a line per variant. `sweeps` holds each variant's summary and its
/// steps' results, in the order of `v.variants`.
pub fn variants_report(v: &VariantSweeps, sweeps: &[(SweepResult, Vec<RunResult>)]) -> String {
    let mut b = String::new();
    let target = (sweeps.iter())
        .find_map(|(_, steps)| steps.first())
        .map_or("?", |r| r.target.as_str());
    let title = format!("Capacity per {} on {target}", v.option);
    let _ = writeln!(b, "<h1>{}</h1>", escape(&title));
    let types = v.types_named();
    let pct = sweeps.first().map_or(99.0, |(s, _)| s.objective_percentile);
    let _ = writeln!(
        b,
        "<p>Each {} swept on its own under {}: a step passes when at least 90% of the offered \
         load completed, the objective held for every type and its measurement was not NOT \
         SOUND. Latency: the slowest of {} at p{pct}.</p>",
        escape(&v.option),
        escape(&v.objective),
        escape(&types)
    );
    let _ = writeln!(
        b,
        "<table><tr><th>{}</th><th>capacity/s</th><th>achieved/s</th><th>p{pct} ms</th><th>sweep</th></tr>",
        escape(&v.option)
    );
    let cell = |x: Option<f64>| x.map_or("-".to_string(), |x| grouped(x, 0));
    for variant in &v.variants {
        let href = escape(&format!("{}/{}", variant.dir, crate::results::REPORT_FILE));
        let _ = writeln!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><a href=\"{href}\">{}</a></td></tr>",
            escape(&variant.value),
            cell(variant.capacity_rate),
            cell(variant.achieved_at_capacity),
            variant
                .types_latency_ms_at_capacity
                .map_or("-".to_string(), ms),
            escape(&variant.dir)
        );
    }
    let _ = writeln!(b, "</table>");
    let series: Vec<Series> = (v.variants.iter().zip(sweeps))
        .map(|(variant, (summary, steps))| {
            let mut points: Vec<(f64, f64)> = (summary.steps.iter().zip(steps))
                .map(|(st, r)| (st.achieved_rate, r.slowest_at(pct, &v.types).max(1e-3)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                name: variant.value.clone(),
                points,
            }
        })
        .collect();
    let limit = sweeps
        .first()
        .map_or(1.0, |(s, _)| s.objective_limit_ms.max(1e-3));
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    let keys = [(format!("objective {}", v.objective), plots::OBJECTIVE)];
    let _ = writeln!(
        b,
        "<div class=\"chart\">{}</div>{}",
        plots::sweep(
            &series,
            (&v.objective, limit),
            None,
            &format!("p{pct}, the slowest type compared"),
            &[]
        ),
        plots::legend(&names, &keys)
    );
    page(&title, &b)
}

/// The steps, one a row.
fn sweep_steps(b: &mut String, s: &SweepResult) {
    let _ = writeln!(
        b,
        "<h2>Steps</h2><table><tr><th>step</th><th>offered/s</th><th>achieved/s</th><th>worst latency ms</th>\
         <th>result</th><th>verdict</th><th>report</th></tr>"
    );
    for (i, st) in s.steps.iter().enumerate() {
        let (class, r) = match (st.passed, st.limit.as_deref()) {
            (true, _) => ("PASS", "PASS"),
            (false, Some("client")) => ("WARN", "the client's limit (left off the chart)"),
            (false, _) => ("FAIL", "FAIL"),
        };
        // The step's own page sits beside its summary.json.
        let link = std::path::Path::new(&st.results)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or(String::new(), |d| {
                let href = escape(&d.join(crate::results::REPORT_FILE).to_string_lossy());
                format!("<a href=\"{href}\">step {}</a>", i + 1)
            });
        let _ = writeln!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{class}\">{r}</td><td>{}</td><td>{link}</td></tr>",
            i + 1,
            grouped(st.offered_rate, 0),
            grouped(st.achieved_rate, 0),
            ms(st.worst_latency_ms),
            escape(&st.verdict)
        );
    }
    let _ = writeln!(b, "</table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
