//! `txbench NAME [load|run|check|verify|acid|clean]`: every workload's commands, written
//! once and generic over [`Benchmark`]; the registry names the workload.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use txbench_core::any_engine::AnyEngine;
use txbench_core::{Engine, Execution};
use txbench_engines::{EngineOptions, WithEngine, with_engines};
use txbench_workloads::registry::{self, Visitor};
use txbench_workloads::{Benchmark, WorkloadError};

use crate::cli::workload::{AcidArgs, VerifyArgs};
use crate::cli::{AllInOneArgs, Chosen, DbArgs, LoadArgs, LoadExtras, Verb, Verbs};
use crate::failure::Failure;
use crate::load::{ensure_loaded, load_on};
use crate::plan::RunPlan;
use crate::repeat;
use crate::runner::{on_session_until, report_conditions, unless_stopped};

/// A command's work, whichever workload it is for.
pub type Work = Pin<Box<dyn Future<Output = Result<(), Failure>>>>;

/// Run `txbench NAME [VERB]` for the workload the command line chose.
pub fn main(chosen: Chosen<Verbs>, stop: watch::Receiver<bool>) -> Work {
    let name = chosen.workload.clone();
    for_workload(&name, Command { chosen, stop })
}

/// A command's work for the workload `name` names; an unknown name is bad
/// input (clap has already refused it, so this is for a name from elsewhere).
pub fn for_workload<V: Visitor<Output = Work>>(name: &str, visitor: V) -> Work {
    registry::visit(name, visitor).unwrap_or_else(|| {
        let name = name.to_string();
        Box::pin(async move { Err(Failure::usage(format!("unknown workload '{name}'"))) })
    })
}

struct Command {
    chosen: Chosen<Verbs>,
    stop: watch::Receiver<bool>,
}

impl Visitor for Command {
    type Output = Work;
    fn visit<W: Benchmark>(self) -> Work {
        Box::pin(async move {
            let args = self
                .chosen
                .args::<W>()
                .map_err(|e| Failure::Usage(e.into()))?;
            verb::<W>(args.verb, args.all, self.stop).await
        })
    }
}

async fn verb<W: Benchmark>(
    verb: Option<Verb<W>>,
    all: AllInOneArgs<W>,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let plain = EngineOptions {
        workload: Some(W::ABOUT.name),
        ..EngineOptions::default()
    };
    let definition = match &verb {
        Some(Verb::Load(a)) => Some(&a.definition),
        Some(Verb::Run(a)) => Some(&a.definition),
        Some(Verb::Check(a) | Verb::Clean(a)) => Some(&a.definition),
        Some(Verb::Verify(_) | Verb::Acid(_)) => None,
        None => Some(&all.run.definition),
    };
    if let Some(definition) = definition {
        W::define(definition).map_err(|e| Failure::Usage(e.into()))?;
    }
    refuse_flags(&verb, &all)?;
    let task = match verb {
        Some(Verb::Load(a)) => Task::Load(a),
        Some(Verb::Run(a)) => Task::Run(RunPlan::of(&a)?),
        Some(Verb::Check(a)) => Task::Check(a.db, a.timeout),
        Some(Verb::Verify(a)) => Task::Verify(a),
        Some(Verb::Acid(a)) => Task::Acid(a),
        Some(Verb::Clean(a)) => Task::Clean(a.db, a.timeout),
        None => Task::AllInOne(RunPlan::of(&all.run)?, all),
    };
    let (urls, options) = match &task {
        Task::Load(a) => (a.db.db.clone(), plain),
        Task::Check(db, _) | Task::Clean(db, _) => (db.db.clone(), plain),
        Task::Verify(a) => (a.db.db.clone(), plain),
        Task::Acid(a) => (
            a.db.db.clone(),
            EngineOptions {
                isolation: a.isolation.map(crate::cli::IsolationArg::level),
                ..plain
            },
        ),
        Task::Run(plan) | Task::AllInOne(plan, _) => (plan.db.clone(), plan.engine_options()),
    };
    let side = match &task {
        Task::Run(plan) | Task::AllInOne(plan, _) => plan.analytic_db.clone(),
        _ => Vec::new(),
    };
    let new_files = new_sqlite_files(&urls);
    let done = with_engines(&urls, &side, &options, OnEngine { task, stop }).await;
    let done = done.map_err(Failure::from).and_then(|d| d);
    done.map_err(|f| not_loaded::<W>(no_such_database::<W>(f, &urls), &urls, &new_files))
}

/// A database the server does not have, with the load command that creates
/// it for the user's own `--db` (its password hidden), ready to paste.
fn no_such_database<W: Benchmark>(failure: Failure, urls: &[String]) -> Failure {
    if !failure.is_no_such_database() {
        return failure;
    }
    Failure::failed(format!("{failure}: `{}`", load_command::<W>(urls)))
}

