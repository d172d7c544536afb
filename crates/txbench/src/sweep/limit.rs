//! What stopped a sweep's step: the database, or the client. A step whose
//! only failing checks are the client's own (it sent late, and so the rate
//! it achieved or the queue in it fell behind) while the database met the
//! objective measured the client's limit, not the database's: it is never
//! taken for the database's capacity.

use txbench_core::checks::{self, Status};
use txbench_core::result::RunResult;

use crate::cli::Slo;

/// The checks that fail when the client, not the database, falls behind:
/// the rate achieved and the client queue count only beside a late client.
const CLIENT_CHECKS: [&str; 3] = ["client lateness", "achieved rate", "client queue"];

/// The share of the offered load a passing step completes at least.
pub const TAKEN: f64 = 0.9;

/// How a step ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The objective held, the load was taken, the measurement is not NOT SOUND.
    Passed,
    /// The client could not offer the load; the database met the objective.
    Client(String),
    /// The database did not meet the objective (or its measurement failed).
    Database(String),
    /// An embedded engine's process fell behind: the client and the engine
    /// share it and its cores, so its limit is the system's, and no other
    /// client machine can raise it.
    Process(String),
}

impl Outcome {
    /// The step's limit as `sweep.json` records it.
    pub fn limit(&self) -> Option<&'static str> {
        match self {
            Outcome::Passed => None,
            Outcome::Client(_) => Some("client"),
            Outcome::Database(_) => Some("database"),
            Outcome::Process(_) => Some("process"),
        }
    }

    /// Why the step failed, where it did.
    pub fn why(&self) -> Option<&str> {
        match self {
            Outcome::Passed => None,
            Outcome::Client(why) | Outcome::Database(why) | Outcome::Process(why) => Some(why),
        }
    }
}

/// The slowest type's execution time (without the client's queueing and
/// lateness) at `percentile` (ms).
fn slowest_service(result: &RunResult, percentile: f64) -> f64 {
    (result.transactions.iter())
        .filter(|t| t.service_ms.samples > 0)
        .map(|t| t.service_ms.at(percentile))
        .fold(0.0, f64::max)
}

/// What a step measured, as far as its outcome goes.
#[derive(Debug, Clone)]
pub struct Step<'a> {
    /// The checks that failed, by name.
    pub failing: Vec<&'a str>,
    /// The rate offered, per second.
    pub offered: f64,
    /// The rate achieved, per second.
    pub achieved: f64,
    /// The slowest type's latency at the objective's percentile (ms).
    pub worst_ms: f64,
    /// The slowest type's execution time there (ms).
    pub worst_service_ms: f64,
    /// Whether the engine is embedded: its work and the client's share the
    /// process and its cores.
    pub embedded: bool,
}

impl<'a> Step<'a> {
    /// The step `result` measured at `offered` per second, read at `percentile`.
    pub fn of(result: &'a RunResult, offered: f64, percentile: f64, embedded: bool) -> Self {
        let achieved = result.open_loop.as_ref().map_or(0.0, |o| o.achieved_rate);
        Step {
            failing: checks::named(&result.checks, Status::Fail),
            offered,
            achieved,
            worst_ms: result.slowest_at(percentile, &[] as &[&str]),
            worst_service_ms: slowest_service(result, percentile),
            embedded,
        }
    }

    /// The share of the offered rate achieved.
    pub fn taken(&self) -> f64 {
        self.achieved / self.offered
    }

    /// How the step ended against `slo` (none: it need only take the load).
    pub fn outcome(&self, slo: Option<&Slo>) -> Outcome {
        if self.embedded {
            return self.process_outcome(slo);
        }
        let latency_held = self.latency_held(slo);
        if self.passed(slo, &self.failing) {
            return Outcome::Passed;
        }
        let late = self.failing.contains(&"client lateness");
        let client_only = late && self.failing.iter().all(|n| CLIENT_CHECKS.contains(n));
        // A late client's latency holds its own delay: the database's part is
        // the execution time.
        let database_held = slo.is_none_or(|s| self.worst_service_ms <= s.limit_ms);
        if client_only && (latency_held || database_held) {
            return Outcome::Client(format!(
                "the client sent late ({} failed) while the database met the objective",
                self.failing.join(", ")
            ));
        }
        let unsound =
            (!self.failing.is_empty()).then(|| format!("NOT SOUND ({})", self.failing.join(", ")));
        Outcome::Database(self.why(slo, unsound))
    }

