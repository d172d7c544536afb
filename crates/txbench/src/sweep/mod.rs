//! `txbench sweep WORKLOAD`: capacity search after the VoltDB TATP method. Each step
//! is an ordinary open-loop run (its full results written under the sweep's
//! directory); a step passes when at least 90% of the offered load completed,
//! the latency objective (if any) held for every transaction type, and its own
//! measurement is not NOT SOUND (a step whose figures cannot be trusted proves
//! nothing). A step that failed only because the client fell behind is the
//! client's limit, never the database's ([`limit`]). The sweep stops after the
//! first failing step (past the client's limit too with `--keep-going`),
//! refines between the last pass and the first fail, and reports the highest
//! passing rate and which limit it found; when no step passes it exits 3.

use std::sync::Arc;

use tokio::sync::watch;
use txbench_core::Engine;
use txbench_core::any_engine::AnyEngine;
use txbench_core::checks::{self, Status};
use txbench_core::result::{
    RefusedVariant, RunResult, SweepResult, SweepStep, VariantSweep, VariantSweeps,
};
use txbench_engines::{WithEngine, with_engines};
use txbench_report::{json, results, terminal};
use txbench_workloads::registry::Visitor;
use txbench_workloads::{Benchmark, Variant};

use crate::cli::{Chosen, LoadExtras, Slo, SweepArgs, Sweeps};
use crate::failure::Failure;
use crate::plan::RunPlan;
use crate::runner::{compact_stamp, measure, now_rfc3339};
use crate::workload::{Work, for_workload};
use txbench_report::results::SWEEP_FILE;

mod frontier;
mod limit;

use limit::Outcome;

/// The percentile a sweep reads: the objective's, or p99 without one.
fn percentile(slo: Option<&Slo>) -> f64 {
    slo.map_or(99.0, |s| s.percentile)
}

/// A step's verdict in a table cell: SOUND, CARE or NOT SOUND with the checks
/// that made it so.
fn verdict_cell(result: &RunResult) -> String {
    let named = |status| checks::named(&result.checks, status).join(", ");
    match checks::worst(&result.checks) {
        Status::Pass => "SOUND".into(),
        Status::Warn => format!("CARE ({})", named(Status::Warn)),
        Status::Fail => format!("NOT SOUND ({})", named(Status::Fail)),
    }
}

/// Run `txbench sweep NAME` for the workload the command line chose.
pub fn main(chosen: Chosen<Sweeps>, stop: watch::Receiver<bool>) -> Work {
    let name = chosen.workload.clone();
    for_workload(&name, Sweep { chosen, stop })
}

struct Sweep {
    chosen: Chosen<Sweeps>,
    stop: watch::Receiver<bool>,
}

impl Visitor for Sweep {
    type Output = Work;
    fn visit<W: Benchmark>(self) -> Work {
        Box::pin(async move {
            // A sweep sets each step's length and rate itself.
            for (flag, instead) in [
                ("duration", "--step-duration"),
                ("transactions", "--step-duration"),
                ("rate", "--rates and --step"),
            ] {
                if self.chosen.given(flag) {
                    return Err(Failure::usage(format!(
                        "sweep does not take --{flag}: each step's is set by {instead}"
                    )));
                }
            }
            if self.chosen.given("repeat") {
                return Err(Failure::usage(
                    "sweep does not take --repeat: compare sets made with `run --repeat` at the \
                     rates that matter",
                ));
            }
            let a = self
                .chosen
                .args::<W>()
                .map_err(|e| Failure::Usage(e.into()))?;
            W::define(&a.definition).map_err(|e| Failure::Usage(e.into()))?;
            let variants = W::variants(&a.options);
            let plan = RunPlan::<W>::new(&a.sweep.run, a.scale.asked, a.options.0.clone())?;
            // A sweep's steps each start when the last ends: no agreed start
            // time, and shards of a sweep would not share their steps' windows.
            if !plan.shard.is_whole() || plan.start_at.is_some() {
                return Err(Failure::usage(
                    "sweep does not take --shards or --start-at: run the shards with `run` at \
                     each rate",
                ));
            }
            let (urls, options) = (plan.db.clone(), plan.engine_options());
            let side = plan.analytic_db.clone();
            let on = SweepOn {
                plan,
                variants,
                sweep: a.sweep,
                stop: self.stop,
            };
            with_engines(&urls, &side, &options, on).await?
        })
    }
}

