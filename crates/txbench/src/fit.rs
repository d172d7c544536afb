//! What an opened workload's own terminals ask of a run, refused as bad
//! input before anything starts: terminals added to run back to back (the
//! CH-benCHmark's analytical streams), a database of their own without
//! them, and phases that alternate them.

use txbench_core::alternation::Alternation;
use txbench_workloads::Benchmark;

use crate::failure::Failure;
use crate::plan::Resolved;

/// The fewest phases an alternating run takes: two with the held types, each
/// with a phase without before it, so that the ratio has an interval.
pub const MIN_PHASES: u32 = 4;

/// Refuse a run the workload's added terminals or phases cannot take; `side`:
/// the run was given a database of their own for the added terminals.
pub fn refuse_unfit<W: Benchmark>(run: &Resolved, workload: &W, side: bool) -> Result<(), Failure> {
    refuse_open_loop_beside_added(run, workload)?;
    if side && workload.added_terminals() == 0 {
        return Err(Failure::usage(format!(
            "--analytic-db: with no analytical stream in {}'s run nothing would run there",
            W::ABOUT.title
        )));
    }
    match workload.alternation() {
        Some(alt) => refuse_misfit_phases::<W>(run, &alt),
        None => Ok(()),
    }
}

/// An open loop draws each arrival's input from any terminal, so the
/// terminals a workload adds to run back to back would be sent arrivals
/// instead: refused until the open loop runs them beside its arrivals.
fn refuse_open_loop_beside_added<W: Benchmark>(
    run: &Resolved,
    workload: &W,
) -> Result<(), Failure> {
    let added = workload.added_terminals();
    if run.driver.open.is_none() || added == 0 {
        return Ok(());
    }
    Err(Failure::usage(format!(
        "--rate: {}'s {added} analytical stream(s) run back to back beside the terminals, which \
         an open loop does not do yet: run with --analytic-streams 0 for its transactions alone \
         at a rate, or without --rate",
        W::ABOUT.title
    )))
}

/// Phases need a window of at least [`MIN_PHASES`] of them, and the whole
/// window: a run that ends at a transaction count may end in the first.
fn refuse_misfit_phases<W: Benchmark>(run: &Resolved, alt: &Alternation) -> Result<(), Failure> {
    let phase = humantime::format_duration(alt.phase);
    if run.driver.transactions.is_some() {
        return Err(Failure::usage(format!(
            "--transactions: {}'s phases of {phase} need the whole window, which a transaction \
             count may end early: give --duration alone",
            W::ABOUT.title
        )));
    }
    if run.driver.duration >= alt.phase.saturating_mul(MIN_PHASES) {
        return Ok(());
    }
    let five = humantime::format_duration(alt.phase.saturating_mul(5));
    Err(Failure::usage(format!(
        "--duration {}: {}'s phases of {phase} need at least {MIN_PHASES} in the window (two \
         with analytics, each after one without); give --duration {five} for five, or \
         shorter phases",
        humantime::format_duration(run.driver.duration),
        W::ABOUT.title
    )))
}
