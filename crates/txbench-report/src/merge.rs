//! Exact merges of runs made at the same time (one per client machine): the
//! runs' per-second intervals inside the common measurement window are added,
//! histograms bucket by bucket and counts one by one; nothing is averaged.
//!
//! An interval belongs to the common window when its middle lies inside it; an
//! interval after a run's own window (its grace: what was due in the window and
//! completed after it, and what was given up) counts in that window's last
//! second. The merged measured length is the mean of the seconds each run
//! contributed (they differ by a fraction of a second), so throughput and tpmC
//! over it are the runs' rates added up.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use txbench_core::recorder::Recorder;
use txbench_core::result::{RunResult, TypeResult};
use txbench_core::summary::{
    operation_results, total_censored_from_ms, total_latency, type_result,
};

use crate::hlog::IntervalLog;
use crate::intervals::{HLOG_FILE, Interval, LATENESS_TAG, TIMELINE_FILE, operation_tag};
use crate::results::read_summary;

/// The counts of one type in one timeline row.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TypeCounts {
    /// Committed.
    pub committed: u64,
    /// Expected rollbacks.
    pub rollbacks: u64,
    /// Failed, all kinds.
    pub errors: u64,
    /// Retries.
    pub retries: u64,
    /// Due in the window and never finished (0 in files written before it was kept).
    pub unfinished: u64,
    /// Shed by the client (likewise).
    pub shed: u64,
}

/// One row of `timeline.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRow {
    /// Start from the window's start, seconds.
    pub start_s: f64,
    /// Length, seconds.
    pub length_s: f64,
    /// Per type, in the summary's type order.
    pub types: Vec<TypeCounts>,
}

/// Everything merge reads from one results directory.
pub struct RunFiles {
    /// The directory.
    pub dir: PathBuf,
    /// Its summary.
    pub summary: RunResult,
    /// Its interval log.
    pub log: IntervalLog,
    /// Its timeline.
    pub timeline: Vec<TimelineRow>,
}

fn invalid(path: &Path, what: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {what}", path.display()),
    )
}

/// Read a timeline for types with these keys.
pub fn read_timeline(path: &Path, keys: &[&str]) -> io::Result<Vec<TimelineRow>> {
    let mut reader = csv::Reader::from_path(path).map_err(|e| invalid(path, e))?;
    let headers = reader.headers().map_err(|e| invalid(path, e))?.clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| invalid(path, format!("no column '{name}'")))
    };
    let (start, length) = (column("start_s")?, column("length_s")?);
    let mut per_type = Vec::new();
    for k in keys {
        per_type.push((
            [
                column(&format!("{k}_committed"))?,
                column(&format!("{k}_rollbacks"))?,
                column(&format!("{k}_errors"))?,
                column(&format!("{k}_retries"))?,
            ],
            [
                column(&format!("{k}_unfinished")).ok(),
                column(&format!("{k}_shed")).ok(),
            ],
        ));
    }
    let mut rows = Vec::new();
    // A torn last line (a killed run) ends the timeline; an unreadable line
    // with more after it is damage, and refused.
    let mut torn: Option<usize> = None;
    for (i, record) in reader.records().enumerate() {
        if let Some(i) = torn {
            return Err(invalid(
                path,
                format!("line {} is not a timeline row", i + 2),
            ));
        }
        let Ok(record) = record else {
            torn = Some(i);
            continue;
        };
        let num = |i: usize| record.get(i).and_then(|v| v.parse::<f64>().ok());
        let count = |i: usize| record.get(i).and_then(|v| v.parse::<u64>().ok());
        let (Some(start_s), Some(length_s)) = (num(start), num(length)) else {
            torn = Some(i);
            continue;
        };
        let mut types = Vec::new();
        for (cols, optional) in &per_type {
            let [unfinished, shed] = optional.map(|c| c.and_then(count).unwrap_or(0));
            match cols.map(count) {
                [
                    Some(committed),
                    Some(rollbacks),
                    Some(errors),
                    Some(retries),
                ] => types.push(TypeCounts {
                    committed,
                    rollbacks,
                    errors,
                    retries,
                    unfinished,
                    shed,
                }),
                _ => return Err(invalid(path, format!("bad row at {start_s} s"))),
            }
        }
        rows.push(TimelineRow {
            start_s,
            length_s,
            types,
        });
    }
    Ok(rows)
}