/// A sweep, or one per variant of its run options, done with the engine its
/// URL names.
struct SweepOn<W: Benchmark> {
    plan: RunPlan<W>,
    /// The variants to sweep one by one ([`Benchmark::variants`]); none: the
    /// plan as it is.
    variants: Vec<Variant<W::RunOptions>>,
    sweep: SweepArgs,
    stop: watch::Receiver<bool>,
}

impl<W: Benchmark> WithEngine for SweepOn<W> {
    type Output = Result<(), Failure>;
    async fn with(self, e: Arc<AnyEngine>) -> Result<(), Failure> {
        sweep_on::<_, W>(e, &self.plan, &self.variants, &self.sweep, self.stop).await
    }
}

/// Run the sweep, or one per variant side by side.
pub async fn sweep_on<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    plan: &RunPlan<W>,
    variants: &[Variant<W::RunOptions>],
    s: &SweepArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    // A frontier's values are refused before anything is loaded.
    let frontier = (!s.frontier.is_empty())
        .then(|| frontier::refuse_bad(plan, s))
        .transpose()?;
    // Like the all-in-one form, a sweep of an empty database (in-memory SQLite)
    // loads it first.
    let seed = s.run.seed.unwrap_or(1);
    let (extras, options) = (LoadExtras::default(), W::LoadOptions::default());
    let progress = plan.output.progress;
    crate::load::ensure_loaded::<E, W>(
        &engine, plan.scale, &extras, &options, seed, progress, &stop,
    )
    .await?;
    let name = format!(
        "{}-sweep-{}-{}",
        compact_stamp(&now_rfc3339()),
        W::ABOUT.name,
        engine.name()
    );
    let dir = match &plan.output.results {
        None => None,
        Some(under) => Some(
            results::create_unique(under, &name)
                .map_err(|e| Failure::failed_because(e, format!("creating {}", under.display())))?,
        ),
    };
    let swept = if let Some(f) = frontier {
        frontier::frontier(&engine, plan, (f, s), &stop, dir.as_deref()).await
    } else if variants.is_empty() {
        sweep_one(&engine, plan, s, &stop, dir.as_deref()).await
    } else {
        sweep_variants(&engine, plan, variants, s, &stop, dir.as_deref()).await
    };
    if swept.is_err()
        && let Some(dir) = &dir
    {
        results::remove_if_empty(dir);
    }
    swept
}

/// One sweep into `dir`; no passing step fails it.
async fn sweep_one<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    plan: &RunPlan<W>,
    s: &SweepArgs,
    stop: &watch::Receiver<bool>,
    dir: Option<&std::path::Path>,
) -> Result<(), Failure> {
    let (summary, _) = Sweeper::new(engine, plan, s, stop, dir).run().await?;
    no_capacity_fails(&[summary.capacity_rate], &summary.objective)
}

/// Exit 3 when no sweep met the objective.
fn no_capacity_fails(capacities: &[Option<f64>], objective: &str) -> Result<(), Failure> {
    if capacities.iter().all(Option::is_none) {
        return Err(Failure::NotSound(format!(
            "no step of the sweep met {objective}"
        )));
    }
    Ok(())
}

