//! `txbench sweep NAME --frontier A,A,...`: closed-loop steps with each
//! number of the workload's second kind of terminals (the CH-benCHmark's
//! analytical streams) beside each count of its first kind, every step an
//! ordinary run with its own results; the frontier is each step's two
//! headline figures, one against the other (`frontier.json`, and a chart in
//! the sweep's report).

use std::path::Path;
use std::sync::Arc;

use tokio::sync::watch;
use txbench_core::Engine;
use txbench_core::result::{FrontierPoint, FrontierResult, RunResult};
use txbench_report::{json, results, terminal};
use txbench_workloads::{Benchmark, Frontier, Options};

use crate::cli::SweepArgs;
use crate::failure::Failure;
use crate::plan::RunPlan;
use crate::runner::{measure, now_rfc3339};

/// The frontier's own file in the sweep's directory.
pub const FRONTIER_FILE: &str = "frontier.json";

/// Run the frontier `f` (checked by [`refuse_bad`]) with `s`'s values into
/// `dir`, print its steps as they end and write `frontier.json` (and the
/// report) over them.
pub async fn frontier<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    plan: &RunPlan<W>,
    (f, s): (Frontier, &SweepArgs),
    stop: &watch::Receiver<bool>,
    dir: Option<&Path>,
) -> Result<(), Failure> {
    let counts: Vec<Option<usize>> = if s.frontier_terminals.is_empty() {
        vec![plan.terminals]
    } else {
        s.frontier_terminals.iter().copied().map(Some).collect()
    };
    outln!(
        "frontier of {} on {}: {} against {}, {} s a step",
        W::ABOUT.title,
        engine.describe(),
        f.y,
        f.x,
        s.step_duration.as_secs_f64()
    );
    outln!(
        "{:>9} {:>8} {:>12} {:>12} {:>14}  verdict",
        "terminals",
        f.option.split('-').next_back().unwrap_or(f.option),
        f.y,
        f.x,
        "first p99 ms"
    );
    let mut swept = Swept::default();
    let steps = counts.len() * s.frontier.len();
    for terminals in counts {
        for &added in &s.frontier {
            let number = swept.points.len() as u32 + 1;
            let step = step_plan(plan, f, (terminals, added), s, (number, steps))?;
            let interrupted = swept.step(engine, &step, f, added, stop, dir).await?;
            if interrupted {
                write(&swept, f, s, plan, dir)?;
                return Err(Failure::Interrupted("sweep interrupted".into()));
            }
        }
    }
    write(&swept, f, s, plan, dir)
}

/// The workload's frontier, once every value of `--frontier` is one its
/// option takes: refused before anything is loaded or run.
pub fn refuse_bad<W: Benchmark>(plan: &RunPlan<W>, s: &SweepArgs) -> Result<Frontier, Failure> {
    let Some(f) = W::FRONTIER else {
        return Err(Failure::usage(format!(
            "--frontier: {} has terminals of one kind only; a frontier needs a second kind \
             beside them (txbench sweep ch --frontier 0,1,2)",
            W::ABOUT.title
        )));
    };
    for &added in &s.frontier {
        step_plan(plan, f, (None, added), s, (1, 1))?;
    }
    Ok(f)
}

/// Step `number` of `count`: the plan closed-loop for the step's length,
/// with `terminals` of the first kind (`None`: the plan's) and `added` of
/// the second, set through the workload's own flag.
fn step_plan<W: Benchmark>(
    plan: &RunPlan<W>,
    f: Frontier,
    (terminals, added): (Option<usize>, usize),
    s: &SweepArgs,
    (number, count): (u32, usize),
) -> Result<RunPlan<W>, Failure> {
    let flag = (W::RunOptions::FLAGS.iter())
        .find(|flag| flag.long == f.option)
        .ok_or_else(|| {
            Failure::usage(format!(
                "--frontier: {} has no --{}",
                W::ABOUT.title,
                f.option
            ))
        })?;
    let mut step = plan.repetition(number, count as u32);
    (flag.set)(&mut step.options, &added.to_string())
        .map_err(|e| Failure::usage(format!("--frontier: {}", e.0)))?;
    step.terminals = terminals.or(plan.terminals);
    // A step without the second kind of terminals runs nothing on their
    // database (`--analytic-db`): it is the frontier's baseline, not a
    // contradiction to refuse.
    if added == 0 {
        step.analytic_db.clear();
    }
    step.duration = s.step_duration;
    step.output.progress_label = Some(format!("step {number} of {count}"));
    Ok(step)
}

/// The steps so far.
#[derive(Default)]
struct Swept {
    points: Vec<FrontierPoint>,
}

impl Swept {
    /// Run one step, print its line, save it; whether it was interrupted.
    async fn step<E: Engine, W: Benchmark>(
        &mut self,
        engine: &Arc<E>,
        plan: &RunPlan<W>,
        f: Frontier,
        added: usize,
        stop: &watch::Receiver<bool>,
        dir: Option<&Path>,
    ) -> Result<bool, Failure> {
        let name = format!("step-{:02}-{added}", self.points.len() + 1);
        let step_dir = dir.map(|d| d.join(&name));
        let measured = measure::<E, W>(
            engine,
            plan,
            stop.clone(),
            &now_rfc3339(),
            step_dir.as_deref(),
        )
        .await?;
        let r = &measured.result;
        let point = point_of(r, f, added, step_dir.as_ref().map(|_| name));
        outln!(
            "{:>9} {:>8} {:>12} {:>12} {:>14.2}  {}",
            point.terminals,
            point.added,
            terminal::grouped(point.y, 0),
            terminal::grouped(point.x, 0),
            point.first_type_p99_ms,
            point.verdict
        );
        if let Some(step_dir) = &step_dir {
            crate::runner::save(step_dir, &measured)?;
            if plan.output.report {
                crate::report::write_run_report(step_dir, r)?;
            }
        }
        self.points.push(point);
        Ok(r.interrupted)
    }
}

/// A step's point: its two figures, the first type's p99 and its verdict.
fn point_of(r: &RunResult, f: Frontier, added: usize, dir: Option<String>) -> FrontierPoint {
    let metric = |name: &str| r.metric(name).unwrap_or(0.0);
    FrontierPoint {
        terminals: r.settings.as_ref().map_or(0, |s| s.terminals),
        added,
        x: metric(f.x),
        y: metric(f.y),
        first_type_p99_ms: r.transactions.first().map_or(0.0, |t| t.latency_ms.p99),
        verdict: r.verdict.clone(),
        results: dir
            .map(|d| format!("{d}/{}", results::SUMMARY_FILE))
            .unwrap_or_default(),
    }
}

/// `frontier.json` and the report, with a results directory.
fn write<W: Benchmark>(
    swept: &Swept,
    f: Frontier,
    s: &SweepArgs,
    plan: &RunPlan<W>,
    dir: Option<&Path>,
) -> Result<(), Failure> {
    let Some(dir) = dir else {
        return Ok(());
    };
    let result = FrontierResult {
        schema_version: 1,
        option: f.option.to_string(),
        x: f.x.to_string(),
        y: f.y.to_string(),
        step_secs: s.step_duration.as_secs_f64(),
        points: swept.points.clone(),
    };
    json::write_value(&dir.join(FRONTIER_FILE), &result).map_err(Failure::error)?;
    outln!("results: {}", dir.display());
    if plan.output.report {
        let page = crate::report::write_frontier_report(dir, &result)?;
        outln!("report: {}", page.display());
    }
    Ok(())
}
