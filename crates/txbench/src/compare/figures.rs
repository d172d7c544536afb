//! The figures `compare` sets side by side, read from each run's result:
//! throughput, the workload's own metrics, and per transaction type its
//! p50, p99, p99.9 and share of errors, each with the 95% interval the run
//! gives it where it has one.

use serde::Serialize;
use txbench_core::result::{Percentiles, RunResult, TypeResult};
use txbench_core::stats::batch_quantile;

/// Which way a figure should move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Higher,
    Lower,
}

/// What a run's figure can be compared with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Evidence {
    /// The figure with its 95% interval within the run.
    Interval(f64, f64),
    /// The run marked the figure insufficient: it has no interval, and comparing
    /// it would be reading noise.
    Insufficient,
    /// The figure has no interval (a headline metric, an older or merged result).
    None,
}

/// One run's figure: its value (`None` where the run lacks it) and evidence.
pub type Value = (Option<f64>, Evidence);

/// A figure of every run compared.
#[derive(Debug)]
pub struct Figure {
    pub name: String,
    pub better: Better,
    /// One value per run, in the order the runs were given.
    pub runs: Vec<Value>,
    /// Where a run lacks its interval: how long each run would have to be
    /// to have one (the longest any run would need), in seconds.
    pub needs_secs: Option<f64>,
}

/// A run's result for the transaction type with this key.
fn type_of<'a>(r: &'a RunResult, key: &str) -> Option<&'a TypeResult> {
    r.transactions.iter().find(|x| x.key == key)
}

/// Which percentile of a [`Percentiles`] a row shows.
type Pick = fn(&Percentiles) -> f64;

/// A type's latency percentile with the evidence its interval gives.
fn percentile(t: &TypeResult, at: f64, pick: Pick) -> Value {
    if t.latency_ms.samples == 0 {
        return (None, Evidence::None);
    }
    let evidence = match t
        .latency_intervals_ms
        .iter()
        .find(|i| (i.percentile - at).abs() < 1e-9)
    {
        Some(i) => match (i.low, i.high) {
            (Some(l), Some(h)) => Evidence::Interval(l, h),
            _ => Evidence::Insufficient,
        },
        None => Evidence::None,
    };
    (Some(pick(&t.latency_ms)), evidence)
}

/// A type's share of failed transactions (%), with its Wilson score interval.
pub fn error_share(t: &TypeResult) -> Value {
    let failed = t.failed() as f64;
    let n = failed + t.completed() as f64;
    if n == 0.0 {
        return (None, Evidence::None);
    }
    let p = failed / n;
    let z = txbench_core::stats::Z95;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (
        Some(p * 100.0),
        Evidence::Interval(
            (centre - half).max(0.0) * 100.0,
            (centre + half).min(1.0) * 100.0,
        ),
    )
}

impl Figure {
    /// A figure whose runs all have what an interval needs, or none to have.
    pub fn of(name: String, better: Better, runs: Vec<Value>) -> Figure {
        Figure {
            name,
            better,
            runs,
            needs_secs: None,
        }
    }
}

/// Every figure of `runs`, named as the first run names them.
pub fn figures(runs: &[&RunResult]) -> Vec<Figure> {
    let mut out = Vec::new();
    out.push(Figure::of(
        "throughput txn/s".into(),
        Better::Higher,
        runs.iter()
            .map(|r| {
                let evidence = r
                    .throughput_interval
                    .map_or(Evidence::None, |[l, h]| Evidence::Interval(l, h));
                (Some(r.throughput()), evidence)
            })
            .collect(),
    ));
    for m in runs[0].metrics.iter().filter(|m| m.name != "throughput") {
        out.push(Figure::of(
            format!("{} {}", m.name, m.unit).trim().to_string(),
            Better::Higher,
            runs.iter()
                .map(|r| (r.metric(&m.name), Evidence::None))
                .collect(),
        ));
    }
    let picks: [(&str, f64, Pick); 3] = [
        ("p50 ms", 50.0, |p| p.p50),
        ("p99 ms", 99.0, |p| p.p99),
        ("p99.9 ms", 99.9, |p| p.p999),
    ];
    for t in &runs[0].transactions {
        for (label, at, pick) in picks {
            let values: Vec<Value> = runs
                .iter()
                .map(|r| {
                    type_of(r, &t.key).map_or((None, Evidence::None), |x| percentile(x, at, pick))
                })
                .collect();
            // The longest any run short of its interval would need.
            let needs_secs = (runs.iter().zip(&values))
                .filter(|(_, v)| v.1 == Evidence::Insufficient)
                .filter_map(|(r, _)| seconds_to_bound(r, &t.key, at))
                .reduce(f64::max);
            out.push(Figure {
                needs_secs,
                ..Figure::of(format!("{} {label}", t.name), Better::Lower, values)
            });
        }
        out.push(Figure::of(
            format!("{} errors %", t.name),
            Better::Lower,
            runs.iter()
                .map(|r| type_of(r, &t.key).map_or((None, Evidence::None), error_share))
                .collect(),
        ));
    }
    out
}

/// How long a run at `r`'s rate of type `key` would have to be for a batch
/// interval of percentile `at`: ten seconds, and
/// [`batch_quantile::MIN_TAIL`] latencies beyond the percentile in each of
/// ten batches (p99: 10,000 latencies).
fn seconds_to_bound(r: &RunResult, key: &str, at: f64) -> Option<f64> {
    let t = type_of(r, key)?;
    let batches = batch_quantile::MIN_BATCHES as f64;
    let latencies = batches * batch_quantile::MIN_TAIL / (1.0 - at / 100.0);
    let rate = t.completed() as f64 / r.measured_secs.max(f64::MIN_POSITIVE);
    (rate > 0.0).then(|| (latencies / rate).max(batches).ceil())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_share_interval_holds_the_share() {
        let mut t: TypeResult = serde_json::from_value(serde_json::json!({
            "name": "A", "key": "a", "committed": 900, "expected_rollbacks": 0,
            "retries": 0, "errors": {"serialization": 100}, "share": 1.0, "spec_share": 1.0,
            "latency_ms": {"samples": 0, "mean": 0.0, "p50": 0.0, "p90": 0.0, "p95": 0.0,
                "p99": 0.0, "p999": 0.0, "max": 0.0},
            "service_ms": {"samples": 0, "mean": 0.0, "p50": 0.0, "p90": 0.0, "p95": 0.0,
                "p99": 0.0, "p999": 0.0, "max": 0.0}
        }))
        .unwrap();
        let (share, Evidence::Interval(low, high)) = error_share(&t) else {
            panic!("no interval");
        };
        assert_eq!(share, Some(10.0));
        assert!(
            low < 10.0 && 10.0 < high && high - low < 4.0,
            "{low}..{high}"
        );
        t.errors.clear();
        let (share, Evidence::Interval(low, high)) = error_share(&t) else {
            panic!("no interval");
        };
        assert_eq!(share, Some(0.0));
        assert!(
            low.abs() < 1e-12 && high > 0.0 && high < 0.5,
            "{low}..{high}"
        );
    }
}
