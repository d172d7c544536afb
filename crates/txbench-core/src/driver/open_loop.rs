//! Open-loop load: transactions start at the times an arrival process sets,
//! whatever the database does. Latency counts from those intended times, so a
//! slow database or a late client shows up in the numbers instead of hiding.
//!
//! At ordinary rates the dispatchers run on threads of their own and sleep
//! until each arrival ([`timer`]): a sleep and a wake-up per arrival instead
//! of a spinning core. Where the gaps are shorter than a wake-up costs they run
//! as tasks beside the sessions they feed and yield between arrivals
//! ([`Pacing`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::arrival_times::ArrivalTimes;
use super::budget::Budget;
use super::rate::RateSchedule;
use super::stripe::{InFlight, SharedStripe, lock};
use super::worker::{Job, Route, Window};
use super::{SenderReport, timer};
use crate::cpu;
use crate::recorder;
use crate::rng::Rand;
pub use crate::settings::{Arrival, Pacing};
use crate::workload::Terminal;

/// An open-loop load.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenLoop {
    /// Transactions per second offered, all types together, over the time
    /// since the start of measurement (the warm-up offers its first rate).
    pub rate: RateSchedule,
    /// The arrival process.
    pub arrival: Arrival,
    /// Largest number of transactions waiting in the client for a session; an
    /// arrival that finds the queue full is shed (and counted). `None`: unbounded.
    pub queue_limit: Option<usize>,
    /// Dispatcher threads, each sending an equal share of the rate (a Poisson
    /// process split at random is Poisson processes, and their sum the whole).
    pub dispatchers: usize,
    /// How the dispatchers wait for their arrivals.
    pub pacing: Pacing,
}

/// Arrivals per second per dispatcher from which [`Pacing::Auto`] spins: mean
/// gaps of 250 us and less, the longest margin a sleeping dispatcher spins
/// before a deadline ([`timer::Pacer`]). There it would spin through most of
/// its waits anyway, on a thread apart from the sessions, paying a hand-off
/// per arrival on top (on a two-core virtual machine at 10,000/s: lateness p99
/// of milliseconds, against about 150 us for the task beside the sessions).
pub const SPIN_FROM_RATE: f64 = 4_000.0;

impl OpenLoop {
    /// Whether the dispatchers run as tasks that spin rather than threads that sleep.
    pub fn spins(&self) -> bool {
        match self.pacing {
            Pacing::Sleep => false,
            Pacing::Spin => true,
            Pacing::Auto => self.rate.peak() / self.dispatchers.max(1) as f64 >= SPIN_FROM_RATE,
        }
    }
}

/// Send gaps kept for the arrival-process test (per dispatcher thread).
const GAP_SAMPLE: usize = 10_000;
/// The arrival test looks at the sends thinned at random to at most this rate.
/// A Poisson process thinned at random is a Poisson process, so the test keeps its
/// meaning, while the client's microsecond jitter becomes small against the
/// thinned gaps of a millisecond or so. Timer ticks and bursts, the faults the
/// test is for, are as visible as before.
pub const GAP_TEST_RATE: f64 = 1_000.0;
/// How often a dispatcher that is waiting for its next arrival looks whether
/// the run was cut.
const CUT_POLL: Duration = Duration::from_millis(10);
/// Random streams of dispatcher threads start here (terminals use 0..n).
const DISPATCH_STREAMS: u64 = 1 << 62;
/// A spinning dispatcher that is behind sends this many arrivals back to back
/// before it yields to the sessions.
const BURST: u32 = 64;
/// tokio's timer fires on millisecond ticks, rounded up, and can wake a tick
/// late: a task sleeps to this long before an arrival and yields the rest.
const TOKIO_SLACK: Duration = Duration::from_millis(2);

/// What the dispatchers saw (their lateness is in the recorder's intervals).
#[derive(Debug, Clone, Default)]
pub struct DispatchStats {
    /// Arrivals whose intended time fell in the measurement window.
    pub scheduled: u64,
    /// Of those, arrivals shed because the client queue was full.
    pub shed: u64,
    /// Gaps between actual sends in the window of each dispatcher, after
    /// thinning its sends at random to at most 1,000 per second
    /// (`GAP_TEST_RATE`), measured in arrivals due between them over the
    /// peak rate (seconds under a constant rate; under a schedule, gaps that
    /// a Poisson load makes exponential, `rate.rs`).
    pub send_gaps: Vec<f64>,
    /// The rate each dispatcher's sends were thinned to for `send_gaps` (at
    /// the schedule's peak).
    pub gap_test_rate: f64,
    /// Dispatcher threads.
    pub threads: usize,
    /// Arrivals sent over the whole run, warm-up included.
    pub sent: u64,
    /// CPU time of the dispatcher threads over the whole run (`None` when a
    /// dispatcher ran as a task, sharing its thread's CPU with the sessions).
    pub cpu: Option<Duration>,
}

