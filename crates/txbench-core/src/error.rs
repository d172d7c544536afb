//! One database error type with a small classification.
//!
//! Every engine maps its native codes (SQLITE_BUSY, SQLSTATE 40001, MySQL 1213, ...)
//! into an [`ErrorKind`]; the driver decides retries from the kind alone.

use std::fmt;

/// What the driver should do about a failed transaction attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    /// A conflict the database asks us to retry: busy, serialization failure, deadlock.
    Conflict,
    /// The connection to the database was lost.
    Connection,
    /// A constraint was violated (duplicate key, foreign key, check).
    Constraint,
    /// The data was not what the procedure expected (missing row the specification guarantees).
    Data,
    /// Anything else: syntax, permissions, internal errors.
    Other,
}

impl ErrorKind {
    /// Every kind, in a fixed order (for counters indexed by kind).
    pub const ALL: [ErrorKind; 5] = [
        ErrorKind::Conflict,
        ErrorKind::Connection,
        ErrorKind::Constraint,
        ErrorKind::Data,
        ErrorKind::Other,
    ];

    /// A short lower-case name used in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Conflict => "conflict",
            ErrorKind::Connection => "connection",
            ErrorKind::Constraint => "constraint",
            ErrorKind::Data => "data",
            ErrorKind::Other => "other",
        }
    }

    /// The kind a [`ErrorKind::name`] names; `Other` for a name this build does not know.
    pub fn from_name(name: &str) -> ErrorKind {
        ErrorKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .unwrap_or(ErrorKind::Other)
    }

    /// Whether a transaction that failed this way may be retried.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorKind::Conflict)
    }
}

/// An error from a database engine, classified.
#[derive(Debug, Clone)]
pub struct DbError {
    /// The class of the error.
    pub kind: ErrorKind,
    /// The engine's message, kept whole so causes are not lost.
    pub message: String,
    /// The database's own code for it ("SQLSTATE 40001", "MySQL 1213",
    /// "SQLite busy"); `None` for txbench's own errors.
    pub code: Option<String>,
}

impl DbError {
    /// A new error of a kind with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        DbError {
            kind,
            message: message.into(),
            code: None,
        }
    }

    /// The error with the database's own code for it.
    pub fn with_code(self, code: impl Into<String>) -> Self {
        DbError {
            code: Some(code.into()),
            ..self
        }
    }

    /// Whether it is a duplicate key (a unique or primary key refused a
    /// value it holds), by the database's own code: PostgreSQL's SQLSTATE
    /// 23505, MySQL's 1062, SQLite's constraint error on a UNIQUE or
    /// PRIMARY KEY.
    pub fn is_duplicate_key(&self) -> bool {
        match self.code.as_deref() {
            Some("SQLSTATE 23505" | "MySQL 1062") => true,
            Some("SQLite ConstraintViolation") => self.message.contains("UNIQUE constraint failed"),
            _ => false,
        }
    }

    /// What caused it, in a few words to count by: the database's code, or
    /// txbench's own message (the first 60 characters).
    pub fn into_cause(self) -> String {
        match self.code {
            Some(code) => code,
            None => self.message.chars().take(60).collect(),
        }
    }

    /// A row the specification guarantees was missing.
    pub fn missing(what: impl fmt::Display) -> Self {
        DbError::new(ErrorKind::Data, format!("missing row: {what}"))
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} error: {}", self.kind.name(), self.message)
    }
}

impl std::error::Error for DbError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_told_by_the_database_s_code() {
        let constraint = |code: &str, message: &str| {
            DbError::new(ErrorKind::Constraint, message).with_code(code)
        };
        assert!(constraint("SQLSTATE 23505", "duplicate key value").is_duplicate_key());
        assert!(constraint("MySQL 1062", "Duplicate entry").is_duplicate_key());
        let sqlite = "insert: UNIQUE constraint failed: t.id";
        assert!(constraint("SQLite ConstraintViolation", sqlite).is_duplicate_key());
        // A foreign key or a NULL is no duplicate.
        assert!(!constraint("SQLSTATE 23503", "foreign key").is_duplicate_key());
        assert!(!constraint("MySQL 1048", "cannot be null").is_duplicate_key());
        let null = "insert: NOT NULL constraint failed: t.c";
        assert!(!constraint("SQLite ConstraintViolation", null).is_duplicate_key());
    }
}
