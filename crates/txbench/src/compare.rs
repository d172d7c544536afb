//! `txbench compare A B [C...]`: runs side by side, changes against the first.

use serde::Serialize;
use txbench_core::result::RunResult;
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

/// One compared figure.
#[derive(Debug, Serialize)]
struct Row {
    name: String,
    better: Better,
    /// One value per run (`None` where a run lacks the figure).
    values: Vec<Option<f64>>,
    /// Change against the first run, in %, per run (`None` for the first).
    change_pct: Vec<Option<f64>>,
}

/// The comparison as written with `--json`.
#[derive(Debug, Serialize)]
struct Comparison {
    runs: Vec<String>,
    rows: Vec<Row>,
}

/// A run's result for the transaction type with this key.
fn type_of<'a>(r: &'a RunResult, key: &str) -> Option<&'a txbench_core::result::TypeResult> {
    r.transactions.iter().find(|x| x.key == key)
}

fn rows(runs: &[RunResult]) -> Vec<Row> {
    let mut out = Vec::new();
    let mut push = |name: String, better: Better, values: Vec<Option<f64>>| {
        let base = values[0];
        let change_pct = values
            .iter()
            .enumerate()
            .map(|(i, v)| match (i, base, v) {
                (0, _, _) => None,
                (_, Some(b), Some(v)) if b != 0.0 => Some((v - b) / b * 100.0),
                _ => None,
            })
            .collect();
        out.push(Row {
            name,
            better,
            values,
            change_pct,
        });
    };
    push(
        "throughput txn/s".into(),
        Better::Higher,
        runs.iter().map(|r| Some(r.throughput())).collect(),
    );
    for m in &runs[0].metrics {
        if m.name == "throughput" {
            continue;
        }
        push(
            format!("{} {}", m.name, m.unit).trim().to_string(),
            Better::Higher,
            runs.iter().map(|r| r.metric(&m.name)).collect(),
        );
    }
    for t in &runs[0].transactions {
        for (label, pick) in [
            (
                "p50 ms",
                (|p: &txbench_core::result::Percentiles| p.p50) as fn(&_) -> f64,
            ),
            ("p99 ms", |p| p.p99),
            ("p99.9 ms", |p| p.p999),
        ] {
            push(
                format!("{} {label}", t.name),
                Better::Lower,
                runs.iter()
                    .map(|r| {
                        type_of(r, &t.key)
                            .filter(|x| x.latency_ms.samples > 0)
                            .map(|x| pick(&x.latency_ms))
                    })
                    .collect(),
            );
        }
        push(
            format!("{} errors", t.name),
            Better::Lower,
            runs.iter()
                .map(|r| type_of(r, &t.key).map(|x| x.failed() as f64))
                .collect(),
        );
    }
    out
}

fn value(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if v.abs() >= 100.0 || v.fract() == 0.0 => terminal::grouped(v, 0),
        Some(v) => format!("{v:.3}"),
    }
}

fn change(c: Option<f64>, better: Better) -> String {
    match c {
        None => String::new(),
        Some(c) if c.abs() < 0.05 => "0.0%".into(),
        Some(c) => {
            let good = (c > 0.0) == (better == Better::Higher);
            format!("{c:+.1}% {}", if good { "better" } else { "worse" })
        }
    }
}

/// Print the comparison (and write it as JSON when asked).
pub fn main(a: &CompareArgs) -> Result<(), Failure> {
    let runs = a
        .dirs
        .iter()
        .map(|d| results::read_summary(d).map_err(|e| Failure::Failed(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(other) = runs.iter().find(|r| r.workload != runs[0].workload) {
        return Err(Failure::Usage(format!(
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
    for (i, n) in names.iter().enumerate() {
        println!(
            "{}: {n} ({}, {})",
            (b'A' + i as u8) as char,
            runs[i].target,
            runs[i].verdict
        );
    }
    let mut header = format!("{:<28}", "");
    for i in 0..runs.len() {
        header += &format!(" {:>12}", (b'A' + i as u8) as char);
    }
    for i in 1..runs.len() {
        header += &format!(" {:>15}", format!("{} vs A", (b'A' + i as u8) as char));
    }
    println!("{header}");
    for r in &rows {
        let mut line = format!("{:<28}", r.name);
        for v in &r.values {
            line += &format!(" {:>12}", value(*v));
        }
        for c in &r.change_pct[1..] {
            line += &format!(" {:>15}", change(*c, r.better));
        }
        println!("{}", line.trim_end());
    }
    if let Some(path) = &a.json {
        let comparison = Comparison {
            runs: a.dirs.iter().map(|d| d.display().to_string()).collect(),
            rows,
        };
        json::write_value(path, &comparison)
            .map_err(|e| Failure::Failed(format!("writing {}: {e}", path.display())))?;
    }
    Ok(())
}
