//! Retwis, the Twitter-clone key-value transaction mix used to evaluate TAPIR:
//! few keys per transaction, drawn uniformly or Zipf-skewed, so it measures
//! contention, aborts and retries rather than query work.
//!
//! * [`input`]: the mix and each transaction's gets and puts, and the terminals.
//! * [`schema`], [`generate`], [`load`], [`meta`]: the key table and its load.
//! * [`procedures`]: the transactions, the same on every engine (point reads
//!   and updates on SQL engines, WATCH/GET and MULTI/SET/EXEC on Redis).
//!
//! The headline figures are committed transactions per second and the abort
//! rate: the share of attempts that ended in a conflict (each then retried).

pub mod constants;
pub mod generate;
pub mod input;
pub mod load;
pub mod meta;
pub mod options;
pub mod procedures;
pub mod schema;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use serde::Serialize;
use txbench_core::keys::KeyChooser;
use txbench_core::result::{Counted, Metric, TypeResult};
use txbench_core::rng::Rand;
use txbench_core::schema::Schema;
use txbench_core::{
    DbError, Engine, Outcome, Planned, Session, Shard, ShardError, Terminal, TxnTypeInfo, Workload,
    Written,
};

use crate::about::{About, RunFlags, Scale};
use crate::benchmark::{Benchmark, MetricBasis, rate};
use crate::bulk::LoadPlan;
use crate::bulk::LoadSummary;
use crate::error::WorkloadError;
use crate::meta_table::MetaTable;
use crate::opening::{self, Found};
use crate::options::NoOptions;
use crate::parameters::Span;
use constants::{DEFAULT_KEYS, DEFAULT_TERMINALS, DEFAULT_VALUE_SIZE, TXN_TYPES};
use input::{GET_TIMELINE, RetwisInput};
use options::{RetwisLoadOptions, RetwisRunOptions};

/// Retwis's names and scale.
pub static ABOUT: About = About {
    name: "retwis",
    title: "Retwis",
    summary: "Retwis: key-value transactions under contention (TAPIR's mix) on SQL engines or \
              Redis; without a verb, load 1,000,000 keys, run and report (embedded SQLite by default)",
    load_summary: "Load the key space (keys 1..N, each with a random value)",
    run_summary: "Run the mix against a loaded key space and report",
    scale: Scale {
        unit: "keys",
        one: "key",
        short: None,
        default: DEFAULT_KEYS,
        max: 1_000_000_000,
    },
    run_flags: RunFlags {
        terminals: "10",
        wait_spec: None,
        home: None,
        seed_draws: "the inputs (keys, by the Zipf distribution, and the values written)",
    },
    required_example: "",
    foreign_keys: None,
};

/// The Retwis workload over a key space.
#[derive(Debug, Clone)]
pub struct Retwis {
    keys: i64,
    value_size: usize,
    zipf: f64,
    chooser: Arc<KeyChooser>,
    value: Arc<str>,
    /// The keys drawn from: all, or a shard's range.
    drawn: (i64, i64),
    /// The first terminal's random stream: 0, or a shard's own block.
    stream_base: u64,
}

impl Retwis {
    /// A workload over keys `1..=keys` drawn with Zipf coefficient `zipf` (0:
    /// uniform), whose puts write values of `value_size` bytes made from `seed`.
    pub fn new(
        keys: i64,
        value_size: usize,
        zipf: f64,
        seed: u64,
    ) -> Result<Retwis, WorkloadError> {
        if keys < 1 {
            return Err(WorkloadError::BadScale {
                about: &ABOUT,
                value: keys,
            });
        }
        options::check_value_size(value_size)?;
        let chooser = KeyChooser::new(keys as u64, zipf)
            .map_err(|e| WorkloadError::BadOption(e.to_string()))?;
        let value = Rand::derive(seed, u64::MAX).astring(value_size, value_size);
        Ok(Retwis {
            keys,
            value_size,
            zipf,
            chooser: Arc::new(chooser),
            value: value.into(),
            drawn: (1, keys),
            stream_base: 0,
        })
    }

    /// Open the workload on a loaded database (or a server that serves it),
    /// checking the key space against `asked` (a session that holds no data,
    /// the null engine, takes `asked`).
    pub async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        zipf: f64,
        seed: u64,
    ) -> Result<Retwis, WorkloadError> {
        let (keys, found) = opening::find(session, &meta::META, asked).await?;
        let value_size = match found {
            Found::Nothing => DEFAULT_VALUE_SIZE,
            found => found.int("value_size")?.unwrap_or(0).max(0) as usize,
        };
        Retwis::new(keys, value_size, zipf, seed)
    }

    /// Keys in the key space.
    pub fn keys(&self) -> i64 {
        self.keys
    }

    /// What a txbench server tells its clients about the database it serves.
    pub fn served_parameters(&self) -> Vec<(String, String)> {
        vec![
            ("workload".to_string(), "retwis".to_string()),
            ("keys".to_string(), self.keys.to_string()),
            ("value_size".to_string(), self.value_size.to_string()),
        ]
    }

    /// Settings worth recording with the results.
    pub fn parameters(&self) -> RetwisParameters {
        RetwisParameters {
            value_size: self.value_size,
            drawn_keys: Span(self.drawn.0, self.drawn.1),
        }
    }
}