/// `txbench NAME load --db URL ...` for `urls`, their passwords hidden.
fn load_command<W: Benchmark>(urls: &[String]) -> String {
    let dbs: Vec<String> = urls
        .iter()
        .map(|u| format!("--db {}", txbench_engines::redact(u)))
        .collect();
    format!("txbench {} load {}", W::ABOUT.name, dbs.join(" "))
}

/// The SQLite files the URLs name that do not exist yet: opening creates
/// them, and a command that finds nothing loaded removes them again.
fn new_sqlite_files(urls: &[String]) -> Vec<std::path::PathBuf> {
    urls.iter()
        .filter_map(|u| match txbench_engines::Target::parse(u) {
            Ok(txbench_engines::Target::Sqlite(c)) => c.path.filter(|p| !p.exists()),
            _ => None,
        })
        .collect()
}

/// A "nothing loaded" failure with the load command for the user's own
/// `--db` (its password hidden), ready to paste; the SQLite files the
/// command created for nothing are removed.
fn not_loaded<W: Benchmark>(
    failure: Failure,
    urls: &[String],
    new_files: &[std::path::PathBuf],
) -> Failure {
    let not_loaded = match &failure {
        Failure::Usage(e) | Failure::Failed(e) => matches!(
            e.downcast_ref::<WorkloadError>(),
            Some(WorkloadError::NotLoaded(_))
        ),
        _ => false,
    };
    if !not_loaded {
        return failure;
    }
    for file in new_files {
        for suffix in ["", "-wal", "-shm", "-journal", ".txbench-lock"] {
            let mut path = file.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
    let db = DbArgs { db: urls.to_vec() };
    let message = anyhow::anyhow!(
        "{db} holds no {} data: load it first with `{}`",
        W::ABOUT.title,
        load_command::<W>(urls)
    );
    match failure {
        Failure::Usage(_) => Failure::Usage(message),
        _ => Failure::Failed(message),
    }
}

/// Flags a workload does not take as they were given: `--foreign-keys`
/// where it has none, and YCSB's habit of `--threads` for its clients.
fn refuse_flags<W: Benchmark>(
    verb: &Option<Verb<W>>,
    all: &AllInOneArgs<W>,
) -> Result<(), Failure> {
    let load = match &verb {
        Some(Verb::Load(a)) => Some(&a.load),
        None => Some(&all.load),
        _ => None,
    };
    // YCSB's -threads is its client count; here --threads is the load's.
    if W::ABOUT.name == "ycsb"
        && verb.is_none()
        && let (Some(threads), None) = (all.load.threads, all.run.run.terminals)
    {
        return Err(Failure::usage(format!(
            "--threads {threads} sets the load's threads; YCSB's -threads (its client count) \
             is --terminals here: give --terminals {threads} (and --threads for the load if \
             you meant it too)"
        )));
    }
    if load.is_some_and(|l| l.foreign_keys) && W::ABOUT.foreign_keys.is_none() {
        return Err(Failure::usage(format!(
            "--foreign-keys: {} has no foreign keys to add",
            W::ABOUT.title
        )));
    }
    Ok(())
}

/// A workload's verb with its flags validated.
// One value per command: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
enum Task<W: Benchmark> {
    Load(LoadArgs<W>),
    Run(RunPlan<W>),
    Check(DbArgs, Option<Duration>),
    Verify(VerifyArgs),
    Acid(AcidArgs),
    Clean(DbArgs, Option<Duration>),
    AllInOne(RunPlan<W>, AllInOneArgs<W>),
}

impl<W: Benchmark> Task<W> {
    /// The verb's name when it works on the tables rather than running
    /// transactions.
    fn tables_verb(&self) -> Option<&'static str> {
        match self {
            Task::Load(_) => Some("load"),
            Task::Check(..) => Some("check"),
            Task::Verify(_) => Some("verify"),
            Task::Acid(_) => Some("acid"),
            Task::Clean(..) => Some("clean"),
            Task::Run(_) | Task::AllInOne(..) => None,
        }
    }
}

/// A workload's verb, done with the engine its URL names.
struct OnEngine<W: Benchmark> {
    task: Task<W>,
    stop: watch::Receiver<bool>,
}

impl<W: Benchmark> WithEngine for OnEngine<W> {
    type Output = Result<(), Failure>;
    async fn with(self, e: Arc<AnyEngine>) -> Result<(), Failure> {
        let stop = self.stop;
        if let (Execution::ServedTransactions, Some(verb)) =
            (e.execution(), self.task.tables_verb())
        {
            // A server's tables are its own: asked once, here, by name.
            return Err(Failure::usage(format!(
                "{} runs whole transactions only: {verb} the database through its own URL \
                 (`txbench serve` loads it when it starts)",
                e.describe()
            )));
        }
        // A sharded store runs scripts instead (TATP on Redis Cluster).
        let statements = e.execution() == Execution::Statements;
        if e.key_value_only() && statements && !W::schema().key_value {
            return Err(Failure::usage(format!(
                "{} holds key-value tables only, and {} has no key-value form: run it on an \
                 SQL engine (sqlite:, postgres://, mysql://); on {} run Retwis, YCSB or a \
                 workload file in the key-value form",
                e.describe(),
                W::ABOUT.title,
                e.name()
            )));
        }
        if e.ephemeral()
            && let Some(verb @ ("check" | "verify")) = self.task.tables_verb()
        {
            return Err(Failure::usage(format!(
                "{} holds nothing between processes, so there is nothing to {verb}: load, run \
                 and {verb} a file (--db sqlite:{name}.db), or run `txbench {name}`, which \
                 loads, runs and reports in one process",
                e.describe(),
                name = W::ABOUT.name
            )));
        }
        match self.task {
            Task::Load(a) => unless_stopped(&stop, "the load", load_on::<_, W>(e, &a)).await,
            Task::Run(plan) if e.ephemeral() => {
                outln!(
                    "{} holds nothing between processes: loading it first, as `txbench {}` does",
                    e.describe(),
                    W::ABOUT.name
                );
                let (load, options) = (LoadExtras::default(), W::LoadOptions::default());
                load_then_run::<_, W>(e, &plan, (&load, &options, 1), stop).await
            }
            Task::Run(plan) => repeat::run::<_, W>(e, &plan, stop).await,
            Task::Check(_, limit) => check_on::<W>(e, (&stop, limit)).await,
            Task::Verify(a) => crate::verify::verify_on::<W>(e, &a).await,
            Task::Acid(a) => crate::acid::acid_on::<W>(e, &a, stop).await,
            Task::Clean(a, limit) => clean_on::<_, W>(e, &a, (&stop, limit)).await,
            Task::AllInOne(plan, a) => all_in_one::<_, W>(e, &plan, &a, stop).await,
        }
    }
}

async fn check_on<W: Benchmark>(
    engine: Arc<AnyEngine>,
    bounds: (&watch::Receiver<bool>, Option<Duration>),
) -> Result<(), Failure> {
    let results = on_session_until(&engine, bounds, "the check", |mut s| async move {
        // Checking half-loaded data would report the missing rows as
        // thousands of violations; the load's state says what is wrong.
        let loaded = match W::loaded(&mut s).await? {
            None => return Err(WorkloadError::NotLoaded(W::ABOUT)),
            Some(l) if !l.complete => return Err(WorkloadError::Incomplete(W::ABOUT)),
            Some(l) => l,
        };
        // Data another tool loaded over the record would be checked as the
        // record describes it, and pass.
        txbench_workloads::opening::record_holds(&mut s, W::meta(), &loaded).await?;
        match W::check() {
            Some(check) => (check.run)(&mut s, &loaded).await,
            None => Err(WorkloadError::NoCheck(W::ABOUT)),
        }
    })
    .await??;
    report_conditions(&results)
}

/// Drop the tables txbench created for the workload, and say what stays:
/// tables of the same names that it did not create are never dropped.
async fn clean_on<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    a: &DbArgs,
    bounds: (&watch::Receiver<bool>, Option<Duration>),
) -> Result<(), Failure> {
    let found = on_session_until(&engine, bounds, "the clean", |mut s| async move {
        txbench_workloads::ownership::drop_ours(&mut s, W::meta(), W::schema()).await
    })
    .await??;
    let title = W::ABOUT.title;
    if found.ours.is_empty() && !found.meta {
        outln!("no {title} tables that txbench created in {a}: nothing dropped");
    } else {
        outln!("dropped the {title} tables txbench created in {a}");
    }
    let left = found.left();
    if !left.is_empty() {
        let names = left.join(", ");
        outln!("left {names}: txbench did not create them");
    }
    Ok(())
}

/// Load what the run needs unless it is loaded, then run.
async fn all_in_one<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    plan: &RunPlan<W>,
    a: &AllInOneArgs<W>,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    // The population's seed: the run's when it is given, else the load's default.
    let seed = a.run.run.seed.unwrap_or(1);
    load_then_run::<E, W>(engine, plan, (&a.load, &a.options, seed), stop).await
}

/// Load as the flags, the options and the population's seed say unless the
/// data is there, then run.
async fn load_then_run<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    plan: &RunPlan<W>,
    (load, options, seed): (&LoadExtras, &W::LoadOptions, u64),
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let progress = plan.output.progress;
    ensure_loaded::<E, W>(&engine, plan.scale, load, options, seed, progress, &stop).await?;
    repeat::run::<_, W>(engine, plan, stop).await
}
