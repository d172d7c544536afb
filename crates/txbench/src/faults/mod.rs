//! Faults on a schedule: `--fault-at T --fault-cmd CMD` and `--recover-at T
//! --recover-cmd CMD` (each as often as needed) become commands the driver's
//! clock starts at their times ([`plan`]), run through `sh -c` with their
//! output and exit status kept ([`inject`]), and for each fault what it cost
//! the run: the outage to the millisecond, throughput and p99 a second around
//! it, the time to recover 90% of the throughput before it, its errors and the
//! sessions re-established ([`impact`]). docs/durability.md.

pub mod impact;
pub mod inject;
pub mod plan;
