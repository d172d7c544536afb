//! `txbench selftest`: calibrate txbench on the machine it runs on. Each case
//! is an ordinary TATP run against the simulated engine, whose truth is known
//! (queueing theory's latency, or the fault it was told to make); the table
//! holds the measurement against theory and the verdict against the truth.
//! Then the null engine, whose every measured millisecond is the client's
//! own, gives the client's noise floor at the rates it holds, and the rate
//! asked (`--rate`) decides the exit status.

mod cases;
mod print;

use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use serde::Serialize;
use tokio::sync::watch;
use txbench_core::any_engine::AnyEngine;
use txbench_core::checks::{self, Status};
use txbench_core::result::{Percentiles, RunResult};
use txbench_engines::{EngineOptions, WithEngine, with_engine};
use txbench_report::json;
use txbench_workloads::tatp::Tatp;

use crate::cli::{Cli, Command, SelftestArgs, Verb};
use crate::failure::Failure;
use crate::plan::RunPlan;
use crate::runner::{measure, now_rfc3339};

use cases::{Case, Expect};

/// How one run of a case came out.
#[derive(Debug, Serialize)]
pub struct Outcome {
    /// The case's name.
    pub case: String,
    /// The simulated server.
    pub db: String,
    /// The offered rate (open loop).
    pub offered_per_s: Option<f64>,
    /// Transactions completed per second.
    pub throughput_per_s: f64,
    /// Latency of all types together.
    pub latency_ms: Percentiles,
    /// Theory's mean, p50 and p99 (ms), where theory gives them.
    pub theory_ms: Option<[f64; 3]>,
    /// Whether theory held for mean, p50 and p99: within twice the run's own
    /// intervals' half-widths (the mean within a fifth), with 0.3 ms for the
    /// client.
    pub within_theory: Option<bool>,
    /// Whether theory's p50, p90, p95 and p99 ([`cases::COVERED`]) were
    /// inside the run's 95% intervals (`None` for a figure without one).
    pub covered: Option<[Option<bool>; 4]>,
    /// The same without the client's allowance: theory inside the run's
    /// own interval, strictly.
    pub covered_strictly: Option<[Option<bool>; 4]>,
    /// The checks that failed.
    pub failed: Vec<String>,
    /// The checks that warned.
    pub warned: Vec<String>,
    /// What the truth asks of the verdict.
    pub expected: String,
    /// Whether the verdict matched the truth.
    pub right: bool,
    /// Runs of the case before this one that the client machine disturbed
    /// (see [`disturbed`]) and that were run again.
    pub disturbed: u32,
}

/// The client's noise floor at one rate (null engine).
#[derive(Debug, Serialize)]
pub struct Floor {
    /// The offered rate.
    pub rate_per_s: f64,
    /// The rate achieved.
    pub achieved_per_s: f64,
    /// The latency the client adds (the null engine answers at once).
    pub latency_ms: Percentiles,
    /// The failed checks with their statistics: why the client cannot hold
    /// the rate soundly.
    pub failed: Vec<String>,
}

/// The whole selftest as written with `--json`.
#[derive(Debug, Serialize)]
struct Selftest<'a> {
    duration_secs: f64,
    repeat: u32,
    outcomes: &'a [Outcome],
    floor: &'a [Floor],
}

/// Run the selftest.
pub async fn main(a: &SelftestArgs, stop: watch::Receiver<bool>) -> Result<(), Failure> {
    let all = if a.floor_only {
        Vec::new()
    } else {
        cases::all()
    };
    outln!(
        "txbench selftest: {} cases on the simulated engine (TATP, {} s each{}), then the \
         client's noise floor on the null engine",
        all.len(),
        a.duration.as_secs_f64(),
        if a.repeat > 1 {
            format!(", {} times", a.repeat)
        } else {
            String::new()
        }
    );
    let outcomes = run_cases(a, &all, &stop).await?;
    let tallies: Vec<Tally> = all.iter().map(|c| Tally::of(c, &outcomes)).collect();
    if a.repeat > 1 {
        print::calibration(&all, &tallies);
    }
    let floor = run_floor(a, &stop).await?;
    if let Some(path) = &a.json {
        let all = Selftest {
            duration_secs: a.duration.as_secs_f64(),
            repeat: a.repeat,
            outcomes: &outcomes,
            floor: &floor,
        };
        json::write_value(path, &all).map_err(Failure::error)?;
    }
    judge(a, &all, &tallies, &floor)
}

