//! Reading a results directory for a merge: its summary, interval log and
//! timeline, refusing damage with the file and line named.

use std::io;
use std::path::{Path, PathBuf};

use txbench_core::result::RunResult;

use crate::hlog::IntervalLog;
use crate::intervals::{HEADLINE_PREFIX, HLOG_FILE, OFFERED_COLUMN, TIMELINE_FILE};
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
    /// The rate offered in it per second (an open loop's), where the file
    /// keeps it.
    pub offered_per_s: Option<f64>,
    /// The workload's headline figure over it, where the file keeps it
    /// ([`Timeline::headline`] names it).
    pub headline: Option<f64>,
}

/// A `timeline.csv` as read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// Its rows, in order.
    pub rows: Vec<TimelineRow>,
    /// The name of the headline figure its rows keep ("tpmC"), if they do.
    pub headline: Option<String>,
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
    pub timeline: Timeline,
}

/// A file's damage, with the file named.
pub(super) fn invalid(path: &Path, what: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {what}", path.display()),
    )
}

/// Read a timeline for types with these keys.
pub fn read_timeline(path: &Path, keys: &[&str]) -> io::Result<Timeline> {
    let mut reader = csv::Reader::from_path(path).map_err(|e| invalid(path, e))?;
    let headers = reader.headers().map_err(|e| invalid(path, e))?.clone();
    let columns = Columns::find(&headers, keys, path)?;
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
        match record.ok().map(|r| columns.row(&r, path)).transpose()? {
            Some(Some(row)) => rows.push(row),
            _ => torn = Some(i),
        }
    }
    Ok(Timeline {
        rows,
        headline: columns.headline.map(|(_, name)| name),
    })
}

/// Where a timeline's columns are: the interval's start and length, and per
/// type its counts (unfinished and shed are absent from older files).
struct Columns {
    start: usize,
    length: usize,
    per_type: Vec<([usize; 4], [Option<usize>; 2])>,
    /// The run's own figures (absent from older files).
    offered: Option<usize>,
    headline: Option<(usize, String)>,
}

impl Columns {
    /// The columns of `keys`' types among `headers`; a missing one is damage.
    fn find(headers: &csv::StringRecord, keys: &[&str], path: &Path) -> io::Result<Columns> {
        let column = |name: &str| {
            headers
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| invalid(path, format!("no column '{name}'")))
        };
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
        Ok(Columns {
            start: column("start_s")?,
            length: column("length_s")?,
            per_type,
            offered: column(OFFERED_COLUMN).ok(),
            headline: headers
                .iter()
                .enumerate()
                .find_map(|(i, h)| Some((i, h.strip_prefix(HEADLINE_PREFIX)?.to_string()))),
        })
    }

    /// A record as a row; `None` when it has no start and length (torn), an
    /// error when a count of a row that has them is unreadable.
    fn row(&self, record: &csv::StringRecord, path: &Path) -> io::Result<Option<TimelineRow>> {
        let num = |i: usize| record.get(i).and_then(|v| v.parse::<f64>().ok());
        let count = |i: usize| record.get(i).and_then(|v| v.parse::<u64>().ok());
        let (Some(start_s), Some(length_s)) = (num(self.start), num(self.length)) else {
            return Ok(None);
        };
        let mut types = Vec::new();
        for (cols, optional) in &self.per_type {
            let [unfinished, shed] = optional.map(|c| c.and_then(count).unwrap_or(0));
            let [
                Some(committed),
                Some(rollbacks),
                Some(errors),
                Some(retries),
            ] = cols.map(count)
            else {
                return Err(invalid(path, format!("bad row at {start_s} s")));
            };
            types.push(TypeCounts {
                committed,
                rollbacks,
                errors,
                retries,
                unfinished,
                shed,
            });
        }
        Ok(Some(TimelineRow {
            start_s,
            length_s,
            types,
            offered_per_s: self.offered.and_then(num),
            headline: self.headline.as_ref().and_then(|(c, _)| num(*c)),
        }))
    }
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
