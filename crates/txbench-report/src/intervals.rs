//! The files a run writes as it goes, one interval (about a second) at a time:
//! `intervals.hlog`, an HdrHistogram interval log that HdrHistogram's own tools
//! read, and `timeline.csv`. They are written and flushed on a thread of their own,
//! so the driver never waits for a disk, and a run that is killed keeps every
//! interval up to its last second.
//!
//! Tags in the log: the transaction type's key (`new_order`) holds its latency
//! from the intended start; `new_order.service` and `new_order.queue` hold the
//! service and client queueing times; `new_order.unfinished` the lower bounds
//! of the latencies of those due in the window that never finished (written
//! only when there are any); `new_order.wire` the time on the wire from the
//! kernel's timestamps (written only by runs that read them); `op.get` (and so on) the latency of the
//! operations the workload times on their own; `client.lateness` how late the
//! client sent the window's transactions. Values are microseconds; the log's
//! "max" column is in milliseconds (`MaxValueDivisor: 1000`).
//!
//! The intervals after the window's end (its grace) hold the transactions due
//! in the window that completed after it, and the last one those given up.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use txbench_core::recorder::Recorder;

/// The interval log's file name in a results directory.
pub const HLOG_FILE: &str = "intervals.hlog";
/// The timeline's file name in a results directory.
pub const TIMELINE_FILE: &str = "timeline.csv";

/// One measured interval.
pub struct Interval {
    /// When the measurement window started, by the wall clock.
    pub window_start: SystemTime,
    /// Its start, from the start of the measurement window.
    pub start: Duration,
    /// Its length.
    pub length: Duration,
    /// What completed in it.
    pub numbers: Recorder,
    /// The run's own figures of it (what the rate offered, the workload's
    /// headline), in the order of the names the writer was made with; NaN
    /// for none.
    pub figures: Vec<f64>,
}

/// Writes the interval files on a thread of its own.
pub struct IntervalWriter {
    sender: Option<mpsc::Sender<Interval>>,
    thread: Option<JoinHandle<io::Result<u64>>>,
}

impl IntervalWriter {
    /// Create `intervals.hlog` and `timeline.csv` in `dir` (which must exist) for
    /// transaction types with these keys, in the order of the recorders' types,
    /// and the timed operations with these names, in the order of their indexes.
    pub fn create(
        dir: &Path,
        keys: Vec<String>,
        operations: Vec<String>,
    ) -> io::Result<IntervalWriter> {
        Self::with_figures(dir, keys, operations, &[])
    }

    /// [`IntervalWriter::create`], with a timeline column per figure named
    /// in `figures` ([`OFFERED_COLUMN`], [`HEADLINE_PREFIX`]`tpmC`), after the
    /// types' columns.
    pub fn with_figures(
        dir: &Path,
        keys: Vec<String>,
        operations: Vec<String>,
        figures: &[String],
    ) -> io::Result<IntervalWriter> {
        let hlog = File::create(dir.join(HLOG_FILE))?;
        let mut timeline = BufWriter::new(File::create(dir.join(TIMELINE_FILE))?);
        write_timeline_header(&mut timeline, &keys, figures)?;
        timeline.flush()?;
        let (sender, receiver) = mpsc::channel::<Interval>();
        let thread = std::thread::Builder::new()
            .name("txbench-results".into())
            .spawn(move || write_all(hlog, timeline, &keys, &operations, receiver))?;
        Ok(IntervalWriter {
            sender: Some(sender),
            thread: Some(thread),
        })
    }

    /// Queue one interval for writing.
    pub fn push(&self, interval: Interval) {
        if let Some(s) = &self.sender {
            // A send fails only when the thread stopped on an error; finish() reports it.
            let _ = s.send(interval);
        }
    }

    /// Write what is queued, close the files and report the first error, or
    /// how many intervals were written.
    pub fn finish(mut self) -> io::Result<u64> {
        self.sender.take();
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("the results writer panicked")),
            None => Ok(0),
        }
    }
}

