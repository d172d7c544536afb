//! A run that ends at a transaction count (`RunOptions::transactions`,
//! YCSB's operation count): exactly that many transactions due in the
//! window are sent and end in it, the warm-up's do not count, and the window
//! is the time they took; a duration that runs out first ends it as usual
//! and says the count was not reached.

mod support;

use std::time::{Duration, Instant};

use support::{AsyncIdle, Serve};
use txbench_core::TxnTypeInfo;
use txbench_core::driver::{DEFAULT_GRACE, OpenLoop, Recording, RunOptions};

static TYPES: [TxnTypeInfo; 1] = [TxnTypeInfo::back_to_back("Read", "read", 1.0, None)];

/// A service of 1 ms each, never stalled.
fn one_ms() -> Serve {
    let never = Instant::now() + Duration::from_secs(3600);
    Serve::Sleep {
        service: Duration::from_millis(1),
        stall: (never, never),
    }
}

/// The transactions of the window that ended (completed or failed).
fn ended(rec: &Recording) -> u64 {
    let t = &rec.total.measured[0];
    t.completed() + t.failed()
}

/// Every transaction of the window ended: none unfinished or shed.
fn all_ended(rec: &Recording) -> u64 {
    let t = &rec.total.measured[0];
    assert_eq!(
        t.unfinished + t.shed,
        0,
        "nothing left unfinished at a count"
    );
    ended(rec)
}

#[tokio::test]
async fn a_closed_loop_ends_after_exactly_its_count() {
    let opts = RunOptions {
        terminals: 4,
        connections: 4,
        warmup: Duration::from_millis(300),
        transactions: Some(500),
        ..support::options(Duration::from_secs(120), DEFAULT_GRACE, None)
    };
    let rec = support::run(AsyncIdle, &TYPES, one_ms(), &opts).await;
    assert_eq!(all_ended(&rec), 500);
    assert_eq!(rec.count, Some((500, true)));
    assert!(!rec.interrupted);
    assert!(
        rec.total.unmeasured > 0,
        "the warm-up ran and was not counted"
    );
    // The window is the time the 500 took, not the 120 s asked at most.
    assert!(
        rec.measured < Duration::from_secs(120),
        "{:?}",
        rec.measured
    );
    assert_eq!(rec.tail, Duration::ZERO);
}

#[tokio::test]
async fn open_loop_dispatchers_share_one_count() {
    let base = support::options(Duration::from_secs(120), DEFAULT_GRACE, Some(2000.0));
    let opts = RunOptions {
        connections: 4,
        transactions: Some(300),
        open: base.open.clone().map(|o| OpenLoop {
            dispatchers: 3,
            ..o
        }),
        ..base
    };
    let rec = support::run(AsyncIdle, &TYPES, one_ms(), &opts).await;
    assert_eq!(all_ended(&rec), 300);
    assert_eq!(rec.dispatch.as_ref().map(|d| d.scheduled), Some(300));
    assert_eq!(rec.count, Some((300, true)));
}

#[tokio::test]
async fn a_duration_that_runs_out_first_ends_the_window_there() {
    let opts = RunOptions {
        transactions: Some(10_000_000),
        ..support::options(Duration::from_millis(300), DEFAULT_GRACE, None)
    };
    let rec = support::run(AsyncIdle, &TYPES, one_ms(), &opts).await;
    assert_eq!(rec.count, Some((10_000_000, false)));
    assert_eq!(rec.measured, Duration::from_millis(300));
    assert!(ended(&rec) < 10_000_000);
}
