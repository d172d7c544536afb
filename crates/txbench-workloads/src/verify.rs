//! What `verify` finds when it holds an acknowledged-work log against the
//! database: per type, the acknowledged transactions durable or lost, the
//! in-doubt ones present or absent, the rolled-back ones absent or leaked
//! (docs/durability.md). The workloads say what "present" means for each of
//! their types; the tally is the same for all.

use serde::Serialize;
use txbench_core::written::AckStatus;

/// How much of a logged transaction the database holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// All of it.
    Present,
    /// None of it.
    Absent,
    /// Some of it but not all: atomicity was broken.
    Partial,
}

/// How many examples of each kind of failure a tally keeps, for evidence.
const EXAMPLES: usize = 10;

/// One type's findings.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct TypeVerification {
    /// The type's short name ("new_order").
    pub key: String,
    /// Acknowledged by the database.
    pub acknowledged: u64,
    /// Acknowledged and found whole.
    pub durable: u64,
    /// Acknowledged and not found.
    pub lost: u64,
    /// Found in part (acknowledged, in doubt or rolled back): atomicity broken.
    pub partial: u64,
    /// In doubt and found whole: the commit happened.
    pub in_doubt_present: u64,
    /// In doubt and not found: it did not.
    pub in_doubt_absent: u64,
    /// Rolled back (or refused at commit).
    pub rolled_back: u64,
    /// Rolled back, yet found in the database.
    pub leaked: u64,
    /// The first lost, partial or leaked transactions, as their log fields.
    pub examples: Vec<String>,
}

impl TypeVerification {
    /// An empty tally for the type `key`.
    pub fn new(key: &str) -> Self {
        TypeVerification {
            key: key.to_string(),
            ..TypeVerification::default()
        }
    }

    /// Count one logged transaction of `status` that the database holds as
    /// `found`; `fields` name it in the examples.
    pub fn tally(&mut self, status: AckStatus, found: Found, fields: &[i64]) {
        let failure = match (status, found) {
            (AckStatus::Acknowledged, Found::Present) => {
                self.acknowledged += 1;
                self.durable += 1;
                None
            }
            (AckStatus::Acknowledged, Found::Absent) => {
                self.acknowledged += 1;
                self.lost += 1;
                Some("lost")
            }
            (AckStatus::InDoubt, Found::Present) => {
                self.in_doubt_present += 1;
                None
            }
            (AckStatus::InDoubt, Found::Absent) => {
                self.in_doubt_absent += 1;
                None
            }
            (AckStatus::RolledBack, Found::Absent) => {
                self.rolled_back += 1;
                None
            }
            (AckStatus::RolledBack, Found::Present) => {
                self.rolled_back += 1;
                self.leaked += 1;
                Some("leaked")
            }
            (status, Found::Partial) => {
                match status {
                    AckStatus::Acknowledged => self.acknowledged += 1,
                    AckStatus::RolledBack => self.rolled_back += 1,
                    AckStatus::InDoubt => {}
                }
                self.partial += 1;
                Some("partial")
            }
        };
        if let Some(what) = failure
            && self.examples.len() < EXAMPLES
        {
            let fields: Vec<String> = fields.iter().map(i64::to_string).collect();
            self.examples
                .push(format!("{what} {} {}", self.key, fields.join(" ")));
        }
    }

    /// Whether nothing acknowledged was lost, nothing was found in part and
    /// no rollback leaked.
    pub fn sound(&self) -> bool {
        self.lost == 0 && self.partial == 0 && self.leaked == 0
    }
}

/// Everything `verify` found.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Verification {
    /// Per type that the log holds and the workload verifies.
    pub types: Vec<TypeVerification>,
    /// Log lines of types the workload cannot verify (counted, not judged).
    pub unverified_lines: u64,
}

impl Verification {
    /// Whether every type is sound.
    pub fn sound(&self) -> bool {
        self.types.iter().all(TypeVerification::sound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_judges_each_status_by_what_was_found() {
        let mut t = TypeVerification::new("new_order");
        t.tally(AckStatus::Acknowledged, Found::Present, &[1]);
        t.tally(AckStatus::InDoubt, Found::Present, &[2]);
        t.tally(AckStatus::InDoubt, Found::Absent, &[3]);
        t.tally(AckStatus::RolledBack, Found::Absent, &[4]);
        assert!(t.sound());
        t.tally(AckStatus::Acknowledged, Found::Absent, &[5, 6]);
        t.tally(AckStatus::RolledBack, Found::Present, &[7]);
        t.tally(AckStatus::InDoubt, Found::Partial, &[8]);
        assert!(!t.sound());
        assert_eq!((t.acknowledged, t.durable, t.lost), (2, 1, 1));
        assert_eq!((t.in_doubt_present, t.in_doubt_absent), (1, 1));
        assert_eq!((t.rolled_back, t.leaked, t.partial), (2, 1, 1));
        assert_eq!(
            t.examples,
            vec![
                "lost new_order 5 6",
                "leaked new_order 7",
                "partial new_order 8"
            ]
        );
    }
}
