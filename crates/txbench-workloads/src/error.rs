//! Why a workload's command cannot go on: one error type for every workload,
//! its messages made from the workload's [`About`].

use std::sync::OnceLock;

use thiserror::Error;
use txbench_core::DbError;

use crate::about::About;

/// Why loading, opening or checking a workload failed.
#[derive(Debug, Error)]
pub enum WorkloadError {
    /// Nothing is loaded.
    #[error(
        "the database holds no {} data: load it first with `txbench {} load{} --db ...`",
        .0.title, .0.name, file_flag(.0)
    )]
    NotLoaded(&'static About),
    /// A load was interrupted.
    #[error(
        "the {} load in this database did not finish: reload with `txbench {} load --drop{}`",
        .0.title, .0.name, file_flag(.0)
    )]
    Incomplete(&'static About),
    /// A table of the workload's is in the database, and txbench did not
    /// create it: a user's, or another tool's.
    #[error(
        "the database holds a table '{table}' that txbench did not create: the {} load will not \
         touch it (drop or rename it yourself, or load into another database)",
        .about.title
    )]
    NotOurs {
        /// The workload.
        about: &'static About,
        /// The table.
        table: &'static str,
    },
    /// The load's record and the data disagree on the scale: another tool
    /// loaded over txbench's load (or deleted from it).
    #[error(
        "the {} load's record says {unit} {recorded} but {table} holds {held} rows: another tool \
         loaded over it, and its data would run at the record's scale; load again with \
         `txbench {} load --drop{}`",
        .about.title, .about.name, file_flag(.about), unit = .about.scale.unit
    )]
    StaleRecord {
        /// The workload.
        about: &'static About,
        /// The scale recorded.
        recorded: i64,
        /// The rows the scale's table holds.
        held: i64,
        /// That table.
        table: &'static str,
    },
    /// A table the load recorded was made again since by another tool
    /// (`sysbench cleanup; sysbench prepare`): the record's scale is not
    /// its data's, and the table is not txbench's to drop.
    #[error(
        "the {} load's record names {table}, but the {table} there was made since by another \
         tool (it lacks the mark txbench's load gives its tables): the record does not \
         describe its data; drop it yourself (or with that tool's cleanup), then load again \
         with `txbench {} load --drop{}`",
        .about.title, .about.name, file_flag(.about)
    )]
    Replaced {
        /// The workload.
        about: &'static About,
        /// The table.
        table: String,
    },
    /// A table of the workload's is not of its shape (another tool's, or
    /// changed by hand).
    #[error(
        "the {} table '{table}' {problem}: it cannot run {}; {}",
        .about.title, .about.title, reload_advice(.about, *.ours)
    )]
    Shape {
        /// The workload.
        about: &'static About,
        /// The table.
        table: &'static str,
        /// What is wrong with it.
        problem: String,
        /// Whether txbench's load made the table (a `--drop` replaces it).
        ours: bool,
    },
    /// Data is already loaded.
    #[error(
        "the database already holds {} data ({loaded} {}): add --drop to replace it",
        .about.title, .about.scale.unit
    )]
    AlreadyLoaded {
        /// The workload.
        about: &'static About,
        /// The scale in the database.
        loaded: i64,
    },
    /// The command asked for another scale than is loaded (or served).
    #[error(
        "--{unit} {asked} disagrees with the {loaded} {unit} loaded in the database",
        unit = .about.scale.unit
    )]
    ScaleMismatch {
        /// The workload.
        about: &'static About,
        /// What the command asked for.
        asked: i64,
        /// What the database holds.
        loaded: i64,
    },
    /// An invalid scale.
    #[error("invalid {} count {value}: it must be at least 1", .about.scale.one)]
    BadScale {
        /// The workload.
        about: &'static About,
        /// The scale given.
        value: i64,
    },
    /// An invalid workload option, its flag and value named.
    #[error("{0}")]
    BadOption(String),
    /// A txbench server serves another workload than the one asked for.
    #[error("the txbench server serves '{served}', not {}", .about.title)]
    WrongServer {
        /// The workload asked for.
        about: &'static About,
        /// What the server said it serves.
        served: String,
    },
    /// The workload has no consistency check.
    #[error("{} has no consistency check", .0.title)]
    NoCheck(&'static About),
    /// The workload cannot hold an acknowledged-work log against its database.
    #[error("{} has no verify of acknowledged work", .0.title)]
    NoVerify(&'static About),
    /// The workload has no ACID tests a client can drive.
    #[error("{} has no acid tests", .0.title)]
    NoAcid(&'static About),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The workload file this process runs, by the command's workload and the
/// flag naming the file (`custom`, `--workload smallbank`): set once the
/// file is defined, so that advice names the command that repeats it.
static FILE_FLAG: OnceLock<(&'static str, String)> = OnceLock::new();

/// Say that `workload`'s commands name their file with `flag`.
pub(crate) fn name_file_flag(workload: &'static str, flag: String) {
    let _ = FILE_FLAG.set((workload, flag));
}

/// The flag a command for `about` needs beyond its name: a workload file's
/// (`custom load --drop --workload smallbank`), none for the others.
fn file_flag(about: &About) -> String {
    match FILE_FLAG.get() {
        Some((workload, flag)) if *workload == about.name => format!(" {flag}"),
        _ => String::new(),
    }
}

/// How to get a table of the workload's shape: a load's `--drop` replaces
/// txbench's own table, and refuses another's.
fn reload_advice(about: &About, ours: bool) -> String {
    let load = format!("`txbench {} load --drop{}`", about.name, file_flag(about));
    if ours {
        format!("load again with {load} (or fix the table)")
    } else {
        format!("fix the table, or drop it yourself and load with {load}")
    }
}

impl WorkloadError {
    /// Whether the error is the user's to fix by changing the command (a
    /// scale or option that does not fit): exit 2 rather than 1.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            WorkloadError::AlreadyLoaded { .. }
                | WorkloadError::NotOurs { .. }
                | WorkloadError::StaleRecord { .. }
                | WorkloadError::Replaced { .. }
                | WorkloadError::Shape { .. }
                | WorkloadError::ScaleMismatch { .. }
                | WorkloadError::BadScale { .. }
                | WorkloadError::BadOption(_)
        )
    }
}
