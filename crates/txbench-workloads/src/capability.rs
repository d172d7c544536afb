//! The optional capabilities of a workload, each one thing: a
//! [`Benchmark`](crate::Benchmark) method returns `Some` of it when the
//! workload has it, with its help line and the function that does it, and
//! `None` (the default) when it has not. The command line offers a verb
//! exactly when the capability is there, so nothing can be offered that
//! then fails.
//!
//! The functions take the engine and session every command has
//! ([`AnyEngine`], [`AnySession`]): a capability is compiled once per
//! workload, not once per engine.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use txbench_core::acks::AckFile;
use txbench_core::any_engine::{AnyEngine, AnySession};

use crate::acid::AcidReport;
use crate::conditions::ConditionResult;
use crate::error::WorkloadError;
use crate::meta_table::Loaded;
use crate::verify::Verification;

/// A capability at work: a boxed future of its answer.
pub type Running<'a, T> = Pin<Box<dyn Future<Output = Result<T, WorkloadError>> + Send + 'a>>;

/// `NAME check`: verify the consistency conditions on a loaded database.
#[derive(Clone, Copy)]
pub struct Check {
    /// The help line of the verb.
    pub summary: &'static str,
    /// The conditions, each held or not, on a session of the database and
    /// what its load recorded.
    pub run: for<'a> fn(&'a mut AnySession, &'a Loaded) -> Running<'a, Vec<ConditionResult>>,
}

/// `NAME verify`: hold an acknowledged-work log against the database: what
/// of the acknowledged work is durable, what in doubt is there, what rolled
/// back leaked (docs/durability.md).
#[derive(Clone, Copy)]
pub struct Verify {
    /// The help line of the verb.
    pub summary: &'static str,
    /// The findings, on a session of the database.
    pub run: for<'a> fn(&'a mut AnySession, &'a AckFile) -> Running<'a, Verification>,
}

/// `NAME acid`: the workload's atomicity and isolation tests on a loaded
/// database (consistency and durability are every workload's check and
/// verify, which the command adds).
#[derive(Clone, Copy)]
pub struct Acid {
    /// The help line of the verb.
    pub summary: &'static str,
    /// The tests on the database the engine reaches; the seed picks the
    /// rows they use.
    pub run: fn(Arc<AnyEngine>, u64) -> Running<'static, AcidReport>,
}

/// A workload defined by a file (`txbench custom`), which `txbench serve
/// --workload-file` takes as the definition.
#[derive(Clone, Copy)]
pub struct FileDefined {
    /// Take the file at the path as the definition; a bad one is an error
    /// naming what is wrong.
    pub define: fn(&Path) -> Result<(), WorkloadError>,
    /// Take the file shipped under this name (`serve --workload smallbank`).
    pub define_shipped: fn(&str) -> Result<(), WorkloadError>,
}
