//! The one trait the command line drives: everything txbench needs of a
//! workload beyond its transactions (which [`Workload`] gives the driver).
//!
//! A workload names itself and its scale ([`About`]), declares its options as
//! typed flags, loads, opens, checks and cleans a database, and computes its
//! headline figures from the recorded settings. The binary's commands (`load`,
//! `run`, `check`, `clean`, the all-in-one form, `sweep`, `serve`, `merge`) are
//! written once, generic over [`Benchmark`], and [`crate::registry`] lists the
//! workloads.

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use serde::Serialize;
use serde::de::DeserializeOwned;
use txbench_core::driver::WaitMode;
use txbench_core::result::{Metric, TypeResult};
use txbench_core::schema::{Schema, Table};
use txbench_core::{Engine, Execution, Session, Workload};

pub use crate::about::{About, RunFlags, Scale};
use crate::bulk::{LoadPlan, LoadSummary};
use crate::capability::{Acid, Check, FileDefined, Verify};
use crate::error::WorkloadError;
use crate::meta_table::{Loaded, MetaTable};
use crate::options::Options;

/// The settings a run's headline figures depend on, as recorded with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricBasis {
    /// The part of the scale this run drove (a shard's warehouses; all of them
    /// for a whole or merged run).
    pub driven: i64,
    /// Whether terminals kept the specification's keying and think times.
    pub wait: WaitMode,
}

/// A workload as the command line drives it. Adding one is its module, this
/// trait implemented, and a line in [`crate::registry`].
pub trait Benchmark: Workload<Input: DeserializeOwned> + Clone + Debug + Sized {
    /// Its names and scale.
    const ABOUT: &'static About;
    /// The flags that say what the workload is, given to every verb that
    /// touches its tables or runs it (a workload file's `--file`);
    /// [`NoOptions`](crate::options::NoOptions) for a workload the binary holds.
    type Definition: Options;

    /// Take the workload's definition before any verb uses it (read and check
    /// a workload file); a bad one is an error naming what is wrong. The
    /// binary holds the built-in workloads' definitions, so they have nothing
    /// to take.
    fn define(definition: &Self::Definition) -> Result<(), WorkloadError> {
        let _ = definition;
        Ok(())
    }

    /// The definition [`define`](Self::define) took, for a run's
    /// `config.toml` to repeat (`--file`, `--workload`); the default for a
    /// workload the binary holds.
    fn definition() -> Self::Definition {
        Self::Definition::default()
    }

    /// Whether the workload is defined by a file, and how it takes one
    /// (`txbench serve --workload-file`); `None` by default.
    fn file_defined() -> Option<FileDefined> {
        None
    }

