//! The trait every workload implements: its transaction types, how terminals pick
//! the next transaction, and the procedures that execute them.

use std::future::Future;
use std::time::Duration;

use crate::engine::Session;
use crate::error::DbError;
use crate::shard::Shard;

/// The constants of one transaction type: the single table that the driver, the
/// auditor and the report all read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TxnTypeInfo {
    /// The display name ("New-Order").
    pub name: &'static str,
    /// The short name used in files and JSON ("new_order").
    pub key: &'static str,
    /// The share of the mix the specification requires, 0..1.
    pub mix: f64,
    /// The least share of the measured transactions the specification allows
    /// (TPC-C clause 5.2.3); `None` when it sets none.
    pub min_share: Option<f64>,
    /// The keying time the specification requires before the transaction.
    pub keying: Duration,
    /// The mean think time after the transaction.
    pub mean_think: Duration,
    /// The specification's limit on the 90th percentile response time.
    pub p90_limit: Duration,
    /// The share of transactions that should commit rather than end in an
    /// expected rollback (TATP's missing rows, TPC-C's 1% New-Order rollbacks);
    /// `None` when every one should commit.
    pub expected_success: Option<f64>,
}

/// Think times are truncated at this multiple of their mean (TPC-C clause
/// 5.2.5.4): the workloads that draw them and the scheduler that starts
/// terminals mid-think use the one value.
pub const THINK_TRUNCATION: f64 = 10.0;

impl TxnTypeInfo {
    /// The mean of `f` (in seconds) over the mix of `types`, each type
    /// weighted by its share: the mean keying time, think time or cycle.
    pub fn mix_mean(types: &[TxnTypeInfo], f: impl Fn(&TxnTypeInfo) -> Duration) -> f64 {
        let mix: f64 = types.iter().map(|t| t.mix).sum();
        if mix <= 0.0 {
            return 0.0;
        }
        types.iter().map(|t| t.mix / mix * f(t).as_secs_f64()).sum()
    }

    /// A type of a workload whose clients submit back to back: no keying or
    /// think times, and no response-time limit (left at a day so no check trips
    /// on it). TATP and Retwis.
    pub const fn back_to_back(
        name: &'static str,
        key: &'static str,
        mix: f64,
        expected_success: Option<f64>,
    ) -> TxnTypeInfo {
        TxnTypeInfo {
            name,
            key,
            mix,
            min_share: None,
            keying: Duration::ZERO,
            mean_think: Duration::ZERO,
            p90_limit: Duration::from_secs(86_400),
            expected_success,
        }
    }
}

/// How a transaction attempt ended when the database did not fail it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The transaction committed.
    Committed,
    /// The transaction rolled back as the specification requires (TPC-C's 1% New-Order
    /// rollbacks, TATP's missing rows): an expected outcome, not an error.
    ExpectedRollback,
}

/// The next transaction a terminal will submit, with the waits around it.
#[derive(Debug, Clone)]
pub struct Planned<I> {
    /// The transaction's input.
    pub input: I,
    /// The transaction type (an index into [`Workload::transaction_types`]).
    pub txn_type: usize,
    /// Keying time to wait before submitting.
    pub keying: Duration,
    /// Think time to wait after the response.
    pub think: Duration,
}

/// One emulated user: generates the inputs of the transactions it submits.
pub trait Terminal: Send + 'static {
    /// The workload's transaction input (serializable: a txbench server receives it).
    type Input: Send + Sync + serde::Serialize + 'static;
    /// The next transaction this terminal submits.
    fn next(&mut self) -> Planned<Self::Input>;

    /// The key a partition-aware client routes this terminal's work by (TPC-C:
    /// the home warehouse); `None` when the workload has none.
    fn home(&self) -> Option<u64> {
        None
    }
}

/// A terminal that submits the same input, of type 0, back to back: for synthetic
/// workloads (tests, the driver's own ceiling).
#[derive(Debug, Clone)]
pub struct RepeatTerminal<I>(pub I);

impl<I: Clone + Send + Sync + serde::Serialize + 'static> Terminal for RepeatTerminal<I> {
    type Input = I;
    fn next(&mut self) -> Planned<I> {
        Planned {
            input: self.0.clone(),
            txn_type: 0,
            keying: Duration::ZERO,
            think: Duration::ZERO,
        }
    }
}

/// A benchmark workload.
pub trait Workload: Send + Sync + 'static {
    /// The input of one transaction (its type and parameters); serializable, so
    /// that a txbench server can execute it.
    type Input: Send + Sync + serde::Serialize + 'static;
    /// The terminal type that generates inputs.
    type Terminal: Terminal<Input = Self::Input>;

    /// The workload's name ("tpcc").
    fn name(&self) -> &'static str;

    /// The transaction types, indexed by [`Planned::txn_type`].
    fn transaction_types(&self) -> &'static [TxnTypeInfo];

    /// The operations whose latency the run reports on their own, by the name of
    /// the statement (`"get"`, `"put"`) or the call (`"begin"`, `"commit"`,
    /// `"rollback"`, `"pipeline"`), as TAPIR's experiments report get, put and
    /// commit. Default: none (timing every statement of TPC-C would cost a
    /// histogram per statement per session).
    fn operations(&self) -> &'static [&'static str] {
        &[]
    }

    /// The number of terminals the specification asks for at this scale (of
    /// the shard, once [`Workload::shard`] narrowed it).
    fn default_terminals(&self) -> usize;

    /// Drive only `shard`'s part of the scale: its contiguous range of
    /// warehouses, subscribers or keys ([`Shard::range`]), with terminals whose
    /// random streams differ from every other shard's under the same seed. Runs
    /// of the shards together make the whole run. Default: only the whole run.
    fn shard(&mut self, shard: Shard) -> Result<(), String> {
        if shard.is_whole() {
            Ok(())
        } else {
            Err(format!("{} runs cannot be split into shards", self.name()))
        }
    }

    /// Terminal `index` (0-based) of the run, with its random stream derived from `seed`.
    fn terminal(&self, index: usize, seed: u64) -> Self::Terminal;

    /// Execute one transaction on a session, from `begin` to `commit` or rollback.
    ///
    /// On `Err` the driver rolls the session back and may retry.
    fn execute<'a, S: Session>(
        &'a self,
        session: &'a mut S,
        input: &'a Self::Input,
    ) -> impl Future<Output = Result<Outcome, DbError>> + Send + 'a;

    /// Execute one transaction as [`Workload::execute`] does, and also return
    /// what the specification says the terminal displays, as name/value pairs (a
    /// txbench server sends them back with the outcome). Default: nothing shown.
    fn execute_displayed<'a, S: Session>(
        &'a self,
        session: &'a mut S,
        input: &'a Self::Input,
    ) -> impl Future<Output = Result<(Outcome, Vec<(String, String)>), DbError>> + Send + 'a {
        async move { Ok((self.execute(session, input).await?, Vec::new())) }
    }
}
