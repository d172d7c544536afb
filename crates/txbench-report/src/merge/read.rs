//! Reading a results directory for a merge: its summary, interval log and
//! timeline, refusing damage with the file and line named.

use std::io;
use std::path::{Path, PathBuf};

use txbench_core::result::RunResult;

use crate::hlog::IntervalLog;
use crate::intervals::{HLOG_FILE, TIMELINE_FILE};
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

/// A file's damage, with the file named.
pub(super) fn invalid(path: &Path, what: impl std::fmt::Display) -> io::Error {
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
