//! TATP, the Telecom Application Transaction Processing benchmark (IBM's
//! description v1.0): a home-location register of N subscribers and seven short
//! transactions, 80% reads, keyed by subscriber id or, for a fifth of them, by
//! the alternative unique key `sub_nbr`.
//!
//! * [`schema`], [`generate`] and [`load`]: the four tables and their population.
//! * [`input`]: the mix, the NURand subscriber draw and the terminals.
//! * [`procedures`]: the seven transactions, written once against [`Session`];
//!   [`scripts`]: each as one script per partition, for a sharded key-value
//!   store (Redis Cluster), whose reads run as the SQL form's and whose
//!   writes are [`script_procedures`]; [`find`]: the lookup of `s_id` before
//!   a transaction and the statements sent to every partition, in either form.
//! * [`key_access`]: how the transactions keyed by `sub_nbr` find their
//!   subscriber (`--key-access`), and [`options`]: that and `--partitions`.
//! * [`expected`]: the success rates the population implies.
//! * [`check`]: the population's invariants.
//!
//! The headline figure is MQTh: successful (committed) transactions per second.

pub mod check;
pub mod constants;
pub mod expected;
pub mod find;
pub mod generate;
pub mod input;
pub mod key_access;
pub mod load;
pub mod meta;
pub mod options;
pub mod population;
pub mod procedures;
pub mod schema;
pub mod script_procedures;
pub mod scripts;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use serde::Serialize;
use txbench_core::result::{Counted, Metric, TypeResult};
use txbench_core::schema::Schema;
use txbench_core::{
    DbError, Engine, ErrorKind, Execution, Outcome, Session, Shard, ShardError, TxnTypeInfo,
    Workload, Written,
};

use crate::about::{About, RunFlags, Scale};
use crate::benchmark::{Benchmark, MetricBasis, Variant, rate};
use crate::bulk::LoadPlan;
use crate::bulk::LoadSummary;
use crate::capability::Check;
use crate::conditions::ConditionResult;
use crate::error::WorkloadError;
use crate::meta_table::{Loaded, MetaTable};
use crate::opening;
use crate::options::NoOptions;
use crate::parameters::Span;
use constants::{DEFAULT_SUBSCRIBERS, DEFAULT_TERMINALS, TXN_TYPES};
use input::{InputGenerator, TatpInput, TatpTerminal};
use key_access::{Access, KeyAccess, KeyAccessChoice};
use options::{TatpLoadOptions, TatpRunOptions};

/// TATP's names and scale.
pub static ABOUT: About = About {
    name: "tatp",
    title: "TATP",
    summary: "TATP: without a verb, load 100,000 subscribers, run and report (embedded SQLite by default)",
    load_summary: "Create the schema and load the subscribers",
    run_summary: "Drive the transaction mix and report MQTh and latency",
    scale: Scale {
        unit: "subscribers",
        one: "subscriber",
        short: None,
        default: DEFAULT_SUBSCRIBERS,
        max: 1_000_000_000,
    },
    run_flags: RunFlags {
        terminals: "10",
        wait_spec: None,
        home: None,
        seed_draws: "the inputs (subscribers, by NURand, and the values written)",
    },
    required_example: "",
    foreign_keys: Some(
        "TATP's: ACCESS_INFO and SPECIAL_FACILITY reference SUBSCRIBER, CALL_FORWARDING references SPECIAL_FACILITY",
    ),
};

/// The TATP workload over a population of subscribers.
#[derive(Debug, Clone)]
pub struct Tatp {
    inputs: InputGenerator,
    /// The first terminal's random stream: 0, or a shard's own block.
    stream_base: u64,
    /// How the transactions keyed by `sub_nbr` find their subscriber; `None`
    /// on an engine without data, which takes whole transactions and to which
    /// no strategy applies.
    access: Option<Access>,
}

impl Tatp {
    /// A workload over `subscribers` subscribers.
    pub fn new(subscribers: i64) -> Self {
        Tatp {
            inputs: InputGenerator::new(subscribers),
            stream_base: 0,
            access: Some(Access::single()),
        }
    }

