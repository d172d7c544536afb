//! TPC-C's ACID tests that a client can drive (clause 3), on a loaded
//! database, through the workload's own procedures (docs/durability.md):
//!
//! * `atomicity`: a New-Order and a Payment committed, then the same with a
//!   ROLLBACK in place of the COMMIT (3.2.2): all of it there, or none.
//! * `isolation`: two sessions, one transaction held just before its COMMIT
//!   while the other runs (3.4.2.1 to 3.4.2.6): nothing uncommitted seen, no
//!   update lost, order numbers distinct.
//! * `anomalies`: a transaction that reads twice while another commits a
//!   change between the reads (3.4.2.7 to 3.4.2.9): judged where the
//!   isolation level in effect promises the reads repeat.
//!
//! Consistency (the conditions before and after) and durability (a run with
//! the acknowledged-work log across a crash, then `verify`) are the command
//! line's: they are every workload's check and run.

mod anomalies;
mod atomicity;
mod isolation;
mod probe;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use txbench_core::rng::Rand;
use txbench_core::{Engine, Isolation, Session};

use super::Tpcc;
use super::constants::{CUSTOMERS, DISTRICTS, ITEMS};
use super::input::{LineInput, NewOrderInput};
use crate::acid::AcidReport;
use crate::error::WorkloadError;
use crate::gate::End;

/// How long a held transaction may take to reach its COMMIT.
const REACH: Duration = Duration::from_secs(10);
/// How long the other transaction is given to finish while one is held: a
/// database that makes it wait shows it within this.
const WHILE_HELD: Duration = Duration::from_secs(2);
/// How long the other transaction may take once the held one has ended
/// (above InnoDB's 50 s lock wait timeout, so that its error is what shows).
const AFTER: Duration = Duration::from_secs(60);

/// Run the tests on the loaded database `engine` reaches; `seed` picks the
/// warehouses, districts, customers and items they use.
pub async fn tests<E: Engine>(engine: Arc<E>, seed: u64) -> Result<AcidReport, WorkloadError> {
    let mut session = engine.connect().await?;
    let tpcc = Tpcc::open(&mut session, None, seed).await?;
    let level = session.isolation_in_effect().await?;
    drop(session);
    let mut lab = Lab {
        engine,
        rng: Rand::derive(seed, u64::MAX - 3),
        warehouses: tpcc.warehouses(),
        level,
    };
    let mut tests = Vec::new();
    for end in [End::Commit, End::RollBack] {
        tests.push(atomicity::new_order(&mut lab, end).await);
        tests.push(atomicity::payment(&mut lab, end).await);
    }
    // In the clauses' order: each pair committed, then rolled back.
    for end in [End::Commit, End::RollBack] {
        tests.push(isolation::new_order_vs_order_status(&mut lab, end).await);
    }
    for end in [End::Commit, End::RollBack] {
        tests.push(isolation::new_order_vs_new_order(&mut lab, end).await);
    }
    for end in [End::Commit, End::RollBack] {
        tests.push(isolation::delivery_vs_payment(&mut lab, end).await);
    }
    tests.push(anomalies::repeated_price_read(&mut lab).await);
    tests.push(anomalies::new_orders_of_a_district(&mut lab).await);
    tests.push(anomalies::orders_of_a_customer(&mut lab).await);
    Ok(AcidReport {
        isolation: level,
        tests,
    })
}

/// What the tests share: the engine, the level in effect and the random
/// choices.
pub(crate) struct Lab<E: Engine> {
    engine: Arc<E>,
    rng: Rand,
    warehouses: i64,
    level: Option<Isolation>,
}

impl<E: Engine> Lab<E> {
    /// A new session.
    async fn session(&self) -> Result<E::Session, txbench_core::DbError> {
        self.engine.connect().await
    }

    /// A warehouse, a district and a customer, uniformly.
    fn place(&mut self) -> (i64, i64, i64) {
        (
            self.rng.uniform(1, self.warehouses),
            self.rng.uniform(1, DISTRICTS),
            self.rng.uniform(1, CUSTOMERS),
        )
    }

