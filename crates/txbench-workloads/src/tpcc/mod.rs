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
//! * [`verify`] and [`acid`]: acknowledged work held against the database, and
//!   the ACID tests of clause 3 that a client can drive.
//!
//! The NURand C-Load constants are recorded in the database at load time and the
//! run picks its C-Run from them, as clause 2.1.6.1 requires.

pub mod acid;
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
mod sets;
pub mod stock_level;
pub mod terminal;
pub mod verify;

use std::ops::RangeInclusive;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use serde::Serialize;
use txbench_core::driver::WaitMode;
use txbench_core::result::{Counted, Metric, TypeResult};
use txbench_core::rng::Rand;
use txbench_core::schema::Schema;
use txbench_core::{
    DbError, Engine, Outcome, Session, Shard, ShardError, TxnTypeInfo, Workload, Written,
};

use crate::about::{About, RunFlags, Scale};
use crate::benchmark::{Benchmark, MetricBasis, rate};
use crate::bulk::LoadPlan;
use crate::bulk::LoadSummary;
use crate::capability::{Acid, Check, Verify};
use crate::error::WorkloadError;
use crate::meta_table::MetaTable;
use crate::opening::{self, Found};
use crate::options::NoOptions;
use crate::parameters::{Span, known_or_unknown};
use constants::{
    DELIVERY, DISTRICTS, MAX_TPMC_PER_WAREHOUSE, NEW_ORDER, PAYMENT, TERMINALS_PER_WAREHOUSE,
    TXN_TYPES,
};
use input::{InputGenerator, TpccInput};
use random::NurandConstants;
use terminal::TpccTerminal;

/// TPC-C's names and scale.
pub static ABOUT: About = About {
    name: "tpcc",
    title: "TPC-C",
    summary: "TPC-C: without a verb, load, run and report in one go (embedded SQLite by default)",
    load_summary: "Create the schema and load the initial population",
    run_summary: "Drive the transaction mix and report throughput and latency",
    scale: Scale {
        unit: "warehouses",
        one: "warehouse",
        short: Some('w'),
        default: 1,
        max: 1_000_000,
    },
    run_flags: RunFlags {
        terminals: "10 per warehouse, as the specification has",
        wait_spec: Some("the keying and think times of clause 5.2.5.7"),
        home: Some("the node of its home warehouse ((warehouse - 1) mod nodes)"),
        seed_draws: "the inputs, and the run's constant C-Run for customer last names",
    },
    required_example: "",
    foreign_keys: Some("TPC-C's of clause 1.3"),
};

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

    /// Open the workload on a loaded database (or a server that serves it, or
    /// an engine that holds no data): check the scale against
    /// `asked_warehouses` and choose a C-Run valid for the recorded C-Load.
    pub async fn open<S: Session>(
        session: &mut S,
        asked_warehouses: Option<i64>,
        seed: u64,
    ) -> Result<Tpcc, WorkloadError> {
        let (warehouses, found) = opening::find(session, &meta::META, asked_warehouses).await?;
        Tpcc::opened(warehouses, &found, seed)
    }

    /// The workload over `warehouses` warehouses as `found` records them (a
    /// load's record, a server's handshake, or nothing), with a C-Run valid
    /// for the recorded C-Load, drawn from `seed`.
    pub fn opened(warehouses: i64, found: &Found, seed: u64) -> Result<Tpcc, WorkloadError> {
        let mut rng = Rand::derive(seed, u64::MAX - 1);
        let recorded = meta::load_constants(found)?;
        // A database another tool loaded does not say its C-Load: any C is then as
        // good as another, and the parameters say it was unknown.
        let load = recorded.unwrap_or_else(|| NurandConstants::random(&mut rng));
        let mut tpcc = Tpcc::new(warehouses, NurandConstants::for_run(&load, &mut rng));
        tpcc.load_constants = recorded;
        Ok(tpcc)
    }

    /// What a txbench server tells its clients about the TPC-C database it serves.
    pub fn served_parameters(&self) -> Vec<(String, String)> {
        let mut out = vec![
            ("workload".to_string(), "tpcc".to_string()),
            ("warehouses".to_string(), self.inputs.warehouses.to_string()),
        ];
        if let Some(load) = &self.load_constants {
            out.extend(
                meta::entries(load)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v)),
            );
        }
        out
    }

    /// Warehouses in the database.
    pub fn warehouses(&self) -> i64 {
        self.inputs.warehouses
    }

    /// The home warehouses this process drives (all, or a shard's).
    pub fn home_warehouses(&self) -> i64 {
        self.homes.end() - self.homes.start() + 1
    }

    /// Which warehouses this process drives: all, or a shard's range.
    pub fn homes(&self) -> RangeInclusive<i64> {
        self.homes.clone()
    }

    /// The run's NURand constants.
    pub fn run_constants(&self) -> NurandConstants {
        self.inputs.constants
    }

    /// Settings worth recording with the results.
    pub fn parameters(&self) -> TpccParameters {
        let c = self.inputs.constants;
        TpccParameters {
            home_warehouses: Span(*self.homes.start(), *self.homes.end()),
            c_last_run: c.c_last,
            c_id: c.c_id,
            ol_i_id: c.ol_i_id,
            c_last_load: self.load_constants.map(|l| l.c_last),
        }
    }
}

