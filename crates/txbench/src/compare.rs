//! `txbench compare A B [C...]`: runs side by side, changes against the first.
//!
//! A change is called better or worse only when the two runs' 95% intervals
//! do not overlap; otherwise it is "no significant change". Percentiles a run
//! marked insufficient (no interval from its samples) are not compared at
//! all, and figures without intervals show their change without a judgement.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use txbench_core::result::{Percentiles, RunResult, TypeResult};
use txbench_report::{json, results, terminal};

use crate::cli::CompareArgs;
use crate::failure::Failure;

/// Which way a figure should move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Better {
    Higher,
    Lower,
}

/// What a run's figure can be compared with.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Evidence {
    /// The figure with its 95% interval.
    Interval(f64, f64),
    /// The run marked the figure insufficient: it has no interval, and comparing
    /// it would be reading noise.
    Insufficient,
    /// The figure has no interval (a headline metric, an older or merged result).
    None,
}

/// One compared figure.
#[derive(Debug, Serialize)]
struct Row {
    name: String,
    better: Better,
    /// One value per run (`None` where a run lacks the figure).
    values: Vec<Option<f64>>,
    /// The 95% interval per run, where it has one.
    intervals: Vec<Option<[f64; 2]>>,
    /// Change against the first run, in %, per run (`None` for the first).
    change_pct: Vec<Option<f64>>,
    /// The judgement of each change (`None` for the first).
    judgement: Vec<Option<Judgement>>,
}

/// What a change against the first run amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Judgement {
    Better,
    Worse,
    /// The intervals overlap.
    NotSignificant,
    /// A run marked the figure insufficient.
    Insufficient,
    /// A figure without intervals: its change is shown, not judged.
    NoInterval,
    /// A run lacks the figure.
    Missing,
}

impl Judgement {
    /// How the judgement reads, in the table and the JSON.
    fn label(self) -> &'static str {
        match self {
            Judgement::Better => "better",
            Judgement::Worse => "worse",
            Judgement::NotSignificant => "no significant change",
            Judgement::Insufficient => "insufficient samples",
            Judgement::NoInterval => "no interval",
            Judgement::Missing => "-",
        }
    }
}

impl Serialize for Judgement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

/// The comparison as written with `--json`.
#[derive(Debug, Serialize)]
struct Comparison {
    runs: Vec<String>,
    /// The settings that differ between the runs, as "name: A value, B value".
    settings_differ: Vec<String>,
    rows: Vec<Row>,
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

/// A run's result for the transaction type with this key.
fn type_of<'a>(r: &'a RunResult, key: &str) -> Option<&'a TypeResult> {
    r.transactions.iter().find(|x| x.key == key)
}

/// The judgement of run `i` against the first: significant only when the
/// intervals are disjoint.
fn judge(better: Better, base: (Option<f64>, Evidence), run: (Option<f64>, Evidence)) -> Judgement {
    match (base, run) {
        ((None, _), _) | (_, (None, _)) => Judgement::Missing,
        ((_, Evidence::Insufficient), _) | (_, (_, Evidence::Insufficient)) => {
            Judgement::Insufficient
        }
        ((Some(a), Evidence::Interval(al, ah)), (Some(b), Evidence::Interval(bl, bh))) => {
            if al <= bh && bl <= ah {
                Judgement::NotSignificant
            } else if (b > a) == (better == Better::Higher) {
                Judgement::Better
            } else {
                Judgement::Worse
            }
        }
        _ => Judgement::NoInterval,
    }
}

/// Build rows figure by figure.
#[derive(Default)]
struct Rows(Vec<Row>);

impl Rows {
    fn push(&mut self, name: String, better: Better, figures: Vec<(Option<f64>, Evidence)>) {
        let base = figures[0];
        let change_pct = figures
            .iter()
            .enumerate()
            .map(|(i, (v, _))| match (i, base.0, v) {
                (0, _, _) => None,
                (_, Some(b), Some(v)) if b != 0.0 => Some((v - b) / b * 100.0),
                _ => None,
            })
            .collect();
        let judgement = figures
            .iter()
            .enumerate()
            .map(|(i, f)| (i > 0).then(|| judge(better, base, *f)))
            .collect();
        self.0.push(Row {
            name,
            better,
            values: figures.iter().map(|f| f.0).collect(),
            intervals: figures
                .iter()
                .map(|f| match f.1 {
                    Evidence::Interval(l, h) => Some([l, h]),
                    _ => None,
                })
                .collect(),
            change_pct,
            judgement,
        });
    }
}

