//! `txbench serve`: load (or open) a workload's database, then serve its
//! transactions to `txbench://` clients until Ctrl-C or SIGTERM.

use std::marker::PhantomData;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::watch;
use txbench_core::any_engine::AnyEngine;
use txbench_core::{Engine, Execution, Session};
use txbench_engines::{EngineOptions, WithEngine, with_engine};
use txbench_server::{ServeOptions, serve};
use txbench_workloads::Benchmark;
use txbench_workloads::registry::Visitor;

use crate::cli::{IsolationArg, ServeArgs};
use crate::failure::Failure;
use crate::load::scale_text;
use crate::runner::on_session;
use crate::workload::{Work, for_workload};

/// Run `txbench serve`.
pub async fn main(a: ServeArgs, stop: watch::Receiver<bool>) -> Result<(), Failure> {
    // A workload file, or one shipped (`--workload smallbank`), is the
    // custom workload's definition.
    let name = match &a.workload {
        Some(w) if !shipped(w) => w.clone(),
        _ => "custom".to_string(),
    };
    for_workload(&name, Serve { args: a, stop }).await
}

struct Serve {
    args: ServeArgs,
    stop: watch::Receiver<bool>,
}

impl Visitor for Serve {
    type Output = Work;
    fn visit<W: Benchmark>(self) -> Work {
        Box::pin(async move {
            let (a, stop) = (self.args, self.stop);
            let scale = served_scale::<W>(&a)?;
            let options = EngineOptions {
                isolation: a.isolation.map(IsolationArg::level),
                ..EngineOptions::default()
            };
            let urls = a.db.db.clone();
            let serve = ServeOn::<W> {
                a,
                scale,
                stop,
                workload: PhantomData,
            };
            with_engine(&urls, &options, serve).await?
        })
    }
}

/// Serving, done with the engine the URL names.
struct ServeOn<W> {
    a: ServeArgs,
    scale: Option<i64>,
    stop: watch::Receiver<bool>,
    workload: PhantomData<W>,
}

impl<W: Benchmark> WithEngine for ServeOn<W> {
    type Output = Result<(), Failure>;
    async fn with(self, e: Arc<AnyEngine>) -> Result<(), Failure> {
        serve_on::<_, W>(e, &self.a, self.scale, self.stop).await
    }
}

/// The scale flag of the served workload; another workload's is refused.
fn served_scale<W: Benchmark>(a: &ServeArgs) -> Result<Option<i64>, Failure> {
    let unit = W::ABOUT.scale.unit;
    if let Some((other, _)) = a.scales.given.iter().find(|(u, _)| *u != unit) {
        return Err(Failure::usage(format!(
            "--{other} is not a {} setting; {} takes --{unit}",
            W::ABOUT.title,
            W::ABOUT.title
        )));
    }
    Ok(a.scales
        .given
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, v)| *v))
}

async fn serve_on<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    a: &ServeArgs,
    scale: Option<i64>,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    if engine.execution() != Execution::Statements {
        return Err(Failure::usage(
            "serve needs a database that executes transactions' statements, not another \
             txbench server, a sharded key-value store, null: or sim:",
        ));
    }
    define::<W>(a)?;
    let token = token(a)?;
    let (load, options) = (W::LoadOptions::default(), W::RunOptions::default());
    let progress = crate::progress::period(None, false);
    crate::load::ensure_loaded::<E, W>(&engine, scale, &a.load, &load, 1, progress, &stop).await?;
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
    let listening =
        |e: std::io::Error| Failure::failed_because(e, format!("listening on {}", a.listen));
    let listener = TcpListener::bind(a.listen).await.map_err(listening)?;
    let addr = listener.local_addr().map_err(listening)?;
    announce::<E, W>(&engine, &workload, addr, workers, token.is_some());
    let opts = ServeOptions {
        workers,
        token,
        parameters,
        max_connections: a.max_connections as usize,
        grace: a.grace,
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

/// Whether `--workload` names a workload file shipped in txbench
/// (BenchBase's), which `custom` serves.
fn shipped(name: &str) -> bool {
    txbench_workloads::custom::benchbase::file(name).is_some()
}

/// Take the served workload's definition: a workload file's from
/// `--workload-file` or a shipped one's name, the others' built in.
fn define<W: Benchmark>(a: &ServeArgs) -> Result<(), Failure> {
    let usage = |e: txbench_workloads::WorkloadError| Failure::Usage(e.into());
    if let (Some(name), Some(file)) = (&a.workload, W::file_defined())
        && shipped(name)
    {
        return (file.define_shipped)(name).map_err(usage);
    }
    match (&a.workload_file, W::file_defined()) {
        (Some(path), Some(file)) => (file.define)(path).map_err(usage),
        (Some(path), None) => Err(Failure::usage(format!(
            "--workload-file {}: the {} takes no workload file",
            path.display(),
            W::ABOUT.title
        ))),
        (None, Some(_)) => Err(Failure::usage(format!(
            "serve --workload {}: it is defined by a file: serve --workload-file FILE",
            W::ABOUT.name
        ))),
        (None, None) => W::define(&W::Definition::default()).map_err(|e| Failure::Usage(e.into())),
    }
}

/// Say what is served where, and warn when anyone who can reach a
/// non-loopback address may run transactions.
fn announce<E: Engine, W: Benchmark>(
    engine: &E,
    workload: &W,
    addr: std::net::SocketAddr,
    workers: usize,
    token: bool,
) {
    outln!(
        "serving {} ({}) from {} on txbench://{addr} with {workers} worker{}{}",
        W::ABOUT.name,
        scale_text::<W>(workload.scale()),
        engine.describe(),
        if workers == 1 { "" } else { "s" },
        if token { ", token required" } else { "" }
    );
    if !token && !addr.ip().is_loopback() {
        crate::output::eprint_line(&format!(
            "warning: serving on {addr} without a token: anyone who can reach it can run \
             transactions on {}; set --token or TXBENCH_TOKEN",
            engine.describe()
        ));
    }
}

/// The token clients must present: `--token`, else `TXBENCH_TOKEN`, else none.
/// An empty `--token` is refused rather than read as "no authentication".
fn token(a: &ServeArgs) -> Result<Option<String>, Failure> {
    match &a.token {
        Some(t) if t.is_empty() => Err(Failure::usage(
            "--token '': an empty token would let every client in; leave --token out to \
             serve without one",
        )),
        Some(t) => Ok(Some(t.clone())),
        None => Ok(std::env::var("TXBENCH_TOKEN")
            .ok()
            .filter(|t| !t.is_empty())),
    }
}
