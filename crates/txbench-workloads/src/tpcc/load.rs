//! Loading the initial population: rows generated in parallel on every core,
//! written in large transactions through the engine's bulk path, indexes built
//! after the data, and the C-Load constants recorded.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use txbench_core::rng::Rand;
use txbench_core::{DbError, Engine, Session};

use super::TpccError;
use super::generate::{Population, units};
use super::meta;
use super::random::NurandConstants;
use super::schema::SCHEMA;
use crate::bulk;

/// How to load.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Warehouses to load.
    pub warehouses: i64,
    /// Threads generating rows (writers are limited further by the engine).
    pub threads: usize,
    /// The load's seed (C-Load constants and every row derive from it).
    pub seed: u64,
    /// Drop existing TPC-C tables first instead of refusing.
    pub drop: bool,
    /// Add the foreign keys of clause 1.3 after the data.
    pub foreign_keys: bool,
}

/// What a load did.
#[derive(Debug, Clone)]
pub struct LoadSummary {
    /// Rows written.
    pub rows: u64,
    /// Time spent, from connecting to the last index.
    pub elapsed: Duration,
    /// The C-Load constants recorded.
    pub constants: NurandConstants,
}

/// Microseconds since the Unix epoch, now.
pub fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

/// Drop every TPC-C table (and txbench's metadata).
pub async fn drop_all<S: Session>(session: &mut S) -> Result<(), DbError> {
    bulk::drop_tables(session, &SCHEMA).await
}

/// Load `opts.warehouses` warehouses. `rows_done` counts rows as they are written,
/// for a progress bar.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    opts: &LoadOptions,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, TpccError> {
    if opts.warehouses < 1 {
        return Err(TpccError::BadScale(opts.warehouses));
    }
    let started = Instant::now();
    let session = engine.connect().await?;
    let (session, state) =
        bulk::on_session::<E, _, _>(session, |s| Box::pin(meta::read(s))).await?;
    match state {
        Some(_) if opts.drop => {}
        Some(state) if !state.complete => return Err(TpccError::Incomplete),
        Some(state) => return Err(TpccError::AlreadyLoaded(state.warehouses)),
        None => {}
    }

    let constants = NurandConstants::random(&mut Rand::derive(opts.seed, u64::MAX));
    let population = Population {
        seed: opts.seed,
        constants,
        now: now_micros(),
    };
    let session = bulk::create_tables::<E>(session, &SCHEMA, opts.drop).await?;
    let session = bulk::write_population(
        &engine,
        session,
        &SCHEMA,
        units(opts.warehouses),
        move |i, unit| population.generate(i, unit),
        opts.threads,
        Arc::clone(&rows_done),
    )
    .await?;
    let session = bulk::finish_tables::<E>(session, &SCHEMA, opts.foreign_keys).await?;
    let (warehouses, seed) = (opts.warehouses, opts.seed);
    bulk::on_session::<E, _, _>(session, move |s| {
        Box::pin(async move { meta::write(s, warehouses, seed, &constants).await })
    })
    .await?;
    Ok(LoadSummary {
        rows: rows_done.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
        constants,
    })
}
