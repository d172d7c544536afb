//! Open-loop load: transactions start at the times an arrival process sets,
//! whatever the database does. Latency counts from those intended times, so a
//! slow database or a late client shows up in the numbers instead of hiding.

use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use tokio::sync::watch;
use tokio::time::sleep_until;

use super::pool::{Job, Route, Window};
use crate::recorder::new_histogram;
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
}

/// Send gaps kept for the arrival-process test.
const GAP_SAMPLE: usize = 10_000;
/// The arrival test looks at the sends thinned at random to at most this rate.
/// A Poisson process thinned at random is a Poisson process, so the test keeps its
/// meaning, while the client's microsecond jitter (a dispatcher that shares its
/// thread cannot send each arrival at its exact microsecond) becomes small against
/// the thinned gaps of a millisecond or so. Timer ticks and bursts, the faults the
/// test is for, are as visible as before.
pub const GAP_TEST_RATE: f64 = 1_000.0;
/// How much earlier than an arrival the dispatcher asks tokio's timer to wake it.
const TIMER_SLACK: Duration = Duration::from_micros(3000);
/// Arrivals dispatched in a burst before the dispatcher lets other tasks run.
const BURST: u32 = 64;

/// What the dispatcher saw.
#[derive(Debug, Clone)]
pub struct DispatchStats {
    /// Arrivals whose intended time fell in the measurement window.
    pub scheduled: u64,
    /// Of those, arrivals shed because the client queue was full.
    pub shed: u64,
    /// How late the dispatcher sent each arrival of the window (µs).
    pub lateness: Histogram<u64>,
    /// The first gaps (seconds) between actual sends in the window, after thinning
    /// the sends at random to at most [`GAP_TEST_RATE`] per second.
    pub send_gaps: Vec<f64>,
    /// The rate the sends were thinned to for `send_gaps`.
    pub gap_test_rate: f64,
}

fn gap(arrival: Arrival, mean: f64, rng: &mut Rand) -> f64 {
    match arrival {
        Arrival::Poisson => rng.exponential(mean),
        Arrival::Uniform => rng.unit() * 2.0 * mean,
        Arrival::Fixed => mean,
    }
}

/// Dispatch arrivals until the window ends or `stop` turns true. Each arrival
/// takes its input from a terminal chosen at random (their home warehouses and
/// districts keep the workload's distribution); keying and think times do not
/// apply in an open loop.
pub async fn run_dispatcher<T: Terminal>(
    mut terminals: Vec<T>,
    route: Route<T::Input>,
    load: OpenLoop,
    seed: u64,
    window: Window,
    mut stop: watch::Receiver<bool>,
) -> DispatchStats {
    let mut stats = DispatchStats {
        scheduled: 0,
        shed: 0,
        lateness: new_histogram(),
        send_gaps: Vec::with_capacity(GAP_SAMPLE),
        gap_test_rate: load.rate.min(GAP_TEST_RATE),
    };
    if terminals.is_empty() || load.rate <= 0.0 {
        return stats;
    }
    let mut rng = Rand::derive(seed, u64::MAX - 2);
    // Its own stream, so that the schedule does not depend on the thinning.
    let mut thinning = Rand::derive(seed, u64::MAX - 3);
    let keep = stats.gap_test_rate / load.rate;
    let mean = 1.0 / load.rate;
    let mut intended = Instant::now();
    let mut last_send: Option<Instant> = None;
    let mut burst = 0u32;
    loop {
        intended += Duration::from_secs_f64(gap(load.arrival, mean, &mut rng));
        if intended >= window.end || *stop.borrow() {
            return stats;
        }
        if intended > Instant::now() {
            burst = 0;
            // tokio's timer fires on millisecond ticks, up to a tick late: sleep to
            // a tick before the arrival, then yield until it is due. Without this,
            // an arrival that finds the database idle would start up to 1 ms late.
            if let Some(early) = intended.checked_sub(TIMER_SLACK)
                && early > Instant::now()
            {
                tokio::select! {
                    _ = sleep_until(early.into()) => {}
                    _ = stop.changed() => return stats,
                }
            }
            while Instant::now() < intended {
                tokio::task::yield_now().await;
            }
        } else {
            burst += 1;
            if burst >= BURST {
                burst = 0;
                tokio::task::yield_now().await;
            }
        }
        let sent = Instant::now();
        let measured = window.contains(intended);
        if measured {
            stats.scheduled += 1;
            stats
                .lateness
                .saturating_record(sent.saturating_duration_since(intended).as_micros() as u64);
            if stats.send_gaps.len() < GAP_SAMPLE && (keep >= 1.0 || thinning.unit() < keep) {
                if let Some(last) = last_send {
                    stats.send_gaps.push((sent - last).as_secs_f64());
                }
                last_send = Some(sent);
            }
        }
        let i = rng.uniform(0, terminals.len() as i64 - 1) as usize;
        let plan = terminals[i].next();
        let job = Job {
            input: plan.input,
            txn_type: plan.txn_type,
            intended,
            done: None,
        };
        match route.sender(terminals[i].home(), i).try_send(job) {
            Ok(()) => {}
            Err(async_channel::TrySendError::Full(_)) => {
                if measured {
                    stats.shed += 1;
                }
            }
            Err(async_channel::TrySendError::Closed(_)) => return stats,
        }
    }
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