/// Every case `--repeat` times: a row each in one round, a progress line
/// each over several.
async fn run_cases(
    a: &SelftestArgs,
    all: &[Case],
    stop: &watch::Receiver<bool>,
) -> Result<Vec<Outcome>, Failure> {
    if a.repeat == 1 && !all.is_empty() {
        print::case_header();
    }
    let mut outcomes = Vec::new();
    for round in 1..=a.repeat {
        for case in all {
            let outcome = run_case(case, a.duration, stop).await?;
            if a.repeat == 1 {
                print::case_row(&outcome);
            } else {
                print::progress(round, a.repeat, &outcome);
            }
            outcomes.push(outcome);
        }
    }
    Ok(outcomes)
}

/// Runs of a case at most: the first, and again while the client machine
/// disturbs it.
const CASE_ATTEMPTS: u32 = 3;

/// One case, run again (up to [`CASE_ATTEMPTS`] in all) while the client
/// machine disturbs it: such a run calibrates the machine's other load, not
/// txbench, and its verdict says so rightly.
async fn run_case(
    case: &Case,
    duration: Duration,
    stop: &watch::Receiver<bool>,
) -> Result<Outcome, Failure> {
    let mut disturbed_runs = 0;
    loop {
        let result = run(case.db, case.rate, case.terminals, duration, stop).await?;
        let mut outcome = outcome(case, &result);
        outcome.disturbed = disturbed_runs;
        if !disturbed(case, &outcome) || disturbed_runs + 1 == CASE_ATTEMPTS {
            return Ok(outcome);
        }
        disturbed_runs += 1;
    }
}

/// Whether the client machine, not the case's server, made the verdict
/// wrong: the client sent late (check "client lateness" failed) where the
/// case does not expect it. Lateness is the client's own time inside every
/// latency it measured, so the run neither tests theory nor the verdict.
fn disturbed(case: &Case, o: &Outcome) -> bool {
    const LATENESS: &str = "client lateness";
    let expected = match case.expect {
        Expect::Sound => &[][..],
        Expect::Fails(any) => any,
    };
    !o.right && o.failed.iter().any(|f| f == LATENESS) && !expected.contains(&LATENESS)
}

/// The client's noise floor at each of [`floor_rates`].
async fn run_floor(a: &SelftestArgs, stop: &watch::Receiver<bool>) -> Result<Vec<Floor>, Failure> {
    print::floor_header();
    let mut floor = Vec::new();
    for rate in floor_rates(a.rate) {
        let result = run("null:", Some(rate), None, a.duration, stop).await?;
        let row = floor_row(rate, &result);
        print::floor_row(&row);
        floor.push(row);
    }
    Ok(floor)
}

/// How the runs of one case came out.
pub struct Tally {
    /// Runs of the case.
    pub runs: usize,
    /// Runs whose verdict was wrong (false alarms or misses).
    pub wrong: usize,
    /// Runs whose verdict was right with warnings (no check failed).
    pub warned: usize,
    /// Runs off theory.
    pub off: usize,
    /// Runs the client machine disturbed, run again and not counted.
    pub disturbed: usize,
    /// The share of runs whose 95% interval held theory's p50, p90, p95 and
    /// p99, where the runs had intervals.
    pub covered: [Option<f64>; 4],
    /// The same, strictly ([`Outcome::covered_strictly`]).
    pub covered_strictly: [Option<f64>; 4],
}

impl Tally {
    fn of(case: &Case, outcomes: &[Outcome]) -> Tally {
        let runs: Vec<&Outcome> = outcomes.iter().filter(|o| o.case == case.name).collect();
        let count = |keep: &dyn Fn(&Outcome) -> bool| runs.iter().filter(|o| keep(o)).count();
        let share = |strict: bool, i: usize| {
            let judged: Vec<bool> = runs
                .iter()
                .filter_map(|o| {
                    if strict {
                        o.covered_strictly
                    } else {
                        o.covered
                    }
                })
                .filter_map(|c| c[i])
                .collect();
            (!judged.is_empty())
                .then(|| judged.iter().filter(|c| **c).count() as f64 / judged.len() as f64)
        };
        Tally {
            runs: runs.len(),
            wrong: count(&|o| !o.right),
            warned: count(&|o| o.failed.is_empty() && !o.warned.is_empty()),
            off: count(&|o| o.within_theory == Some(false)),
            disturbed: runs.iter().map(|o| o.disturbed as usize).sum(),
            covered: [0, 1, 2, 3].map(|i| share(false, i)),
            covered_strictly: [0, 1, 2, 3].map(|i| share(true, i)),
        }
    }
}

