//! How a command fails, and the exit code that goes with it. A failure keeps
//! its causes (a library's typed error, an I/O error under what was being
//! done) and is printed with the whole chain, outermost first.

use std::fmt;

use txbench_core::DbError;
use txbench_engines::OpenError;
use txbench_workloads::WorkloadError;

/// A command's failure; `main` alone turns it into an exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: flags, values, URLs, or a request the database's state refuses
    /// (exit 2).
    Usage(anyhow::Error),
    /// The work failed (exit 1).
    Failed(anyhow::Error),
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

    /// Bad input, said in one line.
    pub fn usage(message: impl fmt::Display) -> Failure {
        Failure::Usage(anyhow::Error::msg(message.to_string()))
    }

    /// A failure of the work, said in one line.
    pub fn failed(message: impl fmt::Display) -> Failure {
        Failure::Failed(anyhow::Error::msg(message.to_string()))
    }

    /// A failure caused by `cause` while doing `what` ("writing results/x:
    /// No space left on device").
    pub fn failed_because<E>(cause: E, what: impl fmt::Display + Send + Sync + 'static) -> Failure
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        Failure::Failed(anyhow::Error::new(cause).context(what))
    }

    /// A failure that is `cause` itself.
    pub fn error<E>(cause: E) -> Failure
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        Failure::Failed(anyhow::Error::new(cause))
    }

    /// A library's error: bad input (exit 2) when `usage` says the command
    /// asked for what cannot be, else a failure (exit 1); the error itself is
    /// kept, with its causes.
    fn usage_or_failed<E>(usage: bool, e: E) -> Failure
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let e = anyhow::Error::new(e);
        if usage {
            Failure::Usage(e)
        } else {
            Failure::Failed(e)
        }
    }

    /// A results file that could not be read: bad input (exit 2) when it is
    /// missing, damaged or refused (a run given twice, a newer schema); a
    /// failure (exit 1) when reading it failed (permissions, a disk error).
    pub fn reading(e: std::io::Error) -> Failure {
        use std::io::ErrorKind;
        let usage = matches!(
            e.kind(),
            ErrorKind::InvalidData | ErrorKind::InvalidInput | ErrorKind::NotFound
        );
        Failure::usage_or_failed(usage, e)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The whole chain: "writing results/x: No space left on device".
            Failure::Usage(e) | Failure::Failed(e) => write!(f, "{e:#}"),
            Failure::Interrupted(m) | Failure::NotSound(m) => f.write_str(m),
            Failure::CheckFailed => f.write_str("consistency check failed"),
        }
    }
}

impl From<DbError> for Failure {
    /// A database's error; one whose code says what to do (credentials
    /// refused, no such database) is said in those words.
    fn from(e: DbError) -> Self {
        match txbench_engines::explained(&e) {
            Some(why) => Failure::error(Explained { why, error: e }),
            None => Failure::error(e),
        }
    }
}

/// A database's error said in the words that tell what to do, the error
/// kept beneath for whoever adds to them (the load command for a database
/// that does not exist).
#[derive(Debug)]
pub struct Explained {
    /// The words (the server's message first).
    pub why: String,
    /// The database's error.
    pub error: DbError,
}

impl fmt::Display for Explained {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.why)
    }
}

// No source: the words hold the server's message already.
impl std::error::Error for Explained {}

impl Failure {
    /// Whether the server said the `--db` URL's database does not exist,
    /// anywhere in the failure's causes.
    pub fn is_no_such_database(&self) -> bool {
        let (Failure::Usage(e) | Failure::Failed(e)) = self else {
            return false;
        };
        e.chain().any(|c| {
            c.downcast_ref::<Explained>()
                .is_some_and(|x| txbench_engines::is_no_such_database(&x.error))
                || c.downcast_ref::<OpenError>()
                    .is_some_and(OpenError::is_no_such_database)
        })
    }
}

impl From<OpenError> for Failure {
    fn from(e: OpenError) -> Self {
        Failure::usage_or_failed(e.is_usage(), e)
    }
}

impl From<WorkloadError> for Failure {
    fn from(e: WorkloadError) -> Self {
        Failure::usage_or_failed(e.is_usage(), e)
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Failed(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_printed_with_its_causes_and_keeps_them() {
        let disk = std::io::Error::new(std::io::ErrorKind::StorageFull, "No space left on device");
        let f = Failure::failed_because(disk, "writing results/x");
        assert_eq!(f.to_string(), "writing results/x: No space left on device");
        assert_eq!(f.exit_code(), 1);
        let Failure::Failed(e) = &f else {
            panic!("not a failure: {f:?}")
        };
        let io = e
            .downcast_ref::<std::io::Error>()
            .expect("the cause is kept");
        assert_eq!(io.kind(), std::io::ErrorKind::StorageFull);
    }

    #[test]
    fn a_library_error_keeps_its_type_and_its_exit_code() {
        let about = <txbench_workloads::tpcc::Tpcc as txbench_workloads::Benchmark>::ABOUT;
        let f = Failure::from(WorkloadError::BadScale { about, value: 0 });
        assert_eq!(f.exit_code(), 2, "{f}");
        let Failure::Usage(e) = &f else {
            panic!("not bad input: {f:?}")
        };
        assert!(e.downcast_ref::<WorkloadError>().is_some());
        let f = Failure::from(DbError::new(txbench_core::ErrorKind::Connection, "reset"));
        assert_eq!((f.exit_code(), f.to_string().contains("reset")), (1, true));
    }

    #[test]
    fn a_missing_or_damaged_results_file_is_bad_input_a_disk_error_a_failure() {
        let missing = std::io::Error::new(std::io::ErrorKind::NotFound, "no summary.json");
        assert_eq!(Failure::reading(missing).exit_code(), 2);
        let denied = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        assert_eq!(Failure::reading(denied).exit_code(), 1);
    }
}
