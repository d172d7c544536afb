//! TPC-C, standard specification v5.11.
//!
//! * [`schema`]: the nine tables with the standard names, plus `txbench_meta`.
//! * [`generate`] and [`load`]: the initial population of clause 4.3.3.1, generated
//!   in parallel and written through the engine's bulk path.
//! * [`input`] and [`terminal`]: transaction inputs (pure) and the terminals that
//!   draw them from a deck of cards with keying and think times.
//! * [`new_order`], [`payment`], [`order_status`], [`delivery`], [`stock_level`]:
//!   the five procedures, written once against [`Session`].
//! * [`check`]: the twelve consistency conditions of clause 3.3.2.
//!
//! The NURand C-Load constants are recorded in the database at load time and the
//! run picks its C-Run from them, as clause 2.1.6.1 requires.

pub mod check;
pub mod constants;
mod customer;
pub mod delivery;
pub mod generate;
pub mod input;
pub mod load;
pub mod meta;
pub mod new_order;
pub mod order_status;
pub mod payment;
pub mod random;
pub mod schema;
pub mod stock_level;
pub mod terminal;

use std::ops::RangeInclusive;

use thiserror::Error;
use txbench_core::driver::WaitMode;
use txbench_core::result::{Metric, TypeResult};
use txbench_core::rng::Rand;
use txbench_core::{DbError, Outcome, Session, Shard, TxnTypeInfo, Workload};

use constants::{DISTRICTS, MAX_TPMC_PER_WAREHOUSE, NEW_ORDER, TERMINALS_PER_WAREHOUSE, TXN_TYPES};
use input::{InputGenerator, TpccInput};
use random::NurandConstants;
use terminal::TpccTerminal;

/// Why a TPC-C command cannot go on.
#[derive(Debug, Error)]
pub enum TpccError {
    /// Nothing is loaded.
    #[error("the database holds no TPC-C data: load it first with `txbench tpcc load --db ...`")]
    NotLoaded,
    /// A load was interrupted.
    #[error(
        "the TPC-C load in this database did not finish: reload with `txbench tpcc load --drop`"
    )]
    Incomplete,
    /// Data is already loaded.
    #[error("the database already holds TPC-C data ({0} warehouses): add --drop to replace it")]
    AlreadyLoaded(i64),
    /// The run asked for another scale than is loaded.
    #[error("--warehouses {asked} disagrees with the {loaded} warehouses loaded in the database")]
    WarehouseMismatch {
        /// What the user asked for.
        asked: i64,
        /// What the database holds.
        loaded: i64,
    },
    /// An invalid scale.
    #[error("invalid warehouse count {0}: it must be at least 1")]
    BadScale(i64),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The TPC-C workload at a given scale, with the run's NURand constants.
#[derive(Debug, Clone)]
pub struct Tpcc {
    inputs: InputGenerator,
    load_constants: Option<NurandConstants>,
    /// The home warehouses this process's terminals take: all of them, or a
    /// shard's contiguous range.
    homes: RangeInclusive<i64>,
}

impl Tpcc {
    /// A workload over `warehouses` warehouses with explicit run constants.
    pub fn new(warehouses: i64, run_constants: NurandConstants) -> Self {
        Tpcc {
            inputs: InputGenerator {
                warehouses,
                constants: run_constants,
            },
            load_constants: None,
            homes: 1..=warehouses,
        }
    }

    /// Open the workload on a loaded database: check the scale against
    /// `asked_warehouses` and choose a C-Run valid for the recorded C-Load.
    pub async fn open<S: Session>(
        session: &mut S,
        asked_warehouses: Option<i64>,
        seed: u64,
    ) -> Result<Tpcc, TpccError> {
        let mut rng = Rand::derive(seed, u64::MAX - 1);
        if let Some(served) = session.served_parameters() {
            return Tpcc::from_served(served, asked_warehouses, &mut rng);
        }
        if !S::EXECUTES {
            // A session that holds no data (the null engine): the scale is the one asked for.
            let load = NurandConstants::random(&mut rng);
            let warehouses = asked_warehouses.unwrap_or(1);
            if warehouses < 1 {
                return Err(TpccError::BadScale(warehouses));
            }
            return Ok(Tpcc::new(
                warehouses,
                NurandConstants::for_run(&load, &mut rng),
            ));
        }
        let state = meta::read(session).await?.ok_or(TpccError::NotLoaded)?;
        if !state.complete || state.warehouses < 1 {
            return Err(TpccError::Incomplete);
        }
        if let Some(asked) = asked_warehouses
            && asked != state.warehouses
        {
            return Err(TpccError::WarehouseMismatch {
                asked,
                loaded: state.warehouses,
            });
        }
        // A database another tool loaded does not say its C-Load: any C is then as
        // good as another, and the parameters say it was unknown.
        let load = state
            .constants
            .unwrap_or_else(|| NurandConstants::random(&mut rng));
        let mut tpcc = Tpcc::new(state.warehouses, NurandConstants::for_run(&load, &mut rng));
        tpcc.load_constants = state.constants;
        Ok(tpcc)
    }