impl DispatchStats {
    fn add(&mut self, other: DispatchStats) {
        self.scheduled += other.scheduled;
        self.shed += other.shed;
        self.send_gaps.extend(other.send_gaps);
        self.gap_test_rate = other.gap_test_rate;
        self.threads += other.threads;
        self.sent += other.sent;
    }

    /// Dispatcher CPU per arrival sent.
    pub fn cpu_per_arrival(&self) -> Option<Duration> {
        let cpu = self.cpu?;
        (self.sent > 0).then(|| cpu.div_f64(self.sent as f64))
    }
}

impl<T: Terminal> Dispatcher<T> {
    /// The most arrivals per second this dispatcher offers.
    fn peak_rate(&self) -> f64 {
        self.load.rate.peak() / self.share()
    }

    /// The dispatchers that share the load.
    fn share(&self) -> f64 {
        self.load.dispatchers.max(1) as f64
    }
}

/// What one dispatcher is given.
pub struct Dispatcher<T: Terminal> {
    /// Its terminals with their indexes in the run (arrivals take inputs from
    /// one of them chosen at random, so their homes keep the workload's
    /// distribution).
    pub terminals: Vec<(usize, T)>,
    /// Where the jobs go.
    pub route: Route<T::Input>,
    /// The load; this thread offers `rate / dispatchers` of it.
    pub load: OpenLoop,
    /// Its number, 0..dispatchers.
    pub index: usize,
    /// The run's seed.
    pub seed: u64,
    /// When the first arrival's gap starts counting.
    pub start: Instant,
    /// The measurement window.
    pub window: Window,
    /// The transactions the window may still send (all dispatchers share it).
    pub(super) budget: std::sync::Arc<Budget>,
    /// Where lateness and shed arrivals are recorded.
    pub stripe: SharedStripe,
    /// Transaction types of the workload.
    pub types: usize,
}

/// A dispatcher's schedule: draws each arrival (its intended time and input),
/// sends it, and keeps the counts. How it waits between arrivals is the
/// caller's: a thread of its own that sleeps ([`dispatch_on_thread`]), or a
/// task that yields to the sessions it feeds ([`dispatch_in_task`]).
struct Schedule<T: Terminal> {
    d: Dispatcher<T>,
    rng: Rand,
    /// Its own stream, so that the schedule does not depend on the thinning.
    thinning: Rand,
    keep: f64,
    /// When its arrivals are due.
    times: ArrivalTimes,
    /// Its sends' times in arrivals due (of the whole load) over the peak
    /// rate: the last one kept for the gap test.
    last_send: Option<f64>,
    stats: DispatchStats,
    report: SenderReport,
}

/// An arrival drawn and not yet sent.
struct Due<I> {
    intended: Instant,
    txn_type: usize,
    input: I,
    terminal: usize,
}

impl<T: Terminal> Schedule<T> {
    fn new(d: Dispatcher<T>) -> Self {
        let rate = d.peak_rate();
        let gap_test_rate = rate.min(GAP_TEST_RATE);
        let stream = DISPATCH_STREAMS + 2 * d.index as u64;
        let warmup = signed_secs(d.window.start, d.start);
        let times = ArrivalTimes::new(
            d.load.arrival,
            d.load.rate.clone(),
            d.load.dispatchers,
            warmup,
        );
        Schedule {
            rng: Rand::derive(d.seed, stream),
            thinning: Rand::derive(d.seed, stream + 1),
            keep: gap_test_rate / rate,
            times,
            last_send: None,
            stats: DispatchStats {
                gap_test_rate,
                threads: 1,
                send_gaps: Vec::with_capacity(GAP_SAMPLE),
                ..DispatchStats::default()
            },
            report: SenderReport::new(d.types),
            d,
        }
    }

