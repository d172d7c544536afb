//! Results for the report's tests: a run's summary with every field set,
//! which a test changes where it needs to.

use std::collections::BTreeMap;

use txbench_core::result::{CpuResult, Percentiles, RunResult, TypeResult};
use txbench_core::settings::{Affinity, Load, RunSettings, Scale, WaitMode};

/// A TPC-C run of `warehouses` on SQLite whose window starts at `start`
/// (Unix seconds), of two types `A` and `B` that measured nothing: tests set
/// what they need.
pub(crate) fn summary(warehouses: i64, start: f64) -> RunResult {
    let t = |name: &str, key: &str| TypeResult {
        name: name.into(),
        key: key.into(),
        committed: 0,
        expected_rollbacks: 0,
        retries: 0,
        retry_causes: BTreeMap::new(),
        errors: BTreeMap::new(),
        unfinished: 0,
        shed: 0,
        abandoned: 0,
        censored_from_ms: None,
        share: 0.0,
        spec_share: 0.5,
        expected_success: None,
        success_drifts_to: None,
        latency_ms: Percentiles::default(),
        service_ms: Percentiles::default(),
        queue_ms: Percentiles::default(),
        wire_ms: None,
        latency_intervals_ms: Vec::new(),
        phases_ms: Default::default(),
        answer_rows: None,
    };
    RunResult {
        schema_version: 3,
        txbench_version: "test".into(),
        workload: "tpcc".into(),
        workload_title: "TPC-C".into(),
        engine: "sqlite".into(),
        target: "sqlite::memory:".into(),
        started_at: "2027-01-15T08:00:00Z".into(),
        window_start_unix_s: start,
        server_version: String::new(),
        machine: Default::default(),
        merged_from: Vec::new(),
        settings: Some(settings(warehouses)),
        parameters: BTreeMap::new(),
        measured_secs: 5.0,
        interrupted: false,
        metrics: Vec::new(),
        transactions: vec![t("A", "a"), t("B", "b")],
        cpu: CpuResult::default(),
        error_samples: Vec::new(),
        open_loop: None,
        checks: Vec::new(),
        verdict: String::new(),
        scheduler: None,
        total_latency_ms: None,
        total_censored_from_ms: None,
        total_latency_intervals_ms: Vec::new(),
        tail_secs: 0.0,
        operations: vec![txbench_core::result::OperationResult {
            name: "get".into(),
            latency_ms: Percentiles::default(),
        }],
        throughput_interval: None,
        faults: Vec::new(),
        wire: None,
        warmup_per_s: Vec::new(),
        parts: Vec::new(),
        clock: None,
        alternation: None,
        freshness: None,
        streams: None,
    }
}

/// The settings of [`summary`]'s run: 10 terminals on 10 connections.
fn settings(warehouses: i64) -> RunSettings {
    RunSettings {
        scale: Scale {
            unit: "warehouses".into(),
            value: warehouses,
        },
        options: Default::default(),
        duration_secs: 5.0,
        transactions: None,
        warmup_secs: 0.0,
        terminals: 10,
        connections: 10,
        connections_sizing: "--connections".into(),
        wait: WaitMode::None,
        seed: 1,
        load: Load::Closed,
        max_retries: 5,
        grace_secs: 5.0,
        affinity: Affinity::Off,
        isolation: None,
        round_trips: Default::default(),
        timestamps: Default::default(),
        nodes: 1,
        shard_index: 0,
        shards: 1,
        start_at: None,
    }
}
