//! How a command fails, and the exit code that goes with it.

use std::fmt;

use txbench_core::DbError;
use txbench_engines::OpenError;
use txbench_workloads::WorkloadError;

/// A command's failure; `main` alone turns it into an exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: flags, values, URLs, or a request the database's state refuses
    /// (exit 2).
    Usage(String),
    /// The work failed (exit 1).
    Failed(String),
    /// A check found violations; its report is already printed (exit 1).
    CheckFailed,
    /// Ctrl-C or SIGTERM stopped the command (exit 130 or 143); what it had
    /// measured is already written.
    Interrupted(String),
    /// With `--strict`: the run completed and is written, but its verdict is
    /// NOT SOUND (exit 3), so that scripts can gate on it.
    NotSound(String),
}

impl Failure {
    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Failed(_) | Failure::CheckFailed => 1,
            Failure::Interrupted(_) => crate::signals::exit_code(),
            Failure::NotSound(_) => 3,
        }
    }
}

impl Failure {
    /// A library's error: bad input (exit 2) when `usage` says the command
    /// asked for what cannot be, else a failure (exit 1).
    fn usage_or_failed(usage: bool, e: &dyn std::error::Error) -> Failure {
        if usage {
            Failure::Usage(e.to_string())
        } else {
            Failure::Failed(e.to_string())
        }
    }

    /// A results file that could not be read: bad input (exit 2) when it is
    /// missing, damaged or refused (a run given twice, a newer schema); a
    /// failure (exit 1) when reading it failed (permissions, a disk error).
    pub fn reading(e: std::io::Error) -> Failure {
        use std::io::ErrorKind;
        match e.kind() {
            ErrorKind::InvalidData | ErrorKind::InvalidInput | ErrorKind::NotFound => {
                Failure::Usage(e.to_string())
            }
            _ => Failure::Failed(e.to_string()),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Usage(m)
            | Failure::Failed(m)
            | Failure::Interrupted(m)
            | Failure::NotSound(m) => f.write_str(m),
            Failure::CheckFailed => f.write_str("consistency check failed"),
        }
    }
}

impl From<DbError> for Failure {
    fn from(e: DbError) -> Self {
        Failure::Failed(e.to_string())
    }
}

impl From<OpenError> for Failure {
    fn from(e: OpenError) -> Self {
        Failure::usage_or_failed(e.is_usage(), &e)
    }
}

impl From<WorkloadError> for Failure {
    fn from(e: WorkloadError) -> Self {
        Failure::usage_or_failed(e.is_usage(), &e)
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Failed(format!("{e:#}"))
    }
}
