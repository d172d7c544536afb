//! txbench's workloads. Each owns everything about its specification: schema,
//! loader, input generation, the transaction procedures (written once against
//! [`txbench_core::Session`]) and its consistency checks.
//!
//! * [`tpcc`]: TPC-C v5.11.
//! * [`tatp`]: TATP (Telecom Application Transaction Processing).
//! * [`retwis`]: Retwis, key-value transactions under contention (TAPIR's mix).
#![warn(missing_docs)]

pub mod bulk;
pub mod conditions;
pub mod fields;
pub mod meta_table;
pub mod retwis;
pub mod tatp;
pub mod tpcc;
