//! `txbench compare A B [C...]`: runs, or sets of runs, side by side,
//! changes against the first.
//!
//! A set (`--repeat N`) knows its run-to-run noise: a change between sets is
//! better or worse only when it is larger than that noise allows
//! ([`noise`]), and "no significant change" otherwise. Two single runs
//! know only their own intervals, which cannot tell a change from the noise
//! between runs: their changes are shown as intervals apart or overlapping,
//! never as better or worse. Percentiles a run marked insufficient (no
//! interval from its samples) are not compared at all.

mod beside;
mod figures;
mod judge;
pub(crate) mod noise;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;
use txbench_core::result::RunResult;
use txbench_report::{json, results, terminal};

use crate::cli::CompareArgs;
use crate::failure::Failure;
use judge::{Judgement, Row};

/// The comparison as written with `--json`.
#[derive(Debug, Serialize)]
struct Comparison {
    runs: Vec<String>,
    /// Per side, how many runs it holds (1: a single run; more: a set).
    sizes: Vec<usize>,
    /// The settings that differ between the runs, as "name: A value, B value".
    settings_differ: Vec<String>,
    rows: Vec<Row>,
}

/// One side of the comparison: a run, or a set of runs of one plan.
struct Side {
    name: String,
    runs: Vec<RunResult>,
    set: bool,
}

impl Side {
    fn read(dir: &Path) -> Result<Side, Failure> {
        let (runs, set) = results::read_runs(dir).map_err(Failure::reading)?;
        let set = set.is_some();
        let name = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(Side { name, runs, set })
    }

    fn first(&self) -> &RunResult {
        &self.runs[0]
    }
}

/// Settings that differ between runs by design (derived from the seed) or
/// that say when, not how, a run was made.
const INCIDENTAL: [&str; 6] = [
    "seed",
    "c_last_run",
    "c_last_load",
    "c_id",
    "ol_i_id",
    "start_at",
];

/// The settings that differ between the runs (engine, target and parameters),
/// each as "name: A value, B value, ...".
fn settings_differ(runs: &[&RunResult]) -> Vec<String> {
    let mut differ = Vec::new();
    let mut note = |name: &str, values: Vec<String>| {
        if values.iter().any(|v| *v != values[0]) {
            let each: Vec<String> = values
                .iter()
                .enumerate()
                .map(|(i, v)| format!("{} {v}", letter(i)))
                .collect();
            differ.push(format!("{name}: {}", each.join(", ")));
        }
    };
    note("engine", runs.iter().map(|r| r.engine.clone()).collect());
    note("target", runs.iter().map(|r| r.target.clone()).collect());
    let tables: Vec<BTreeMap<String, String>> = runs.iter().map(|r| settings_table(r)).collect();
    let keys: BTreeSet<&String> = tables.iter().flat_map(|t| t.keys()).collect();
    for key in keys {
        if INCIDENTAL.contains(&key.as_str()) {
            continue;
        }
        note(
            key,
            tables
                .iter()
                .map(|t| t.get(key).cloned().unwrap_or_else(|| "-".into()))
                .collect(),
        );
    }
    differ
}

/// A run's settings and what its workload said of the data, by name (a file
/// older than typed settings has them all among its parameters).
fn settings_table(r: &RunResult) -> BTreeMap<String, String> {
    let settings = r.settings.iter().flat_map(|s| s.rows());
    settings.chain(r.parameters.clone()).collect()
}

fn letter(i: usize) -> char {
    (b'A' + i as u8) as char
}

fn value(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if v.abs() >= 100.0 || v.fract() == 0.0 => terminal::grouped(v, 0),
        Some(v) => format!("{v:.3}"),
    }
}

/// The change column: the change in %, its interval for sets, and its judgement.
fn change(c: Option<f64>, interval: Option<[f64; 2]>, judgement: Option<Judgement>) -> String {
    let Some(j) = judgement else {
        return String::new();
    };
    match (c, j) {
        (_, Judgement::Missing) => String::new(),
        (_, Judgement::Insufficient) | (None, _) => j.label().into(),
        (Some(c), j) => match interval {
            Some([l, h]) => format!("{c:+.1}% [{l:+.1}, {h:+.1}] {}", j.label()),
            None => format!("{c:+.1}% {}", j.label()),
        },
    }
}

