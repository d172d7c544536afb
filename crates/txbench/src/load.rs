//! Loading a workload: a load as the flags ask for it, and the load that the
//! all-in-one form, `sweep` and `serve` make when the database is empty.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use tokio::sync::watch;
use txbench_core::Engine;
use txbench_report::terminal;
use txbench_workloads::{Benchmark, LoadPlan, WorkloadError};

use crate::cli::{LoadArgs, LoadExtras};
use crate::failure::Failure;
use crate::progress::track_load;
use crate::runner::{load_threads, on_session, unless_stopped};

/// Load as `a` says, printing what was written and how fast.
pub async fn load_on<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    a: &LoadArgs<W>,
) -> Result<(), Failure> {
    let plan = load_plan(a.scale.value(), &a.load, a.seed);
    let progress = crate::progress::period(a.progress.progress, false);
    W::refuse_load(engine.as_ref(), &a.options)?;
    create_database(engine.as_ref()).await?;
    load_with::<E, W>(engine, &plan, &a.options, progress).await
}

/// Create the database the URL names if the server has none of that name.
async fn create_database<E: Engine>(engine: &E) -> Result<(), Failure> {
    if let Some(name) = engine.create_database().await? {
        outln!("created database {name} on {}", engine.describe());
    }
    Ok(())
}

/// What a load of `scale` with these flags does.
fn load_plan(scale: i64, load: &LoadExtras, seed: u64) -> LoadPlan {
    LoadPlan {
        scale,
        threads: load_threads(load.threads),
        seed,
        drop: load.drop,
        foreign_keys: load.foreign_keys,
    }
}

/// Load as `plan` says, showing its progress every `progress`, and print
/// what was written and how fast.
async fn load_with<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    plan: &LoadPlan,
    options: &W::LoadOptions,
    progress: Option<Duration>,
) -> Result<(), Failure> {
    let rows = Arc::new(AtomicU64::new(0));
    let summary = track_load(
        W::expected_rows(plan.scale),
        Arc::clone(&rows),
        progress,
        W::load(Arc::clone(&engine), plan, options, rows),
    )
    .await?;
    let secs = summary.elapsed.as_secs_f64();
    outln!(
        "loaded {}{} ({} rows) into {} in {:.2} s ({} rows/s){}",
        scale_text::<W>(plan.scale),
        W::describe_load(options),
        terminal::grouped(summary.rows as f64, 0),
        engine.describe(),
        secs,
        terminal::grouped(summary.rows as f64 / secs.max(1e-9), 0),
        summary.note
    );
    Ok(())
}

/// A scale with its unit: "1 warehouse", "100,000 subscribers".
pub fn scale_text<W: Benchmark>(n: i64) -> String {
    let scale = &W::ABOUT.scale;
    let n_text = terminal::grouped(n as f64, 0);
    if scale.one == scale.unit {
        // A scale named by itself (a workload file's): "scale 3".
        return format!("{} {n_text}", scale.unit);
    }
    let unit = if n == 1 { scale.one } else { scale.unit };
    format!("{n_text} {unit}")
}

/// Load `W` at scale `asked` (its default when `None`) unless a finished load
/// is there already (and `--drop` is not given); another scale than the loaded
/// one is refused. Its progress shows every `progress`; Ctrl-C stops it. An
/// engine that does not run statements on data of its own (a txbench server
/// holds its data, `null:` and `sim:` hold none) has nothing to load here.
pub async fn ensure_loaded<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    asked: Option<i64>,
    load: &LoadExtras,
    options: &W::LoadOptions,
    seed: u64,
    progress: Option<Duration>,
    stop: &watch::Receiver<bool>,
) -> Result<(), Failure> {
    if !engine.execution().holds_data() {
        return Ok(());
    }
    let load_unless_loaded = async {
        create_database(engine.as_ref()).await?;
        let loaded = on_session(engine, |mut s| async move { W::loaded(&mut s).await }).await??;
        match loaded {
            Some(l) if l.complete && !load.drop => {
                if let Some(asked) = asked.filter(|&asked| asked != l.scale) {
                    return Err(WorkloadError::ScaleMismatch {
                        about: W::ABOUT,
                        asked,
                        loaded: l.scale,
                    }
                    .into());
                }
                outln!(
                    "using the {} already loaded in {}",
                    scale_text::<W>(l.scale),
                    engine.describe()
                );
                Ok(())
            }
            present => {
                W::refuse_load(engine.as_ref(), options)?;
                let mut plan = load_plan(asked.unwrap_or_else(W::default_scale), load, seed);
                plan.drop |= present.is_some();
                load_with::<E, W>(Arc::clone(engine), &plan, options, progress).await
            }
        }
    };
    unless_stopped(stop, "the load", load_unless_loaded).await
}
