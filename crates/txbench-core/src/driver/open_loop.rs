//! Open-loop load: transactions start at the times an arrival process sets,
//! whatever the database does. Latency counts from those intended times, so a
//! slow database or a late client shows up in the numbers instead of hiding.
//!
//! The dispatchers run on threads of their own and sleep until each arrival
//! ([`timer`]): they cost a sleep and a wake-up per arrival instead of a
//! spinning core, and share no thread with the sessions they feed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::pool::{Job, Route, Window};
use super::stripe::{InFlight, SharedStripe, lock};
use super::{SenderReport, micros, timer};
use crate::cpu;
use crate::rng::Rand;
use crate::workload::Terminal;

/// How arrivals are spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    /// Exponential gaps: a Poisson process.
    Poisson,
    /// Gaps uniform in [0, 2 / rate].
    Uniform,
    /// Every gap exactly 1 / rate.
    Fixed,
}

/// An open-loop load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpenLoop {
    /// Transactions per second offered, all types together.
    pub rate: f64,
    /// The arrival process.
    pub arrival: Arrival,
    /// Largest number of transactions waiting in the client for a session; an
    /// arrival that finds the queue full is shed (and counted). `None`: unbounded.
    pub queue_limit: Option<usize>,
    /// Dispatcher threads, each sending an equal share of the rate (a Poisson
    /// process split at random is Poisson processes, and their sum the whole).
    pub dispatchers: usize,
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

/// What the dispatchers saw (their lateness is in the recorder's intervals).
#[derive(Debug, Clone, Default)]
pub struct DispatchStats {
    /// Arrivals whose intended time fell in the measurement window.
    pub scheduled: u64,
    /// Of those, arrivals shed because the client queue was full.
    pub shed: u64,
    /// Gaps (seconds) between actual sends in the window of each dispatcher,
    /// after thinning its sends at random to at most [`GAP_TEST_RATE`] per second.
    pub send_gaps: Vec<f64>,
    /// The rate each dispatcher's sends were thinned to for `send_gaps`.
    pub gap_test_rate: f64,
    /// Dispatcher threads.
    pub threads: usize,
    /// Arrivals sent over the whole run, warm-up included.
    pub sent: u64,
    /// CPU time of the dispatcher threads over the whole run.
    pub cpu: Duration,
}

impl DispatchStats {
    fn add(&mut self, other: DispatchStats) {
        self.scheduled += other.scheduled;
        self.shed += other.shed;
        self.send_gaps.extend(other.send_gaps);
        self.gap_test_rate = other.gap_test_rate;
        self.threads += other.threads;
        self.sent += other.sent;
        self.cpu += other.cpu;
    }

    /// Dispatcher CPU per arrival sent.
    pub fn cpu_per_arrival(&self) -> Option<Duration> {
        (self.sent > 0).then(|| self.cpu / self.sent as u32)
    }
}

fn gap(arrival: Arrival, mean: f64, rng: &mut Rand) -> f64 {
    match arrival {
        Arrival::Poisson => rng.exponential(mean),
        Arrival::Uniform => rng.unit() * 2.0 * mean,
        Arrival::Fixed => mean,
    }
}

/// What one dispatcher thread is given.
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
    /// Where lateness and shed arrivals are recorded.
    pub stripe: SharedStripe,
    /// Transaction types of the workload.
    pub types: usize,
}