/// The rates of the noise floor: a thousand, ten thousand and a hundred
/// thousand a second, and the rate asked.
fn floor_rates(asked: f64) -> Vec<f64> {
    let mut rates = vec![1_000.0, 10_000.0, 100_000.0, asked];
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    rates
}

/// One TATP run on `db` (sim: or null:), parsed from a command line as a user
/// would type it, so that it is validated and defaulted like theirs.
async fn run(
    db: &str,
    rate: Option<f64>,
    terminals: Option<u32>,
    duration: Duration,
    stop: &watch::Receiver<bool>,
) -> Result<RunResult, Failure> {
    let duration = format!("{}ms", duration.as_millis());
    let mut argv: Vec<String> = [
        "txbench",
        "tatp",
        "run",
        "--db",
        db,
        "--subscribers",
        "1000",
        "--duration",
        &duration,
        "--warmup",
        "1s",
        "-q",
        "--no-results",
    ]
    .map(String::from)
    .to_vec();
    if let Some(rate) = rate {
        argv.extend(["--rate".into(), format!("{rate}/s")]);
    }
    if let Some(t) = terminals {
        argv.extend(["--terminals".into(), t.to_string()]);
    }
    let cli = Cli::try_parse_from(&argv)
        .map_err(|e| Failure::failed_because(e, format!("selftest: {}", argv.join(" "))))?;
    let not_tatp_run =
        || Failure::failed(format!("selftest: {} is not a TATP run", argv.join(" ")));
    let Command::Workload(chosen) = cli.command else {
        return Err(not_tatp_run());
    };
    let Ok(crate::cli::WorkloadArgs {
        verb: Some(Verb::Run(args)),
        ..
    }) = chosen.args::<Tatp>()
    else {
        return Err(not_tatp_run());
    };
    // The selftest's engines (sim:, null:) take no options.
    let measure = MeasureOn {
        plan: RunPlan::of(&args)?,
        stop: stop.clone(),
    };
    let result = with_engine(&[db.to_string()], &EngineOptions::default(), measure).await??;
    if result.interrupted {
        return Err(Failure::Interrupted("selftest interrupted".into()));
    }
    Ok(result)
}

/// A case's TATP run, measured on the engine its URL names.
struct MeasureOn {
    plan: RunPlan<Tatp>,
    stop: watch::Receiver<bool>,
}

impl WithEngine for MeasureOn {
    type Output = Result<RunResult, Failure>;
    async fn with(self, engine: Arc<AnyEngine>) -> Result<RunResult, Failure> {
        measure::<_, Tatp>(&engine, &self.plan, self.stop, &now_rfc3339(), None)
            .await
            .map(|measured| measured.result)
    }
}

/// A case's run against its truth.
fn outcome(case: &Case, r: &RunResult) -> Outcome {
    let latency = r.total_latency_ms.clone().unwrap_or_default();
    let theory = case
        .theory
        .as_ref()
        .and_then(|q| cases::against_theory(q, &latency, &r.total_latency_intervals_ms));
    Outcome {
        case: case.name.into(),
        db: case.db.into(),
        offered_per_s: case.rate,
        throughput_per_s: r.throughput(),
        latency_ms: latency,
        theory_ms: theory.map(|t| t.map(|f| f.theory)),
        within_theory: theory.map(|t| t.iter().all(|f| f.held)),
        covered: (case.theory.as_ref())
            .map(|q| cases::coverage(q, &r.total_latency_intervals_ms, cases::CLIENT_MS)),
        covered_strictly: (case.theory.as_ref())
            .map(|q| cases::coverage(q, &r.total_latency_intervals_ms, 0.0)),
        failed: names(&r.checks, Status::Fail),
        warned: names(&r.checks, Status::Warn),
        expected: match case.expect {
            Expect::Sound => "no check fails".into(),
            Expect::Fails(any) => format!("{} fails", any.join(" or ")),
        },
        right: cases::verdict_right(case.expect, &r.checks),
        disturbed: 0,
    }
}

