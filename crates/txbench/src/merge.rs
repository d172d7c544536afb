//! `txbench merge DIR... -o DIR`: one result from runs made at the same time.

use std::io;
use std::path::PathBuf;

use txbench_core::result::{Metric, RunResult};
use txbench_report::merge::{merge, read_run};
use txbench_report::results::{IntervalWriter, SUMMARY_FILE, read_refusal, write_summary};
use txbench_report::terminal;
use txbench_workloads::registry::{self, Visitor};
use txbench_workloads::{Benchmark, MetricBasis};

use crate::cli::MergeArgs;
use crate::failure::Failure;

/// Refuse directories that hold no finished run: a shard that refused to start
/// (its refused.json says why) or one that has not written its summary yet.
fn refuse_unfinished(dirs: &[PathBuf]) -> Result<(), Failure> {
    let mut problems = Vec::new();
    for dir in dirs {
        if let Some(r) = read_refusal(dir).map_err(Failure::error)? {
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
        Err(Failure::usage(format!(
            "nothing merged:\n  {}",
            problems.join("\n  ")
        )))
    }
}

/// Merge the runs and write the merged results directory.
pub fn main(a: &MergeArgs) -> Result<(), Failure> {
    if a.output.exists() {
        return Err(Failure::usage(format!(
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
    let workload = runs
        .first()
        .map_or(String::new(), |r| r.summary.workload.clone());
    let unknown = || {
        Failure::usage(format!(
            "merging '{workload}' runs is not supported by this version"
        ))
    };
    if registry::visit(&workload, Known).is_none() {
        return Err(unknown());
    }
    let mut merged = merge(&runs).map_err(Failure::reading)?;
    let r = &mut merged.result;
    r.metrics = registry::visit(&workload, Metrics(r)).ok_or_else(unknown)?;
    let io_err =
        |e: io::Error| Failure::failed_because(e, format!("writing {}", a.output.display()));
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

/// A merged run's headline figures, by its workload's own rule over the
/// recorded settings: the merged shards together drove the whole scale.
struct Metrics<'r>(&'r RunResult);

impl Visitor for Metrics<'_> {
    type Output = Vec<Metric>;
    fn visit<W: Benchmark>(self) -> Vec<Metric> {
        let r = self.0;
        // merge refuses runs without typed settings.
        let Some(settings) = &r.settings else {
            return Vec::new();
        };
        let basis = MetricBasis {
            driven: settings.scale.value,
            wait: settings.wait,
        };
        W::metrics(&r.transactions, r.measured_secs, basis)
    }
}

/// Whether the registry knows the workload.
struct Known;

impl Visitor for Known {
    type Output = ();
    fn visit<W: Benchmark>(self) {}
}
