//! What the floor clients (`pg_floor`, `my_floor`) share: their draws,
//! their one thread polling every connection, their report, their exits.

use std::io;
use std::os::fd::RawFd;
use std::time::Instant;

/// xorshift64: enough for a floor, and costs nothing.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// Uniform in `low..=high`.
    pub fn between(&mut self, low: i64, high: i64) -> i64 {
        low + self.below((high - low + 1) as u64) as i64
    }
}

/// An argument that must be a number; exit 2 naming it if it is not.
pub fn number(s: &str) -> u64 {
    s.parse().unwrap_or_else(|_| {
        eprintln!("{}: not a number: {s}", program());
        std::process::exit(2)
    })
}

/// Stop on an error of the connection or the server: exit 1.
pub fn fail(e: &io::Error) -> ! {
    eprintln!("{}: {e}", program());
    std::process::exit(1)
}

fn program() -> String {
    std::env::args()
        .next()
        .and_then(|p| p.rsplit('/').next().map(str::to_owned))
        .unwrap_or_default()
}

/// Until `end`, wait for any of `fds` to be readable and call `ready` with
/// its place, one thread for every connection as `pgbench -j 1` has.
pub fn poll_until(end: Instant, fds: &[RawFd], mut ready: impl FnMut(usize)) {
    let mut polled: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    while Instant::now() < end {
        // SAFETY: polled is a valid array of pollfd of its length.
        let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, 1000) };
        if n < 0 {
            fail(&io::Error::last_os_error());
        }
        for (i, fd) in polled.iter_mut().enumerate() {
            if fd.revents != 0 {
                fd.revents = 0;
                ready(i);
            }
        }
    }
}

/// Print the transactions, their rate, the process's CPU a transaction
/// (getrusage) and the statements the server refused.
pub fn report(transactions: u64, errors: u64, elapsed: f64) {
    // SAFETY: getrusage writes the struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let per = |s: f64| s * 1e6 / transactions.max(1) as f64;
    println!(
        "transactions {transactions} in {elapsed:.2} s, {:.0} tps, client CPU a transaction: user {:.0} us, system {:.0} us, total {:.0} us, {errors} ignored errors",
        transactions as f64 / elapsed,
        per(secs(usage.ru_utime)),
        per(secs(usage.ru_stime)),
        per(secs(usage.ru_utime) + secs(usage.ru_stime)),
    );
}
