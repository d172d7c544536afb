//! The session pool: a worker per session ([`super::worker`]), the stripes
//! they record in, and the handles to stop them at the run's end.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::RunOptions;
use super::availability::Availability;
use super::stopping::Stoppable;
use super::stripe::{SharedStripe, Stripe};
use super::worker::{Job, Window, WorkerContext, WorkerExit, spawn_worker};
use crate::engine::{Engine, Session};
use crate::exec::{self, Spawned};
use crate::rng::Rand;
use crate::workload::Workload;

/// Random streams of the stripes' latency samples start here.
const STRIPE_STREAMS: u64 = 1 << 61;
/// Latencies kept per run for the statistics (split over the stripes).
const SAMPLES_PER_RUN: usize = 200_000;
/// How long a cut run waits for its workers to hand back their thread's CPU.
const WORKER_EXIT_WAIT: Duration = Duration::from_millis(200);

/// The session workers and what they share.
pub(super) struct Pool {
    workers: Vec<Spawned<WorkerExit>>,
    busy: Vec<Arc<AtomicU64>>,
    pub(super) stripes: Vec<SharedStripe>,
    /// The sessions, to stop what they still execute at the run's end.
    pub(super) stoppable: Arc<Stoppable>,
    /// Whether a session runs on the runtime's thread, where one that blocks
    /// holds the run's clock.
    pub(super) blocks_the_clock: bool,
}

impl Pool {
    /// Start a worker per session, taking jobs from its queue (the index
    /// beside it). Workers share a few stripes rather than
    /// each having its own recorder: a recorder is some 20 histograms, and a
    /// pool of hundreds of sessions (100,000 terminals with spec waits) would
    /// otherwise hold gigabytes of them and merge them all every second. A
    /// stripe's lock is held for one transaction's recording, so a few per
    /// core keep contention negligible.
    pub(super) fn spawn<E: Engine, W: Workload>(
        engine: &E,
        sessions: Vec<(E::Session, usize)>,
        workload: &Arc<W>,
        queues: &[async_channel::Receiver<Job<W::Input>>],
        window: Window,
        opts: &RunOptions,
        availability: &Arc<Availability>,
    ) -> Pool {
        let types = workload.transaction_types().len();
        let count = sessions.len().max(1);
        let stripes_n = recorder_stripes(count);
        let stripes: Vec<SharedStripe> = (0..stripes_n)
            .map(|s| {
                let workers = count.div_ceil(stripes_n);
                let seed = Rand::derive(opts.seed, STRIPE_STREAMS + s as u64).uniform(0, i64::MAX);
                Stripe::shared(types, workers, SAMPLES_PER_RUN / stripes_n, seed as u64)
            })
            .collect();
        let placement = exec::placement(engine, sessions.len());
        let mut pool = Pool {
            workers: Vec::new(),
            busy: Vec::new(),
            stripes,
            stoppable: Arc::default(),
            blocks_the_clock: engine.blocking() && placement == exec::Placement::Task,
        };
        let mut stoppable = Stoppable::default();
        for (i, (mut session, queue)) in sessions.into_iter().enumerate() {
            // What the engine said before it connected, and what its session
            // does, must be one answer.
            debug_assert_eq!(
                session.whole_transactions().is_some(),
                engine.execution().whole_transactions(),
                "a session's whole transactions disagree with its EXECUTION"
            );
            let busy = Arc::new(AtomicU64::new(0));
            let ctx = WorkerContext {
                workload: Arc::clone(workload),
                jobs: queues[queue].clone(),
                stripe: Arc::clone(&pool.stripes[i % stripes_n]),
                slot: i / stripes_n,
                window,
                retry: opts.retry,
                seed: Rand::derive(opts.seed, u64::MAX - i as u64).uniform(0, i64::MAX) as u64,
                busy_ns: Arc::clone(&busy),
                acks: opts.acks.clone(),
                availability: Arc::clone(availability),
                interrupted: stoppable.interrupted(),
            };
            stoppable.add(session.interrupter(), &ctx.stripe, ctx.slot);
            pool.workers
                .push(spawn_worker(session, ctx, placement, engine.blocking()));
            pool.busy.push(busy);
        }
        pool.stoppable = Arc::new(stoppable);
        pool
    }

    /// After the cut: wait a moment for the workers to stop (a worker still
    /// inside a transaction is not waited for; a task is aborted), and return
    /// the time the sessions spent executing: a worker's thread CPU when it
    /// had a thread and stopped, else its busy time.
    pub(super) async fn stop(self) -> Duration {
        let deadline = Instant::now() + WORKER_EXIT_WAIT;
        let mut engine = Duration::ZERO;
        for (worker, busy) in self.workers.into_iter().zip(self.busy) {
            let busy = Duration::from_nanos(busy.load(Ordering::Relaxed));
            engine += match worker.join_until(deadline).await {
                Some(WorkerExit {
                    thread_cpu: Some(cpu),
                }) => cpu,
                _ => busy,
            };
        }
        engine
    }
}

/// Recorders the workers of a pool of `sessions` share: four per core, at
/// least 8, never more than the sessions.
fn recorder_stripes(sessions: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (4 * cores).max(8).min(sessions).max(1)
}