    /// How a step of an embedded engine ended. A send late because the
    /// process was busy with the engine's work is the system's own delay,
    /// inside the latency measured from the intended start: the objective
    /// judges it. What else fails (the load not taken, a queue growing, an
    /// unsound measurement) is the process's limit.
    fn process_outcome(&self, slo: Option<&Slo>) -> Outcome {
        let failing: Vec<&str> = (self.failing.iter().copied())
            .filter(|n| *n != "client lateness")
            .collect();
        if self.passed(slo, &failing) {
            return Outcome::Passed;
        }
        let failed = (!failing.is_empty()).then(|| format!("{} failed", failing.join(", ")));
        Outcome::Process(self.why(slo, failed))
    }

    /// Whether the slowest type met the objective (there is none to meet).
    fn latency_held(&self, slo: Option<&Slo>) -> bool {
        slo.is_none_or(|s| self.worst_ms <= s.limit_ms)
    }

    /// Whether the step passed with `failing` the checks that count against it.
    fn passed(&self, slo: Option<&Slo>, failing: &[&str]) -> bool {
        failing.is_empty() && self.latency_held(slo) && self.taken() >= TAKEN
    }

    /// Why the step failed: the objective missed, the load not taken, and
    /// `failed`, the checks as the caller words them.
    fn why(&self, slo: Option<&Slo>, failed: Option<String>) -> String {
        let mut why = Vec::new();
        if let Some(s) = slo.filter(|_| !self.latency_held(slo)) {
            why.push(format!(
                "p{} of the slowest type {:.2} ms, over {} ms",
                s.percentile, self.worst_ms, s.limit_ms
            ));
        }
        if self.taken() < TAKEN {
            why.push(format!(
                "{:.0}% of the offered load taken",
                self.taken() * 100.0
            ));
        }
        why.extend(failed);
        why.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step<'a>(worst_ms: f64, worst_service_ms: f64, taken: f64, failing: &[&'a str]) -> Step<'a> {
        Step {
            failing: failing.to_vec(),
            offered: 1000.0,
            achieved: taken * 1000.0,
            worst_ms,
            worst_service_ms,
            embedded: false,
        }
    }

    /// The default engine's sweep: every step 1,000..7,000/s was "the
    /// client's limit" (lateness, the engine's work on the client's
    /// threads), and "capacity: no step passed".
    #[test]
    fn an_embedded_engine_passes_where_only_its_lateness_failed_and_its_limit_is_the_process() {
        let embedded = |s: Step<'static>| Step {
            embedded: true,
            ..s
        };
        let s = embedded(step(7.56, 5.0, 1.0, &["client lateness"]));
        assert_eq!(s.outcome(Some(&SLO)), Outcome::Passed);
        let s = embedded(step(12.0, 5.0, 0.7, &["client lateness", "achieved rate"]));
        let Outcome::Process(why) = s.outcome(Some(&SLO)) else {
            panic!("{:?}", s.outcome(Some(&SLO)));
        };
        assert_eq!(why, "70% of the offered load taken; achieved rate failed");
        let s = embedded(step(40.0, 5.0, 1.0, &["client lateness"]));
        assert!(matches!(s.outcome(Some(&SLO)), Outcome::Process(_)));
    }

    const SLO: Slo = Slo {
        percentile: 99.0,
        limit_ms: 20.0,
    };

    #[test]
    fn a_late_client_beside_a_database_within_its_objective_is_the_clients_limit() {
        // The step: p99 7.56 ms against 20 ms, only lateness failed.
        let s = step(7.56, 5.0, 1.0, &["client lateness"]);
        assert!(matches!(s.outcome(Some(&SLO)), Outcome::Client(_)));
        // Late enough to break the objective, but the database's own time held.
        let s = step(40.0, 5.0, 0.75, &["client lateness", "achieved rate"]);
        assert!(matches!(s.outcome(Some(&SLO)), Outcome::Client(_)));
    }

    #[test]
    fn the_database_is_the_limit_when_its_own_time_or_checks_fail() {
        let s = step(40.0, 35.0, 1.0, &["client lateness"]);
        assert!(matches!(s.outcome(Some(&SLO)), Outcome::Database(_)));
        let s = step(5.0, 5.0, 1.0, &["client queue"]);
        let Outcome::Database(why) = s.outcome(Some(&SLO)) else {
            panic!("a queue growing behind an on-time client is the database's");
        };
        assert_eq!(why, "NOT SOUND (client queue)");
        let Outcome::Database(why) = step(5.0, 5.0, 0.5, &[]).outcome(None) else {
            panic!("half the load taken");
        };
        assert!(why.contains("50% of the offered load"), "{why}");
        assert_eq!(
            step(5.0, 5.0, 1.0, &[]).outcome(Some(&SLO)),
            Outcome::Passed
        );
        // Without an objective, latency does not fail a step.
        assert_eq!(step(500.0, 500.0, 1.0, &[]).outcome(None), Outcome::Passed);
    }
}
