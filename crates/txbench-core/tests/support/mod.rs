#![allow(dead_code)] // each test binary uses a part of it
//! What the driver tests share: a session that does nothing, engines of it
//! (blocking or not), and a one-type workload whose service time the test
//! sets, so the truth it is measured against is known.

use std::future::{Future, ready};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use txbench_core::driver::RetryPolicy;
use txbench_core::driver::{
    self, Arrival, OpenLoop, Pacing, RateSchedule, Recording, RunOptions, WaitMode,
};

use txbench_core::schema::Statement;
use txbench_core::{
    DbError, Engine, NoLoader, Outcome, Param, RepeatTerminal, Rows, Session, TxMode, TxnTypeInfo,
    Workload, Written,
};

/// A session that does nothing; the workload spends the service time.
pub struct Idle;

impl Session for Idle {
    // The driver loads nothing: a session of its tests has no loader.
    type Loader = NoLoader;
    type Whole = txbench_core::NoWholeTransactions;

    fn loader(&mut self) -> Option<&mut NoLoader> {
        None
    }
    fn begin(&mut self, _: TxMode) -> impl Future<Output = Result<(), DbError>> + Send {
        ready(Ok(()))
    }
    fn commit(&mut self) -> impl Future<Output = Result<(), DbError>> + Send {
        ready(Ok(()))
    }
    fn rollback(&mut self) -> impl Future<Output = Result<(), DbError>> + Send {
        ready(Ok(()))
    }
    fn query(
        &mut self,
        _: &'static Statement,
        _: &[Param<'_>],
    ) -> impl Future<Output = Result<Rows, DbError>> + Send {
        ready(Ok(Rows::empty()))
    }
    fn execute(
        &mut self,
        _: &'static Statement,
        _: &[Param<'_>],
    ) -> impl Future<Output = Result<u64, DbError>> + Send {
        ready(Ok(0))
    }
    fn query_sql(&mut self, _: &str) -> impl Future<Output = Result<Rows, DbError>> + Send {
        ready(Ok(Rows::empty()))
    }
}

/// A blocking engine. On the test's single-threaded runtime its one session runs
/// on the dispatcher's thread: no cross-thread wake-up (which a VM can delay by
/// most of a millisecond) sits between an arrival and its service.
pub struct Synthetic;

impl Engine for Synthetic {
    type Session = Idle;
    const BLOCKING: bool = true;
    fn name(&self) -> &'static str {
        "synthetic"
    }
    fn describe(&self) -> String {
        "synthetic".into()
    }
    fn connect(&self) -> impl Future<Output = Result<Idle, DbError>> + Send {
        ready(Ok(Idle))
    }
}

/// An asynchronous engine of idle sessions: its sessions are tokio tasks, so a
/// workload that awaits a timer in them stalls one session, not a thread.
pub struct AsyncIdle;

impl Engine for AsyncIdle {
    type Session = Idle;
    const BLOCKING: bool = false;
    fn name(&self) -> &'static str {
        "async-idle"
    }
    fn describe(&self) -> String {
        "async-idle".into()
    }
    fn connect(&self) -> impl Future<Output = Result<Idle, DbError>> + Send {
        ready(Ok(Idle))
    }
}

/// How a [`Service`] transaction spends its time.
#[derive(Debug, Clone, Copy)]
pub enum Serve {
    /// Not at all.
    Nothing,
    /// Exactly this long, spinning: a timer's wake-up would add its own delay.
    Spin(Duration),
    /// This long asleep on tokio's timer, except that one starting in the
    /// stall `(from, to)` answers only at its end.
    Sleep {
        /// The service time.
        service: Duration,
        /// When the server answers nothing.
        stall: (Instant, Instant),
    },
}

/// A workload of one transaction type served as [`Serve`] says.
pub struct Service {
    /// The one type.
    pub types: &'static [TxnTypeInfo],
    /// How each transaction spends its time.
    pub serve: Serve,
    /// When each transaction started, by the wall clock, where the test looks.
    pub starts: Option<Arc<Mutex<Vec<SystemTime>>>>,
}

