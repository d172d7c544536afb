//! The recorder owns the numbers: per transaction type, latency histograms and
//! outcome counters. A few session workers share a recorder (its lock is held
//! for one transaction's recording); the collector swaps them out once a second
//! and merges them.
//!
//! What is measured is every transaction completed in the measurement window,
//! and every one unfinished when the window closes: the latter with their
//! latency if they complete during the grace after it, else with the time they
//! had waited as a lower bound (see docs/measurement.md).

use std::collections::BTreeMap;
use std::time::Duration;

use hdrhistogram::Histogram;

use crate::error::{DbError, ErrorKind};
use crate::txn::Outcome;

/// The highest latency a histogram holds: one hour, in microseconds. Larger values
/// are clamped to it (and then show as the maximum).
pub const MAX_LATENCY_US: u64 = 3_600_000_000;
/// Significant digits kept by every latency histogram.
pub const SIGNIFICANT_DIGITS: u8 = 3;
/// How many distinct error messages are kept per kind, so causes are not lost.
const ERROR_SAMPLES: usize = 5;

/// Time spent in each phase of one transaction (all attempts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Phases {
    /// In `begin`.
    pub begin: Duration,
    /// In queries, changes and pipelines.
    pub statements: Duration,
    /// In `commit` and `rollback`.
    pub commit: Duration,
}

/// A new, empty latency histogram in microseconds. It grows to the largest
/// value recorded in it (values are clamped to [`MAX_LATENCY_US`] by
/// `micros`), with the buckets of one sized for an hour from the start: an
/// interval whose slowest transaction took 10 ms holds 5,120 counters, not the
/// 23,552 (184 KiB) of an hour, and the collector zeroes and adds them every
/// second, for every type and histogram, on the thread the sessions may share.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new(SIGNIFICANT_DIGITS).expect("constant histogram precision is valid")
}

/// A duration in whole microseconds, within the histograms' bounds.
pub(crate) fn micros(d: Duration) -> u64 {
    (d.as_micros() as u64).clamp(1, MAX_LATENCY_US)
}

/// Record a duration in a histogram of [`new_histogram`], growing it when the
/// duration is its largest yet (hdrhistogram's saturating record would clamp
/// to the histogram's present top instead).
pub(crate) fn record(h: &mut Histogram<u64>, d: Duration) {
    h.record(micros(d))
        .expect("a histogram grows to an hour of microseconds on any 64-bit target");
}

/// The numbers of one transaction type.
#[derive(Debug, Clone)]
pub struct TypeStats {
    /// Latency from the intended start to completion, all attempts included (µs).
    pub latency: Histogram<u64>,
    /// Service time: from the start of execution to completion (µs).
    pub service: Histogram<u64>,
    /// Queueing time: from the intended start to the start of execution (µs), the
    /// wait for a free session in the client.
    pub queue: Histogram<u64>,
    /// Time on the wire (µs), from the kernel's timestamps of the bytes sent
    /// and received, where the session keeps them (`--timestamps kernel`):
    /// the latency without the client's own share.
    pub wire: Histogram<u64>,
    /// Of the times in `wire`, those read from the network card's clock
    /// (the rest are the kernel's software timestamps).
    pub wire_hardware: u64,
    /// The round trips the times in `wire` sum, added up: each transaction's
    /// turns of requests sent and their answers read.
    pub wire_round_trips: u64,
    /// Transactions that committed.
    pub committed: u64,
    /// Transactions that rolled back as the specification expects.
    pub expected_rollbacks: u64,
    /// Retried attempts (conflicts, busy).
    pub retries: u64,
    /// Retried attempts by what they ended in ([`DbError::into_cause`]: the
    /// database's code, or txbench's message).
    pub retry_causes: BTreeMap<String, u64>,
    /// Transactions that failed, by [`ErrorKind`] (indexed as [`ErrorKind::ALL`]).
    pub errors: [u64; ErrorKind::ALL.len()],
    /// Microseconds spent in BEGIN, in statements and in COMMIT/ROLLBACK, summed
    /// over the completed transactions.
    pub phase_us: [u64; 3],
    /// Transactions unfinished when the window closed (queued in the client,
    /// or sent and not answered): those that completed during the grace after
    /// it (their latency is in `latency`), and those still unfinished when the
    /// run stopped waiting (their latency's lower bound is in `censored`).
    pub unfinished: u64,
    /// Transactions the client shed in the window (its queue was full).
    pub shed: u64,
    /// Lower bounds of the latencies of the transactions given up, unfinished
    /// or shed (µs): how long each had waited then. Their latency is at least
    /// that; they enter the reported percentiles at these values.
    pub censored: Histogram<u64>,
}

