//! Whether runs can be merged: one workload and scale, the same types, one
//! complete set of shards, no run twice, windows that overlap.

use std::io;

use txbench_core::result::FILE_DIGEST_PARAMETER;
use txbench_core::settings::RunSettings;

use super::read::RunFiles;
use super::refuse;

/// Settings that describe one shard's part, not the run the shards share:
/// every other setting must be the same in every shard.
const PER_SHARD_SETTINGS: [&str; 5] = [
    "shard_index",
    "terminals",
    "connections",
    "connections_sizing",
    "nodes",
];

/// What the workload says of one shard's part, not of the merged run.
pub const SHARD_PARAMETERS: [&str; 3] = ["home_warehouses", "drawn_subscribers", "drawn_keys"];

/// Window starts of a shard set may differ by this much (clocks and the start
/// tolerance); more means the shards were not started for the same time.
const SHARD_WINDOW_SLACK_SECS: f64 = 1.0;

/// A run's typed settings; a run written before they were recorded (results
/// schema 1 and 2) cannot be merged: what it ran with is only strings.
pub fn settings_of(r: &RunFiles) -> io::Result<&RunSettings> {
    r.summary.settings.as_ref().ok_or_else(|| {
        refuse(format!(
            "{} was written by an older txbench (results schema {}) that did not record its \
             settings as merge reads them: merge runs of this version",
            r.dir.display(),
            r.summary.schema_version
        ))
    })
}

/// The runs can be merged: one workload, one scale, the same transaction
/// types, one set of shards with none twice, and measurement windows that
/// overlap by a second or more, which is returned (Unix seconds, start and
/// end).
pub fn validate(runs: &[RunFiles]) -> io::Result<(f64, f64)> {
    let first = runs
        .first()
        .ok_or_else(|| refuse("nothing to merge".into()))?;
    for r in runs {
        settings_of(r)?;
    }
    for r in &runs[1..] {
        same_workload(first, r)?;
    }
    // The shard set first: a shard given twice is named as such.
    check_shard_set(runs)?;
    check_distinct(runs)?;
    common_window(runs)
}

/// `r` ran the workload `first` ran, at its scale, with its transaction types.
fn same_workload(first: &RunFiles, r: &RunFiles) -> io::Result<()> {
    let (base, s) = (&first.summary, &r.summary);
    let d = r.dir.display();
    if s.workload != base.workload {
        return Err(refuse(format!(
            "{d} ran workload '{}', {} ran '{}': refusing to merge",
            s.workload,
            first.dir.display(),
            base.workload
        )));
    }
    let (theirs, ours) = (&settings_of(r)?.scale, &settings_of(first)?.scale);
    if theirs != ours {
        return Err(refuse(format!(
            "{d} has {} = {}, {} has {} = {}: refusing to merge runs of different scales",
            theirs.unit,
            theirs.value,
            first.dir.display(),
            ours.unit,
            ours.value
        )));
    }
    // Runs of workload files are of one file: the name a file gives its
    // workload is no promise that two files' mixes or tables agree.
    let file =
        |r: &txbench_core::result::RunResult| r.parameters.get(FILE_DIGEST_PARAMETER).cloned();
    if file(s) != file(base) {
        return Err(refuse(format!(
            "{d} ran another workload file than {} ({FILE_DIGEST_PARAMETER} differs): refusing to merge",
            first.dir.display()
        )));
    }
    let keys = |r: &txbench_core::result::RunResult| -> Vec<String> {
        r.transactions.iter().map(|t| t.key.clone()).collect()
    };
    if keys(s) != keys(base) {
        return Err(refuse(format!("{d} has other transaction types")));
    }
    Ok(())
}

