//! The driver owns time: terminals, the session pool, warm-up, the measurement
//! window and a graceful stop. It knows no SQL.

mod closed_loop;
pub mod open_loop;
pub mod phases;
pub mod pool;
pub mod sizing;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

pub use closed_loop::{SchedulerStats, WaitMode};
pub use open_loop::{Arrival, DispatchStats, OpenLoop};
use pool::{Job, RetryPolicy, Route, Window, WorkerContext, spawn_worker};

use crate::cpu;
use crate::engine::Engine;
use crate::error::DbError;
use crate::exec;
use crate::recorder::Recorder;
use crate::rng::Rand;
use crate::sample::Sample;
use crate::workload::Workload;

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
}

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
    /// Stopped (Ctrl-C) while waiting for the start time; nothing was measured.
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
            RunError::StoppedBeforeStart => f.write_str("stopped before the start time"),
        }
    }
}

impl std::error::Error for RunError {}

/// One second of a run, for the progress line and the interval files.
#[derive(Debug)]
pub struct Tick<'a> {
    /// Time since the run started.
    pub elapsed: Duration,
    /// Whether the run is still warming up.
    pub warming_up: bool,
    /// The numbers of the last interval (the receiver may keep them).
    pub interval: Recorder,
    /// The length of the last interval.
    pub interval_length: Duration,
    /// The part of the measurement window the interval covers, as offsets from
    /// the window's start (empty during warm-up).
    pub window_span: (Duration, Duration),
    /// When the measurement window starts (or started), by the wall clock.
    pub window_start: SystemTime,
    /// The measured numbers so far.
    pub total: &'a Recorder,
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
    /// The measured numbers, all workers merged.
    pub total: Recorder,
    /// When the measurement window started, by the wall clock.
    pub window_start: SystemTime,
    /// The measurement interval actually covered (shorter when the run was stopped early).
    pub measured: Duration,
    /// Whether the run was stopped before its planned end.
    pub interrupted: bool,
    /// Wall time of the whole run, warm-up included.
    pub wall: Duration,
    /// CPU used by the process over the whole run.
    pub cpu: CpuUsage,
    /// What the open-loop dispatcher saw (`None` for closed-loop runs).
    pub dispatch: Option<DispatchStats>,
    /// What the closed-loop scheduler saw (`None` for open-loop runs).
    pub scheduler: Option<SchedulerStats>,
    /// A uniform sample of measured latencies, sorted by intended start.
    pub samples: Vec<Sample>,
    /// Mean queueing time (intended start to start of execution, all types) of
    /// each second of the measurement window: (seconds since its start, ms).
    pub queue_ms: Vec<(f64, f64)>,
}

/// Latencies kept per run for the statistics (split over the sessions).
const SAMPLES_PER_RUN: usize = 200_000;

