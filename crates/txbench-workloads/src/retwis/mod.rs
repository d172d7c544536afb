//! Retwis, the Twitter-clone key-value transaction mix used to evaluate TAPIR:
//! few keys per transaction, drawn uniformly or Zipf-skewed, so it measures
//! contention, aborts and retries rather than query work.
//!
//! So far: the mix and the transactions' reads and writes ([`input`]), the key
//! table ([`schema`], [`generate`]) and the procedures on SQL engines
//! ([`procedures`]). The load command, the Redis engine, the per-operation
//! latencies and the commands come next (issue 9).

pub mod generate;
pub mod input;
pub mod procedures;
pub mod schema;