impl Default for TypeStats {
    fn default() -> Self {
        TypeStats {
            latency: new_histogram(),
            service: new_histogram(),
            queue: new_histogram(),
            wire: new_histogram(),
            wire_hardware: 0,
            wire_round_trips: 0,
            committed: 0,
            expected_rollbacks: 0,
            retries: 0,
            retry_causes: BTreeMap::new(),
            errors: [0; ErrorKind::ALL.len()],
            phase_us: [0; 3],
            unfinished: 0,
            shed: 0,
            censored: new_histogram(),
        }
    }
}

impl TypeStats {
    /// Transactions that completed (committed or expected rollback).
    pub fn completed(&self) -> u64 {
        self.committed + self.expected_rollbacks
    }

    /// Transactions that failed, all kinds.
    pub fn failed(&self) -> u64 {
        self.errors.iter().sum()
    }

    /// Transactions unfinished at the window's end or shed in it.
    pub fn given_up(&self) -> u64 {
        self.unfinished + self.shed
    }

    /// The latency histogram with the given-up transactions at their lower
    /// bounds: what the reported percentiles are computed from.
    pub fn latency_with_censored(&self) -> Histogram<u64> {
        let mut all = self.latency.clone();
        if !self.censored.is_empty() {
            all.add(&self.censored).expect("histograms share bounds");
        }
        all
    }

    /// Record a transaction given up after waiting `waited` since its intended
    /// start: `shed` by the client, or unfinished when the run stopped waiting.
    pub fn record_given_up(&mut self, waited: Duration, shed: bool) {
        if shed {
            self.shed += 1;
        } else {
            self.unfinished += 1;
        }
        record(&mut self.censored, waited);
    }

    /// Add another's numbers into these (histograms add exactly).
    pub fn merge(&mut self, other: &TypeStats) {
        for (a, b) in [
            (&mut self.latency, &other.latency),
            (&mut self.service, &other.service),
            (&mut self.queue, &other.queue),
            (&mut self.wire, &other.wire),
            (&mut self.censored, &other.censored),
        ] {
            // Adding walks every bucket (tens of thousands): skip the empty ones.
            if !b.is_empty() {
                a.add(b).expect("histograms share bounds");
            }
        }
        self.committed += other.committed;
        self.expected_rollbacks += other.expected_rollbacks;
        self.retries += other.retries;
        for (cause, n) in &other.retry_causes {
            count_cause(&mut self.retry_causes, cause, *n);
        }
        for (a, b) in self.errors.iter_mut().zip(other.errors) {
            *a += b;
        }
        for (a, b) in self.phase_us.iter_mut().zip(other.phase_us) {
            *a += b;
        }
        self.unfinished += other.unfinished;
        self.shed += other.shed;
        self.wire_hardware += other.wire_hardware;
        self.wire_round_trips += other.wire_round_trips;
    }

    /// Empty these numbers, keeping the allocations.
    pub fn reset(&mut self) {
        for h in [
            &mut self.latency,
            &mut self.service,
            &mut self.queue,
            &mut self.wire,
            &mut self.censored,
        ] {
            if !h.is_empty() {
                h.reset();
            }
        }
        self.committed = 0;
        self.expected_rollbacks = 0;
        self.retries = 0;
        self.retry_causes.clear();
        self.errors = [0; ErrorKind::ALL.len()];
        self.phase_us = [0; 3];
        self.unfinished = 0;
        self.shed = 0;
        self.wire_hardware = 0;
        self.wire_round_trips = 0;
    }