/// What a Retwis run records of the data it ran on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RetwisParameters {
    /// Bytes per value of the loaded data.
    pub value_size: usize,
    /// The keys this process drew from (all, or a shard's).
    pub drawn_keys: Span,
}

/// The operations timed on their own: the statements' names, and the commit.
static OPERATIONS: [&str; 3] = [procedures::GET.name, procedures::PUT.name, "commit"];

/// One Retwis client: draws the type from the mix, then its keys.
pub struct RetwisTerminal {
    rng: Rand,
    chooser: Arc<KeyChooser>,
}

impl Terminal for RetwisTerminal {
    type Input = RetwisInput;

    fn next(&mut self) -> Planned<RetwisInput> {
        let txn_type = input::next_type(&mut self.rng);
        Planned {
            input: input::input(&mut self.rng, &self.chooser, txn_type),
            txn_type,
            keying: Duration::ZERO,
            think: Duration::ZERO,
        }
    }
}

impl Workload for Retwis {
    type Input = RetwisInput;
    type Terminal = RetwisTerminal;

    fn name(&self) -> &'static str {
        "retwis"
    }

    fn transaction_types(&self) -> &'static [TxnTypeInfo] {
        &TXN_TYPES
    }

    fn default_terminals(&self) -> usize {
        DEFAULT_TERMINALS
    }

    /// Get, put and commit, as TAPIR's experiments report them.
    fn operations(&self) -> &'static [&'static str] {
        &OPERATIONS
    }

    fn terminal(&self, index: usize, seed: u64) -> RetwisTerminal {
        RetwisTerminal {
            rng: Rand::derive(seed, self.stream_base + index as u64),
            chooser: Arc::clone(&self.chooser),
        }
    }

    /// Keys drawn from the shard's range, with the skew over that range (its
    /// first key the hottest); terminals on streams no other shard uses.
    fn shard(&mut self, shard: Shard) -> Result<(), ShardError> {
        let range = shard.range(self.keys, "keys")?;
        let (first, last) = (*range.start(), *range.end());
        self.chooser = Arc::new(KeyChooser::over(
            first as u64,
            (last - first + 1) as u64,
            self.zipf,
        )?);
        self.drawn = (first, last);
        self.stream_base = u64::from(shard.index()) << 32;
        Ok(())
    }

    async fn execute<S: Session>(
        &self,
        session: &mut S,
        input: &RetwisInput,
        written: &mut Written,
    ) -> Result<Outcome, DbError> {
        procedures::execute(session, input, &self.value, written).await
    }

    fn ack_fields(&self, txn_type: usize) -> &'static str {
        match txn_type {
            GET_TIMELINE => "",
            _ => procedures::ACK_FIELDS,
        }
    }
}

impl Benchmark for Retwis {
    const ABOUT: &'static About = &ABOUT;
    type Definition = NoOptions;
    fn schema() -> &'static Schema {
        &schema::SCHEMA
    }
    fn meta() -> &'static MetaTable {
        &meta::META
    }
    type LoadOptions = RetwisLoadOptions;
    type RunOptions = RetwisRunOptions;

    async fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        options: &RetwisLoadOptions,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        load::load(engine, plan, options, rows_done).await
    }

    fn expected_rows(keys: i64) -> u64 {
        keys.max(0) as u64
    }

    fn describe_load(options: &RetwisLoadOptions) -> String {
        format!(" of {} bytes", options.value_size)
    }

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        seed: u64,
        options: &RetwisRunOptions,
    ) -> Result<Self, WorkloadError> {
        Retwis::open(session, asked, options.zipf, seed).await
    }

    fn scale(&self) -> i64 {
        self.keys()
    }

    type Parameters = RetwisParameters;

    fn parameters(&self) -> RetwisParameters {
        Retwis::parameters(self)
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        Retwis::served_parameters(self)
    }

    /// Committed transactions a second, the abort rate (conflicts among
    /// attempts) and retries per committed transaction.
    fn metrics(types: &[TypeResult], measured_secs: f64, _basis: MetricBasis) -> Vec<Metric> {
        let committed: u64 = types.iter().map(|t| t.committed).sum();
        let retries: u64 = types.iter().map(|t| t.retries).sum();
        let aborts: u64 = types.iter().map(TypeResult::aborts).sum();
        let attempts: u64 = types.iter().map(TypeResult::attempts).sum();
        let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
        vec![
            Metric {
                name: "throughput".into(),
                value: rate(committed, measured_secs),
                unit: "committed txn/s".into(),
                counts: Some(Counted::Committed),
                interval: None,
            },
            Metric {
                name: "abort rate".into(),
                value: ratio(aborts, attempts) * 100.0,
                unit: "%".into(),
                counts: None,
                interval: None,
            },
            Metric {
                name: "retries".into(),
                value: ratio(retries, committed),
                unit: "per committed txn".into(),
                counts: None,
                interval: None,
            },
        ]
    }
}
