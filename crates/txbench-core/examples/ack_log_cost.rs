//! What one line of the acknowledged-work log costs a worker: THREADS threads
//! record LINES New-Order lines each (seven fields, as TPC-C states them) into
//! one log whose writer thread writes to /dev/null once a second, as a run's
//! does to acks.csv. Prints nanoseconds per line, wall and per thread.
//!
//!   cargo run --release -p txbench-core --example ack_log_cost [THREADS] [LINES]

use std::time::Instant;

use txbench_core::acks::{AckLog, AckWriter, LoggedType};
use txbench_core::txn::Outcome;
use txbench_core::written::Written;

fn main() {
    let mut args = std::env::args().skip(1);
    let threads: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2);
    let lines: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    let log = AckLog::new(vec![LoggedType {
        key: "new_order",
        fields: "w_id d_id o_id c_id ol_cnt amount_cents entry_us",
    }]);
    let out = std::fs::File::create("/dev/null").expect("/dev/null");
    let writer = AckWriter::start(&log, Box::new(out)).expect("writer");
    let started = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            let log = log.clone();
            s.spawn(move || {
                let mut w = Written::new();
                for i in 0..lines {
                    let o = 3001 + i as i64;
                    w.committing([
                        1,
                        (t % 10) as i64 + 1,
                        o,
                        1456,
                        10,
                        124_550,
                        1_795_596_779_781_108,
                    ]);
                    let status = w.status(&Ok(Outcome::Committed));
                    log.record(0, &mut w, status);
                }
            });
        }
    });
    let wall = started.elapsed();
    let counts = writer.finish().expect("written");
    let total = lines * threads as u64;
    assert_eq!(counts.by_type[0][0], total);
    println!(
        "{total} lines from {threads} threads in {:.3} s: {:.0} ns a line of wall time, {:.0} ns a line per thread",
        wall.as_secs_f64(),
        wall.as_nanos() as f64 / total as f64,
        wall.as_nanos() as f64 * threads as f64 / total as f64
    );
}
