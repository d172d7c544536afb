//! Ctrl-C and SIGTERM: the first one stops what runs (a run cuts its window
//! and writes its summary; a load stops), a second one exits at once. The
//! signal is remembered for the exit code: 130 after SIGINT, 143 after SIGTERM,
//! as shells report a process those signals ended.

use std::sync::atomic::{AtomicI32, Ordering};

use tokio::sync::watch;

/// The signal that stopped the process (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

/// The exit code of a process stopped by the signal received: 128 + its number.
pub fn exit_code() -> i32 {
    128 + match RECEIVED.load(Ordering::Relaxed) {
        0 => SIGINT,
        n => n,
    }
}

/// Watch for the signals: the first sets `stop`, the second exits at once.
pub fn watch_signals(stop: watch::Sender<bool>) {
    tokio::spawn(async move {
        let (number, name) = next_signal().await;
        RECEIVED.store(number, Ordering::Relaxed);
        crate::output::eprint_line(&format!(
            "\ntxbench: stopping ({name}); a second one exits at once"
        ));
        let _ = stop.send(true);
        let (number, _) = next_signal().await;
        RECEIVED.store(number, Ordering::Relaxed);
        std::process::exit(128 + number);
    });
}

/// Wait for Ctrl-C (SIGINT) or, on Unix, SIGTERM (what `kill` and orchestrators
/// send).
async fn next_signal() -> (i32, &'static str) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            return tokio::select! {
                _ = tokio::signal::ctrl_c() => (SIGINT, "Ctrl-C"),
                _ = term.recv() => (SIGTERM, "SIGTERM"),
            };
        }
    }
    let _ = tokio::signal::ctrl_c().await;
    (SIGINT, "Ctrl-C")
}
