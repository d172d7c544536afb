//! A results directory: everything one run leaves behind (see docs/results.md).
//!
//! * `summary.json`: the [`RunResult`], written when the run ends (also when it
//!   was interrupted with Ctrl-C);
//! * `config.toml`: the flags that repeat the run (`txbench tpcc run --config
//!   config.toml`), secrets removed;
//! * `intervals.hlog` and `timeline.csv`: written a second at a time as the run
//!   goes ([`IntervalWriter`]);
//! * `report.html`: written by `txbench report`;
//! * `refused.json`: instead of `summary.json`, when a shard was ready too late
//!   for the agreed start time ([`Refusal`]).

use std::io;
use std::path::Path;

pub use crate::intervals::{
    HEADLINE_PREFIX, HLOG_FILE, Interval, IntervalWriter, OFFERED_COLUMN, TIMELINE_FILE,
};
use txbench_core::result::{RunResult, RunSet};

/// The summary's file name.
pub const SUMMARY_FILE: &str = "summary.json";
/// The effective configuration's file name.
pub const CONFIG_FILE: &str = "config.toml";
/// A sweep's own summary file name.
pub const SWEEP_FILE: &str = "sweep.json";
/// A set of runs' own file: the runs it holds ([`RunSet`]).
pub const SET_FILE: &str = "set.json";
/// The summary of sweeps of a workload's variants side by side.
pub const VARIANTS_FILE: &str = "variants.json";
/// The HTML report's file name.
pub const REPORT_FILE: &str = "report.html";

/// A refusal's file name.
pub const REFUSAL_FILE: &str = "refused.json";

/// Why a shard did not run: it was ready later than `--start-at` plus the
/// tolerance, so its window would not have been the other shards'.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Refusal {
    /// The reason, as the process printed it.
    pub reason: String,
    /// The shard's index, 0-based.
    pub shard_index: u32,
    /// The run's shard count.
    pub shards: u32,
    /// The agreed start time (RFC 3339).
    pub start_at: Option<String>,
    /// How late the shard was ready (s).
    pub late_secs: f64,
    /// The tolerance it exceeded (s).
    pub tolerance_secs: f64,
    /// When it refused (RFC 3339).
    pub refused_at: String,
}

/// Write `refused.json` into a results directory (atomically).
pub fn write_refusal(dir: &Path, refusal: &Refusal) -> io::Result<()> {
    crate::json::write_value(&dir.join(REFUSAL_FILE), refusal)
}

/// Read a results directory's `refused.json`, if it has one.
pub fn read_refusal(dir: &Path) -> io::Result<Option<Refusal>> {
    let path = dir.join(REFUSAL_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Write `summary.json` into a results directory.
pub fn write_summary(dir: &Path, result: &RunResult) -> io::Result<()> {
    crate::json::write(&dir.join(SUMMARY_FILE), result)
}

/// Read the `summary.json` of a results directory, with a message naming the file.
pub fn read_summary(dir: &Path) -> io::Result<RunResult> {
    let path = dir.join(SUMMARY_FILE);
    crate::json::read(&path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// The runs of a directory: a set's in their order, with its `set.json`
/// ([`RunSet`]), or the one run's.
pub fn read_runs(dir: &Path) -> io::Result<(Vec<RunResult>, Option<RunSet>)> {
    let path = dir.join(SET_FILE);
    if !path.exists() {
        return Ok((vec![read_summary(dir)?], None));
    }
    let named = |e: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    };
    let text = std::fs::read_to_string(&path).map_err(|e| named(e.to_string()))?;
    let set: RunSet = serde_json::from_str(&text).map_err(|e| named(e.to_string()))?;
    if set.runs.is_empty() {
        return Err(named("the set holds no run".into()));
    }
    let runs = set.runs.iter().map(|r| read_summary(&dir.join(r)));
    Ok((runs.collect::<io::Result<_>>()?, Some(set)))
}

/// Remove a results directory a run left empty (it failed or was refused
/// before writing anything), so that `report` and `compare results/*` never
/// meet it; a directory with anything in it stays.
pub fn remove_if_empty(dir: &Path) {
    // remove_dir refuses a directory that is not empty, which is the point.
    let _ = std::fs::remove_dir(dir);
}

/// Create a new directory `base/name`, or `base/name-2`, `-3`, ... when that
/// exists: runs started in the same second (two client processes on one machine)
/// never share a directory.
pub fn create_unique(base: &Path, name: &str) -> io::Result<std::path::PathBuf> {
    std::fs::create_dir_all(base)?;
    for n in 1u32.. {
        let dir = if n == 1 {
            base.join(name)
        } else {
            base.join(format!("{name}-{n}"))
        };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    unreachable!("some suffix is free")
}