/// A sweep per variant, each in a directory of its own under `dir`, then
/// their capacities side by side (`variants.json` and a report drawing
/// them together). Fails only when no variant met the objective.
async fn sweep_variants<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    plan: &RunPlan<W>,
    variants: &[Variant<W::RunOptions>],
    s: &SweepArgs,
    stop: &watch::Receiver<bool>,
    dir: Option<&std::path::Path>,
) -> Result<(), Failure> {
    let mut compared = VariantSweeps {
        schema_version: 1,
        option: variants[0].option.to_string(),
        objective: objective(s.slo.as_ref()),
        types: W::VARIANT_TYPES.iter().map(|t| t.to_string()).collect(),
        variants: Vec::new(),
        refused: Vec::new(),
    };
    let mut sweeps = Vec::with_capacity(variants.len());
    for Variant {
        option,
        value,
        options,
    } in variants
    {
        let plan = RunPlan {
            options: options.clone(),
            ..plan.clone()
        };
        outln!();
        outln!("{option} {value}:");
        let sub = format!("{option}-{value}");
        let variant_dir = match dir {
            Some(dir) => {
                let d = dir.join(&sub);
                std::fs::create_dir_all(&d)
                    .map_err(|e| Failure::failed_because(e, format!("creating {}", d.display())))?;
                Some(d)
            }
            None => None,
        };
        let swept = Sweeper::new(engine, &plan, s, stop, variant_dir.as_deref())
            .run()
            .await;
        let (summary, steps) = match swept {
            Ok(swept) => swept,
            // A value the engine cannot run (refused before any step ran):
            // named, and the other values go on.
            Err(Failure::Usage(why)) => {
                outln!("  refused: {why}");
                if let Some(d) = &variant_dir {
                    results::remove_if_empty(d);
                }
                compared.refused.push(RefusedVariant {
                    value: value.to_string(),
                    why: why.to_string(),
                });
                continue;
            }
            Err(other) => return Err(other),
        };
        compared.variants.push(variant_at_capacity(
            value,
            sub,
            &summary,
            &steps,
            &compared.types,
        ));
        sweeps.push((summary, steps));
    }
    // Every value refused: the command asked for nothing this engine runs.
    if compared.variants.is_empty()
        && let Some(refused) = compared.refused.first()
    {
        return Err(Failure::usage(&refused.why));
    }
    crate::report::print_variants(&compared);
    if let Some(dir) = dir {
        json::write_value(&dir.join(results::VARIANTS_FILE), &compared).map_err(Failure::error)?;
        outln!("results: {}", dir.display());
        if plan.output.report {
            let page = crate::report::write_variants_report(dir, &compared, &sweeps)?;
            outln!("report: {}", page.display());
        }
    }
    let capacities: Vec<Option<f64>> = compared.variants.iter().map(|v| v.capacity_rate).collect();
    no_capacity_fails(&capacities, &compared.objective)
}

/// A variant's capacity, and the latency of the types the variants differ
/// in at the step that set it.
fn variant_at_capacity(
    value: &str,
    dir: String,
    summary: &SweepResult,
    steps: &[RunResult],
    types: &[String],
) -> VariantSweep {
    let at = summary.capacity_rate.and_then(|c| {
        let i = summary
            .steps
            .iter()
            .position(|st| st.passed && st.offered_rate == c)?;
        Some((&summary.steps[i], &steps[i]))
    });
    VariantSweep {
        value: value.to_string(),
        dir,
        capacity_rate: summary.capacity_rate,
        achieved_at_capacity: at.map(|(st, _)| st.achieved_rate),
        types_latency_ms_at_capacity: at
            .map(|(_, r)| r.slowest_at(summary.objective_percentile, types)),
    }
}

/// A sweep under way: the steps run so far.
struct Sweeper<'a, E, W: Benchmark> {
    engine: &'a Arc<E>,
    plan: &'a RunPlan<W>,
    sweep: &'a SweepArgs,
    stop: watch::Receiver<bool>,
    dir: Option<&'a std::path::Path>,
    steps: Vec<SweepStep>,
    /// Each step's result, for the sweep's report.
    results: Vec<RunResult>,
}

impl<'a, E: Engine, W: Benchmark> Sweeper<'a, E, W> {
    fn new(
        engine: &'a Arc<E>,
        plan: &'a RunPlan<W>,
        sweep: &'a SweepArgs,
        stop: &watch::Receiver<bool>,
        dir: Option<&'a std::path::Path>,
    ) -> Self {
        Sweeper {
            engine,
            plan,
            sweep,
            stop: stop.clone(),
            dir,
            steps: Vec::new(),
            results: Vec::new(),
        }
    }

