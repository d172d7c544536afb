//! `--repeat N`: runs of one plan made one after another and kept as a set
//! (docs/results.md): a directory holding each run's results and
//! `set.json`, which `compare` reads to judge a change against the noise
//! between runs, and whose spread the set prints when it ends.

use std::path::Path;
use std::sync::Arc;

use tokio::sync::watch;
use txbench_core::Engine;
use txbench_core::checks::{self, Status};
use txbench_core::result::{RunResult, RunSet};
use txbench_report::{json, results, terminal};
use txbench_workloads::Benchmark;

use crate::failure::Failure;
use crate::plan::RunPlan;
use crate::runner::{Measured, compact_stamp, measure, now_rfc3339, run_on, save};

/// Run as the plan says: once, or `--repeat` times as a set.
pub async fn run<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    plan: &RunPlan<W>,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    if plan.repeat > 1 {
        run_set(engine, plan, stop).await
    } else {
        run_on(engine, plan, stop).await
    }
}

/// Make the plan's runs in turn under a set directory; print a line per run
/// and the set's spread. A stopped set keeps the runs it finished.
async fn run_set<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    plan: &RunPlan<W>,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let under = plan.output.results.as_deref().ok_or_else(|| {
        Failure::usage("--repeat keeps its runs in a results directory: not with --no-results")
    })?;
    let name = format!(
        "{}-{}-{}-set",
        compact_stamp(&now_rfc3339()),
        W::ABOUT.name,
        engine.name()
    );
    let dir = results::create_unique(under, &name)
        .map_err(|e| Failure::failed_because(e, format!("creating {}", under.display())))?;
    outln!(
        "a set of {} runs of {} on {}, one after another:",
        plan.repeat,
        W::ABOUT.title,
        engine.describe()
    );
    outln!(
        "{:>4} {:>14} {:>14}  verdict",
        "run",
        "txn/s",
        "worst p99 ms"
    );
    let mut set = Set {
        dir: &dir,
        file: RunSet {
            schema_version: 1,
            repeat: plan.repeat,
            runs: Vec::new(),
        },
        results: Vec::new(),
    };
    let made = set.make(&engine, plan, &stop).await;
    if set.results.is_empty() {
        results::remove_if_empty(&dir);
        return made;
    }
    crate::compare::print_spread(&set.results);
    outln!("results: {}", dir.display());
    made?;
    let unsound = set
        .results
        .iter()
        .filter(|r| checks::worst(&r.checks) == Status::Fail)
        .count();
    if plan.output.strict && unsound > 0 {
        return Err(Failure::NotSound(format!(
            "{unsound} of the set's {} runs were NOT SOUND",
            set.results.len()
        )));
    }
    Ok(())
}

/// A set under way.
struct Set<'a> {
    dir: &'a Path,
    file: RunSet,
    results: Vec<RunResult>,
}

impl Set<'_> {
    /// The runs, each saved and added to `set.json` as it ends.
    async fn make<E: Engine, W: Benchmark>(
        &mut self,
        engine: &Arc<E>,
        plan: &RunPlan<W>,
        stop: &watch::Receiver<bool>,
    ) -> Result<(), Failure> {
        for number in 1..=plan.repeat {
            let run = plan.repetition(number, plan.repeat);
            let name = format!("run-{number:02}");
            let run_dir = self.dir.join(&name);
            let measured =
                measure::<E, W>(engine, &run, stop.clone(), &now_rfc3339(), Some(&run_dir)).await?;
            if measured.result.interrupted {
                // Cut short, it is no repetition of the plan: saved apart,
                // out of set.json, so that the set's spread holds whole runs.
                save(&run_dir, &measured)?;
                return Err(Failure::Interrupted(format!(
                    "interrupted: the set holds the {} whole runs made until then; {name}, cut \
                     short, is saved in {} but is not one of the set's",
                    self.results.len(),
                    run_dir.display()
                )));
            }
            self.keep(&run, name, &run_dir, measured)?;
        }
        Ok(())
    }

    /// Save a run, print its line, and add it to `set.json`.
    fn keep<W: Benchmark>(
        &mut self,
        plan: &RunPlan<W>,
        name: String,
        run_dir: &Path,
        measured: Measured,
    ) -> Result<(), Failure> {
        save(run_dir, &measured)?;
        if plan.output.report {
            crate::report::write_run_report(run_dir, &measured.result)?;
        }
        let r = measured.result;
        outln!(
            "{:>4} {:>14} {:>14.3}  {}",
            self.results.len() + 1,
            terminal::grouped(r.throughput(), 1),
            r.slowest_at(99.0, &[] as &[&str]),
            r.verdict
        );
        self.file.runs.push(name);
        self.results.push(r);
        json::write_value(&self.dir.join(results::SET_FILE), &self.file).map_err(Failure::error)
    }
}
