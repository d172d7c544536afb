//! The driver owns time: terminals, the session pool, warm-up, the measurement
//! window and a graceful stop. It knows no SQL.

pub mod availability;
mod closed_loop;
pub mod open_loop;
pub mod phases;
pub mod pool;
pub mod rate;
pub mod schedule;
pub mod seconds;
pub mod segments;
pub mod sizing;
pub mod stopping;
pub mod stripe;
pub mod timer;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

pub use closed_loop::{SchedulerStats, WaitMode};
pub use open_loop::{Arrival, DispatchStats, OpenLoop, Pacing};
use pool::{Job, RetryPolicy, Route, Window, WorkerContext, WorkerExit, spawn_worker};
pub use rate::{RateSchedule, Segment};
use seconds::{Second, Seconds};
use segments::Segments;
use stopping::{Stoppable, Watchdog};
use stripe::{Collector, InFlight, SharedStripe, Stripe};

use crate::acks::AckLog;
use crate::cpu;
use crate::engine::{Engine, Session};
use crate::error::{DbError, ErrorKind};
use crate::exec::{self, Spawned};
use crate::recorder::Recorder;
use crate::rng::Rand;
use crate::sample::Sample;
use crate::workload::Workload;
use availability::{Answers, Availability};

/// How to drive a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Length of the measurement interval.
    pub duration: Duration,
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
    /// The measurement interval actually covered (shorter when the run was stopped early).
    pub measured: Duration,
    /// Whether the run was stopped before its planned end.
    pub interrupted: bool,
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

/// Random streams of the stripes' latency samples start here.
const STRIPE_STREAMS: u64 = 1 << 61;
/// Latencies kept per run for the statistics (split over the stripes).
const SAMPLES_PER_RUN: usize = 200_000;
/// After the window, how often the run looks whether what was due in it is done.
const FINISH_POLL: Duration = Duration::from_millis(5);
/// How long a cut run waits for its workers to hand back their thread's CPU.
const WORKER_EXIT_WAIT: Duration = Duration::from_millis(200);

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
    let sessions = stoppable(&stop, connect_sessions(engine, opts)).await??;
    let (started, start_wall) = anchor_start(opts, &stop).await?;
    let cpu_start = cpu::process_cpu_time();
    let mut running = Running::spawn::<E, W>(engine, workload, opts, sessions, started, start_wall);
    let _watchdog = running.pool.blocks_the_clock.then(|| {
        let give_up = running.clock.window.end + opts.grace;
        Watchdog::start(Arc::clone(&running.pool.stoppable), give_up, stop.clone())
    });
    let scheduled = schedule::start(&opts.schedule, started);
    let interrupted = running
        .clock
        .wait_for_window(
            &running.sender,
            &running.queues,
            opts.grace,
            stop,
            &mut on_tick,
        )
        .await;
    if let Some(s) = scheduled {
        s.abort();
    }
    let drained = running.drain(&mut on_tick).await?;
    Ok(drained.recording::<E>(interrupted, started, cpu_start))
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
}

