//! `txbench tpcc ...`: loading, checking and cleaning TPC-C, and the TPC-C side
//! of a run (opening the workload on a loaded database).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use tokio::sync::watch;
use txbench_core::{Engine, Session};
use txbench_report::terminal;
use txbench_workloads::tpcc::load::{LoadOptions, drop_all};
use txbench_workloads::tpcc::{Tpcc, TpccError, check, generate, load, meta};

use crate::cli::{AllInOneArgs, DbArgs, LoadArgs, LoadExtras, TpccSweepArgs, TpccVerb};
use crate::failure::Failure;
use crate::progress::track_load;
use crate::runner::{
    Bench, ensure_loaded, load_threads, on_session, report_conditions, run_on, with_engine,
};

impl Bench for Tpcc {
    const NAME: &'static str = "tpcc";
    const SCALE: &'static str = "warehouses";

    type Options = ();

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        seed: u64,
        _options: &(),
    ) -> Result<Self, Failure> {
        Ok(Tpcc::open(session, asked, seed).await?)
    }

    fn scale(&self) -> i64 {
        self.warehouses()
    }

    fn parameters(&self) -> Vec<(String, String)> {
        Tpcc::parameters(self)
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        Tpcc::served_parameters(self)
    }

    const DEFAULT_SCALE: i64 = 1;

    async fn loaded<S: Session>(session: &mut S) -> Result<(Option<i64>, bool), Failure> {
        let state = meta::read(session).await?;
        let complete = state.as_ref().filter(|s| s.complete).map(|s| s.warehouses);
        Ok((complete, state.is_some()))
    }

    async fn load<E: Engine>(
        engine: Arc<E>,
        db: &DbArgs,
        warehouses: i64,
        load: &LoadExtras,
        drop: bool,
        seed: u64,
        _options: &(),
    ) -> Result<(), Failure> {
        let args = LoadArgs {
            db: db.clone(),
            warehouses,
            seed,
            load: LoadExtras {
                drop,
                ..load.clone()
            },
        };
        load_on(engine, &args).await
    }
}

/// Run a TPC-C verb, or the all-in-one form.
pub async fn main(
    verb: Option<TpccVerb>,
    all: AllInOneArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    match verb {
        Some(TpccVerb::Load(a)) => with_engine!(&a.db.db, None, |e| {
            crate::runner::unless_stopped(&stop, "the load", load_on(e, &a)).await
        }),
        Some(TpccVerb::Run(a)) => with_engine!(
            &a.run.db.db,
            a.run.isolation,
            crate::runner::holders(&a.run),
            |e| run_on::<_, Tpcc>(e, &a.run, a.warehouses, &(), stop).await
        ),
        Some(TpccVerb::Check(a)) => with_engine!(&a.db, None, |e| check_on(e).await),
        Some(TpccVerb::Clean(a)) => with_engine!(&a.db, None, |e| clean_on(e, &a).await),
        None => with_engine!(&all.run.run.db.db, all.run.run.isolation, |e| {
            all_in_one(e, &all, stop).await
        }),
    }
}

/// `txbench sweep tpcc`.
pub async fn sweep(a: TpccSweepArgs, stop: watch::Receiver<bool>) -> Result<(), Failure> {
    with_engine!(&a.sweep.run.db.db, a.sweep.run.isolation, |e| {
        crate::sweep::sweep_on::<_, Tpcc>(e, &a.sweep, a.warehouses, &(), stop).await
    })
}

async fn load_on<E: Engine>(engine: Arc<E>, a: &LoadArgs) -> Result<(), Failure> {
    let threads = load_threads(a.load.threads);
    let opts = LoadOptions {
        warehouses: a.warehouses,
        threads,
        seed: a.seed,
        drop: a.load.drop,
        foreign_keys: a.load.foreign_keys,
    };
    let rows = Arc::new(AtomicU64::new(0));
    let summary = track_load(
        generate::expected_rows(a.warehouses),
        Arc::clone(&rows),
        load::load(Arc::clone(&engine), &opts, rows),
    )
    .await;
    let summary = summary?;
    let secs = summary.elapsed.as_secs_f64();
    outln!(
        "loaded {} warehouse{} into {}: {} rows in {:.2} s ({} rows/s), C-Load for C_LAST {}",
        a.warehouses,
        if a.warehouses == 1 { "" } else { "s" },
        engine.describe(),
        terminal::grouped(summary.rows as f64, 0),
        secs,
        terminal::grouped(summary.rows as f64 / secs.max(1e-9), 0),
        summary.constants.c_last
    );
    Ok(())
}

async fn check_on<E: Engine>(engine: Arc<E>) -> Result<(), Failure> {
    let results = on_session(&engine, |mut s| async move {
        match meta::read(&mut s).await? {
            None => return Err(Failure::from(TpccError::NotLoaded)),
            // Checking half-loaded data would report the missing rows as
            // thousands of violations; the load's state says what is wrong.
            Some(state) if !state.complete => return Err(Failure::from(TpccError::Incomplete)),
            Some(_) => {}
        }
        Ok(check::check(&mut s).await?)
    })
    .await??;
    report_conditions(&results)
}

async fn clean_on<E: Engine>(engine: Arc<E>, a: &DbArgs) -> Result<(), Failure> {
    on_session(&engine, |mut s| async move { drop_all(&mut s).await }).await??;
    outln!("dropped the TPC-C tables in {a}");
    Ok(())
}

async fn all_in_one<E: Engine>(
    engine: Arc<E>,
    a: &AllInOneArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let seed = a.run.run.seed.unwrap_or(1);
    ensure_loaded::<E, Tpcc>(
        &engine,
        &a.run.run.db,
        a.run.warehouses,
        &a.load,
        seed,
        &(),
        &stop,
    )
    .await?;
    run_on::<_, Tpcc>(engine, &a.run.run, a.run.warehouses, &(), stop).await
}