impl Workload for Service {
    type Input = ();
    type Terminal = RepeatTerminal<()>;
    fn name(&self) -> &'static str {
        "service"
    }
    fn transaction_types(&self) -> &'static [TxnTypeInfo] {
        self.types
    }
    fn default_terminals(&self) -> usize {
        1
    }
    fn terminal(&self, _: usize, _: u64) -> RepeatTerminal<()> {
        RepeatTerminal(())
    }
    async fn execute<S: Session>(
        &self,
        _: &mut S,
        _: &(),
        _: &mut Written,
    ) -> Result<Outcome, DbError> {
        if let Some(starts) = &self.starts {
            starts.lock().unwrap().push(SystemTime::now());
        }
        match self.serve {
            Serve::Nothing => {}
            Serve::Spin(d) => {
                let until = Instant::now() + d;
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
            }
            Serve::Sleep { service, stall } => {
                let now = Instant::now();
                let until = if now >= stall.0 && now < stall.1 {
                    stall.1
                } else {
                    now + service
                };
                tokio::time::sleep_until(until.into()).await;
            }
        }
        Ok(Outcome::Committed)
    }
}

/// Options of a driver test: one terminal back to back on one session, no
/// warm-up, seed 1; Poisson arrivals at `rate` (one dispatcher) when given.
/// Tests change the rest with struct update syntax.
pub fn options(duration: Duration, grace: Duration, rate: Option<f64>) -> RunOptions {
    RunOptions {
        duration,
        transactions: None,
        warmup: Duration::ZERO,
        terminals: 1,
        connections: 1,
        wait: WaitMode::None,
        seed: 1,
        retry: RetryPolicy::default(),
        affinity: false,
        start_at: None,
        grace,
        acks: None,
        schedule: Vec::new(),
        open: rate.map(|rate| OpenLoop {
            rate: RateSchedule::constant(rate),
            arrival: Arrival::Poisson,
            queue_limit: None,
            dispatchers: 1,
            pacing: Pacing::Auto,
        }),
    }
}

/// Run `types` served as `serve` on `engine` with `opts`, never stopped.
pub async fn run<E: Engine>(
    engine: E,
    types: &'static [TxnTypeInfo],
    serve: Serve,
    opts: &RunOptions,
) -> Recording {
    run_service(
        engine,
        Service {
            types,
            serve,
            starts: None,
        },
        opts,
    )
    .await
}

async fn run_service<E: Engine>(engine: E, workload: Service, opts: &RunOptions) -> Recording {
    let (_tx, stop) = tokio::sync::watch::channel(false);
    driver::run(&Arc::new(engine), &Arc::new(workload), opts, stop, |_| {})
        .await
        .unwrap()
}

/// Run `types`, which do nothing, on `engine` with `opts` (an open loop of
/// fixed gaps, no warm-up); each transaction's start in seconds from the
/// window's start, in order.
pub async fn run_timing_starts<E: Engine>(
    engine: E,
    types: &'static [TxnTypeInfo],
    opts: &RunOptions,
) -> (Recording, Vec<f64>) {
    let starts = Arc::new(Mutex::new(Vec::new()));
    let workload = Service {
        types,
        serve: Serve::Nothing,
        starts: Some(starts.clone()),
    };
    let rec = run_service(engine, workload, opts).await;
    let mut secs: Vec<f64> = starts
        .lock()
        .unwrap()
        .iter()
        .map(|t| match t.duration_since(rec.window_start) {
            Ok(after) => after.as_secs_f64(),
            Err(before) => -before.duration().as_secs_f64(),
        })
        .collect();
    secs.sort_by(f64::total_cmp);
    (rec, secs)
}

/// The transactions due in the window that ended with a latency: in the
/// window, or in the grace after it. The window's seconds (and `completed`)
/// count only the first: a loaded machine ends its last arrivals late, and
/// those count as unfinished with their latency known. One given up at the
/// cut has no latency, only a lower bound of it.
pub fn ended(rec: &Recording) -> u64 {
    rec.total.measured.iter().map(|t| t.latency.len()).sum()
}

/// Whether any transaction started before it was due: with fixed gaps and no
/// warm-up the k-th arrival is due when the schedule has k arrivals due, and
/// the k-th start (in order) can be no earlier, however loaded the machine.
/// Allows 1 ms for the window's start read off two clocks.
pub fn assert_never_ahead(rate: &RateSchedule, starts: &[f64]) {
    for (k, start) in starts.iter().enumerate() {
        let due = rate.time_of((k + 1) as f64);
        assert!(
            *start >= due - 1e-3,
            "start {} at {start:.6} s, due at {due:.6} s",
            k + 1
        );
    }
}
