//! The result of `sweep --frontier`: closed-loop runs with more or fewer
//! terminals of a second kind (the CH-benCHmark's analytical streams) beside
//! the first, each side's headline figure against the other's.

use serde::{Deserialize, Serialize};

/// A frontier's runs (`frontier.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontierResult {
    /// 1.
    pub schema_version: u32,
    /// The run option varied ("analytic-streams").
    pub option: String,
    /// The second kind's figure, drawn across ("QphH").
    pub x: String,
    /// The first kind's, drawn up ("tpmC").
    pub y: String,
    /// Each run's measured seconds.
    pub step_secs: f64,
    /// The runs, in the order made: each terminal count with every value
    /// of the option.
    pub points: Vec<FrontierPoint>,
}

/// One run of a frontier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontierPoint {
    /// Terminals of the first kind.
    pub terminals: usize,
    /// The option's value: terminals of the second kind.
    pub added: usize,
    /// The second kind's figure.
    pub x: f64,
    /// The first kind's figure.
    pub y: f64,
    /// The first type's p99 latency (ms): TPC-C's New-Order.
    pub first_type_p99_ms: f64,
    /// The run's verdict.
    pub verdict: String,
    /// Its summary, relative to the frontier's directory.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub results: String,
}
