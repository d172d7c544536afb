//! Ctrl-C and SIGTERM: the first one stops what runs (a run cuts its window
//! and writes its summary; a load stops), a second one exits at once. The
//! signal is remembered for the exit code: 130 after SIGINT, 143 after SIGTERM,
//! as shells report a process those signals ended.
//!
//! On Unix the signals are read on a thread of their own, not on the async
//! runtime: a blocking statement (an embedded engine's, on the runtime's one
//! thread) would otherwise keep them from being seen until it ends (a TATP
//! run on a locked SQLite file ignored SIGTERM for 10 s). The run's watchdog
//! sees the stop and interrupts that statement.

use std::sync::atomic::{AtomicI32, Ordering};

use tokio::sync::watch;

/// The signal that stopped the process (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

const SIGINT: i32 = 2;
#[cfg(unix)]
const SIGTERM: i32 = 15;

/// The exit code of a process stopped by the signal received: 128 + its number.
pub fn exit_code() -> i32 {
    128 + match RECEIVED.load(Ordering::Relaxed) {
        0 => SIGINT,
        n => n,
    }
}

/// What happens on each signal: the first sets `stop`, the second exits at once.
fn on_signal(number: i32, stop: &watch::Sender<bool>) {
    let first = RECEIVED.swap(number, Ordering::Relaxed) == 0;
    if !first {
        std::process::exit(128 + number);
    }
    let name = if number == SIGINT {
        "Ctrl-C"
    } else {
        "SIGTERM"
    };
    crate::output::eprint_line(&format!(
        "\ntxbench: stopping ({name}); a second one exits at once"
    ));
    let _ = stop.send(true);
}

/// Watch for the signals, on a thread of their own.
#[cfg(unix)]
pub fn watch_signals(stop: watch::Sender<bool>) {
    use signal_hook::iterator::Signals;
    let mut signals = match Signals::new([SIGINT, SIGTERM]) {
        Ok(s) => s,
        Err(e) => {
            crate::output::eprint_line(&format!(
                "txbench: warning: cannot watch for Ctrl-C and SIGTERM: {e}"
            ));
            return;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("txbench-signals".into())
        .spawn(move || {
            for number in signals.forever() {
                on_signal(number, &stop);
            }
        });
    if let Err(e) = spawned {
        crate::output::eprint_line(&format!(
            "txbench: warning: cannot watch for Ctrl-C and SIGTERM: {e}"
        ));
    }
}

/// Watch for Ctrl-C on the runtime (no SIGTERM outside Unix).
#[cfg(not(unix))]
pub fn watch_signals(stop: watch::Sender<bool>) {
    tokio::spawn(async move {
        loop {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            on_signal(SIGINT, &stop);
        }
    });
}
