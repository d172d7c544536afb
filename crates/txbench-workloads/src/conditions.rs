//! Consistency conditions: each counts the rows that violate it.

/// The result of one condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionResult {
    /// The clause or short label ("3.3.2.1").
    pub clause: &'static str,
    /// What it requires.
    pub text: &'static str,
    /// Rows that violate it.
    pub violations: i64,
}

impl ConditionResult {
    /// Whether the condition holds.
    pub fn passed(&self) -> bool {
        self.violations == 0
    }
}