/// Read the summary, interval log and timeline of a results directory.
pub fn read_run(dir: &Path) -> io::Result<RunFiles> {
    let summary = read_summary(dir)?;
    let keys: Vec<&str> = summary
        .transactions
        .iter()
        .map(|t| t.key.as_str())
        .collect();
    let timeline = read_timeline(&dir.join(TIMELINE_FILE), &keys)?;
    let log = IntervalLog::read(&dir.join(HLOG_FILE))?;
    Ok(RunFiles {
        dir: dir.to_path_buf(),
        summary,
        log,
        timeline,
    })
}

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

/// Parameters every shard of one run shares: they make the shards parts of the
/// same run (the scale and workload are checked for every merge).
const SHARED_PARAMETERS: [&str; 11] = [
    "wait",
    "duration_secs",
    "warmup_secs",
    "start_at",
    "seed",
    "isolation",
    "max_retries",
    "load",
    "zipf",
    "value_size",
    "affinity",
];

/// Parameters that describe one shard, not the merged run.
const SHARD_PARAMETERS: [&str; 4] = [
    "shard_index",
    "home_warehouses",
    "drawn_subscribers",
    "drawn_keys",
];

/// Window starts of a shard set may differ by this much (clocks and the start
/// tolerance); more means the shards were not started for the same time.
const SHARD_WINDOW_SLACK_SECS: f64 = 1.0;

/// The shard count a run records (1 for an unsharded run, or one written
/// before shards existed).
fn shard_count(r: &RunFiles) -> io::Result<u32> {
    match r.summary.parameters.get("shards") {
        None => Ok(1),
        Some(v) => v
            .parse()
            .map_err(|_| invalid(&r.dir, format!("shards = '{v}' is not a count"))),
    }
}

/// When the runs are shards (`--shards` above 1), check that they are one
/// run's complete set: one count N, indexes 0..N-1 each once, the same
/// settings, and windows that start together. Runs that are not shards
/// (separate clients driving the whole scale at once) are left as they are.
pub fn check_shard_set(runs: &[RunFiles]) -> io::Result<()> {
    let counts = runs
        .iter()
        .map(shard_count)
        .collect::<io::Result<Vec<u32>>>()?;
    if counts.iter().all(|&n| n == 1) {
        return Ok(());
    }
    let first = &runs[0];
    for (r, &n) in runs.iter().zip(&counts) {
        if n != counts[0] {
            return Err(refuse(format!(
                "{} is a shard of {n}, {} of {}: not one run's shards",
                r.dir.display(),
                first.dir.display(),
                counts[0]
            )));
        }
    }
    let n = counts[0];
    let mut holders: Vec<Vec<String>> = vec![Vec::new(); n as usize];
    for r in runs {
        let index: u32 = r
            .summary
            .parameters
            .get("shard_index")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| {
                refuse(format!(
                    "{}: a shard without a shard_index",
                    r.dir.display()
                ))
            })?;
        let slot = holders.get_mut(index as usize).ok_or_else(|| {
            refuse(format!(
                "{}: shard index {index} of {n} is out of range",
                r.dir.display()
            ))
        })?;
        slot.push(r.dir.display().to_string());
    }
    let duplicates: Vec<String> = holders
        .iter()
        .enumerate()
        .filter(|(_, dirs)| dirs.len() > 1)
        .map(|(i, dirs)| format!("shard {i} ({})", dirs.join(", ")))
        .collect();
    if !duplicates.is_empty() {
        return Err(refuse(format!(
            "the same shard given more than once: {}",
            duplicates.join("; ")
        )));
    }
    let missing: Vec<String> = holders
        .iter()
        .enumerate()
        .filter(|(_, dirs)| dirs.is_empty())
        .map(|(i, _)| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(refuse(format!(
            "shard{} {} of {n} missing: a shard set merges only when complete",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", ")
        )));
    }
    for r in &runs[1..] {
        for key in SHARED_PARAMETERS {
            let (a, b) = (
                first.summary.parameters.get(key),
                r.summary.parameters.get(key),
            );
            if a != b {
                return Err(refuse(format!(
                    "{key} differs: {} in {}, {} in {}: not one run's shards",
                    a.map_or("none", String::as_str),
                    first.dir.display(),
                    b.map_or("none", String::as_str),
                    r.dir.display()
                )));
            }
        }
    }
    let starts = runs.iter().map(|r| r.summary.window_start_unix_s);
    let (lo, hi) = starts.fold((f64::MAX, f64::MIN), |(lo, hi), s| (lo.min(s), hi.max(s)));
    if hi - lo > SHARD_WINDOW_SLACK_SECS {
        return Err(refuse(format!(
            "the shards' measurement windows start {:.3} s apart (more than {SHARD_WINDOW_SLACK_SECS} s): \
             start them with the same --start-at",
            hi - lo
        )));
    }
    Ok(())
}

