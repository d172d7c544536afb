//! txbench's workloads. Each owns everything about its specification: schema,
//! loader, input generation, the transaction procedures (written once against
//! [`txbench_core::Session`]) and its consistency checks.
//!
//! * [`tpcc`]: TPC-C v5.11.
//! * [`tatp`]: TATP (Telecom Application Transaction Processing).
//! * [`retwis`]: Retwis, key-value transactions under contention (TAPIR's mix).
//! * [`ch`]: the CH-benCHmark, TPC-C with 22 analytical queries beside it.
//!
//! [`Benchmark`] is what the command line needs of a workload beyond its
//! transactions, and [`registry`] lists the workloads: a new one is its own
//! module plus a line there. What every workload shares is written once: the
//! load's steps ([`bulk::load`]), the record of a load ([`meta_table`]),
//! opening on a database, a server or a dataless engine ([`opening`]), and
//! the errors ([`WorkloadError`]).
#![warn(missing_docs)]

mod about;
pub mod acid;
pub mod benchmark;
pub mod bulk;
pub mod capability;
pub mod ch;
pub mod conditions;
pub mod custom;
mod error;
pub mod fields;
pub mod gate;
pub mod meta_table;
pub mod opening;
pub mod options;
pub mod ownership;
pub mod parameters;
pub mod registry;
pub mod retwis;
pub mod shape;
pub mod tatp;
pub mod tpcc;
pub mod verify;

pub use about::{About, RunFlags, Scale};
pub use benchmark::{Benchmark, Frontier, MetricBasis, Variant};
pub use bulk::LoadPlan;
pub use error::WorkloadError;
pub use options::{BadValue, Choice, Flag, NoOptions, Options};
