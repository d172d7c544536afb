//! The live progress line: one update a second, drawn in place on a terminal, or
//! a plain line every ten seconds when stderr is not a terminal.

use std::future::Future;
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use txbench_core::TxnTypeInfo;
use txbench_core::driver::{Phase, Tick};

/// Progress of a run.
pub struct RunProgress {
    bar: Option<ProgressBar>,
    plain: bool,
    planned: Duration,
    last_plain: Instant,
    types: &'static [TxnTypeInfo],
}

impl RunProgress {
    /// Progress for a run of `planned` time (warm-up included); `quiet` shows nothing.
    pub fn new(planned: Duration, types: &'static [TxnTypeInfo], quiet: bool) -> Self {
        let tty = std::io::stderr().is_terminal();
        let bar = (!quiet && tty).then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template("{msg}").expect("static template"));
            bar
        });
        RunProgress {
            bar,
            plain: !quiet && !tty,
            planned,
            last_plain: Instant::now(),
            types,
        }
    }

    /// Show one tick.
    pub fn tick(&mut self, t: &Tick<'_>) {
        if self.bar.is_none() && !self.plain {
            return;
        }
        let secs = t.interval_length.as_secs_f64().max(1e-3);
        let done = t.interval.completed() + t.interval.unmeasured;
        let first = &t.interval.measured[0];
        let p99 = if first.latency.is_empty() {
            "-".to_string()
        } else {
            format!(
                "{:.2} ms",
                first.latency.value_at_quantile(0.99) as f64 / 1000.0
            )
        };
        let errors: u64 = t.total.measured.iter().map(|s| s.failed()).sum();
        let line = format!(
            "{:>4.0}s/{:.0}s ({:.0}s left) {:<8} {:>9.0} txn/s  {} committed/min {:>9.0}  {} p99 {:>9}  errors {}",
            t.elapsed.as_secs_f64(),
            self.planned.as_secs_f64(),
            self.planned.saturating_sub(t.elapsed).as_secs_f64(),
            match t.phase {
                Phase::WarmUp => "warm-up",
                Phase::Measure => "measure",
                Phase::Finishing => "finish",
            },
            done as f64 / secs,
            self.types[0].name,
            first.committed as f64 * 60.0 / secs,
            self.types[0].name,
            p99,
            errors
        );
        if let Some(bar) = &self.bar {
            bar.set_message(line);
        } else if self.last_plain.elapsed() >= Duration::from_secs(10) {
            self.last_plain = Instant::now();
            crate::output::eprint_line(&line);
        }
    }

    /// Remove the line.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Run a load, drawing a progress bar of `rows` (counted by the loader) out of
/// about `total` until it ends.
pub async fn track_load<T>(total: u64, rows: Arc<AtomicU64>, load: impl Future<Output = T>) -> T {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "loading [{bar:30}] {human_pos}/{human_len} rows  {per_sec}  eta {eta}",
        )
        .expect("static template")
        .progress_chars("=> "),
    );
    let watcher = {
        let bar = bar.clone();
        tokio::spawn(async move {
            loop {
                bar.set_position(rows.load(Ordering::Relaxed));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let out = load.await;
    watcher.abort();
    bar.finish_and_clear();
    out
}