impl<I: Send + 'static> Running<I> {
    /// Start the workers on `sessions` and the senders, the run anchored at
    /// `started` (`start_wall` by the wall clock).
    fn spawn<E: Engine, W: Workload<Input = I>>(
        engine: &Arc<E>,
        workload: &Arc<W>,
        opts: &RunOptions,
        sessions: Vec<E::Session>,
        started: Instant,
        start_wall: SystemTime,
    ) -> Self {
        let window = Window {
            start: started + opts.warmup,
            end: started + opts.warmup + opts.duration,
        };
        let types = workload.transaction_types().len();
        let (senders, queues): (Vec<_>, Vec<_>) = (0..opts.nodes::<E>(engine))
            .map(|_| opts.job_queue::<W::Input>())
            .unzip();
        let availability = Arc::new(Availability::new(started));
        let pool = Pool::spawn::<E, W>(sessions, workload, &queues, window, opts, &availability);
        let (cut, cut_rx) = watch::channel(false);
        let (sender, sender_stripes) =
            spawn_senders(workload, opts, Route { senders }, window, started, cut_rx);
        let stripes = pool
            .stripes
            .iter()
            .chain(&sender_stripes)
            .cloned()
            .collect();
        let clock = Clock {
            collector: Collector::new(stripes, types),
            total: Recorder::new(types),
            interval: Recorder::new(types),
            started,
            last_tick: Instant::now(),
            window,
            window_start: start_wall + opts.warmup,
            seconds: Seconds::default(),
            segments: Segments::default(),
        };
        Running {
            pool,
            queues,
            sender,
            cut,
            clock,
            availability,
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
    /// of an interrupted run.
    fn recording<E: Engine>(
        self,
        interrupted: bool,
        started: Instant,
        cpu_start: Duration,
    ) -> Recording {
        let (window, cut_at) = (self.clock.window, self.cut_at);
        let measured_end = if interrupted {
            cut_at.min(window.end)
        } else {
            window.end
        };
        let (dispatch, scheduler) = match self.senders {
            Senders::Open(d) => (Some(d), None),
            Senders::Closed(s) => (None, Some(s)),
        };
        Recording {
            window_start: self.clock.window_start,
            total: self.clock.total,
            measured: measured_end.saturating_duration_since(window.start),
            interrupted,
            wall: cut_at - started,
            tail: cut_at.saturating_duration_since(window.end),
            cpu: CpuUsage {
                process: cpu::process_cpu_time().saturating_sub(cpu_start),
                engine_threads: E::BLOCKING.then_some(self.engine_cpu),
            },
            dispatch,
            scheduler,
            samples: self.samples,
            seconds: self.clock.seconds.into_vec(),
            segments: self.clock.segments.into_vec(),
            answers: self.answers,
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

/// Open the run's sessions, spread over the nodes when terminals keep to them.
async fn connect_sessions<E: Engine>(
    engine: &Arc<E>,
    opts: &RunOptions,
) -> Result<Vec<E::Session>, RunError> {
    let nodes = opts.nodes::<E>(engine);
    let mut sessions = Vec::with_capacity(opts.connections);
    for i in 0..opts.connections.max(nodes) {
        sessions.push(if nodes > 1 {
            engine.connect_node(i % nodes).await?
        } else {
            engine.connect().await?
        });
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

/// The session workers and what they share.
struct Pool {
    workers: Vec<Spawned<WorkerExit>>,
    busy: Vec<Arc<AtomicU64>>,
    stripes: Vec<SharedStripe>,
    /// The sessions, to stop what they still execute at the run's end.
    stoppable: Arc<Stoppable>,
    /// Whether a session runs on the runtime's thread, where one that blocks
    /// holds the run's clock.
    blocks_the_clock: bool,
}

impl Pool {
    /// Start a worker per session. Workers share a few stripes rather than
    /// each having its own recorder: a recorder is some 20 histograms, and a
    /// pool of hundreds of sessions (100,000 terminals with spec waits) would
    /// otherwise hold gigabytes of them and merge them all every second. A
    /// stripe's lock is held for one transaction's recording, so a few per
    /// core keep contention negligible.
    fn spawn<E: Engine, W: Workload>(
        sessions: Vec<E::Session>,
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
        let placement = exec::placement::<E>(sessions.len());
        let mut pool = Pool {
            workers: Vec::new(),
            busy: Vec::new(),
            stripes,
            stoppable: Arc::default(),
            blocks_the_clock: E::BLOCKING && placement == exec::Placement::Task,
        };
        let mut stoppable = Stoppable::default();
        for (i, session) in sessions.into_iter().enumerate() {
            let busy = Arc::new(AtomicU64::new(0));
            let ctx = WorkerContext {
                workload: Arc::clone(workload),
                jobs: queues[i % queues.len()].clone(),
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
                .push(spawn_worker::<E, W>(session, ctx, placement));
            pool.busy.push(busy);
        }
        pool.stoppable = Arc::new(stoppable);
        pool
    }

    /// After the cut: wait a moment for the workers to stop (a worker still
    /// inside a transaction is not waited for; a task is aborted), and return
    /// the time the sessions spent executing: a worker's thread CPU when it
    /// had a thread and stopped, else its busy time.
    async fn stop(self) -> Duration {
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

/// What the task that sends transactions saw.
enum Senders {
    /// The open-loop dispatchers.
    Open(DispatchStats),
    /// The closed-loop terminals' scheduler.
    Closed(SchedulerStats),
}

/// Start what sends the transactions: the open-loop dispatcher threads, or
/// the closed-loop scheduler; each records its lateness (and sheds) in a
/// stripe of its own. The terminals are created in the task, so a stop can
/// come while a million of them are.
fn spawn_senders<W: Workload>(
    workload: &Arc<W>,
    opts: &RunOptions,
    route: Route<W::Input>,
    window: Window,
    started: Instant,
    cut: watch::Receiver<bool>,
) -> (
    tokio::task::JoinHandle<(Senders, SenderReport)>,
    Vec<SharedStripe>,
) {
    let types = workload.transaction_types().len();
    let threads = opts.open.as_ref().map_or(1, |o| o.dispatchers.max(1));
    let stripes: Vec<SharedStripe> = (0..threads)
        .map(|_| Stripe::shared(types, 0, 0, 0))
        .collect();
    let sending = Sending {
        workload: Arc::clone(workload),
        route,
        seed: opts.seed,
        window,
        started,
        stripes: stripes.clone(),
        cut,
    };
    let (wait, open, terminals) = (opts.wait, opts.open.clone(), opts.terminals);
    let task = tokio::spawn(async move {
        // An open loop draws its arrivals' inputs from one terminal at least.
        let count = terminals.max(usize::from(open.is_some()));
        let all = sending.terminals(count).await;
        match open {
            Some(load) => sending.dispatch(all, load).await,
            None => sending.schedule(all, wait).await,
        }
    });
    (task, stripes)
}

/// What the sending task needs: the terminals' source, where jobs go, and
/// when the run started, ends and is cut.
struct Sending<W: Workload> {
    workload: Arc<W>,
    route: Route<W::Input>,
    seed: u64,
    window: Window,
    started: Instant,
    stripes: Vec<SharedStripe>,
    cut: watch::Receiver<bool>,
}

impl<W: Workload> Sending<W> {
    /// `count` terminals, made a few thousand at a time between looks at the
    /// cut; fewer when the cut came first (the senders then end at once).
    async fn terminals(&self, count: usize) -> Vec<W::Terminal> {
        let mut all = Vec::with_capacity(count.max(1));
        for t in 0..count {
            all.push(self.workload.terminal(t, self.seed));
            if t % 4096 == 4095 {
                if *self.cut.borrow() {
                    break;
                }
                tokio::task::yield_now().await;
            }
        }
        all
    }

    /// Closed loop: the terminals' scheduler until the window ends or the cut.
    async fn schedule(self, all: Vec<W::Terminal>, wait: WaitMode) -> (Senders, SenderReport) {
        let stripe = self.stripes.into_iter().next().expect("one stripe");
        let (stats, report) = closed_loop::run_terminals(
            all,
            self.route,
            wait,
            self.workload.transaction_types(),
            self.seed,
            self.window,
            self.cut,
            stripe,
        )
        .await;
        (Senders::Closed(stats), report)
    }

    /// Open loop: a dispatcher per share of the terminals (a thread, or a
    /// spinning task), until the window ends or the cut.
    async fn dispatch(mut self, all: Vec<W::Terminal>, load: OpenLoop) -> (Senders, SenderReport) {
        let types = self.workload.transaction_types().len();
        let flag = Arc::new(AtomicBool::new(false));
        let shares = open_loop::split(all, load.dispatchers);
        let dispatchers: Vec<_> = (shares.into_iter().zip(self.stripes.iter().cloned()))
            .enumerate()
            .map(|(index, (terminals, stripe))| {
                let spins = load.spins();
                let d = open_loop::Dispatcher {
                    terminals,
                    route: self.route.clone(),
                    load: load.clone(),
                    index,
                    seed: self.seed,
                    start: self.started,
                    window: self.window,
                    stripe,
                    types,
                };
                let flag = Arc::clone(&flag);
                if spins {
                    exec::spawn_at(exec::Placement::Task, "txbench-dispatch", async move {
                        open_loop::dispatch_in_task(d, &flag).await
                    })
                } else {
                    exec::spawn_thread("txbench-dispatch", move || {
                        open_loop::dispatch_on_thread(d, &flag)
                    })
                }
            })
            .collect();
        drop(self.route);
        // The dispatchers end with the window, or at the cut.
        let mut stats = Vec::new();
        let mut report = SenderReport::new(types);
        for d in dispatchers {
            let mut done = std::pin::pin!(d.join());
            let ended = tokio::select! {
                out = &mut done => Some(out),
                _ = self.cut.wait_for(|c| *c) => None,
            };
            let out = match ended {
                Some(out) => out,
                None => {
                    flag.store(true, Ordering::Relaxed);
                    done.await
                }
            };
            if let Some((s, r)) = out {
                stats.push(s);
                report.add(r);
            }
        }
        (Senders::Open(open_loop::combine(stats)), report)
    }
}

/// The run's clock: ticks once a second, collecting the stripes into the
/// interval and the totals.
struct Clock {
    collector: Collector,
    total: Recorder,
    interval: Recorder,
    started: Instant,
    last_tick: Instant,
    window: Window,
    window_start: SystemTime,
    seconds: Seconds,
    segments: Segments,
}

impl Clock {
    /// Tick until the window is over and what was due in it is done, or the
    /// grace after it ran out; true when `stop` ended the run first.
    async fn wait_for_window<I, T>(
        &mut self,
        sender: &tokio::task::JoinHandle<T>,
        queues: &[async_channel::Receiver<Job<I>>],
        grace: Duration,
        mut stop: watch::Receiver<bool>,
        on_tick: &mut impl FnMut(Tick<'_>),
    ) -> bool {
        let mut ticker = tokio::time::interval(Duration::from_secs(1));
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        self.last_tick = Instant::now();
        let give_up = self.window.end + grace;
        loop {
            let now = Instant::now();
            // The window is waited out even when the senders have no more
            // to send (a rate schedule ending in a pause, or too low a rate
            // for another arrival): the run lasts the seconds it reports,
            // and the commands scheduled in them run.
            let done = now >= self.window.end
                && sender.is_finished()
                && queues.iter().all(|q| q.is_empty())
                && self.collector.idle();
            if done || now >= give_up {
                return false;
            }
            let past_end = now >= self.window.end;
            tokio::select! {
                biased;
                _ = stop.wait_for(|s| *s) => return true,
                _ = ticker.tick() => {
                    let queued = queues.iter().map(|q| q.len() as u64).sum();
                    self.tick(queued, on_tick).await;
                }
                _ = tokio::time::sleep_until(self.window.end.into()), if !past_end => {}
                _ = tokio::time::sleep(FINISH_POLL), if past_end => {}
            }
        }
    }

    /// Collect the last second and hand it on.
    async fn tick(&mut self, queued: u64, on_tick: &mut impl FnMut(Tick<'_>)) {
        let now = Instant::now();
        let by_type = self.collector.outstanding();
        let outstanding = by_type.iter().sum();
        self.collector
            .collect(&mut self.interval, &mut self.total)
            .await;
        self.seconds.tick(
            self.window,
            self.last_tick,
            now,
            &self.interval,
            outstanding,
        );
        if self.window.overlaps(self.last_tick, now) {
            self.segments.add(&self.interval);
        }
        let types = self.interval.measured.len();
        // A fresh recorder for the next interval (its histograms start small
        // and grow to what is recorded); the receiver keeps these.
        let interval = std::mem::replace(&mut self.interval, Recorder::new(types));
        self.emit(now, interval, (&by_type, queued), on_tick);
    }

    /// Hand on an interval ending `now`, with what was outstanding (per
    /// type, and of it queued) then.
    fn emit(
        &mut self,
        now: Instant,
        interval: Recorder,
        (outstanding, queued): (&[u64], u64),
        on_tick: &mut impl FnMut(Tick<'_>),
    ) {
        let phase = if now < self.window.start {
            Phase::WarmUp
        } else if now <= self.window.end {
            Phase::Measure
        } else {
            Phase::Finishing
        };
        on_tick(Tick {
            elapsed: now - self.started,
            phase,
            interval,
            interval_length: now - self.last_tick,
            window_span: self.window.span(self.last_tick, now),
            window_start: self.window_start,
            total: &self.total,
            outstanding,
            queued,
        });
        self.last_tick = now;
    }

    /// The interval from the last tick to the cut, with the transactions given
    /// up at the cut counted in it, so the intervals add up to the totals
    /// exactly.
    async fn last_interval(
        &mut self,
        given_up: GivenUp,
        cut_at: Instant,
        on_tick: &mut impl FnMut(Tick<'_>),
    ) {
        let mut interval = std::mem::replace(&mut self.interval, Recorder::new(0));
        self.collector.collect_interval(&mut interval).await;
        // The window's last completions, when it ended between two ticks:
        // its last (part) second too, which a run that finished before the
        // next tick would otherwise leave out of the seconds.
        if self.window.overlaps(self.last_tick, cut_at) {
            self.segments.add(&interval);
        }
        self.seconds
            .tick(self.window, self.last_tick, cut_at, &interval, 0);
        if cut_at > self.window.start {
            given_up.record(&mut interval, self.window, cut_at);
        }
        self.total.merge(&interval);
        let empty = interval
            .measured
            .iter()
            .all(|t| t.latency.is_empty() && t.failed() == 0 && t.given_up() == 0)
            && interval.lateness.is_empty();
        if !empty {
            // After the cut nothing is outstanding: what was is given up.
            self.emit(Instant::now().max(cut_at), interval, (&[], 0), on_tick);
        }
    }
}

/// The transactions still unfinished when the run stopped waiting (all due
/// before the window's end).
struct GivenUp {
    /// Per type, how many were sent to the pool and not finished.
    outstanding: Vec<u64>,
    /// Of those, the ones found (queued, or executing) with their intended starts.
    found: Vec<InFlight>,
    /// Due and never sent (the sender was behind).
    unsent: Vec<InFlight>,
}

impl GivenUp {
    /// Count each in `interval` as unfinished, with the time it had waited by
    /// the cut as the lower bound of its latency. For the few a worker took
    /// from the queue in the instant of the cut, which are counted but not
    /// found, that is the time since the window's end, which none of them can
    /// have waited less than.
    fn record(&self, interval: &mut Recorder, window: Window, cut_at: Instant) {
        let types = interval.measured.len();
        let waited = |j: &InFlight| cut_at.saturating_duration_since(j.intended);
        let least = cut_at.saturating_duration_since(window.end.min(cut_at));
        for t in 0..types.min(self.outstanding.len()) {
            let mut found = self.found.iter().filter(|j| j.txn_type == t).map(waited);
            for _ in 0..self.outstanding[t] {
                let w = found.next().unwrap_or(least);
                interval.measured[t].record_given_up(w, false);
            }
        }
        for j in self.unsent.iter().filter(|j| j.txn_type < types) {
            interval.measured[j.txn_type].record_given_up(waited(j), false);
        }
    }
}

/// Recorders the workers of a pool of `sessions` share: four per core, at
/// least 8, never more than the sessions.
fn recorder_stripes(sessions: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (4 * cores).max(8).min(sessions).max(1)
}
