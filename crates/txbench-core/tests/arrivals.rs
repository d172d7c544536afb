//! The open-loop dispatcher sends on schedule: the actual send gaps of a
//! Poisson load are exponential, and late wake-ups do not bunch sends. Run on
//! an idle machine (cargo runs test binaries one at a time, and this one holds
//! a single test).

mod support;

use std::time::Duration;

use support::{AsyncIdle, Serve};
use txbench_core::TxnTypeInfo;
use txbench_core::driver::{DispatchStats, OpenLoop, Pacing, RunOptions};
use txbench_core::stats::anderson_darling;

static TYPES: [TxnTypeInfo; 1] = [TxnTypeInfo::back_to_back("Nothing", "nothing", 1.0, None)];

async fn dispatch(rate: f64, seconds: u64, pacing: Pacing) -> DispatchStats {
    let defaults = support::options(
        Duration::from_secs(seconds),
        Duration::from_secs(1),
        Some(rate),
    );
    let opts = RunOptions {
        open: defaults.open.map(|o| OpenLoop { pacing, ..o }),
        warmup: Duration::from_millis(200),
        connections: 2,
        seed: 5,
        ..defaults
    };
    let rec = support::run(AsyncIdle, &TYPES, Serve::Nothing, &opts).await;
    rec.dispatch.expect("an open-loop run")
}

/// At the 1% level, Stephens' critical value of the Anderson-Darling
/// statistic against the exponential with its mean estimated.
const CRITICAL_1_PERCENT: f64 = 1.957;

/// Why the send gaps of one run at `rate` are not those of a Poisson process
/// of that rate, if they are not.
fn not_poisson(rate: f64, seconds: u64, d: &DispatchStats) -> Option<String> {
    let gaps = &d.send_gaps;
    // Thinned at random to at most 1,000/s: the gaps of the thinned sends
    // are exponential with that rate if the sends are Poisson.
    let thinned = d.gap_test_rate;
    if (gaps.len() as f64) < 0.8 * thinned * seconds as f64 {
        return Some(format!("{rate}/s: only {} gaps", gaps.len()));
    }
    let Some(ad) = anderson_darling::exponential(gaps) else {
        return Some(format!("{rate}/s: too few gaps to test"));
    };
    if ad.statistic >= CRITICAL_1_PERCENT {
        return Some(format!(
            "{rate}/s: A2* = {:.3} over {} gaps",
            ad.statistic,
            gaps.len()
        ));
    }
    // Bunching: a late wake-up that let sends pile up and then released
    // them together shows as an excess of very short gaps. For a Poisson
    // process the share under 50 us is 1 - exp(-rate x 50 us).
    let short = gaps.iter().filter(|g| **g < 50e-6).count() as f64;
    let n = gaps.len() as f64;
    let p = 1.0 - (-thinned * 50e-6).exp();
    let limit = n * p + 4.0 * (n * p * (1.0 - p)).sqrt() + 2.0;
    if short > limit {
        return Some(format!(
            "{rate}/s: {short} of {n} gaps under 50 us, Poisson allows {limit:.1}"
        ));
    }
    let mean = gaps.iter().sum::<f64>() / n;
    ((mean * thinned - 1.0).abs() >= 0.15)
        .then(|| format!("{rate}/s: mean gap {mean:.6} s at {thinned}/s"))
}

/// Runs of each rate, at most: a stall of the whole (virtual) machine now and
/// then can put one gap of tens of milliseconds into a run, which the test
/// rightly rejects; a dispatcher that bunches its sends or keeps to timer
/// ticks fails every run.
/// (Three were too few: a busy CI machine once failed three in a row.)
const ATTEMPTS: usize = 5;

#[tokio::test]
async fn send_gaps_are_exponential_and_not_bunched() {
    // Both ways of waiting, a thread that sleeps and a task that spins, and
    // what the default picks at 10,000/s (spinning).
    for (rate, seconds, pacing) in [
        (200.0, 4, Pacing::Sleep),
        (200.0, 4, Pacing::Spin),
        (10_000.0, 3, Pacing::Auto),
    ] {
        let mut failures = Vec::new();
        for _ in 0..ATTEMPTS {
            let d = dispatch(rate, seconds, pacing).await;
            // A dispatcher's own CPU is known when it had a thread of its own.
            assert_eq!(d.cpu.is_some(), rate == 200.0 && pacing == Pacing::Sleep);
            match not_poisson(rate, seconds, &d) {
                None => break,
                Some(why) => failures.push(format!("{pacing:?} {why}")),
            }
        }
        assert!(failures.len() < ATTEMPTS, "{}", failures.join("; "));
        if !failures.is_empty() {
            eprintln!("passed after: {}", failures.join("; "));
        }
    }
}
