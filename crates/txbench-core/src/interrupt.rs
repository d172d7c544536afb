//! Stopping a session's statement from outside it.
//!
//! A statement can outlive what asked for it: a run's window and grace end,
//! a user presses Ctrl-C, a check reaches its time limit. Dropping the
//! future that awaits a network statement leaves the server running it (a
//! `pg_sleep` kept its backend busy after txbench exited), and an embedded
//! statement holds its thread until it ends (a never-ending SQLite query
//! kept a run alive at 100% CPU through two SIGTERMs). Each engine says how
//! its statement in progress is stopped from elsewhere: SQLite's interrupt,
//! PostgreSQL's cancel request, MySQL's `KILL QUERY`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// What is left to do after [`Interrupt::interrupt`] returned: a network
/// engine's request to its server, awaited on the runtime.
pub type Pending = Pin<Box<dyn Future<Output = ()> + Send>>;

/// How long an interrupt's request to the server may take before txbench
/// goes on without its answer.
pub const REQUEST_LIMIT: Duration = Duration::from_secs(2);

/// How long a caller that interrupted a statement waits for it to end (the
/// server answers a stopped statement with an error) before it says the
/// statement was only asked to stop. A cancel request reaches PostgreSQL's
/// backend asynchronously: exiting at once left a check's statement shown
/// active on a busy server after txbench had said it was stopped.
pub const STOP_LIMIT: Duration = Duration::from_secs(5);

/// Stops a session's statement in progress, from any thread.
pub trait Interrupt: Send + Sync {
    /// Ask that the statement the session runs now stop (and any it starts
    /// until then). What an embedded engine does happens in the call; a
    /// network engine's request is the returned future, which the caller
    /// awaits (it gives up after [`REQUEST_LIMIT`]). A session with nothing
    /// in progress is left as it was, or fails its next statement: either
    /// way the caller is done with it.
    fn interrupt(&self) -> Pending;
}

/// A session's interrupt handle, shared with whoever may stop it.
pub type Interrupter = Arc<dyn Interrupt>;

/// Send what is left of interrupts' requests, together, and wait at most
/// [`REQUEST_LIMIT`] for them to go out.
pub async fn send(requests: Vec<Pending>) {
    let requests: Vec<_> = requests.into_iter().map(tokio::spawn).collect();
    let all = async {
        for request in requests {
            let _ = request.await;
        }
    };
    let _ = tokio::time::timeout(REQUEST_LIMIT, all).await;
}

/// A future with nothing left to do, for an interrupt done in the call.
pub fn done() -> Pending {
    Box::pin(std::future::ready(()))
}