/// Print the comparison (and write it as JSON when asked).
pub fn main(a: &CompareArgs) -> Result<(), Failure> {
    let sides = a
        .dirs
        .iter()
        .map(|d| Side::read(d))
        .collect::<Result<Vec<_>, _>>()?;
    given_once(&a.dirs)?;
    let first = sides[0].first();
    if let Some(other) = sides
        .iter()
        .find(|s| workload_of(s.first()) != workload_of(first))
    {
        return Err(Failure::usage(format!(
            "cannot compare a '{}' run with a '{}' run",
            workload_of(first),
            workload_of(other.first())
        )));
    }
    let all: Vec<&RunResult> = sides.iter().flat_map(|s| &s.runs).collect();
    let sizes: Vec<usize> = sides.iter().map(|s| s.runs.len()).collect();
    let noise = match &a.noise {
        Some(dir) => Some(noise_set(dir, first)?),
        None => None,
    };
    let known = noise.as_ref().map_or_else(judge::Noise::new, |s| {
        judge::noise_of(&figures::figures(&s.runs.iter().collect::<Vec<_>>()))
    });
    let rows = judge::rows(&figures::figures(&all), &sizes, a.threshold, &known);
    let firsts: Vec<&RunResult> = sides.iter().map(Side::first).collect();
    let differ = settings_differ(&firsts);
    // Single runs unjudged: the noise of their plan, where a set of it lies beside them.
    let beside = match (&noise, sides.iter().any(|s| s.set)) {
        (None, false) => beside::set_of_the_plan(&a.dirs, first),
        _ => None,
    };
    let known_noise = beside.as_ref().and_then(|b| b.noise_line(a.threshold));
    print(&sides, &rows, &differ, (a.threshold, noise.as_ref()));
    if let Some(line) = known_noise {
        outln!("{line}");
    }
    if let Some(path) = &a.json {
        let comparison = Comparison {
            runs: a.dirs.iter().map(|d| d.display().to_string()).collect(),
            sizes,
            settings_differ: differ,
            rows,
        };
        json::write_value(path, &comparison).map_err(Failure::error)?;
    }
    Ok(())
}

/// What a run ran, as a comparison must hold it equal: the command's
/// workload, and a workload file's own name (every file runs as `custom`,
/// and SIBench beside NoOp is no comparison).
fn workload_of(r: &RunResult) -> String {
    match r.parameters.get("file_workload") {
        Some(file) if *file != r.workload => format!("{} {file}", r.workload),
        _ => r.workload.clone(),
    }
}

/// Refuse a directory given twice: compared with itself, every change is 0.
fn given_once(dirs: &[std::path::PathBuf]) -> Result<(), Failure> {
    let mut seen = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
        if seen.contains(&real) {
            return Err(Failure::usage(format!(
                "{}: given twice; compare a run with another",
                dir.display()
            )));
        }
        seen.push(real);
    }
    Ok(())
}

/// The set `--noise` names: a set of runs of the workload compared.
fn noise_set(dir: &Path, first: &RunResult) -> Result<Side, Failure> {
    let side = Side::read(dir)?;
    if !side.set || side.runs.len() < 2 {
        return Err(Failure::usage(format!(
            "--noise {}: not a set of runs (make one with run --repeat 5)",
            dir.display()
        )));
    }
    if workload_of(side.first()) != workload_of(first) {
        return Err(Failure::usage(format!(
            "--noise {}: a '{}' set cannot give the noise of '{}' runs",
            dir.display(),
            workload_of(side.first()),
            workload_of(first)
        )));
    }
    Ok(side)
}

/// A set's spread, figure by figure: the mean of its runs, their standard
/// deviation (% of the mean), the lowest and the highest. The run-to-run
/// noise a comparison of sets judges changes against.
pub fn print_spread(runs: &[RunResult]) {
    if runs.len() < 2 {
        return;
    }
    let all: Vec<&RunResult> = runs.iter().collect();
    outln!(
        "{:<32} {:>12} {:>8} {:>12} {:>12}",
        format!("the set's {} runs", runs.len()),
        "mean",
        "sd %",
        "lowest",
        "highest"
    );
    // A figure a run could not measure (too few samples) has no spread to show.
    let measured = |f: &figures::Figure| {
        f.runs
            .iter()
            .all(|v| v.1 != figures::Evidence::Insufficient)
    };
    for f in figures::figures(&all).into_iter().filter(measured) {
        let values: Vec<f64> = f.runs.iter().filter_map(|v| v.0).collect();
        let Some(spread) = noise::Spread::of(&values).filter(|s| s.n == runs.len()) else {
            continue;
        };
        let sd = spread.cv_pct().map_or("-".into(), |p| format!("{p:.1}"));
        let (low, high) = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                (l.min(*v), h.max(*v))
            });
        outln!(
            "{:<32} {:>12} {sd:>8} {:>12} {:>12}",
            f.name,
            value(Some(spread.mean)),
            value(Some(low)),
            value(Some(high))
        );
    }
}

/// A side's line above the table: its name, target, and verdict(s).
fn side_line(i: usize, s: &Side) -> String {
    let r = s.first();
    if !s.set {
        return format!("{}: {} ({}, {})", letter(i), s.name, r.target, r.verdict);
    }
    let mut verdicts: BTreeMap<&str, usize> = BTreeMap::new();
    for run in &s.runs {
        let word = run.verdict.split(':').next().unwrap_or_default().trim();
        *verdicts.entry(word).or_default() += 1;
    }
    let verdicts: Vec<String> = verdicts.iter().map(|(v, n)| format!("{n} {v}")).collect();
    format!(
        "{}: {} (a set of {} runs, {}, {})",
        letter(i),
        s.name,
        s.runs.len(),
        r.target,
        verdicts.join(", ")
    )
}

