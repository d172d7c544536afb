//! Loading the Retwis key space: keys generated in parallel through the shared
//! bulk loader (see [`crate::bulk`]), the load recorded.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use txbench_core::Engine;

use super::generate::{generate, units};
use super::schema::{MAX_VALUE, SCHEMA};
use super::{RetwisError, meta};
use crate::bulk;

/// How to load.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Keys to load.
    pub keys: i64,
    /// Bytes per value.
    pub value_size: usize,
    /// Threads generating rows (writers are limited further by the engine).
    pub threads: usize,
    /// The load's seed (every value derives from it).
    pub seed: u64,
    /// Drop existing Retwis data first instead of refusing.
    pub drop: bool,
}

pub use crate::bulk::LoadSummary;

/// Load `opts.keys` keys. `rows_done` counts keys as they are written.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    opts: &LoadOptions,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, RetwisError> {
    if opts.keys < 1 {
        return Err(RetwisError::BadScale(opts.keys));
    }
    if !(1..=MAX_VALUE).contains(&opts.value_size) {
        return Err(RetwisError::BadValueSize(opts.value_size));
    }
    let started = Instant::now();
    let session = engine.connect().await?;
    let (session, state) =
        bulk::on_session::<E, _, _>(session, |s| Box::pin(meta::read(s))).await?;
    match state {
        Some(_) if opts.drop => {}
        Some(state) if !state.complete => return Err(RetwisError::Incomplete),
        Some(state) => return Err(RetwisError::AlreadyLoaded(state.keys)),
        None => {}
    }
    let session = bulk::create_tables::<E>(session, &SCHEMA, opts.drop).await?;
    let (seed, keys, value_size) = (opts.seed, opts.keys as u64, opts.value_size);
    let session = bulk::write_population(
        &engine,
        session,
        &SCHEMA,
        units(keys),
        move |_, chunk| vec![generate(seed, keys, value_size, chunk)],
        opts.threads,
        Arc::clone(&rows_done),
    )
    .await?;
    let session = bulk::finish_tables::<E>(session, &SCHEMA, false).await?;
    let keys = opts.keys;
    bulk::on_session::<E, _, _>(session, move |s| {
        Box::pin(meta::write(s, keys, value_size, seed))
    })
    .await?;
    Ok(LoadSummary {
        rows: rows_done.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
    })
}
