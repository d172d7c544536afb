//! The acknowledged-work log: one line per transaction whose end its
//! procedure stated ([`crate::written::Written`]), with what became of it,
//! appended as the run goes and flushed once a second (docs/durability.md).
//!
//! Each worker formats its line in a buffer of its own (the [`Written`] it
//! keeps) and appends it to one shared buffer under a lock held only for the
//! copy; a thread of the log's own swaps the buffer out once a second and
//! writes it, so memory holds at most about a second of lines and a slow
//! disk never stalls a transaction.
//!
//! The file (`acks.csv`) is CSV with a comment header naming each type's fields:
//!
//! ```text
//! # txbench acknowledged-work log 1
//! # new_order: w_id d_id o_id c_id ol_cnt amount_cents entry_us
//! unix_us,status,type,fields
//! 1764000000123456,ack,new_order,1 3 3012 1456 7 124550 1764000000120001
//! ```

use std::fmt::Write as _;
use std::io::{self, BufRead, Write};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::written::{AckStatus, Written};

/// The log's file name in a results directory.
pub const ACKS_FILE: &str = "acks.csv";
/// The first line of every log; the number is the format's version.
const MAGIC: &str = "# txbench acknowledged-work log 1";
/// The column header.
const HEADER: &str = "unix_us,status,type,fields";
/// How often the buffer goes to the file.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// The transaction types a log names, with their fields.
#[derive(Debug, Clone)]
pub struct LoggedType {
    /// The type's short name ("new_order").
    pub key: &'static str,
    /// Its fields, space-separated ("w_id d_id o_id ...").
    pub fields: &'static str,
}

/// Per type and status, how many lines the log holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AckCounts {
    /// Indexed by type, then by [`AckStatus::ALL`]'s order.
    pub by_type: Vec<[u64; 3]>,
}

impl AckCounts {
    /// The lines of `status`, all types together.
    pub fn total(&self, status: AckStatus) -> u64 {
        let i = status_index(status);
        self.by_type.iter().map(|c| c[i]).sum()
    }
}

fn status_index(status: AckStatus) -> usize {
    AckStatus::ALL
        .iter()
        .position(|s| *s == status)
        .unwrap_or(0)
}

struct Pending {
    lines: String,
    counts: AckCounts,
}

/// Where workers append their lines: a cheap handle, cloned into every worker.
#[derive(Clone)]
pub struct AckLog {
    pending: Arc<Mutex<Pending>>,
    types: Arc<[LoggedType]>,
}

impl std::fmt::Debug for AckLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AckLog").finish_non_exhaustive()
    }
}

