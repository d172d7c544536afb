//! TATP, the Telecom Application Transaction Processing benchmark (IBM's
//! description v1.0): a home-location register of N subscribers and seven short
//! transactions, 80% reads, keyed by subscriber id or, for a fifth of them, by
//! the alternative unique key `sub_nbr`.
//!
//! * [`schema`], [`generate`] and [`load`]: the four tables and their population.
//! * [`input`]: the mix, the NURand subscriber draw and the terminals.
//! * [`procedures`]: the seven transactions, written once against [`Session`].
//! * [`expected`]: the success rates the population implies.
//! * [`check`]: the population's invariants.
//!
//! The headline figure is MQTh: successful (committed) transactions per second.

pub mod check;
pub mod constants;
pub mod expected;
pub mod generate;
pub mod input;
pub mod load;
pub mod meta;
pub mod procedures;
pub mod schema;

use thiserror::Error;
use txbench_core::driver::WaitMode;
use txbench_core::result::{Metric, TypeResult};
use txbench_core::{DbError, Outcome, Session, Shard, TxnTypeInfo, Workload};

use constants::{DEFAULT_TERMINALS, TXN_TYPES};
use input::{InputGenerator, TatpInput, TatpTerminal};

/// Why a TATP command cannot go on.
#[derive(Debug, Error)]
pub enum TatpError {
    /// Nothing is loaded.
    #[error("the database holds no TATP data: load it first with `txbench tatp load --db ...`")]
    NotLoaded,
    /// A load was interrupted.
    #[error(
        "the TATP load in this database did not finish: reload with `txbench tatp load --drop`"
    )]
    Incomplete,
    /// Data is already loaded.
    #[error("the database already holds TATP data ({0} subscribers): add --drop to replace it")]
    AlreadyLoaded(i64),
    /// The run asked for another scale than is loaded.
    #[error("--subscribers {asked} disagrees with the {loaded} subscribers loaded in the database")]
    ScaleMismatch {
        /// What the user asked for.
        asked: i64,
        /// What the database holds.
        loaded: i64,
    },
    /// An invalid scale.
    #[error("invalid subscriber count {0}: it must be at least 1")]
    BadScale(i64),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The TATP workload over a population of subscribers.
#[derive(Debug, Clone)]
pub struct Tatp {
    inputs: InputGenerator,
    /// The first terminal's random stream: 0, or a shard's own block.
    stream_base: u64,
}

impl Tatp {
    /// A workload over `subscribers` subscribers.
    pub fn new(subscribers: i64) -> Self {
        Tatp {
            inputs: InputGenerator::new(subscribers),
            stream_base: 0,
        }
    }

    /// Open the workload on a loaded database, checking the scale against
    /// `asked` (a session that holds no data, the null engine, takes `asked`).
    pub async fn open<S: Session>(session: &mut S, asked: Option<i64>) -> Result<Tatp, TatpError> {
        if let Some(served) = session.served_parameters() {
            let get = |k: &str| {
                served
                    .iter()
                    .find(|(key, _)| key == k)
                    .map(|(_, v)| v.as_str())
            };
            if get("workload") != Some("tatp") {
                return Err(TatpError::Db(DbError::new(
                    txbench_core::ErrorKind::Other,
                    format!(
                        "the txbench server serves '{}', not TATP",
                        get("workload").unwrap_or("an unknown workload")
                    ),
                )));
            }
            let n = get("subscribers")
                .and_then(|v| v.parse::<i64>().ok())
                .filter(|&n| n >= 1)
                .ok_or(TatpError::Incomplete)?;
            if let Some(asked) = asked.filter(|&a| a != n) {
                return Err(TatpError::ScaleMismatch { asked, loaded: n });
            }
            return Ok(Tatp::new(n));
        }
        if !S::EXECUTES {
            let n = asked.unwrap_or(constants::DEFAULT_SUBSCRIBERS);
            if n < 1 {
                return Err(TatpError::BadScale(n));
            }
            return Ok(Tatp::new(n));
        }
        let state = meta::read(session).await?.ok_or(TatpError::NotLoaded)?;
        if !state.complete || state.subscribers < 1 {
            return Err(TatpError::Incomplete);
        }
        if let Some(asked) = asked
            && asked != state.subscribers
        {
            return Err(TatpError::ScaleMismatch {
                asked,
                loaded: state.subscribers,
            });
        }
        Ok(Tatp::new(state.subscribers))
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
    pub fn parameters(&self) -> Vec<(String, String)> {
        vec![
            (
                "subscribers".to_string(),
                self.inputs.subscribers.to_string(),
            ),
            ("nurand_a".to_string(), self.inputs.a.to_string()),
            (
                "drawn_subscribers".to_string(),
                format!("{}..{}", self.inputs.drawn.0, self.inputs.drawn.1),
            ),
        ]
    }
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
    fn shard(&mut self, shard: Shard) -> Result<(), String> {
        let range = shard.range(self.inputs.subscribers, "subscribers")?;
        self.inputs.drawn = (*range.start(), *range.end());
        self.stream_base = u64::from(shard.index()) << 32;
        Ok(())
    }

    async fn execute<S: Session>(
        &self,
        session: &mut S,
        input: &TatpInput,
    ) -> Result<Outcome, DbError> {
        procedures::execute(session, input).await
    }

    fn metrics(&self, types: &[TypeResult], measured_secs: f64, _wait: WaitMode) -> Vec<Metric> {
        let per_second = |n: u64| {
            if measured_secs > 0.0 {
                n as f64 / measured_secs
            } else {
                0.0
            }
        };
        let committed: u64 = types.iter().map(|t| t.committed).sum();
        let completed: u64 = types.iter().map(TypeResult::completed).sum();
        vec![
            Metric {
                name: "MQTh".into(),
                value: per_second(committed),
                unit: "successful txn/s".into(),
            },
            Metric {
                name: "throughput".into(),
                value: per_second(completed),
                unit: "txn/s".into(),
            },
        ]
    }
}
