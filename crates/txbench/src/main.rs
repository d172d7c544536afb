//! The txbench binary: parse the command line, run the command, choose the exit code.

/// mimalloc, not the C library's malloc: a driver allocates small buffers
/// on every request (a reply's values, a result's rows), and glibc's
/// malloc and free were a sixth of the client's CPU (YCSB on Redis: 15%
/// less user time an operation; sysbench on MariaDB 11%, bench/RESULTS.md,
/// 2026-12-04).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[macro_use]
mod output;

mod acid;
mod ack_log;
mod alternation;
mod cli;
mod clock;
mod compare;
mod config;
mod failure;
mod faults;
mod figures;
mod fit;
#[cfg(test)]
mod fuzz_tests;
mod load;
mod merge;
mod metrics;
mod plan;
mod progress;
mod repeat;
mod report;
mod runner;
mod selftest;
mod serve;
mod signals;
mod sweep;
mod verify;
mod workload;

use tokio::sync::watch;

use cli::{Cli, Command};
use failure::Failure;

fn main() {
    let outcome = real_main().and_then(|()| match output::stdout_failure() {
        Some(e) => Err(Failure::failed(format!(
            "the output could not be written: {e}"
        ))),
        None => Ok(()),
    });
    let code = match outcome {
        Ok(()) => 0,
        Err(Failure::CheckFailed) => 1,
        Err(f) => {
            // Every error passes the redaction, whatever an engine put in it.
            output::eprint_line(&format!(
                "txbench: {}",
                txbench_engines::redact(&f.to_string())
            ));
            f.exit_code()
        }
    };
    std::process::exit(code);
}

/// Give large blocks back to the system when they are freed. glibc raises its
/// mmap threshold each time a large block is freed, up to 32 MiB, after which a
/// load's row batches (megabytes each, made on generator threads, freed on the
/// writers') come from heaps that keep their pages: a MariaDB load of one
/// warehouse held 100 MB of resident memory this way, 81 MB with the
/// threshold pinned at its default of 128 KiB.
fn release_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before any
    // thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

fn real_main() -> Result<(), Failure> {
    release_large_blocks();
    let mut args: Vec<_> = std::env::args_os().collect();
    let cli = Cli::parse_args(&args);
    let cli = match &cli.config {
        Some(file) => {
            args = config::expand(args, file).map_err(Failure::Usage)?;
            Cli::parse_args(&args)
        }
        None => cli,
    };
    let runtime = match cli.driver_threads {
        1 => tokio::runtime::Builder::new_current_thread(),
        n => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n as usize);
            b
        }
    }
    .enable_all()
    .build()
    .map_err(|e| Failure::failed_because(e, "starting the runtime"))?;
    runtime.block_on(async {
        let (stop_tx, stop_rx) = watch::channel(false);
        signals::watch_signals(stop_tx);
        match cli.command {
            Command::Workload(chosen) => workload::main(chosen, stop_rx).await,
            Command::Sweep(s) => sweep::main(s.workload, stop_rx).await,
            Command::Serve(a) => serve::main(a, stop_rx).await,
            Command::Selftest(a) => selftest::main(&a, stop_rx).await,
            Command::Report(a) => report::main(&a),
            Command::Compare(a) => compare::main(&a),
            Command::Merge(a) => merge::main(&a),
        }
    })
}