impl AckLog {
    /// A log of these types (indexed as the workload indexes them).
    pub fn new(types: Vec<LoggedType>) -> AckLog {
        let counts = AckCounts {
            by_type: vec![[0; 3]; types.len()],
        };
        AckLog {
            pending: Arc::new(Mutex::new(Pending {
                lines: String::new(),
                counts,
            })),
            types: types.into(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        // A worker that panicked mid-line left a line that is still text.
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Append what became of an attempt of type `txn_type`, if its procedure
    /// stated anything. The line is formatted in `written`'s own buffer, so
    /// the lock is held for a copy only.
    pub fn record(&self, txn_type: usize, written: &mut Written, status: Option<AckStatus>) {
        let Some(status) = status else { return };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_micros();
        let key = self.types.get(txn_type).map_or("?", |t| t.key);
        let (fields, line) = written.fields_and_line();
        line.clear();
        let _ = write!(line, "{now},{},{key},", status.name());
        for (i, f) in fields.iter().enumerate() {
            let sep = if i == 0 { "" } else { " " };
            let _ = write!(line, "{sep}{f}");
        }
        line.push('\n');
        let mut p = self.lock();
        p.lines.push_str(line);
        if let Some(c) = p.counts.by_type.get_mut(txn_type) {
            c[status_index(status)] += 1;
        }
    }

    fn take(&self, spare: &mut String) {
        std::mem::swap(&mut self.lock().lines, spare);
    }

    fn counts(&self) -> AckCounts {
        self.lock().counts.clone()
    }

    fn header(&self) -> String {
        let mut h = format!("{MAGIC}\n");
        for t in self.types.iter().filter(|t| !t.fields.is_empty()) {
            let _ = writeln!(h, "# {}: {}", t.key, t.fields);
        }
        h + HEADER + "\n"
    }
}

/// The thread that writes a log's lines to its file once a second.
pub struct AckWriter {
    log: AckLog,
    stop: mpsc::Sender<()>,
    thread: JoinHandle<(Box<dyn Write + Send>, io::Result<()>)>,
}

impl AckWriter {
    /// Write the header to `out` and start the thread that appends the log's
    /// lines to it.
    pub fn start(log: &AckLog, mut out: Box<dyn Write + Send>) -> io::Result<AckWriter> {
        out.write_all(log.header().as_bytes())?;
        out.flush()?;
        let (stop, stopped) = mpsc::channel();
        let source = log.clone();
        let thread = std::thread::Builder::new()
            .name("txbench-acks".into())
            .spawn(move || {
                let mut spare = String::new();
                loop {
                    let last = !matches!(
                        stopped.recv_timeout(FLUSH_EVERY),
                        Err(mpsc::RecvTimeoutError::Timeout)
                    );
                    source.take(&mut spare);
                    let written = out.write_all(spare.as_bytes()).and_then(|()| out.flush());
                    spare.clear();
                    if let Err(e) = written {
                        return (out, Err(e));
                    }
                    if last {
                        return (out, Ok(()));
                    }
                }
            })?;
        Ok(AckWriter {
            log: log.clone(),
            stop,
            thread,
        })
    }

    /// Write what is left, stop the thread and return what the log holds.
    /// Lines recorded after this are not written: call it once the workers
    /// are done.
    pub fn finish(self) -> io::Result<AckCounts> {
        let _ = self.stop.send(());
        let (mut out, written) = self
            .thread
            .join()
            .map_err(|_| io::Error::other("the acknowledged-work log's writer panicked"))?;
        written?;
        // Whatever a late worker appended after the thread's last swap.
        let mut rest = String::new();
        self.log.take(&mut rest);
        out.write_all(rest.as_bytes())?;
        out.flush()?;
        Ok(self.log.counts())
    }
}

/// One line of a log, read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AckLine {
    /// When the driver learnt the outcome (µs since the Unix epoch).
    pub unix_us: u64,
    /// What became of it.
    pub status: AckStatus,
    /// The type's short name.
    pub txn_type: String,
    /// The identifying fields.
    pub fields: Vec<i64>,
}

/// A log read back: its types' field names and its lines.
#[derive(Debug, Clone, Default)]
pub struct AckFile {
    /// Per type key, its field names.
    pub types: Vec<(String, Vec<String>)>,
    /// The lines, in the order they were written.
    pub lines: Vec<AckLine>,
}

impl AckFile {
    /// The lines of one type.
    pub fn of_type<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a AckLine> + 'a {
        self.lines.iter().filter(move |l| l.txn_type == key)
    }
}

/// Why a log cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Its first line is not the log's.
    #[error("line 1 is {0:?}, not {MAGIC:?}: not an acknowledged-work log")]
    NotALog(String),
    /// Nothing in it.
    #[error("the file is empty")]
    Empty,
    /// A line that could not be read.
    #[error("line {line}: {source}")]
    Io {
        /// Its number, 1-based.
        line: usize,
        /// The error.
        source: std::io::Error,
    },
    /// A line that is not a log line (and not the last, cut short).
    #[error("line {line} is not a log line: {text:?}")]
    NotALine {
        /// Its number, 1-based.
        line: usize,
        /// Its text.
        text: String,
    },
}

