//! The result model: one versioned, self-describing value per run, written as JSON
//! and rendered offline by reports.
//!
//! Schema version 3 (`schema_version`; the whole schema is described in
//! docs/results.md). Version 2 added `window_start_unix_s`, `server_version`,
//! `machine` and `merged_from`; version 3 the typed `settings`, which until then
//! were strings among the `parameters`. Files of versions 1 and 2 still read.
//!
//! * `workload`, `engine`, `target` (secrets removed), `started_at` (RFC 3339, UTC);
//! * `settings`: how the run was set up ([`RunSettings`]: scale, terminals, seed, load...);
//! * `parameters`: what the workload says of the data it ran on (NURand C, home warehouses);
//! * `measured_secs`, `interrupted`;
//! * `metrics`: the headline figures (tpmC, efficiency, transactions/s);
//! * `transactions`: per type, counts (committed, expected rollbacks, retries,
//!   errors by kind), the observed mix share and latency/service-time percentiles in
//!   milliseconds;
//! * `cpu`: process CPU and, for embedded engines, the engine threads' share;
//! * `error_samples`: a few distinct error messages per kind;
//! * `operations`: latency of the single operations the workload times (Retwis:
//!   get, put, commit), over every attempt of the measured transactions;
//! * `alternation`: a run of phases without and with some types, each
//!   phase's figures and the ratios between them ([`alternation`]);
//! * `freshness`: how old the data a run's readers saw was ([`freshness`]);
//! * `streams`: each analytical stream's figures and its queries' executions
//!   ([`streams`]).

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::check::{Check, PercentileInterval};
use crate::error::ErrorKind;
use crate::settings::RunSettings;

pub mod alternation;
pub mod freshness;
pub mod frontier;
pub mod streams;
pub use alternation::{AlternationResult, Contrast, PhaseResult, PhaseType};
pub use freshness::{FreshnessResult, Look};
pub use frontier::{FrontierPoint, FrontierResult};
pub use streams::{Execution, StreamResult, StreamType, StreamsResult};

/// The version of the result schema this build writes.
pub const RESULT_SCHEMA_VERSION: u32 = 3;

/// Latency percentiles of one transaction type, in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Number of samples.
    pub samples: u64,
    /// Mean.
    pub mean: f64,
    /// Minimum (0 in results written before it was kept).
    #[serde(default)]
    pub min: f64,
    /// 25th percentile, the lower quartile (0 in results written before it
    /// was kept).
    #[serde(default)]
    pub p25: f64,
    /// Median.
    pub p50: f64,
    /// 75th percentile, the upper quartile (0 in older results).
    #[serde(default)]
    pub p75: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Maximum.
    pub max: f64,
}

impl Percentiles {
    /// The kept figure for percentile `at` (99 for p99): the smallest kept
    /// one at or above it (p99.9 above p99).
    pub fn at(&self, at: f64) -> f64 {
        match at {
            x if x <= 25.0 => self.p25,
            x if x <= 50.0 => self.p50,
            x if x <= 75.0 => self.p75,
            x if x <= 90.0 => self.p90,
            x if x <= 95.0 => self.p95,
            x if x <= 99.0 => self.p99,
            _ => self.p999,
        }
    }

    /// Every figure but the count multiplied by `k` (another unit).
    pub fn scaled(mut self, k: f64) -> Self {
        for v in [
            &mut self.mean,
            &mut self.min,
            &mut self.p25,
            &mut self.p50,
            &mut self.p75,
            &mut self.p90,
            &mut self.p95,
            &mut self.p99,
            &mut self.p999,
            &mut self.max,
        ] {
            *v *= k;
        }
        self
    }

    /// Percentiles of a histogram in microseconds, reported in milliseconds.
    pub fn from_micros(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return Percentiles::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Percentiles {
            samples: h.len(),
            mean: h.mean() / 1000.0,
            min: ms(h.min()),
            p25: ms(h.value_at_quantile(0.25)),
            p50: ms(h.value_at_quantile(0.50)),
            p75: ms(h.value_at_quantile(0.75)),
            p90: ms(h.value_at_quantile(0.90)),
            p95: ms(h.value_at_quantile(0.95)),
            p99: ms(h.value_at_quantile(0.99)),
            p999: ms(h.value_at_quantile(0.999)),
            max: ms(h.max()),
        }
    }
}