    /// The next arrival, its input drawn before the wait so that it goes out
    /// the moment it is due; `None` once arrivals fall past the window or
    /// the transaction count is spent.
    fn next(&mut self) -> Option<Due<T::Input>> {
        if self.d.terminals.is_empty() {
            return None;
        }
        let intended = self.advance()?;
        if intended >= self.d.window.end
            || (self.d.window.contains(intended) && !self.d.budget.take())
        {
            return None;
        }
        let terminal = self.rng.uniform(0, self.d.terminals.len() as i64 - 1) as usize;
        let plan = self.d.terminals[terminal].1.next();
        Some(Due {
            intended,
            txn_type: plan.txn_type,
            input: plan.input,
            terminal,
        })
    }

    /// Draw the next arrival's time ([`ArrivalTimes`]); `None` when the
    /// schedule offers no more.
    fn advance(&mut self) -> Option<Instant> {
        let t = self.times.next(&mut self.rng)?;
        let origin = self.d.window.start;
        Some(if t >= 0.0 {
            origin + Duration::from_secs_f64(t)
        } else {
            origin
                .checked_sub(Duration::from_secs_f64(-t))
                .unwrap_or(origin)
        })
    }

    /// A send's time for the gap test: the arrivals due by it over the peak
    /// rate.
    fn gap_clock(&self, sent: Instant) -> f64 {
        let rate = &self.d.load.rate;
        rate.arrivals(signed_secs(sent, self.d.window.start)) / rate.peak()
    }

    /// Send an arrival now (however late): false when the queues are closed.
    fn send(&mut self, a: Due<T::Input>) -> bool {
        let sent = Instant::now();
        self.stats.sent += 1;
        let due_in_window = self.d.window.contains(a.intended);
        if due_in_window {
            self.report.scheduled[a.txn_type] += 1;
            if self.stats.send_gaps.len() < GAP_SAMPLE
                && (self.keep >= 1.0 || self.thinning.unit() < self.keep)
            {
                let clock = self.gap_clock(sent);
                if let Some(last) = self.last_send {
                    self.stats.send_gaps.push(clock - last);
                }
                self.last_send = Some(clock);
            }
        }
        let job = Job {
            input: a.input,
            txn_type: a.txn_type,
            intended: a.intended,
            done: None,
        };
        let late = sent.saturating_duration_since(a.intended);
        let (index, terminal) = &self.d.terminals[a.terminal];
        let outcome = self.d.route.sender(terminal.home(), *index).try_send(job);
        let mut stripe = lock(&self.d.stripe);
        if due_in_window {
            recorder::record(&mut stripe.recorder.lateness, late);
        }
        match outcome {
            Ok(()) => stripe.note_sent(a.txn_type),
            Err(async_channel::TrySendError::Full(_)) => {
                if self.d.window.contains(sent) {
                    self.stats.shed += 1;
                    stripe.recorder.measured[a.txn_type].record_given_up(late, true);
                }
            }
            Err(async_channel::TrySendError::Closed(_)) => return false,
        }
        true
    }

    /// After a cut: the arrivals due by now (and before the window's end) that
    /// were never sent, starting with `first`, drawn and not sent. They waited
    /// in a client that was behind, and count as unfinished.
    fn count_unsent(&mut self, first: Due<T::Input>) {
        let due_by = Instant::now().min(self.d.window.end);
        let (mut intended, mut txn_type) = (first.intended, first.txn_type);
        while intended < due_by {
            if self.d.window.contains(intended) {
                self.report.scheduled[txn_type] += 1;
            }
            self.report.unsent.push(InFlight { txn_type, intended });
            let Some(next) = self.advance() else { break };
            intended = next;
            let i = self.rng.uniform(0, self.d.terminals.len() as i64 - 1) as usize;
            txn_type = self.d.terminals[i].1.next().txn_type;
        }
    }

    fn finish(mut self, cpu: Option<Duration>) -> (DispatchStats, SenderReport) {
        self.stats.scheduled = self.report.scheduled.iter().sum();
        self.stats.cpu = cpu;
        (self.stats, self.report)
    }
}

