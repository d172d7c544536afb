//! The live progress of a run and of a load: a line drawn in place on a
//! terminal, or a plain line each period when stderr is not a terminal (a
//! log, CI, a pipe), so that piped output stays one line per period.
//!
//! A run's line shows the workload's headline figures (tpmC, MQTh, committed
//! transactions/s and abort rate) over the last period, the latency of every
//! type together and the errors so far; a load's shows rows, rows/s and the
//! time left.

use std::future::Future;
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use txbench_core::TxnTypeInfo;
use txbench_core::driver::{Phase, Tick};
use txbench_core::recorder::Recorder;
use txbench_core::result::{Metric, TypeResult};
use txbench_core::summary;
use txbench_report::terminal::grouped;

/// The period of the progress line: as asked, else a second on a terminal
/// and ten seconds when stderr is piped; `None` when `quiet`.
pub fn period(asked: Option<Duration>, quiet: bool) -> Option<Duration> {
    if quiet {
        return None;
    }
    Some(asked.unwrap_or_else(|| {
        if std::io::stderr().is_terminal() {
            Duration::from_secs(1)
        } else {
            Duration::from_secs(10)
        }
    }))
}

/// Where the line goes: redrawn in place on a terminal, else a line each.
#[derive(Clone)]
enum Sink {
    Bar(ProgressBar),
    Lines,
}

impl Sink {
    fn new() -> Sink {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template("{msg}").expect("static template"));
            Sink::Bar(bar)
        } else {
            Sink::Lines
        }
    }

    fn show(&self, line: String) {
        match self {
            Sink::Bar(bar) => bar.set_message(line),
            Sink::Lines => crate::output::eprint_line(&line),
        }
    }

    fn clear(&self) {
        if let Sink::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// A workload's headline figures from per-type results over some seconds
/// ([`txbench_workloads::Benchmark::metrics`] with the run's basis).
pub type Headline = Arc<dyn Fn(&[TypeResult], f64) -> Vec<Metric> + Send + Sync>;

/// Progress of a run.
pub struct RunProgress {
    sink: Option<Sink>,
    period: Duration,
    label: String,
    planned: Duration,
    /// The transaction count that ends the window, if one was asked: the
    /// line then counts toward it instead of the time left.
    count: Option<u64>,
    types: &'static [TxnTypeInfo],
    headline: Headline,
    /// The seconds since the line was last shown, added up: their numbers,
    /// their length, and the part of it in the measurement window (what the
    /// measured numbers are rates over).
    pending: Recorder,
    pending_length: Duration,
    pending_measured: Duration,
}

impl RunProgress {
    /// Progress for a run of `planned` time (warm-up included), shown every
    /// `period` (`None`: never), each line starting with `label`.
    pub fn new(
        planned: Duration,
        types: &'static [TxnTypeInfo],
        period: Option<Duration>,
        label: Option<&str>,
        headline: Headline,
    ) -> Self {
        RunProgress {
            sink: period.map(|_| Sink::new()),
            period: period.unwrap_or(Duration::MAX),
            label: label.map_or_else(String::new, |l| format!("{l}  ")),
            planned,
            count: None,
            types,
            headline,
            pending: Recorder::new(types.len()),
            pending_length: Duration::ZERO,
            pending_measured: Duration::ZERO,
        }
    }

    /// Count toward `count` transactions (`--transactions`) rather than the
    /// planned time.
    pub fn counting(mut self, count: Option<u64>) -> Self {
        self.count = count;
        self
    }

    /// Take one second's figures; show the line once a period has gathered.
    pub fn tick(&mut self, t: &Tick<'_>) {
        let Some(sink) = &self.sink else {
            return;
        };
        self.pending.merge(&t.interval);
        self.pending_length += t.interval_length;
        self.pending_measured += measured_part(t);
        // The driver's seconds are a little over or under a second each.
        if self.pending_length + Duration::from_millis(100) < self.period {
            return;
        }
        let line = self.line(t);
        sink.show(line);
        self.pending.reset();
        self.pending_length = Duration::ZERO;
        self.pending_measured = Duration::ZERO;
    }

    /// The line over the seconds gathered.
    fn line(&self, t: &Tick<'_>) -> String {
        let secs = self.pending_length.as_secs_f64().max(1e-3);
        let p = &self.pending;
        let figures = match t.phase {
            Phase::WarmUp => format!(
                "{:>9} txn/s",
                grouped((p.completed() + p.unmeasured) as f64 / secs, 0)
            ),
            Phase::Measure | Phase::Finishing => {
                let types = summary::type_results(self.types, &p.measured);
                let measured_secs = self.pending_measured.as_secs_f64().max(1e-3);
                let headline: Vec<String> = (self.headline)(&types, measured_secs)
                    .iter()
                    .take(2)
                    .map(metric_text)
                    .collect();
                let all = p.all_latencies();
                let p99 = if all.is_empty() {
                    "-".to_string()
                } else {
                    format!("{:.2} ms", all.value_at_quantile(0.99) as f64 / 1000.0)
                };
                format!("{}  p99 {p99}", headline.join("  "))
            }
        };
        let errors: u64 = t.total.failed();
        let phase = match t.phase {
            Phase::WarmUp => "warm-up",
            Phase::Measure => "measure",
            Phase::Finishing => "finish",
        };
        let elapsed = t.elapsed.as_secs_f64();
        match self.count {
            Some(n) => format!(
                "{}{elapsed:>4.0}s {phase:<8} {figures}  errors {errors}  ({} of {} transactions)",
                self.label,
                grouped((t.total.completed() + errors) as f64, 0),
                grouped(n as f64, 0),
            ),
            None => format!(
                "{}{elapsed:>4.0}s/{:.0}s {phase:<8} {figures}  errors {errors}  ({:.0}s left)",
                self.label,
                self.planned.as_secs_f64(),
                self.planned.saturating_sub(t.elapsed).as_secs_f64(),
            ),
        }
    }

    /// Remove the line.
    pub fn finish(&self) {
        if let Some(sink) = &self.sink {
            sink.clear();
        }
    }
}

/// The part of a tick's second inside the measurement window: what its
/// measured numbers are rates over (the grace after the window counts whole,
/// as the window's stragglers complete in it).
pub fn measured_part(t: &Tick<'_>) -> Duration {
    let (from, to) = t.window_span;
    if t.phase == Phase::Finishing {
        t.interval_length
    } else {
        to.saturating_sub(from)
    }
}

/// "tpmC 41,234 New-Order/min", "abort rate 2.1 %".
fn metric_text(m: &Metric) -> String {
    let decimals = if m.value.abs() < 100.0 { 1 } else { 0 };
    format!("{} {} {}", m.name, grouped(m.value, decimals), m.unit)
}

/// Run a load, showing `rows` (counted by the loader) out of about `total`
/// every `period` (`None`: nothing) until it ends.
pub async fn track_load<T>(
    total: u64,
    rows: Arc<AtomicU64>,
    period: Option<Duration>,
    load: impl Future<Output = T>,
) -> T {
    let Some(period) = period else {
        return load.await;
    };
    let sink = Sink::new();
    let watcher = {
        let started = Instant::now();
        // A bar on a terminal moves smoothly; plain lines come a period apart.
        let every = match &sink {
            Sink::Bar(_) => Duration::from_millis(200).min(period),
            Sink::Lines => period,
        };
        let shown = sink.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                shown.show(load_line(
                    rows.load(Ordering::Relaxed),
                    total,
                    started.elapsed(),
                ));
            }
        })
    };
    let out = load.await;
    watcher.abort();
    sink.clear();
    out
}

