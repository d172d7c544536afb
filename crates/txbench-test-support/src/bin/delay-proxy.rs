//! The delaying TCP proxy of the tests, as a command for benchmarks:
//!
//!     delay-proxy LISTEN TARGET DELAY JITTER
//!
//! e.g. `ip netns exec txbh-db delay-proxy 10.213.0.1:5432 127.0.0.1:54441 1ms 250us`:
//! every byte between a client and TARGET held DELAY ± JITTER each way. Runs
//! until killed.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use txbench_test_support::delay_proxy::{DelayProxy, Link};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [listen, target, delay, jitter] = &args[..] else {
        eprintln!("usage: delay-proxy LISTEN TARGET DELAY JITTER");
        return ExitCode::from(2);
    };
    let (listen, target) = match (address(listen), address(target)) {
        (Ok(l), Ok(t)) => (l, t),
        (Err(e), _) | (_, Err(e)) => return bad(e),
    };
    let link = match (duration(delay), duration(jitter)) {
        (Ok(delay), Ok(jitter)) => Link { delay, jitter },
        (Err(e), _) | (_, Err(e)) => return bad(e),
    };
    match DelayProxy::start(None, listen, target, link) {
        Ok(_proxy) => loop {
            std::thread::park();
        },
        Err(e) => {
            eprintln!("delay-proxy: listening on {listen}: {e}");
            ExitCode::from(1)
        }
    }
}

fn bad(e: String) -> ExitCode {
    eprintln!("delay-proxy: {e}");
    ExitCode::from(2)
}

fn address(s: &str) -> Result<SocketAddr, String> {
    s.parse().map_err(|e| format!("address '{s}': {e}"))
}

fn duration(s: &str) -> Result<Duration, String> {
    humantime::parse_duration(s).map_err(|e| format!("duration '{s}': {e}"))
}
