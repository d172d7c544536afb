//! `txbench tatp ...`: loading, checking and cleaning TATP, and the TATP side of
//! a run (opening the workload on a loaded database).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use tokio::sync::watch;
use txbench_core::{Engine, Session};
use txbench_report::terminal;
use txbench_workloads::bulk::drop_tables;
use txbench_workloads::tatp::constants::DEFAULT_SUBSCRIBERS;
use txbench_workloads::tatp::load::LoadOptions;
use txbench_workloads::tatp::schema::SCHEMA;
use txbench_workloads::tatp::{Tatp, TatpError, check, generate, load, meta};

use crate::cli::{DbArgs, LoadExtras, TatpAllInOneArgs, TatpLoadArgs, TatpSweepArgs, TatpVerb};
use crate::failure::Failure;
use crate::progress::track_load;
use crate::runner::{
    Bench, ensure_loaded, load_threads, on_session, report_conditions, run_on, with_engine,
};

impl Bench for Tatp {
    const NAME: &'static str = "tatp";
    const SCALE: &'static str = "subscribers";

    type Options = ();

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        _seed: u64,
        _options: &(),
    ) -> Result<Self, Failure> {
        Ok(Tatp::open(session, asked).await?)
    }

    fn scale(&self) -> i64 {
        self.subscribers()
    }

    fn parameters(&self) -> Vec<(String, String)> {
        Tatp::parameters(self)
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        Tatp::served_parameters(self)
    }

    const DEFAULT_SCALE: i64 = DEFAULT_SUBSCRIBERS;

    async fn loaded<S: Session>(session: &mut S) -> Result<(Option<i64>, bool), Failure> {
        let state = meta::read(session).await?;
        let complete = state.as_ref().filter(|s| s.complete).map(|s| s.subscribers);
        Ok((complete, state.is_some()))
    }

    async fn load<E: Engine>(
        engine: Arc<E>,
        db: &DbArgs,
        subscribers: i64,
        load: &LoadExtras,
        drop: bool,
        seed: u64,
        _options: &(),
    ) -> Result<(), Failure> {
        let args = TatpLoadArgs {
            db: db.clone(),
            subscribers,
            seed,
            load: LoadExtras {
                drop,
                ..load.clone()
            },
        };
        load_on(engine, &args).await
    }
}

/// Run a TATP verb, or the all-in-one form.
pub async fn main(
    verb: Option<TatpVerb>,
    all: TatpAllInOneArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    match verb {
        Some(TatpVerb::Load(a)) => with_engine!(&a.db.db, None, |e| {
            crate::runner::unless_stopped(&stop, "the load", load_on(e, &a)).await
        }),
        Some(TatpVerb::Run(a)) => with_engine!(
            &a.run.db.db,
            a.run.isolation,
            crate::runner::holders(&a.run),
            |e| run_on::<_, Tatp>(e, &a.run, a.subscribers, &(), stop).await
        ),
        Some(TatpVerb::Check(a)) => with_engine!(&a.db, None, |e| check_on(e).await),
        Some(TatpVerb::Clean(a)) => with_engine!(&a.db, None, |e| clean_on(e, &a).await),
        None => with_engine!(&all.run.run.db.db, all.run.run.isolation, |e| {
            all_in_one(e, &all, stop).await
        }),
    }
}

/// `txbench sweep tatp`.
pub async fn sweep(a: TatpSweepArgs, stop: watch::Receiver<bool>) -> Result<(), Failure> {
    with_engine!(&a.sweep.run.db.db, a.sweep.run.isolation, |e| {
        crate::sweep::sweep_on::<_, Tatp>(e, &a.sweep, a.subscribers, &(), stop).await
    })
}

async fn load_on<E: Engine>(engine: Arc<E>, a: &TatpLoadArgs) -> Result<(), Failure> {
    let opts = LoadOptions {
        subscribers: a.subscribers,
        threads: load_threads(a.load.threads),
        seed: a.seed,
        drop: a.load.drop,
        foreign_keys: a.load.foreign_keys,
    };
    let rows = Arc::new(AtomicU64::new(0));
    let summary = track_load(
        generate::expected_rows(a.subscribers),
        Arc::clone(&rows),
        load::load(Arc::clone(&engine), &opts, rows),
    )
    .await?;
    let secs = summary.elapsed.as_secs_f64();
    outln!(
        "loaded {} subscribers into {}: {} rows in {:.2} s ({} rows/s)",
        terminal::grouped(a.subscribers as f64, 0),
        engine.describe(),
        terminal::grouped(summary.rows as f64, 0),
        secs,
        terminal::grouped(summary.rows as f64 / secs.max(1e-9), 0),
    );
    Ok(())
}

async fn check_on<E: Engine>(engine: Arc<E>) -> Result<(), Failure> {
    let results = on_session(&engine, |mut s| async move {
        let state = meta::read(&mut s).await?.ok_or(TatpError::NotLoaded)?;
        if !state.complete {
            return Err(Failure::from(TatpError::Incomplete));
        }
        Ok::<_, Failure>(check::check(&mut s, state.subscribers).await?)
    })
    .await??;
    report_conditions(&results)
}

async fn clean_on<E: Engine>(engine: Arc<E>, a: &DbArgs) -> Result<(), Failure> {
    on_session(&engine, |mut s| async move {
        drop_tables(&mut s, &SCHEMA).await
    })
    .await??;
    outln!("dropped the TATP tables in {a}");
    Ok(())
}

async fn all_in_one<E: Engine>(
    engine: Arc<E>,
    a: &TatpAllInOneArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let seed = a.run.run.seed.unwrap_or(1);
    ensure_loaded::<E, Tatp>(
        &engine,
        &a.run.run.db,
        a.run.subscribers,
        &a.load,
        seed,
        &(),
        &stop,
    )
    .await?;
    run_on::<_, Tatp>(engine, &a.run.run, a.run.subscribers, &(), stop).await
}
