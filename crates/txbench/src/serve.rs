//! `txbench serve`: load (or open) a workload's database, then serve its
//! transactions to `txbench://` clients until Ctrl-C or SIGTERM.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use tokio::net::TcpListener;
use tokio::sync::watch;
use txbench_core::{Engine, Session};
use txbench_server::{ServeOptions, serve};
use txbench_workloads::tatp::Tatp;
use txbench_workloads::tpcc::Tpcc;

use crate::cli::{ServeArgs, WorkloadArg};
use crate::failure::Failure;
use crate::runner::{Bench, on_session, scale_text, with_engine};

/// Run `txbench serve`.
pub async fn main(a: ServeArgs, stop: watch::Receiver<bool>) -> Result<(), Failure> {
    match (a.workload, a.warehouses, a.subscribers) {
        (WorkloadArg::Tpcc, _, Some(_)) => Err(Failure::Usage(
            "--subscribers is a TATP setting; TPC-C takes --warehouses".into(),
        )),
        (WorkloadArg::Tatp, Some(_), _) => Err(Failure::Usage(
            "--warehouses is a TPC-C setting; TATP takes --subscribers".into(),
        )),
        (WorkloadArg::Tpcc, w, _) => {
            with_engine!(&a.db.db, None, |e| serve_on::<_, Tpcc>(e, &a, w, stop)
                .await)
        }
        (WorkloadArg::Tatp, _, n) => {
            with_engine!(&a.db.db, None, |e| serve_on::<_, Tatp>(e, &a, n, stop)
                .await)
        }
    }
}

async fn serve_on<E: Engine, W: Bench>(
    engine: Arc<E>,
    a: &ServeArgs,
    scale: Option<i64>,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure>
where
    W::Input: DeserializeOwned,
{
    if E::Session::RUNS_TRANSACTIONS {
        return Err(Failure::Usage(
            "serve needs a database that executes transactions, not another txbench server, \
             null: or sim:"
                .into(),
        ));
    }
    let token = token(a)?;
    let options = W::Options::default();
    crate::runner::ensure_loaded::<E, W>(&engine, &a.db, scale, &a.load, 1, &options, &stop)
        .await?;
    let (workload, version) = on_session(&engine, move |mut s| async move {
        let w = W::open(&mut s, scale, 1, &options).await?;
        let v = s
            .server_version()
            .await
            .unwrap_or_else(|_| "unknown".into());
        Ok::<_, Failure>((w, v))
    })
    .await??;
    let mut parameters = workload.served_parameters();
    parameters.extend([
        ("engine".to_string(), engine.name().to_string()),
        ("server_version".to_string(), version),
        (
            "txbench_version".to_string(),
            env!("CARGO_PKG_VERSION").to_string(),
        ),
    ]);
    let workers = a.workers.map_or_else(
        || {
            let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
            cores.min(engine.max_writers()).max(1)
        },
        |w| w as usize,
    );
    let listener = TcpListener::bind(a.listen)
        .await
        .map_err(|e| Failure::Failed(format!("listening on {}: {e}", a.listen)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Failure::Failed(format!("listening on {}: {e}", a.listen)))?;
    outln!(
        "serving {} ({}) from {} on txbench://{addr} with {workers} worker{}{}",
        W::NAME,
        scale_text::<W>(workload.scale()),
        engine.describe(),
        if workers == 1 { "" } else { "s" },
        if token.is_some() {
            ", token required"
        } else {
            ""
        }
    );
    if token.is_none() && !addr.ip().is_loopback() {
        crate::output::eprint_line(&format!(
            "warning: serving on {addr} without a token: anyone who can reach it can run \
             transactions on {}; set --token or TXBENCH_TOKEN",
            engine.describe()
        ));
    }
    let opts = ServeOptions {
        workers,
        token,
        parameters,
    };
    let summary = serve(engine, Arc::new(workload), listener, opts, stop).await?;
    outln!(
        "served {} connections: {} committed, {} expected rollbacks, {} errors",
        summary.connections,
        summary.committed,
        summary.expected_rollbacks,
        summary.errors
    );
    Ok(())
}

/// The token clients must present: `--token`, else `TXBENCH_TOKEN`, else none.
/// An empty `--token` is refused rather than read as "no authentication".
fn token(a: &ServeArgs) -> Result<Option<String>, Failure> {
    match &a.token {
        Some(t) if t.is_empty() => Err(Failure::Usage(
            "--token '': an empty token would let every client in; leave --token out to \
             serve without one"
                .into(),
        )),
        Some(t) => Ok(Some(t.clone())),
        None => Ok(std::env::var("TXBENCH_TOKEN")
            .ok()
            .filter(|t| !t.is_empty())),
    }
}