/// Which percentile of a [`Percentiles`] a row shows.
type Pick = fn(&Percentiles) -> f64;

/// A type's latency percentile with the evidence its interval gives.
fn percentile(t: &TypeResult, at: f64, pick: Pick) -> (Option<f64>, Evidence) {
    if t.latency_ms.samples == 0 {
        return (None, Evidence::None);
    }
    let evidence = match t
        .latency_intervals_ms
        .iter()
        .find(|i| (i.percentile - at).abs() < 1e-9)
    {
        Some(i) => match (i.low, i.high) {
            (Some(l), Some(h)) => Evidence::Interval(l, h),
            _ => Evidence::Insufficient,
        },
        None => Evidence::None,
    };
    (Some(pick(&t.latency_ms)), evidence)
}

/// A type's share of failed transactions (%), with its Wilson score interval.
fn error_share(t: &TypeResult) -> (Option<f64>, Evidence) {
    let failed = t.failed() as f64;
    let n = failed + t.completed() as f64;
    if n == 0.0 {
        return (None, Evidence::None);
    }
    let p = failed / n;
    let z = txbench_core::stats::Z95;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (
        Some(p * 100.0),
        Evidence::Interval(
            (centre - half).max(0.0) * 100.0,
            (centre + half).min(1.0) * 100.0,
        ),
    )
}

fn rows(runs: &[RunResult]) -> Vec<Row> {
    let mut out = Rows::default();
    out.push(
        "throughput txn/s".into(),
        Better::Higher,
        runs.iter()
            .map(|r| {
                let evidence = r
                    .throughput_interval
                    .map_or(Evidence::None, |[l, h]| Evidence::Interval(l, h));
                (Some(r.throughput()), evidence)
            })
            .collect(),
    );
    for m in &runs[0].metrics {
        if m.name == "throughput" {
            continue;
        }
        out.push(
            format!("{} {}", m.name, m.unit).trim().to_string(),
            Better::Higher,
            runs.iter()
                .map(|r| (r.metric(&m.name), Evidence::None))
                .collect(),
        );
    }
    let picks: [(&str, f64, Pick); 3] = [
        ("p50 ms", 50.0, |p| p.p50),
        ("p99 ms", 99.0, |p| p.p99),
        ("p99.9 ms", 99.9, |p| p.p999),
    ];
    for t in &runs[0].transactions {
        for (label, at, pick) in picks {
            out.push(
                format!("{} {label}", t.name),
                Better::Lower,
                runs.iter()
                    .map(|r| {
                        type_of(r, &t.key)
                            .map_or((None, Evidence::None), |x| percentile(x, at, pick))
                    })
                    .collect(),
            );
        }
        out.push(
            format!("{} errors %", t.name),
            Better::Lower,
            runs.iter()
                .map(|r| type_of(r, &t.key).map_or((None, Evidence::None), error_share))
                .collect(),
        );
    }
    out.0
}