/// The numbers of one transaction type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeResult {
    /// Display name ("New-Order").
    pub name: String,
    /// Short name ("new_order").
    pub key: String,
    /// Committed transactions.
    pub committed: u64,
    /// Rollbacks the specification expects.
    pub expected_rollbacks: u64,
    /// Retried attempts.
    pub retries: u64,
    /// Retried attempts by what they ended in: the database's code
    /// ("SQLSTATE 40001", "MySQL 1213") or txbench's own message.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub retry_causes: BTreeMap<String, u64>,
    /// Failed transactions by error kind.
    pub errors: BTreeMap<String, u64>,
    /// Transactions unfinished when the window closed (queued in the client,
    /// or sent and not answered): they enter `latency_ms` with their latency
    /// when they completed during the grace, else at its lower bound.
    #[serde(default)]
    pub unfinished: u64,
    /// Transactions the client shed in the window (its queue was full).
    #[serde(default)]
    pub shed: u64,
    /// Of the unfinished, those still unfinished when the run stopped waiting
    /// (the rest completed during the grace).
    #[serde(default)]
    pub abandoned: u64,
    /// The least lower bound among the unfinished and shed transactions' latencies
    /// (ms): they enter `latency_ms` at their lower bounds, so a latency figure at
    /// or above this is itself only a lower bound. Absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub censored_from_ms: Option<f64>,
    /// Share of all completed transactions, 0..1.
    pub share: f64,
    /// The share the specification asks for, 0..1.
    pub spec_share: f64,
    /// The share of completed transactions that should commit (the rest end in
    /// rollbacks the specification expects); absent when all should.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_success: Option<f64>,
    /// Where the run's own writes move that share (TATP's
    /// Get-New-Destination): the run's share is expected between the two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_drifts_to: Option<f64>,
    /// Latency from the intended start, all attempts included; the unfinished
    /// and shed transactions count at the lower bounds of their latencies.
    pub latency_ms: Percentiles,
    /// Service time (execution only).
    pub service_ms: Percentiles,
    /// Queueing time in the client (waiting for a free session).
    #[serde(default)]
    pub queue_ms: Percentiles,
    /// Time on the wire, from the kernel's timestamps (`--timestamps
    /// kernel`): the latency less the client's own share; absent without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire_ms: Option<Percentiles>,
    /// 95% confidence intervals of the latency percentiles (from batches of
    /// the window's seconds, else from a sample of the latencies in send
    /// order thinned to the independence lag).
    #[serde(default)]
    pub latency_intervals_ms: Vec<PercentileInterval>,
    /// Mean time per completed transaction in each phase of its execution.
    #[serde(default)]
    pub phases_ms: PhaseMeans,
    /// For a type that answers with rows (an analytical query): the rows
    /// of its last answer, as the workload kept them
    /// ([`crate::Workload::answer_rows`]); `None` for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_rows: Option<u64>,
}

/// Mean milliseconds per completed transaction in each phase: with the client's
/// queueing they make up the latency; `other` is the service time the phases do not
/// cover (the procedure's own code, retries' backoff, the hand-off to a session).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseMeans {
    /// Waiting in the client for a session.
    pub queue: f64,
    /// BEGIN.
    pub begin: f64,
    /// The statements.
    pub statements: f64,
    /// COMMIT (or ROLLBACK).
    pub commit: f64,
    /// The rest of the service time.
    pub other: f64,
}

impl TypeResult {
    /// Whether the type has a line of its own in a summary or a report:
    /// every type of the mix does, even one nothing completed of; one outside
    /// the mix (the CH-benCHmark's queries, which streams beside it submit)
    /// only when something of it happened in the window.
    pub fn shown(&self) -> bool {
        self.spec_share > 0.0 || self.completed() + self.failed() + self.given_up() > 0
    }

    /// Completed transactions (committed plus expected rollbacks).
    pub fn completed(&self) -> u64 {
        self.committed + self.expected_rollbacks
    }

    /// Failed transactions, all kinds.
    pub fn failed(&self) -> u64 {
        self.errors.values().sum()
    }

    /// Attempts that ended in a conflict (and were retried, or failed when out
    /// of retries): a serialization failure, deadlock, busy database or an
    /// optimistic transaction whose reads changed.
    pub fn aborts(&self) -> u64 {
        self.retries
            + self
                .errors
                .get(ErrorKind::Conflict.name())
                .copied()
                .unwrap_or(0)
    }

