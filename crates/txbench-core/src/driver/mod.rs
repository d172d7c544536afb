//! The driver owns time: terminals, the session pool, warm-up, the measurement
//! window and a graceful stop. It knows no SQL.
//!
//! This module is the run's steps ([`run`]) and the types other crates use;
//! the pool of sessions (`pool.rs`, each session's worker in `worker.rs`),
//! what sends transactions (`senders.rs`) and the clock that collects what
//! they record (`clock.rs`) each live in a module of their own.

mod arrival_times;
mod availability;
mod budget;
mod clock;
mod closed_loop;
mod open_loop;
mod phase_tally;
mod phases;
mod pool;
mod rate;
mod schedule;
mod seconds;
mod segments;
mod senders;
pub mod sizing;
mod stopping;
mod stripe;
// The simulated server and the timer-floor example pace by it too.
pub mod timer;
mod worker;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

pub use availability::{Answers, GAP_MIN, Gap};
pub use closed_loop::{SchedulerStats, WaitMode};
pub use open_loop::{Arrival, DispatchStats, OpenLoop, Pacing, SPIN_FROM_RATE};
pub use phase_tally::PhaseTally;
pub use rate::{RateSchedule, Segment};
pub use schedule::Scheduled;
pub use seconds::Second;
pub use worker::RetryPolicy;

use availability::Availability;
use budget::Budget;
use clock::{Clock, GivenUp};
use pool::Pool;
use senders::{Senders, spawn_senders};
use stopping::Watchdog;
use stripe::InFlight;
use worker::{Job, Route, Window};

use crate::acks::AckLog;
use crate::cpu;
use crate::engine::Engine;
use crate::error::{DbError, ErrorKind};
use crate::recorder::Recorder;
use crate::sample::Sample;
use crate::workload::Workload;

/// How to drive a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Length of the measurement interval; with `transactions`, the most it
    /// may last.
    pub duration: Duration,
    /// End the window once this many transactions due in it have ended
    /// (YCSB's operation count), before `duration` if they take less;
    /// `None`: the window lasts `duration`.
    pub transactions: Option<u64>,
    /// Warm-up before measurement starts; its transactions are not measured.
    pub warmup: Duration,
    /// Closed-loop terminals.
    pub terminals: usize,
    /// Engine sessions shared by the terminals.
    pub connections: usize,
    /// Keying and think times.
    pub wait: WaitMode,
    /// The run's seed; every random stream derives from it.
    pub seed: u64,
    /// Retry policy for conflicts.
    pub retry: RetryPolicy,
    /// Open-loop load; `None` for closed-loop terminals.
    pub open: Option<OpenLoop>,
    /// Keep each terminal's transactions on one node of a multi-node database,
    /// chosen by the terminal's home (warehouse): node = (home - 1) mod nodes, and
    /// each node has its own sessions. Off: sessions spread over the nodes in turn
    /// and take any terminal's work.
    pub affinity: bool,
    /// Start at an agreed wall-clock time (the shards of a run share it), so
    /// that the measurement window is `at + warmup .. at + warmup + duration`
    /// in absolute time; `None`: start once the sessions are connected.
    pub start_at: Option<StartAt>,
    /// How long after the window the run waits for the transactions due in it
    /// before it gives up on them (they count as unfinished).
    pub grace: Duration,
    /// The acknowledged-work log every attempt that states its writes goes
    /// to, warm-up and grace included; `None`: none is kept.
    pub acks: Option<AckLog>,
    /// What to do at set times of the run (faults and recoveries), from its
    /// start; stopped at the cut.
    pub schedule: Vec<schedule::Scheduled>,
}

/// The default of [`RunOptions::grace`].
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// An agreed start time and how late a process may be for it.
#[derive(Debug, Clone, Copy)]
pub struct StartAt {
    /// When the run (its warm-up) starts.
    pub at: SystemTime,
    /// How late after `at` the run may still start; later, it refuses.
    pub tolerance: Duration,
}

impl StartAt {
    /// Whether `now` is too late to start: by how much past `at`, if so.
    pub fn too_late(&self, now: SystemTime) -> Option<Duration> {
        let late = now.duration_since(self.at).ok()?;
        (late > self.tolerance).then_some(late)
    }
}

