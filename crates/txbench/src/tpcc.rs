//! `txbench tpcc ...`: wiring the TPC-C workload, an engine, the driver and the
//! reports together.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use tokio::sync::watch;
use txbench_core::checks;
use txbench_core::driver::pool::RetryPolicy;
use txbench_core::driver::{self, Arrival, OpenLoop, RunOptions, WaitMode};
use txbench_core::machine::Machine;
use txbench_core::result::{self, RESULT_SCHEMA_VERSION, RunResult};
use txbench_core::{Engine, Session, Workload, exec};
use txbench_engines::Target;
use txbench_engines::mysql::MyEngine;
use txbench_engines::null::NullEngine;
use txbench_engines::postgres::PgEngine;
use txbench_engines::redact;
use txbench_engines::sqlite::SqliteEngine;
use txbench_report::{results, terminal};
use txbench_workloads::tpcc::load::{LoadOptions, drop_all};
use txbench_workloads::tpcc::{Tpcc, check, generate, load, meta};

use crate::cli::{
    AffinityArg, AllInOneArgs, ArrivalArg, DbArgs, IsolationArg, LoadArgs, RunArgs, TpccVerb,
    WaitArg,
};
use crate::failure::Failure;
use crate::progress::{RunProgress, load_bar};

/// Call a generic function with the engine a URL names.
macro_rules! with_engine {
    ($url:expr, $isolation:expr, |$engine:ident| $body:expr) => {{
        let isolation: Option<IsolationArg> = $isolation;
        match Target::parse_all($url).map_err(|e| Failure::Usage(e.to_string()))? {
            Target::Sqlite(cfg) => {
                if let Some(i) = isolation.filter(|i| *i != IsolationArg::Serializable) {
                    return Err(Failure::Usage(format!(
                        "--isolation {}: SQLite runs every transaction serializable",
                        i.name()
                    )));
                }
                let $engine = Arc::new(SqliteEngine::new(cfg)?);
                $body
            }
            Target::Postgres(target) => {
                let $engine = Arc::new(PgEngine::new(target, isolation.map(IsolationArg::level)));
                $body
            }
            Target::Mysql(target) => {
                let $engine = Arc::new(MyEngine::new(
                    vec![target],
                    isolation.map(IsolationArg::level),
                ));
                $body
            }
            Target::MysqlCluster(nodes) => {
                let $engine = Arc::new(MyEngine::new(nodes, isolation.map(IsolationArg::level)));
                $body
            }
            Target::Null => {
                let $engine = Arc::new(NullEngine);
                $body
            }
        }
    }};
}

/// Run a TPC-C verb, or the all-in-one form.
pub async fn main(
    verb: Option<TpccVerb>,
    all: AllInOneArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    match verb {
        Some(TpccVerb::Load(a)) => with_engine!(&a.db.db, None, |e| load_on(e, &a).await),
        Some(TpccVerb::Run(a)) => {
            with_engine!(&a.db.db, a.isolation, |e| run_on(e, &a, stop).await)
        }
        Some(TpccVerb::Check(a)) => with_engine!(&a.db, None, |e| check_on(e).await),
        Some(TpccVerb::Clean(a)) => with_engine!(&a.db, None, |e| clean_on(e, &a).await),
        None => with_engine!(&all.run.db.db, all.run.isolation, |e| all_in_one(
            e, &all, stop
        )
        .await),
    }
}

/// `txbench sweep tpcc`.
pub async fn sweep(a: crate::cli::SweepArgs, stop: watch::Receiver<bool>) -> Result<(), Failure> {
    with_engine!(&a.run.db.db, a.run.isolation, |e| crate::sweep::sweep_on(
        e, &a, stop
    )
    .await)
}

/// Run a future on a session of the engine, on the executor the engine needs.
async fn on_session<E, T, Fut>(
    engine: &Arc<E>,
    f: impl FnOnce(E::Session) -> Fut,
) -> Result<T, Failure>
where
    E: Engine,
    T: Send + 'static,
    Fut: Future<Output = T> + Send + 'static,
{
    let session = engine.connect().await?;
    exec::spawn::<E, _, _>("txbench-session", f(session))
        .join()
        .await
        .ok_or_else(|| Failure::Failed("a database session stopped unexpectedly".into()))
}

