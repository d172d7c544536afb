//! Where PostgreSQL-wire databases differ from the portable SQL of the workloads,
//! and from each other.
//!
//! * PostgreSQL: READ COMMITTED by default; conflicts surface as 40001 under
//!   REPEATABLE READ and SERIALIZABLE, deadlocks as 40P01.
//! * CockroachDB (`postgres://root@host:26257/tpcc?sslmode=disable` for an insecure
//!   cluster, `sslmode=verify-full` with certificates): SERIALIZABLE by default, so
//!   any transaction may fail with 40001 ("restart transaction") and must be
//!   retried by the client; `--max-retries` bounds that loop.
//! * YugabyteDB (`postgres://yugabyte@host:5433/yugabyte`): snapshot isolation by
//!   default (REPEATABLE READ), conflicts as 40001, retried the same way.
//!
//! None of the three needs other SQL: the workloads' statements are portable.

use std::error::Error as _;

use tokio_postgres::error::SqlState;
use txbench_core::{DbError, ErrorKind, Isolation, TxMode};

/// `?` placeholders become `$1, $2, ...` (outside quoted strings); `FOR UPDATE` is
/// appended to row-locking queries.
pub fn translate(sql: &str, for_update: bool) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut n = 0;
    let mut quoted = false;
    for ch in sql.chars() {
        match ch {
            '\'' => {
                quoted = !quoted;
                out.push(ch);
            }
            '?' if !quoted => {
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
            }
            _ => out.push(ch),
        }
    }
    if for_update {
        out.push_str(" FOR UPDATE");
    }
    out
}

/// The statement that starts a transaction.
pub fn begin_sql(mode: TxMode, isolation: Option<Isolation>) -> &'static str {
    use Isolation::*;
    match (mode, isolation) {
        // READ WRITE said: a pipelining session's default is read only.
        (TxMode::ReadWrite, None) => "BEGIN READ WRITE",
        (TxMode::ReadWrite, Some(ReadCommitted)) => {
            "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE"
        }
        (TxMode::ReadWrite, Some(RepeatableRead)) => {
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ WRITE"
        }
        (TxMode::ReadWrite, Some(Serializable)) => "BEGIN ISOLATION LEVEL SERIALIZABLE READ WRITE",
        (TxMode::ReadOnly, None) => "BEGIN READ ONLY",
        (TxMode::ReadOnly, Some(ReadCommitted)) => "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY",
        (TxMode::ReadOnly, Some(RepeatableRead)) => {
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        }
        (TxMode::ReadOnly, Some(Serializable)) => "BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY",
        // A consistency check reads one snapshot whatever the run's level.
        (TxMode::Snapshot, Some(Serializable)) => "BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY",
        (TxMode::Snapshot, _) => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    }
}

/// The whole message of an error: tokio-postgres keeps the server's text in the
/// error's source.
pub fn describe(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{} ({}): {}", db.severity(), db.code().code(), db.message());
    }
    match e.source() {
        Some(source) => format!("{e}: {source}"),
        None => e.to_string(),
    }
}

/// A failure to connect: a lost connection, with the server's SQLSTATE
/// where it answered.
pub fn connect_error(e: &tokio_postgres::Error) -> DbError {
    let error = DbError::new(ErrorKind::Connection, describe(e));
    match e.code() {
        Some(state) => error.with_code(format!("SQLSTATE {}", state.code())),
        None => error,
    }
}

/// The kind of a server error of SQLSTATE `code`: serialization failures
/// and deadlocks are conflicts the driver retries; class 23 broken
/// constraints; classes 08 and 57P (connection failures, administrator
/// shutdown) lost connections.
fn kind_of_code(code: &str) -> ErrorKind {
    if code == SqlState::T_R_SERIALIZATION_FAILURE.code()
        || code == SqlState::T_R_DEADLOCK_DETECTED.code()
    {
        ErrorKind::Conflict
    } else if code.starts_with("23") {
        ErrorKind::Constraint
    } else if code.starts_with("08") || code.starts_with("57P") {
        ErrorKind::Connection
    } else {
        ErrorKind::Other
    }
}

/// The server's error of `code`, said while running `context` (its first
/// 80 characters), classified for the driver.
pub fn server_error(context: &str, severity: &str, code: &str, message: &str) -> DbError {
    let context: String = context.chars().take(80).collect();
    DbError::new(
        kind_of_code(code),
        format!("{context}: {severity} ({code}): {message}"),
    )
    .with_code(format!("SQLSTATE {code}"))
}

/// Classify an error for the driver.
pub fn map_err(e: &tokio_postgres::Error, context: &str) -> DbError {
    if let Some(db) = e.as_db_error() {
        return server_error(context, db.severity(), db.code().code(), db.message());
    }
    // Not the server's: the connection's (closed, or its socket's), or
    // tokio-postgres's own.
    let io = e.source().is_some_and(|s| s.is::<std::io::Error>());
    let kind = if e.is_closed() || io {
        ErrorKind::Connection
    } else {
        ErrorKind::Other
    };
    let context: String = context.chars().take(80).collect();
    DbError::new(kind, format!("{context}: {}", describe(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_outside_quotes() {
        assert_eq!(
            translate("SELECT a FROM t WHERE b = ? AND c = '?' AND d > ?", true),
            "SELECT a FROM t WHERE b = $1 AND c = '?' AND d > $2 FOR UPDATE"
        );
        assert_eq!(translate("SELECT 1", false), "SELECT 1");
    }

    #[test]
    fn snapshot_reads_are_at_least_repeatable_read() {
        assert!(begin_sql(TxMode::Snapshot, None).contains("REPEATABLE READ"));
        assert!(
            begin_sql(TxMode::Snapshot, Some(Isolation::ReadCommitted)).contains("REPEATABLE READ")
        );
        assert!(
            begin_sql(TxMode::Snapshot, Some(Isolation::Serializable)).contains("SERIALIZABLE")
        );
        assert_eq!(begin_sql(TxMode::ReadWrite, None), "BEGIN READ WRITE");
    }
}
