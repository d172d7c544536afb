//! What sends the run's transactions: the closed loop's scheduler of
//! terminals or the open loop's dispatchers, started in a task of their own
//! and ended by the window or the cut.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use tokio::sync::watch;

use super::budget::Budget;
use super::closed_loop::{self, SchedulerStats, WaitMode};
use super::open_loop::{self, DispatchStats, OpenLoop};
use super::stripe::{SharedStripe, Stripe};
use super::worker::{Route, Window};
use super::{RunOptions, SenderReport};
use crate::exec;
use crate::workload::Workload;

/// What the task that sends transactions saw.
pub(super) enum Senders {
    /// The open-loop dispatchers.
    Open(DispatchStats),
    /// The closed-loop terminals' scheduler.
    Closed(SchedulerStats),
}

/// Start what sends the transactions: the open-loop dispatcher threads, or
/// the closed-loop scheduler; each records its lateness (and sheds) in a
/// stripe of its own. The terminals are created in the task, so a stop can
/// come while a million of them are.
pub(super) fn spawn_senders<W: Workload>(
    workload: &Arc<W>,
    opts: &RunOptions,
    route: Route<W::Input>,
    (window, budget): (Window, &Arc<Budget>),
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
        budget: Arc::clone(budget),
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
/// when the run started, ends (its window, or its transaction count) and is
/// cut.
struct Sending<W: Workload> {
    workload: Arc<W>,
    route: Route<W::Input>,
    seed: u64,
    window: Window,
    budget: Arc<Budget>,
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
            (wait, self.workload.alternation()),
            self.workload.transaction_types(),
            self.seed,
            (self.window, self.budget),
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
                    budget: Arc::clone(&self.budget),
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