    /// Every attempt: each transaction's last one plus its retries.
    pub fn attempts(&self) -> u64 {
        self.completed() + self.failed() + self.retries
    }

    /// The share of attempts that aborted in a conflict; `None` before any attempt.
    pub fn abort_rate(&self) -> Option<f64> {
        let n = self.attempts();
        (n > 0).then(|| self.aborts() as f64 / n as f64)
    }

    /// Transactions unfinished at the window's end or shed in it.
    pub fn given_up(&self) -> u64 {
        self.unfinished + self.shed
    }

    /// The expected success share as text: "14.79%", or the span the run's
    /// own writes move it over, "14.79%..21.63%"; `None` where none is.
    pub fn expected_success_text(&self) -> Option<String> {
        let (low, high) = crate::txn::success_span(self.expected_success, self.success_drifts_to)?;
        Some(if high > low {
            format!("{:.2}%..{:.2}%", 100.0 * low, 100.0 * high)
        } else {
            format!("{:.2}%", 100.0 * low)
        })
    }

    /// The share of completed transactions that committed; `None` before any completed.
    pub fn success_rate(&self) -> Option<f64> {
        let n = self.completed();
        (n > 0).then(|| self.committed as f64 / n as f64)
    }
}

/// The transactions a headline rate counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Counted {
    /// Committed, or ended in a rollback the workload expects:
    /// [`RunResult::throughput`]'s.
    Completed,
    /// Committed alone.
    Committed,
}

/// A headline figure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// Its name ("tpmC").
    pub name: String,
    /// Its value.
    pub value: f64,
    /// Its unit, if any ("%", "1/s").
    pub unit: String,
    /// The transactions it counts a second, where it is such a rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<Counted>,
    /// Its 95% interval, where it is a rate of [`Metric::counts`]: from the
    /// window's seconds, of the same transactions the figure counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<[f64; 2]>,
}

impl Metric {
    /// The value of the metric named `name` among `metrics`.
    pub fn named(metrics: &[Metric], name: &str) -> Option<f64> {
        metrics.iter().find(|m| m.name == name).map(|m| m.value)
    }
}

/// CPU used by the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuResult {
    /// CPU seconds of the whole process.
    pub process_secs: f64,
    /// CPU seconds of the embedded engine's session threads, if any.
    pub engine_thread_secs: Option<f64>,
    /// Share of the process CPU spent outside the session threads (the driver), 0..1.
    pub driver_share: Option<f64>,
}

/// An error message seen during the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorSample {
    /// The error kind.
    pub kind: String,
    /// The engine's message.
    pub message: String,
}

/// How an open-loop run's load was offered and taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenLoopResult {
    /// The arrival process ("poisson", "uniform", "fixed").
    pub arrival: String,
    /// The rate asked for, per second (under a schedule, its mean over the
    /// window).
    pub offered_rate: f64,
    /// The rate schedule, as `--rate` takes it, when the rate varied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// Arrivals scheduled in the measurement window, per second.
    pub scheduled_rate: f64,
    /// Transactions completed in the window (committed or expected rollback), per second.
    pub achieved_rate: f64,
    /// Achieved over offered.
    pub achieved_ratio: f64,
    /// Arrivals shed because the client queue was full.
    pub shed: u64,
    /// How late the dispatcher sent arrivals, in microseconds.
    pub lateness_us: Percentiles,
    /// Anderson-Darling statistic of the actual send gaps against the exponential
    /// (Poisson arrivals only; 1% critical value 1.957).
    pub send_gaps_anderson_darling: Option<f64>,
    /// The rate the sends were thinned to, at random, for that test (per second).
    pub send_gaps_thinned_to: f64,
    /// Dispatchers (threads or tasks).
    #[serde(default)]
    pub dispatchers: usize,
    /// How they waited for arrivals: "sleep" (threads of their own) or "spin"
    /// (tasks beside the sessions; their CPU is then not told apart).
    #[serde(default)]
    pub pacing: Option<String>,
    /// CPU the dispatcher threads used per arrival they sent (µs).
    #[serde(default)]
    pub dispatcher_cpu_us_per_arrival: Option<f64>,
}

