//! Loading the initial population: rows generated in parallel on every core,
//! written in large transactions through the engine's bulk path, indexes built
//! after the data, and the C-Load constants recorded.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{SystemTime, UNIX_EPOCH};

use txbench_core::Engine;
use txbench_core::rng::Rand;

use super::generate::{Population, units};
use super::meta::{self, META};
use super::random::NurandConstants;
use super::schema::SCHEMA;

use crate::bulk::{self, LoadPlan, LoadSummary};
use crate::error::WorkloadError;

/// Microseconds since the Unix epoch, now.
pub fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

/// The C-Load constants a load from `seed` draws.
pub fn load_constants(seed: u64) -> NurandConstants {
    NurandConstants::random(&mut Rand::derive(seed, u64::MAX))
}

/// Load `plan.scale` warehouses. `rows_done` counts rows as they are written,
/// for a progress bar.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    plan: &LoadPlan,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, WorkloadError> {
    let constants = load_constants(plan.seed);
    let population = Population {
        seed: plan.seed,
        constants,
        now: now_micros(),
    };
    let population = bulk::Population {
        units: units(plan.scale),
        generate: move |i, unit| population.generate(i, unit),
        entries: meta::entries(&constants),
        partitioning: None,
        derived: Vec::new(),
        finishing: Vec::new(),
    };
    let mut summary = bulk::load(engine, &META, &SCHEMA, plan, population, rows_done).await?;
    summary.note = format!(
        ", C-Load {} (the constant of the customers' last names, clause 2.1.6)",
        constants.c_last
    );
    Ok(summary)
}
