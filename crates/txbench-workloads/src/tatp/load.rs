//! Loading the TATP population: rows generated in parallel (see [`crate::bulk`]),
//! the index on `sub_nbr` built after the data, the scale recorded (and the
//! partitions, on a load split into them).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::Engine;

use super::generate::{generate, units};
use super::meta::{KEY_INDEX, META, PARTITIONS};
use super::schema::{PARTITIONED_SCHEMA, SCHEMA, partitioning};

use crate::bulk::{self, LoadPlan, LoadSummary};
use crate::error::WorkloadError;

/// Refuse, naming the engine, `--partitions` where it has no hash
/// partitions, and none where it holds TATP's tables only in partitions.
pub fn refuse<E: Engine>(engine: &E, partitions: u32) -> Result<(), WorkloadError> {
    if partitions > 0 && !engine.hash_partitions() {
        return Err(WorkloadError::BadOption(format!(
            "--partitions {partitions}: the {} engine has no hash partitions (PostgreSQL has)",
            engine.name()
        )));
    }
    if partitions == 0 && engine.partitioned_only() {
        return Err(WorkloadError::BadOption(format!(
            "--partitions: the {} engine holds TATP's tables only split into hash partitions; \
             give their number (--partitions 8, say)",
            engine.name()
        )));
    }
    Ok(())
}

/// Load `plan.scale` subscribers, in `partitions` hash partitions where that
/// is not 0 (refused as [`refuse`] says). `rows_done` counts rows as they
/// are written, for a progress bar.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    plan: &LoadPlan,
    partitions: u32,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, WorkloadError> {
    refuse(engine.as_ref(), partitions)?;
    let (seed, subscribers) = (plan.seed, plan.scale);
    let mut entries = vec![(KEY_INDEX, "subscriber_nbr".to_string())];
    let (schema, partitioning) = match partitions {
        0 => (&SCHEMA, None),
        n => {
            entries.push((PARTITIONS, n.to_string()));
            (&PARTITIONED_SCHEMA, Some(partitioning(n)))
        }
    };
    let population = bulk::Population {
        units: units(subscribers),
        generate: move |_, chunk| generate(seed, subscribers, chunk),
        entries,
        partitioning,
        derived: Vec::new(),
        finishing: Vec::new(),
    };
    bulk::load(engine, &META, schema, plan, population, rows_done).await
}