/// Connect the sessions, run the terminals for warm-up plus duration, and return
/// what was measured. `stop` ends the run early (Ctrl-C); `on_tick` is called once
/// a second with the last interval.
pub async fn run<E: Engine, W: Workload>(
    engine: &Arc<E>,
    workload: &Arc<W>,
    opts: &RunOptions,
    stop: watch::Receiver<bool>,
    mut on_tick: impl FnMut(Tick<'_>),
) -> Result<Recording, RunError> {
    let types = workload.transaction_types().len();
    // With affinity, session i lives on node i mod nodes and takes work from that
    // node's queue only.
    let nodes = if opts.affinity {
        engine.nodes().max(1)
    } else {
        1
    };
    let mut sessions = Vec::with_capacity(opts.connections);
    for i in 0..opts.connections.max(nodes) {
        sessions.push(if nodes > 1 {
            engine.connect_node(i % nodes).await?
        } else {
            engine.connect().await?
        });
    }

    // With an agreed start, wait for it (the sessions are ready), and anchor the
    // run at it: a process a little late (within the tolerance) has a shorter
    // warm-up, not a later window.
    let (started, run_start_wall) = match opts.start_at {
        None => (Instant::now(), SystemTime::now()),
        Some(start) => {
            let now = SystemTime::now();
            if let Some(late) = start.too_late(now) {
                return Err(RunError::LateStart {
                    late,
                    tolerance: start.tolerance,
                });
            }
            if let Ok(wait) = start.at.duration_since(now) {
                let mut stop = stop.clone();
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = stop.wait_for(|s| *s) => return Err(RunError::StoppedBeforeStart),
                }
            }
            let (now, instant) = (SystemTime::now(), Instant::now());
            let late = now.duration_since(start.at).unwrap_or_default();
            (instant.checked_sub(late).unwrap_or(instant), start.at)
        }
    };
    let cpu_start = cpu::process_cpu_time();
    let window_start_wall = run_start_wall + opts.warmup;
    let window = Window {
        start: started + opts.warmup,
        end: started + opts.warmup + opts.duration,
    };
    // Closed loop: a bounded queue, terminals wait for a slot and never drop a
    // transaction. Open loop: the client queue, unbounded unless a limit sheds.
    let queue = || match opts.open {
        None => async_channel::bounded::<Job<W::Input>>(opts.terminals.max(1)),
        Some(OpenLoop {
            queue_limit: Some(limit),
            ..
        }) => async_channel::bounded(limit.max(1)),
        Some(OpenLoop {
            queue_limit: None, ..
        }) => async_channel::unbounded(),
    };
    let (job_txs, job_rxs): (Vec<_>, Vec<_>) = (0..nodes).map(|_| queue()).unzip();
    let route = Route { senders: job_txs };

    let placement = exec::placement::<E>(sessions.len());
    let sessions_count = sessions.len().max(1);
    // Workers share a few recorders rather than each having its own: a recorder
    // is some 15 histograms, and a pool of hundreds of sessions (100,000
    // terminals with spec waits) would otherwise hold gigabytes of them and
    // merge them all every second. A recorder's lock is held for one
    // transaction's recording, so a few per core keep contention negligible.
    let stripes = recorder_stripes(sessions_count);
    let mut collector = Collector {
        workers: (0..stripes)
            .map(|_| Arc::new(Mutex::new(Recorder::new(types))))
            .collect(),
        spares: (0..stripes).map(|_| Recorder::new(types)).collect(),
    };
    let mut workers = Vec::new();
    for (i, session) in sessions.into_iter().enumerate() {
        let ctx = WorkerContext {
            workload: Arc::clone(workload),
            jobs: job_rxs[i % nodes].clone(),
            recorder: Arc::clone(&collector.workers[i % stripes]),
            window,
            retry: opts.retry,
            seed: Rand::derive(opts.seed, u64::MAX - i as u64).uniform(0, i64::MAX) as u64,
            sample_capacity: SAMPLES_PER_RUN / sessions_count,
        };
        workers.push(spawn_worker::<E, W>(session, ctx, placement));
    }
    drop(job_rxs);
    let mut queue_ms = Vec::new();

    let sender = {
        let (workload, seed, wait, stop) =
            (Arc::clone(workload), opts.seed, opts.wait, stop.clone());
        let (open, terminals) = (opts.open, opts.terminals);
        tokio::spawn(async move {
            match open {
                Some(load) => {
                    let all = (0..terminals.max(1))
                        .map(|t| workload.terminal(t, seed))
                        .collect();
                    Senders::Open(
                        open_loop::run_dispatcher(all, route, load, seed, window, stop).await,
                    )
                }
                None => {
                    let all = (0..terminals).map(|t| workload.terminal(t, seed)).collect();
                    Senders::Closed(
                        closed_loop::run_terminals(
                            all,
                            route,
                            wait,
                            workload.transaction_types(),
                            seed,
                            window,
                            stop,
                        )
                        .await,
                    )
                }
            }
        })
    };
    tokio::pin!(sender);
    let mut senders: Option<Senders> = None;

    let mut total = Recorder::new(types);
    let mut interval = Recorder::new(types);
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticker.tick().await;
    let mut last_tick = Instant::now();
    let mut stop_rx = stop.clone();
    let mut interrupted = false;
    loop {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = stop_rx.changed() => { interrupted = true; }
            done = &mut sender, if senders.is_none() => {
                senders = Some(done.map_err(|e| RunError::Db(DbError::new(
                    crate::error::ErrorKind::Other,
                    format!("the transaction sender stopped: {e}"),
                )))?);
            }
        }
        let now = Instant::now();
        collector.collect(&mut interval, &mut total).await;
        if let Some(q) = mean_queue_ms(&interval)
            && now > window.start
        {
            queue_ms.push(((now.min(window.end) - window.start).as_secs_f64(), q));
        }
        on_tick(Tick {
            elapsed: now - started,
            warming_up: now < window.start,
            // A fresh recorder for the next interval: its histograms are zeroed
            // pages that cost nothing until used, and the receiver keeps these.
            interval: std::mem::replace(&mut interval, Recorder::new(types)),
            interval_length: now - last_tick,
            window_span: window.span(last_tick, now),
            window_start: window_start_wall,
            total: &total,
        });
        last_tick = now;
        // The senders see a stop too, and may end before the select sees it.
        interrupted |= *stop_rx.borrow();
        if interrupted || senders.is_some() || now >= window.end {
            break;
        }
    }
    let stopped_at = Instant::now();
    // On a stop the senders return at once; at the window's end the closed-loop
    // scheduler waits for its terminals' last transactions.
    let senders = match senders {
        Some(s) => s,
        None => (&mut sender).await.map_err(|e| {
            RunError::Db(DbError::new(
                crate::error::ErrorKind::Other,
                format!("the transaction sender stopped: {e}"),
            ))
        })?,
    };
    let (dispatch, scheduler) = match senders {
        Senders::Open(d) => (Some(d), None),
        Senders::Closed(s) => (None, Some(s)),
    };
    let mut engine_cpu = Duration::ZERO;
    let mut samples = Vec::new();
    for w in workers {
        if let Some(exit) = w.join().await {
            engine_cpu += exit.thread_cpu.unwrap_or(exit.busy);
            samples.extend(exit.samples.into_items());
        }
    }
    samples.sort_unstable_by_key(|s| s.intended_us);
    // Transactions that were in flight at the last tick: one more (short) interval,
    // so the intervals add up to the totals exactly.
    collector.collect(&mut interval, &mut total).await;
    if !interval
        .measured
        .iter()
        .all(|t| t.latency.is_empty() && t.failed() == 0)
    {
        let now = Instant::now();
        on_tick(Tick {
            elapsed: now - started,
            warming_up: false,
            interval,
            interval_length: now - last_tick,
            window_span: window.span(last_tick, now),
            window_start: window_start_wall,
            total: &total,
        });
    }

    let measured_end = stopped_at.min(window.end);
    Ok(Recording {
        window_start: window_start_wall,
        total,
        measured: measured_end.saturating_duration_since(window.start),
        interrupted,
        wall: stopped_at - started,
        cpu: CpuUsage {
            process: cpu::process_cpu_time().saturating_sub(cpu_start),
            engine_threads: E::BLOCKING.then_some(engine_cpu),
        },
        dispatch,
        scheduler,
        samples,
        queue_ms,
    })
}

