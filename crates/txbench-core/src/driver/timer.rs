//! Precise waits for a thread of its own: sleep on the kernel's high-resolution
//! timer to an absolute time, with the thread's timer slack reduced, and spin
//! only the last few microseconds.
//!
//! tokio's timer fires on millisecond ticks, so the open-loop dispatcher used
//! to sleep to a tick before each arrival and then spin (yielding) until it was
//! due: about a millisecond of CPU per arrival at low rates, and on a busy
//! machine that spinning was itself what made the sends late. A sleep to an
//! absolute time on CLOCK_MONOTONIC (the clock `Instant` reads) does not drift
//! when the thread is preempted between reading the clock and sleeping, and a
//! timer slack of 1 ns stops the kernel from deferring the wake-up by its
//! default 50 us to batch it with others. What the kernel still adds is learnt
//! and slept short of ([`Pacer`]).

use std::time::{Duration, Instant};

/// The least and the most a pacer wakes before a deadline to spin the rest.
const MIN_MARGIN: Duration = Duration::from_micros(5);
const MAX_MARGIN: Duration = Duration::from_micros(250);

/// Make this thread's timed sleeps wake as close to their time as the kernel
/// can (Linux: timer slack 1 ns instead of 50 us; elsewhere nothing).
pub fn reduce_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK takes an integer and changes only this thread's slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Sleep until `deadline` (returns at once when it is past).
pub fn sleep_until(deadline: Instant) {
    #[cfg(target_os = "linux")]
    {
        // The clock is read after `Instant::now()`, so the target is, if
        // anything, a few nanoseconds after the deadline, never before it.
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            return;
        };
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid clock id and a valid pointer to a timespec.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
        let nanos = now.tv_nsec as u64 + u64::from(left.subsec_nanos());
        let target = libc::timespec {
            tv_sec: now.tv_sec
                + left.as_secs() as libc::time_t
                + (nanos / 1_000_000_000) as libc::time_t,
            tv_nsec: (nanos % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: a valid clock id, flags, and pointers; the remainder is unused with TIMER_ABSTIME.
        while unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &target,
                std::ptr::null_mut(),
            )
        } == libc::EINTR
        {}
    }
    #[cfg(not(target_os = "linux"))]
    if let Some(left) = deadline.checked_duration_since(Instant::now()) {
        std::thread::sleep(left);
    }
}

/// Waits for deadlines on a thread of its own: sleeps until shortly before
/// each, then spins. How much before is learnt from how late its own sleeps
/// wake (on a virtual machine tens of microseconds, on bare metal a few):
/// the mean overshoot plus its mean deviation, so most wakes come before the
/// deadline and the spin that follows is short.
#[derive(Debug, Clone)]
pub struct Pacer {
    /// Mean overshoot of the sleeps (ns), exponentially weighted.
    mean: f64,
    /// Mean absolute deviation of the overshoot (ns), likewise.
    deviation: f64,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer {
            mean: 20_000.0,
            deviation: 10_000.0,
        }
    }
}

impl Pacer {
    /// Weight of the newest overshoot in the means.
    const WEIGHT: f64 = 1.0 / 32.0;

    /// How long before a deadline to wake and spin.
    pub fn margin(&self) -> Duration {
        Duration::from_nanos((self.mean + self.deviation).max(0.0) as u64)
            .clamp(MIN_MARGIN, MAX_MARGIN)
    }

    /// Wait until `due`: sleep (at most `poll` at a time, so that `stopped` is
    /// looked at often) until the margin before it, then spin. False when
    /// `stopped` said to stop first.
    pub fn wait_until(&mut self, due: Instant, poll: Duration, stopped: impl Fn() -> bool) -> bool {
        loop {
            if stopped() {
                return false;
            }
            let now = Instant::now();
            let Some(left) = due.checked_duration_since(now) else {
                return true;
            };
            let margin = self.margin();
            if left > margin {
                let target = now + (left - margin).min(poll);
                sleep_until(target);
                self.learn(Instant::now().saturating_duration_since(target));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    fn learn(&mut self, overshoot: Duration) {
        let x = overshoot.as_nanos() as f64;
        self.deviation += Self::WEIGHT * ((x - self.mean).abs() - self.deviation);
        self.mean += Self::WEIGHT * (x - self.mean);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeps_until_the_deadline_and_not_before() {
        reduce_slack();
        for micros in [0, 50, 300, 2_000] {
            let deadline = Instant::now() + Duration::from_micros(micros);
            sleep_until(deadline);
            assert!(Instant::now() >= deadline, "woke before {micros} us");
        }
        let mut pacer = Pacer::default();
        for _ in 0..20 {
            let due = Instant::now() + Duration::from_millis(1);
            assert!(pacer.wait_until(due, Duration::from_millis(1), || false));
            assert!(Instant::now() >= due);
        }
        assert!((MIN_MARGIN..=MAX_MARGIN).contains(&pacer.margin()));
        let far = Instant::now() + Duration::from_secs(60);
        assert!(!pacer.wait_until(far, Duration::from_millis(1), || true));
    }
}
