//! Loading the TATP population: rows generated in parallel (see [`crate::bulk`]),
//! the index on `sub_nbr` built after the data, the scale recorded.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use txbench_core::Engine;

use super::generate::{generate, units};
use super::schema::SCHEMA;
use super::{TatpError, meta};
use crate::bulk;

/// How to load.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Subscribers to load.
    pub subscribers: i64,
    /// Threads generating rows (writers are limited further by the engine).
    pub threads: usize,
    /// The load's seed (every row derives from it).
    pub seed: u64,
    /// Drop existing TATP tables first instead of refusing.
    pub drop: bool,
    /// Add the foreign keys after the data.
    pub foreign_keys: bool,
}

pub use crate::bulk::LoadSummary;

/// Load `opts.subscribers` subscribers. `rows_done` counts rows as they are
/// written, for a progress bar.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    opts: &LoadOptions,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, TatpError> {
    if opts.subscribers < 1 {
        return Err(TatpError::BadScale(opts.subscribers));
    }
    let started = Instant::now();
    let session = engine.connect().await?;
    let (session, state) =
        bulk::on_session::<E, _, _>(session, |s| Box::pin(meta::read(s))).await?;
    match state {
        Some(_) if opts.drop => {}
        Some(state) if !state.complete => return Err(TatpError::Incomplete),
        Some(state) => return Err(TatpError::AlreadyLoaded(state.subscribers)),
        None => {}
    }
    let session = bulk::create_tables::<E>(session, &SCHEMA, opts.drop).await?;
    let (seed, subscribers) = (opts.seed, opts.subscribers);
    let session = bulk::write_population(
        &engine,
        session,
        &SCHEMA,
        units(subscribers),
        move |_, chunk| generate(seed, subscribers, chunk),
        opts.threads,
        Arc::clone(&rows_done),
    )
    .await?;
    let session = bulk::finish_tables::<E>(session, &SCHEMA, opts.foreign_keys).await?;
    bulk::on_session::<E, _, _>(session, move |s| {
        Box::pin(meta::write(s, subscribers, seed))
    })
    .await?;
    Ok(LoadSummary {
        rows: rows_done.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
    })
}
