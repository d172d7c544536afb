//! The machine's floor for a dispatcher that sleeps: a thread that does nothing
//! but sleep to absolute times at a given rate (Poisson gaps), with the same
//! primitives as the open-loop dispatcher (reduced timer slack, absolute
//! sleeps, optionally the learnt spin margin). Prints, per rate, how late it
//! woke (p50, p99, max) and its CPU per wake-up. No dispatcher can do better
//! on this machine than this loop, which sends nothing.
//!
//!     cargo run --release -p txbench-core --example timer_floor -- 200 10000
//!     SPIN=1 cargo run --release -p txbench-core --example timer_floor -- 10000

use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use txbench_core::cpu;
use txbench_core::driver::timer::{self, Pacer};
use txbench_core::rng::Rand;

const SECONDS: f64 = 5.0;

fn main() {
    let spin = std::env::var_os("SPIN").is_some();
    let rates: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| match a.parse() {
            Ok(r) if r > 0.0 => r,
            _ => {
                eprintln!("timer_floor: bad rate {a:?} (wakes per second, e.g. 200)");
                std::process::exit(2);
            }
        })
        .collect();
    timer::reduce_slack();
    for rate in if rates.is_empty() {
        vec![200.0, 10_000.0]
    } else {
        rates
    } {
        let (late, cpu_per_wake) = run(rate, spin);
        println!(
            "{rate:>9.0}/s {}: lateness p50 {} p99 {} max {} us, CPU {:.1} us per wake-up",
            if spin { "sleep+spin" } else { "sleep" },
            late.value_at_quantile(0.5),
            late.value_at_quantile(0.99),
            late.max(),
            cpu_per_wake
        );
    }
}

/// Wake at Poisson arrivals of `rate` for [`SECONDS`]: the lateness histogram
/// (us) and the thread's CPU per wake-up (us).
fn run(rate: f64, spin: bool) -> (Histogram<u64>, f64) {
    let mut late = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("histogram");
    let mut rng = Rand::new(7);
    let mut pacer = Pacer::default();
    let cpu_start = cpu::thread_cpu_time();
    let start = Instant::now();
    let mut due = start;
    let mut wakes = 0u64;
    while due - start < Duration::from_secs_f64(SECONDS) {
        due += Duration::from_secs_f64(rng.exponential(1.0 / rate));
        if spin {
            pacer.wait_until(due, Duration::from_millis(10), || false);
        } else {
            timer::sleep_until(due);
        }
        let woke = Instant::now();
        late.saturating_record(woke.saturating_duration_since(due).as_micros() as u64);
        wakes += 1;
    }
    let cpu = cpu::thread_cpu_time().saturating_sub(cpu_start);
    (late, cpu.as_secs_f64() * 1e6 / wakes as f64)
}