/// The checks of `status`, by name, to keep.
fn names(checks: &[txbench_core::checks::Check], status: Status) -> Vec<String> {
    checks::named(checks, status)
        .into_iter()
        .map(String::from)
        .collect()
}

/// The noise floor at `rate` from a null-engine run.
fn floor_row(rate: f64, r: &RunResult) -> Floor {
    Floor {
        rate_per_s: rate,
        achieved_per_s: r.open_loop.as_ref().map_or(0.0, |o| o.achieved_rate),
        latency_ms: r.total_latency_ms.clone().unwrap_or_default(),
        failed: r
            .checks
            .iter()
            .filter(|c| c.status == Status::Fail)
            .map(|c| format!("{}: {}", c.name, c.statistic))
            .collect(),
    }
}

/// The exit status: 3 when the client cannot hold the rate asked soundly, or
/// the calibration went wrong more often than it may (never in one round,
/// at most 5% of the runs of a case over several), saying why.
fn judge(
    a: &SelftestArgs,
    all: &[Case],
    tallies: &[Tally],
    floor: &[Floor],
) -> Result<(), Failure> {
    let mut why = Vec::new();
    if let Some(asked) = floor.iter().find(|f| f.rate_per_s == a.rate)
        && !asked.failed.is_empty()
    {
        why.push(format!(
            "this machine cannot measure soundly at {}/s: {}",
            txbench_report::terminal::grouped(a.rate, 0),
            asked.failed.join("; ")
        ));
    }
    for (case, t) in all.iter().zip(tallies) {
        let allowed = (t.runs as f64 * 0.05).floor() as usize;
        if t.wrong > allowed {
            why.push(format!(
                "{}: the verdict was wrong in {} of {} runs",
                case.name, t.wrong, t.runs
            ));
        }
        if t.off > allowed {
            why.push(format!(
                "{}: the latency was off theory in {} of {} runs",
                case.name, t.off, t.runs
            ));
        }
    }
    if why.is_empty() {
        let rate = txbench_report::terminal::grouped(a.rate, 0);
        if all.is_empty() {
            outln!("selftest passed: {rate}/s measured soundly");
        } else {
            outln!(
                "selftest passed: every verdict right, theory held, and {rate}/s measured soundly"
            );
        }
        Ok(())
    } else {
        Err(Failure::NotSound(format!("selftest: {}", why.join("; "))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failing(case: &Case, failed: &[&str]) -> Outcome {
        Outcome {
            case: case.name.into(),
            db: case.db.into(),
            offered_per_s: case.rate,
            throughput_per_s: 0.0,
            latency_ms: Percentiles::default(),
            theory_ms: None,
            within_theory: None,
            covered: None,
            covered_strictly: None,
            failed: failed.iter().map(|f| f.to_string()).collect(),
            warned: Vec::new(),
            expected: String::new(),
            right: false,
            disturbed: 0,
        }
    }

    #[test]
    fn only_a_late_client_that_the_case_does_not_expect_disturbs_it() {
        let all = cases::all();
        let healthy = all.iter().find(|c| c.name == "M/D/1 rho 0.5").unwrap();
        let saturated = all.iter().find(|c| c.name == "client saturated").unwrap();
        let late = failing(healthy, &["client lateness"]);
        assert!(disturbed(healthy, &late));
        // A wrong verdict for another reason is the selftest's finding.
        assert!(!disturbed(healthy, &failing(healthy, &["outages"])));
        // A right verdict is never run again.
        let mut right = late;
        right.right = true;
        assert!(!disturbed(healthy, &right));
        // Where lateness is the fault the case makes, it is no disturbance.
        assert!(!disturbed(
            saturated,
            &failing(saturated, &["client lateness"])
        ));
    }

    #[test]
    fn the_floor_covers_the_rate_asked_once() {
        assert_eq!(floor_rates(10_000.0), vec![1_000.0, 10_000.0, 100_000.0]);
        assert_eq!(
            floor_rates(2_500.0),
            vec![1_000.0, 2_500.0, 10_000.0, 100_000.0]
        );
    }
}