    /// Open the workload on a loaded database (or a server that serves it),
    /// checking the scale against `asked` (a session that holds no data, the
    /// null engine, takes `asked`), its transactions keyed by `sub_nbr`
    /// finding their subscriber as `options` asks (refused by name where the
    /// session or the load cannot).
    pub async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        options: &TatpRunOptions,
    ) -> Result<Tatp, WorkloadError> {
        let (subscribers, found) = opening::find(session, &meta::META, asked).await?;
        let asked = options
            .key_access
            .as_ref()
            .map(|c| c.for_a_run())
            .transpose()?;
        let key_access = KeyAccess::resolve(asked, session.execution())?;
        let scripted = session.execution() == Execution::Scripts;
        let partitions = meta::partitions(found.int(meta::PARTITIONS)?, scripted)?;
        if key_access == Some(KeyAccess::Index) && !found.has(meta::KEY_INDEX) {
            return Err(WorkloadError::BadOption(
                "--key-access index: this database was loaded without the alternative key's \
                 index (table subscriber_nbr); load it again with this txbench"
                    .into(),
            ));
        }
        let access = key_access.map(|strategy| {
            if scripted {
                Access::in_scripts(strategy, partitions)
            } else {
                Access::new(strategy, partitions)
            }
        });
        Ok(Tatp {
            access,
            ..Tatp::new(subscribers)
        })
    }

    /// Subscribers in the database.
    pub fn subscribers(&self) -> i64 {
        self.inputs.subscribers
    }

    /// What a txbench server tells its clients about the TATP database it serves.
    pub fn served_parameters(&self) -> Vec<(String, String)> {
        vec![
            ("workload".to_string(), "tatp".to_string()),
            (
                "subscribers".to_string(),
                self.inputs.subscribers.to_string(),
            ),
        ]
    }

    /// Settings worth recording with the results.
    pub fn parameters(&self) -> TatpParameters {
        let access = self.access.as_ref();
        TatpParameters {
            key_access: access.map(|a| a.strategy.name()),
            partitions: access.map(|a| a.partitions).filter(|&n| n > 0),
            nurand_a: self.inputs.a,
            drawn_subscribers: Span(self.inputs.drawn.0, self.inputs.drawn.1),
        }
    }
}

/// What a TATP run records of the data it ran on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TatpParameters {
    /// How the transactions keyed by sub_nbr found their subscriber.
    pub key_access: Option<&'static str>,
    /// The load's hash partitions, where it made some.
    pub partitions: Option<u32>,
    /// A of NURand(A, 1, P) for the subscriber drawn.
    pub nurand_a: i64,
    /// The subscribers this process drew from (all, or a shard's).
    pub drawn_subscribers: Span,
}

impl Workload for Tatp {
    type Input = TatpInput;
    type Terminal = TatpTerminal;

    fn name(&self) -> &'static str {
        "tatp"
    }

    fn transaction_types(&self) -> &'static [TxnTypeInfo] {
        &TXN_TYPES
    }

    fn default_terminals(&self) -> usize {
        DEFAULT_TERMINALS
    }

    fn terminal(&self, index: usize, seed: u64) -> TatpTerminal {
        TatpTerminal::on_stream(self.stream_base + index as u64, seed, self.inputs)
    }

    /// Subscribers drawn from the shard's range (NURand over it, with the
    /// population's A); terminals on streams no other shard uses.
    fn shard(&mut self, shard: Shard) -> Result<(), ShardError> {
        let range = shard.range(self.inputs.subscribers, "subscribers")?;
        self.inputs.drawn = (*range.start(), *range.end());
        self.stream_base = u64::from(shard.index()) << 32;
        Ok(())
    }

    async fn execute<S: Session>(
        &self,
        session: &mut S,
        input: &TatpInput,
        written: &mut Written,
    ) -> Result<Outcome, DbError> {
        let Some(access) = &self.access else {
            return Err(DbError::new(
                ErrorKind::Other,
                "TATP opened on an engine without data runs no statements",
            ));
        };
        procedures::execute(session, input, written, access).await
    }

    fn ack_fields(&self, txn_type: usize) -> &'static str {
        procedures::ack_fields(txn_type)
    }
}

