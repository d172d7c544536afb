//! A snapshot of the run as OpenMetrics families, encoded by prometheus-client
//! at each scrape.

use std::borrow::Cow;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::{Registry, Unit};
use txbench_core::error::ErrorKind;

use super::{LATENCY_BUCKETS_S, Snapshot, TypeFigures};

/// Every metric family the endpoint serves, by its full name as a scrape
/// shows it (counters with their `_total`): the dashboard may use these
/// only, which a test holds.
#[cfg(test)]
const SERVED: [&str; 11] = [
    "txbench_committed_total",
    "txbench_rollbacks_total",
    "txbench_retries_total",
    "txbench_errors_total",
    "txbench_in_flight",
    "txbench_client_queue",
    "txbench_latency_seconds",
    "txbench_latency_p50_seconds",
    "txbench_latency_p99_seconds",
    "txbench_headline",
    "txbench_phase",
];

/// The OpenMetrics text of a snapshot, `# EOF` included.
pub fn encode(snapshot: Snapshot) -> Result<String, std::fmt::Error> {
    let labels = snapshot.labels.clone().map_or_else(Vec::new, |l| {
        vec![
            (Cow::Borrowed("workload"), Cow::Owned(l.workload)),
            (Cow::Borrowed("engine"), Cow::Owned(l.engine)),
            (Cow::Borrowed("run"), Cow::Owned(l.run)),
            (Cow::Borrowed("shard"), Cow::Owned(l.shard)),
        ]
    });
    let mut registry = Registry::with_prefix_and_labels("txbench", labels.into_iter());
    registry.register_collector(Box::new(snapshot));
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry)?;
    Ok(text)
}

impl Collector for Snapshot {
    fn encode(&self, mut e: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let types = &self.types;
        counter(
            &mut e,
            "committed",
            "Transactions committed in the measurement window",
            types,
            |f| f.committed,
        )?;
        counter(
            &mut e,
            "rollbacks",
            "Transactions rolled back as the workload expects (TPC-C's 1% of New-Orders)",
            types,
            |f| f.rollbacks,
        )?;
        counter(
            &mut e,
            "retries",
            "Attempts retried after a conflict or a busy database",
            types,
            |f| f.retries,
        )?;
        errors(&mut e, types)?;
        gauge(
            &mut e,
            "in_flight",
            None,
            "Transactions sent to the sessions and not finished (queued in the client or executing)",
            types,
            |f| Some(f.in_flight as f64),
        )?;
        let queue = ConstGauge::new(self.queued as f64);
        let m = e.encode_descriptor(
            "client_queue",
            "Transactions waiting in the client for a free session",
            None,
            queue.metric_type(),
        )?;
        queue.encode(m)?;
        latency(&mut e, types)?;
        gauge(
            &mut e,
            "latency_p50",
            Some(&Unit::Seconds),
            "Median latency from the intended start over the last second",
            types,
            |f| f.p50_s,
        )?;
        gauge(
            &mut e,
            "latency_p99",
            Some(&Unit::Seconds),
            "99th percentile of latency from the intended start over the last second",
            types,
            |f| f.p99_s,
        )?;
        headline(&mut e, self)?;
        let phase = ConstGauge::new(1.0);
        let mut m = e.encode_descriptor(
            "phase",
            "Where the run is (warm-up, measure, finish): 1 on the current phase",
            None,
            MetricType::Gauge,
        )?;
        phase.encode(m.encode_family(&[("phase", self.phase)])?)
    }
}

/// A counter per transaction type.
fn counter(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    types: &[TypeFigures],
    value: impl Fn(&TypeFigures) -> u64,
) -> Result<(), std::fmt::Error> {
    let mut m = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    for f in types {
        ConstCounter::new(value(f)).encode(m.encode_family(&[("type", f.key)])?)?;
    }
    Ok(())
}

/// A gauge per transaction type that has a value; none without one.
fn gauge(
    e: &mut DescriptorEncoder,
    name: &str,
    unit: Option<&Unit>,
    help: &str,
    types: &[TypeFigures],
    value: impl Fn(&TypeFigures) -> Option<f64>,
) -> Result<(), std::fmt::Error> {
    let values: Vec<(&str, f64)> = types
        .iter()
        .filter_map(|f| value(f).map(|v| (f.key, v)))
        .collect();
    // A family without a sample is left out (some parsers misread one).
    if values.is_empty() {
        return Ok(());
    }
    let mut m = e.encode_descriptor(name, help, unit, MetricType::Gauge)?;
    for (key, v) in values {
        ConstGauge::new(v).encode(m.encode_family(&[("type", key)])?)?;
    }
    Ok(())
}

/// Failed transactions by type and kind of error.
fn errors(e: &mut DescriptorEncoder, types: &[TypeFigures]) -> Result<(), std::fmt::Error> {
    let mut m = e.encode_descriptor(
        "errors",
        "Transactions that failed after their retries, by kind of error",
        None,
        MetricType::Counter,
    )?;
    for f in types {
        for (kind, n) in ErrorKind::ALL.iter().zip(f.errors) {
            let labels = [("type", f.key), ("kind", kind.name())];
            ConstCounter::new(n).encode(m.encode_family(&labels)?)?;
        }
    }
    Ok(())
}

