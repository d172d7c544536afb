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
pub mod procedures;
pub mod schema;

use std::sync::Arc;
use std::time::Duration;

use thiserror::Error;
use txbench_core::driver::WaitMode;
use txbench_core::keys::KeyChooser;
use txbench_core::result::{Metric, TypeResult};
use txbench_core::rng::Rand;
use txbench_core::{
    DbError, ErrorKind, Outcome, Planned, Session, Shard, Terminal, TxnTypeInfo, Workload,
};

use constants::{DEFAULT_KEYS, DEFAULT_TERMINALS, DEFAULT_VALUE_SIZE, TXN_TYPES};
use input::RetwisInput;

/// Why a Retwis command cannot go on.
#[derive(Debug, Error)]
pub enum RetwisError {
    /// Nothing is loaded.
    #[error("the database holds no Retwis data: load it first with `txbench retwis load --db ...`")]
    NotLoaded,
    /// A load was interrupted.
    #[error(
        "the Retwis load in this database did not finish: reload with `txbench retwis load --drop`"
    )]
    Incomplete,
    /// Data is already loaded.
    #[error("the database already holds Retwis data ({0} keys): add --drop to replace it")]
    AlreadyLoaded(i64),
    /// The run asked for another key space than is loaded.
    #[error("--keys {asked} disagrees with the {loaded} keys loaded in the database")]
    ScaleMismatch {
        /// What the user asked for.
        asked: i64,
        /// What the database holds.
        loaded: i64,
    },
    /// An invalid key count.
    #[error("invalid key count {0}: it must be at least 1")]
    BadScale(i64),
    /// An invalid value size.
    #[error("invalid value size {0}: it must be 1..={max} bytes", max = schema::MAX_VALUE)]
    BadValueSize(usize),
    /// An invalid Zipf coefficient.
    #[error("{0}")]
    BadZipf(String),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

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
    pub fn new(keys: i64, value_size: usize, zipf: f64, seed: u64) -> Result<Retwis, RetwisError> {
        if keys < 1 {
            return Err(RetwisError::BadScale(keys));
        }
        if !(1..=schema::MAX_VALUE).contains(&value_size) {
            return Err(RetwisError::BadValueSize(value_size));
        }
        let chooser = KeyChooser::new(keys as u64, zipf).map_err(RetwisError::BadZipf)?;
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

    /// Open the workload on a loaded database, checking the key space against
    /// `asked` (a session that holds no data, the null engine, takes `asked`).
    pub async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        zipf: f64,
        seed: u64,
    ) -> Result<Retwis, RetwisError> {
        let check = |loaded: i64| match asked {
            Some(asked) if asked != loaded => Err(RetwisError::ScaleMismatch { asked, loaded }),
            _ => Ok(()),
        };
        if let Some(served) = session.served_parameters() {
            let get = |k: &str| served.iter().find(|(key, _)| key == k).map(|(_, v)| v);
            if get("workload").map(String::as_str) != Some("retwis") {
                return Err(RetwisError::Db(DbError::new(
                    ErrorKind::Other,
                    "the txbench server does not serve Retwis",
                )));
            }
            let keys = get("keys").and_then(|v| v.parse().ok()).unwrap_or(0);
            let size = get("value_size").and_then(|v| v.parse().ok()).unwrap_or(0);
            check(keys)?;
            return Retwis::new(keys, size, zipf, seed);
        }
        if !S::EXECUTES {
            return Retwis::new(
                asked.unwrap_or(DEFAULT_KEYS),
                DEFAULT_VALUE_SIZE,
                zipf,
                seed,
            );
        }
        let state = meta::read(session).await?.ok_or(RetwisError::NotLoaded)?;
        if !state.complete || state.keys < 1 {
            return Err(RetwisError::Incomplete);
        }
        check(state.keys)?;
        Retwis::new(state.keys, state.value_size, zipf, seed)
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
    pub fn parameters(&self) -> Vec<(String, String)> {
        vec![
            ("keys".to_string(), self.keys.to_string()),
            ("zipf".to_string(), self.zipf.to_string()),
            ("value_size".to_string(), self.value_size.to_string()),
            (
                "drawn_keys".to_string(),
                format!("{}..{}", self.drawn.0, self.drawn.1),
            ),
        ]
    }
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
    fn shard(&mut self, shard: Shard) -> Result<(), String> {
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
    ) -> Result<Outcome, DbError> {
        procedures::execute(session, input, &self.value).await
    }

    fn metrics(&self, types: &[TypeResult], measured_secs: f64, _wait: WaitMode) -> Vec<Metric> {
        let committed: u64 = types.iter().map(|t| t.committed).sum();
        let retries: u64 = types.iter().map(|t| t.retries).sum();
        let aborts: u64 = types.iter().map(TypeResult::aborts).sum();
        let attempts: u64 = types.iter().map(TypeResult::attempts).sum();
        let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
        vec![
            Metric {
                name: "throughput".into(),
                value: if measured_secs > 0.0 {
                    committed as f64 / measured_secs
                } else {
                    0.0
                },
                unit: "committed txn/s".into(),
            },
            Metric {
                name: "abort rate".into(),
                value: ratio(aborts, attempts) * 100.0,
                unit: "%".into(),
            },
            Metric {
                name: "retries".into(),
                value: ratio(retries, committed),
                unit: "per committed txn".into(),
            },
        ]
    }
}
