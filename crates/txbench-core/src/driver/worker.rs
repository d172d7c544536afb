//! A session's worker: one of the pool's ([`super::pool`]), owning one
//! engine session and taking jobs from one shared queue.
//!
//! A job is one transaction with its intended start time. The worker executes it
//! (retrying conflicts), records the outcome in a stripe it shares with a few
//! other workers ([`super::stripe`]), and answers the submitter. Waiting in the
//! queue for a free session is part of the latency, because latency is counted
//! from the intended start.
//!
//! Workers of a blocking engine (SQLite) run on OS threads of their own, so a whole
//! transaction runs there with one hand-off; workers of an asynchronous engine are
//! tokio tasks. The worker loop is the same code in both cases.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::availability::Availability;
use super::phases::Timed;
use super::stripe::{InFlight, SharedStripe, lock};
use crate::acks::AckLog;
use crate::cpu;
use crate::engine::Session;
use crate::error::{DbError, ErrorKind};
use crate::exec::{self, Placement, Spawned};
use crate::recorder::Completion;
use crate::rng::Rand;
use crate::sample::Sample;
use crate::txn::Outcome;
use crate::workload::Workload;
use crate::written::Written;

/// One transaction to execute.
pub struct Job<I> {
    /// The transaction input.
    pub input: I,
    /// Its type.
    pub txn_type: usize,
    /// When it should have started; latency counts from here.
    pub intended: Instant,
    /// Told when the transaction is done (the closed-loop scheduler waits for it).
    pub done: Option<Done>,
}

/// Where a worker reports a closed-loop terminal's transaction done: the
/// scheduler's one channel, with the terminal's number and the finish time.
#[derive(Debug)]
pub struct Done {
    /// The scheduler's channel.
    pub to: mpsc::UnboundedSender<(u32, Instant)>,
    /// The terminal.
    pub terminal: u32,
}

/// Where a terminal's jobs go: one queue, or one per node of the database when
/// terminals keep to a node (affinity); the workload's added terminals to
/// the side database's queue when it has one.
pub struct Route<I> {
    /// The queues, one per node.
    pub senders: Vec<async_channel::Sender<Job<I>>>,
    /// The first terminals (how many) and the queue of the side database's
    /// sessions they go to ([`crate::Engine::side`]).
    pub side: Option<(usize, async_channel::Sender<Job<I>>)>,
}

impl<I> Clone for Route<I> {
    fn clone(&self) -> Self {
        Route {
            senders: self.senders.clone(),
            side: self.side.clone(),
        }
    }
}

impl<I> Route<I> {
    /// The queue of the terminal with this home and index: the side's for
    /// the first terminals when there is one; else node (home - 1) mod
    /// nodes, or by index for terminals without a home.
    pub fn sender(&self, home: Option<u64>, index: usize) -> &async_channel::Sender<Job<I>> {
        if let Some((terminals, side)) = &self.side
            && index < *terminals
        {
            return side;
        }
        let n = self.senders.len();
        let node = match home {
            Some(h) => (h.saturating_sub(1) % n as u64) as usize,
            None => index % n,
        };
        &self.senders[node]
    }
}

/// The measurement window: the transactions completed inside it are measured,
/// and those unfinished when it closes.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// Start of measurement (end of warm-up).
    pub start: Instant,
    /// End of measurement.
    pub end: Instant,
    /// Whether a transaction is measured by when it was due rather than by
    /// when it ended: in a run to a transaction count, so that exactly the
    /// count is measured (a warm-up transaction ending in the window would
    /// be one more).
    pub by_due: bool,
}

impl Window {
    /// Whether an instant lies inside the window.
    pub fn contains(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }

    /// Whether a transaction due at `intended` that ended at `finished` is
    /// measured: it ended in the window (TPC-C's rule: what completes in the
    /// measurement interval), or in a run to a count it was due in it.
    pub fn measures(&self, intended: Instant, finished: Instant) -> bool {
        if self.by_due {
            self.contains(intended) && finished < self.end
        } else {
            self.contains(finished)
        }
    }