/// Latency from the intended start, bucketed, per type.
fn latency(e: &mut DescriptorEncoder, types: &[TypeFigures]) -> Result<(), std::fmt::Error> {
    // The unit is in the name only: OpenMetrics parsers differ on whether a
    // histogram may carry a UNIT line, and none requires one.
    let mut m = e.encode_descriptor(
        "latency_seconds",
        "Latency from the intended start of the transactions completed in the measurement window (seconds)",
        None,
        MetricType::Histogram,
    )?;
    for f in types {
        // The encoder takes each bucket's own count and adds them up.
        let mut below = 0;
        let mut buckets: Vec<(f64, u64)> = LATENCY_BUCKETS_S
            .iter()
            .zip(f.buckets)
            .map(|(&bound, at_or_under)| {
                let own = at_or_under.saturating_sub(below);
                below = at_or_under.max(below);
                (bound, own)
            })
            .collect();
        buckets.push((f64::INFINITY, f.count.saturating_sub(below)));
        m.encode_family(&[("type", f.key)])?
            .encode_histogram::<NoLabelSet>(f.sum_s, f.count, &buckets, None)?;
    }
    Ok(())
}

/// The workload's headline figures over the last second (tpmC, MQTh, ...).
fn headline(e: &mut DescriptorEncoder, s: &Snapshot) -> Result<(), std::fmt::Error> {
    if s.headline.is_empty() {
        return Ok(());
    }
    let mut m = e.encode_descriptor(
        "headline",
        "The workload's headline figures over the last second (tpmC, MQTh, committed/s, abort rate), by name and unit",
        None,
        MetricType::Gauge,
    )?;
    for metric in &s.headline {
        let labels = [
            ("name", metric.name.as_str()),
            ("unit", metric.unit.as_str()),
        ];
        ConstGauge::new(metric.value).encode(m.encode_family(&labels)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::RunLabels;
    use txbench_core::result::Metric;

    fn snapshot() -> Snapshot {
        let mut new_order = TypeFigures {
            key: "new_order",
            committed: 7,
            rollbacks: 1,
            retries: 2,
            count: 8,
            sum_s: 0.016,
            p50_s: Some(0.002),
            p99_s: Some(0.004),
            in_flight: 3,
            ..TypeFigures::default()
        };
        new_order.errors[1] = 4;
        // Six at or under 2.5 ms, eight at or under 5 ms and above.
        new_order.buckets = [
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
        ];
        Snapshot {
            labels: Some(RunLabels {
                workload: "tpcc".into(),
                engine: "sqlite".into(),
                run: "20261126T040000Z-tpcc-sqlite".into(),
                shard: "0/1".into(),
            }),
            phase: "measure",
            types: vec![new_order],
            queued: 5,
            headline: vec![Metric {
                name: "tpmC".into(),
                value: 420.0,
                unit: "New-Order/min".into(),
                counts: None,
                interval: None,
            }],
        }
    }

    #[test]
    fn a_scrape_holds_every_family_served_with_the_run_labels() {
        let text = encode(snapshot()).unwrap();
        for name in SERVED {
            assert!(
                text.lines().any(|l| l.starts_with(name)),
                "{name} missing from:\n{text}"
            );
        }
        assert!(text.ends_with("# EOF\n"), "{text}");
        let committed = text
            .lines()
            .find(|l| l.starts_with("txbench_committed_total{"))
            .unwrap();
        for label in [
            "workload=\"tpcc\"",
            "engine=\"sqlite\"",
            "run=\"20261126T040000Z-tpcc-sqlite\"",
            "shard=\"0/1\"",
            "type=\"new_order\"",
        ] {
            assert!(committed.contains(label), "{committed}");
        }
        assert!(committed.ends_with(" 7"), "{committed}");
    }

    #[test]
    fn latency_buckets_count_up_to_every_transaction() {
        let text = encode(snapshot()).unwrap();
        let bucket = |le: &str| {
            text.lines()
                .find(|l| {
                    l.starts_with("txbench_latency_seconds_bucket{")
                        && l.contains(&format!("le=\"{le}\""))
                })
                .and_then(|l| l.rsplit(' ').next())
                .unwrap_or_else(|| panic!("no bucket le={le} in:\n{text}"))
                .to_string()
        };
        assert_eq!(bucket("0.001"), "0");
        assert_eq!(bucket("0.0025"), "6");
        assert_eq!(bucket("0.005"), "8");
        assert_eq!(bucket("+Inf"), "8");
        assert!(text.contains("txbench_latency_seconds_count{"));
    }

    /// Every metric the dashboard asks for is one the endpoint serves (a
    /// histogram's `_bucket`, `_sum` and `_count` are its own).
    #[test]
    fn the_grafana_dashboard_uses_only_served_metrics() {
        let dashboard: serde_json::Value =
            serde_json::from_str(include_str!("../../../../docs/grafana/txbench.json")).unwrap();
        let mut exprs = Vec::new();
        collect_strings(&dashboard, &mut exprs);
        let mut used = 0;
        for expr in &exprs {
            for name in metric_names(expr) {
                let base = ["_bucket", "_sum", "_count"]
                    .iter()
                    .find_map(|s| name.strip_suffix(s).filter(|b| SERVED.contains(b)))
                    .unwrap_or(&name);
                assert!(
                    SERVED.contains(&base),
                    "the dashboard uses {name}, not served"
                );
                used += 1;
            }
        }
        assert!(used >= 10, "the dashboard names {used} metrics");
    }

    fn collect_strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|v| collect_strings(v, out)),
            serde_json::Value::Object(o) => o.values().for_each(|v| collect_strings(v, out)),
            _ => {}
        }
    }

    /// The `txbench_...` identifiers in a query.
    fn metric_names(expr: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut rest = expr;
        while let Some(at) = rest.find("txbench_") {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            names.push(tail[..end].to_string());
            rest = &tail[end..];
        }
        names
    }
}
