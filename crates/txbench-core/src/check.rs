//! One check's result, as the result model records it: what was checked, its
//! statistic, PASS/WARN/FAIL, and the percentile intervals the checks justify.
//! Data only: the checks themselves are in [`crate::checks`].

use serde::{Deserialize, Serialize};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// The measurement is sound in this respect.
    Pass,
    /// Usable with care.
    Warn,
    /// Do not trust the figures this check covers.
    Fail,
}

/// One check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What is checked.
    pub name: String,
    /// The statistic, as text with its value.
    pub statistic: String,
    /// The outcome.
    pub status: Status,
    /// What it means and what to do.
    pub detail: String,
}

/// A percentile's 95% confidence interval, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PercentileInterval {
    /// The percentile, 0..100.
    pub percentile: f64,
    /// Lower bound, or `None` when the samples do not suffice.
    pub low: Option<f64>,
    /// Upper bound, or `None` when the samples do not suffice.
    pub high: Option<f64>,
    /// The batches of the window it came from (batch quantiles over every
    /// latency); `None`: from order statistics of the latency sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batches: Option<usize>,
}