/// A workload's parameters as the results record them: each field of their
/// serialized form by its name, its value as text (a string as it is, a
/// number's digits); a field serialized as nothing (`None`) is left out, and
/// parameters that are not a structure (`()`) record nothing.
pub fn recorded_parameters<P: Serialize>(parameters: &P) -> BTreeMap<String, String> {
    let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(parameters) else {
        return BTreeMap::new();
    };
    fields
        .into_iter()
        .filter_map(|(name, value)| match value {
            serde_json::Value::Null => None,
            serde_json::Value::String(text) => Some((name, text)),
            other => Some((name, other.to_string())),
        })
        .collect()
}

/// The parameter in which a run of a workload file records the digest of
/// the file's text (SHA-256, hex): a client and a server compare it, and
/// `merge` refuses runs whose digests differ.
pub const FILE_DIGEST_PARAMETER: &str = "file_sha256";

/// One run's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// [`RESULT_SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    /// txbench's version.
    pub txbench_version: String,
    /// The workload ("tpcc").
    pub workload: String,
    /// Its title as people write it ("TPC-C"); empty in results older than
    /// it, whose readers fall back on the name ([`RunResult::title`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub workload_title: String,
    /// The engine ("sqlite").
    pub engine: String,
    /// The database target, secrets removed.
    pub target: String,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// When the measurement window started, in seconds since the Unix epoch (the
    /// interval log's StartTime; merges line runs up by it).
    #[serde(default)]
    pub window_start_unix_s: f64,
    /// The database server's own version string, as it reports it.
    #[serde(default)]
    pub server_version: String,
    /// The client machine.
    #[serde(default)]
    pub machine: crate::machine::Machine,
    /// For a merged result: the results directories it was merged from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    /// How the run was set up; `None` in files older than schema version 3,
    /// whose settings are strings among the `parameters`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<RunSettings>,
    /// What the workload says of the data it ran on (its constants, a shard's
    /// home warehouses), and for a merge how many runs it merged.
    pub parameters: BTreeMap<String, String>,
    /// Seconds of the measurement interval covered.
    pub measured_secs: f64,
    /// Whether the run was stopped early.
    pub interrupted: bool,
    /// Headline figures.
    pub metrics: Vec<Metric>,
    /// Per transaction type.
    pub transactions: Vec<TypeResult>,
    /// CPU usage.
    pub cpu: CpuResult,
    /// A few error messages per kind.
    pub error_samples: Vec<ErrorSample>,
    /// The open-loop load, for open-loop runs.
    #[serde(default)]
    pub open_loop: Option<OpenLoopResult>,
    /// The measurement checks.
    #[serde(default)]
    pub checks: Vec<Check>,
    /// Whether to trust the run, in one line.
    #[serde(default)]
    pub verdict: String,
    /// The closed-loop scheduler, for closed-loop runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<SchedulerResult>,
    /// Latency of every type's completed transactions together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_latency_ms: Option<Percentiles>,
    /// `censored_from_ms` of every type together: figures of `total_latency_ms`
    /// at or above it are lower bounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_censored_from_ms: Option<f64>,
    /// 95% confidence intervals of `total_latency_ms`'s percentiles, made as
    /// each type's are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub total_latency_intervals_ms: Vec<PercentileInterval>,
    /// How long after the window's end the run waited for the transactions
    /// unfinished then (at most the grace; seconds).
    #[serde(default)]
    pub tail_secs: f64,
    /// Latency of the operations the workload times on their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<OperationResult>,
    /// 95% confidence interval of [`RunResult::throughput`] (txn/s), from the
    /// means of batches of the window's seconds; absent for a window under ten
    /// seconds and for a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_interval: Option<[f64; 2]>,
    /// The commands run on a schedule (`--fault-cmd`, `--recover-cmd`), each
    /// fault with what it cost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<crate::faults::FaultResult>,
    /// The kernel's timestamps of the wire, when the run read them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<WireResult>,
    /// Each second of the warm-up (not measured): where it ended, in seconds
    /// from the start of measurement (so at or below 0), and the transactions
    /// that ended in it per second.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warmup_per_s: Vec<(f64, f64)>,
    /// A merge's runs, each by its own figures (empty for a run that is no
    /// merge): the shards side by side, and the slowest among them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartResult>,
    /// This client's clock against the database server's, read as the run
    /// opened; `None` where the engine cannot read its server's clock (or
    /// has none but this machine's), and for a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockOffset>,
    /// A run that alternated phases without and with some of its types:
    /// each phase, and what those types cost the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternation: Option<AlternationResult>,
    /// A run whose readers probed the freshness of what they saw (the
    /// CH-benCHmark's streams): each look in the window, and their figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<FreshnessResult>,
    /// A run with analytical streams: each stream's figures, and each of
    /// their queries' executions over the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<StreamsResult>,
}

