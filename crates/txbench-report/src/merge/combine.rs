//! Combining validated runs: their common seconds added up, histograms bucket
//! by bucket and counts one by one, into one result.

use std::collections::BTreeMap;
use std::io;
use std::time::{Duration, UNIX_EPOCH};

use txbench_core::recorder::Recorder;
use txbench_core::result::{FreshnessResult, Look, PartResult, RunResult, TypeResult};
use txbench_core::settings::RunSettings;
use txbench_core::summary::{
    operation_results, total_censored_from_ms, total_latency, type_result, wire_result,
};

use super::read::invalid;
use super::read::{RunFiles, TimelineRow};
use super::validate::{SHARD_PARAMETERS, settings_of, validate};
use crate::intervals::{Interval, LATENESS_TAG, operation_tag};

/// The merged runs.
pub struct Merged {
    /// The merged result (headline metrics left to the workload).
    pub result: RunResult,
    /// The merged intervals, one a second of the common window.
    pub intervals: Vec<Interval>,
    /// The type keys, in order.
    pub keys: Vec<String>,
    /// The timed operations' names, in order.
    pub operations: Vec<String>,
}

/// The runs' mean phases of type `t`, weighted by their completed transactions.
/// The phases are not logged per interval, so these cover the whole runs.
fn weighted_phases(runs: &[RunFiles], t: usize) -> txbench_core::result::PhaseMeans {
    let mut out = txbench_core::result::PhaseMeans::default();
    let mut n = 0.0;
    for r in runs {
        let x = &r.summary.transactions[t];
        let w = x.completed() as f64;
        let p = x.phases_ms;
        out.queue += p.queue * w;
        out.begin += p.begin * w;
        out.statements += p.statements * w;
        out.commit += p.commit * w;
        out.other += p.other * w;
        n += w;
    }
    if n > 0.0 {
        for v in [
            &mut out.queue,
            &mut out.begin,
            &mut out.statements,
            &mut out.commit,
            &mut out.other,
        ] {
            *v /= n;
        }
    }
    out
}

/// A run's shard: its index and the shards' count ((0, 1): the whole run).
fn shard_of(r: &RunFiles) -> (u32, u32) {
    (r.summary.settings.as_ref()).map_or((0, 1), |x| (x.shard_index, x.shards))
}

/// A run's own figures, for the merged report's table of the runs.
fn part_of(r: &RunFiles) -> PartResult {
    let s = &r.summary;
    let (shard_index, shards) = shard_of(r);
    PartResult {
        dir: r.dir.display().to_string(),
        shard_index,
        shards,
        per_s: s.throughput(),
        latency_ms: s.total_latency_ms.clone(),
        cpu_secs: s.cpu.process_secs,
        clock: s.clock,
        verdict: s.verdict.clone(),
    }
}

/// The runs' own figures, shards in their order (the order given, for runs
/// that are no shards).
fn parts_in_order(runs: &[RunFiles]) -> Vec<PartResult> {
    let mut parts: Vec<PartResult> = runs.iter().map(part_of).collect();
    parts.sort_by_key(|p| p.shard_index);
    parts
}