/// The settings that differ between the runs (engine, target and parameters),
/// each as "name: A value, B value, ...".
fn settings_differ(runs: &[RunResult]) -> Vec<String> {
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
    let tables: Vec<BTreeMap<String, String>> = runs.iter().map(settings_table).collect();
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

/// The change column: the change in % and its judgement.
fn change(c: Option<f64>, judgement: Option<Judgement>) -> String {
    match (c, judgement) {
        (_, None | Some(Judgement::Missing)) => String::new(),
        (Some(c), Some(Judgement::NotSignificant)) => format!("{c:+.1}% not significant"),
        (Some(c), Some(j)) if j != Judgement::Insufficient => format!("{c:+.1}% {}", j.label()),
        (_, Some(j)) => j.label().into(),
    }
}

/// Print the comparison (and write it as JSON when asked).
pub fn main(a: &CompareArgs) -> Result<(), Failure> {
    let runs = a
        .dirs
        .iter()
        .map(|d| results::read_summary(d).map_err(Failure::reading))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(other) = runs.iter().find(|r| r.workload != runs[0].workload) {
        return Err(Failure::usage(format!(
            "cannot compare a '{}' run with a '{}' run",
            runs[0].workload, other.workload
        )));
    }
    let names: Vec<String> = a
        .dirs
        .iter()
        .map(|d| {
            d.file_name().map_or_else(
                || d.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let rows = rows(&runs);
    let differ = settings_differ(&runs);
    print(&names, &runs, &rows, &differ);
    if let Some(path) = &a.json {
        let comparison = Comparison {
            runs: a.dirs.iter().map(|d| d.display().to_string()).collect(),
            settings_differ: differ,
            rows,
        };
        json::write_value(path, &comparison).map_err(Failure::error)?;
    }
    Ok(())
}

/// The comparison on the terminal.
fn print(names: &[String], runs: &[RunResult], rows: &[Row], differ: &[String]) {
    for (i, n) in names.iter().enumerate() {
        outln!(
            "{}: {n} ({}, {})",
            letter(i),
            runs[i].target,
            runs[i].verdict
        );
    }
    if !differ.is_empty() {
        outln!(
            "warning: the runs' settings differ, so a change may come from them: {}",
            differ.join("; ")
        );
    }
    let mut header = format!("{:<28}", "");
    for i in 0..runs.len() {
        header += &format!(" {:>12}", letter(i));
    }
    for i in 1..runs.len() {
        header += &format!(" {:>24}", format!("{} vs A", letter(i)));
    }
    outln!("{header}");
    for r in rows {
        let mut line = format!("{:<28}", r.name);
        for v in &r.values {
            line += &format!(" {:>12}", value(*v));
        }
        for (c, j) in r.change_pct[1..].iter().zip(&r.judgement[1..]) {
            line += &format!(" {:>24}", change(*c, *j));
        }
        outln!("{}", line.trim_end());
    }
    outln!(
        "better or worse: the 95% intervals do not overlap; not significant: they do; \
         insufficient samples: a run has no interval for that percentile"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_intervals_are_no_significant_change() {
        let a = (Some(1.0), Evidence::Interval(0.9, 1.1));
        let b = (Some(1.05), Evidence::Interval(1.0, 1.1));
        assert_eq!(judge(Better::Lower, a, b).label(), "no significant change");
    }

    #[test]
    fn disjoint_intervals_say_which_way() {
        let a = (Some(1.0), Evidence::Interval(0.9, 1.1));
        let b = (Some(2.0), Evidence::Interval(1.8, 2.2));
        assert_eq!(judge(Better::Lower, a, b).label(), "worse");
        assert_eq!(judge(Better::Higher, a, b).label(), "better");
    }

    #[test]
    fn an_insufficient_percentile_is_not_compared() {
        let a = (Some(1.0), Evidence::Interval(0.9, 1.1));
        let b = (Some(9.0), Evidence::Insufficient);
        assert_eq!(judge(Better::Lower, a, b).label(), "insufficient samples");
        assert_eq!(judge(Better::Lower, b, a).label(), "insufficient samples");
        assert_eq!(
            judge(Better::Lower, a, (Some(9.0), Evidence::None)).label(),
            "no interval"
        );
    }

    #[test]
    fn error_share_interval_holds_the_share() {
        let mut t: TypeResult = serde_json::from_value(serde_json::json!({
            "name": "A", "key": "a", "committed": 900, "expected_rollbacks": 0,
            "retries": 0, "errors": {"serialization": 100}, "share": 1.0, "spec_share": 1.0,
            "latency_ms": {"samples": 0, "mean": 0.0, "p50": 0.0, "p90": 0.0, "p95": 0.0,
                "p99": 0.0, "p999": 0.0, "max": 0.0},
            "service_ms": {"samples": 0, "mean": 0.0, "p50": 0.0, "p90": 0.0, "p95": 0.0,
                "p99": 0.0, "p999": 0.0, "max": 0.0}
        }))
        .unwrap();
        let (share, Evidence::Interval(low, high)) = error_share(&t) else {
            panic!("no interval");
        };
        assert_eq!(share, Some(10.0));
        assert!(
            low < 10.0 && 10.0 < high && high - low < 4.0,
            "{low}..{high}"
        );
        t.errors.clear();
        let (share, Evidence::Interval(low, high)) = error_share(&t) else {
            panic!("no interval");
        };
        assert_eq!(share, Some(0.0));
        assert!(
            low.abs() < 1e-12 && high > 0.0 && high < 0.5,
            "{low}..{high}"
        );
    }
}