    /// Record a completed transaction's time on the wire, if it has one.
    fn record_wire(&mut self, wire: Option<txbench_wire::Wire>) {
        if let Some(w) = wire {
            record(&mut self.wire, w.time);
            self.wire_hardware += u64::from(w.kind == txbench_wire::Kind::Hardware);
            self.wire_round_trips += u64::from(w.round_trips);
        }
    }
}

/// Add `n` retries of `cause`; the cause's text is copied only the first
/// time it is seen (retries come by the thousand under contention).
fn count_cause(causes: &mut BTreeMap<String, u64>, cause: &str, n: u64) {
    match causes.get_mut(cause) {
        Some(count) => *count += n,
        None => {
            causes.insert(cause.to_string(), n);
        }
    }
}

/// What happened to one transaction, as the recorder sees it.
#[derive(Debug)]
pub struct Completion<'a> {
    /// The transaction type.
    pub txn_type: usize,
    /// From the intended start to completion.
    pub latency: Duration,
    /// From the start of execution to completion.
    pub service: Duration,
    /// From the intended start to the start of execution.
    pub queue: Duration,
    /// Where the service time went.
    pub phases: Phases,
    /// Attempts beyond the first.
    pub retries: u32,
    /// What each retried attempt ended in.
    pub retry_causes: &'a [String],
    /// The outcome, or the error of the last attempt.
    pub result: &'a Result<Outcome, DbError>,
    /// Its time on the wire, all attempts, where the session keeps kernel
    /// timestamps ([`crate::Session::take_wire`]).
    pub wire: Option<txbench_wire::Wire>,
}

/// Numbers of one worker (or one merged interval), for every transaction type.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// Per-type numbers of the transactions completed inside the measurement
    /// window, and of those unfinished when it closed.
    pub measured: Vec<TypeStats>,
    /// Completions outside the window (warm-up), counted for the progress line only.
    pub unmeasured: u64,
    /// Up to a few distinct error messages per kind.
    pub error_samples: Vec<(ErrorKind, String)>,
    /// Latency of each operation the workload times ([`crate::Workload::operations`],
    /// by index), over the attempts of the transactions measured (µs); grows to
    /// the operations seen, and stays empty for workloads that time none.
    pub operations: Vec<Histogram<u64>>,
    /// How late the client sent the transactions due in the window after their
    /// intended start (µs): the open-loop dispatcher's or the closed-loop
    /// scheduler's lateness, per interval, so a client that fell behind shows
    /// when it did.
    pub lateness: Histogram<u64>,
}

impl Recorder {
    /// An empty recorder for `types` transaction types.
    pub fn new(types: usize) -> Self {
        Recorder {
            measured: (0..types).map(|_| TypeStats::default()).collect(),
            unmeasured: 0,
            error_samples: Vec::new(),
            operations: Vec::new(),
            lateness: new_histogram(),
        }
    }

    /// Record the operations of one transaction (operation index and time, all
    /// its attempts) when it completed inside the measurement window.
    pub fn record_operations(&mut self, ops: &[(usize, Duration)], in_window: bool) {
        if !in_window {
            return;
        }
        for &(op, d) in ops {
            record(self.operation(op), d);
        }
    }

    /// Add a histogram of operation `op` (µs), as read back from an interval log.
    pub fn record_operation_histogram(
        &mut self,
        op: usize,
        h: &Histogram<u64>,
    ) -> Result<(), hdrhistogram::AdditionError> {
        self.operation(op).add(h)
    }

    /// The histogram of operation `op`, created when first seen.
    fn operation(&mut self, op: usize) -> &mut Histogram<u64> {
        if self.operations.len() <= op {
            self.operations.resize_with(op + 1, new_histogram);
        }
        &mut self.operations[op]
    }

