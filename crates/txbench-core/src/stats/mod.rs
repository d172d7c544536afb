//! Statistics that check a run's own measurement (after Lancet, ATC'19): pure
//! functions over samples, each tested against known values.
//!
//! * [`batch_quantile`]: confidence intervals of percentiles from batches of
//!   the run (all its latencies, consecutive ones correlated).
//! * [`quantile_ci`]: distribution-free confidence intervals of percentiles from
//!   order statistics (independent samples).
//! * [`anderson_darling`]: is a sample of gaps exponential (Poisson arrivals)?
//! * [`spearman`]: rank correlation of a series with itself at a lag
//!   (independence of consecutive latencies).
//! * [`queueing`]: the latency queueing theory predicts for M/D/1 and M/M/1,
//!   the truth `txbench selftest` holds measurements against.

pub mod anderson_darling;
pub mod batch_quantile;
pub mod quantile_ci;
pub mod queueing;
pub mod spearman;

/// The two-sided 95% point of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;