    /// The steps, the capacity line and `sweep.json` (with a results
    /// directory); the summary and each step's result.
    async fn run(mut self) -> Result<(SweepResult, Vec<RunResult>), Failure> {
        let slo = self.sweep.slo.as_ref();
        outln!(
            "sweep of {} on {}: {}",
            W::ABOUT.title,
            self.engine.describe(),
            match slo {
                Some(_) => format!("objective {}", objective(slo)),
                None => "no latency objective (--slo): each step must take the offered load".into(),
            }
        );
        let worst_header = format!("worst p{} ms", percentile(slo));
        outln!(
            "{:>10} {:>10} {:>8} {worst_header:>14}  step  verdict",
            "offered/s",
            "achieved/s",
            "ratio"
        );
        match self.search().await {
            Ok(()) => {
                let summary = self.finish()?;
                Ok((summary, self.results))
            }
            // A stopped sweep keeps what it measured: the steps done, and
            // sweep.json over them, which `report` reads.
            Err(stopped @ Failure::Interrupted(_)) => {
                self.finish()?;
                Err(stopped)
            }
            Err(failed) => Err(failed),
        }
    }

    /// Step the rate up until a step fails (past the client's limit only
    /// with `--keep-going`), then refine between the last pass and the first
    /// fail when they are neighbours.
    async fn search(&mut self) -> Result<(), Failure> {
        let s = self.sweep;
        let (Some((from, to)), Some(by)) = (s.rates, s.step) else {
            return Err(Failure::usage(
                "sweep needs --rates and --step, or --frontier",
            ));
        };
        let mut last_pass: Option<f64> = None;
        let mut first_fail: Option<f64> = None;
        let mut rate = from;
        while rate <= to * (1.0 + 1e-9) {
            match self.step(rate).await? {
                Outcome::Passed => last_pass = Some(rate),
                Outcome::Client(_) if s.keep_going => {}
                Outcome::Client(_) => break,
                Outcome::Database(_) | Outcome::Process(_) => {
                    first_fail = Some(rate);
                    break;
                }
            }
            rate += by;
        }
        // Between a pass and a database's fail with a client's limit in
        // between, halving would measure the client again.
        let neighbours = |lo: f64, hi: f64| (hi - lo) <= by * (1.0 + 1e-9);
        if let (Some(mut lo), Some(mut hi)) = (last_pass, first_fail)
            && neighbours(lo, hi)
        {
            for _ in 0..s.refine {
                let mid = (lo + hi) / 2.0;
                match self.step(mid).await? {
                    Outcome::Passed => lo = mid,
                    Outcome::Database(_) | Outcome::Process(_) => hi = mid,
                    // The client, not the database, between the two: no
                    // refinement can find the database's limit here.
                    Outcome::Client(_) => break,
                }
            }
        }
        Ok(())
    }

    /// One step at `rate`, printed and saved as it ends (a sweep that fails
    /// later keeps it); how it ended.
    async fn step(&mut self, rate: f64) -> Result<Outcome, Failure> {
        let slo = self.sweep.slo.as_ref();
        let label = format!(
            "step {} at {}/s",
            self.steps.len() + 1,
            terminal::grouped(rate, 0)
        );
        let number = self.steps.len() as u32 + 1;
        let plan = self
            .plan
            .step(number, rate, self.sweep.step_duration, label);
        let step_dir = self
            .dir
            .map(|d| d.join(format!("step-{:02}-{}", self.steps.len() + 1, rate.round())));
        let measured = measure::<E, W>(
            self.engine,
            &plan,
            self.stop.clone(),
            &now_rfc3339(),
            step_dir.as_deref(),
        )
        .await?;
        let result = &measured.result;
        let embedded = self.engine.blocking();
        let step = limit::Step::of(result, rate, percentile(slo), embedded);
        let outcome = step.outcome(slo);
        outln!(
            "{:>10} {:>10} {:>8.3} {:>14.2}  {}  {}",
            terminal::grouped(rate, 0),
            terminal::grouped(step.achieved, 0),
            step.taken(),
            step.worst_ms,
            match outcome {
                Outcome::Passed => "PASS",
                Outcome::Client(_) => "FAIL (the client's limit)",
                Outcome::Database(_) => "FAIL",
                Outcome::Process(_) => "FAIL (the process's limit)",
            },
            verdict_cell(result)
        );
        if let Some(step_dir) = &step_dir {
            crate::runner::save(step_dir, &measured)?;
            if self.plan.output.report {
                crate::report::write_run_report(step_dir, result)?;
            }
        }
        self.steps.push(SweepStep {
            offered_rate: rate,
            achieved_rate: step.achieved,
            worst_latency_ms: step.worst_ms,
            passed: outcome == Outcome::Passed,
            limit: outcome.limit().map(str::to_string),
            failed_because: outcome.why().map(str::to_string),
            verdict: result.verdict.clone(),
            results: step_dir
                .as_deref()
                .zip(self.dir)
                .and_then(|(step, dir)| step.strip_prefix(dir).ok())
                .map(|d| d.join(results::SUMMARY_FILE).display().to_string())
                .unwrap_or_default(),
        });
        let interrupted = result.interrupted;
        self.results.push(measured.result);
        if interrupted {
            return Err(Failure::Interrupted("sweep interrupted".into()));
        }
        Ok(outcome)
    }

