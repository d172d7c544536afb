//! Running a future where an engine's sessions want to run: on an OS thread of its
//! own for a blocking (embedded) engine, as a tokio task otherwise.

use std::future::Future;

use tokio::sync::oneshot;

use crate::engine::Engine;

/// A future started by [`spawn`]; [`Spawned::join`] waits for its output.
pub struct Spawned<T>(oneshot::Receiver<T>);

impl<T> Spawned<T> {
    /// Wait for the output; `None` if the future panicked.
    pub async fn join(self) -> Option<T> {
        self.0.await.ok()
    }
}

/// Start `fut` on the executor engine `E` needs. Must be called inside a tokio runtime.
///
/// A blocking engine's future completes synchronously at every step, so it runs on
/// a thread of its own (with the runtime entered, so tokio timers work there) and
/// never stalls the runtime's workers.
pub fn spawn<E, T, F>(name: &str, fut: F) -> Spawned<T>
where
    E: Engine,
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    let (tx, rx) = oneshot::channel();
    if E::BLOCKING {
        let handle = tokio::runtime::Handle::current();
        std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                let _guard = handle.enter();
                let _ = tx.send(pollster::block_on(fut));
            })
            .expect("spawning a session thread");
    } else {
        tokio::spawn(async move {
            let _ = tx.send(fut.await);
        });
    }
    Spawned(rx)
}