/// What the task that sends transactions saw.
enum Senders {
    /// The open-loop dispatcher.
    Open(DispatchStats),
    /// The closed-loop terminals' scheduler.
    Closed(SchedulerStats),
}

/// Recorders the workers of a pool of `sessions` share: four per core, at
/// least 8, never more than the sessions.
fn recorder_stripes(sessions: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (4 * cores).max(8).min(sessions).max(1)
}

/// The recorders the collector reads: the workers' shared ones, and an empty
/// spare per recorder to swap in, so a lock is held for a swap only.
struct Collector {
    workers: Vec<Arc<Mutex<Recorder>>>,
    spares: Vec<Recorder>,
}

impl Collector {
    /// Move every worker's numbers into `interval` (emptied first) and add them to
    /// `total`. A full interval's histograms take milliseconds to add, so the merge
    /// yields after each transaction type: an open-loop dispatcher on the same
    /// thread would otherwise fall that far behind its schedule once a second.
    async fn collect(&mut self, interval: &mut Recorder, total: &mut Recorder) {
        interval.reset();
        for (worker, spare) in self.workers.iter().zip(&mut self.spares) {
            std::mem::swap(&mut *worker.lock().expect("recorder lock"), spare);
            merge_yielding(interval, spare).await;
            spare.reset();
        }
        merge_yielding(total, interval).await;
    }
}

/// Mean queueing time of an interval's measured transactions, all types (ms).
fn mean_queue_ms(interval: &Recorder) -> Option<f64> {
    let (sum, n) = interval.measured.iter().fold((0.0, 0u64), |(sum, n), t| {
        (
            sum + t.queue.mean() * t.queue.len() as f64,
            n + t.queue.len(),
        )
    });
    (n > 0).then(|| sum / n as f64 / 1000.0)
}

async fn merge_yielding(into: &mut Recorder, from: &Recorder) {
    for (a, b) in into.measured.iter_mut().zip(&from.measured) {
        a.merge(b);
        tokio::task::yield_now().await;
    }
    into.merge_untyped(from);
}