/// What a TPC-C run records of the data it ran on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TpccParameters {
    /// The home warehouses this process drove (all, or a shard's).
    pub home_warehouses: Span,
    /// The run's C for C_LAST (clause 2.1.6.1: its delta from C-Load's is checked).
    pub c_last_run: i64,
    /// The run's C for C_ID.
    pub c_id: i64,
    /// The run's C for OL_I_ID.
    pub ol_i_id: i64,
    /// C-Load for C_LAST, as the load recorded it; unknown where another
    /// tool loaded the database.
    #[serde(serialize_with = "known_or_unknown")]
    pub c_last_load: Option<i64>,
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
    fn shard(&mut self, shard: Shard) -> Result<(), ShardError> {
        self.homes = shard.range(self.inputs.warehouses, "warehouses")?;
        Ok(())
    }

    async fn execute<S: Session>(
        &self,
        session: &mut S,
        input: &TpccInput,
        written: &mut Written,
    ) -> Result<Outcome, DbError> {
        Ok(match input {
            TpccInput::NewOrder(i) => new_order::execute(session, i, written).await?.0,
            TpccInput::Payment(i) => payment::execute(session, i, written).await?.0,
            TpccInput::OrderStatus(i) => order_status::execute(session, i).await?.0,
            TpccInput::Delivery(i) => delivery::execute(session, i, written).await?.0,
            TpccInput::StockLevel(i) => stock_level::execute(session, i).await?.0,
        })
    }

    fn ack_fields(&self, txn_type: usize) -> &'static str {
        match txn_type {
            NEW_ORDER => new_order::ACK_FIELDS,
            PAYMENT => payment::ACK_FIELDS,
            DELIVERY => delivery::ACK_FIELDS,
            _ => "",
        }
    }

    /// The displayed fields, in part: New-Order's order id, total and
    /// brand-generic flags (or the "Item number is not valid" message of a
    /// rollback, 2.4.3.4), the customer Payment charged, Order-Status's line count,
    /// Delivery's delivered orders and Stock-Level's low-stock count.
    async fn execute_displayed<S: Session>(
        &self,
        session: &mut S,
        input: &TpccInput,
        written: &mut Written,
    ) -> Result<(Outcome, Vec<(String, String)>), DbError> {
        let field = |name: &str, value: String| (name.to_string(), value);
        Ok(match input {
            TpccInput::NewOrder(i) => match new_order::execute(session, i, written).await? {
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
                let (outcome, c_id) = payment::execute(session, i, written).await?;
                (outcome, vec![field("c_id", c_id.to_string())])
            }
            TpccInput::OrderStatus(i) => {
                let (outcome, shown) = order_status::execute(session, i).await?;
                (outcome, vec![field("order_lines", shown.lines.to_string())])
            }
            TpccInput::Delivery(i) => {
                let (outcome, orders) = delivery::execute(session, i, written).await?;
                (outcome, vec![field("delivered", orders.to_string())])
            }
            TpccInput::StockLevel(i) => {
                let (outcome, low) = stock_level::execute(session, i).await?;
                (outcome, vec![field("low_stock", low.to_string())])
            }
        })
    }
}