/// Merge runs made at the same time. Refuses runs of different workloads,
/// scales or transaction types, and runs whose windows do not overlap.
pub fn merge(runs: &[RunFiles]) -> io::Result<Merged> {
    let (start, end) = validate(runs)?;
    let base = &runs[0].summary;
    let keys: Vec<String> = base.transactions.iter().map(|t| t.key.clone()).collect();
    let op_names: Vec<&str> = base.operations.iter().map(|o| o.name.as_str()).collect();
    let op_tags: Vec<String> = op_names.iter().map(|n| operation_tag(n)).collect();
    let (merged, contributed_secs, errors) = add_up(runs, &keys, &op_tags, (start, end))?;
    let mut total = Recorder::new(keys.len());
    for m in &merged {
        total.merge(m);
    }
    // The measured length that makes each type's count over it equal the sum of
    // the runs' rates (the runs contributed nearly the same seconds).
    let measured_secs = contributed_secs.iter().sum::<f64>() / contributed_secs.len() as f64;
    let transactions = merged_types(runs, &total, &errors);
    let checks = merged_checks(runs);
    let verdict = txbench_core::checks::verdict(&checks);
    let window_start = UNIX_EPOCH + Duration::from_secs_f64(start);
    let intervals = merged
        .into_iter()
        .enumerate()
        .map(|(i, numbers)| Interval {
            window_start,
            start: Duration::from_secs(i as u64),
            length: Duration::from_secs_f64((end - start - i as f64).min(1.0)),
            numbers,
            figures: Vec::new(),
        })
        .collect();
    let result = RunResult {
        started_at: humantime::format_rfc3339_seconds(window_start).to_string(),
        window_start_unix_s: start,
        measured_secs,
        interrupted: runs.iter().any(|r| r.summary.interrupted),
        metrics: Vec::new(),
        transactions,
        // Whole runs' CPU, warm-up included: what the client machines spent.
        cpu: txbench_core::result::CpuResult {
            process_secs: runs.iter().map(|r| r.summary.cpu.process_secs).sum(),
            engine_thread_secs: None,
            driver_share: None,
        },
        error_samples: runs
            .iter()
            .flat_map(|r| r.summary.error_samples.clone())
            .collect(),
        open_loop: None,
        checks,
        verdict: format!("merged from {} runs: {verdict}", runs.len()),
        merged_from: runs.iter().map(|r| r.dir.display().to_string()).collect(),
        settings: Some(merged_settings(runs)?),
        parameters: merged_parameters(runs),
        scheduler: None,
        total_latency_ms: Some(total_latency(&total.measured)),
        total_censored_from_ms: total_censored_from_ms(&total.measured),
        // The shards' seconds are not kept: no batches to make them from.
        total_latency_intervals_ms: Vec::new(),
        tail_secs: runs.iter().map(|r| r.summary.tail_secs).fold(0.0, f64::max),
        operations: operation_results(&op_names, &total.operations),
        // The runs' seconds are not kept apart in a merge.
        throughput_interval: None,
        faults: merged_faults(runs),
        wire: merged_wire(runs, &total),
        warmup_per_s: Vec::new(),
        parts: parts_in_order(runs),
        // Each run's clock against the server is its own.
        clock: None,
        // Phases keep per-type percentiles, which do not add across runs;
        // each shard's own result has its phases.
        alternation: None,
        freshness: merged_freshness(runs, start),
        // Each shard's streams are its own; its result keeps them.
        streams: None,
        ..base.clone()
    };
    Ok(Merged {
        result,
        intervals,
        keys,
        operations: op_names.iter().map(|n| n.to_string()).collect(),
    })
}

/// Every run's freshness looks, each run's placed from the merge's start:
/// each shard looked at its own warehouses against its own acknowledgements.
fn merged_freshness(runs: &[RunFiles], start: f64) -> Option<FreshnessResult> {
    let of = runs
        .iter()
        .find_map(|r| r.summary.freshness.as_ref())?
        .of
        .clone();
    let mut looks: Vec<Look> = (runs.iter())
        .filter_map(|r| Some((r.summary.freshness.as_ref()?, r.summary.window_start_unix_s)))
        .flat_map(|(f, from)| {
            f.looks.iter().map(move |l| Look {
                at_s: l.at_s + from - start,
                ..*l
            })
        })
        .collect();
    looks.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    FreshnessResult::of(&of, looks)
}

/// Each type's figures over the runs' added-up seconds.
fn merged_types(runs: &[RunFiles], total: &Recorder, errors: &[u64]) -> Vec<TypeResult> {
    let all = total.completed();
    (runs[0].summary.transactions.iter())
        .enumerate()
        .map(|(t, info)| {
            let mut r = type_result(
                &info.name,
                &info.key,
                info.spec_share,
                &total.measured[t],
                all,
            );
            r.phases_ms = weighted_phases(runs, t);
            r.expected_success = info.expected_success;
            r.success_drifts_to = info.success_drifts_to;
            // The runs read the same data: the first that kept an answer's.
            r.answer_rows = runs
                .iter()
                .find_map(|run| run.summary.transactions[t].answer_rows);
            if errors[t] > 0 {
                // The timeline keeps errors per type, not per kind.
                r.errors.insert("all kinds".into(), errors[t]);
            }
            // The timeline keeps no causes: each run's whole window's, added.
            for run in runs {
                for (cause, n) in &run.summary.transactions[t].retry_causes {
                    *r.retry_causes.entry(cause.clone()).or_default() += n;
                }
            }
            r
        })
        .collect()
}

