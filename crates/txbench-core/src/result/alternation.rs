//! The result of a run that alternated phases without and with some of its
//! transaction types ([`crate::alternation`]): each phase's figures, and
//! what the held types cost the others as ratios with their intervals.

use serde::{Deserialize, Serialize};

use super::{Metric, Percentiles};

/// A run's phases and what they show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlternationResult {
    /// The length of each phase (s).
    pub phase_secs: f64,
    /// The held types' names ("Q1" .. "Q22").
    pub held: Vec<String>,
    /// Each phase of the window, in order.
    pub phases: Vec<PhaseResult>,
    /// Figures of the phases with the held types against those without.
    pub contrasts: Vec<Contrast>,
}

/// One phase's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    /// From the window's start, 0 first (a phase without).
    pub index: u64,
    /// Whether the held types ran in it.
    pub with_held: bool,
    /// The seconds its figures cover.
    pub counted_secs: f64,
    /// The seconds of it left out: ticks across its edges, and in a phase
    /// without, those begun while held work of the phase before still ran.
    pub left_out_secs: f64,
    /// The workload's headline figures over its counted seconds.
    pub metrics: Vec<Metric>,
    /// The types that completed anything in it.
    pub transactions: Vec<PhaseType>,
}

impl PhaseResult {
    /// Its headline figure named `name`.
    pub fn metric(&self, name: &str) -> Option<f64> {
        Metric::named(&self.metrics, name)
    }
}

/// One type's numbers in a phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseType {
    /// Short name ("new_order").
    pub key: String,
    /// Completed (committed, or rolled back as the specification expects).
    pub completed: u64,
    /// Latency of the completed ones.
    pub latency_ms: Percentiles,
}

/// One figure with the held types against without them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contrast {
    /// What is compared ("tpmC", "New-Order p99").
    pub name: String,
    /// Its unit.
    pub unit: String,
    /// Its mean over the phases without.
    pub without: f64,
    /// Its mean over the phases with.
    pub with: f64,
    /// The mean over the phases with of each one's figure divided by the
    /// mean of the phases without on either side of it (so a steady drift
    /// over the run cancels).
    pub ratio: f64,
    /// 95% confidence interval of `ratio` (Student's t over the phases
    /// with); `None` with fewer than two of them.
    pub interval: Option<[f64; 2]>,
    /// The phases with that the ratio is over.
    pub phases: usize,
}
