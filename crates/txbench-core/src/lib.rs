//! The core of txbench: what every workload, engine and report shares.
//!
//! Data flows through a run one way (docs/architecture.md):
//!
//! ```text
//! Workload (next input) -> Driver (when to start it) -> Engine session (execute)
//!     -> Recorder (latency and outcome per type, per second) -> Recording
//!     -> Checks (verdict, intervals) -> Summary -> Result model -> Report
//! ```
//!
//! The data the stages hand on are leaves that import none of the stages:
//! [`txn`] (transaction types and outcomes), [`check`] (one check's result),
//! [`settings`] (a run's settings) and [`result`] (the result model).
//!
//! * [`engine`]: the [`Engine`] and [`Session`] traits that
//!   every database implements; they know no workload.
//! * [`workload`]: the [`Workload`] trait: transaction types, input
//!   generation per terminal, and procedures written once against `Session`.
//! * [`driver`]: owns time: terminals (closed loop), the session pool, warm-up, stop.
//!   It knows no SQL.
//! * [`recorder`]: per-type HdrHistograms and counters, swapped every second.
//! * [`checks`]: the run's checks of its own measurement, from its recording.
//! * [`summary`]: a recording summarised into the result model.
//! * [`result`]: the versioned result model written as JSON and rendered by reports.
//! * [`settings`]: how a run was set up, typed, as the result model records it.
//! * [`rng`]: the seeded random stream and the distributions specifications ask for.
//! * [`written`] and [`acks`]: what a transaction wrote and what became of it,
//!   and the acknowledged-work log of those records.
//! * [`alternation`]: phases without and with part of the load in one run.
//! * [`freshness`]: how old the data an analytical reader saw was.
//! * [`executed`]: what a workload timed of its streams' transactions.
//! * [`keys`]: keys of a key space drawn uniformly or Zipf-skewed (key-value workloads).
//!
//! Design decisions: procedures are `async fn` generic over `Session`, so the
//! asynchronous network engines and the synchronous embedded SQLite share them
//! unchanged. A blocking engine (SQLite) gets one OS thread per session and runs a
//! whole transaction there: one hand-off per transaction, not per statement.
#![warn(missing_docs)]

pub mod acks;
pub mod alternation;
pub mod any_engine;
pub mod check;
pub mod checks;
pub mod cpu;
pub mod driver;
pub mod engine;
pub mod error;
pub mod exec;
pub mod executed;
pub mod faults;
pub mod freshness;
pub mod identifier;
pub mod interrupt;
pub mod keys;
pub mod machine;
pub mod recorder;
pub mod result;
pub mod rng;
pub mod sample;
pub mod schema;
pub mod settings;
pub mod shard;
pub mod stats;
pub mod summary;
pub mod text_file;
pub mod txn;
pub mod value;
pub mod workload;
pub mod written;

pub use driver::{RunOptions, WaitMode};
pub use engine::{
    Call, CallKind, Engine, Execution, Isolation, Loader, NoLoader, NoWholeTransactions, Reply,
    RoundTrips, Session, Timestamps, TxMode, TxnInput, WholeTransactions,
};
pub use error::{DbError, ErrorKind};
pub use shard::{Shard, ShardError};
pub use value::{Param, Room, Row, RowBatch, Rows, Value};
pub use workload::{Outcome, Planned, RepeatTerminal, Terminal, TxnTypeInfo, Workload};
pub use written::Written;
