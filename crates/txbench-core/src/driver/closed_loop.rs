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
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};
use tokio::time::sleep_until;

use super::SenderReport;
use super::budget::Budget;
use super::stripe::{InFlight, SharedStripe, lock};
use super::worker::{Done, Job, Route, Window};
use crate::alternation::Alternation;
use crate::recorder;
use crate::rng::Rand;
pub use crate::settings::WaitMode;
use crate::workload::{Planned, THINK_TRUNCATION, Terminal, TxnTypeInfo};

/// What the scheduler saw (its lateness is in the recorder's intervals).
#[derive(Debug, Clone)]
pub struct SchedulerStats {
    /// Terminals driven.
    pub terminals: usize,
    /// Transactions whose intended start fell in the measurement window (sent,
    /// or due and not yet sent when the run was cut).
    pub scheduled: u64,
}

/// Where a terminal of a system in its steady state is at a random moment,
/// from the mix and the mean keying and think times: keying a transaction
/// (with probability mean keying / mean cycle; the type in keying then weighted
/// by its keying time, the part of it left uniform) or thinking after one (the
/// type weighted by its mean think time, the rest of the think exponential,
/// which has no memory). The transaction's own response time is left out: the
/// waits are seconds, the responses that matter milliseconds.
struct StartState {
    /// Mean keying and think time per transaction over the mix (s).
    keying: f64,
    think: f64,
    /// The longest keying time (s), for drawing a type weighted by keying time.
    max_keying: f64,
    /// Cumulative weights `mix x mean think` and each type's mean think (s).
    think_weights: Vec<(f64, f64)>,
}

impl StartState {
    fn new(types: &[TxnTypeInfo]) -> Self {
        let mut cumulative = 0.0;
        StartState {
            keying: TxnTypeInfo::mix_mean(types, |t| t.keying),
            think: TxnTypeInfo::mix_mean(types, |t| t.mean_think),
            max_keying: types
                .iter()
                .map(|t| t.keying.as_secs_f64())
                .fold(0.0, f64::max),
            think_weights: types
                .iter()
                .map(|t| {
                    let m = t.mean_think.as_secs_f64();
                    cumulative += t.mix * m;
                    (cumulative, m)
                })
                .collect(),
        }
    }

    /// The terminal's first transaction and how long after the start to send it.
    fn first_send<T: Terminal>(
        &self,
        terminal: &mut T,
        rng: &mut Rand,
    ) -> (Planned<T::Input>, Duration) {
        let cycle = self.keying + self.think;
        let mut plan = terminal.next();
        if cycle <= 0.0 {
            return (plan, Duration::ZERO);
        }
        if rng.unit() * cycle < self.think {
            // Thinking after an earlier transaction, then keying this one in full.
            let total = self.think_weights.last().map_or(0.0, |w| w.0);
            let pick = rng.unit() * total;
            let mean = self
                .think_weights
                .iter()
                .find(|w| pick < w.0)
                .map_or(self.think, |w| w.1);
            let rest = rng.exponential(mean).min(mean * THINK_TRUNCATION);
            let at = Duration::from_secs_f64(rest) + plan.keying;
            return (plan, at);
        }
        // Keying: a type is in keying in proportion to its keying time, so draw
        // plans until one is accepted with probability keying / longest keying.
        // The rejected plans' cards are skipped, a few per terminal once.
        for _ in 0..1_000 {
            if rng.unit() * self.max_keying < plan.keying.as_secs_f64() {
                break;
            }
            plan = terminal.next();
        }
        let left = plan.keying.mul_f64(rng.unit());
        (plan, left)
    }
}

/// One terminal: its generator, the transaction it will send next, and the
/// think time that follows the one in flight.
struct Slot<T: Terminal> {
    terminal: T,
    next: Option<Planned<T::Input>>,
    think: Duration,
}

/// Drive `terminals` until the window ends (no transaction starts after it),
/// its transaction count is spent, or `cut` turns true; in-flight
/// transactions are left to the pool. How late each send of the window was
/// is recorded in `stripe`'s recorder. With `hold`, a transaction of a held
/// type waits for the next phase with them.
#[allow(clippy::too_many_arguments)]
pub async fn run_terminals<T: Terminal>(
    terminals: Vec<T>,
    route: Route<T::Input>,
    (wait, hold): (WaitMode, Option<Alternation>),
    types: &[TxnTypeInfo],
    seed: u64,
    (window, budget): (Window, Arc<Budget>),
    mut cut: watch::Receiver<bool>,
    stripe: SharedStripe,
) -> (SchedulerStats, SenderReport) {
    let n = terminals.len();
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(u32, Instant)>();
    let ends = (window, budget);
    let pace = (wait, hold);
    let mut s = Scheduler::new(terminals, route, pace, ends, stripe, done_tx, types.len());
    s.place_first_sends(types, seed, &cut);
    loop {
        if *cut.borrow() {
            break;
        }
        if s.send_due().is_err() || s.is_done() {
            return (stats(n, &s.report), s.report);
        }
        let next_due = s.due.peek().map(|Reverse((at, _))| *at);
        tokio::select! {
            biased;
            _ = cut.changed() => {}
            finished = done_rx.recv() => {
                let Some((i, finished)) = finished else { break };
                s.finished(i, finished);
            }
            _ = async {
                match next_due {
                    Some(at) => sleep_until(at.into()).await,
                    None => std::future::pending().await,
                }
            } => {}
        }
    }
    s.count_unsent_at_cut();
    (stats(n, &s.report), s.report)
}

