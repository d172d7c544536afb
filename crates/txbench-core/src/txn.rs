//! What a transaction type is and how a transaction ends: the data the
//! workload, the engine, the recorder, the checks and the result model all
//! speak, depending on nothing of theirs.

use std::time::Duration;

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
    /// The success share the run's own writes move [`TxnTypeInfo::expected_success`]
    /// towards, where they change the rows it depends on (TATP's
    /// Get-New-Destination as Insert- and Delete-Call-Forwarding churn the
    /// forwardings): a run's share lies between the two. `None`: it stays.
    pub success_drifts_to: Option<f64>,
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
            success_drifts_to: None,
        }
    }

    /// The type with its success share drifting to `to` as runs change the
    /// population ([`TxnTypeInfo::success_drifts_to`]).
    pub const fn drifting_to(self, to: f64) -> TxnTypeInfo {
        TxnTypeInfo {
            success_drifts_to: Some(to),
            ..self
        }
    }

    /// The success shares a run of the type may show, lowest first: the
    /// expected one, or the span from it to where the run's writes move it.
    pub fn expected_span(&self) -> Option<(f64, f64)> {
        success_span(self.expected_success, self.success_drifts_to)
    }
}

/// The success shares expected of a type, lowest first: `expected`, or the
/// span from it to where the run's own writes move it, `drifts_to`. A type
/// and its result both carry the two.
pub fn success_span(expected: Option<f64>, drifts_to: Option<f64>) -> Option<(f64, f64)> {
    let p = expected?;
    let q = drifts_to.unwrap_or(p);
    Some((p.min(q), p.max(q)))
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