    /// Whether the span from `from` to `to` overlaps the window.
    pub fn overlaps(&self, from: Instant, to: Instant) -> bool {
        to > self.start && from < self.end
    }

    /// `from..to` as offsets from the window's start, the part before it left
    /// out. Past the end the offsets go on: the transactions unfinished when
    /// the window closed that complete after it are recorded there.
    pub fn span(&self, from: Instant, to: Instant) -> (Duration, Duration) {
        let offset = |t: Instant| t.saturating_duration_since(self.start);
        (offset(from), offset(to))
    }
}

/// How conflicts are retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts beyond the first before the transaction counts as failed.
    pub max_retries: u32,
    /// The first backoff; doubled per retry, with full jitter.
    pub base_backoff: Duration,
    /// The largest backoff.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 5,
            base_backoff: Duration::from_micros(200),
            max_backoff: Duration::from_millis(100),
        }
    }
}

/// What a worker hands back when it stops (the queue closed, or the run was cut).
pub struct WorkerExit {
    /// CPU time of the worker's own thread, when it had one.
    pub thread_cpu: Option<Duration>,
}

/// Everything a worker needs besides its session.
pub struct WorkerContext<W: Workload> {
    /// The workload whose procedures it runs.
    pub workload: Arc<W>,
    /// The shared job queue.
    pub jobs: async_channel::Receiver<Job<W::Input>>,
    /// The stripe the worker records into (shared with a few other workers).
    pub stripe: SharedStripe,
    /// The worker's slot in its stripe.
    pub slot: usize,
    /// The measurement window.
    pub window: Window,
    /// Retry policy for conflicts.
    pub retry: RetryPolicy,
    /// Seed of the backoff jitter stream.
    pub seed: u64,
    /// Nanoseconds spent executing transactions (retries and backoff
    /// included), readable while the worker runs.
    pub busy_ns: Arc<AtomicU64>,
    /// Where what became of each attempt that stated its writes goes, when
    /// the run keeps an acknowledged-work log.
    pub acks: Option<AckLog>,
    /// The run's clock of answers: each transaction the database answered,
    /// each connection re-established.
    pub availability: Arc<Availability>,
    /// Set once the run interrupted its sessions: a failure from then on is
    /// txbench's doing, and the transaction counts as unfinished.
    pub interrupted: Arc<AtomicBool>,
}

/// Start one worker for a session, on a thread or a task (see [`exec::placement`]).
pub fn spawn_worker<S: Session, W: Workload>(
    session: S,
    ctx: WorkerContext<W>,
    placement: Placement,
    blocking: bool,
) -> Spawned<WorkerExit> {
    let own_thread = placement == Placement::Thread;
    // A blocking session run as a task holds the runtime's thread for a whole
    // transaction: it yields after each one, so the clock (and a stop) runs
    // between transactions rather than every 128 of them.
    let yield_each = blocking && !own_thread;
    exec::spawn_at(
        placement,
        "txbench-session",
        worker_loop(session, ctx, own_thread, yield_each),
    )
}

