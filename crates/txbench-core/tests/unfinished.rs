//! Nothing left out, nothing waited out: transactions unfinished when the
//! window closes are counted and enter the latency figures, and a run ends
//! within its grace whatever its sessions do.

mod support;

use std::time::{Duration, Instant};

use support::{AsyncIdle, Serve};
use txbench_core::TxnTypeInfo;
use txbench_core::driver::{OpenLoop, Pacing, Recording, RunOptions};

static TYPES: [TxnTypeInfo; 1] = [TxnTypeInfo::back_to_back("Stall", "stall", 1.0, None)];

/// Options of these runs: four sessions, open loop at `rate` when given.
fn options(duration: Duration, grace: Duration, rate: Option<f64>) -> RunOptions {
    RunOptions {
        connections: 4,
        seed: 11,
        ..support::options(duration, grace, rate)
    }
}

async fn run(serve: Serve, opts: &RunOptions) -> (Recording, Duration) {
    let began = Instant::now();
    let rec = support::run(AsyncIdle, &TYPES, serve, opts).await;
    (rec, began.elapsed())
}

/// With no warm-up, every transaction the dispatcher scheduled in the window
/// is in the numbers exactly once.
fn assert_nothing_left_out(rec: &Recording) {
    let t = &rec.total.measured[0];
    let scheduled = rec.dispatch.as_ref().map_or_else(
        || rec.scheduler.as_ref().unwrap().scheduled,
        |d| d.scheduled,
    );
    assert_eq!(
        t.completed() + t.failed() + t.unfinished + t.shed,
        scheduled,
        "completed {} + failed {} + unfinished {} + shed {} vs scheduled {scheduled}",
        t.completed(),
        t.failed(),
        t.unfinished,
        t.shed
    );
}

#[tokio::test]
async fn a_stall_past_the_window_end_is_counted_and_sets_the_tail() {
    // 200/s for 2 s; from 1.5 s the server answers nothing for 1 s, past the
    // window's end at 2 s. With a 30 s grace the stalled transactions complete
    // during it: counted unfinished, their measured latencies the tail.
    let opts = options(Duration::from_secs(2), Duration::from_secs(30), Some(200.0));
    let start = Instant::now();
    let stall = (
        start + Duration::from_millis(1500),
        start + Duration::from_millis(2500),
    );
    let serve = Serve::Sleep {
        service: Duration::from_millis(1),
        stall,
    };
    let (rec, wall) = run(serve, &opts).await;
    let t = &rec.total.measured[0];
    // About 100 arrivals fall in the stall's half second inside the window.
    assert!(t.unfinished >= 50, "unfinished {}", t.unfinished);
    assert_nothing_left_out(&rec);
    assert!(t.censored.is_empty(), "all completed in the grace");
    let max = Duration::from_micros(t.latency.max());
    // The first stalled transaction started about when the stall began and
    // completed when it ended: a second later.
    assert!(
        max >= Duration::from_millis(950),
        "max latency {max:?}, the stall is 1 s"
    );
    // The run ends when the last one completes (about 2.5 s), not when the
    // grace would (32 s): bounds far from either, which no load can cross.
    assert!(wall < Duration::from_secs(15), "waited {wall:?}");
}

#[tokio::test]
async fn a_short_grace_gives_up_and_counts_lower_bounds() {
    // The same stall with a 0.2 s grace: the run gives up on the stalled
    // transactions at 2.2 s, before the server answers (2.5 s), and counts
    // them with the time they had waited. Both ways of dispatching.
    for pacing in [Pacing::Sleep, Pacing::Spin] {
        let defaults = options(
            Duration::from_secs(2),
            Duration::from_millis(200),
            Some(200.0),
        );
        let opts = RunOptions {
            open: defaults.open.map(|o| OpenLoop { pacing, ..o }),
            ..defaults
        };
        let start = Instant::now();
        let serve = Serve::Sleep {
            service: Duration::from_millis(1),
            stall: (
                start + Duration::from_millis(1500),
                start + Duration::from_secs(60),
            ),
        };
        let (rec, wall) = run(serve, &opts).await;
        let t = &rec.total.measured[0];
        assert!(
            t.unfinished >= 50,
            "{pacing:?}: unfinished {}",
            t.unfinished
        );
        assert_eq!(t.censored.len(), t.unfinished, "every one given up");
        assert_nothing_left_out(&rec);
        // Each waited at least the grace (it was due before the window's end),
        // and the first about 0.7 s (from 1.5 s to the cut at 2.2 s).
        assert!(
            t.censored.min() >= 190_000,
            "{pacing:?}: least bound {} us",
            t.censored.min()
        );
        assert!(
            t.censored.max() >= 600_000,
            "{pacing:?}: largest bound {} us",
            t.censored.max()
        );
        // It gave up at 2.2 s instead of waiting for the server (60 s).
        assert!(wall < Duration::from_secs(30), "{pacing:?}: took {wall:?}");
    }
}

#[tokio::test]
async fn a_hundred_thousand_terminals_on_one_slow_session_end_within_the_grace() {
    // Back-to-back terminals queue 100,000 transactions of 1 ms on one
    // session: 100 s of work, of which 1 s is measured and 0.5 s waited for.
    let opts = RunOptions {
        terminals: 100_000,
        connections: 1,
        ..options(Duration::from_secs(1), Duration::from_millis(500), None)
    };
    let serve = Serve::Sleep {
        service: Duration::from_millis(1),
        stall: (Instant::now(), Instant::now()),
    };
    let (rec, wall) = run(serve, &opts).await;
    let t = &rec.total.measured[0];
    assert!(t.unfinished > 90_000, "unfinished {}", t.unfinished);
    assert!(t.censored.len() > 90_000, "given up {}", t.censored.len());
    assert_nothing_left_out(&rec);
    // Terminals are created, the window runs 1 s and the grace 0.5 s: about
    // 2 s, against the 100 s of waiting out the queue.
    assert!(wall < Duration::from_secs(30), "the run took {wall:?}");
}