    /// Another customer of the same district.
    fn customer(&mut self) -> i64 {
        self.rng.uniform(1, CUSTOMERS)
    }

    /// A valid New-Order of 5 to 10 home-supplied lines of distinct items.
    fn new_order(&mut self, w_id: i64, d_id: i64, c_id: i64) -> NewOrderInput {
        let count = self.rng.uniform(5, 10) as usize;
        let mut items: Vec<i64> = Vec::with_capacity(count);
        while items.len() < count {
            let item = self.rng.uniform(1, ITEMS);
            if !items.contains(&item) {
                items.push(item);
            }
        }
        let lines = items
            .into_iter()
            .map(|item| LineInput {
                item,
                supply_w_id: w_id,
                quantity: self.rng.uniform(1, 10),
            })
            .collect();
        NewOrderInput {
            w_id,
            d_id,
            c_id,
            lines,
        }
    }

    /// An amount of money, 1.00 to 5,000.00, as Payment draws it.
    fn amount(&mut self) -> f64 {
        self.rng.decimal(1.0, 5000.0, 2)
    }

    /// Whether the level in effect promises at least `level`'s guarantees
    /// (an unknown level promises nothing beyond read committed).
    fn promises(&self, level: Isolation) -> bool {
        strength(self.level) >= strength(Some(level))
    }

    /// The level in effect, for the evidence.
    fn level_name(&self) -> &'static str {
        self.level
            .map_or("the database's own level", Isolation::name)
    }
}

fn strength(level: Option<Isolation>) -> u8 {
    match level {
        None | Some(Isolation::ReadCommitted) => 0,
        Some(Isolation::RepeatableRead) => 1,
        Some(Isolation::Serializable) => 2,
    }
}

/// What a held transaction's end is called in the evidence.
fn ended(end: End) -> &'static str {
    match end {
        End::Commit => "committed",
        End::RollBack => "rolled back (ROLLBACK in place of its COMMIT)",
    }
}

/// Run `work` on a thread of its own: an embedded engine blocks the thread
/// that waits for a lock, and must not block the test that holds it.
fn on_own_thread<T: Send + 'static>(
    work: impl Future<Output = T> + Send + 'static,
) -> JoinHandle<T> {
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || runtime.block_on(work))
}

/// What `task` gave back if it finished within `within`; `None` while it
/// still runs (it is left running, to be waited for again).
async fn finished_within<T>(task: &mut JoinHandle<T>, within: Duration) -> Option<T> {
    match tokio::time::timeout(within, task).await {
        Ok(Ok(value)) => Some(value),
        // A test's own transaction panicked: that is a bug, and shows as one.
        Ok(Err(e)) => std::panic::resume_unwind(e.into_panic()),
        Err(_) => None,
    }
}

/// Wait for a task at most [`AFTER`]; a task still running then is an error
/// that names it.
async fn awaited<T>(mut task: JoinHandle<T>, who: &str) -> Result<T, txbench_core::DbError> {
    finished_within(&mut task, AFTER).await.ok_or_else(|| {
        txbench_core::DbError::new(
            txbench_core::ErrorKind::Other,
            format!("{who} did not finish within {} s", AFTER.as_secs()),
        )
    })
}

/// Run a procedure again while it ends in a conflict (a serialization
/// failure, a deadlock), at most 5 times, as the driver retries: its last
/// result and the conflicts it met.
macro_rules! retrying {
    ($session:expr, $attempt:expr) => {{
        let mut conflicts = 0u32;
        loop {
            match $attempt {
                Err(e) if e.kind == txbench_core::ErrorKind::Conflict && conflicts < 5 => {
                    let _ = txbench_core::Session::rollback(&mut $session).await;
                    conflicts += 1;
                }
                other => break (other, conflicts),
            }
        }
    }};
}
pub(crate) use retrying;
