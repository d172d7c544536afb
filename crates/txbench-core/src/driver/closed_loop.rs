//! Closed-loop terminals: each submits a transaction, waits for it, thinks, and
//! submits the next.
//!
//! Terminals are plain state in one scheduler task, not tasks or threads of
//! their own: a terminal is its input generator, its next planned transaction
//! and its pending think time, and the scheduler keeps one timer queue (a binary
//! heap of due times) over all of them. It sends each transaction to the session
//! pool when its keying time is over, and the pool tells it (terminal number and
//! finish time, on one channel shared by all) when the transaction is done; the
//! terminal then thinks and keys its next transaction. So 100,000 terminals cost
//! a few hundred bytes each and no allocation per transaction beyond its input.
//!
//! The intended start of a transaction is the end of its keying time; the
//! response time counts from there, so a late scheduler or a wait for a free
//! session is included in the latency. How late the scheduler sent each
//! transaction is measured and reported.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use tokio::sync::{mpsc, watch};
use tokio::time::sleep_until;

use super::pool::{Done, Job, Route, Window};
use crate::recorder::new_histogram;
use crate::rng::Rand;
use crate::workload::{Planned, Terminal};

/// Whether terminals apply the specification's keying and think times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WaitMode {
    /// Back to back: the next transaction as soon as the last one is done.
    None,
    /// Keying time before and think time after each transaction, as specified.
    Spec,
}

/// What the scheduler saw.
#[derive(Debug, Clone)]
pub struct SchedulerStats {
    /// Terminals driven.
    pub terminals: usize,
    /// Transactions sent whose intended start fell in the measurement window.
    pub scheduled: u64,
    /// How late the scheduler sent each of them after its intended start (µs).
    pub lateness: Histogram<u64>,
}

/// One terminal: its generator, the transaction it will send next, and the
/// think time that follows the one in flight.
struct Slot<T: Terminal> {
    terminal: T,
    next: Option<Planned<T::Input>>,
    think: Duration,
}

/// Drive `terminals` until the window ends (no transaction starts after it) or
/// `stop` turns true; in-flight transactions are left to the pool.
pub async fn run_terminals<T: Terminal>(
    terminals: Vec<T>,
    route: Route<T::Input>,
    wait: WaitMode,
    seed: u64,
    window: Window,
    mut stop: watch::Receiver<bool>,
) -> SchedulerStats {
    let n = terminals.len();
    let mut stats = SchedulerStats {
        terminals: n,
        scheduled: 0,
        lateness: new_histogram(),
    };
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(u32, Instant)>();
    let mut slots: Vec<Slot<T>> = terminals
        .into_iter()
        .map(|terminal| Slot {
            terminal,
            next: None,
            think: Duration::ZERO,
        })
        .collect();
    // Due times of terminals whose next transaction waits for its keying time.
    let mut due: BinaryHeap<Reverse<(Instant, u32)>> = BinaryHeap::with_capacity(n);
    // With the specification's waits, terminals start at a random point of
    // their first cycle (keying, a response, thinking) rather than all keying at
    // once: a run whose terminals all begin together takes several cycles to
    // lose the synchronisation, and the measurement would see the transient.
    let mut phase = Rand::derive(seed, u64::MAX - 4);
    let start = Instant::now();
    for (i, slot) in slots.iter_mut().enumerate() {
        let plan = slot.terminal.next();
        let at = match wait {
            WaitMode::None => start,
            WaitMode::Spec => start + (plan.keying + plan.think).mul_f64(phase.unit()),
        };
        slot.next = Some(plan);
        due.push(Reverse((at, i as u32)));
    }
    let mut in_flight = 0usize;
    loop {
        // Send every transaction that is due.
        let now = Instant::now();
        while let Some(&Reverse((at, i))) = due.peek() {
            if at > now {
                break;
            }
            due.pop();
            let slot = &mut slots[i as usize];
            let plan = slot.next.take().expect("a due terminal has a plan");
            if at >= window.end {
                // The terminal's work is done: nothing starts after the window.
                continue;
            }
            if window.contains(at) {
                stats.scheduled += 1;
                stats
                    .lateness
                    .saturating_record(now.saturating_duration_since(at).as_micros() as u64);
            }
            slot.think = match wait {
                WaitMode::None => Duration::ZERO,
                WaitMode::Spec => plan.think,
            };
            let job = Job {
                input: plan.input,
                txn_type: plan.txn_type,
                intended: at,
                done: Some(Done {
                    to: done_tx.clone(),
                    terminal: i,
                }),
            };
            // The queue holds a job per terminal, so it is never full; closed
            // means the pool is gone.
            if route
                .sender(slot.terminal.home(), i as usize)
                .try_send(job)
                .is_err()
            {
                return stats;
            }
            in_flight += 1;
        }
        if in_flight == 0 && due.is_empty() {
            return stats;
        }
        let next_due = due.peek().map(|Reverse((at, _))| *at);
        tokio::select! {
            biased;
            _ = stop.changed() => return stats,
            finished = done_rx.recv() => {
                let Some((i, finished)) = finished else { return stats };
                in_flight -= 1;
                let slot = &mut slots[i as usize];
                let plan = slot.terminal.next();
                let at = finished.max(Instant::now()) + slot.think + keying(&plan, wait);
                if at < window.end && !*stop.borrow() {
                    slot.next = Some(plan);
                    due.push(Reverse((at, i)));
                }
            }
            _ = async {
                match next_due {
                    Some(at) => sleep_until(at.into()).await,
                    None => std::future::pending().await,
                }
            } => {}
        }
    }
}

fn keying<I>(plan: &Planned<I>, wait: WaitMode) -> Duration {
    match wait {
        WaitMode::None => Duration::ZERO,
        WaitMode::Spec => plan.keying,
    }
}