/// Why a run did not produce a recording.
#[derive(Debug)]
pub enum RunError {
    /// The database failed (connecting, or a session the run could not go on without).
    Db(DbError),
    /// The sessions were ready only after the agreed start time plus its
    /// tolerance: the run would not share its window with the other shards.
    LateStart {
        /// How late after the start time the run was ready.
        late: Duration,
        /// The tolerance it exceeded.
        tolerance: Duration,
    },
    /// Stopped (Ctrl-C, SIGTERM) while connecting or waiting for the start
    /// time; nothing was measured.
    StoppedBeforeStart,
}

impl From<DbError> for RunError {
    fn from(e: DbError) -> Self {
        RunError::Db(e)
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Db(e) => write!(f, "{e}"),
            RunError::LateStart { late, tolerance } => write!(
                f,
                "ready {:.3} s after --start-at, later than the tolerance of {:.3} s: \
                 this shard's window would not be the others'",
                late.as_secs_f64(),
                tolerance.as_secs_f64()
            ),
            RunError::StoppedBeforeStart => f.write_str("stopped before the run started"),
        }
    }
}

impl std::error::Error for RunError {}

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Warming up: nothing is measured.
    WarmUp,
    /// In the measurement window.
    Measure,
    /// After the window, waiting (at most the grace) for the transactions due in it.
    Finishing,
}

/// One second of a run, for the progress line and the interval files.
#[derive(Debug)]
pub struct Tick<'a> {
    /// Time since the run started.
    pub elapsed: Duration,
    /// Where the run is.
    pub phase: Phase,
    /// The numbers of the last interval (the receiver may keep them).
    pub interval: Recorder,
    /// The length of the last interval.
    pub interval_length: Duration,
    /// The interval as offsets from the window's start, the part before the
    /// window left out (empty during warm-up); past the window's end it goes
    /// on (the grace).
    pub window_span: (Duration, Duration),
    /// When the measurement window starts (or started), by the wall clock.
    pub window_start: SystemTime,
    /// The measured numbers so far.
    pub total: &'a Recorder,
    /// Per type, the transactions sent to the sessions and not yet finished
    /// at the tick (waiting in the client's queue or executing).
    pub outstanding: &'a [u64],
    /// Of those, the ones waiting in the client's queue for a session.
    pub queued: u64,
}

/// CPU used during a run.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuUsage {
    /// CPU of the whole process.
    pub process: Duration,
    /// Time a blocking (embedded) engine's sessions spent executing transactions:
    /// their threads' CPU when they had threads of their own, else their busy wall
    /// time (on the driver's thread, with an in-memory database, that is CPU too).
    /// `None` for engines whose work happens in a server.
    pub engine_threads: Option<Duration>,
}

/// Everything a run measured.
#[derive(Debug)]
pub struct Recording {
    /// The measured numbers, all workers merged: every transaction due in the
    /// window, the unfinished ones with lower bounds of their latency.
    pub total: Recorder,
    /// When the measurement window started, by the wall clock.
    pub window_start: SystemTime,
    /// When it started by the monotonic clock, and when it ended (planned):
    /// what a workload timed itself (freshness looks) is placed by them.
    pub window: (Instant, Instant),
    /// The measurement interval actually covered (shorter when the run was stopped early).
    pub measured: Duration,
    /// Whether the run was stopped before its planned end.
    pub interrupted: bool,
    /// The transaction count asked (`RunOptions::transactions`), and whether
    /// the window ended there (false: its duration ended it first).
    pub count: Option<(u64, bool)>,
    /// Wall time of the whole run, warm-up and grace included.
    pub wall: Duration,
    /// How long after the window's end the run waited for what was due in it.
    pub tail: Duration,
    /// CPU used by the process over the whole run.
    pub cpu: CpuUsage,
    /// What the open-loop dispatcher saw (`None` for closed-loop runs).
    pub dispatch: Option<DispatchStats>,
    /// What the closed-loop scheduler saw (`None` for open-loop runs).
    pub scheduler: Option<SchedulerStats>,
    /// A uniform sample of measured latencies, sorted by intended start.
    pub samples: Vec<Sample>,
    /// Each second of the measurement window: completions, queueing, and the
    /// work outstanding.
    pub seconds: Vec<Second>,
    /// The window's completed latencies per type (µs), in consecutive
    /// segments of whole seconds, for the batch intervals of the percentiles.
    pub segments: Vec<Vec<hdrhistogram::Histogram<u64>>>,
    /// When the database answered, warm-up and grace included: the silences
    /// and the sessions re-established.
    pub answers: Answers,
    /// Where the window begins from the run's start, the origin of
    /// `answers`' offsets (the warm-up, shorter for a late shard).
    pub window_offset: Duration,
    /// Each phase's numbers, in a run that alternates
    /// ([`Workload::alternation`]); empty otherwise.
    pub phases: Vec<PhaseTally>,
}

