//! `txbench report DIR`: the terminal summary again, and report.html.

use std::path::{Path, PathBuf};

use txbench_core::result::{RunResult, SweepResult, VariantSweeps};
use txbench_report::figures::TimelineFigures;
use txbench_report::hlog::IntervalLog;
use txbench_report::merge::Timeline;
use txbench_report::results::{self, HLOG_FILE, REPORT_FILE, SWEEP_FILE, VARIANTS_FILE};
use txbench_report::{html, json, terminal};

use crate::cli::ReportArgs;
use crate::failure::Failure;

/// A failure with `path`, its cause kept.
fn failed<E>(path: &Path, e: E) -> Failure
where
    E: std::error::Error + Send + Sync + 'static,
{
    Failure::failed_because(e, path.display().to_string())
}

/// Render a results directory: its summary (unless quiet) and report.html.
pub fn main(a: &ReportArgs) -> Result<(), Failure> {
    let dir = &a.dir;
    if !dir.is_dir() {
        return Err(Failure::usage(format!(
            "'{}' is not a results directory",
            dir.display()
        )));
    }
    if dir.join(results::SET_FILE).exists() {
        return report_set(dir, a.quiet);
    }
    let path = if dir.join(VARIANTS_FILE).exists() {
        let (compared, sweeps) = read_variants(dir)?;
        if !a.quiet {
            print_variants(&compared);
        }
        write_variants_report(dir, &compared, &sweeps)?
    } else if dir.join(SWEEP_FILE).exists() {
        let (sweep, steps) = read_sweep(dir)?;
        if !a.quiet {
            print_sweep(&sweep, &steps);
        }
        write_sweep_report(dir, &sweep, &steps)?
    } else {
        let result = results::read_summary(dir).map_err(Failure::reading)?;
        if !a.quiet {
            out!("{}", terminal::summary(&result));
        }
        write_run_report(dir, &result)?
    };
    outln!("report: {}", path.display());
    Ok(())
}

/// A set of runs (`--repeat`): its spread, and each run's report.
fn report_set(dir: &Path, quiet: bool) -> Result<(), Failure> {
    let (runs, set) = results::read_runs(dir).map_err(Failure::reading)?;
    if !quiet {
        crate::compare::print_spread(&runs);
    }
    let names = set.map(|s| s.runs).unwrap_or_default();
    for (name, result) in names.iter().zip(&runs) {
        let page = write_run_report(&dir.join(name), result)?;
        outln!("report: {}", page.display());
    }
    Ok(())
}

/// The steps of a sweep and its capacity, a line each.
fn print_sweep(sweep: &SweepResult, steps: &[RunResult]) {
    for (step, r) in sweep.steps.iter().zip(steps) {
        outln!(
            "{:>10}/s offered  {:>10}/s achieved  worst {:.2} ms  {}  {}",
            terminal::grouped(step.offered_rate, 0),
            terminal::grouped(step.achieved_rate, 0),
            step.worst_latency_ms,
            match (step.passed, step.limit.as_deref()) {
                (true, _) => "PASS",
                (false, Some("client")) => "FAIL (the client's limit)",
                (false, _) => "FAIL",
            },
            r.verdict
        );
    }
    match sweep.capacity_rate {
        Some(c) => outln!(
            "capacity: {} txn/s ({})",
            terminal::grouped(c, 0),
            sweep.objective
        ),
        None => outln!("capacity: no step met {}", sweep.objective),
    }
    if let Some(kind) = &sweep.limit {
        outln!("the limit found is the {kind}'s");
    }
}

/// The variants' capacities side by side.
pub fn print_variants(v: &VariantSweeps) {
    outln!();
    outln!(
        "capacity per {} under {} (at least 90% of the offered load completed):",
        v.option,
        v.objective
    );
    outln!(
        "{:<22} {:>12} {:>12} {:>16}",
        v.option,
        "capacity/s",
        "achieved/s",
        format!("{} ms", objective_percentile(&v.objective))
    );
    let cell = |x: Option<f64>, digits| x.map_or("-".to_string(), |x| terminal::grouped(x, digits));
    for variant in &v.variants {
        outln!(
            "{:<22} {:>12} {:>12} {:>16}",
            variant.value,
            cell(variant.capacity_rate, 0),
            cell(variant.achieved_at_capacity, 0),
            variant
                .types_latency_ms_at_capacity
                .map_or("-".to_string(), |x| format!("{x:.2}"))
        );
    }
    for refused in &v.refused {
        outln!("{:<22} refused by the engine", refused.value);
    }
    outln!(
        "(latency: the slowest of {} at the capacity step)",
        v.types_named()
    );
}