/// Why runs cannot be merged.
/// Refuse a run given twice (the same directory, or a copy of it): merged, it
/// would be counted twice.
fn check_distinct(runs: &[RunFiles]) -> io::Result<()> {
    for (i, r) in runs.iter().enumerate() {
        if let Some(earlier) = runs[..i].iter().find(|e| same_run(e, r)) {
            return Err(refuse(format!(
                "{} and {} are the same run (given twice, or a copy): merging would count it twice",
                earlier.dir.display(),
                r.dir.display()
            )));
        }
    }
    Ok(())
}

/// One directory, or two whose runs started at the same moment with the same
/// settings, counted exactly the same and logged the same latencies to the
/// byte (a copy; two clients never do).
fn same_run(a: &RunFiles, b: &RunFiles) -> bool {
    let same_dir = matches!(
        (a.dir.canonicalize(), b.dir.canonicalize()),
        (Ok(x), Ok(y)) if x == y
    );
    same_dir
        || (a.summary.started_at == b.summary.started_at
            && a.summary.window_start_unix_s == b.summary.window_start_unix_s
            && a.summary.parameters == b.summary.parameters
            && a.summary.transactions == b.summary.transactions
            && a.log == b.log)
}

fn refuse(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, why)
}

/// Merge runs made at the same time. Refuses runs of different workloads,
/// scales or transaction types, and runs whose windows do not overlap.
pub fn merge(runs: &[RunFiles], scale_unit: &str) -> io::Result<Merged> {
    let (start, end) = validate(runs, scale_unit)?;
    let first = &runs[0];
    let base = &first.summary;
    let keys: Vec<String> = base.transactions.iter().map(|t| t.key.clone()).collect();
    let types = keys.len();
    let op_names: Vec<&str> = base.operations.iter().map(|o| o.name.as_str()).collect();
    let op_tags: Vec<String> = op_names.iter().map(|n| operation_tag(n)).collect();
    let (merged, contributed_secs, errors) = add_up(runs, &keys, &op_tags, (start, end))?;
    let mut total = Recorder::new(types);
    for m in &merged {
        total.merge(m);
    }
    let all = total.completed();
    // The measured length that makes each type's count over it equal the sum of
    // the runs' rates (the runs contributed nearly the same seconds).
    let measured_secs = contributed_secs.iter().sum::<f64>() / contributed_secs.len() as f64;
    let transactions: Vec<TypeResult> = base
        .transactions
        .iter()
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
            if errors[t] > 0 {
                // The timeline keeps errors per type, not per kind.
                r.errors.insert("all kinds".into(), errors[t]);
            }
            r
        })
        .collect();
    let mut parameters = base.parameters.clone();
    parameters.insert("merged_runs".into(), runs.len().to_string());
    if shard_count(first)? > 1 {
        // The merged run is the whole scale, not the first shard's part.
        for key in SHARD_PARAMETERS {
            parameters.remove(key);
        }
    }
    let mut checks = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        for c in &r.summary.checks {
            let mut c = c.clone();
            c.name = format!("run {}: {}", i + 1, c.name);
            checks.push(c);
        }
    }
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
        parameters,
        scheduler: None,
        total_latency_ms: Some(total_latency(&total.measured)),
        total_censored_from_ms: total_censored_from_ms(&total.measured),
        // The shards' seconds are not kept: no batches to make them from.
        total_latency_intervals_ms: Vec::new(),
        tail_secs: runs.iter().map(|r| r.summary.tail_secs).fold(0.0, f64::max),
        operations: operation_results(&op_names, &total.operations),
        // The runs' seconds are not kept apart in a merge.
        throughput_interval: None,
        ..base.clone()
    };
    Ok(Merged {
        result,
        intervals,
        keys,
        operations: op_names.iter().map(|n| n.to_string()).collect(),
    })
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
        let offset = r.summary.window_start_unix_s - start;
        let own_end = r.summary.measured_secs;
        // Which common second an interval of this run falls in, if any; one
        // after the run's own window counts in its last instant.
        let slot = |start_s: f64, length_s: f64| {
            let middle = (start_s + length_s / 2.0).min(own_end - 1e-6) + offset;
            (middle >= 0.0 && middle < end - start).then(|| middle.floor() as usize)
        };
        let mut secs = 0.0;
        for row in &r.timeline {
            let Some(i) = slot(row.start_s, row.length_s) else {
                continue;
            };
            // Only the part inside the run's window is measured time.
            secs += (row.start_s + row.length_s).min(own_end) - row.start_s.min(own_end);
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
        for interval in &r.log.intervals {
            let Some(i) = slot(interval.start.as_secs_f64(), interval.length.as_secs_f64()) else {
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
                _ => continue,
            };
            h.add(&interval.histogram).expect("same bounds");
        }
        contributed_secs.push(secs);
    }

    Ok((merged, contributed_secs, errors))
}