/// What a sender (the open-loop dispatchers, the closed-loop scheduler)
/// hands back: what was due in the window, and what of it it never sent.
#[derive(Debug, Clone, Default)]
pub struct SenderReport {
    /// Transactions due in the window, per type: sent, shed, or never sent.
    pub scheduled: Vec<u64>,
    /// Transactions due in the window that were never sent (the sender was
    /// behind when the run was cut).
    pub unsent: Vec<InFlight>,
}

impl SenderReport {
    /// An empty report for `types` transaction types.
    pub fn new(types: usize) -> Self {
        SenderReport {
            scheduled: vec![0; types],
            unsent: Vec::new(),
        }
    }

    fn add(&mut self, other: SenderReport) {
        for (a, b) in self.scheduled.iter_mut().zip(other.scheduled) {
            *a += b;
        }
        self.unsent.extend(other.unsent);
    }
}

/// Connect the sessions, run the terminals for warm-up plus duration, wait at
/// most the grace for what was due in the window, and return what was
/// measured. `stop` ends the run early (Ctrl-C): within a second, whatever
/// phase it is in. `on_tick` is called once a second with the last interval.
pub async fn run<E: Engine, W: Workload>(
    engine: &Arc<E>,
    workload: &Arc<W>,
    opts: &RunOptions,
    stop: watch::Receiver<bool>,
    mut on_tick: impl FnMut(Tick<'_>),
) -> Result<Recording, RunError> {
    let added = workload.added_terminals();
    let sessions = stoppable(&stop, connect_sessions(engine, opts, added)).await??;
    let (started, start_wall) = anchor_start(opts, &stop).await?;
    let cpu_start = cpu::process_cpu_time();
    let mut running = Running::spawn::<E, W>(engine, workload, opts, sessions, started, start_wall);
    let _watchdog = running.pool.blocks_the_clock.then(|| {
        let give_up = running.clock.window.end + opts.grace;
        Watchdog::start(Arc::clone(&running.pool.stoppable), give_up, stop.clone())
    });
    let scheduled = schedule::start(&opts.schedule, started);
    let feed = clock::Feed {
        sender: &running.sender,
        queues: &running.queues,
        budget: &running.budget,
    };
    let ended = (running.clock)
        .wait_for_window(&feed, opts.grace, stop, &mut on_tick)
        .await;
    if let Some(s) = scheduled {
        s.abort();
    }
    let drained = running.drain(&mut on_tick).await?;
    let ends = (ended, opts.transactions);
    Ok(drained.recording(engine.blocking(), ends, started, cpu_start))
}

/// Why a run's window ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// Its duration was over and what was due in it done (or the grace out).
    Window,
    /// Its transaction count was reached and every one of them ended.
    Counted,
    /// `stop` (Ctrl-C, SIGTERM) ended it first.
    Stopped,
}

/// A run under way: its sessions' workers, what sends them transactions, the
/// queues between, and the clock that collects what they record.
struct Running<I> {
    pool: Pool,
    queues: Vec<async_channel::Receiver<Job<I>>>,
    sender: tokio::task::JoinHandle<(Senders, SenderReport)>,
    cut: watch::Sender<bool>,
    clock: Clock,
    availability: Arc<Availability>,
    budget: Arc<Budget>,
}

