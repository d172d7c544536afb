//! Loading the CH-benCHmark: TPC-C's population, unless a finished TPC-C
//! load of the same scale is there already, then the CH-benCHmark's own
//! tables, recorded in a metadata table of their own so that they can be
//! cleaned off a TPC-C database again.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::Engine;
use txbench_core::rng::Rand;

use super::{META, reference, schema};
use crate::bulk::{self, LoadPlan, LoadSummary};
use crate::error::WorkloadError;
use crate::meta_table::Loaded;
use crate::tpcc;

/// The random stream the reference tables draw from (TPC-C's units take
/// the streams from 0 up).
const REFERENCE_STREAM: u64 = u64::MAX - 2;

/// Load `plan.scale` warehouses and the CH-benCHmark's tables.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    plan: &LoadPlan,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, WorkloadError> {
    let started = std::time::Instant::now();
    let tpcc = tpcc_loaded(&engine).await?;
    let mut note = match tpcc {
        Some(l) if l.complete && !plan.drop => {
            if l.scale != plan.scale {
                return Err(WorkloadError::BadOption(format!(
                    "--warehouses {}: the TPC-C data here was loaded with --warehouses {}; load \
                     the CH-benCHmark's tables at that scale, or reload both with --drop",
                    plan.scale, l.scale
                )));
            }
            ", onto the TPC-C data already there".to_string()
        }
        _ => {
            tpcc::load::load(Arc::clone(&engine), plan, Arc::clone(&rows_done))
                .await?
                .note
        }
    };
    let seed = plan.seed;
    let population = bulk::Population {
        units: vec![()],
        generate: move |_, ()| reference::rows(&mut Rand::derive(seed, REFERENCE_STREAM)),
        entries: Vec::new(),
        partitioning: None,
        derived: Vec::new(),
        finishing: Vec::new(),
    };
    let own = bulk::load(engine, &META, &schema::SCHEMA, plan, population, rows_done).await?;
    note.push_str(", with 5 regions, 62 nations and 10,000 suppliers");
    // The rows counted for the progress bar are TPC-C's and these.
    Ok(LoadSummary {
        rows: own.rows,
        elapsed: started.elapsed(),
        note,
    })
}

/// What TPC-C's metadata table says is loaded.
async fn tpcc_loaded<E: Engine>(engine: &Arc<E>) -> Result<Option<Loaded>, WorkloadError> {
    let session = engine.connect().await?;
    let (_, loaded) = bulk::on_session(engine.as_ref(), session, |s| {
        Box::pin(tpcc::meta::META.read(s))
    })
    .await?;
    Ok(loaded)
}
