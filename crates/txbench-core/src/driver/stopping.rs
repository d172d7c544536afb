//! Stopping the statements a run leaves behind.
//!
//! When the grace after the window runs out, or a signal stops the run, the
//! transactions still running count as unfinished, and their statements are
//! stopped at the database ([`crate::interrupt`]): otherwise the server
//! works on for nobody (a `pg_sleep` outlived txbench), and an embedded
//! engine's statement holds its thread. A blocking session that runs on the
//! runtime's only thread would hold the run's clock too, so for it a thread
//! of its own ([`Watchdog`]) watches the deadline and the stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::stripe::{SharedStripe, lock};
use crate::interrupt::{self, Interrupter, Pending};

/// How often the watchdog looks at the deadline and the stop.
const WATCH_EVERY: Duration = Duration::from_millis(20);

/// The sessions of a run's pool, as something that can be stopped.
#[derive(Default)]
pub struct Stoppable {
    /// Each session's interrupt handle, with its worker's stripe and slot,
    /// which say whether it is executing a transaction (sessions whose
    /// engine cannot be interrupted are not kept).
    sessions: Vec<(Interrupter, SharedStripe, usize)>,
    /// Set before the sessions are interrupted: a transaction that fails from
    /// here on was stopped by txbench, and counts as unfinished, not as an
    /// error of the database's.
    interrupted: Arc<AtomicBool>,
}

impl Stoppable {
    /// Add a session, whose worker records in `slot` of `stripe`.
    pub fn add(&mut self, interrupter: Option<Interrupter>, stripe: &SharedStripe, slot: usize) {
        if let Some(handle) = interrupter {
            self.sessions.push((handle, Arc::clone(stripe), slot));
        }
    }

    /// The flag that says the run interrupted its sessions.
    pub fn interrupted(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.interrupted)
    }

    /// Interrupt the sessions executing a transaction now; what is left of
    /// the requests to the server.
    fn interrupt_working(&self) -> Vec<Pending> {
        self.interrupted.store(true, Ordering::SeqCst);
        self.sessions
            .iter()
            .filter(|(_, stripe, slot)| lock(stripe).executing(*slot))
            .map(|(handle, _, _)| handle.interrupt())
            .collect()
    }

    /// At the run's cut: interrupt the sessions still executing, and wait
    /// (at most [`interrupt::REQUEST_LIMIT`]) for the requests to go out.
    pub async fn stop_working(&self) {
        interrupt::send(self.interrupt_working()).await;
    }
}

/// A thread that interrupts a blocking engine's sessions at `give_up` or
/// when `stop` is set, for a run whose clock shares a thread with them.
pub struct Watchdog {
    finished: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Watch until dropped.
    pub fn start(
        sessions: Arc<Stoppable>,
        give_up: Instant,
        stop: watch::Receiver<bool>,
    ) -> Watchdog {
        let finished = Arc::new(AtomicBool::new(false));
        let done = Arc::clone(&finished);
        let thread = std::thread::Builder::new()
            .name("txbench-watchdog".into())
            .spawn(move || {
                while !done.load(Ordering::SeqCst) {
                    if Instant::now() >= give_up || *stop.borrow() {
                        // A blocking engine stops in the call: nothing is
                        // left to await.
                        drop(sessions.interrupt_working());
                        return;
                    }
                    std::thread::sleep(WATCH_EVERY);
                }
            })
            .ok();
        Watchdog { finished, thread }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.finished.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
