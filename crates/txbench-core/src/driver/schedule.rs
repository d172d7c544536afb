//! Things to do at set times of a run (a fault injected, a server brought
//! back), timed by the driver's clock from the run's start: the driver owns
//! time, the caller says what to do. An action must not block: one that runs
//! something long starts it elsewhere (a thread) and returns.

use std::sync::Arc;
use std::time::{Duration, Instant};

/// An action at an offset from the run's start (warm-up included).
#[derive(Clone)]
pub struct Scheduled {
    /// When, from the run's start.
    pub at: Duration,
    /// What to do then.
    pub action: Arc<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for Scheduled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduled")
            .field("at", &self.at)
            .finish_non_exhaustive()
    }
}

/// Start the task that does each action at its time; dropping or aborting
/// the handle stops what has not come yet.
pub(crate) fn start(
    schedule: &[Scheduled],
    started: Instant,
) -> Option<tokio::task::JoinHandle<()>> {
    if schedule.is_empty() {
        return None;
    }
    let mut due = schedule.to_vec();
    due.sort_by_key(|s| s.at);
    Some(tokio::spawn(async move {
        for s in due {
            tokio::time::sleep_until((started + s.at).into()).await;
            (s.action)();
        }
    }))
}