    /// What a txbench server tells its clients about the TPC-C database it serves
    /// (see [`Tpcc::from_served`]).
    pub fn served_parameters(&self) -> Vec<(String, String)> {
        let mut out = vec![
            ("workload".to_string(), "tpcc".to_string()),
            ("warehouses".to_string(), self.inputs.warehouses.to_string()),
        ];
        if let Some(load) = self.load_constants {
            out.push(("c_last_load".to_string(), load.c_last.to_string()));
            out.push(("c_id".to_string(), load.c_id.to_string()));
            out.push(("ol_i_id".to_string(), load.ol_i_id.to_string()));
        }
        out
    }

    /// The workload a client of a txbench server drives: the server's scale, and
    /// a C-Run valid for the server's C-Load.
    fn from_served(
        served: &[(String, String)],
        asked: Option<i64>,
        rng: &mut Rand,
    ) -> Result<Tpcc, TpccError> {
        let get = |k: &str| {
            served
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        let int = |k: &str| get(k).and_then(|v| v.parse::<i64>().ok());
        if get("workload") != Some("tpcc") {
            return Err(TpccError::Db(DbError::new(
                txbench_core::ErrorKind::Other,
                format!(
                    "the txbench server serves '{}', not TPC-C",
                    get("workload").unwrap_or("an unknown workload")
                ),
            )));
        }
        let warehouses = int("warehouses")
            .filter(|&w| w >= 1)
            .ok_or(TpccError::Incomplete)?;
        if let Some(asked) = asked.filter(|&a| a != warehouses) {
            return Err(TpccError::WarehouseMismatch {
                asked,
                loaded: warehouses,
            });
        }
        let load = match (int("c_last_load"), int("c_id"), int("ol_i_id")) {
            (Some(c_last), Some(c_id), Some(ol_i_id)) => Some(NurandConstants {
                c_last,
                c_id,
                ol_i_id,
            }),
            _ => None,
        };
        let base = load.unwrap_or_else(|| NurandConstants::random(rng));
        let mut tpcc = Tpcc::new(warehouses, NurandConstants::for_run(&base, rng));
        tpcc.load_constants = load;
        Ok(tpcc)
    }

    /// Warehouses in the database.
    pub fn warehouses(&self) -> i64 {
        self.inputs.warehouses
    }

    /// The home warehouses this process drives (all, or a shard's).
    pub fn home_warehouses(&self) -> i64 {
        self.homes.end() - self.homes.start() + 1
    }

    /// The run's NURand constants.
    pub fn run_constants(&self) -> NurandConstants {
        self.inputs.constants
    }

    /// Settings worth recording with the results.
    pub fn parameters(&self) -> Vec<(String, String)> {
        let c = self.inputs.constants;
        let mut out = vec![
            ("warehouses".to_string(), self.inputs.warehouses.to_string()),
            (
                "home_warehouses".to_string(),
                format!("{}..{}", self.homes.start(), self.homes.end()),
            ),
            ("c_last_run".to_string(), c.c_last.to_string()),
            ("c_id".to_string(), c.c_id.to_string()),
            ("ol_i_id".to_string(), c.ol_i_id.to_string()),
        ];
        out.push((
            "c_last_load".to_string(),
            self.load_constants
                .map_or("unknown".to_string(), |l| l.c_last.to_string()),
        ));
        out
    }
}

impl Workload for Tpcc {
    type Input = TpccInput;
    type Terminal = TpccTerminal;

    fn name(&self) -> &'static str {
        "tpcc"
    }

