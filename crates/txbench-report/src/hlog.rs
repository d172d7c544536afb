//! Reading a run's `intervals.hlog` back: the exact histograms behind its
//! percentiles, per tag and per interval, for plots and merges.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use txbench_core::recorder::new_histogram;

/// One interval histogram of the log.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedInterval {
    /// The tag ("new_order", "new_order.service", ...).
    pub tag: String,
    /// Start, from the log's StartTime (the measurement window's start).
    pub start: Duration,
    /// Length.
    pub length: Duration,
    /// The values, in microseconds.
    pub histogram: Histogram<u64>,
}

/// A whole interval log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IntervalLog {
    /// The log's StartTime, seconds since the Unix epoch.
    pub start_time_unix_s: Option<f64>,
    /// Every interval, in file order.
    pub intervals: Vec<LoggedInterval>,
}

impl IntervalLog {
    /// Read and decode a log. A torn last line (a killed run) ends the log
    /// instead of failing it; anything else malformed is an error naming the file.
    pub fn read(path: &Path) -> io::Result<IntervalLog> {
        let bytes = std::fs::read(path)?;
        let bad = |what: String| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {what}", path.display()),
            )
        };
        let mut log = IntervalLog::default();
        let mut deserializer = Deserializer::new();
        let complete = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(i) => &bytes[..=i],
            None => &bytes[..0],
        };
        for entry in IntervalLogIterator::new(complete) {
            match entry.map_err(|e| bad(format!("unreadable line ({e:?})")))? {
                LogEntry::StartTime(t) => log.start_time_unix_s = Some(t.as_secs_f64()),
                LogEntry::BaseTime(_) => {}
                LogEntry::Interval(h) => {
                    let raw = base64::engine::general_purpose::STANDARD
                        .decode(h.encoded_histogram())
                        .map_err(|e| bad(format!("bad base64 ({e})")))?;
                    let decoded: Histogram<u64> = deserializer
                        .deserialize(&mut raw.as_slice())
                        .map_err(|e| bad(format!("bad histogram ({e:?})")))?;
                    // Into txbench's bounds, so that histograms add.
                    let mut histogram = new_histogram();
                    histogram
                        .add(&decoded)
                        .map_err(|e| bad(format!("histogram out of range ({e:?})")))?;
                    log.intervals.push(LoggedInterval {
                        tag: h.tag().map(|t| t.as_str().to_string()).unwrap_or_default(),
                        start: h.start_timestamp(),
                        length: h.duration(),
                        histogram,
                    });
                }
            }
        }
        Ok(log)
    }

    /// Every tag's intervals added up.
    pub fn totals(&self) -> BTreeMap<String, Histogram<u64>> {
        let mut out: BTreeMap<String, Histogram<u64>> = BTreeMap::new();
        for i in &self.intervals {
            out.entry(i.tag.clone())
                .or_insert_with(new_histogram)
                .add(&i.histogram)
                .expect("same bounds");
        }
        out
    }

    /// The intervals of one tag, in order.
    pub fn of<'a>(&'a self, tag: &'a str) -> impl Iterator<Item = &'a LoggedInterval> + 'a {
        self.intervals.iter().filter(move |i| i.tag == tag)
    }
}
