//! `txbench NAME acid --db URL`: the ACID tests of the workload's
//! specification that a client can drive (TPC-C clause 3), each PASS or FAIL
//! with what it did and saw (docs/durability.md):
//!
//! 1. consistency: the workload's conditions, before the tests;
//! 2. atomicity and isolation: the workload's own tests ([`Benchmark::acid`], a capability the workload may have);
//! 3. durability: a short run with the acknowledged-work log across the
//!    crash `--fault-cmd` causes, then `verify` (skipped without a crash);
//! 4. consistency again, after all of it.
//!
//! Everything is kept in `results/<stamp>-NAME-acid-<engine>/`: acid.json and
//! the durability run's own results directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Command, FromArgMatches};
use tokio::sync::watch;
use txbench_core::acks::ACKS_FILE;
use txbench_core::any_engine::AnyEngine;
use txbench_core::{Engine, Execution};
use txbench_report::results;
use txbench_workloads::acid::{AcidReport, AcidStatus, AcidTest};
use txbench_workloads::{Benchmark, WorkloadError};

use crate::cli::RunArgs;
use crate::cli::workload::AcidArgs;
use crate::failure::Failure;
use crate::load::ensure_loaded;
use crate::plan::RunPlan;
use crate::runner::{compact_stamp, now_rfc3339, on_session, run_on, unless_stopped};

/// The report's file in the acid results directory.
const REPORT_FILE: &str = "acid.json";

/// Run the tests on the engine's database (loaded first if it is empty).
pub async fn acid_on<W: Benchmark>(
    engine: Arc<AnyEngine>,
    a: &AcidArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    if engine.execution() != Execution::Statements {
        return Err(Failure::usage(format!(
            "{} holds no {} data to test: acid runs the transactions' statements on a database",
            engine.describe(),
            W::ABOUT.title
        )));
    }
    // The crash's schedule is checked before the tests take their time.
    let crash = crash_run::<W>(a)?;
    let load = Default::default();
    let options = Default::default();
    let progress = crate::progress::period(None, false);
    ensure_loaded::<AnyEngine, W>(&engine, None, &load, &options, 1, progress, &stop).await?;
    let dir = results_dir::<W>(&engine, &a.results)?;
    let tested = test_into::<W>(&engine, a, crash, &dir, stop).await;
    if tested.is_err() {
        // Stopped or failed before its report: an empty directory would
        // stand for a test that never happened (one holding a run stays).
        let _ = std::fs::remove_dir(&dir);
    }
    tested
}

/// The tests, their report saved in `dir`, and the verdict.
async fn test_into<W: Benchmark>(
    engine: &Arc<AnyEngine>,
    a: &AcidArgs,
    crash: Option<RunPlan<W>>,
    dir: &Path,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let seed = a.seed.unwrap_or_else(crate::plan::fresh_seed);
    outln!(
        "ACID tests of {} on {} (seed {seed})",
        W::ABOUT.title,
        engine.describe()
    );
    let mut tests = vec![shown(consistency::<W>(engine, "before the tests").await?)];
    let Some(acid) = W::acid() else {
        return Err(WorkloadError::NoAcid(W::ABOUT).into());
    };
    let own = unless_stopped(&stop, "the ACID tests", async {
        Ok((acid.run)(engine.clone(), seed).await?)
    })
    .await?;
    tests.extend(own.tests.into_iter().map(shown));
    tests.push(shown(durability::<W>(engine, crash, dir, stop).await?));
    tests.push(shown(consistency::<W>(engine, "after the tests").await?));
    let report = AcidReport {
        isolation: own.isolation,
        tests,
    };
    save(dir, a.json.as_deref(), &report)?;
    verdict(&report, dir)
}

/// A new results directory for the tests.
fn results_dir<W: Benchmark>(engine: &AnyEngine, under: &Path) -> Result<PathBuf, Failure> {
    let name = format!(
        "{}-{}-acid-{}",
        compact_stamp(&now_rfc3339()),
        W::ABOUT.name,
        engine.name()
    );
    results::create_unique(under, &name)
        .map_err(|e| Failure::failed_because(e, format!("creating {}", under.display())))
}

/// The workload's consistency conditions, as a test.
async fn consistency<W: Benchmark>(
    engine: &Arc<AnyEngine>,
    when: &str,
) -> Result<AcidTest, Failure> {
    let mut t = AcidTest::new(
        "consistency",
        "3.3.2",
        format!("the consistency conditions hold {when}"),
    );
    let found = on_session(engine, |mut s| async move {
        let loaded = W::loaded(&mut s).await?;
        match (loaded, W::check()) {
            (Some(l), Some(check)) => (check.run)(&mut s, &l).await,
            (None, _) => Err(WorkloadError::NotLoaded(W::ABOUT)),
            (Some(_), None) => Err(WorkloadError::NoCheck(W::ABOUT)),
        }
    })
    .await?;
    let conditions = match found {
        Ok(c) => c,
        Err(e) => return Ok(t.failed(format!("the check failed: {e}"))),
    };
    let held = conditions.iter().filter(|c| c.passed()).count();
    t.saw(format!("{held} of {} conditions hold", conditions.len()));
    for c in conditions.iter().filter(|c| !c.passed()) {
        t.saw(format!(
            "{} {}: {} violations",
            c.clause, c.text, c.violations
        ));
    }
    Ok(t.judged(held == conditions.len()))
}