impl<I: Send + 'static> Running<I> {
    /// Start the workers on `sessions` and the senders, the run anchored at
    /// `started` (`start_wall` by the wall clock).
    fn spawn<E: Engine, W: Workload<Input = I>>(
        engine: &Arc<E>,
        workload: &Arc<W>,
        opts: &RunOptions,
        sessions: Vec<(E::Session, usize)>,
        started: Instant,
        start_wall: SystemTime,
    ) -> Self {
        let window = Window {
            start: started + opts.warmup,
            end: started + opts.warmup + opts.duration,
            by_due: opts.transactions.is_some(),
        };
        let types = workload.transaction_types().len();
        // A queue per node the sessions keep to, and the side's last.
        let added = workload.added_terminals();
        let side = side_of(&**engine, added).is_some();
        let (mut senders, queues): (Vec<_>, Vec<_>) = (0..opts.nodes::<E>(engine)
            + usize::from(side))
            .map(|_| opts.job_queue::<W::Input>())
            .unzip();
        let side = side.then(|| senders.pop()).flatten().map(|s| (added, s));
        let availability = Arc::new(Availability::new(started));
        let budget = Arc::new(Budget::new(opts.transactions));
        let pool = Pool::spawn(
            &**engine,
            sessions,
            workload,
            &queues,
            window,
            opts,
            &availability,
        );
        let (cut, cut_rx) = watch::channel(false);
        let route = Route { senders, side };
        let (sender, sender_stripes) =
            spawn_senders(workload, opts, route, (window, &budget), started, cut_rx);
        let stripes = pool
            .stripes
            .iter()
            .chain(&sender_stripes)
            .cloned()
            .collect();
        let anchors = (started, window, start_wall + opts.warmup);
        let clock = Clock::new(stripes, types, anchors, workload.alternation());
        Running {
            pool,
            queues,
            sender,
            cut,
            clock,
            availability,
            budget,
        }
    }

    /// The cut: from here on nothing is sent or recorded, and what was due in
    /// the window and is not done counts as unfinished, in the last interval.
    async fn drain(mut self, on_tick: &mut impl FnMut(Tick<'_>)) -> Result<Drained, RunError> {
        let cut_at = Instant::now();
        let _ = self.cut.send(true);
        let (senders, report) = self.sender.await.map_err(|e| {
            RunError::Db(DbError::new(
                ErrorKind::Other,
                format!("the transaction sender stopped: {e}"),
            ))
        })?;
        let mut found = self.clock.collector.cut();
        self.pool.stoppable.stop_working().await;
        for queue in &self.queues {
            queue.close();
            while let Ok(job) = queue.try_recv() {
                found.push(InFlight {
                    txn_type: job.txn_type,
                    intended: job.intended,
                });
            }
        }
        let given_up = GivenUp {
            outstanding: self.clock.collector.outstanding(),
            found,
            unsent: report.unsent,
        };
        self.clock.last_interval(given_up, cut_at, on_tick).await;
        let mut samples = self.clock.collector.take_samples();
        samples.sort_unstable_by_key(|s| s.intended_us);
        let engine_cpu = self.pool.stop().await;
        Ok(Drained {
            cut_at,
            engine_cpu,
            senders,
            samples,
            clock: self.clock,
            answers: self.availability.answers(),
        })
    }
}

/// A run after its cut, all its numbers collected.
struct Drained {
    cut_at: Instant,
    engine_cpu: Duration,
    senders: Senders,
    samples: Vec<Sample>,
    clock: Clock,
    answers: Answers,
}

impl Drained {
    /// The run's recording: measured until the window's end, or until the cut
    /// of a run interrupted or ended at its transaction count (`count`, if
    /// one was asked).
    fn recording(
        self,
        blocking: bool,
        (ended, count): (Ended, Option<u64>),
        started: Instant,
        cpu_start: Duration,
    ) -> Recording {
        let (window, cut_at) = (self.clock.window, self.cut_at);
        let measured_end = match ended {
            Ended::Window => window.end,
            Ended::Counted | Ended::Stopped => cut_at.min(window.end),
        };
        let (dispatch, scheduler) = match self.senders {
            Senders::Open(d) => (Some(d), None),
            Senders::Closed(s) => (None, Some(s)),
        };
        Recording {
            window_start: self.clock.window_start,
            window: (window.start, window.end),
            total: self.clock.total,
            measured: measured_end.saturating_duration_since(window.start),
            interrupted: ended == Ended::Stopped,
            count: count.map(|n| (n, ended == Ended::Counted)),
            wall: cut_at - started,
            tail: cut_at.saturating_duration_since(window.end),
            cpu: CpuUsage {
                process: cpu::process_cpu_time().saturating_sub(cpu_start),
                engine_threads: blocking.then_some(self.engine_cpu),
            },
            dispatch,
            scheduler,
            samples: self.samples,
            seconds: self.clock.seconds.into_vec(),
            segments: self.clock.segments.into_vec(),
            answers: self.answers,
            window_offset: window.start.saturating_duration_since(started),
            phases: (self.clock.phases).map_or_else(Vec::new, |p| p.into_vec()),
        }
    }
}