/// `own_thread`: the worker has an OS thread to itself, so it may sleep the thread
/// and its thread clock is its CPU time. `yield_each`: it yields to the runtime
/// after every job.
async fn worker_loop<S: Session, W: Workload>(
    session: S,
    ctx: WorkerContext<W>,
    own_thread: bool,
    yield_each: bool,
) -> WorkerExit {
    let mut session = Timed::new(session, ctx.workload.operations());
    let mut jitter = Rand::new(ctx.seed);
    let mut written = Written::new();
    let mut losses_in_a_row = 0u32;
    while let Ok(job) = ctx.jobs.recv().await {
        // The queue is fed from other threads and never makes the task wait
        // while it is full: without a yield now and then, a worker on the
        // driver's thread would keep the ticks (and the stop) from running.
        if yield_each {
            tokio::task::yield_now().await;
        } else {
            tokio::task::coop::consume_budget().await;
        }
        let noted = InFlight {
            txn_type: job.txn_type,
            intended: job.intended,
        };
        if !lock(&ctx.stripe).start(ctx.slot, noted) {
            // The run was cut: this job counts as unfinished.
            break;
        }
        // What the session did on the wire before (its connection's setup,
        // the last job's failed attempts) is not this job's.
        let _ = session.take_wire();
        let started = Instant::now();
        let attempted = attempt(
            &mut session,
            &ctx,
            &job,
            (&mut jitter, &mut written),
            own_thread,
        )
        .await;
        let finished = Instant::now();
        add_busy(&ctx.busy_ns, finished - started);
        if attempted.result.is_err() && ctx.interrupted.load(Ordering::SeqCst) {
            // Stopped by the run's end, not failed: it stays in flight, and
            // the cut counts it unfinished.
            break;
        }
        if attempted.result.is_ok() {
            ctx.availability.answered(finished, started);
        } else {
            ctx.availability.failed(finished);
        }
        if !record(&mut session, &ctx, &job, (started, finished), &attempted) {
            // Cut while it ran: the driver counted it unfinished.
            break;
        }
        if let Some(done) = job.done {
            let _ = done.to.send((done.terminal, finished));
        }
        if !attempted.lost_connection {
            losses_in_a_row = 0;
            continue;
        }
        // Jobs wait in the queue meanwhile: the outage shows as their
        // queueing, and in the latency of the terminal's next transaction.
        losses_in_a_row += 1;
        let down = Instant::now();
        let retry = &ctx.retry;
        if reconnect(
            &mut session,
            retry,
            &mut jitter,
            own_thread,
            losses_in_a_row,
        )
        .await
        {
            ctx.availability.reconnected(Instant::now());
        }
        add_busy(&ctx.busy_ns, down.elapsed());
    }
    WorkerExit {
        // On its own thread, the thread's clock is the worker's CPU.
        thread_cpu: own_thread.then(cpu::thread_cpu_time),
    }
}

/// How a job's attempts ended.
struct Attempted {
    result: Result<Outcome, DbError>,
    retries: u32,
    /// What each retried attempt ended in ([`DbError::into_cause`]); allocated
    /// only when there are retries.
    retry_causes: Vec<String>,
    /// The connection was lost: the session must come back before the next job.
    lost_connection: bool,
}

/// Execute a job, retrying conflicts as the policy says, with backoff. What
/// became of each attempt that stated its writes goes to the run's
/// acknowledged-work log, if it keeps one.
async fn attempt<S: Session, W: Workload>(
    session: &mut Timed<S>,
    ctx: &WorkerContext<W>,
    job: &Job<W::Input>,
    (jitter, written): (&mut Rand, &mut Written),
    own_thread: bool,
) -> Attempted {
    let mut retries = 0u32;
    let mut retry_causes = Vec::new();
    loop {
        written.clear();
        let info = &ctx.workload.transaction_types()[job.txn_type];
        let attempt = match session.run_whole(job.txn_type, info, &job.input).await {
            Some(ended) => ended,
            None => ctx.workload.execute(session, &job.input, written).await,
        };
        if let Some(log) = &ctx.acks {
            let status = written.status(&attempt);
            log.record(job.txn_type, written, status);
        }
        let e = match attempt {
            Ok(outcome) => {
                return Attempted {
                    result: Ok(outcome),
                    retries,
                    retry_causes,
                    lost_connection: false,
                };
            }
            Err(e) => e,
        };
        // The transaction is lost with the connection: it counts as an error
        // of kind "connection", ending when it failed.
        let lost_connection = e.kind == ErrorKind::Connection;
        if !lost_connection {
            // Best effort: the session may already be outside a transaction.
            let _ = session.rollback().await;
        }
        let stopped = ctx.interrupted.load(Ordering::SeqCst);
        if stopped || lost_connection || !e.kind.is_retryable() || retries >= ctx.retry.max_retries
        {
            return Attempted {
                result: Err(e),
                retries,
                retry_causes,
                lost_connection,
            };
        }
        retries += 1;
        retry_causes.push(e.into_cause());
        pause(backoff(&ctx.retry, retries, jitter), own_thread).await;
    }
}