/// A client's clock against its database server's: what shards started for
/// one `--start-at` on machines of their own compare to know that their
/// clocks agreed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClockOffset {
    /// The server's clock less the client's, ms (positive: the server's is
    /// ahead).
    pub offset_ms: f64,
    /// The offset is known to within this, ms: half the round trip of the
    /// reading it came from.
    pub uncertainty_ms: f64,
}

/// One run of a merge by its own figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartResult {
    /// The run's results directory.
    pub dir: String,
    /// Its shard index (from 0) and the number of shards (1: no shard).
    pub shard_index: u32,
    /// The number of shards of its run.
    pub shards: u32,
    /// Transactions it completed per second of its own window.
    pub per_s: f64,
    /// Every type's latency together, in ms.
    pub latency_ms: Option<Percentiles>,
    /// The CPU its process spent, warm-up included, in seconds.
    pub cpu_secs: f64,
    /// Its clock against the database server's, where it was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockOffset>,
    /// Its measurement verdict.
    pub verdict: String,
}

/// What the kernel's timestamps of the wire said of a run (`--timestamps
/// kernel`): how many transactions had them, from which clock, the time on
/// the wire of every type together, and the client's own share of the
/// latency (the latency's percentile less the wire's, so the client's
/// queueing, lateness, scheduling and its own processing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireResult {
    /// The clock the times were read from: `software` (the kernel's, at the
    /// network device), `hardware` (the card's), `hardware and software`.
    pub clock: String,
    /// Completed transactions with a time on the wire.
    pub stamped: u64,
    /// Completed transactions without one (a send or read the kernel did
    /// not stamp).
    pub unstamped: u64,
    /// Time on the wire, every type together.
    pub total_wire_ms: Percentiles,
    /// Round trips per stamped transaction, on average: the turns of
    /// requests sent and their answers read that its time on the wire sums
    /// (how far `--round-trips` pipelined it). 0 in results written before
    /// it was kept.
    #[serde(default)]
    pub round_trips_per_transaction: f64,
    /// The client's share of the median latency: its p50 less the wire's (ms).
    pub client_p50_ms: f64,
    /// The client's share of the 99th percentile (ms).
    pub client_p99_ms: f64,
}

/// The latency of one kind of operation inside transactions (a get, a put, a
/// commit), counted over every attempt, aborted ones too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OperationResult {
    /// The operation's name ("get").
    pub name: String,
    /// Its latency in milliseconds.
    pub latency_ms: Percentiles,
}

impl RunResult {
    /// The workload's title ("TPC-C"), or its name in capitals for results
    /// written before titles were kept.
    pub fn title(&self) -> String {
        if self.workload_title.is_empty() {
            self.workload.to_uppercase()
        } else {
            self.workload_title.clone()
        }
    }

    /// The metric with this name.
    pub fn metric(&self, name: &str) -> Option<f64> {
        Metric::named(&self.metrics, name)
    }

    /// Completed transactions per second over the measurement interval, all types.
    pub fn throughput(&self) -> f64 {
        let done: u64 = self.transactions.iter().map(TypeResult::completed).sum();
        if self.measured_secs > 0.0 {
            done as f64 / self.measured_secs
        } else {
            0.0
        }
    }
}

/// Whether a latency figure of `ms` is only a lower bound, given the least
/// lower bound `censored_from_ms` among the transactions given up: they count
/// at their bounds, and one at or below the figure may really lie above it.
pub fn is_lower_bound(censored_from_ms: Option<f64>, ms: f64) -> bool {
    censored_from_ms.is_some_and(|least| ms >= least)
}

/// What the closed-loop scheduler saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchedulerResult {
    /// Terminals driven.
    pub terminals: usize,
    /// Transactions sent whose intended start fell in the measurement window.
    pub scheduled: u64,
    /// How late the scheduler sent them after their intended start (µs).
    pub lateness_us: Percentiles,
}

