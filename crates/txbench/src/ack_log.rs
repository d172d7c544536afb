//! A run's acknowledged-work log in its results directory: opened before the
//! run, written once a second while it goes, closed after it, and told in one
//! line of the summary (docs/durability.md).

use std::path::Path;

use txbench_core::acks::{ACKS_FILE, AckCounts, AckLog, AckWriter, LoggedType};
use txbench_core::written::AckStatus;
use txbench_core::{Engine, Execution, Workload};

use crate::failure::Failure;

/// An open log: the handle the driver's workers append to, and its writer.
pub struct OpenLog {
    /// What the workers append to.
    pub log: AckLog,
    writer: AckWriter,
}

/// Open `dir/acks.csv` for a run of `workload` on `E`. Refused (exit 2) for
/// an engine that does not run the procedures here: a txbench server keeps
/// what its transactions wrote to itself, and `null:` or `sim:` write nothing.
pub fn open<E: Engine, W: Workload>(
    engine: &E,
    dir: &Path,
    workload: &W,
) -> Result<OpenLog, Failure> {
    match engine.execution() {
        Execution::Statements | Execution::Scripts => {}
        Execution::ServedTransactions => {
            return Err(Failure::usage(
                "--ack-log: a txbench server runs the transactions and keeps what they wrote \
                 to itself; run against the database's own URL to keep the log",
            ));
        }
        Execution::Dataless => {
            return Err(Failure::usage(format!(
                "--ack-log: {} keeps no data, so there is nothing to log",
                engine.name()
            )));
        }
    }
    let types = workload
        .transaction_types()
        .iter()
        .enumerate()
        .map(|(i, t)| LoggedType {
            key: t.key,
            fields: workload.ack_fields(i),
        })
        .collect();
    let log = AckLog::new(types);
    let path = dir.join(ACKS_FILE);
    let io = |e| Failure::failed_because(e, format!("writing {}", path.display()));
    let file = std::fs::File::create(&path).map_err(io)?;
    let writer = AckWriter::start(&log, Box::new(file)).map_err(io)?;
    Ok(OpenLog { log, writer })
}

impl OpenLog {
    /// Write what is left and close the file: the counts, or why the log
    /// could not be written (reported after the summary).
    pub fn close(self, dir: &Path) -> Result<AckCounts, String> {
        self.writer
            .finish()
            .map_err(|e| format!("writing {}: {e}", dir.join(ACKS_FILE).display()))
    }
}

/// The summary's line about the log.
pub fn summary_line(dir: &Path, counts: &AckCounts) -> String {
    format!(
        "acknowledged-work log: {} ({} acknowledged, {} in doubt, {} rolled back)",
        dir.join(ACKS_FILE).display(),
        counts.total(AckStatus::Acknowledged),
        counts.total(AckStatus::InDoubt),
        counts.total(AckStatus::RolledBack)
    )
}