/// Dispatch arrivals on this thread until the window ends or `cut` is set;
/// keying and think times do not apply in an open loop. Each arrival's input
/// is drawn before the dispatcher sleeps until it is due, so that it goes out
/// the moment it wakes. A send that wakes late goes out at once and the next
/// keeps its own time: late sends are not bunched beyond what lateness forces.
pub fn dispatch<T: Terminal>(
    mut d: Dispatcher<T>,
    cut: &AtomicBool,
) -> (DispatchStats, SenderReport) {
    timer::reduce_slack();
    let cpu_start = cpu::thread_cpu_time();
    let rate = d.load.rate / d.load.dispatchers.max(1) as f64;
    let gap_test_rate = rate.min(GAP_TEST_RATE);
    let mut stats = DispatchStats {
        gap_test_rate,
        threads: 1,
        send_gaps: Vec::with_capacity(GAP_SAMPLE),
        ..DispatchStats::default()
    };
    let mut report = SenderReport::new(d.types);
    if d.terminals.is_empty() || rate <= 0.0 {
        return (stats, report);
    }
    let stream = DISPATCH_STREAMS + 2 * d.index as u64;
    let mut rng = Rand::derive(d.seed, stream);
    // Its own stream, so that the schedule does not depend on the thinning.
    let mut thinning = Rand::derive(d.seed, stream + 1);
    let keep = gap_test_rate / rate;
    let mean = 1.0 / rate;
    let mut intended = d.start;
    let mut last_send: Option<Instant> = None;
    let stopped = || cut.load(Ordering::Relaxed);
    let mut pacer = timer::Pacer::default();
    loop {
        intended += Duration::from_secs_f64(gap(d.load.arrival, mean, &mut rng));
        if intended >= d.window.end {
            break;
        }
        let i = rng.uniform(0, d.terminals.len() as i64 - 1) as usize;
        let (index, terminal) = &mut d.terminals[i];
        let plan = terminal.next();
        if !pacer.wait_until(intended, CUT_POLL, stopped) {
            // Cut. An arrival already due was never sent: it waited in a
            // client that was behind, and counts as unfinished.
            count_unsent(&mut d, &mut report, &mut rng, intended, plan.txn_type, mean);
            break;
        }
        let sent = Instant::now();
        stats.sent += 1;
        let due_in_window = d.window.contains(intended);
        if due_in_window {
            report.scheduled[plan.txn_type] += 1;
            if stats.send_gaps.len() < GAP_SAMPLE && (keep >= 1.0 || thinning.unit() < keep) {
                if let Some(last) = last_send {
                    stats.send_gaps.push((sent - last).as_secs_f64());
                }
                last_send = Some(sent);
            }
        }
        let txn_type = plan.txn_type;
        let job = Job {
            input: plan.input,
            txn_type,
            intended,
            done: None,
        };
        let late = sent.saturating_duration_since(intended);
        let outcome = d.route.sender(terminal.home(), *index).try_send(job);
        let mut stripe = lock(&d.stripe);
        if due_in_window {
            stripe.recorder.lateness.saturating_record(micros(late));
        }
        match outcome {
            Ok(()) => stripe.note_sent(txn_type),
            Err(async_channel::TrySendError::Full(_)) => {
                if d.window.contains(sent) {
                    stats.shed += 1;
                    stripe.recorder.measured[txn_type].record_given_up(late, true);
                }
            }
            Err(async_channel::TrySendError::Closed(_)) => break,
        }
    }
    stats.scheduled = report.scheduled.iter().sum();
    stats.cpu = cpu::thread_cpu_time().saturating_sub(cpu_start);
    (stats, report)
}

/// After a cut: the arrivals due by now (and before the window's end) that
/// were never sent, starting with the one drawn (of type `first_type`, due at
/// `intended`).
fn count_unsent<T: Terminal>(
    d: &mut Dispatcher<T>,
    report: &mut SenderReport,
    rng: &mut Rand,
    mut intended: Instant,
    first_type: usize,
    mean: f64,
) {
    let due_by = Instant::now().min(d.window.end);
    let mut txn_type = first_type;
    while intended < due_by {
        if d.window.contains(intended) {
            report.scheduled[txn_type] += 1;
        }
        report.unsent.push(InFlight { txn_type, intended });
        intended += Duration::from_secs_f64(gap(d.load.arrival, mean, rng));
        let i = rng.uniform(0, d.terminals.len() as i64 - 1) as usize;
        txn_type = d.terminals[i].1.next().txn_type;
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

/// The stats of several dispatcher threads together.
pub fn combine(parts: Vec<DispatchStats>) -> DispatchStats {
    let mut all = DispatchStats::default();
    for p in parts {
        all.add(p);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_have_the_mean_of_the_rate() {
        let mut rng = Rand::new(3);
        for arrival in [Arrival::Poisson, Arrival::Uniform, Arrival::Fixed] {
            let n = 100_000;
            let mean = (0..n).map(|_| gap(arrival, 0.002, &mut rng)).sum::<f64>() / n as f64;
            assert!((mean - 0.002).abs() < 0.00005, "{arrival:?}: {mean}");
        }
    }
}
