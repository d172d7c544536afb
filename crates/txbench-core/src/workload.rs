//! The trait every workload implements: its transaction types, how terminals pick
//! the next transaction, and the procedures that execute them.

use std::future::Future;
use std::time::Duration;

use crate::alternation::Alternation;
use crate::engine::Session;
use crate::error::DbError;
use crate::shard::{Shard, ShardError};
pub use crate::txn::{Outcome, THINK_TRUNCATION, TxnTypeInfo};
use crate::written::Written;

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

    /// Terminals a run adds to those `--terminals` counts: the CH-benCHmark's
    /// analytical streams, which are the run's first terminals (indexes
    /// `0..added_terminals()` of [`Workload::terminal`]). Default: none.
    fn added_terminals(&self) -> usize {
        0
    }

    /// Phases without and with some of the transaction types, alternating
    /// in the window ([`Alternation`]); a closed loop holds those types'
    /// transactions outside their phases. Default: none.
    fn alternation(&self) -> Option<Alternation> {
        None
    }

    /// The rows of the last answer of type `txn_type`, for a type that
    /// answers with rows (the CH-benCHmark's queries), as this process saw
    /// them; `None` for the others, and where the answers were not seen
    /// here (a txbench server ran them). Default: none.
    fn answer_rows(&self, txn_type: usize) -> Option<u64> {
        let _ = txn_type;
        None
    }

    /// The looks its readers took at how fresh their data was
    /// ([`crate::freshness`]), warm-up included, as this process saw them,
    /// and what the looks compared against ("New-Order"). Default: none.
    fn freshness(&self) -> (&'static str, Vec<crate::freshness::Probe>) {
        ("", Vec::new())
    }

    /// Each execution of its analytical streams' transactions it timed,
    /// warm-up included, as this process saw them ([`crate::executed`]).
    /// Default: none.
    fn executed(&self) -> Vec<crate::executed::Executed> {
        Vec::new()
    }

    /// Drive only `shard`'s part of the scale: its contiguous range of
    /// warehouses, subscribers or keys ([`Shard::range`]), with terminals whose
    /// random streams differ from every other shard's under the same seed. Runs
    /// of the shards together make the whole run. Default: only the whole run.
    fn shard(&mut self, shard: Shard) -> Result<(), ShardError> {
        if shard.is_whole() {
            Ok(())
        } else {
            Err(ShardError::Unsplittable {
                workload: self.name().to_string(),
            })
        }
    }

    /// Terminal `index` (0-based) of the run, with its random stream derived from `seed`.
    fn terminal(&self, index: usize, seed: u64) -> Self::Terminal;

    /// Execute one transaction on a session, from `begin` to `commit` or rollback.
    /// A type that writes states, just before it commits or rolls back, what it
    /// wrote in `written` (the fields [`Workload::ack_fields`] names), so the
    /// acknowledged-work log can say what became of it.
    ///
    /// On `Err` the driver rolls the session back and may retry.
    fn execute<'a, S: Session>(
        &'a self,
        session: &'a mut S,
        input: &'a Self::Input,
        written: &'a mut Written,
    ) -> impl Future<Output = Result<Outcome, DbError>> + Send + 'a;

    /// The fields a transaction of type `txn_type` states in [`Written`],
    /// space-separated ("w_id d_id o_id"); empty for a type that states
    /// nothing (read-only ones). Default: none for every type.
    fn ack_fields(&self, txn_type: usize) -> &'static str {
        let _ = txn_type;
        ""
    }

    /// Execute one transaction as [`Workload::execute`] does, and also return
    /// what the specification says the terminal displays, as name/value pairs (a
    /// txbench server sends them back with the outcome). Default: nothing shown.
    fn execute_displayed<'a, S: Session>(
        &'a self,
        session: &'a mut S,
        input: &'a Self::Input,
        written: &'a mut Written,
    ) -> impl Future<Output = Result<(Outcome, Vec<(String, String)>), DbError>> + Send + 'a {
        async move { Ok((self.execute(session, input, written).await?, Vec::new())) }
    }
}
