//! End to end through the open-loop driver, the recorder and the checks: one
//! session with a fixed service time D driven by Poisson arrivals is an M/D/1
//! queue, whose mean latency is D + lambda D^2 / (2 (1 - lambda D))
//! (Pollaczek-Khinchine). Its quantiles come from simulating the same queue
//! (Lindley's recursion) with many arrivals.

mod support;

use std::time::Duration;

use support::{Serve, Synthetic};
use txbench_core::TxnTypeInfo;
use txbench_core::checks::{self, Status};
use txbench_core::driver::{self, DEFAULT_GRACE, RunOptions};
use txbench_core::rng::Rand;

static TYPES: [TxnTypeInfo; 1] = [TxnTypeInfo {
    name: "Fixed",
    key: "fixed",
    mix: 1.0,
    min_share: None,
    keying: Duration::ZERO,
    mean_think: Duration::ZERO,
    p90_limit: Duration::from_secs(1),
    expected_success: None,
    success_drifts_to: None,
}];

/// The tests of this file run one at a time: each measures latency against
/// theory, and the overloaded one spins a core that the other would share.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The check of this name.
fn check<'a>(analysis: &'a checks::Analysis, name: &str) -> &'a checks::Check {
    analysis
        .checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check named {name}"))
}

/// Latency quantiles of an M/D/1 queue by Lindley's recursion.
fn simulated_quantiles(lambda: f64, d: f64, n: usize) -> (f64, f64, f64) {
    let mut rng = Rand::new(99);
    let mut wait = 0.0f64;
    let mut latencies = Vec::with_capacity(n);
    for _ in 0..n {
        latencies.push(wait + d);
        wait = (wait + d - rng.exponential(1.0 / lambda)).max(0.0);
    }
    latencies.sort_by(f64::total_cmp);
    let mean = latencies.iter().sum::<f64>() / n as f64;
    (mean, latencies[n / 2], latencies[n * 99 / 100])
}

async fn run(rate: f64, service: Duration, seconds: u64) -> (driver::Recording, RunOptions) {
    let opts = RunOptions {
        warmup: Duration::from_millis(500),
        seed: 7,
        ..support::options(Duration::from_secs(seconds), DEFAULT_GRACE, Some(rate))
    };
    let rec = support::run(Synthetic, &TYPES, Serve::Spin(service), &opts).await;
    (rec, opts)
}

/// The measured latency is never below what the M/D/1 queue gives: a loaded
/// machine serves late and sends late, which only adds to latency counted
/// from the intended start, so these lower bounds hold however busy it is.
/// How close txbench comes to theory on an idle machine is measured by
/// `bench/sim.sh` (the self-test's M/D/1 cases).
#[tokio::test]
async fn latency_is_never_below_the_md1_queue_at_half_load() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let (d, lambda) = (0.004, 125.0); // utilisation 0.5
    let (rec, _) = run(lambda, Duration::from_secs_f64(d), 16).await;
    let h = &rec.total.measured[0].latency;
    assert!(h.len() >= 1_500, "{} measured", h.len());
    let mean_ms = h.mean() / 1000.0;
    let pk_ms = 1000.0 * (d + lambda * d * d / (2.0 * (1.0 - lambda * d)));
    let (sim_mean, sim_p50, sim_p99) = simulated_quantiles(lambda, d, 2_000_000);
    assert!(
        (sim_mean * 1000.0 - pk_ms).abs() < 0.05,
        "simulation {sim_mean} vs formula {pk_ms}"
    );
    // No transaction is faster than its service time.
    let min_ms = h.min() as f64 / 1000.0;
    assert!(min_ms >= 0.99 * d * 1000.0, "min {min_ms} ms");
    // About 2,000 samples: the mean's standard error is under 2%, so 10%
    // under theory is beyond chance; leaving out the queueing term (what a
    // driver that measured from the send would report) is 33% under it.
    assert!(
        mean_ms > 0.9 * pk_ms,
        "mean {mean_ms:.3} ms vs M/D/1 {pk_ms:.3} ms"
    );
    let p50_ms = h.value_at_quantile(0.5) as f64 / 1000.0;
    let p99_ms = h.value_at_quantile(0.99) as f64 / 1000.0;
    assert!(
        p50_ms > 0.85 * sim_p50 * 1000.0,
        "p50 {p50_ms} vs {}",
        sim_p50 * 1000.0
    );
    assert!(
        p99_ms > 0.75 * sim_p99 * 1000.0,
        "p99 {p99_ms} vs {}",
        sim_p99 * 1000.0
    );
}

#[tokio::test]
async fn past_capacity_the_checks_fail_and_the_verdict_says_so() {
    let _alone = ONE_AT_A_TIME.lock().await;
    // Utilisation 1.5: the queue grows without bound.
    let (rec, opts) = run(375.0, Duration::from_millis(4), 3).await;
    let analysis = checks::analyse(&rec, opts.open.as_ref(), &TYPES);
    let rate = check(&analysis, "achieved rate");
    assert_eq!(rate.status, Status::Fail, "{rate:?}");
    let queue = check(&analysis, "client queue");
    assert_eq!(queue.status, Status::Fail, "{queue:?}");
    let verdict = checks::verdict(&analysis.checks);
    assert!(
        verdict.starts_with("NOT SOUND") && verdict.contains("achieved rate"),
        "{verdict}"
    );
}