/// The closed loop's state: each terminal's next transaction, when the
/// waiting ones are due, and how many are with the pool.
struct Scheduler<T: Terminal> {
    slots: Vec<Slot<T>>,
    /// Due times of terminals whose next transaction waits for its keying time.
    due: BinaryHeap<Reverse<(Instant, u32)>>,
    in_flight: usize,
    report: SenderReport,
    route: Route<T::Input>,
    wait: WaitMode,
    /// The phases some types are held to ([`Alternation::release`]).
    hold: Option<Alternation>,
    window: Window,
    /// The transactions the window may still send.
    budget: Arc<Budget>,
    stripe: SharedStripe,
    done: mpsc::UnboundedSender<(u32, Instant)>,
}

/// The pool is gone: nothing more can be sent.
struct PoolGone;

impl<T: Terminal> Scheduler<T> {
    fn new(
        terminals: Vec<T>,
        route: Route<T::Input>,
        (wait, hold): (WaitMode, Option<Alternation>),
        (window, budget): (Window, Arc<Budget>),
        stripe: SharedStripe,
        done: mpsc::UnboundedSender<(u32, Instant)>,
        types: usize,
    ) -> Self {
        let slots: Vec<Slot<T>> = terminals
            .into_iter()
            .map(|terminal| Slot {
                terminal,
                next: None,
                think: Duration::ZERO,
            })
            .collect();
        Scheduler {
            due: BinaryHeap::with_capacity(slots.len()),
            slots,
            in_flight: 0,
            report: SenderReport::new(types),
            route,
            wait,
            hold,
            window,
            budget,
            stripe,
            done,
        }
    }

    /// Each terminal's first transaction and when it is due. With the
    /// specification's waits, each terminal starts where a terminal of a
    /// long-running system would be at a random moment (see `StartState`),
    /// not all keying at once: a run whose terminals all begin together takes
    /// several cycles to lose the synchronisation, and the measurement would
    /// see the transient.
    fn place_first_sends(&mut self, types: &[TxnTypeInfo], seed: u64, cut: &watch::Receiver<bool>) {
        let mut phase = Rand::derive(seed, u64::MAX - 4);
        let steady = StartState::new(types);
        let start = Instant::now();
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let (plan, at) = match self.wait {
                WaitMode::None => (slot.terminal.next(), start),
                WaitMode::Spec => {
                    let (plan, offset) = steady.first_send(&mut slot.terminal, &mut phase);
                    (plan, start + offset)
                }
            };
            let at = released(self.hold.as_ref(), self.window.start, plan.txn_type, at);
            slot.next = Some(plan);
            self.due.push(Reverse((at, i as u32)));
            if *cut.borrow() {
                // Creating a million terminals takes a while: a stop comes first.
                break;
            }
        }
    }

    /// Send every transaction that is due; sends due after the window never
    /// happen.
    fn send_due(&mut self) -> Result<(), PoolGone> {
        let now = Instant::now();
        while let Some(&Reverse((at, i))) = self.due.peek() {
            if at > now {
                break;
            }
            self.due.pop();
            let plan = self.slots[i as usize]
                .next
                .take()
                .expect("a due terminal has a plan");
            if at >= self.window.end {
                // The terminal's work is done: nothing starts after the window.
                continue;
            }
            if self.window.contains(at) && !self.budget.take() {
                // The count is spent: no terminal sends again.
                self.due.clear();
                break;
            }
            self.send(i, plan, at, now)?;
        }
        // Once the earliest is past the window's end, all are, and the run
        // need not sit out their keying and think times (up to minutes with
        // spec waits).
        if (self.due.peek()).is_some_and(|Reverse((at, _))| *at >= self.window.end) {
            self.due.clear();
        }
        Ok(())
    }

    /// Send terminal `i`'s transaction due `at`, noting how late it is `now`.
    fn send(
        &mut self,
        i: u32,
        plan: Planned<T::Input>,
        at: Instant,
        now: Instant,
    ) -> Result<(), PoolGone> {
        {
            let mut stripe = lock(&self.stripe);
            stripe.note_sent(plan.txn_type);
            if self.window.contains(at) {
                self.report.scheduled[plan.txn_type] += 1;
                let late = now.saturating_duration_since(at);
                recorder::record(&mut stripe.recorder.lateness, late);
            }
        }
        let slot = &mut self.slots[i as usize];
        slot.think = match self.wait {
            WaitMode::None => Duration::ZERO,
            WaitMode::Spec => plan.think,
        };
        let job = Job {
            input: plan.input,
            txn_type: plan.txn_type,
            intended: at,
            done: Some(Done {
                to: self.done.clone(),
                terminal: i,
            }),
        };
        // The queue holds a job per terminal, so it is never full; closed
        // means the pool is gone.
        let queue = self.route.sender(slot.terminal.home(), i as usize);
        queue.try_send(job).map_err(|_| PoolGone)?;
        self.in_flight += 1;
        Ok(())
    }

    /// Nothing is with the pool and nothing is due: the terminals are done.
    fn is_done(&self) -> bool {
        self.in_flight == 0 && self.due.is_empty()
    }

    /// Terminal `i`'s transaction finished at `finished`: its next one is due
    /// after its think and keying times, if that is in the window.
    fn finished(&mut self, i: u32, finished: Instant) {
        self.in_flight -= 1;
        let slot = &mut self.slots[i as usize];
        let plan = slot.terminal.next();
        let at = finished.max(Instant::now()) + slot.think + keying(&plan, self.wait);
        let at = released(self.hold.as_ref(), self.window.start, plan.txn_type, at);
        if at < self.window.end && !self.budget.is_spent() {
            slot.next = Some(plan);
            self.due.push(Reverse((at, i)));
        }
    }

    /// At the cut, what was due before the window's end and not yet sent is
    /// unfinished (it waited in the client for a scheduler that was behind).
    fn count_unsent_at_cut(&mut self) {
        let now = Instant::now();
        for Reverse((at, i)) in std::mem::take(&mut self.due) {
            if at < self.window.end && at <= now {
                let txn_type = (self.slots[i as usize].next.as_ref()).map_or(0, |p| p.txn_type);
                if self.window.contains(at) {
                    self.report.scheduled[txn_type] += 1;
                }
                self.report.unsent.push(InFlight {
                    txn_type,
                    intended: at,
                });
            }
        }
    }
}

