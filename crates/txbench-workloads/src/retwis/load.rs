//! Loading the Retwis key space: keys generated in parallel through the shared
//! bulk loader (see [`crate::bulk`]), the load recorded.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::Engine;

use super::generate::{generate, units};
use super::meta::META;
use super::options::{RetwisLoadOptions, check_value_size};
use super::schema::SCHEMA;

use crate::bulk::{self, LoadPlan, LoadSummary};
use crate::error::WorkloadError;

/// Load `plan.scale` keys with values of `options.value_size` bytes.
/// `rows_done` counts keys as they are written.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    plan: &LoadPlan,
    options: &RetwisLoadOptions,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, WorkloadError> {
    let value_size = options.value_size;
    check_value_size(value_size)?;
    let (seed, keys) = (plan.seed, plan.scale.max(0) as u64);
    let population = bulk::Population {
        units: units(keys),
        generate: move |_, chunk| vec![generate(seed, keys, value_size, chunk)],
        entries: vec![("value_size", value_size.to_string())],
        partitioning: None,
        derived: Vec::new(),
        finishing: Vec::new(),
    };
    // Keys have no foreign keys to add.
    let plan = LoadPlan {
        foreign_keys: false,
        ..plan.clone()
    };
    bulk::load(engine, &META, &SCHEMA, &plan, population, rows_done).await
}