/// When the runs are shards (`--shards` above 1), check that they are one
/// run's complete set: one count N, indexes 0..N-1 each once, the same
/// settings, and windows that start together. Runs that are not shards
/// (separate clients driving the whole scale at once) are left as they are.
pub fn check_shard_set(runs: &[RunFiles]) -> io::Result<()> {
    let settings = runs
        .iter()
        .map(settings_of)
        .collect::<io::Result<Vec<&RunSettings>>>()?;
    if settings.iter().all(|s| s.shards == 1) {
        return Ok(());
    }
    let first = &runs[0];
    let n = settings[0].shards;
    for (r, s) in runs.iter().zip(&settings) {
        if s.shards != n {
            return Err(refuse(format!(
                "{} is a shard of {}, {} of {n}: not one run's shards",
                r.dir.display(),
                s.shards,
                first.dir.display(),
            )));
        }
    }
    each_shard_once(runs, &settings, n)?;
    for (r, s) in runs.iter().zip(&settings).skip(1) {
        same_shared_settings((first, settings[0]), (r, s))?;
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
    check_clocks(runs, &settings)
}

/// By the database server's clock, the shards' windows start within the
/// slack: each starts at its own clock's time, so machines whose clocks
/// disagree start apart although their windows' recorded starts agree.
/// Shards whose clocks were not read (an engine that cannot) are left to
/// the check of the recorded starts.
fn check_clocks(runs: &[RunFiles], settings: &[&RunSettings]) -> io::Result<()> {
    let by_server: Vec<(f64, f64, u32)> = runs
        .iter()
        .zip(settings)
        .filter_map(|(r, s)| {
            let c = r.summary.clock?;
            let start = r.summary.window_start_unix_s + c.offset_ms / 1000.0;
            Some((start, c.uncertainty_ms / 1000.0, s.shard_index))
        })
        .collect();
    let earliest = by_server.iter().min_by(|a, b| a.0.total_cmp(&b.0));
    let latest = by_server.iter().max_by(|a, b| a.0.total_cmp(&b.0));
    let (Some(early), Some(late)) = (earliest, latest) else {
        return Ok(());
    };
    // What the readings cannot tell apart is given the benefit of the doubt.
    let apart = late.0 - early.0 - (late.1 + early.1);
    if apart > SHARD_WINDOW_SLACK_SECS {
        return Err(refuse(format!(
            "by the database server's clock, shard {}'s measurement window started {:.3} s after \
             shard {}'s (more than {SHARD_WINDOW_SLACK_SECS} s), though their own clocks said \
             they started together: their machines' clocks disagree; sync them (NTP) and run again",
            late.2,
            late.0 - early.0,
            early.2
        )));
    }
    Ok(())
}

/// Shards 0..n-1, each given once.
fn each_shard_once(runs: &[RunFiles], settings: &[&RunSettings], n: u32) -> io::Result<()> {
    let mut holders: Vec<Vec<String>> = vec![Vec::new(); n as usize];
    for (r, s) in runs.iter().zip(settings) {
        let index = s.shard_index;
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
    Ok(())
}

/// Two shards of one run: every setting but those of a shard's own part the
/// same, and what the workload says of the data the same.
fn same_shared_settings(
    (first, a): (&RunFiles, &RunSettings),
    (r, b): (&RunFiles, &RunSettings),
) -> io::Result<()> {
    let shared = |s: &RunSettings| -> Vec<(String, String)> {
        s.rows()
            .into_iter()
            .filter(|(k, _)| !PER_SHARD_SETTINGS.contains(&k.as_str()))
            .collect()
    };
    let of_data = |r: &RunFiles| -> Vec<(String, String)> {
        (r.summary.parameters.iter())
            .filter(|(k, _)| !SHARD_PARAMETERS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let (ours, theirs) = (
        [shared(a), of_data(first)].concat(),
        [shared(b), of_data(r)].concat(),
    );
    let value = |rows: &[(String, String)], key: &str| {
        rows.iter()
            .find(|(k, _)| k == key)
            .map_or("none".to_string(), |(_, v)| v.clone())
    };
    let keys = ours.iter().chain(&theirs).map(|(k, _)| k.as_str());
    for key in keys {
        let (x, y) = (value(&ours, key), value(&theirs, key));
        if x != y {
            return Err(refuse(format!(
                "{key} differs: {x} in {}, {y} in {}: not one run's shards",
                first.dir.display(),
                r.dir.display()
            )));
        }
    }
    Ok(())
}

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
            && a.summary.settings == b.summary.settings
            && a.summary.parameters == b.summary.parameters
            && a.summary.transactions == b.summary.transactions
            && a.log == b.log)
}

/// The window every run measured: from the latest start to the earliest end,
/// a second or more.
fn common_window(runs: &[RunFiles]) -> io::Result<(f64, f64)> {
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
