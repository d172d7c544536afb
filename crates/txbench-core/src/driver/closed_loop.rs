//! Closed-loop terminals: each submits a transaction, waits for it, thinks, and
//! submits the next. Terminals are tokio tasks, light enough for 100,000 of them.

use std::time::Instant;

use tokio::sync::{oneshot, watch};
use tokio::time::sleep_until;

use super::pool::Job;
use crate::workload::Terminal;

/// Whether terminals apply the specification's keying and think times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WaitMode {
    /// Back to back: the next transaction as soon as the last one is done.
    None,
    /// Keying time before and think time after each transaction, as specified.
    Spec,
}

/// Drive one terminal until `end` or until `stop` turns true.
///
/// The intended start of a transaction is the end of its keying time; the response
/// time counts from there, so a late timer or a wait for a free session is
/// included in the latency.
pub async fn run_terminal<T: Terminal>(
    mut terminal: T,
    jobs: async_channel::Sender<Job<T::Input>>,
    wait: WaitMode,
    end: Instant,
    mut stop: watch::Receiver<bool>,
) {
    let mut ready_at = Instant::now();
    loop {
        let plan = terminal.next();
        let intended = match wait {
            WaitMode::None => Instant::now(),
            WaitMode::Spec => ready_at + plan.keying,
        };
        if intended >= end || *stop.borrow() {
            return;
        }
        if wait == WaitMode::Spec {
            tokio::select! {
                _ = sleep_until(intended.into()) => {}
                _ = stop.changed() => return,
            }
        }
        let (done_tx, done_rx) = oneshot::channel();
        let job = Job {
            input: plan.input,
            txn_type: plan.txn_type,
            intended,
            done: Some(done_tx),
        };
        if jobs.send(job).await.is_err() {
            return;
        }
        // A dropped sender means the pool shut down: nothing more to do.
        if done_rx.await.is_err() {
            return;
        }
        ready_at = Instant::now();
        if wait == WaitMode::Spec {
            ready_at += plan.think;
        }
    }
}