/// The runs can be merged: one workload, one scale (`scale_unit`, the
/// workload's), the same transaction types, one set of shards with none twice,
/// and measurement windows that overlap by a second or more, which is
/// returned (Unix seconds, start and end).
fn validate(runs: &[RunFiles], scale_unit: &str) -> io::Result<(f64, f64)> {
    let first = runs
        .first()
        .ok_or_else(|| refuse("nothing to merge".into()))?;
    let base = &first.summary;
    let keys: Vec<String> = base.transactions.iter().map(|t| t.key.clone()).collect();
    for r in &runs[1..] {
        let s = &r.summary;
        let d = r.dir.display();
        if s.workload != base.workload {
            return Err(refuse(format!(
                "{d} ran workload '{}', {} ran '{}': refusing to merge",
                s.workload,
                first.dir.display(),
                base.workload
            )));
        }
        let scale = scale_unit;
        if s.parameters.get(scale) != base.parameters.get(scale) {
            return Err(refuse(format!(
                "{d} has {scale} = {}, {} has {}: refusing to merge runs of different scales",
                s.parameters.get(scale).map_or("none", String::as_str),
                first.dir.display(),
                base.parameters.get(scale).map_or("none", String::as_str)
            )));
        }
        let their: Vec<&str> = s.transactions.iter().map(|t| t.key.as_str()).collect();
        if their != keys.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(refuse(format!("{d} has other transaction types")));
        }
    }
    // The shard set first: a shard given twice is named as such.
    check_shard_set(runs)?;
    check_distinct(runs)?;
    for r in runs {
        if r.summary.window_start_unix_s <= 0.0 {
            return Err(refuse(format!(
                "{} does not record its measurement window (written by an older txbench)",
                r.dir.display()
            )));
        }
    }
    let start = runs
        .iter()
        .map(|r| r.summary.window_start_unix_s)
        .fold(f64::MIN, f64::max);
    let end = runs
        .iter()
        .map(|r| r.summary.window_start_unix_s + r.summary.measured_secs)
        .fold(f64::MAX, f64::min);
    if end - start < 1.0 {
        return Err(refuse(format!(
            "the runs' measurement windows overlap by {:.1} s (less than a second): they were not run at the same time",
            (end - start).max(0.0)
        )));
    }

    Ok((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intervals::IntervalWriter;
    use crate::results::write_summary;
    use std::collections::BTreeMap;
    use std::time::SystemTime;
    use txbench_core::recorder::Completion;
    use txbench_core::result::{CpuResult, Percentiles};
    use txbench_core::rng::Rand;
    use txbench_core::{DbError, Outcome};

    const START: f64 = 1_800_000_000.0;

    /// (second, type, latency us) of every transaction of a run.
    fn samples() -> Vec<(u64, usize, u64)> {
        let mut rng = Rand::new(5);
        (0..5u64)
            .flat_map(|s| (0..400).map(move |_| s))
            .map(|s| {
                (
                    s,
                    rng.uniform(0, 1) as usize,
                    rng.uniform(50, 50_000) as u64,
                )
            })
            .collect()
    }

    fn summary(warehouses: &str, start: f64) -> RunResult {
        let t = |name: &str, key: &str| TypeResult {
            name: name.into(),
            key: key.into(),
            committed: 0,
            expected_rollbacks: 0,
            retries: 0,
            errors: BTreeMap::new(),
            unfinished: 0,
            shed: 0,
            abandoned: 0,
            censored_from_ms: None,
            share: 0.0,
            spec_share: 0.5,
            expected_success: None,
            latency_ms: Percentiles::default(),
            service_ms: Percentiles::default(),
            queue_ms: Percentiles::default(),
            latency_intervals_ms: Vec::new(),
            phases_ms: Default::default(),
        };
        RunResult {
            schema_version: 2,
            txbench_version: "test".into(),
            workload: "tpcc".into(),
            engine: "sqlite".into(),
            target: "sqlite::memory:".into(),
            started_at: "2027-01-15T08:00:00Z".into(),
            window_start_unix_s: start,
            server_version: String::new(),
            machine: Default::default(),
            merged_from: Vec::new(),
            parameters: [("warehouses".to_string(), warehouses.to_string())].into(),
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
        }
    }

    /// Write a results directory holding `samples`, one interval a second.
    fn write_run(dir: &Path, samples: &[(u64, usize, u64)], warehouses: &str, start: f64) {
        std::fs::create_dir_all(dir).unwrap();
        let writer =
            IntervalWriter::create(dir, vec!["a".into(), "b".into()], vec!["get".into()]).unwrap();
        let ok: Result<Outcome, DbError> = Ok(Outcome::Committed);
        for second in 0..5u64 {
            let mut numbers = Recorder::new(2);
            for &(_, t, us) in samples.iter().filter(|s| s.0 == second) {
                numbers.record(
                    &Completion {
                        txn_type: t,
                        latency: Duration::from_micros(us),
                        service: Duration::from_micros(us / 3),
                        queue: Duration::from_micros(us - us / 3),
                        phases: Default::default(),
                        retries: 0,
                        result: &ok,
                    },
                    true,
                );
                // One timed "get" of a tenth of the transaction's time each.
                numbers.record_operations(&[(0, Duration::from_micros(us / 10))], true);
            }
            writer.push(Interval {
                window_start: SystemTime::UNIX_EPOCH + Duration::from_secs_f64(start),
                start: Duration::from_secs(second),
                length: Duration::from_secs(1),
                numbers,
            });
        }
        writer.finish().unwrap();
        write_summary(dir, &summary(warehouses, start)).unwrap();
    }

    #[test]
    fn merging_two_halves_equals_the_single_run() {
        let dir = tempfile::tempdir().unwrap();
        let all = samples();
        let (odd, even): (Vec<_>, Vec<_>) = all.iter().enumerate().partition(|(i, _)| i % 2 == 1);
        let strip = |v: Vec<(usize, &(u64, usize, u64))>| {
            v.into_iter().map(|(_, s)| *s).collect::<Vec<_>>()
        };
        write_run(&dir.path().join("a"), &strip(odd), "2", START);
        write_run(&dir.path().join("b"), &strip(even), "2", START);
        write_run(&dir.path().join("all"), &all, "2", START);

        let halves = [
            read_run(&dir.path().join("a")).unwrap(),
            read_run(&dir.path().join("b")).unwrap(),
        ];
        let merged = merge(&halves, "warehouses").unwrap();
        let single = merge(&[read_run(&dir.path().join("all")).unwrap()], "warehouses").unwrap();
        for (m, s) in merged
            .result
            .transactions
            .iter()
            .zip(&single.result.transactions)
        {
            assert_eq!(m.committed, s.committed);
            assert!(m.committed > 900, "{m:?}");
            assert_eq!(m.latency_ms, s.latency_ms, "{}", m.key);
            assert_eq!(m.service_ms, s.service_ms);
            assert_eq!(m.queue_ms, s.queue_ms);
        }
        assert_eq!(merged.result.measured_secs, 5.0);
        assert_eq!(merged.result.merged_from.len(), 2);
        assert_eq!(
            merged.result.total_latency_ms,
            single.result.total_latency_ms
        );
        assert_eq!(
            merged.result.total_latency_ms.as_ref().unwrap().samples,
            all.len() as u64
        );
        // Timed operations merge exactly too, from their own tags.
        assert_eq!(merged.result.operations, single.result.operations);
        let gets = &merged.result.operations[0];
        assert_eq!(
            (gets.name.as_str(), gets.latency_ms.samples),
            ("get", all.len() as u64)
        );
        for (m, s) in merged.intervals.iter().zip(&single.intervals) {
            assert_eq!(m.numbers.measured[0].latency, s.numbers.measured[0].latency);
        }
        // And the single run's merged percentiles are the recorded ones: p50 of
        // type a straight from the samples.
        let mut a: Vec<u64> = all.iter().filter(|s| s.1 == 0).map(|s| s.2).collect();
        a.sort_unstable();
        let p50 = a[(a.len() - 1) / 2] as f64 / 1000.0;
        let got = merged.result.transactions[0].latency_ms.p50;
        assert!((got - p50).abs() / p50 < 0.002, "p50 {got} vs {p50}");
    }

    #[test]
    fn refuses_a_run_given_twice_or_with_its_copy() {
        let dir = tempfile::tempdir().unwrap();
        let all = samples();
        write_run(&dir.path().join("a"), &all, "2", START);
        write_run(&dir.path().join("copy"), &all, "2", START);
        for other in ["a", "copy"] {
            let runs = [
                read_run(&dir.path().join("a")).unwrap(),
                read_run(&dir.path().join(other)).unwrap(),
            ];
            let e = merge(&runs, "warehouses").err().expect("refused");
            assert!(e.to_string().contains("same run"), "{e}");
        }
    }

    /// A results file damaged in one of three ways: cut short, bytes
    /// overwritten, or replaced by random bytes.
    fn damage(path: &Path, how: u8, at: usize, bytes: &[u8]) {
        let mut data = std::fs::read(path).unwrap();
        let at = at % (data.len() + 1);
        match how % 3 {
            0 => data.truncate(at),
            1 => {
                for (i, b) in bytes.iter().enumerate() {
                    if let Some(d) = data.get_mut(at + i) {
                        *d = *b;
                    }
                }
            }
            _ => data = bytes.to_vec(),
        }
        std::fs::write(path, data).unwrap();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Whatever happens to summary.json, intervals.hlog or timeline.csv,
        /// reading and merging the run answers or refuses; it never panics.
        #[test]
        fn damaged_results_are_read_or_refused(
            file in 0usize..3,
            how in 0u8..3,
            at in 0usize..100_000,
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let all = samples();
            write_run(&dir.path().join("a"), &all, "2", START);
            write_run(&dir.path().join("b"), &all[..1000], "2", START);
            let name = [crate::results::SUMMARY_FILE, HLOG_FILE, TIMELINE_FILE][file];
            damage(&dir.path().join("b").join(name), how, at, &bytes);
            if let Ok(b) = read_run(&dir.path().join("b")) {
                let a = read_run(&dir.path().join("a")).unwrap();
                let _ = merge(&[a, b], "warehouses");
            }
        }
    }

    #[test]
    fn refuses_other_scales_and_runs_that_did_not_overlap() {
        let dir = tempfile::tempdir().unwrap();
        let all = samples();
        write_run(&dir.path().join("a"), &all, "2", START);
        write_run(&dir.path().join("b"), &all, "3", START);
        write_run(&dir.path().join("late"), &all, "2", START + 60.0);
        let a = read_run(&dir.path().join("a")).unwrap();
        let e = merge(&[a, read_run(&dir.path().join("b")).unwrap()], "warehouses")
            .err()
            .unwrap();
        assert!(e.to_string().contains("warehouses = 3"), "{e}");
        let a = read_run(&dir.path().join("a")).unwrap();
        let e = merge(
            &[a, read_run(&dir.path().join("late")).unwrap()],
            "warehouses",
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("not run at the same time"), "{e}");
    }
}