/// The percentile an objective names ("p99" of "p99<=10ms").
fn objective_percentile(objective: &str) -> &str {
    objective.split(['<', '=']).next().unwrap_or("latency")
}

/// Write the report.html of a run's results directory from its result and
/// its interval log; its path.
pub fn write_run_report(dir: &Path, result: &RunResult) -> Result<PathBuf, Failure> {
    let figures = TimelineFigures::of(&read_timeline(dir, result)?);
    let log = read_log(dir)?;
    write_page(dir, &html::run_report(result, log.as_ref(), &figures))
}

/// Write the report.html of a sweep's results directory; its path.
pub fn write_sweep_report(
    dir: &Path,
    sweep: &SweepResult,
    steps: &[RunResult],
) -> Result<PathBuf, Failure> {
    write_page(dir, &html::sweep_report(sweep, steps))
}

/// The page of sweeps of a workload's variants side by side in `dir`.
pub fn write_variants_report(
    dir: &Path,
    compared: &VariantSweeps,
    sweeps: &[(SweepResult, Vec<RunResult>)],
) -> Result<PathBuf, Failure> {
    write_page(dir, &html::variants_report(compared, sweeps))
}

/// The page of a frontier in `dir`.
pub fn write_frontier_report(
    dir: &Path,
    frontier: &txbench_core::result::FrontierResult,
) -> Result<PathBuf, Failure> {
    write_page(dir, &txbench_report::frontier::report(frontier))
}

fn write_page(dir: &Path, page: &str) -> Result<PathBuf, Failure> {
    let path = dir.join(REPORT_FILE);
    // Whole or not at all: a full disk leaves no half-written page.
    txbench_report::json::write_whole(&path, page.as_bytes()).map_err(|e| failed(&path, e))?;
    Ok(path)
}

/// The `timeline.csv` of a results directory (empty without one); a damaged
/// one is refused (the report would silently draw less).
fn read_timeline(dir: &Path, result: &RunResult) -> Result<Timeline, Failure> {
    let path = dir.join(results::TIMELINE_FILE);
    if !path.exists() {
        return Ok(Timeline::default());
    }
    let keys: Vec<&str> = result.transactions.iter().map(|t| t.key.as_str()).collect();
    txbench_report::merge::read_timeline(&path, &keys).map_err(Failure::reading)
}

/// The interval log of a results directory, if it has one.
pub fn read_log(dir: &Path) -> Result<Option<IntervalLog>, Failure> {
    let path = dir.join(HLOG_FILE);
    if !path.exists() {
        return Ok(None);
    }
    IntervalLog::read(&path).map(Some).map_err(Failure::reading)
}

/// A comparison of a workload's variants and each variant's sweep.
fn read_variants(dir: &Path) -> Result<(VariantSweeps, SweepsOfVariants), Failure> {
    let path = dir.join(VARIANTS_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| failed(&path, e))?;
    let compared: VariantSweeps = serde_json::from_str(&text).map_err(|e| failed(&path, e))?;
    let sweeps = (compared.variants.iter())
        .map(|v| read_sweep(&dir.join(&v.dir)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((compared, sweeps))
}

/// Each variant's sweep and its steps' results.
type SweepsOfVariants = Vec<(SweepResult, Vec<RunResult>)>;

/// A sweep's summary and its steps' results.
fn read_sweep(dir: &Path) -> Result<(SweepResult, Vec<RunResult>), Failure> {
    let path = dir.join(SWEEP_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| failed(&path, e))?;
    let sweep: SweepResult = serde_json::from_str(&text).map_err(|e| failed(&path, e))?;
    let steps = sweep
        .steps
        .iter()
        .map(|s| {
            let p = dir.join(&s.results);
            json::read(&p).map_err(|e| failed(&p, e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((sweep, steps))
}