/// The kernel's timestamps of the runs that read them, from the added-up
/// times on the wire; the clock is the runs' (the log keeps no clock).
fn merged_wire(runs: &[RunFiles], total: &Recorder) -> Option<txbench_core::result::WireResult> {
    let clocks: Vec<&str> = runs
        .iter()
        .map(|r| r.summary.wire.as_ref().map(|w| w.clock.as_str()))
        .collect::<Option<_>>()?;
    let mut wire = wire_result(&total.measured);
    wire.round_trips_per_transaction =
        round_trips_per_transaction(runs.iter().filter_map(|r| r.summary.wire.as_ref()));
    wire.clock = if clocks.iter().all(|c| *c == clocks[0]) {
        clocks[0].to_string()
    } else {
        "hardware and software".into()
    };
    Some(wire)
}

/// The runs' round trips per stamped transaction together: the logs keep
/// no round trips, so their means, weighed by the transactions stamped.
fn round_trips_per_transaction<'a>(
    wires: impl Iterator<Item = &'a txbench_core::result::WireResult> + Clone,
) -> f64 {
    let stamped: u64 = wires.clone().map(|w| w.stamped).sum();
    let round_trips: f64 = wires
        .map(|w| w.round_trips_per_transaction * w.stamped as f64)
        .sum();
    round_trips / stamped.max(1) as f64
}

/// Every run's checks, each named by its run.
fn merged_checks(runs: &[RunFiles]) -> Vec<txbench_core::check::Check> {
    named_by_run(
        runs,
        |r| &r.checks,
        |c, run| c.name = format!("{run}: {}", c.name),
    )
}

/// Every run's scheduled commands and what its faults cost it, each command
/// named by its run: a fault on one client machine (its link cut) is that
/// shard's, not the whole run's.
fn merged_faults(runs: &[RunFiles]) -> Vec<txbench_core::faults::FaultResult> {
    named_by_run(
        runs,
        |r| &r.faults,
        |f, run| f.command = format!("{run}: {}", f.command),
    )
}

/// Every run's `items`, each given its run's [`label`] by `name`.
fn named_by_run<T: Clone>(
    runs: &[RunFiles],
    items: impl Fn(&RunResult) -> &[T],
    name: impl Fn(&mut T, &str),
) -> Vec<T> {
    let mut out = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let run = label(i, r);
        for item in items(&r.summary) {
            let mut item = item.clone();
            name(&mut item, &run);
            out.push(item);
        }
    }
    out
}

/// How the merge names run `i`: its shard ("shard 1 of 3"), or for runs
/// that are no shards its place in the list ("run 2").
fn label(i: usize, r: &RunFiles) -> String {
    let (index, count) = shard_of(r);
    match txbench_core::Shard::new(index, count) {
        Ok(shard) if !shard.is_whole() => shard.to_string(),
        _ => format!("run {}", i + 1),
    }
}

/// The merged run's settings: the first run's, with the terminals and
/// sessions of all the runs; for shards, the whole run rather than the first
/// shard.
fn merged_settings(runs: &[RunFiles]) -> io::Result<RunSettings> {
    let all = runs
        .iter()
        .map(settings_of)
        .collect::<io::Result<Vec<_>>>()?;
    let mut merged = all[0].clone();
    merged.terminals = all.iter().map(|s| s.terminals).sum();
    merged.connections = all.iter().map(|s| s.connections).sum();
    merged.connections_sizing = format!("the {} merged runs' together", runs.len());
    merged.shard_index = 0;
    Ok(merged)
}

/// What the workload said of the data, and how many runs were merged; a
/// shard's part of the data is left out (the merged run is the whole).
fn merged_parameters(runs: &[RunFiles]) -> BTreeMap<String, String> {
    let mut parameters = runs[0].summary.parameters.clone();
    parameters.insert("merged_runs".into(), runs.len().to_string());
    for key in SHARD_PARAMETERS {
        parameters.remove(key);
    }
    parameters
}

/// Each common second of the window: every run's counts and histograms of
/// that second added (the timeline's counts, the interval log's histograms),
/// and the measured seconds each run contributed and its errors per type.
fn add_up(
    runs: &[RunFiles],
    keys: &[String],
    op_tags: &[String],
    (start, end): (f64, f64),
) -> io::Result<(Vec<Recorder>, Vec<f64>, Vec<u64>)> {
    let types = keys.len();
    let seconds = (end - start).ceil() as usize;
    let mut merged: Vec<Recorder> = (0..seconds).map(|_| Recorder::new(types)).collect();
    let mut contributed_secs = Vec::new();
    let mut errors = vec![0u64; types];
    for r in runs {
        let slots = Slots {
            offset: r.summary.window_start_unix_s - start,
            own_end: r.summary.measured_secs,
            span: end - start,
        };
        contributed_secs.push(add_timeline(r, slots, &mut merged, &mut errors));
        add_log(r, slots, keys, op_tags, &mut merged)?;
    }
    Ok((merged, contributed_secs, errors))
}

