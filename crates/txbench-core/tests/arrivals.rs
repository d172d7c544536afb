//! The open-loop dispatcher sends every arrival due in the window and none
//! before it is due, whichever way it waits: a thread that sleeps, a task that
//! spins, and what the default picks at 10,000/s. These hold on a loaded
//! machine (a late dispatcher sends late, never early, and never drops what
//! was due); how punctual it is, and whether its send gaps are exponential,
//! is measured by `bench/dispatch.sh`, and the arrival times it draws are
//! tested exactly in `driver/arrival_times.rs`.

mod support;

use std::time::Duration;

use support::AsyncIdle;
use txbench_core::TxnTypeInfo;
use txbench_core::driver::{Arrival, DispatchStats, OpenLoop, Pacing, RateSchedule, RunOptions};

static TYPES: [TxnTypeInfo; 1] = [TxnTypeInfo::back_to_back("Nothing", "nothing", 1.0, None)];

/// A run of fixed gaps at `rate`: what the dispatcher saw, and each
/// transaction's start (seconds from the window's start, in order).
async fn dispatch(rate: f64, seconds: u64, pacing: Pacing) -> (DispatchStats, Vec<f64>, u64) {
    let defaults = support::options(
        Duration::from_secs(seconds),
        // Long enough for a stalled machine to finish what was sent.
        Duration::from_secs(30),
        Some(rate),
    );
    let opts = RunOptions {
        open: defaults.open.map(|o| OpenLoop {
            pacing,
            arrival: Arrival::Fixed,
            ..o
        }),
        connections: 2,
        seed: 5,
        ..defaults
    };
    let (rec, starts) = support::run_timing_starts(AsyncIdle, &TYPES, &opts).await;
    let ended = support::ended(&rec);
    (rec.dispatch.expect("an open-loop run"), starts, ended)
}

#[tokio::test]
async fn every_due_arrival_is_sent_and_none_ahead_of_time() {
    for (rate, seconds, pacing) in [
        (200.0, 2, Pacing::Sleep),
        (200.0, 2, Pacing::Spin),
        (10_000.0, 2, Pacing::Auto),
    ] {
        let (d, starts, ended) = dispatch(rate, seconds, pacing).await;
        // A dispatcher's own CPU is known when it had a thread of its own.
        assert_eq!(d.cpu.is_some(), rate == 200.0 && pacing == Pacing::Sleep);
        // Fixed gaps: arrivals 1..=n are due at k / rate inside the window
        // (the n-th may fall on its end).
        let due = rate * seconds as f64;
        assert!(
            (d.scheduled as f64 - due).abs() <= 1.0,
            "{pacing:?} {rate}/s: {} scheduled, {due} due",
            d.scheduled
        );
        assert_eq!(
            d.shed, 0,
            "{pacing:?} {rate}/s: an unbounded queue sheds nothing"
        );
        assert_eq!(
            ended, d.scheduled,
            "{pacing:?} {rate}/s: every arrival due in the window completes in it or the grace"
        );
        support::assert_never_ahead(&RateSchedule::constant(rate), &starts);
    }
}