impl Benchmark for Tatp {
    const ABOUT: &'static About = &ABOUT;
    type Definition = NoOptions;
    fn schema() -> &'static Schema {
        &schema::SCHEMA
    }
    fn meta() -> &'static MetaTable {
        &meta::META
    }
    type LoadOptions = TatpLoadOptions;
    type RunOptions = TatpRunOptions;

    fn refuse_load<E: Engine>(engine: &E, options: &TatpLoadOptions) -> Result<(), WorkloadError> {
        load::refuse(engine, options.partitions)
    }

    async fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        options: &TatpLoadOptions,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        load::load(engine, plan, options.partitions, rows_done).await
    }

    fn describe_load(options: &TatpLoadOptions) -> String {
        match options.partitions {
            0 => String::new(),
            n => format!(" in {n} hash partitions"),
        }
    }

    fn expected_rows(subscribers: i64) -> u64 {
        generate::expected_rows(subscribers)
    }

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        _seed: u64,
        options: &TatpRunOptions,
    ) -> Result<Self, WorkloadError> {
        Tatp::open(session, asked, options).await
    }

    fn check() -> Option<Check> {
        Some(Check {
            summary: "Verify the population's invariants (exit 0 if all hold, 1 otherwise)",
            run: |session, loaded| Box::pin(check_loaded(session, loaded)),
        })
    }

    fn scale(&self) -> i64 {
        self.subscribers()
    }

    type Parameters = TatpParameters;

    fn parameters(&self) -> TatpParameters {
        Tatp::parameters(self)
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        Tatp::served_parameters(self)
    }

    /// One sweep per strategy of `--key-access` where it names several.
    fn variants(options: &TatpRunOptions) -> Vec<Variant<TatpRunOptions>> {
        let Some(choice) = &options.key_access else {
            return Vec::new();
        };
        match choice.strategies() {
            [_] => Vec::new(),
            several => several
                .iter()
                .map(|&strategy| Variant {
                    option: "key_access",
                    value: strategy.name(),
                    options: TatpRunOptions {
                        key_access: Some(KeyAccessChoice::one(strategy)),
                    },
                })
                .collect(),
        }
    }

    /// The types keyed by `sub_nbr`: the ones the strategies differ in.
    const VARIANT_TYPES: &'static [&'static str] = &[
        "update_location",
        "insert_call_forwarding",
        "delete_call_forwarding",
    ];

    /// MQTh (committed transactions a second) and all transactions a second.
    fn metrics(types: &[TypeResult], measured_secs: f64, _basis: MetricBasis) -> Vec<Metric> {
        let committed: u64 = types.iter().map(|t| t.committed).sum();
        let completed: u64 = types.iter().map(TypeResult::completed).sum();
        vec![
            Metric {
                name: "MQTh".into(),
                value: rate(committed, measured_secs),
                unit: "successful txn/s".into(),
                counts: Some(Counted::Committed),
                interval: None,
            },
            Metric {
                name: "throughput".into(),
                value: rate(completed, measured_secs),
                unit: "txn/s".into(),
                counts: Some(Counted::Completed),
                interval: None,
            },
        ]
    }
}

/// TATP's invariants on the database `loaded` describes: by scripts on a
/// store that runs only scripts, by SQL elsewhere.
async fn check_loaded<S: Session>(
    session: &mut S,
    loaded: &Loaded,
) -> Result<Vec<ConditionResult>, WorkloadError> {
    if session.execution() == Execution::Scripts {
        let partitions = meta::partitions(loaded.entries.int(meta::PARTITIONS)?, true)?;
        return Ok(check::check_scripts(session, loaded.scale, partitions).await?);
    }
    let indexed = loaded.entries.has(meta::KEY_INDEX);
    Ok(check::check(session, loaded.scale, indexed).await?)
}