fn stats(terminals: usize, report: &SenderReport) -> SchedulerStats {
    SchedulerStats {
        terminals,
        scheduled: report.scheduled.iter().sum(),
    }
}

/// When a transaction of `txn_type` due `at` may be sent, the window
/// starting at `window_start`: later, if `hold` holds its type in the phase
/// `at` falls in.
fn released(
    hold: Option<&Alternation>,
    window_start: Instant,
    txn_type: usize,
    at: Instant,
) -> Instant {
    hold.map_or(at, |h| h.release(txn_type, at, window_start))
}

fn keying<I>(plan: &Planned<I>, wait: WaitMode) -> Duration {
    match wait {
        WaitMode::None => Duration::ZERO,
        WaitMode::Spec => plan.keying,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TPC-C's keying and think times with its mix, without inputs.
    fn types() -> Vec<TxnTypeInfo> {
        let t = |mix, keying, think| TxnTypeInfo {
            mix,
            keying: Duration::from_secs(keying),
            mean_think: Duration::from_secs(think),
            ..TxnTypeInfo::back_to_back("t", "t", 0.0, None)
        };
        vec![
            t(0.448, 18, 12),
            t(0.4305, 3, 12),
            t(0.0405, 2, 10),
            t(0.0405, 2, 5),
            t(0.0405, 2, 5),
        ]
    }

    struct MixTerminal {
        rng: Rand,
        types: Vec<TxnTypeInfo>,
    }

    impl Terminal for MixTerminal {
        type Input = ();
        fn next(&mut self) -> Planned<()> {
            let mut pick = self.rng.unit();
            let i = self
                .types
                .iter()
                .position(|t| {
                    pick -= t.mix;
                    pick < 0.0
                })
                .unwrap_or(0);
            let t = &self.types[i];
            let think = self.rng.exponential(t.mean_think.as_secs_f64());
            Planned {
                input: (),
                txn_type: i,
                keying: t.keying,
                think: Duration::from_secs_f64(think),
            }
        }
    }

    #[test]
    fn terminals_start_in_the_steady_state() {
        // In the steady state N terminals send N / (mean cycle) a second from the
        // first instant. Before the shortest keying time (2 s) only first sends
        // can happen, so the first sends in [0, 2 s) must number N x 2 / cycle.
        // Starting each terminal at a uniform point of its first plan's cycle
        // instead sends about 30% too many there (short Payment cycles).
        let types = types();
        let steady = StartState::new(&types);
        let cycle = steady.keying + steady.think;
        let n = 200_000;
        let mut rng = Rand::new(7);
        let mut early = 0u32;
        for i in 0..n {
            let mut t = MixTerminal {
                rng: Rand::derive(9, i),
                types: types.clone(),
            };
            let (_, at) = steady.first_send(&mut t, &mut rng);
            if at < Duration::from_secs(2) {
                early += 1;
            }
        }
        let expected = n as f64 * 2.0 / cycle;
        let sd = expected.sqrt();
        assert!(
            (f64::from(early) - expected).abs() < 4.0 * sd,
            "{early} first sends in 2 s, steady state {expected:.0}"
        );
    }
}