async fn load_on<E: Engine>(engine: Arc<E>, a: &LoadArgs) -> Result<(), Failure> {
    let threads = a
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let opts = LoadOptions {
        warehouses: a.warehouses,
        threads,
        seed: a.seed,
        drop: a.drop,
        foreign_keys: a.foreign_keys,
    };
    let rows = Arc::new(AtomicU64::new(0));
    let bar = load_bar(generate::expected_rows(a.warehouses), false);
    let watcher = {
        let (rows, bar) = (Arc::clone(&rows), bar.clone());
        tokio::spawn(async move {
            loop {
                bar.set_position(rows.load(Ordering::Relaxed));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let summary = load::load(Arc::clone(&engine), &opts, rows).await;
    watcher.abort();
    bar.finish_and_clear();
    let summary = summary?;
    let secs = summary.elapsed.as_secs_f64();
    println!(
        "loaded {} warehouse{} into {}: {} rows in {:.2} s ({} rows/s), C-Load for C_LAST {}",
        a.warehouses,
        if a.warehouses == 1 { "" } else { "s" },
        engine.describe(),
        terminal::grouped(summary.rows as f64, 0),
        secs,
        terminal::grouped(summary.rows as f64 / secs.max(1e-9), 0),
        summary.constants.c_last
    );
    Ok(())
}

async fn check_on<E: Engine>(engine: Arc<E>) -> Result<(), Failure> {
    let results = on_session(&engine, |mut s| async move {
        if meta::read(&mut s).await?.is_none() {
            return Err(Failure::from(txbench_workloads::tpcc::TpccError::NotLoaded));
        }
        Ok(check::check(&mut s).await?)
    })
    .await??;
    let mut ok = true;
    for r in &results {
        ok &= r.passed();
        if r.passed() {
            println!("PASS  {:<9} {}", r.clause, r.text);
        } else {
            println!(
                "FAIL  {:<9} {} ({} violations)",
                r.clause, r.text, r.violations
            );
        }
    }
    if ok {
        Ok(())
    } else {
        Err(Failure::CheckFailed)
    }
}

async fn clean_on<E: Engine>(engine: Arc<E>, a: &DbArgs) -> Result<(), Failure> {
    on_session(&engine, |mut s| async move { drop_all(&mut s).await }).await??;
    println!("dropped the TPC-C tables in {a}");
    Ok(())
}

async fn all_in_one<E: Engine>(
    engine: Arc<E>,
    a: &AllInOneArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let state = on_session(&engine, |mut s| async move { meta::read(&mut s).await }).await??;
    let loaded = state.as_ref().filter(|s| s.complete).map(|s| s.warehouses);
    match loaded {
        Some(w) if !a.drop => {
            if let Some(asked) = a.run.warehouses.filter(|&asked| asked != w) {
                return Err(txbench_workloads::tpcc::TpccError::WarehouseMismatch {
                    asked,
                    loaded: w,
                }
                .into());
            }
            println!(
                "using the {w} warehouse{} already loaded in {}",
                if w == 1 { "" } else { "s" },
                engine.describe()
            );
        }
        _ => {
            let load_args = LoadArgs {
                db: a.run.db.clone(),
                warehouses: a.run.warehouses.unwrap_or(1),
                threads: a.threads,
                drop: a.drop || state.is_some(),
                seed: a.run.seed,
                foreign_keys: a.foreign_keys,
            };
            load_on(Arc::clone(&engine), &load_args).await?;
        }
    }
    run_on(engine, &a.run, stop).await
}

async fn run_on<E: Engine>(
    engine: Arc<E>,
    a: &RunArgs,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let started_at = now_rfc3339();
    let dir = if a.no_results {
        None
    } else {
        let name = format!("{}-tpcc-{}", compact_stamp(&started_at), engine.name());
        Some(
            results::create_unique(&a.results, &name)
                .map_err(|e| Failure::Failed(format!("creating {}: {e}", a.results.display())))?,
        )
    };
    let result = measure(&engine, a, stop, &started_at, dir.as_deref()).await?;
    print!("{}", terminal::summary(&result));
    if let Some(dir) = dir {
        println!("results: {}", dir.display());
    }
    Ok(())
}

/// The current time, RFC 3339 to the second (UTC).
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// Run once and build its result (nothing printed but the progress line). With a
/// results directory, the interval log and timeline are written there as the run
/// goes, then `summary.json`; `config.toml` holds the flags that repeat the run.
pub async fn measure<E: Engine>(
    engine: &Arc<E>,
    a: &RunArgs,
    stop: watch::Receiver<bool>,
    started_at: &str,
    dir: Option<&Path>,
) -> Result<RunResult, Failure> {
    let engine = Arc::clone(engine);
    let (asked, seed) = (a.warehouses, a.seed);
    let (tpcc, server_version) = on_session(&engine, |mut s| async move {
        let tpcc = Tpcc::open(&mut s, asked, seed).await?;
        let version = s
            .server_version()
            .await
            .unwrap_or_else(|_| "unknown".into());
        Ok::<_, Failure>((tpcc, version))
    })
    .await??;
    let workload = Arc::new(tpcc);
    let terminals = a
        .terminals
        .map_or(workload.default_terminals(), |t| t as usize);
    let connections = a
        .connections
        .map_or(engine.max_writers().min(terminals).min(64), |c| c as usize);
    let wait = match a.wait {
        WaitArg::None => WaitMode::None,
        WaitArg::Spec => WaitMode::Spec,
    };
    let opts = RunOptions {
        duration: a.duration,
        warmup: a.warmup,
        terminals,
        connections,
        wait,
        seed,
        retry: RetryPolicy {
            max_retries: a.max_retries,
            ..RetryPolicy::default()
        },
        affinity: a.affinity == AffinityArg::Warehouse,
        open: a.rate.map(|rate| OpenLoop {
            rate,
            arrival: match a.arrival {
                ArrivalArg::Poisson => Arrival::Poisson,
                ArrivalArg::Uniform => Arrival::Uniform,
                ArrivalArg::Fixed => Arrival::Fixed,
            },
            queue_limit: a.queue_limit.map(|q| q as usize),
        }),
    };
    let types = workload.transaction_types();
    let writer = match dir {
        Some(dir) => {
            let io = |e: std::io::Error| Failure::Failed(format!("writing {}: {e}", dir.display()));
            std::fs::create_dir_all(dir).map_err(io)?;
            std::fs::write(
                dir.join(results::CONFIG_FILE),
                effective_config(a, workload.warehouses(), terminals, connections),
            )
            .map_err(io)?;
            Some(
                results::IntervalWriter::create(
                    dir,
                    types.iter().map(|t| t.key.to_string()).collect(),
                )
                .map_err(io)?,
            )
        }
        None => None,
    };
    let mut progress = RunProgress::new(a.warmup + a.duration, types, a.quiet);
    let recording = driver::run(&engine, &workload, &opts, stop, |t| {
        progress.tick(&t);
        if let Some(w) = &writer
            && t.window_span.1 > t.window_span.0
        {
            w.push(results::Interval {
                window_start: t.window_start,
                start: t.window_span.0,
                length: t.window_span.1 - t.window_span.0,
                numbers: t.interval,
            });
        }
    })
    .await;
    progress.finish();
    // Whatever happened to the run, the intervals measured so far are on disk.
    let written = writer.map(results::IntervalWriter::finish);
    let recording = recording?;
    if let (Some(Err(e)), Some(dir)) = (written, dir) {
        return Err(Failure::Failed(format!("writing {}: {e}", dir.display())));
    }

    let measured_secs = recording.measured.as_secs_f64();
    let mut transactions =
        result::type_results(workload.transaction_types(), &recording.total.measured);
    let analysis = checks::analyse(&recording, opts.open.as_ref(), workload.transaction_types());
    for (i, t) in transactions.iter_mut().enumerate() {
        t.latency_intervals_ms = checks::intervals(&recording.samples, i as u16, analysis.lag);
    }
    let mut parameters: BTreeMap<String, String> = workload.parameters().into_iter().collect();
    for (k, v) in [
        ("terminals", terminals.to_string()),
        ("connections", connections.to_string()),
        ("wait", format!("{:?}", wait).to_lowercase()),
        ("seed", seed.to_string()),
        ("duration_secs", a.duration.as_secs_f64().to_string()),
        ("warmup_secs", a.warmup.as_secs_f64().to_string()),
        ("max_retries", a.max_retries.to_string()),
        (
            "load",
            a.rate.map_or("closed".to_string(), |r| {
                format!("open {r}/s {:?}", a.arrival).to_lowercase()
            }),
        ),
        ("affinity", format!("{:?}", a.affinity).to_lowercase()),
        ("nodes", engine.nodes().to_string()),
        (
            "isolation",
            a.isolation
                .map_or("default".to_string(), |i| i.name().to_string()),
        ),
    ] {
        parameters.insert(k.to_string(), v);
    }
    let result = RunResult {
        schema_version: RESULT_SCHEMA_VERSION,
        txbench_version: env!("CARGO_PKG_VERSION").to_string(),
        workload: workload.name().to_string(),
        engine: engine.name().to_string(),
        target: engine.describe(),
        started_at: started_at.to_string(),
        window_start_unix_s: recording
            .window_start
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64()),
        server_version,
        machine: Machine::current(),
        merged_from: Vec::new(),
        parameters,
        measured_secs,
        interrupted: recording.interrupted,
        metrics: workload.metrics(&transactions, measured_secs, wait),
        transactions,
        cpu: result::cpu_result(&recording),
        error_samples: result::error_samples(&recording),
        open_loop: opts
            .open
            .as_ref()
            .and_then(|load| result::open_loop_result(&recording, load)),
        verdict: checks::verdict(&analysis.checks),
        checks: analysis.checks,
    };
    if let Some(dir) = dir {
        results::write_summary(dir, &result)
            .map_err(|e| Failure::Failed(format!("writing {}: {e}", dir.display())))?;
    }
    Ok(result)
}

/// The flags of a run as TOML that `--config` reads back: the run as it was
/// configured, with the defaults it resolved (scale, terminals, connections) made
/// explicit and any password removed from the URL.
fn effective_config(a: &RunArgs, warehouses: i64, terminals: usize, connections: usize) -> String {
    let mut t = toml::Table::new();
    let mut put = |k: &str, v: toml::Value| {
        t.insert(k.to_string(), v);
    };
    match a.db.db.as_slice() {
        [one] => put("db", redact(one).into()),
        many => put(
            "db",
            toml::Value::Array(many.iter().map(|u| redact(u).into()).collect()),
        ),
    }
    put("warehouses", warehouses.into());
    put(
        "duration",
        humantime::format_duration(a.duration).to_string().into(),
    );
    put(
        "warmup",
        humantime::format_duration(a.warmup).to_string().into(),
    );
    put("terminals", (terminals as i64).into());
    put("connections", (connections as i64).into());
    put("wait", format!("{:?}", a.wait).to_lowercase().into());
    put("seed", (a.seed as i64).into());
    if let Some(rate) = a.rate {
        put("rate", format!("{rate}/s").into());
        put("arrival", format!("{:?}", a.arrival).to_lowercase().into());
    }
    if let Some(q) = a.queue_limit {
        put("queue-limit", (q as i64).into());
    }
    if let Some(i) = a.isolation {
        put("isolation", i.name().into());
    }
    put("max-retries", i64::from(a.max_retries).into());
    put(
        "affinity",
        format!("{:?}", a.affinity).to_lowercase().into(),
    );
    format!(
        "# txbench tpcc run --config config.toml repeats this run.\n{}",
        toml::to_string(&t).expect("a TOML table serializes")
    )
}

/// An RFC 3339 time without separators, for directory names (20261122T221924Z).
pub fn compact_stamp(rfc3339: &str) -> String {
    rfc3339.chars().filter(|c| *c != '-' && *c != ':').collect()
}