    fn transaction_types(&self) -> &'static [TxnTypeInfo] {
        &TXN_TYPES
    }

    fn default_terminals(&self) -> usize {
        self.home_warehouses() as usize * TERMINALS_PER_WAREHOUSE
    }

    /// Terminals spread over the home warehouses first, then districts (as
    /// [`TpccTerminal::new`] does over all of them); each takes the random
    /// stream the same terminal has in an unsharded run, so the shards of a run
    /// draw what the whole run would.
    fn terminal(&self, index: usize, seed: u64) -> TpccTerminal {
        let homes = self.home_warehouses() as usize;
        let all = self.inputs.warehouses.max(1) as usize;
        let districts = DISTRICTS as usize;
        let (w, d, round) = (
            index % homes,
            (index / homes) % districts,
            index / homes / districts,
        );
        let w_id = *self.homes.start() as usize + w;
        let stream = round * districts * all + d * all + (w_id - 1);
        TpccTerminal::at(
            w_id as i64,
            d as i64 + 1,
            stream as u64,
            seed,
            self.inputs.clone(),
        )
    }

    /// Home warehouses are the shard's range; remote warehouses (1% of
    /// New-Order lines, 15% of Payments) are drawn from all of them.
    fn shard(&mut self, shard: Shard) -> Result<(), String> {
        self.homes = shard.range(self.inputs.warehouses, "warehouses")?;
        Ok(())
    }

    async fn execute<S: Session>(
        &self,
        session: &mut S,
        input: &TpccInput,
    ) -> Result<Outcome, DbError> {
        Ok(match input {
            TpccInput::NewOrder(i) => new_order::execute(session, i).await?.0,
            TpccInput::Payment(i) => payment::execute(session, i).await?.0,
            TpccInput::OrderStatus(i) => order_status::execute(session, i).await?.0,
            TpccInput::Delivery(i) => delivery::execute(session, i).await?.0,
            TpccInput::StockLevel(i) => stock_level::execute(session, i).await?.0,
        })
    }

    /// The displayed fields, in part: New-Order's order id, total and
    /// brand-generic flags (or the "Item number is not valid" message of a
    /// rollback, 2.4.3.4), the customer Payment charged, Order-Status's line count,
    /// Delivery's delivered orders and Stock-Level's low-stock count.
    async fn execute_displayed<S: Session>(
        &self,
        session: &mut S,
        input: &TpccInput,
    ) -> Result<(Outcome, Vec<(String, String)>), DbError> {
        let field = |name: &str, value: String| (name.to_string(), value);
        Ok(match input {
            TpccInput::NewOrder(i) => match new_order::execute(session, i).await? {
                (outcome, Some(out)) => (
                    outcome,
                    vec![
                        field("o_id", out.o_id.to_string()),
                        field("total", format!("{:.2}", out.total)),
                        field("brand_generic", out.brand_generic.iter().collect()),
                    ],
                ),
                (outcome, None) => (
                    outcome,
                    vec![field("message", "Item number is not valid".into())],
                ),
            },
            TpccInput::Payment(i) => {
                let (outcome, c_id) = payment::execute(session, i).await?;
                (outcome, vec![field("c_id", c_id.to_string())])
            }
            TpccInput::OrderStatus(i) => {
                let (outcome, lines) = order_status::execute(session, i).await?;
                (outcome, vec![field("order_lines", lines.to_string())])
            }
            TpccInput::Delivery(i) => {
                let (outcome, orders) = delivery::execute(session, i).await?;
                (outcome, vec![field("delivered", orders.to_string())])
            }
            TpccInput::StockLevel(i) => {
                let (outcome, low) = stock_level::execute(session, i).await?;
                (outcome, vec![field("low_stock", low.to_string())])
            }
        })
    }

    fn metrics(&self, types: &[TypeResult], measured_secs: f64, wait: WaitMode) -> Vec<Metric> {
        let minutes = measured_secs / 60.0;
        let per_minute = |n: u64| {
            if minutes > 0.0 {
                n as f64 / minutes
            } else {
                0.0
            }
        };
        let tpmc = per_minute(types[NEW_ORDER].committed);
        let completed: u64 = types.iter().map(TypeResult::completed).sum();
        let mut out = vec![
            Metric {
                name: "tpmC".into(),
                value: tpmc,
                unit: "New-Order/min".into(),
            },
            Metric {
                name: "throughput".into(),
                value: per_minute(completed) / 60.0,
                unit: "txn/s".into(),
            },
        ];
        if wait == WaitMode::Spec {
            out.push(Metric {
                name: "efficiency".into(),
                value: 100.0 * tpmc / (MAX_TPMC_PER_WAREHOUSE * self.home_warehouses() as f64),
                unit: "%".into(),
            });
        }
        out
    }
}