/// The durability test's run, when a crash is asked for: flags checked as
/// `NAME run` checks them.
fn crash_run<W: Benchmark>(a: &AcidArgs) -> Result<Option<RunPlan<W>>, Failure> {
    if a.fault_cmd.is_empty() && a.fault_at.is_empty() {
        return Ok(None);
    }
    let flags = durability_run(a, &a.results)?;
    Ok(Some(RunPlan::<W>::new(&flags, None, Default::default())?))
}

/// A run with the acknowledged-work log across the crash the user's
/// commands cause, then `verify`: nothing acknowledged lost, nothing rolled
/// back leaked, the in-doubt ones classified.
async fn durability<W: Benchmark>(
    engine: &Arc<AnyEngine>,
    crash: Option<RunPlan<W>>,
    dir: &Path,
    stop: watch::Receiver<bool>,
) -> Result<AcidTest, Failure> {
    let mut t = AcidTest::new(
        "durability",
        "3.5",
        "acknowledged transactions survive a crash: none lost, none rolled back leaked",
    );
    let Some(mut plan) = crash else {
        return Ok(t.skipped(
            "no crash asked for: give --fault-at TIME --fault-cmd CMD (and --recover-at, \
             --recover-cmd) that crash the database and bring it back",
        ));
    };
    let runs = dir.join("run");
    plan.output.results = Some(runs.clone());
    outln!(
        "durability: a {} s run with the acknowledged-work log and {} scheduled commands",
        plan.duration.as_secs_f64(),
        plan.faults.len()
    );
    run_on::<AnyEngine, W>(engine.clone(), &plan, stop).await?;
    let run = only_directory(&runs)?;
    t.saw(format!("ran {}", run.display()));
    let found = match crate::verify::findings::<W>(engine, &run.join(ACKS_FILE)).await {
        Ok(found) => found,
        Err(e) => return Ok(t.failed(format!("verify could not read the database: {e}"))),
    };
    for line in crate::verify::table(&found).lines() {
        t.saw(line.trim_end());
    }
    Ok(t.judged(found.sound()))
}

/// The durability run's flags, checked as `NAME run` checks them.
fn durability_run(a: &AcidArgs, results: &Path) -> Result<RunArgs, Failure> {
    let mut argv: Vec<String> = vec!["run".into()];
    for url in &a.db.db {
        argv.extend(["--db".into(), url.clone()]);
    }
    let duration = format!("{}ms", a.duration.as_millis());
    argv.extend(
        [
            "-d",
            &duration,
            "--warmup",
            "1s",
            "-t",
            "4",
            "-q",
            "--ack-log",
        ]
        .map(String::from),
    );
    argv.extend(["--results".into(), results.display().to_string()]);
    if let Some(level) = a.isolation {
        argv.extend(["--isolation".into(), level.level().name().into()]);
    }
    let pairs = [("--fault-at", &a.fault_at), ("--recover-at", &a.recover_at)];
    for (flag, times) in pairs {
        for at in times {
            argv.extend([flag.into(), format!("{}ms", at.as_millis())]);
        }
    }
    for (flag, commands) in [
        ("--fault-cmd", &a.fault_cmd),
        ("--recover-cmd", &a.recover_cmd),
    ] {
        for cmd in commands {
            argv.extend([flag.into(), cmd.clone()]);
        }
    }
    let matches = RunArgs::augment_args(Command::new("run"))
        .try_get_matches_from(argv)
        .map_err(|e| Failure::usage(e.to_string().trim()))?;
    RunArgs::from_arg_matches(&matches).map_err(|e| Failure::usage(e.to_string().trim()))
}

/// The one directory a run made under `under`.
fn only_directory(under: &Path) -> Result<PathBuf, Failure> {
    let mut dirs = std::fs::read_dir(under)
        .map_err(|e| Failure::failed_because(e, format!("reading {}", under.display())))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir());
    dirs.next()
        .ok_or_else(|| Failure::failed(format!("the run wrote nothing under {}", under.display())))
}

/// Print a test as it is known, and pass it on.
fn shown(t: AcidTest) -> AcidTest {
    outln!(
        "{:<13} {:<12} {:<8} {}",
        t.status.word(),
        t.property,
        t.clause,
        t.name
    );
    for line in &t.evidence {
        outln!("{:<13} {line}", "");
    }
    t
}

/// acid.json in the results directory, and at `--json` if asked.
fn save(dir: &Path, json: Option<&Path>, report: &AcidReport) -> Result<(), Failure> {
    for path in std::iter::once(dir.join(REPORT_FILE)).chain(json.map(Path::to_path_buf)) {
        txbench_report::json::write_value(&path, report).map_err(Failure::error)?;
    }
    Ok(())
}

/// PASS, or a failure naming the tests that failed.
fn verdict(report: &AcidReport, dir: &Path) -> Result<(), Failure> {
    let count = |s: AcidStatus| report.tests.iter().filter(|t| t.status == s).count();
    let level = report
        .isolation
        .map_or("the database's own level (not reported)", |l| l.name());
    let tally = format!(
        "{} passed, {} failed, {} not promised at {level}, {} skipped; {}",
        count(AcidStatus::Pass),
        count(AcidStatus::Fail),
        count(AcidStatus::NotPromised),
        count(AcidStatus::Skipped),
        dir.join(REPORT_FILE).display()
    );
    if report.passed() {
        outln!("acid PASSED: {tally}");
        return Ok(());
    }
    let failed: Vec<&str> = report
        .tests
        .iter()
        .filter(|t| t.status == AcidStatus::Fail)
        .map(|t| t.clause)
        .collect();
    Err(Failure::failed(format!(
        "acid FAILED ({}): {tally}",
        failed.join(", ")
    )))
}
