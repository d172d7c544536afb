//! Running a future where an engine's sessions want to run: on an OS thread of its
//! own for a blocking (embedded) engine, as a tokio task otherwise.

use std::future::Future;

use tokio::sync::oneshot;

use crate::engine::Engine;

/// A future started by [`spawn`]; [`Spawned::join`] waits for its output.
pub struct Spawned<T> {
    output: oneshot::Receiver<T>,
    /// The task, when it runs as one (a thread cannot be stopped from outside).
    task: Option<tokio::task::AbortHandle>,
}

impl<T> Spawned<T> {
    /// Wait for the output; `None` if the future panicked (or was aborted).
    pub async fn join(self) -> Option<T> {
        self.output.await.ok()
    }

    /// Wait for the output until `deadline`; `None` if it did not come by then
    /// (a task is then aborted; a thread is left to end by itself).
    pub async fn join_until(self, deadline: std::time::Instant) -> Option<T> {
        let task = self.task.clone();
        match tokio::time::timeout_at(deadline.into(), self.join()).await {
            Ok(out) => out,
            Err(_) => {
                if let Some(task) = task {
                    task.abort();
                }
                None
            }
        }
    }
}

/// Run `f` on a new OS thread named `name`; its result comes back through the
/// returned handle.
pub fn spawn_thread<T, F>(name: &str, f: F) -> Spawned<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (tx, rx) = oneshot::channel();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .expect("spawning a thread");
    Spawned {
        output: rx,
        task: None,
    }
}

/// Where a session's work runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// On an OS thread of its own (blocking engines with several sessions).
    Thread,
    /// As a task of the current runtime. For an asynchronous engine that is the
    /// natural place; for a blocking engine with a single session on a
    /// single-threaded runtime it means the session and the terminals share one
    /// thread, with no cross-thread wake-up per transaction (the terminals have
    /// nothing to do while the only session works anyway).
    Task,
}

/// Where the sessions of a pool of `sessions` sessions of `engine` should run.
pub fn placement<E: Engine>(engine: &E, sessions: usize) -> Placement {
    let single_threaded = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread);
    if !engine.blocking() || (sessions == 1 && single_threaded) {
        Placement::Task
    } else {
        Placement::Thread
    }
}

/// Start `fut` on the executor `engine` needs. Must be called inside a tokio runtime.
///
/// A blocking engine's future completes synchronously at every step, so it runs on
/// a thread of its own (with the runtime entered, so tokio timers work there) and
/// never stalls the runtime's workers.
pub fn spawn<E, T, F>(engine: &E, name: &str, fut: F) -> Spawned<T>
where
    E: Engine,
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    spawn_at(
        if engine.blocking() {
            Placement::Thread
        } else {
            Placement::Task
        },
        name,
        fut,
    )
}

/// Start `fut` on a thread of its own or as a task of the current runtime.
pub fn spawn_at<T, F>(placement: Placement, name: &str, fut: F) -> Spawned<T>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    if placement == Placement::Thread {
        let handle = tokio::runtime::Handle::current();
        spawn_thread(name, move || {
            let _guard = handle.enter();
            pollster::block_on(fut)
        })
    } else {
        let (tx, rx) = oneshot::channel();
        let task = tokio::spawn(async move {
            let _ = tx.send(fut.await);
        });
        Spawned {
            output: rx,
            task: Some(task.abort_handle()),
        }
    }
}