impl Benchmark for Tpcc {
    const ABOUT: &'static About = &ABOUT;
    type Definition = NoOptions;
    fn schema() -> &'static Schema {
        &schema::SCHEMA
    }
    fn meta() -> &'static MetaTable {
        &meta::META
    }
    type LoadOptions = NoOptions;
    type RunOptions = NoOptions;

    async fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        _options: &NoOptions,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        load::load(engine, plan, rows_done).await
    }

    fn expected_rows(warehouses: i64) -> u64 {
        generate::expected_rows(warehouses)
    }

    fn verify() -> Option<Verify> {
        Some(Verify {
            summary: "Hold a run's acknowledged-work log (--ack-log) against the database: \
                      New-Orders, Payments and Deliveries durable, lost, in doubt, or rolled back \
                      and leaked",
            run: |session, log| Box::pin(async move { Ok(verify::verify(session, log).await?) }),
        })
    }

    fn acid() -> Option<Acid> {
        Some(Acid {
            summary: "Run the ACID tests of TPC-C clause 3 a client can drive: atomicity, \
                      consistency before and after, isolation between two sessions, durability \
                      across a crash you trigger (--fault-cmd); PASS/FAIL each with evidence",
            run: |engine, seed| Box::pin(acid::tests(engine, seed)),
        })
    }

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        seed: u64,
        _options: &NoOptions,
    ) -> Result<Self, WorkloadError> {
        Tpcc::open(session, asked, seed).await
    }

    fn check() -> Option<Check> {
        Some(Check {
            summary: "Verify the twelve consistency conditions (exit 0 if all hold, 1 otherwise)",
            run: |session, _loaded| Box::pin(async move { Ok(check::check(session).await?) }),
        })
    }

    fn scale(&self) -> i64 {
        self.warehouses()
    }

    fn driven(&self) -> i64 {
        self.home_warehouses()
    }

    type Parameters = TpccParameters;

    fn parameters(&self) -> TpccParameters {
        Tpcc::parameters(self)
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        Tpcc::served_parameters(self)
    }

    /// tpmC (committed New-Orders a minute), transactions a second, and with
    /// the specification's waits the efficiency against 12.86 tpmC a
    /// warehouse driven.
    fn metrics(types: &[TypeResult], measured_secs: f64, basis: MetricBasis) -> Vec<Metric> {
        let tpmc = 60.0 * rate(types[NEW_ORDER].committed, measured_secs);
        let completed: u64 = types.iter().map(TypeResult::completed).sum();
        let mut out = vec![
            Metric {
                name: "tpmC".into(),
                value: tpmc,
                unit: "New-Order/min".into(),
                counts: None,
                interval: None,
            },
            Metric {
                name: "throughput".into(),
                value: rate(completed, measured_secs),
                unit: "txn/s".into(),
                counts: Some(Counted::Completed),
                interval: None,
            },
        ];
        if basis.wait == WaitMode::Spec {
            out.push(Metric {
                name: "efficiency".into(),
                value: 100.0 * tpmc / (MAX_TPMC_PER_WAREHOUSE * basis.driven as f64),
                unit: "%".into(),
                counts: None,
                interval: None,
            });
        }
        out
    }
}
