//! CPU time of the process and of the current thread, to show how much of a run's
//! CPU the driver itself used.

use std::time::Duration;

fn clock(id: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and the clock ids used are supported on Linux.
    let rc = unsafe { libc::clock_gettime(id, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time used so far by the whole process (all threads).
pub fn process_cpu_time() -> Duration {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// CPU time used so far by the calling thread.
pub fn thread_cpu_time() -> Duration {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_work_shows_up_in_both_clocks() {
        let (p0, t0) = (process_cpu_time(), thread_cpu_time());
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let (p1, t1) = (process_cpu_time(), thread_cpu_time());
        assert!(t1 > t0, "thread clock did not advance");
        assert!(p1 - p0 >= t1 - t0 - Duration::from_millis(1));
    }
}
