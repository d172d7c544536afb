//! What `NAME acid` finds: the tests of a specification's ACID properties
//! that a client can drive (TPC-C clause 3), each with what it did and what
//! it saw (docs/durability.md). The workloads write the tests; the model and
//! its verdict are the same for all.

use serde::Serialize;
use txbench_core::Isolation;

/// How one test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AcidStatus {
    /// The property held.
    Pass,
    /// The property was broken (or the test could not be carried out).
    Fail,
    /// The isolation level in effect does not promise the property (read
    /// committed and phantoms): what was seen is reported, not judged.
    NotPromised,
    /// Not run, and why is in the evidence (no crash was asked for).
    Skipped,
}

impl AcidStatus {
    /// The word the table shows.
    pub fn word(self) -> &'static str {
        match self {
            AcidStatus::Pass => "PASS",
            AcidStatus::Fail => "FAIL",
            AcidStatus::NotPromised => "NOT PROMISED",
            AcidStatus::Skipped => "SKIPPED",
        }
    }
}

/// One test: which property, the clause it follows, what it did and saw.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AcidTest {
    /// "atomicity", "consistency", "isolation" or "durability".
    pub property: &'static str,
    /// The specification's clause the test follows ("3.4.2.3").
    pub clause: &'static str,
    /// What it tests, in a line.
    pub name: String,
    /// How it ended.
    pub status: AcidStatus,
    /// What it did and what it saw, in order.
    pub evidence: Vec<String>,
}

impl AcidTest {
    /// A test that has seen nothing yet (it fails unless judged).
    pub fn new(property: &'static str, clause: &'static str, name: impl Into<String>) -> Self {
        AcidTest {
            property,
            clause,
            name: name.into(),
            status: AcidStatus::Fail,
            evidence: Vec::new(),
        }
    }

    /// Note what the test did or saw.
    pub fn saw(&mut self, line: impl Into<String>) {
        self.evidence.push(line.into());
    }

    /// Judge it: it passes when `held`.
    pub fn judged(mut self, held: bool) -> Self {
        self.status = if held {
            AcidStatus::Pass
        } else {
            AcidStatus::Fail
        };
        self
    }

    /// Judge it where the level may not promise it: it passes when `held`;
    /// when not, it fails only if `promised`.
    pub fn judged_if(self, promised: bool, held: bool) -> Self {
        if promised || held {
            return self.judged(held);
        }
        AcidTest {
            status: AcidStatus::NotPromised,
            ..self
        }
    }

    /// Judge it by what its steps found: it passes when they held, and fails
    /// naming the error when the database failed them.
    pub fn concluded<E: std::fmt::Display>(self, held: Result<bool, E>) -> Self {
        match held {
            Ok(held) => self.judged(held),
            Err(e) => self.failed(format!("the database failed: {e}")),
        }
    }

    /// A test that could not be carried out: it fails, saying why.
    pub fn failed(mut self, why: impl Into<String>) -> Self {
        self.saw(why);
        self.status = AcidStatus::Fail;
        self
    }

    /// A test not run, saying why.
    pub fn skipped(mut self, why: impl Into<String>) -> Self {
        self.saw(why);
        self.status = AcidStatus::Skipped;
        self
    }
}

/// All the tests of one `acid` command, with the level they ran at.
#[derive(Debug, Clone, Serialize)]
pub struct AcidReport {
    /// The isolation level in effect (asked for, or the database's own);
    /// `None` when the database did not say.
    pub isolation: Option<Isolation>,
    /// The tests, in the order they ran.
    pub tests: Vec<AcidTest>,
}

impl AcidReport {
    /// Whether no test failed (skipped and not-promised ones do not fail it).
    pub fn passed(&self) -> bool {
        self.tests.iter().all(|t| t.status != AcidStatus::Fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_property_the_level_does_not_promise_is_reported_not_failed() {
        let t = || AcidTest::new("isolation", "3.4.2.9", "phantom");
        assert_eq!(t().judged_if(false, false).status, AcidStatus::NotPromised);
        assert_eq!(t().judged_if(false, true).status, AcidStatus::Pass);
        assert_eq!(t().judged_if(true, false).status, AcidStatus::Fail);
        assert_eq!(t().status, AcidStatus::Fail, "unjudged is not a pass");
        let report = AcidReport {
            isolation: None,
            tests: vec![
                t().judged(true),
                t().judged_if(false, false),
                t().skipped("no crash asked for"),
            ],
        };
        assert!(report.passed());
        let mut failing = report.clone();
        failing
            .tests
            .push(t().failed("T1 never reached its commit"));
        assert!(!failing.passed());
    }
}