/// The comparison on the terminal.
fn print(
    sides: &[Side],
    rows: &[Row],
    differ: &[String],
    (threshold, noise): (f64, Option<&Side>),
) {
    for (i, s) in sides.iter().enumerate() {
        outln!("{}", side_line(i, s));
    }
    if !differ.is_empty() {
        outln!(
            "warning: the runs' settings differ, so a change may come from them: {}",
            differ.join("; ")
        );
    }
    let mut header = format!("{:<32}", "");
    for i in 0..sides.len() {
        header += &format!(" {:>12}", letter(i));
    }
    let any_set = sides.iter().any(|s| s.set);
    let width = if any_set { 40 } else { 26 };
    for i in 1..sides.len() {
        header += &format!(" {:>width$}", format!("{} vs A", letter(i)));
    }
    outln!("{header}");
    for r in rows {
        let mut line = format!("{:<32}", r.name);
        for v in &r.values {
            line += &format!(" {:>12}", value(*v));
        }
        let changes = r
            .change_pct
            .iter()
            .zip(&r.change_interval_pct)
            .zip(&r.judgement);
        for ((c, interval), j) in changes.skip(1) {
            line += &format!(" {:>width$}", change(*c, *interval, *j));
        }
        outln!("{}", line.trim_end());
    }
    for line in what_would_judge(rows) {
        outln!("{line}");
    }
    for line in footer(sides, rows, threshold, noise) {
        outln!("{line}");
    }
}

/// For each figure that could not be judged, what would let it be: more
/// runs a side, or longer runs (from the noise and the rates measured).
fn what_would_judge(rows: &[Row]) -> Vec<String> {
    let mut lines = Vec::new();
    for r in rows {
        for (i, needs) in r.needs.iter().enumerate() {
            if let Some(needs) = needs {
                lines.push(format!("  {} ({} vs A): {needs}", r.name, letter(i)));
            }
        }
    }
    if !lines.is_empty() {
        lines.insert(0, "to judge what was not judged:".into());
    }
    lines
}

/// What the judgements mean, and the run-to-run noise where a set measured it.
fn footer(sides: &[Side], rows: &[Row], threshold: f64, noise: Option<&Side>) -> Vec<String> {
    let mut lines = Vec::new();
    let singles: Vec<char> = (1..sides.len())
        .filter(|&i| !sides[0].set && !sides[i].set)
        .map(letter)
        .collect();
    if let (false, Some(set)) = (singles.is_empty(), noise) {
        lines.push(format!(
            "single runs judged against the noise between the {} runs of {} (--noise): \
             better or worse when the change's interval leaves out zero and the change is \
             {threshold}% or more",
            set.runs.len(),
            set.name
        ));
    } else if !singles.is_empty() {
        let pairs: Vec<String> = singles.iter().map(|l| format!("{l} vs A")).collect();
        lines.push(format!(
            "{}: one run each, so a change cannot be told from run-to-run noise: \
             'intervals apart' says only that each run's own 95% intervals do not overlap. \
             Make sets with --repeat 5 (and the same flags) and compare the sets.",
            pairs.join(", ")
        ));
    }
    if sides.iter().any(|s| s.set) {
        lines.push(format!(
            "better or worse: the change's interval (Welch's, from the spread between the \
             runs of each set, 95% jointly over the figures compared) leaves out zero and the \
             change is {threshold}% or more (within threshold: less); a single run against a \
             set is judged by the set's spread; see docs/measurement.md"
        ));
    }
    for (i, s) in sides.iter().enumerate().filter(|(_, s)| s.set) {
        let of = format!("{} ({} runs)", letter(i), s.runs.len());
        if let Some(noise) = noise_line(&of, i, rows) {
            lines.push(noise);
        }
    }
    lines.push("insufficient samples: a run has no interval for that percentile".into());
    lines
}

/// The run-to-run noise of side `i` (named `of`): the spread of its
/// throughput and its largest p99 spread, as its runs measured them.
fn noise_line(of: &str, i: usize, rows: &[Row]) -> Option<String> {
    let throughput = rows.first()?.spread_pct[i]?;
    let p99 = rows
        .iter()
        .filter(|r| r.name.ends_with(" p99 ms"))
        .filter_map(|r| r.spread_pct[i].map(|p| (p, &r.name)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let mut line = format!("run-to-run noise of {of}: throughput {throughput:.1}%");
    if let Some((p, name)) = p99 {
        line += &format!(", up to {p:.1}% ({})", name.trim_end_matches(" ms"));
    }
    Some(line + " (standard deviation between runs, % of the mean)")
}
