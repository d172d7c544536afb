//! Stopping a SQLite connection's work from another thread.
//!
//! `sqlite3_interrupt` stops a statement that runs, but not one waiting on
//! another process's lock: SQLite's own busy handler sleeps out its whole
//! timeout (a TATP run on a file held by another process's `BEGIN
//! EXCLUSIVE` ran 13.6 s for a 2 s window), and an interrupt that lands
//! between two statements is forgotten by the next. So an interrupt also
//! raises a flag that this connection's busy handler and progress handler
//! read: once raised, a busy wait gives up at its next sleep (at most
//! 100 ms) and a statement stops within a thousand of its steps.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rusqlite::{Connection, InterruptHandle};
use txbench_core::interrupt::{self, Interrupt, Pending};
use txbench_core::{DbError, ErrorKind};

/// SQLite's own busy handler's sleeps, in milliseconds: short at first, then
/// 100 ms at a time until the timeout.
const DELAYS_MS: [u64; 12] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/// Virtual machine steps between two looks at the flag.
const STEPS_PER_LOOK: i32 = 1000;

/// One connection's way to be stopped.
pub(super) struct Stop {
    handle: InterruptHandle,
    raised: Arc<AtomicBool>,
}

impl Interrupt for Stop {
    fn interrupt(&self) -> Pending {
        self.raised.store(true, Ordering::Relaxed);
        self.handle.interrupt();
        interrupt::done()
    }
}

/// Give `conn` a busy handler that waits at most `busy_timeout` (as
/// SQLite's does) and a progress handler, both of which give up once the
/// returned handle is used.
pub(super) fn install(conn: &mut Connection, busy_timeout: Duration) -> Result<Arc<Stop>, DbError> {
    let raised = Arc::new(AtomicBool::new(false));
    let timeout_ms = u64::try_from(busy_timeout.as_millis()).unwrap_or(u64::MAX);
    let flag = Arc::clone(&raised);
    conn.busy_handler(Some(move |count: i32| {
        if flag.load(Ordering::Relaxed) {
            return false;
        }
        match busy_delay_ms(usize::try_from(count).unwrap_or(0), timeout_ms) {
            Some(ms) => {
                std::thread::sleep(Duration::from_millis(ms));
                true
            }
            None => false,
        }
    }))
    .map_err(|e| DbError::new(ErrorKind::Other, format!("busy handler: {e}")))?;
    let flag = Arc::clone(&raised);
    conn.progress_handler(STEPS_PER_LOOK, Some(move || flag.load(Ordering::Relaxed)))
        .map_err(|e| DbError::new(ErrorKind::Other, format!("progress handler: {e}")))?;
    Ok(Arc::new(Stop {
        handle: conn.get_interrupt_handle(),
        raised,
    }))
}

/// How long the `count`th wait on a busy database sleeps, `None` once
/// `timeout_ms` is spent.
fn busy_delay_ms(count: usize, timeout_ms: u64) -> Option<u64> {
    let last = DELAYS_MS[DELAYS_MS.len() - 1];
    let waited: u64 = DELAYS_MS.iter().take(count).sum::<u64>()
        + last * count.saturating_sub(DELAYS_MS.len()) as u64;
    let left = timeout_ms.saturating_sub(waited);
    let delay = DELAYS_MS.get(count).copied().unwrap_or(last);
    (left > 0).then(|| delay.min(left))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_waits_add_up_to_the_timeout() {
        for timeout in [0, 1, 7, 228, 10_000] {
            let total: u64 = (0..).map_while(|count| busy_delay_ms(count, timeout)).sum();
            assert_eq!(total, timeout);
        }
    }

    #[test]
    fn an_interrupt_stops_a_statement_that_never_ends() {
        let mut conn = Connection::open_in_memory().unwrap();
        let stop = install(&mut conn, Duration::from_secs(10)).unwrap();
        let stopper = Arc::clone(&stop);
        let later = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(stopper.interrupt());
        });
        let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                       SELECT count(*) FROM n";
        let r: rusqlite::Result<i64> = conn.query_row(endless, [], |r| r.get(0));
        later.join().unwrap();
        assert_eq!(
            r.unwrap_err().sqlite_error_code(),
            Some(rusqlite::ErrorCode::OperationInterrupted)
        );
    }

    #[test]
    fn an_interrupt_ends_a_wait_for_another_connections_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("held.db");
        let holder = Connection::open(&path).unwrap();
        holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let mut waiter = Connection::open(&path).unwrap();
        let stop = install(&mut waiter, Duration::from_secs(3600)).unwrap();
        let stopper = Arc::clone(&stop);
        let later = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(stopper.interrupt());
        });
        // Without the flag this waits the busy timeout: an hour.
        let r = waiter.execute_batch("BEGIN IMMEDIATE");
        later.join().unwrap();
        assert_eq!(
            r.unwrap_err().sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy)
        );
    }
}
