//! What a merge of shards must be: their runs added up exactly.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hdrhistogram::Histogram;
use serde_json::Value;
use txbench_report::hlog::IntervalLog;

/// `txbench merge RUNS -o OUT`, run in `dir`.
pub fn merge(dir: &Path, runs: &[PathBuf], out: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_txbench"))
        .current_dir(dir)
        .arg("merge")
        .args(runs)
        .args(["-o", out])
        .output()
        .unwrap()
}

/// The `summary.json` of the results directory `dir`.
pub fn summary(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// Assert that `merged`, the summary of a merge of the results directories
/// `shards`, is exactly their runs added up: each type's counts the sums of
/// theirs, tpmC the sum of theirs, and each type's percentiles those of one
/// histogram of every shard's measured transactions (their interval logs
/// hold each one), never an average of theirs.
pub fn assert_exact(shards: &[PathBuf], merged: &Value) {
    let summaries: Vec<Value> = shards.iter().map(|d| summary(d)).collect();
    let types = merged["transactions"].as_array().unwrap();
    let mut committed_anywhere = 0;
    for (t, m) in types.iter().enumerate() {
        for field in ["committed", "expected_rollbacks", "retries"] {
            let sum: u64 = summaries
                .iter()
                .map(|s| s["transactions"][t][field].as_u64().unwrap())
                .sum();
            assert_eq!(m[field].as_u64().unwrap(), sum, "{} {field}", m["key"]);
        }
        committed_anywhere += m["committed"].as_u64().unwrap();
    }
    assert!(committed_anywhere > 0);
    let tpmc = |s: &Value| {
        let metrics = s["metrics"].as_array().unwrap();
        let m = metrics.iter().find(|m| m["name"] == "tpmC").unwrap();
        m["value"].as_f64().unwrap()
    };
    let sum: f64 = summaries.iter().map(tpmc).sum();
    assert!(
        (tpmc(merged) - sum).abs() <= 1e-9 * sum,
        "tpmC {} against the shards' {sum}",
        tpmc(merged)
    );

    let all = histograms(shards);
    for m in types {
        let key = m["key"].as_str().unwrap();
        let Some(h) = all.get(key) else {
            assert_eq!(m["latency_ms"]["samples"].as_u64().unwrap_or(0), 0);
            continue;
        };
        let ms = |q: f64| h.value_at_quantile(q) as f64 / 1000.0;
        let l = &m["latency_ms"];
        assert_eq!(l["samples"].as_u64().unwrap(), h.len(), "{key}");
        assert_eq!(l["p50"].as_f64().unwrap(), ms(0.5), "{key} p50");
        assert_eq!(l["p90"].as_f64().unwrap(), ms(0.9), "{key} p90");
        assert_eq!(l["p99"].as_f64().unwrap(), ms(0.99), "{key} p99");
        assert_eq!(
            l["max"].as_f64().unwrap(),
            h.max() as f64 / 1000.0,
            "{key} max"
        );
    }
}

/// One histogram a transaction type of every measured transaction of the
/// runs in `dirs`, from their interval logs.
fn histograms(dirs: &[PathBuf]) -> HashMap<String, Histogram<u64>> {
    let mut all: HashMap<String, Histogram<u64>> = HashMap::new();
    for d in dirs {
        let log = IntervalLog::read(&d.join("intervals.hlog")).unwrap();
        for i in log.intervals {
            if i.tag.contains('.') {
                continue; // service and queue times, and operations
            }
            all.entry(i.tag)
                .or_insert_with(|| Histogram::new(3).unwrap())
                .add(&i.histogram)
                .unwrap();
        }
    }
    all
}