/// "loading 1,234,567 of about 5,000,000 rows (24%)  300,000 rows/s  eta 12s".
/// The total is the workload's estimate: a count past it shows the count as
/// the total, never a share above 100%.
pub fn load_line(rows: u64, total: u64, elapsed: Duration) -> String {
    let total = total.max(rows);
    let secs = elapsed.as_secs_f64().max(1e-3);
    let per_sec = rows as f64 / secs;
    let share = if total > 0 {
        100.0 * rows as f64 / total as f64
    } else {
        0.0
    };
    let eta = if per_sec > 0.0 {
        format!("{:.0}s", (total - rows) as f64 / per_sec)
    } else {
        "-".to_string()
    };
    format!(
        "loading {} of about {} rows ({share:.0}%)  {} rows/s  eta {eta}",
        grouped(rows as f64, 0),
        grouped(total as f64, 0),
        grouped(per_sec, 0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_past_its_estimate_shows_the_count_as_the_total() {
        let line = load_line(1_200, 1_000, Duration::from_secs(2));
        assert!(
            line.starts_with("loading 1,200 of about 1,200 rows (100%)  600 rows/s  eta 0s"),
            "{line}"
        );
    }

    #[test]
    fn a_load_line_gives_rate_and_time_left() {
        let line = load_line(250, 1_000, Duration::from_secs(1));
        assert_eq!(
            line,
            "loading 250 of about 1,000 rows (25%)  250 rows/s  eta 3s"
        );
    }

    #[test]
    fn quiet_shows_nothing_and_a_period_asked_is_kept() {
        assert_eq!(period(Some(Duration::from_secs(5)), true), None);
        assert_eq!(
            period(Some(Duration::from_secs(5)), false),
            Some(Duration::from_secs(5))
        );
    }

    #[test]
    fn metrics_read_with_their_units() {
        let m = |name: &str, value, unit: &str| Metric {
            name: name.into(),
            value,
            unit: unit.into(),
            counts: None,
            interval: None,
        };
        assert_eq!(
            metric_text(&m("tpmC", 41_234.4, "New-Order/min")),
            "tpmC 41,234 New-Order/min"
        );
        assert_eq!(metric_text(&m("abort rate", 2.14, "%")), "abort rate 2.1 %");
    }
}