/// Where a run's intervals fall among the common seconds.
#[derive(Clone, Copy)]
struct Slots {
    /// The run's window start after the common start (s).
    offset: f64,
    /// The run's own measured length (s).
    own_end: f64,
    /// The common window's length (s).
    span: f64,
}

impl Slots {
    /// The common second an interval of the run falls in, if any; one after
    /// the run's own window counts in its last instant.
    fn of(&self, start_s: f64, length_s: f64) -> Option<usize> {
        let middle = (start_s + length_s / 2.0).min(self.own_end - 1e-6) + self.offset;
        (middle >= 0.0 && middle < self.span).then(|| middle.floor() as usize)
    }
}

/// Add a run's timeline counts; the measured seconds it contributed.
fn add_timeline(r: &RunFiles, slots: Slots, merged: &mut [Recorder], errors: &mut [u64]) -> f64 {
    let own_end = slots.own_end;
    // Only the part of a row inside the run's window is measured time.
    let measured =
        |row: &TimelineRow| (row.start_s + row.length_s).min(own_end) - row.start_s.min(own_end);
    let mut secs = 0.0;
    for row in &r.timeline.rows {
        let Some(i) = slots.of(row.start_s, row.length_s) else {
            continue;
        };
        secs += measured(row);
        for (t, c) in row.types.iter().enumerate() {
            let m = &mut merged[i].measured[t];
            m.committed += c.committed;
            m.expected_rollbacks += c.rollbacks;
            m.retries += c.retries;
            m.unfinished += c.unfinished;
            m.shed += c.shed;
            errors[t] += c.errors;
        }
    }
    // The rows' times are rounded (timeline.csv keeps milliseconds):
    // scaled so that the run's rows add up to its measured length, a run
    // that measured the whole common window contributes exactly that length,
    // and shards' rates add up to the merged run's exactly.
    let rows_total: f64 = r.timeline.rows.iter().map(measured).sum();
    if rows_total > 0.0 {
        secs * own_end / rows_total
    } else {
        secs
    }
}

/// Add a run's logged histograms: operations, the senders' lateness, and
/// each type's latency, service, queue and unfinished times.
fn add_log(
    r: &RunFiles,
    slots: Slots,
    keys: &[String],
    op_tags: &[String],
    merged: &mut [Recorder],
) -> io::Result<()> {
    for interval in &r.log.intervals {
        let Some(i) = slots.of(interval.start.as_secs_f64(), interval.length.as_secs_f64()) else {
            continue;
        };
        if let Some(op) = op_tags.iter().position(|t| *t == interval.tag) {
            merged[i]
                .record_operation_histogram(op, &interval.histogram)
                .map_err(|e| invalid(&r.dir, format!("tag {}: {e}", interval.tag)))?;
            continue;
        }
        if interval.tag == LATENESS_TAG {
            merged[i]
                .lateness
                .add(&interval.histogram)
                .expect("same bounds");
            continue;
        }
        let (key, part) = match interval.tag.split_once('.') {
            Some((k, p)) => (k, p),
            None => (interval.tag.as_str(), "latency"),
        };
        let Some(t) = keys.iter().position(|k| k == key) else {
            continue;
        };
        let stats = &mut merged[i].measured[t];
        let h = match part {
            "latency" => &mut stats.latency,
            "service" => &mut stats.service,
            "queue" => &mut stats.queue,
            "unfinished" => &mut stats.censored,
            "wire" => &mut stats.wire,
            _ => continue,
        };
        h.add(&interval.histogram).expect("same bounds");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use txbench_core::result::{Percentiles, WireResult};

    fn wire(stamped: u64, round_trips_per_transaction: f64) -> WireResult {
        WireResult {
            clock: "software".into(),
            stamped,
            unstamped: 0,
            total_wire_ms: Percentiles::default(),
            round_trips_per_transaction,
            client_p50_ms: 0.0,
            client_p99_ms: 0.0,
        }
    }

    #[test]
    fn round_trips_merge_as_the_mean_of_every_transaction() {
        // 100 transactions of 2 and 300 of 3: 1,100 round trips in 400.
        let runs = [wire(100, 2.0), wire(300, 3.0)];
        assert_eq!(super::round_trips_per_transaction(runs.iter()), 2.75);
        assert_eq!(super::round_trips_per_transaction([].iter()), 0.0);
    }
}
