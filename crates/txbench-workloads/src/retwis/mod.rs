//! Retwis, the Twitter-clone key-value transaction mix used to evaluate TAPIR:
//! few keys per transaction, drawn uniformly or Zipf-skewed, so it measures
//! contention, aborts and retries rather than query work.
//!
//! So far: the mix and the transactions' reads and writes ([`input`]). The key
//! table, its load, the procedures and the commands come next (issue 9).

pub mod input;