    /// Record one transaction; `in_window` says whether it completed inside
    /// the measurement window.
    pub fn record(&mut self, c: &Completion<'_>, in_window: bool) {
        if let Err(e) = c.result {
            self.sample_error(e);
        }
        if !in_window {
            self.unmeasured += 1;
            return;
        }
        let stats = &mut self.measured[c.txn_type];
        stats.retries += u64::from(c.retries);
        for cause in c.retry_causes {
            count_cause(&mut stats.retry_causes, cause, 1);
        }
        match c.result {
            Ok(Outcome::Committed) => stats.committed += 1,
            Ok(Outcome::ExpectedRollback) => stats.expected_rollbacks += 1,
            Err(e) => {
                stats.errors[e.kind as usize] += 1;
                // Failed transactions have no meaningful latency to report.
                return;
            }
        }
        record(&mut stats.latency, c.latency);
        record(&mut stats.service, c.service);
        record(&mut stats.queue, c.queue);
        stats.record_wire(c.wire);
        for (sum, d) in
            stats
                .phase_us
                .iter_mut()
                .zip([c.phases.begin, c.phases.statements, c.phases.commit])
        {
            *sum += d.as_micros() as u64;
        }
    }

    /// Record a transaction that was unfinished when the window closed and
    /// completed after it, during the grace: it counts as unfinished, and its
    /// latency, now known, enters the latency histogram when it succeeded.
    pub fn record_late(&mut self, c: &Completion<'_>) {
        let stats = &mut self.measured[c.txn_type];
        stats.unfinished += 1;
        match c.result {
            Ok(_) => {
                record(&mut stats.latency, c.latency);
                stats.record_wire(c.wire);
            }
            Err(e) => self.sample_error(e),
        }
    }

    fn sample_error(&mut self, e: &DbError) {
        let same_kind = self.error_samples.iter().filter(|(k, _)| *k == e.kind);
        if same_kind.clone().count() < ERROR_SAMPLES
            && !self
                .error_samples
                .iter()
                .any(|(k, m)| *k == e.kind && *m == e.message)
        {
            self.error_samples.push((e.kind, e.message.clone()));
        }
    }

    /// Add another recorder's numbers into this one.
    pub fn merge(&mut self, other: &Recorder) {
        for (a, b) in self.measured.iter_mut().zip(&other.measured) {
            a.merge(b);
        }
        self.merge_untyped(other);
    }

    /// Add the numbers that belong to no type (warm-up count, error samples);
    /// with a merge of every [`TypeStats`] that is a whole [`Recorder::merge`].
    pub fn merge_untyped(&mut self, other: &Recorder) {
        for (op, h) in other.operations.iter().enumerate() {
            if !h.is_empty() {
                self.operation(op).add(h).expect("histograms share bounds");
            }
        }
        if !other.lateness.is_empty() {
            self.lateness
                .add(&other.lateness)
                .expect("histograms share bounds");
        }
        self.unmeasured += other.unmeasured;
        for (k, m) in &other.error_samples {
            self.sample_error(&DbError::new(*k, m.clone()));
        }
    }

    /// Empty this recorder, keeping its allocations.
    pub fn reset(&mut self) {
        self.measured.iter_mut().for_each(TypeStats::reset);
        self.unmeasured = 0;
        self.error_samples.clear();
        for h in self.operations.iter_mut().chain([&mut self.lateness]) {
            if !h.is_empty() {
                h.reset();
            }
        }
    }

    /// Transactions due in the window that never finished, all types.
    pub fn given_up(&self) -> u64 {
        self.measured.iter().map(TypeStats::given_up).sum()
    }

    /// Transactions completed (committed or expected rollback) in the window, all types.
    pub fn completed(&self) -> u64 {
        self.measured.iter().map(TypeStats::completed).sum()
    }

    /// Transactions that failed (after their retries) in the window, all types.
    pub fn failed(&self) -> u64 {
        self.measured.iter().map(TypeStats::failed).sum()
    }

