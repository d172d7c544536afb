//! `txbench merge DIR... -o DIR`: one result from runs made at the same time.

use std::io;
use std::path::PathBuf;

use txbench_core::Workload;
use txbench_core::driver::WaitMode;
use txbench_core::rng::Rand;
use txbench_report::merge::{merge, read_run};
use txbench_report::results::{IntervalWriter, SUMMARY_FILE, read_refusal, write_summary};
use txbench_report::terminal;
use txbench_workloads::retwis::Retwis;
use txbench_workloads::tatp::Tatp;
use txbench_workloads::tpcc::Tpcc;
use txbench_workloads::tpcc::random::NurandConstants;

use crate::cli::MergeArgs;
use crate::failure::Failure;

/// Refuse directories that hold no finished run: a shard that refused to start
/// (its refused.json says why) or one that has not written its summary yet.
fn refuse_unfinished(dirs: &[PathBuf]) -> Result<(), Failure> {
    let mut problems = Vec::new();
    for dir in dirs {
        if let Some(r) = read_refusal(dir).map_err(|e| Failure::Failed(e.to_string()))? {
            problems.push(format!(
                "shard {} of {} refused to run ({}): {}",
                r.shard_index,
                r.shards,
                dir.display(),
                r.reason
            ));
        } else if !dir.join(SUMMARY_FILE).exists() {
            problems.push(format!(
                "{} has no {SUMMARY_FILE}: the run has not finished, or is not a results directory",
                dir.display()
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Usage(format!(
            "nothing merged:\n  {}",
            problems.join("\n  ")
        )))
    }
}

/// Merge the runs and write the merged results directory.
pub fn main(a: &MergeArgs) -> Result<(), Failure> {
    if a.output.exists() {
        return Err(Failure::Usage(format!(
            "'{}' exists: merge writes a new directory",
            a.output.display()
        )));
    }
    refuse_unfinished(&a.dirs)?;
    let runs = a
        .dirs
        .iter()
        .map(|d| read_run(d))
        .collect::<io::Result<Vec<_>>>()
        .map_err(Failure::reading)?;
    let mut merged = merge(&runs).map_err(Failure::reading)?;
    let r = &mut merged.result;
    match r.workload.as_str() {
        "tpcc" => {
            let warehouses = r
                .parameters
                .get("warehouses")
                .and_then(|w| w.parse::<i64>().ok())
                .unwrap_or(1);
            let wait = match r.parameters.get("wait").map(String::as_str) {
                Some("spec") => WaitMode::Spec,
                _ => WaitMode::None,
            };
            // The constants do not enter the metrics; the scale does.
            let tpcc = Tpcc::new(warehouses, NurandConstants::random(&mut Rand::new(0)));
            r.metrics = tpcc.metrics(&r.transactions, r.measured_secs, wait);
        }
        "tatp" => {
            let subscribers = r
                .parameters
                .get("subscribers")
                .and_then(|n| n.parse::<i64>().ok())
                .unwrap_or(1);
            r.metrics =
                Tatp::new(subscribers).metrics(&r.transactions, r.measured_secs, WaitMode::None);
        }
        "retwis" => {
            let int = |k: &str| r.parameters.get(k).and_then(|n| n.parse::<i64>().ok());
            let zipf = r
                .parameters
                .get("zipf")
                .and_then(|z| z.parse::<f64>().ok())
                .unwrap_or(0.0);
            let retwis = Retwis::new(
                int("keys").unwrap_or(1),
                int("value_size").unwrap_or(1) as usize,
                zipf,
                0,
            )?;
            r.metrics = retwis.metrics(&r.transactions, r.measured_secs, WaitMode::None);
        }
        other => {
            return Err(Failure::Usage(format!(
                "merging '{other}' runs is not supported by this version"
            )));
        }
    }
    let io_err = |e: io::Error| Failure::Failed(format!("writing {}: {e}", a.output.display()));
    std::fs::create_dir_all(&a.output).map_err(io_err)?;
    let writer = IntervalWriter::create(&a.output, merged.keys.clone(), merged.operations.clone())
        .map_err(io_err)?;
    for i in merged.intervals {
        writer.push(i);
    }
    writer.finish().map_err(io_err)?;
    write_summary(&a.output, &merged.result).map_err(io_err)?;
    out!("{}", terminal::summary(&merged.result));
    outln!("merged {} runs: {}", a.dirs.len(), a.output.display());
    Ok(())
}
