//! Loading the TATP population: rows generated in parallel (see [`crate::bulk`]),
//! the index on `sub_nbr` built after the data, the scale recorded.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::Engine;

use super::generate::{generate, units};
use super::meta::META;
use super::schema::SCHEMA;

use crate::bulk::{self, LoadPlan, LoadSummary};
use crate::error::WorkloadError;

/// Load `plan.scale` subscribers. `rows_done` counts rows as they are
/// written, for a progress bar.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    plan: &LoadPlan,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, WorkloadError> {
    let (seed, subscribers) = (plan.seed, plan.scale);
    let population = bulk::Population {
        units: units(subscribers),
        generate: move |_, chunk| generate(seed, subscribers, chunk),
        entries: Vec::new(),
    };
    bulk::load(engine, &META, &SCHEMA, plan, population, rows_done).await
}
