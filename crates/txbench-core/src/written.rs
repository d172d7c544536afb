//! What a transaction wrote, by the identity its workload gives it, and what
//! became of it: the record of the acknowledged-work log (docs/durability.md).
//!
//! A procedure states its intent just before it asks the database to end the
//! transaction (commit or roll back), with the fields that identify what the
//! transaction wrote (TPC-C New-Order: warehouse, district, order id, ...).
//! The driver then knows, from how the attempt ended, whether the database
//! acknowledged it, refused it, or left its outcome unknown.

use crate::error::{DbError, ErrorKind};
use crate::txn::Outcome;

/// How a procedure is about to end its transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Intent {
    /// Nothing stated: the transaction writes nothing the log keeps (a
    /// read-only type), or it has not reached its end.
    #[default]
    None,
    /// It is about to commit what the fields identify.
    Commit,
    /// It writes what the fields identify and has not asked to commit: it
    /// may still fail, or roll back on purpose (TPC-C's 1% New-Order
    /// rollbacks). However it ends, the database must keep none of it.
    Uncommitted,
}

/// The identity of what one transaction attempt wrote: integers in the order
/// its type's [`crate::Workload::ack_fields`] names them. Kept by the worker
/// and cleared before each attempt, so it allocates only while it grows.
#[derive(Debug, Clone, Default)]
pub struct Written {
    intent: Intent,
    fields: Vec<i64>,
    /// Where the log formats this record's line: kept, so it allocates only
    /// while it grows.
    line: String,
}

impl Written {
    /// An empty record.
    pub fn new() -> Self {
        Written::default()
    }

    /// The transaction is about to commit what `fields` identify (an array,
    /// or an iterator: a procedure need not collect them first).
    pub fn committing(&mut self, fields: impl IntoIterator<Item = i64>) {
        self.state(Intent::Commit, fields);
    }

    /// The transaction is about to write what `fields` identify, without a
    /// commit asked yet: stated before its first write, so that an attempt
    /// that fails (or rolls back on purpose) before its commit is logged
    /// too, and `verify` can hold that none of it remains.
    pub fn writing(&mut self, fields: impl IntoIterator<Item = i64>) {
        self.state(Intent::Uncommitted, fields);
    }

    /// The transaction is about to commit what [`Written::writing`] stated.
    pub fn committing_as_stated(&mut self) {
        self.intent = Intent::Commit;
    }

    fn state(&mut self, intent: Intent, fields: impl IntoIterator<Item = i64>) {
        self.intent = intent;
        self.fields.clear();
        self.fields.extend(fields);
    }

    /// Forget the last attempt's record.
    pub fn clear(&mut self) {
        self.intent = Intent::None;
        self.fields.clear();
    }

    /// What the procedure stated.
    pub fn intent(&self) -> Intent {
        self.intent
    }

    /// The identifying fields.
    pub fn fields(&self) -> &[i64] {
        &self.fields
    }

    /// The fields, and the buffer a log line of them is formatted in.
    pub fn fields_and_line(&mut self) -> (&[i64], &mut String) {
        (&self.fields, &mut self.line)
    }

    /// What became of the attempt, given how it ended; `None` when it stated
    /// nothing.
    pub fn status(&self, ended: &Result<Outcome, DbError>) -> Option<AckStatus> {
        match (self.intent, ended) {
            (Intent::None, _) => None,
            (Intent::Commit, Ok(Outcome::Committed)) => Some(AckStatus::Acknowledged),
            // The database answered and refused the commit (a serialization
            // failure, a constraint): nothing of it may remain.
            (Intent::Commit, Err(e))
                if matches!(
                    e.kind,
                    ErrorKind::Conflict | ErrorKind::Constraint | ErrorKind::Data
                ) =>
            {
                Some(AckStatus::RolledBack)
            }
            // The connection went (or the database said something we cannot
            // classify) while the commit was asked: it may or may not have
            // happened.
            (Intent::Commit, Err(_)) => Some(AckStatus::InDoubt),
            (Intent::Commit, Ok(Outcome::ExpectedRollback)) => Some(AckStatus::RolledBack),
            // No COMMIT was sent: even a lost connection leaves nothing
            // committed.
            (Intent::Uncommitted, _) => Some(AckStatus::RolledBack),
        }
    }
}

/// What became of a transaction whose intent was stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AckStatus {
    /// The database acknowledged the commit: it must be durable.
    Acknowledged,
    /// The commit was asked and no answer came (the connection was lost
    /// during or after it): it may be there or not.
    InDoubt,
    /// The transaction rolled back, or the database refused its commit: none of
    /// it may be there.
    RolledBack,
}

impl AckStatus {
    /// Every status, in a fixed order.
    pub const ALL: [AckStatus; 3] = [
        AckStatus::Acknowledged,
        AckStatus::InDoubt,
        AckStatus::RolledBack,
    ];

    /// Its name in the log ("ack", "doubt", "rollback").
    pub fn name(self) -> &'static str {
        match self {
            AckStatus::Acknowledged => "ack",
            AckStatus::InDoubt => "doubt",
            AckStatus::RolledBack => "rollback",
        }
    }

    /// The status a [`AckStatus::name`] names.
    pub fn from_name(name: &str) -> Option<AckStatus> {
        AckStatus::ALL.into_iter().find(|s| s.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(kind: ErrorKind) -> Result<Outcome, DbError> {
        Err(DbError::new(kind, "x"))
    }

    #[test]
    fn the_outcome_of_a_commit_follows_how_it_ended() {
        let mut w = Written::new();
        assert_eq!(w.status(&Ok(Outcome::Committed)), None, "nothing stated");
        w.committing([1, 2, 3]);
        assert_eq!(w.fields(), &[1, 2, 3]);
        assert_eq!(
            w.status(&Ok(Outcome::Committed)),
            Some(AckStatus::Acknowledged)
        );
        assert_eq!(
            w.status(&err(ErrorKind::Connection)),
            Some(AckStatus::InDoubt)
        );
        assert_eq!(w.status(&err(ErrorKind::Other)), Some(AckStatus::InDoubt));
        assert_eq!(
            w.status(&err(ErrorKind::Conflict)),
            Some(AckStatus::RolledBack)
        );
        w.writing([4]);
        assert_eq!(w.fields(), &[4]);
        for ended in [
            err(ErrorKind::Connection),
            err(ErrorKind::Other),
            Ok(Outcome::ExpectedRollback),
        ] {
            assert_eq!(
                w.status(&ended),
                Some(AckStatus::RolledBack),
                "no COMMIT was sent: {ended:?}"
            );
        }
        w.clear();
        assert_eq!(w.intent(), Intent::None);
        assert!(w.fields().is_empty());
    }

    #[test]
    fn status_names_read_back() {
        for s in AckStatus::ALL {
            assert_eq!(AckStatus::from_name(s.name()), Some(s));
        }
        assert_eq!(AckStatus::from_name("maybe"), None);
    }
}