    /// The latencies of the transactions completed in the window, all types
    /// together (µs).
    pub fn all_latencies(&self) -> Histogram<u64> {
        let mut all = new_histogram();
        for t in &self.measured {
            // Same bounds: adding cannot fail, and saturates at worst.
            let _ = all.add(&t.latency);
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each test completion was retried once, after a serialization failure.
    static RETRIED: std::sync::LazyLock<[String; 1]> =
        std::sync::LazyLock::new(|| ["SQLSTATE 40001".to_string()]);

    fn done(t: usize, ms: u64, result: &Result<Outcome, DbError>) -> Completion<'_> {
        Completion {
            txn_type: t,
            latency: Duration::from_millis(ms),
            service: Duration::from_millis(ms),
            queue: Duration::ZERO,
            phases: Phases::default(),
            retries: 1,
            retry_causes: &*RETRIED,
            result,
            // Half the latency on the wire, from the card's clock for type 1,
            // in as many round trips as the type's number and one.
            wire: Some(txbench_wire::Wire {
                time: Duration::from_millis(ms) / 2,
                kind: if t == 1 {
                    txbench_wire::Kind::Hardware
                } else {
                    txbench_wire::Kind::Software
                },
                round_trips: t as u32 + 1,
            }),
        }
    }

    #[test]
    fn wire_times_are_kept_for_what_completed_and_merge() {
        let mut r = Recorder::new(2);
        let ok = Ok(Outcome::Committed);
        let err = Err(DbError::new(ErrorKind::Conflict, "busy"));
        r.record(&done(0, 10, &ok), true);
        r.record(&done(1, 20, &ok), true);
        r.record(&done(1, 30, &err), true);
        r.record(&done(0, 40, &ok), false);
        r.record_late(&done(0, 50, &ok));
        let mut total = Recorder::new(2);
        total.merge(&r);
        let [a, b] = [&total.measured[0], &total.measured[1]];
        assert_eq!((a.wire.len(), a.wire_hardware), (2, 0), "window and late");
        assert_eq!((b.wire.len(), b.wire_hardware), (1, 1), "not the failure");
        assert_eq!((a.wire_round_trips, b.wire_round_trips), (2, 2));
        // The late one's 50 ms, halved (to the histogram's precision).
        assert!(a.wire.max().abs_diff(25_000) < 50, "{}", a.wire.max());
        total.measured[1].reset();
        assert_eq!(total.measured[1].wire_hardware, 0);
        assert_eq!(total.measured[1].wire_round_trips, 0);
    }

    #[test]
    fn counts_outcomes_by_type_and_keeps_warmup_apart() {
        let mut r = Recorder::new(2);
        let ok = Ok(Outcome::Committed);
        let rb = Ok(Outcome::ExpectedRollback);
        let err = Err(DbError::new(ErrorKind::Conflict, "busy"));
        r.record(&done(0, 5, &ok), true);
        r.record(&done(0, 7, &rb), true);
        r.record(&done(1, 9, &err), true);
        r.record(&done(1, 9, &ok), false);
        assert_eq!(r.measured[0].committed, 1);
        assert_eq!(r.measured[0].expected_rollbacks, 1);
        assert_eq!(r.measured[0].latency.len(), 2);
        assert_eq!(r.measured[1].errors[ErrorKind::Conflict as usize], 1);
        assert_eq!(r.measured[1].latency.len(), 0);
        assert_eq!(r.measured[0].retries + r.measured[1].retries, 3);
        assert_eq!(r.measured[0].retry_causes["SQLSTATE 40001"], 2);
        let mut merged = r.measured[0].clone();
        merged.merge(&r.measured[1]);
        assert_eq!(merged.retry_causes["SQLSTATE 40001"], 3, "merged by cause");
        merged.reset();
        assert!(merged.retry_causes.is_empty());
        assert_eq!(r.unmeasured, 1);
        assert_eq!(r.error_samples.len(), 1);
    }

    #[test]
    fn merge_adds_histograms_exactly() {
        let mut a = Recorder::new(1);
        let mut b = Recorder::new(1);
        let ok = Ok(Outcome::Committed);
        for ms in 1..=100 {
            a.record(&done(0, ms, &ok), true);
        }
        for ms in 101..=200 {
            b.record(&done(0, ms, &ok), true);
        }
        a.merge(&b);
        let h = &a.measured[0].latency;
        assert_eq!(h.len(), 200);
        let p50 = h.value_at_quantile(0.5);
        assert!((99_000..=101_000).contains(&p50), "p50 {p50}");
        assert!(h.max() >= 199_900);
    }
}