/// One step of a capacity sweep (`sweep.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepStep {
    /// The rate offered, per second.
    pub offered_rate: f64,
    /// The rate achieved, per second.
    pub achieved_rate: f64,
    /// The objective's percentile of the worst transaction type (ms).
    pub worst_latency_ms: f64,
    /// Whether the step met the objective with at least 90% of the load completed.
    pub passed: bool,
    /// A failed step's limit: `client` (only the client's own checks failed,
    /// the database met the objective: the client could not offer the load),
    /// `process` (an embedded engine's process, client and engine together,
    /// fell behind), or `database`; absent for a passed step (and in older
    /// sweeps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// Why the step failed, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_because: Option<String>,
    /// The step's verdict line.
    pub verdict: String,
    /// The step's `summary.json`, relative to the sweep's directory when written by
    /// this version (absolute or relative to the working directory before).
    pub results: String,
}

/// Sweeps of a workload's variants side by side (`variants.json`, schema
/// version 1): TATP's `--key-access all`, one sweep per strategy, each in a
/// directory of its own under the comparison's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantSweeps {
    /// Version of this schema.
    pub schema_version: u32,
    /// The run option that varies (`key_access`).
    pub option: String,
    /// The latency objective every sweep had, e.g. "p99<=10ms".
    pub objective: String,
    /// The transaction types (keys) the variants differ in, whose latency
    /// at the objective's percentile each variant reports (the slowest of
    /// them); empty: every type.
    pub types: Vec<String>,
    /// Each variant, in the order swept.
    pub variants: Vec<VariantSweep>,
    /// The variants the engine refused, each with why (TATP's `single` on a
    /// sharded key-value store): named, not swept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<RefusedVariant>,
}

/// A variant the engine cannot run, in a [`VariantSweeps`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefusedVariant {
    /// The option's value.
    pub value: String,
    /// The engine's refusal.
    pub why: String,
}

impl RunResult {
    /// The slowest latency at percentile `at` among the types `keys` (every
    /// type where empty) that completed something (ms); 0 when none did.
    pub fn slowest_at(&self, at: f64, keys: &[impl AsRef<str>]) -> f64 {
        self.transactions
            .iter()
            .filter(|t| t.latency_ms.samples > 0)
            .filter(|t| keys.is_empty() || keys.iter().any(|k| k.as_ref() == t.key))
            .map(|t| t.latency_ms.at(at))
            .fold(0.0, f64::max)
    }
}

impl VariantSweeps {
    /// The types compared, as a sentence names them.
    pub fn types_named(&self) -> String {
        if self.types.is_empty() {
            "every type".to_string()
        } else {
            self.types.join(", ")
        }
    }
}

/// One variant's sweep in a [`VariantSweeps`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantSweep {
    /// The option's value (`index`).
    pub value: String,
    /// Its sweep's directory, relative to the comparison's.
    pub dir: String,
    /// The highest passing rate, if any step passed.
    pub capacity_rate: Option<f64>,
    /// The rate achieved at that step.
    pub achieved_at_capacity: Option<f64>,
    /// The latency of the slowest of the types at the objective's
    /// percentile, at that step (ms).
    pub types_latency_ms_at_capacity: Option<f64>,
}

/// Runs of one plan made one after another (`--repeat N`; `set.json`,
/// schema version 1): the spread between them is the run-to-run noise that
/// `compare` judges a change against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSet {
    /// Version of this schema.
    pub schema_version: u32,
    /// The runs asked for (more than `runs` holds when the set was stopped).
    pub repeat: u32,
    /// Each run's directory, relative to the set's, in the order they ran.
    pub runs: Vec<String>,
}

/// A capacity sweep's own summary (`sweep.json`, schema version 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepResult {
    /// Version of this schema.
    pub schema_version: u32,
    /// The latency objective, e.g. "p99<=10ms".
    pub objective: String,
    /// The objective's percentile (99 for p99).
    #[serde(default)]
    pub objective_percentile: f64,
    /// The objective's limit in milliseconds.
    #[serde(default)]
    pub objective_limit_ms: f64,
    /// The steps in the order they ran.
    pub steps: Vec<SweepStep>,
    /// The highest passing rate, if any step passed.
    pub capacity_rate: Option<f64>,
    /// The limit the sweep found: `database`, `client`, or absent when
    /// no step failed (none found within the rates swept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
}