/// Dispatch arrivals on this thread, sleeping until each is due ([`timer`]),
/// until the window ends or `cut` is set; keying and think times do not apply
/// in an open loop. A send that wakes late goes out at once and the next keeps
/// its own time: late sends are not bunched beyond what lateness forces.
pub fn dispatch_on_thread<T: Terminal>(
    d: Dispatcher<T>,
    cut: &AtomicBool,
) -> (DispatchStats, SenderReport) {
    timer::reduce_slack();
    let cpu_start = cpu::thread_cpu_time();
    let mut schedule = Schedule::new(d);
    let mut pacer = timer::Pacer::default();
    let stopped = || cut.load(Ordering::Relaxed);
    while let Some(arrival) = schedule.next() {
        if !pacer.wait_until(arrival.intended, CUT_POLL, stopped) {
            schedule.count_unsent(arrival);
            break;
        }
        if !schedule.send(arrival) {
            break;
        }
    }
    schedule.finish(Some(cpu::thread_cpu_time().saturating_sub(cpu_start)))
}

/// Dispatch arrivals as a task of the driver's runtime, next to the sessions
/// it feeds: it waits for each arrival by yielding to them (and sleeps on
/// tokio's timer only through gaps longer than its tick), so a job goes to a
/// session on the same thread without a wake-up. That spins a core at any
/// rate, so it is for rates whose gaps are shorter than a wake-up costs
/// ([`Pacing`]). Its CPU is not told apart from the sessions'.
pub async fn dispatch_in_task<T: Terminal>(
    d: Dispatcher<T>,
    cut: &AtomicBool,
) -> (DispatchStats, SenderReport) {
    let mut schedule = Schedule::new(d);
    let mut burst = 0u32;
    while let Some(arrival) = schedule.next() {
        if !yield_until(arrival.intended, cut, &mut burst).await {
            schedule.count_unsent(arrival);
            break;
        }
        if !schedule.send(arrival) {
            break;
        }
    }
    schedule.finish(None)
}

/// Wait in a task until `due`: sleep to two tokio ticks before it (in steps of
/// [`CUT_POLL`], looking at `cut`), then yield until it is due. Arrivals
/// already due go out back to back, yielding once every [`BURST`] so that the
/// sessions are not starved. False when the run was cut.
async fn yield_until(due: Instant, cut: &AtomicBool, burst: &mut u32) -> bool {
    if due <= Instant::now() {
        *burst += 1;
        if *burst >= BURST {
            *burst = 0;
            tokio::task::yield_now().await;
        }
        return !cut.load(Ordering::Relaxed);
    }
    *burst = 0;
    loop {
        if cut.load(Ordering::Relaxed) {
            return false;
        }
        let now = Instant::now();
        if now >= due {
            return true;
        }
        let left = due - now;
        if left > TOKIO_SLACK {
            tokio::time::sleep((left - TOKIO_SLACK).min(CUT_POLL)).await;
        } else {
            tokio::task::yield_now().await;
        }
    }
}

/// Seconds from `origin` to `at`, negative when `at` is earlier.
fn signed_secs(at: Instant, origin: Instant) -> f64 {
    if at >= origin {
        (at - origin).as_secs_f64()
    } else {
        -(origin - at).as_secs_f64()
    }
}

/// Split the terminals over `threads` dispatcher threads (terminal i to
/// thread i mod threads), keeping each one's index in the run.
pub fn split<T: Terminal>(terminals: Vec<T>, threads: usize) -> Vec<Vec<(usize, T)>> {
    let threads = threads.max(1);
    let mut parts: Vec<Vec<(usize, T)>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, t) in terminals.into_iter().enumerate() {
        parts[i % threads].push((i, t));
    }
    parts
}

/// The stats of several dispatchers together (their CPU only when every one
/// had a thread of its own).
pub fn combine(parts: Vec<DispatchStats>) -> DispatchStats {
    let cpu = parts.iter().map(|p| p.cpu).sum();
    let mut all = DispatchStats::default();
    for p in parts {
        all.add(p);
    }
    DispatchStats { cpu, ..all }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_pacing_spins_where_each_dispatcher_gets_short_gaps() {
        let load = |rate, dispatchers, pacing| OpenLoop {
            rate: RateSchedule::constant(rate),
            arrival: Arrival::Poisson,
            queue_limit: None,
            dispatchers,
            pacing,
        };
        assert!(!load(1_000.0, 1, Pacing::Auto).spins());
        assert!(load(SPIN_FROM_RATE, 1, Pacing::Auto).spins());
        assert!(load(10_000.0, 1, Pacing::Auto).spins());
        // Two dispatchers share 6,000/s: 3,000/s each, below the line.
        assert!(!load(6_000.0, 2, Pacing::Auto).spins());
        assert!(load(200.0, 1, Pacing::Spin).spins());
        assert!(!load(1e6, 1, Pacing::Sleep).spins());
    }
}