/// Record a finished job in the worker's stripe: what completes in the window
/// is measured; what was unfinished when it closed and completes in the grace
/// after it counts as unfinished. False when the run was cut while it ran.
fn record<S: Session, W: Workload>(
    session: &mut Timed<S>,
    ctx: &WorkerContext<W>,
    job: &Job<W::Input>,
    (started, finished): (Instant, Instant),
    attempted: &Attempted,
) -> bool {
    let completion = Completion {
        txn_type: job.txn_type,
        latency: finished.saturating_duration_since(job.intended),
        service: finished - started,
        queue: started.saturating_duration_since(job.intended),
        phases: session.take(),
        retries: attempted.retries,
        retry_causes: &attempted.retry_causes,
        result: &attempted.result,
        wire: session.take_wire(),
    };
    let in_window = ctx.window.measures(job.intended, finished);
    let late = finished >= ctx.window.end && job.intended < ctx.window.end;
    let mut stripe = lock(&ctx.stripe);
    if !stripe.finish(ctx.slot) {
        return false;
    }
    if late {
        stripe.recorder.record_late(&completion);
    } else {
        stripe.recorder.record(&completion, in_window);
    }
    if !session.operations.is_empty() {
        stripe
            .recorder
            .record_operations(&session.operations, in_window);
    }
    if in_window && attempted.result.is_ok() {
        stripe.samples.offer(Sample {
            intended_us: (job.intended.saturating_duration_since(ctx.window.start)).as_micros()
                as u64,
            latency_us: completion.latency.as_micros() as u64,
            txn_type: job.txn_type as u16,
        });
    }
    drop(stripe);
    session.operations.clear();
    true
}

fn add_busy(busy_ns: &AtomicU64, d: Duration) {
    busy_ns.fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
}

async fn pause(d: Duration, own_thread: bool) {
    if own_thread {
        std::thread::sleep(d);
    } else {
        tokio::time::sleep(d).await;
    }
}

/// How long a worker keeps trying to re-establish a lost connection before it
/// takes the next job (which then fails fast and tries again).
const RECONNECT_PATIENCE: Duration = Duration::from_secs(10);

/// Re-establish a session's connection with backoff, for at most
/// [`RECONNECT_PATIENCE`]. After `losses` connections lost in a row, the
/// server accepts connections but serves nothing (a server still starting):
/// the session backs off before it tries, rather than fail transaction after
/// transaction at once, which would leave the outage in no latency. True when
/// the connection came back.
async fn reconnect<S: Session>(
    session: &mut S,
    policy: &RetryPolicy,
    jitter: &mut Rand,
    own_thread: bool,
    losses: u32,
) -> bool {
    let slow = RetryPolicy {
        base_backoff: Duration::from_millis(50),
        max_backoff: Duration::from_secs(1),
        ..*policy
    };
    if losses > 1 {
        pause(backoff(&slow, losses - 1, jitter), own_thread).await;
    }
    let give_up = Instant::now() + RECONNECT_PATIENCE;
    let mut attempt = 0;
    while Instant::now() < give_up {
        if session.reconnect().await.is_ok() {
            return true;
        }
        attempt += 1;
        pause(backoff(&slow, attempt, jitter), own_thread).await;
    }
    false
}

/// Exponential backoff with full jitter: uniform in [0, min(max, base * 2^(n-1))].
fn backoff(policy: &RetryPolicy, retry: u32, jitter: &mut Rand) -> Duration {
    let cap = policy
        .base_backoff
        .saturating_mul(1u32 << retry.saturating_sub(1).min(20))
        .min(policy.max_backoff);
    cap.mul_f64(jitter.unit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy::default();
        let mut r = Rand::new(1);
        for retry in 1..30 {
            let b = backoff(&p, retry, &mut r);
            assert!(b <= p.max_backoff);
            let cap = p.base_backoff * (1u32 << (retry - 1).min(20));
            assert!(b <= cap);
        }
    }
}
