//! The result model of faults on a schedule (`--fault-at`/`--fault-cmd`,
//! `--recover-at`/`--recover-cmd`): each command as it ran, and for a fault
//! what it cost the run (docs/durability.md). Data only.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Whether a command injects a fault or undoes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandKind {
    /// `--fault-cmd`: its cost is measured.
    Fault,
    /// `--recover-cmd`.
    Recover,
}

impl CommandKind {
    /// "fault" or "recover".
    pub fn name(self) -> &'static str {
        match self {
            CommandKind::Fault => "fault",
            CommandKind::Recover => "recover",
        }
    }
}

/// One scheduled command, as it ran, and for a fault its cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FaultResult {
    /// Fault or recovery.
    pub kind: CommandKind,
    /// The command, secrets masked.
    pub command: String,
    /// When it was due, from the run's start (warm-up included), s.
    pub at_s: f64,
    /// When it started, from the run's start, s.
    pub started_s: f64,
    /// How long it ran, s.
    pub took_s: f64,
    /// Its exit status; `None` when a signal ended it (or txbench did, at its
    /// time limit: `output` says so).
    pub exit_code: Option<i32>,
    /// The end of what it printed (stdout and stderr), at most a few KiB.
    pub output: String,
    /// What a fault cost; `None` for a recovery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impact: Option<FaultImpact>,
}

/// What a fault cost the run, measured from its start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FaultImpact {
    /// The last answer from the database before the outage, from the fault, s
    /// (negative: before it).
    pub last_answer_s: Option<f64>,
    /// The first answer after the outage, from the fault, s; `None`: no answer
    /// came again before the run ended.
    pub first_answer_s: Option<f64>,
    /// How long nothing was answered (the first answer after less the last
    /// before; with no answer after, the run's end less the last), s; `None`
    /// when no silence longer than 50 ms followed the fault.
    pub unavailable_s: Option<f64>,
    /// Transactions a second in the seconds before the fault (up to 10).
    pub baseline_per_s: Option<f64>,
    /// From the fault to the end of the first second after the outage that
    /// completed 90% of the baseline, s; `None`: not within the run (never
    /// when the database did not answer again).
    pub recovered_90_s: Option<f64>,
    /// Transactions failed from the fault until that recovery (or the run's
    /// end), by error kind.
    pub errors: BTreeMap<String, u64>,
    /// Sessions that re-established a lost connection from the fault until
    /// the next fault (or the run's end).
    pub reconnections: u64,
    /// The seconds around the fault: up to 10 before, up to 30 after.
    pub seconds: Vec<FaultSecond>,
}

/// One second around a fault.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FaultSecond {
    /// Its end, from the fault, s.
    pub end_s: f64,
    /// Transactions completed a second.
    pub per_s: f64,
    /// Their 99th percentile latency, ms (`None`: none completed).
    pub p99_ms: Option<f64>,
    /// Transactions failed in it.
    pub failed: u64,
}
