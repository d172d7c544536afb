//! What a few session workers share under one lock (a stripe): the recorder
//! they record into, their latency sample, and the transaction each of them
//! is executing; and the collector that reads the stripes once a second and
//! cuts them when the run stops waiting.
//!
//! The transaction a worker executes is noted in its slot when it starts and
//! taken back when it ends. When the run is cut, the driver takes every slot's
//! transaction instead: from then on those count as unfinished (the driver
//! records them with the time they had waited) and the workers record nothing
//! more, so no transaction is counted twice, however the race falls.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use crate::recorder::Recorder;
use crate::sample::Reservoir;

/// A transaction a worker took from the queue and has not finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InFlight {
    /// Its type.
    pub txn_type: usize,
    /// When it should have started.
    pub intended: Instant,
}

/// The numbers a few workers (or one sender) share.
#[derive(Debug)]
pub struct Stripe {
    /// The numbers of the current interval.
    pub recorder: Recorder,
    /// A uniform sample of measured latencies, kept for the whole run.
    pub samples: Reservoir,
    /// Per worker of the stripe, the transaction it is executing.
    in_flight: Vec<Option<InFlight>>,
    /// Per type, the transactions sent to the pool by this stripe's sender
    /// (since the run started).
    sent: Vec<u64>,
    /// Per type, the transactions this stripe's workers finished and recorded.
    finished: Vec<u64>,
    /// Set when the run stopped waiting: nothing more is recorded.
    cut: bool,
}

/// A stripe behind its lock.
pub type SharedStripe = Arc<Mutex<Stripe>>;

impl Stripe {
    /// A stripe for `workers` workers and `types` transaction types, keeping a
    /// latency sample of at most `sample_capacity`.
    pub fn new(types: usize, workers: usize, sample_capacity: usize, seed: u64) -> Self {
        Stripe {
            recorder: Recorder::new(types),
            samples: Reservoir::new(sample_capacity, seed),
            in_flight: vec![None; workers],
            sent: vec![0; types],
            finished: vec![0; types],
            cut: false,
        }
    }

    /// A stripe behind a lock.
    pub fn shared(types: usize, workers: usize, sample_capacity: usize, seed: u64) -> SharedStripe {
        Arc::new(Mutex::new(Stripe::new(
            types,
            workers,
            sample_capacity,
            seed,
        )))
    }

    /// Worker `slot` starts `job`; false when the run was cut (the worker stops
    /// without running it).
    pub fn start(&mut self, slot: usize, job: InFlight) -> bool {
        if self.cut {
            return false;
        }
        self.in_flight[slot] = Some(job);
        true
    }

    /// Worker `slot` finished its job: true when the worker is to record it,
    /// false when the run was cut first (the driver counted it unfinished).
    pub fn finish(&mut self, slot: usize) -> bool {
        if self.cut {
            return false;
        }
        match self.in_flight[slot].take() {
            Some(job) => {
                self.finished[job.txn_type] += 1;
                true
            }
            None => false,
        }
    }

    /// This stripe's sender handed a transaction of type `txn_type` to the pool.
    pub fn note_sent(&mut self, txn_type: usize) {
        self.sent[txn_type] += 1;
    }

    /// Whether the worker of `slot` is executing a transaction (after the
    /// cut: was, when the run was cut, and has not gone on since).
    pub fn executing(&self, slot: usize) -> bool {
        self.in_flight[slot].is_some()
    }

    /// Stop recording, and return the transactions still executing. Their
    /// marks stay, so that the run can still tell whose statements to stop.
    fn cut(&mut self) -> impl Iterator<Item = InFlight> + '_ {
        self.cut = true;
        self.in_flight.iter().flatten().copied()
    }
}

/// Lock a stripe; a worker that panicked while holding it left numbers that
/// are still counts, so the lock is taken anyway.
pub fn lock(stripe: &SharedStripe) -> MutexGuard<'_, Stripe> {
    stripe.lock().unwrap_or_else(|e| e.into_inner())
}

/// Reads the stripes: an empty spare recorder per stripe is swapped in, so a
/// lock is held for a swap only.
pub struct Collector {
    stripes: Vec<SharedStripe>,
    spares: Vec<Recorder>,
}

impl Collector {
    /// A collector of these stripes.
    pub fn new(stripes: Vec<SharedStripe>, types: usize) -> Self {
        let spares = stripes.iter().map(|_| Recorder::new(types)).collect();
        Collector { stripes, spares }
    }