impl RunOptions {
    /// The nodes sessions are placed on: with affinity, session i lives on node
    /// i mod nodes and takes work from that node's queue only.
    fn nodes<E: Engine>(&self, engine: &E) -> usize {
        if self.affinity {
            engine.nodes().max(1)
        } else {
            1
        }
    }

    /// A job queue. Closed loop: a bounded queue, terminals wait for a slot and
    /// never drop a transaction. Open loop: the client queue, unbounded unless
    /// a limit sheds.
    fn job_queue<I>(
        &self,
    ) -> (
        async_channel::Sender<Job<I>>,
        async_channel::Receiver<Job<I>>,
    ) {
        match &self.open {
            None => async_channel::bounded(self.terminals.max(1)),
            Some(OpenLoop {
                queue_limit: Some(limit),
                ..
            }) => async_channel::bounded((*limit).max(1)),
            Some(OpenLoop {
                queue_limit: None, ..
            }) => async_channel::unbounded(),
        }
    }
}

/// Run `fut` unless `stop` turns true first.
async fn stoppable<T>(
    stop: &watch::Receiver<bool>,
    fut: impl Future<Output = T>,
) -> Result<T, RunError> {
    let mut stop = stop.clone();
    tokio::select! {
        out = fut => Ok(out),
        _ = stop.wait_for(|s| *s) => Err(RunError::StoppedBeforeStart),
    }
}

/// The database the workload's `added` terminals run on, when it is not
/// the run's own ([`Engine::side`]).
fn side_of<E: Engine>(engine: &E, added: usize) -> Option<&E> {
    engine.side().filter(|_| added > 0)
}

/// Open the run's sessions, each with the queue it takes work from (see
/// [`Running::spawn`]): spread over the nodes when terminals keep to them;
/// on a side database, a session per added terminal, on the last queue,
/// the rest of the connections on the run's own.
async fn connect_sessions<E: Engine>(
    engine: &Arc<E>,
    opts: &RunOptions,
    added: usize,
) -> Result<Vec<(E::Session, usize)>, RunError> {
    let nodes = opts.nodes::<E>(engine);
    let side = side_of(&**engine, added);
    let own = match side {
        Some(_) => opts.connections.saturating_sub(added).max(1),
        None => opts.connections,
    };
    let mut sessions = Vec::with_capacity(own.max(nodes) + added);
    for i in 0..own.max(nodes) {
        let session = if nodes > 1 {
            engine.connect_node(i % nodes).await?
        } else {
            engine.connect().await?
        };
        sessions.push((session, i % nodes));
    }
    if let Some(side) = side {
        for _ in 0..added {
            sessions.push((side.connect().await?, nodes));
        }
    }
    Ok(sessions)
}

/// When the run starts, by the monotonic and the wall clock. With an agreed
/// start, wait for it (the sessions are ready), and anchor the run at it: a
/// process a little late (within the tolerance) has a shorter warm-up, not a
/// later window.
async fn anchor_start(
    opts: &RunOptions,
    stop: &watch::Receiver<bool>,
) -> Result<(Instant, SystemTime), RunError> {
    let Some(start) = opts.start_at else {
        return Ok((Instant::now(), SystemTime::now()));
    };
    let now = SystemTime::now();
    if let Some(late) = start.too_late(now) {
        return Err(RunError::LateStart {
            late,
            tolerance: start.tolerance,
        });
    }
    if let Ok(wait) = start.at.duration_since(now) {
        stoppable(stop, tokio::time::sleep(wait)).await?;
    }
    let (now, instant) = (SystemTime::now(), Instant::now());
    let late = now.duration_since(start.at).unwrap_or_default();
    Ok((instant.checked_sub(late).unwrap_or(instant), start.at))
}
