//! txbench's database engines. Each implements [`txbench_core::Engine`] and knows no
//! workload; every dialect difference lives in its engine's module.
//!
//! * [`sqlite`]: embedded SQLite (bundled), in memory or in a file.
//! * [`mysql`]: MySQL, MariaDB, Galera clusters and TiDB over mysql_async.
//! * [`null`]: executes nothing, to measure txbench's own ceiling.
//! * [`redis`]: Redis, for key-value workloads, with optimistic transactions.
//! * [`redis_cluster`]: Redis Cluster, a sharded key-value store, for a
//!   workload's script form (one Lua script per partition).
//! * `etcd` (the `etcd` feature): a Raft-replicated key-value store, with
//!   optimistic transactions on its revisions.
//! * [`postgres`]: PostgreSQL, CockroachDB and YugabyteDB over tokio-postgres.
//! * `txbench://`: the client of a txbench server, in the txbench-remote crate
//!   (re-exported as [`remote`]).
//! * [`sim`]: a simulated server whose truth is known (service times, stalls,
//!   outages, errors), to calibrate the measurement.
//!
//! [`Target::parse`] turns a `--db` URL into the engine to use, and
//! [`with_engine`] builds that engine with the options a command asks for
//! (refusing by name what it cannot honour) and runs the command's work with it.
#![warn(missing_docs)]

/// `Debug` for types that hold a secret (a password in their URL or
/// connection options): they show only their `display` field, the URL with
/// its secrets masked, so that no `{:?}` can leak one.
macro_rules! debug_shows_display {
    ($($ty:ident),+) => {$(
        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_tuple(stringify!($ty)).field(&self.display).finish()
            }
        }
    )+};
}

#[cfg(feature = "etcd")]
pub mod etcd;
mod file_lock;
mod kv_dispatch;
mod kv_store;
pub mod mysql;
pub mod null;
mod open;
pub mod postgres;
mod redact;
pub mod redis;
pub mod redis_cluster;
pub mod sim;
pub mod sqlite;
mod target;
mod target_error;

pub use open::{
    EngineOptions, OpenError, WithEngine, explained, is_no_such_database, with_engine, with_engines,
};
pub use redact::{SECRET_VARIABLES, redact};
pub use target::Target;
pub use target_error::TargetError;
pub use txbench_remote as remote;
