//! `txbench retwis ...`: loading and cleaning the Retwis key space, and the
//! Retwis side of a run (opening the workload with its key skew).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use tokio::sync::watch;
use txbench_core::{Engine, Session};
use txbench_report::terminal;
use txbench_workloads::bulk::drop_tables;
use txbench_workloads::retwis::constants::{DEFAULT_KEYS, DEFAULT_VALUE_SIZE};
use txbench_workloads::retwis::load::LoadOptions;
use txbench_workloads::retwis::schema::SCHEMA;
use txbench_workloads::retwis::{Retwis, load, meta};

use crate::cli::{
    DbArgs, LoadExtras, RetwisAllInOneArgs, RetwisLoadArgs, RetwisSweepArgs, RetwisVerb,
};
use crate::failure::Failure;
use crate::progress::track_load;
use crate::runner::{Bench, ensure_loaded, load_threads, on_session, run_on, with_engine};

/// The settings of a Retwis run beyond the key space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetwisOptions {
    /// Zipf coefficient of the key draw (0: uniform).
    pub zipf: f64,
    /// Bytes per value, for a load.
    pub value_size: usize,
}

impl Default for RetwisOptions {
    fn default() -> Self {
        RetwisOptions {
            zipf: 0.0,
            value_size: DEFAULT_VALUE_SIZE,
        }
    }
}

impl Bench for Retwis {
    const NAME: &'static str = "retwis";
    const SCALE: &'static str = "keys";
    type Options = RetwisOptions;

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        seed: u64,
        options: &RetwisOptions,
    ) -> Result<Self, Failure> {
        Ok(Retwis::open(session, asked, options.zipf, seed).await?)
    }

    fn option_flags(options: &RetwisOptions) -> Vec<(&'static str, toml::Value)> {
        vec![("zipf", options.zipf.into())]
    }

    fn scale(&self) -> i64 {
        self.keys()
    }

    fn parameters(&self) -> Vec<(String, String)> {
        Retwis::parameters(self)
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        Retwis::served_parameters(self)
    }

    const DEFAULT_SCALE: i64 = DEFAULT_KEYS;

    async fn loaded<S: Session>(session: &mut S) -> Result<(Option<i64>, bool), Failure> {
        let state = meta::read(session).await?;
        let complete = state.as_ref().filter(|s| s.complete).map(|s| s.keys);
        Ok((complete, state.is_some()))
    }

    async fn load<E: Engine>(
        engine: Arc<E>,
        db: &DbArgs,
        keys: i64,
        load: &LoadExtras,
        drop: bool,
        seed: u64,
        options: &RetwisOptions,
    ) -> Result<(), Failure> {
        let args = RetwisLoadArgs {
            db: db.clone(),
            keys,
            value_size: options.value_size,
            seed,
            load: LoadExtras {
                drop,
                ..load.clone()
            },
        };
        load_on(engine, &args).await
    }
}

/// Run a Retwis verb, or the all-in-one form.
pub async fn main(
    verb: Option<RetwisVerb>,
    all: RetwisAllInOneArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    match verb {
        Some(RetwisVerb::Load(a)) => with_engine!(&a.db.db, None, |e| {
            crate::runner::unless_stopped(&stop, "the load", load_on(e, &a)).await
        }),
        Some(RetwisVerb::Run(a)) => with_engine!(
            &a.run.db.db,
            a.run.isolation,
            crate::runner::holders(&a.run),
            |e| {
                let options = RetwisOptions {
                    zipf: a.zipf,
                    ..RetwisOptions::default()
                };
                run_on::<_, Retwis>(e, &a.run, a.keys, &options, stop).await
            }
        ),
        Some(RetwisVerb::Clean(a)) => with_engine!(&a.db, None, |e| clean_on(e, &a).await),
        None => with_engine!(&all.run.run.db.db, all.run.run.isolation, |e| {
            all_in_one(e, &all, stop).await
        }),
    }
}

/// `txbench sweep retwis`.
pub async fn sweep(a: RetwisSweepArgs, stop: watch::Receiver<bool>) -> Result<(), Failure> {
    let options = RetwisOptions {
        zipf: a.zipf,
        ..RetwisOptions::default()
    };
    with_engine!(&a.sweep.run.db.db, a.sweep.run.isolation, |e| {
        crate::sweep::sweep_on::<_, Retwis>(e, &a.sweep, a.keys, &options, stop).await
    })
}

async fn load_on<E: Engine>(engine: Arc<E>, a: &RetwisLoadArgs) -> Result<(), Failure> {
    let opts = LoadOptions {
        keys: a.keys,
        value_size: a.value_size,
        threads: load_threads(a.load.threads),
        seed: a.seed,
        drop: a.load.drop,
    };
    let rows = Arc::new(AtomicU64::new(0));
    let summary = track_load(
        a.keys as u64,
        Arc::clone(&rows),
        load::load(Arc::clone(&engine), &opts, rows),
    )
    .await?;
    let secs = summary.elapsed.as_secs_f64();
    outln!(
        "loaded {} keys of {} bytes into {}: {:.2} s ({} keys/s)",
        terminal::grouped(a.keys as f64, 0),
        a.value_size,
        engine.describe(),
        secs,
        terminal::grouped(summary.rows as f64 / secs.max(1e-9), 0),
    );
    Ok(())
}

async fn clean_on<E: Engine>(engine: Arc<E>, a: &DbArgs) -> Result<(), Failure> {
    on_session(&engine, |mut s| async move {
        drop_tables(&mut s, &SCHEMA).await
    })
    .await??;
    outln!("dropped the Retwis data in {a}");
    Ok(())
}

async fn all_in_one<E: Engine>(
    engine: Arc<E>,
    a: &RetwisAllInOneArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let seed = a.run.run.seed.unwrap_or(1);
    let options = RetwisOptions {
        zipf: a.run.zipf,
        value_size: a.value_size,
    };
    ensure_loaded::<E, Retwis>(
        &engine,
        &a.run.run.db,
        a.run.keys,
        &a.load,
        seed,
        &options,
        &stop,
    )
    .await?;
    run_on::<_, Retwis>(engine, &a.run.run, a.run.keys, &options, stop).await
}
