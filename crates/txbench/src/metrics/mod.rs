//! `--metrics-listen`: the run's figures as OpenMetrics while it runs, for
//! Prometheus to scrape and Grafana to draw (docs/grafana/txbench.json).
//!
//! The driver hands each second on ([`txbench_core::driver::Tick`]); [`Live`]
//! adds it to a snapshot under a lock, once a second, off the transactions'
//! path. A scrape encodes the snapshot with prometheus-client ([`families`]),
//! served over HTTP by hyper ([`endpoint`]). Counters and the latency
//! histogram cover the measurement window (the warm-up is not measured);
//! gauges hold the last second: in flight, queued, p50/p99 and the
//! workload's headline figures. Every series carries the run's labels
//! (workload, engine, run, shard), so that the runs of a sweep, or the shards
//! of one run scraped apart, stay apart.

mod endpoint;
mod families;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};

use txbench_core::TxnTypeInfo;
use txbench_core::driver::{Phase, Tick};
use txbench_core::error::ErrorKind;
use txbench_core::result::Metric;

use crate::failure::Failure;

/// Upper bounds of the latency histogram's buckets, in seconds: 1 µs to
/// 10 s, three a decade. From 1 µs, so that an embedded engine's
/// transactions (tens of microseconds) spread over buckets and a quantile
/// of them means something; a bucket started at 100 µs once held 99.97% of
/// an SQLite run's.
pub const LATENCY_BUCKETS_S: [f64; 22] = [
    0.000_001,
    0.000_002_5,
    0.000_005,
    0.000_01,
    0.000_025,
    0.000_05,
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
];

/// The labels every series of a run carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLabels {
    /// The workload's name (tpcc).
    pub workload: String,
    /// The engine's name (sqlite, postgres).
    pub engine: String,
    /// The run: its results directory's name, or its start time.
    pub run: String,
    /// The shard, "0/1" for a whole run.
    pub shard: String,
}

/// One transaction type's figures.
#[derive(Debug, Clone, Default)]
struct TypeFigures {
    key: &'static str,
    committed: u64,
    rollbacks: u64,
    retries: u64,
    errors: [u64; ErrorKind::ALL.len()],
    /// Cumulative counts at or under each of [`LATENCY_BUCKETS_S`], then all.
    buckets: [u64; LATENCY_BUCKETS_S.len()],
    count: u64,
    sum_s: f64,
    /// The last second's percentiles, if anything completed in it.
    p50_s: Option<f64>,
    p99_s: Option<f64>,
    in_flight: u64,
}

/// What a scrape reads: the run so far.
#[derive(Debug, Clone, Default)]
struct Snapshot {
    labels: Option<RunLabels>,
    phase: &'static str,
    types: Vec<TypeFigures>,
    queued: u64,
    headline: Vec<Metric>,
}

/// The figures of the run under way, as the endpoint serves them.
#[derive(Debug)]
pub struct Live {
    snapshot: Mutex<Snapshot>,
}

/// The endpoint of this process: one listener, whatever runs it serves in
/// turn (a sweep's steps).
static ENDPOINT: OnceLock<(SocketAddr, Arc<Live>)> = OnceLock::new();

/// The figures served at `addr`, the listener started on first use. A
/// second address in one process is refused (a sweep asks once).
pub async fn serve(addr: SocketAddr) -> Result<Arc<Live>, Failure> {
    if let Some((at, live)) = ENDPOINT.get() {
        return if *at == addr {
            Ok(Arc::clone(live))
        } else {
            Err(Failure::usage(format!(
                "--metrics-listen {addr}: this process serves its metrics at {at} already"
            )))
        };
    }
    let live = Arc::new(Live {
        snapshot: Mutex::new(Snapshot::default()),
    });
    let bound = endpoint::start(addr, Arc::clone(&live)).await?;
    crate::output::eprint_line(&format!("metrics: http://{bound}/metrics"));
    let _ = ENDPOINT.set((addr, Arc::clone(&live)));
    Ok(live)
}

impl Live {
    /// Start serving a new run's figures (the last run's are dropped).
    pub fn begin(&self, labels: RunLabels, types: &'static [TxnTypeInfo]) {
        let mut s = self.lock();
        *s = Snapshot {
            labels: Some(labels),
            phase: "warm-up",
            types: types
                .iter()
                .map(|t| TypeFigures {
                    key: t.key,
                    ..TypeFigures::default()
                })
                .collect(),
            queued: 0,
            headline: Vec::new(),
        };
    }

    /// Add one second of the run, with the workload's headline figures over
    /// it (none during the warm-up).
    pub fn tick(&self, t: &Tick<'_>, headline: Option<&[Metric]>) {
        let mut s = self.lock();
        s.phase = match t.phase {
            Phase::WarmUp => "warm-up",
            Phase::Measure => "measure",
            Phase::Finishing => "finish",
        };
        s.queued = t.queued;
        for (i, (f, stats)) in s.types.iter_mut().zip(&t.interval.measured).enumerate() {
            f.committed += stats.committed;
            f.rollbacks += stats.expected_rollbacks;
            f.retries += stats.retries;
            for (total, n) in f.errors.iter_mut().zip(stats.errors) {
                *total += n;
            }
            let h = &stats.latency;
            for (bucket, bound_s) in f.buckets.iter_mut().zip(LATENCY_BUCKETS_S) {
                *bucket += h.count_between(0, (bound_s * 1e6) as u64);
            }
            f.count += h.len();
            f.sum_s += h.mean() * h.len() as f64 / 1e6;
            let quantile = |q| (!h.is_empty()).then(|| h.value_at_quantile(q) as f64 / 1e6);
            (f.p50_s, f.p99_s) = (quantile(0.5), quantile(0.99));
            f.in_flight = t.outstanding.get(i).copied().unwrap_or(0);
        }
        if let Some(headline) = headline {
            s.headline = headline.to_vec();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Snapshot> {
        // A scrape that panicked leaves figures that are still whole.
        self.snapshot.lock().unwrap_or_else(|e| e.into_inner())
    }
}