impl Drop for IntervalWriter {
    fn drop(&mut self) {
        self.sender.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A tag for a histogram of the interval log (keys are plain identifiers).
fn tag(key: &str) -> Tag<'_> {
    Tag::new(key).expect("transaction type keys have no commas or spaces")
}

/// The interval log's tag of a timed operation.
pub fn operation_tag(name: &str) -> String {
    format!("{OPERATION_TAG_PREFIX}{}", name.replace([' ', ','], "_"))
}

/// The timeline's column of the rate offered (an open loop's schedule).
pub const OFFERED_COLUMN: &str = "offered_per_s";
/// What the timeline's column of the workload's headline figure starts with,
/// before the figure's name (`headline:tpmC`).
pub const HEADLINE_PREFIX: &str = "headline:";

/// What the tags of timed operations start with.
pub const OPERATION_TAG_PREFIX: &str = "op.";
/// The tag of the client's lateness in sending.
pub const LATENESS_TAG: &str = "client.lateness";
/// What a type's key is followed by in the tag of its given-up transactions'
/// latency lower bounds.
pub const UNFINISHED_TAG_SUFFIX: &str = ".unfinished";

fn write_all(
    mut hlog: File,
    mut timeline: BufWriter<File>,
    keys: &[String],
    operations: &[String],
    receiver: mpsc::Receiver<Interval>,
) -> io::Result<u64> {
    // The log's header names the window's start, which the first interval brings.
    let Ok(first) = receiver.recv() else {
        return Ok(0);
    };
    let mut written = 0;
    let window_start = first.window_start;
    let mut serializer = V2DeflateSerializer::new();
    let mut log = IntervalLogWriterBuilder::new()
        .add_comment("txbench interval log: latency (tag = transaction type), service and queueing time (tags <type>.service, <type>.queue), lower bounds of unfinished ones (<type>.unfinished), time on the wire from kernel timestamps (<type>.wire), timed operations (tags op.<name>), client lateness (client.lateness); values in microseconds")
        .with_start_time(window_start)
        .with_base_time(window_start)
        .with_max_value_divisor(1000.0)
        .begin_log_with(&mut hlog, &mut serializer)?;
    let extra: Vec<[String; 4]> = keys
        .iter()
        .map(|k| {
            [
                format!("{k}.service"),
                format!("{k}.queue"),
                format!("{k}{UNFINISHED_TAG_SUFFIX}"),
                format!("{k}.wire"),
            ]
        })
        .collect();
    let op_tags: Vec<String> = operations.iter().map(|n| operation_tag(n)).collect();
    for interval in std::iter::once(first).chain(receiver) {
        let mut write = |histogram: &hdrhistogram::Histogram<u64>, key: &str| {
            log.write_histogram(histogram, interval.start, interval.length, Some(tag(key)))
                .map_err(|e| io::Error::other(format!("writing {HLOG_FILE}: {e}")))
        };
        for ((key, stats), [service_tag, queue_tag, unfinished_tag, wire_tag]) in
            keys.iter().zip(&interval.numbers.measured).zip(&extra)
        {
            write(&stats.latency, key)?;
            write(&stats.service, service_tag)?;
            write(&stats.queue, queue_tag)?;
            if !stats.censored.is_empty() {
                write(&stats.censored, unfinished_tag)?;
            }
            if !stats.wire.is_empty() {
                write(&stats.wire, wire_tag)?;
            }
        }
        for (histogram, op_tag) in interval.numbers.operations.iter().zip(&op_tags) {
            write(histogram, op_tag)?;
        }
        if !interval.numbers.lateness.is_empty() {
            write(&interval.numbers.lateness, LATENESS_TAG)?;
        }
        write_timeline_row(&mut timeline, &interval, window_start)?;
        // A killed run keeps every interval written so far.
        timeline.flush()?;
        written += 1;
    }
    Ok(written)
}

fn write_timeline_header(
    out: &mut impl Write,
    keys: &[String],
    figures: &[String],
) -> io::Result<()> {
    write!(
        out,
        "start_s,length_s,unix_time_s,txn_per_s,errors,retries,unfinished,shed,lateness_p99_us,lateness_max_us"
    )?;
    for k in keys {
        write!(
            out,
            ",{k}_per_s,{k}_committed,{k}_rollbacks,{k}_errors,{k}_retries,{k}_unfinished,{k}_shed,{k}_p50_ms,{k}_p99_ms,{k}_max_ms"
        )?;
    }
    for f in figures {
        write!(out, ",{f}")?;
    }
    writeln!(out)
}

fn write_timeline_row(
    out: &mut impl Write,
    interval: &Interval,
    window_start: SystemTime,
) -> io::Result<()> {
    let secs = interval.length.as_secs_f64().max(1e-9);
    let n = &interval.numbers;
    let errors: u64 = n.measured.iter().map(|t| t.failed()).sum();
    let retries: u64 = n.measured.iter().map(|t| t.retries).sum();
    let unix = (window_start + interval.start)
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64();
    let unfinished: u64 = n.measured.iter().map(|t| t.unfinished).sum();
    let shed: u64 = n.measured.iter().map(|t| t.shed).sum();
    let lateness = |q: Option<f64>| {
        if n.lateness.is_empty() {
            String::new()
        } else {
            q.map_or(n.lateness.max(), |q| n.lateness.value_at_quantile(q))
                .to_string()
        }
    };
    write!(
        out,
        "{:.3},{:.3},{unix:.3},{:.1},{errors},{retries},{unfinished},{shed},{},{}",
        interval.start.as_secs_f64(),
        secs,
        n.completed() as f64 / secs,
        lateness(Some(0.99)),
        lateness(None),
    )?;
    let ms = |h: &hdrhistogram::Histogram<u64>, q: f64| {
        if h.is_empty() {
            String::new()
        } else {
            format!("{:.3}", h.value_at_quantile(q) as f64 / 1000.0)
        }
    };
    for t in &n.measured {
        write!(
            out,
            ",{:.1},{},{},{},{},{},{},{},{},{}",
            t.completed() as f64 / secs,
            t.committed,
            t.expected_rollbacks,
            t.failed(),
            t.retries,
            t.unfinished,
            t.shed,
            ms(&t.latency, 0.5),
            ms(&t.latency, 0.99),
            if t.latency.is_empty() {
                String::new()
            } else {
                format!("{:.3}", t.latency.max() as f64 / 1000.0)
            },
        )?;
    }
    for f in &interval.figures {
        if f.is_finite() {
            write!(out, ",{f:.1}")?;
        } else {
            out.write_all(b",")?;
        }
    }
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::Histogram;
    use hdrhistogram::serialization::Deserializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use txbench_core::recorder::Completion;
    use txbench_core::{DbError, Outcome};

    pub(crate) fn interval(second: u64, latencies_us: &[(usize, u64)]) -> Interval {
        let mut numbers = Recorder::new(2);
        let ok: Result<Outcome, DbError> = Ok(Outcome::Committed);
        for &(t, us) in latencies_us {
            numbers.record(
                &Completion {
                    txn_type: t,
                    latency: Duration::from_micros(us),
                    service: Duration::from_micros(us / 2),
                    queue: Duration::from_micros(us - us / 2),
                    phases: Default::default(),
                    retries: 0,
                    retry_causes: &[],
                    result: &ok,
                    wire: None,
                },
                true,
            );
        }
        Interval {
            window_start: SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
            start: Duration::from_secs(second),
            length: Duration::from_secs(1),
            numbers,
            figures: Vec::new(),
        }
    }

    #[test]
    fn the_interval_log_reads_back_with_hdrhistograms_own_reader() {
        let dir = tempfile::tempdir().unwrap();
        let writer =
            IntervalWriter::create(dir.path(), vec!["a".into(), "b".into()], vec![]).unwrap();
        let mut expected_a = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for s in 0..3u64 {
            let lat: Vec<(usize, u64)> = (1..=100)
                .map(|i| ((i % 2) as usize, i * (s + 1) * 10))
                .collect();
            for &(t, us) in &lat {
                if t == 0 {
                    expected_a.record(us).unwrap();
                }
            }
            writer.push(interval(s, &lat));
        }
        writer.finish().unwrap();

        let text = std::fs::read(dir.path().join(HLOG_FILE)).unwrap();
        let mut deserializer = Deserializer::new();
        let mut a = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        let mut tags = std::collections::BTreeSet::new();
        let mut start_time = None;
        for entry in IntervalLogIterator::new(&text) {
            match entry.unwrap() {
                LogEntry::StartTime(t) => start_time = Some(t),
                LogEntry::Interval(h) => {
                    let tag = h.tag().unwrap().as_str().to_string();
                    let bytes = base64_decode(h.encoded_histogram());
                    let decoded: Histogram<u64> =
                        deserializer.deserialize(&mut bytes.as_slice()).unwrap();
                    if tag == "a" {
                        a.add(&decoded).unwrap();
                    }
                    tags.insert(tag);
                }
                LogEntry::BaseTime(_) => {}
            }
        }
        assert_eq!(start_time, Some(Duration::from_secs(1_800_000_000)));
        assert_eq!(
            tags.into_iter().collect::<Vec<_>>(),
            ["a", "a.queue", "a.service", "b", "b.queue", "b.service"]
        );
        assert_eq!(a, expected_a);

        // One timeline row per interval, each naming its counts.
        let timeline = std::fs::read_to_string(dir.path().join(TIMELINE_FILE)).unwrap();
        let lines: Vec<&str> = timeline.lines().collect();
        assert_eq!(lines.len(), 4, "{timeline}");
        assert!(lines[0].starts_with("start_s,length_s,unix_time_s,txn_per_s"));
        assert!(
            lines[1].starts_with("0.000,1.000,1800000000.000,100.0,0,0,0,0,,,50.0,50,"),
            "{}",
            lines[1]
        );
    }

    fn base64_decode(text: &str) -> Vec<u8> {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .unwrap()
    }
}