    /// Move every stripe's numbers into `interval` (emptied first) and add them
    /// to `total`. A full interval's histograms take milliseconds to add, so the
    /// merge yields after each transaction type, letting other tasks of the
    /// thread run.
    pub async fn collect(&mut self, interval: &mut Recorder, total: &mut Recorder) {
        self.collect_interval(interval).await;
        merge_yielding(total, interval).await;
    }

    /// Move every stripe's numbers into `interval` (emptied first).
    pub async fn collect_interval(&mut self, interval: &mut Recorder) {
        interval.reset();
        for (stripe, spare) in self.stripes.iter().zip(&mut self.spares) {
            std::mem::swap(&mut lock(stripe).recorder, spare);
            merge_yielding(interval, spare).await;
            spare.reset();
        }
    }

    /// Whether every transaction sent to the pool has finished. Counted, not
    /// read off the workers' slots: a worker that took a job from the queue
    /// yields before it notes the job in its slot, and in that instant the
    /// job is in neither the queue nor a slot (a run's last arrival, so
    /// missed, was counted unfinished though it would have ended at once).
    pub fn all_finished(&self) -> bool {
        self.outstanding().iter().all(|&n| n == 0)
    }

    /// Cut every stripe (nothing more is recorded) and return the transactions
    /// still executing, which are now the driver's to count.
    pub fn cut(&mut self) -> Vec<InFlight> {
        let mut taken = Vec::new();
        for stripe in &self.stripes {
            taken.extend(lock(stripe).cut());
        }
        taken
    }

    /// Per type, the transactions sent to the pool and not finished: after
    /// the cut, exactly those given up, wherever they were (queued, executing,
    /// or taken by a worker in the instant of the cut).
    pub fn outstanding(&self) -> Vec<u64> {
        let mut sent = Vec::new();
        let mut finished = Vec::new();
        for stripe in &self.stripes {
            let s = lock(stripe);
            add_into(&mut sent, &s.sent);
            add_into(&mut finished, &s.finished);
        }
        sent.iter()
            .zip(finished.iter().chain(std::iter::repeat(&0)))
            .map(|(s, f)| s.saturating_sub(*f))
            .collect()
    }

    /// The latency samples of every stripe (after the cut).
    pub fn take_samples(&mut self) -> Vec<crate::sample::Sample> {
        let mut all = Vec::new();
        for stripe in &self.stripes {
            let samples = std::mem::replace(&mut lock(stripe).samples, Reservoir::new(0, 0));
            all.extend(samples.into_items());
        }
        all
    }
}

fn add_into(into: &mut Vec<u64>, from: &[u64]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a += b;
    }
}

async fn merge_yielding(into: &mut Recorder, from: &Recorder) {
    for (a, b) in into.measured.iter_mut().zip(&from.measured) {
        a.merge(b);
        tokio::task::yield_now().await;
    }
    into.merge_untyped(from);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_takes_what_is_executing_and_the_worker_then_records_nothing() {
        let now = Instant::now();
        let job = InFlight {
            txn_type: 1,
            intended: now,
        };
        let mut s = Stripe::new(2, 2, 10, 1);
        assert!(s.start(0, job));
        assert!(s.start(1, job));
        assert!(
            s.finish(1),
            "finished before the cut: recorded by the worker"
        );
        let taken: Vec<InFlight> = s.cut().collect();
        assert_eq!(taken, vec![job], "the executing one is the driver's");
        assert!(!s.finish(0), "the worker must not record it too");
        assert!(!s.start(0, job), "nothing starts after the cut");
    }

    #[test]
    fn a_job_taken_from_the_queue_and_not_yet_started_is_waited_for() {
        let now = Instant::now();
        let job = InFlight {
            txn_type: 0,
            intended: now,
        };
        let sender = Stripe::shared(1, 0, 10, 1);
        let workers = Stripe::shared(1, 1, 10, 2);
        let collector = Collector::new(vec![sender.clone(), workers.clone()], 1);
        assert!(collector.all_finished(), "nothing sent yet");
        lock(&sender).note_sent(0);
        // The worker has the job but has not noted it in its slot.
        assert!(!collector.all_finished());
        assert!(lock(&workers).start(0, job));
        assert!(!collector.all_finished());
        assert!(lock(&workers).finish(0));
        assert!(collector.all_finished());
    }
}
