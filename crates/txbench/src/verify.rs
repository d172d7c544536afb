//! `txbench NAME verify --db URL RESULTS`: a run's acknowledged-work log held
//! against the database (docs/durability.md). Prints, per type, what was
//! acknowledged and is durable or lost, what was in doubt and is there or
//! not, what rolled back and leaked; exit 1 when anything acknowledged was
//! lost, found in part, or a rollback leaked.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use txbench_core::acks::{self, ACKS_FILE, AckFile};
use txbench_core::any_engine::AnyEngine;
use txbench_workloads::verify::{TypeVerification, Verification};
use txbench_workloads::{Benchmark, WorkloadError};

use crate::cli::workload::VerifyArgs;
use crate::failure::Failure;
use crate::runner::on_session;

/// Verify the log `a` names against the engine's database.
pub async fn verify_on<W: Benchmark>(
    engine: Arc<AnyEngine>,
    a: &VerifyArgs,
) -> Result<(), Failure> {
    let path = log_path(&a.results);
    let found = findings::<W>(&engine, &path).await?;
    outln!("{} against {}", path.display(), a.db);
    out!("{}", table(&found));
    if let Some(json) = &a.json {
        write_json(json, &found)?;
    }
    judge(&found)
}

/// What the database holds of the log at `path`.
pub async fn findings<W: Benchmark>(
    engine: &Arc<AnyEngine>,
    path: &Path,
) -> Result<Verification, Failure> {
    let Some(verify) = W::verify() else {
        return Err(WorkloadError::NoVerify(W::ABOUT).into());
    };
    let log = read_log(path)?;
    Ok(on_session(engine, move |mut s| async move {
        (verify.run)(&mut s, &log).await
    })
    .await??)
}

/// The findings as JSON.
fn write_json(path: &Path, found: &Verification) -> Result<(), Failure> {
    // The error names the file.
    txbench_report::json::write_value(path, found).map_err(Failure::error)
}

/// The log a results directory holds, or the file itself.
fn log_path(results: &Path) -> PathBuf {
    if results.is_dir() {
        results.join(ACKS_FILE)
    } else {
        results.to_path_buf()
    }
}

/// Read a log; a missing or damaged one is bad input naming the file.
fn read_log(path: &Path) -> Result<AckFile, Failure> {
    let file = std::fs::File::open(path).map_err(|e| {
        Failure::usage(format!(
            "{}: {e} (a run writes it with --ack-log)",
            path.display()
        ))
    })?;
    acks::read(BufReader::new(file)).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))
}

/// The findings, one row a type.
pub fn table(found: &Verification) -> String {
    let mut out = format!(
        "{:<22} {:>12} {:>9} {:>6} {:>14} {:>13} {:>11} {:>7} {:>8}\n",
        "type",
        "acknowledged",
        "durable",
        "lost",
        "doubt present",
        "doubt absent",
        "rolled back",
        "leaked",
        "partial"
    );
    for t in &found.types {
        out += &row(t);
    }
    if found.unverified_lines > 0 {
        out += &format!(
            "{} lines of types verify does not look up (read-only work states nothing)\n",
            found.unverified_lines
        );
    }
    for t in &found.types {
        for e in &t.examples {
            out += &format!("  {e}\n");
        }
    }
    out
}

fn row(t: &TypeVerification) -> String {
    format!(
        "{:<22} {:>12} {:>9} {:>6} {:>14} {:>13} {:>11} {:>7} {:>8}\n",
        t.key,
        t.acknowledged,
        t.durable,
        t.lost,
        t.in_doubt_present,
        t.in_doubt_absent,
        t.rolled_back,
        t.leaked,
        t.partial
    )
}

/// PASS, or a failure that says what went wrong.
fn judge(found: &Verification) -> Result<(), Failure> {
    let sum = |f: fn(&TypeVerification) -> u64| found.types.iter().map(f).sum::<u64>();
    let (acked, lost, leaked, partial) = (
        sum(|t| t.acknowledged),
        sum(|t| t.lost),
        sum(|t| t.leaked),
        sum(|t| t.partial),
    );
    if found.sound() {
        outln!("PASS  all {acked} acknowledged transactions durable, no rollback leaked");
        return Ok(());
    }
    Err(Failure::failed(format!(
        "verify FAILED: {lost} of {acked} acknowledged transactions lost, {partial} found in \
         part, {leaked} rolled-back ones leaked"
    )))
}