    /// The capacity line and `sweep.json`; the sweep's summary.
    fn finish(&mut self) -> Result<SweepResult, Failure> {
        let slo = self.sweep.slo.as_ref();
        let objective = objective(slo);
        let capacity = (self.steps.iter())
            .filter(|st| st.passed)
            .map(|st| st.offered_rate)
            .reduce(f64::max);
        let limit = found_limit(&self.steps);
        outln!("{}", capacity_line(capacity, slo, limit.as_ref()));
        let limit = limit.map(|(kind, _)| kind.to_string());
        let summary = SweepResult {
            schema_version: 1,
            objective,
            objective_percentile: percentile(slo),
            objective_limit_ms: slo.map_or(0.0, |s| s.limit_ms),
            steps: std::mem::take(&mut self.steps),
            capacity_rate: capacity,
            limit,
        };
        if let Some(dir) = self.dir {
            json::write_value(&dir.join(SWEEP_FILE), &summary).map_err(Failure::error)?;
            outln!("results: {}", dir.display());
            if self.plan.output.report {
                let page = crate::report::write_sweep_report(dir, &summary, &self.results)?;
                outln!("report: {}", page.display());
            }
        }
        Ok(summary)
    }
}

/// The limit a sweep found: the database's (or an embedded engine's
/// process's) where a step failed on it, else the client's, with the first
/// step that showed it.
fn found_limit(steps: &[SweepStep]) -> Option<(&'static str, &SweepStep)> {
    let first = |kind: &str| steps.iter().find(|st| st.limit.as_deref() == Some(kind));
    (first("database").map(|st| ("database", st)))
        .or_else(|| first("process").map(|st| ("process", st)))
        .or_else(|| first("client").map(|st| ("client", st)))
}

/// The sweep's last line: the capacity (or highest rate taken) and which
/// limit stopped it.
fn capacity_line(
    capacity: Option<f64>,
    slo: Option<&Slo>,
    limit: Option<&(&str, &SweepStep)>,
) -> String {
    let met = match slo {
        Some(_) => format!("met {}", objective(slo)),
        None => "was taken (no latency objective)".into(),
    };
    let head = match (capacity, slo) {
        (Some(c), Some(_)) => format!("capacity: {} txn/s offered {met}", terminal::grouped(c, 0)),
        (Some(c), None) => format!(
            "highest rate taken: {} txn/s offered {met}",
            terminal::grouped(c, 0)
        ),
        (None, _) => "capacity: no step passed".to_string(),
    };
    let at = |st: &SweepStep| {
        format!(
            "at {}/s, {}",
            terminal::grouped(st.offered_rate, 0),
            st.failed_because.as_deref().unwrap_or("it failed")
        )
    };
    match limit {
        Some(("database", st)) => format!("{head}; the limit found is the database's ({})", at(st)),
        Some(("process", st)) => format!(
            "{head}; the limit found is the process's, client and embedded engine together on \
             this machine's cores ({}): more client machines cannot raise it",
            at(st)
        ),
        Some((_, st)) => format!(
            "{head}; the limit found is the client's, not the database's ({}): add \
             --driver-threads or client machines (txbench merge adds their runs), or \
             --keep-going to step on where the database still meets it",
            at(st)
        ),
        None => format!("{head}; no limit found up to the top of --rates: sweep higher"),
    }
}

/// The objective as the sweep names it ("p99<=10ms", or that there is none).
fn objective(slo: Option<&Slo>) -> String {
    match slo {
        Some(s) => format!("p{}<={}ms", s.percentile, s.limit_ms),
        None => "no latency objective".into(),
    }
}