/// Read a log; an error names the line that is not one. A last line cut
/// short (the client killed mid-write) is left out, as it was never whole.
pub fn read(input: impl BufRead) -> Result<AckFile, ReadError> {
    let mut file = AckFile::default();
    let mut lines = input.lines().enumerate().peekable();
    match lines.next() {
        Some((_, Ok(first))) if first == MAGIC => {}
        Some((_, Ok(first))) => return Err(ReadError::NotALog(first)),
        Some((_, Err(source))) => return Err(ReadError::Io { line: 1, source }),
        None => return Err(ReadError::Empty),
    }
    while let Some((n, line)) = lines.next() {
        let line = line.map_err(|source| ReadError::Io {
            line: n + 1,
            source,
        })?;
        if let Some(comment) = line.strip_prefix("# ") {
            if let Some((key, fields)) = comment.split_once(": ") {
                let names = fields.split(' ').map(str::to_string).collect();
                file.types.push((key.to_string(), names));
            }
            continue;
        }
        if line == HEADER {
            continue;
        }
        match parse_line(&line) {
            Some(l) => file.lines.push(l),
            None if lines.peek().is_none() => {}
            None => {
                return Err(ReadError::NotALine {
                    line: n + 1,
                    text: line,
                });
            }
        }
    }
    Ok(file)
}

fn parse_line(line: &str) -> Option<AckLine> {
    let mut cols = line.splitn(4, ',');
    let unix_us = cols.next()?.parse().ok()?;
    let status = AckStatus::from_name(cols.next()?)?;
    let txn_type = cols.next()?.to_string();
    let fields = cols
        .next()?
        .split(' ')
        .filter(|f| !f.is_empty())
        .map(|f| f.parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    Some(AckLine {
        unix_us,
        status,
        txn_type,
        fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{DbError, ErrorKind};
    use crate::txn::Outcome;

    /// A `Write` whose bytes the test can read after the writer has it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn types() -> Vec<LoggedType> {
        vec![
            LoggedType {
                key: "new_order",
                fields: "w_id d_id o_id",
            },
            LoggedType {
                key: "order_status",
                fields: "",
            },
        ]
    }

    #[test]
    fn lines_written_are_read_back_with_their_status_and_counted() {
        let log = AckLog::new(types());
        let out = Shared::default();
        let writer = AckWriter::start(&log, Box::new(out.clone())).unwrap();
        let mut w = Written::new();
        w.committing([1, 2, 3001]);
        let status = w.status(&Ok(Outcome::Committed));
        log.record(0, &mut w, status);
        w.committing([1, 2, 3002]);
        let lost = Err(DbError::new(ErrorKind::Connection, "gone"));
        let status = w.status(&lost);
        log.record(0, &mut w, status);
        w.writing([1, 3, 77]);
        let status = w.status(&Ok(Outcome::ExpectedRollback));
        log.record(0, &mut w, status);
        w.clear();
        let status = w.status(&Ok(Outcome::Committed));
        log.record(1, &mut w, status);
        let counts = writer.finish().unwrap();
        assert_eq!(counts.by_type, vec![[1, 1, 1], [0, 0, 0]]);
        assert_eq!(counts.total(AckStatus::InDoubt), 1);

        let bytes = out.0.lock().unwrap().clone();
        let file = read(&bytes[..]).unwrap();
        assert_eq!(
            file.types,
            vec![(
                "new_order".to_string(),
                vec!["w_id".into(), "d_id".into(), "o_id".into()]
            )],
            "a type that logs nothing has no header line"
        );
        let seen: Vec<(AckStatus, Vec<i64>)> = file
            .of_type("new_order")
            .map(|l| (l.status, l.fields.clone()))
            .collect();
        assert_eq!(
            seen,
            vec![
                (AckStatus::Acknowledged, vec![1, 2, 3001]),
                (AckStatus::InDoubt, vec![1, 2, 3002]),
                (AckStatus::RolledBack, vec![1, 3, 77]),
            ]
        );
        assert!(file.lines.iter().all(|l| l.unix_us > 1_600_000_000_000_000));
    }

    #[test]
    fn a_torn_last_line_is_left_out_and_a_torn_middle_one_named() {
        let whole = format!("{MAGIC}\n{HEADER}\n1,ack,new_order,1 2 3\n2,ack,new_or");
        let file = read(whole.as_bytes()).unwrap();
        assert_eq!(file.lines.len(), 1);
        let broken = format!("{MAGIC}\n1,ack,new_order,1 x 3\n2,ack,new_order,1 2 4\n");
        let e = read(broken.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = read("unix_us,status\n".as_bytes()).unwrap_err();
        assert!(
            e.to_string().contains("not an acknowledged-work log"),
            "{e}"
        );
    }
}