    /// Its tables (the metadata table among them): what `clean` drops.
    fn schema() -> &'static Schema;
    /// The data tables the opened workload runs on, as it declares them: a
    /// run checks the database's against them ([`crate::shape`]). Those of
    /// [`Benchmark::schema`], unless the load's record shaped them (YCSB's
    /// fields, sysbench's tables).
    fn run_tables(&self) -> Vec<&'static Table> {
        let meta = Self::meta().table.name;
        (Self::schema().tables.iter())
            .filter(|t| t.name != meta)
            .collect()
    }
    /// Where its load is recorded.
    fn meta() -> &'static MetaTable;

    /// The scale a load writes when none is asked.
    fn default_scale() -> i64 {
        Self::ABOUT.scale.default
    }

    /// What the help says of that default when it is not the scale's
    /// (a workload file's is its own); `None`: the number.
    const DEFAULT_SCALE_HELP: Option<&'static str> = None;

    /// Flags of a load beyond the scale (Retwis: the value size).
    type LoadOptions: Options;
    /// Flags of a run beyond the scale (Retwis: the key skew).
    type RunOptions: Options;

    /// What is in the database: `None` when nothing of the workload is there.
    fn loaded<S: Session>(
        session: &mut S,
    ) -> impl Future<Output = Result<Option<Loaded>, WorkloadError>> + Send {
        async move { Ok(Self::meta().read(session).await?) }
    }

    /// Refuse, before anything is created (the database either), a load
    /// with `options` that `engine` cannot take; by default, a load on an
    /// engine that runs only scripts ([`refuse_unscripted`]).
    fn refuse_load<E: Engine>(
        engine: &E,
        options: &Self::LoadOptions,
    ) -> Result<(), WorkloadError> {
        let _ = options;
        refuse_unscripted(engine, Self::ABOUT)
    }

    /// Load `plan.scale`; `rows_done` counts rows as they are written.
    fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        options: &Self::LoadOptions,
        rows_done: Arc<AtomicU64>,
    ) -> impl Future<Output = Result<LoadSummary, WorkloadError>> + Send;

    /// The rows a load of `scale` writes (for its progress bar).
    fn expected_rows(scale: i64) -> u64;

    /// What the line reporting a load says of its options after the scale
    /// (Retwis: " of 64 bytes"); empty by default.
    fn describe_load(options: &Self::LoadOptions) -> String {
        let _ = options;
        String::new()
    }

    /// Open the workload on a session of a loaded database (or of a server that
    /// serves it, or of an engine that holds no data). `asked` is the scale the
    /// command gives, checked against what is there.
    fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        seed: u64,
        options: &Self::RunOptions,
    ) -> impl Future<Output = Result<Self, WorkloadError>> + Send;

    /// Its consistency check (`NAME check`); `None` by default.
    fn check() -> Option<Check> {
        None
    }

    /// Its verify of acknowledged work (`NAME verify`); `None` by default.
    fn verify() -> Option<Verify> {
        None
    }

    /// Its ACID tests a client can drive (`NAME acid`); `None` by default.
    fn acid() -> Option<Acid> {
        None
    }

    /// The name of what runs, in prose, for the results and the report: the
    /// workload's title, or a file's own ("YCSB A", "Orders").
    fn title(&self) -> String {
        Self::ABOUT.title.to_string()
    }

    /// The scale in the database.
    fn scale(&self) -> i64;

    /// The part of the scale this process drives (a shard's); what per-unit
    /// figures such as TPC-C's efficiency divide by.
    fn driven(&self) -> i64 {
        self.scale()
    }

    /// What the opened workload says of the data it runs on: its fields are
    /// recorded with the results, as text, beside the run's settings.
    type Parameters: Serialize;

    /// What the opened workload says of the data it runs on (constants
    /// drawn, the part of the scale driven); the scale and the run options
    /// are settings already.
    fn parameters(&self) -> Self::Parameters;

    /// What `txbench serve` tells its clients in the handshake, which
    /// [`Benchmark::open`] reads back on the client.
    fn served_parameters(&self) -> Vec<(String, String)>;

    /// The headline figures (tpmC, MQTh, ...) of a run from its per-type
    /// results and its recorded settings: the same for a run and a merge.
    fn metrics(types: &[TypeResult], measured_secs: f64, basis: MetricBasis) -> Vec<Metric>;

    /// The variants a sweep compares where the run options name several
    /// values of one (TATP's `--key-access all`): each one's options, with
    /// the option's name and the value's; empty where they name one.
    fn variants(options: &Self::RunOptions) -> Vec<Variant<Self::RunOptions>> {
        let _ = options;
        Vec::new()
    }

    /// The transaction types (keys) the variants differ in, whose latency
    /// a comparison of them draws; empty: every type.
    const VARIANT_TYPES: &'static [&'static str] = &[];

    /// What `sweep --frontier` varies and draws: `None` for a workload whose
    /// terminals are all of one kind.
    const FRONTIER: Option<Frontier> = None;
}

/// A frontier (HATtrick's, Milkai et al., SIGMOD 2022): closed-loop runs
/// with more or fewer terminals of a second kind beside the first, each
/// side's throughput against the other's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frontier {
    /// The run option that sets how many terminals of the second kind run
    /// (`analytic-streams`).
    pub option: &'static str,
    /// The second kind's headline figure (`QphH`).
    pub x: &'static str,
    /// The first kind's (`tpmC`).
    pub y: &'static str,
}

/// One of the variants a sweep compares ([`Benchmark::variants`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Variant<O> {
    /// The option that varies, as recorded (`key_access`).
    pub option: &'static str,
    /// Its value in this variant (`index`).
    pub value: &'static str,
    /// The run options with that value.
    pub options: O,
}

/// Refuse the workload `about`, which has no script form, on an engine that
/// runs only scripts (Redis Cluster: one Lua script a transaction, on the
/// partition of its rows), saying where it runs instead.
pub fn refuse_unscripted<E: Engine>(engine: &E, about: &About) -> Result<(), WorkloadError> {
    if engine.execution() != Execution::Scripts {
        return Ok(());
    }
    Err(WorkloadError::BadOption(format!(
        "--db: the {} engine runs only workloads whose transactions are scripts, each on one \
         partition (TATP, loaded with --partitions N); {} has none: run it on one server \
         (redis://HOST:PORT)",
        engine.name(),
        about.title
    )))
}

/// A value per second or per minute of the measurement, 0 for an empty one.
pub(crate) fn rate(n: u64, secs: f64) -> f64 {
    if secs > 0.0 { n as f64 / secs } else { 0.0 }
}
