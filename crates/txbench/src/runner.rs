//! What every workload's commands share: the engine a URL names, a session on
//! the executor its engine needs, and a measured run (progress line, results
//! directory, checks, summary), generic over the workload.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use tokio::sync::watch;
use txbench_core::checks;
use txbench_core::driver::pool::RetryPolicy;
use txbench_core::driver::{
    self, Arrival, OpenLoop, Pacing, RunError, RunOptions, StartAt, WaitMode,
};
use txbench_core::machine::Machine;
use txbench_core::result::{RESULT_SCHEMA_VERSION, RunResult};
use txbench_core::summary;
use txbench_core::{Engine, Session, Shard, Workload, exec};
use txbench_engines::{EngineOptions, redact};
use txbench_report::{results, terminal};
use txbench_workloads::conditions::ConditionResult;
use txbench_workloads::{Benchmark, MetricBasis};

use crate::cli::{AffinityArg, ArrivalArg, PacingArg, RunArgs, WaitArg};
use crate::failure::Failure;
use crate::progress::RunProgress;

/// Run `work` (a load, opening a database) unless Ctrl-C or SIGTERM comes
/// first: then it is dropped where it is and the command ends as interrupted.
/// A load stopped so leaves its tables marked incomplete, and the next run
/// loads again.
pub async fn unless_stopped<T>(
    stop: &watch::Receiver<bool>,
    what: &str,
    work: impl Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    let mut stop = stop.clone();
    tokio::select! {
        out = work => out,
        _ = stop.wait_for(|s| *s) => Err(Failure::Interrupted(format!("stopped during {what}"))),
    }
}

/// The engine options a run of `workload` asks for: its isolation level, an
/// SQLite file shared with the run's other shards, and the workload's name (a
/// txbench server refuses a client of another workload).
pub fn engine_options(run: &RunArgs, workload: &'static str) -> EngineOptions {
    EngineOptions {
        isolation: run.isolation.map(crate::cli::IsolationArg::level),
        shared_by_shards: run.shards > 1,
        workload: Some(workload),
    }
}

/// Run a future on a session of the engine, on the executor the engine needs.
pub async fn on_session<E, T, Fut>(
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

/// Run once, print the summary and where the results are.
pub async fn run_on<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    a: &RunArgs,
    asked: Option<i64>,
    options: &W::RunOptions,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let started_at = now_rfc3339();
    let dir = if a.no_results {
        None
    } else {
        let shard = shard_of(a)?;
        let mut name = format!(
            "{}-{}-{}",
            compact_stamp(&started_at),
            W::ABOUT.name,
            engine.name()
        );
        if !shard.is_whole() {
            name += &format!("-shard{}of{}", shard.index(), shard.count());
        }
        Some(
            results::create_unique(&a.results, &name)
                .map_err(|e| Failure::Failed(format!("creating {}: {e}", a.results.display())))?,
        )
    };
    let measured = measure::<E, W>(
        &engine,
        a,
        asked,
        options,
        stop,
        &started_at,
        dir.as_deref(),
    )
    .await
    .inspect_err(|_| {
        if let Some(dir) = &dir {
            results::remove_if_empty(dir);
        }
    })?;
    let result = &measured.result;
    // The summary first, and never a panic on a stdout that cannot be written:
    // a results directory on a full disk must not take the run with it.
    let printed = crate::output::try_print(&terminal::summary(result));
    if let Some(dir) = &dir {
        save(dir, &measured)?;
        outln!("results: {}", dir.display());
    }
    if let Err(e) = printed {
        return Err(Failure::Failed(match &dir {
            Some(dir) => format!(
                "the summary could not be printed ({e}); it is in {}",
                dir.display()
            ),
            None => format!(
                "the summary could not be printed ({e}) and --no-results kept it off the \
                 disk: the run's numbers are lost"
            ),
        }));
    }
    if result.interrupted {
        return Err(Failure::Interrupted(
            "interrupted: the summary holds what was measured until then".into(),
        ));
    }
    if a.strict && checks::worst(&result.checks) == checks::Status::Fail {
        return Err(Failure::NotSound(result.verdict.clone()));
    }
    Ok(())
}

/// The run's seed: `--seed`; for shards without one, a seed made from the
/// agreed start time, so that every shard draws from the same seed (one C-Run,
/// the terminals' streams of one run) and the next run from another; else a
/// fresh one.
fn run_seed(a: &RunArgs) -> Result<u64, Failure> {
    match (a.seed, a.shards, a.start_at) {
        (Some(seed), _, _) => Ok(seed),
        (None, 1, _) => Ok(fresh_seed()),
        (None, _, Some(at)) => {
            let millis = at
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            Ok(txbench_core::rng::Rand::new(millis).uniform(0, i64::MAX) as u64)
        }
        (None, n, None) => Err(Failure::Usage(format!(
            "--shards {n} needs --seed or --start-at: every shard must draw from the run's one seed"
        ))),
    }
}

/// A seed no earlier run used: std's randomly keyed hasher over the clock.
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    // Kept within i64 so that config.toml (TOML integers are signed) holds it.
    h.finish() >> 1
}

/// The current time, RFC 3339 to the second (UTC).
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// This process's shard: `--shard-index`, else $JOB_COMPLETION_INDEX when the
/// run has several shards, of `--shards`.
pub fn shard_of(a: &RunArgs) -> Result<Shard, Failure> {
    const ENV: &str = "JOB_COMPLETION_INDEX";
    let index = match (a.shard_index, a.shards) {
        (Some(i), _) => i,
        (None, 1) => 0,
        (None, n) => match std::env::var(ENV) {
            Ok(v) => {
                let bad =
                    || Failure::Usage(format!("{ENV}={v:?} is not a shard index (0..{})", n - 1));
                let i: u32 = v.trim().parse().map_err(|_| bad())?;
                if i >= n {
                    return Err(bad());
                }
                i
            }
            Err(_) => {
                return Err(Failure::Usage(format!(
                    "--shards {n} needs --shard-index (or {ENV}, as a Kubernetes Indexed Job sets it)"
                )));
            }
        },
    };
    Shard::new(index, a.shards).map_err(Failure::Usage)
}

/// Sessions for the run and how that number was reached (kept in the
/// parameters). `--connections` decides outright. Closed-loop terminals with
/// spec waits get a pool sized by Little's law for the rate they offer;
/// otherwise (back-to-back terminals, always busy, or an open loop) one
/// session per terminal up to 64. Never more than the engine takes writers, or
/// than there are terminals.
fn pool_size(
    a: &RunArgs,
    max_writers: usize,
    terminals: usize,
    wait: WaitMode,
    types: &[txbench_core::TxnTypeInfo],
) -> (usize, String) {
    use txbench_core::driver::sizing;
    if let Some(c) = a.connections {
        return (c as usize, "--connections".into());
    }
    let cap = max_writers.min(terminals).max(1);
    let rate = match (wait, a.rate) {
        (WaitMode::Spec, None) => sizing::offered_rate(types, terminals),
        _ => None,
    };
    match rate {
        Some(rate) => {
            let wanted = sizing::sessions_for(rate, sizing::ASSUMED_HOLD);
            (
                wanted.min(cap),
                format!(
                    "little's law: {rate:.1} txn/s offered x {} ms hold = {:.1} busy, \
                     + 3 sqrt = {wanted}{}",
                    sizing::ASSUMED_HOLD.as_millis(),
                    rate * sizing::ASSUMED_HOLD.as_secs_f64(),
                    if wanted > cap {
                        format!(", capped at {cap}")
                    } else {
                        String::new()
                    }
                ),
            )
        }
        None => (
            cap.min(64),
            "one per terminal, at most 64 and the engine's writers".into(),
        ),
    }
}

/// Run once and build its result (nothing printed but the progress line). With a
/// results directory, the interval log and timeline are written there as the run
/// goes, and `config.toml` holds the flags that repeat the run; [`save`] writes
/// `summary.json` once the caller has shown the result.
pub async fn measure<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    a: &RunArgs,
    asked: Option<i64>,
    options: &W::RunOptions,
    stop: watch::Receiver<bool>,
    started_at: &str,
    dir: Option<&Path>,
) -> Result<Measured, Failure> {
    let seed = run_seed(a)?;
    let shard = shard_of(a)?;
    let (workload, server_version) =
        open_workload::<E, W>(engine, asked, seed, options, shard, &stop).await?;
    let (opts, sizing) = run_options(a, engine.max_writers(), workload.as_ref(), seed);
    let writer = match dir {
        Some(dir) => Some(start_results::<W>(dir, a, &opts, &workload, options)?),
        None => None,
    };
    let recording = drive(engine, &workload, &opts, a, stop, writer.as_ref()).await;
    // Whatever happened to the run, the intervals measured so far are on disk.
    let written = writer.map(results::IntervalWriter::finish);
    let recording = recording.map_err(|e| not_run(e, a, shard, dir))?;
    // A failure to write the intervals loses them, not the run: it is reported
    // after the summary is printed.
    let intervals_unsaved = match (written, dir) {
        (Some(Err(e)), Some(dir)) => Some(format!(
            "writing {} or {} in {}: {e}",
            results::HLOG_FILE,
            results::TIMELINE_FILE,
            dir.display()
        )),
        _ => None,
    };
    let run = Ran {
        started_at,
        server_version,
        sizing,
        shard,
    };
    let result = result_of::<E, W>(engine, &workload, a, &opts, &recording, run);
    Ok(Measured {
        result,
        intervals_unsaved,
    })
}

/// Open the workload on a session (Ctrl-C stops the wait), narrowed to this
/// process's shard, with the server's version.
async fn open_workload<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    asked: Option<i64>,
    seed: u64,
    options: &W::RunOptions,
    shard: Shard,
    stop: &watch::Receiver<bool>,
) -> Result<(Arc<W>, String), Failure> {
    let options = options.clone();
    let opening = async {
        on_session(engine, |mut s| async move {
            let workload = W::open(&mut s, asked, seed, &options).await?;
            let version = s
                .server_version()
                .await
                .unwrap_or_else(|_| "unknown".into());
            Ok::<_, Failure>((workload, version))
        })
        .await?
    };
    let (mut workload, server_version) =
        unless_stopped(stop, "opening the database", opening).await?;
    workload.shard(shard).map_err(Failure::Usage)?;
    Ok((Arc::new(workload), server_version))
}

/// The driver's options from the flags, with the defaults that depend on the
/// opened workload and the engine resolved; and how the pool was sized.
fn run_options<W: Workload>(
    a: &RunArgs,
    max_writers: usize,
    workload: &W,
    seed: u64,
) -> (RunOptions, String) {
    let terminals = a
        .terminals
        .map_or(workload.default_terminals(), |t| t as usize);
    let wait = match a.wait {
        WaitArg::None => WaitMode::None,
        WaitArg::Spec => WaitMode::Spec,
    };
    let types = workload.transaction_types();
    let (connections, sizing) = pool_size(a, max_writers, terminals, wait, types);
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
        start_at: a.start_at.map(|at| StartAt {
            at,
            tolerance: a.start_tolerance,
        }),
        grace: a.grace,
        open: a.rate.map(|rate| open_loop(a, rate)),
    };
    (opts, sizing)
}

/// The open-loop load the flags ask for at `rate`.
fn open_loop(a: &RunArgs, rate: f64) -> OpenLoop {
    OpenLoop {
        rate,
        arrival: match a.arrival {
            ArrivalArg::Poisson => Arrival::Poisson,
            ArrivalArg::Uniform => Arrival::Uniform,
            ArrivalArg::Fixed => Arrival::Fixed,
        },
        queue_limit: a.queue_limit.map(|q| q as usize),
        // One dispatcher per driver thread: the ceiling grows with them.
        dispatchers: tokio::runtime::Handle::current().metrics().num_workers(),
        pacing: match a.pacing {
            PacingArg::Auto => Pacing::Auto,
            PacingArg::Sleep => Pacing::Sleep,
            PacingArg::Spin => Pacing::Spin,
        },
    }
}

/// Create the results directory's `config.toml` and its interval writer.
fn start_results<W: Benchmark>(
    dir: &Path,
    a: &RunArgs,
    opts: &RunOptions,
    workload: &W,
    options: &W::RunOptions,
) -> Result<results::IntervalWriter, Failure> {
    let io = |e: std::io::Error| Failure::Failed(format!("writing {}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let config = effective_config(
        a,
        opts.seed,
        W::ABOUT.name,
        (W::ABOUT.scale.unit, workload.scale()),
        option_flags(options),
        opts.terminals,
        opts.connections,
    );
    std::fs::write(dir.join(results::CONFIG_FILE), config).map_err(io)?;
    let types = workload.transaction_types();
    results::IntervalWriter::create(
        dir,
        types.iter().map(|t| t.key.to_string()).collect(),
        workload
            .operations()
            .iter()
            .map(|o| o.to_string())
            .collect(),
    )
    .map_err(io)
}

/// Drive the run, showing its progress and writing each finished second.
async fn drive<E: Engine, W: Workload>(
    engine: &Arc<E>,
    workload: &Arc<W>,
    opts: &RunOptions,
    a: &RunArgs,
    stop: watch::Receiver<bool>,
    writer: Option<&results::IntervalWriter>,
) -> Result<driver::Recording, RunError> {
    let types = workload.transaction_types();
    let mut progress = RunProgress::new(a.warmup + a.duration, types, a.quiet);
    let recording = driver::run(engine, workload, opts, stop, |t| {
        progress.tick(&t);
        if let Some(w) = writer
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
    recording
}

/// Why a run measured nothing, as the command's failure; a shard that
/// started too late records why in `refused.json`.
fn not_run(e: RunError, a: &RunArgs, shard: Shard, dir: Option<&Path>) -> Failure {
    match e {
        RunError::Db(e) => e.into(),
        e @ RunError::StoppedBeforeStart => {
            Failure::Interrupted(format!("{e}; nothing was measured"))
        }
        e @ RunError::LateStart { late, tolerance } => {
            let refusal = results::Refusal {
                reason: e.to_string(),
                shard_index: shard.index(),
                shards: shard.count(),
                start_at: a
                    .start_at
                    .map(|t| humantime::format_rfc3339_millis(t).to_string()),
                late_secs: late.as_secs_f64(),
                tolerance_secs: tolerance.as_secs_f64(),
                refused_at: now_rfc3339(),
            };
            if let Some(dir) = dir
                && let Err(e) = results::write_refusal(dir, &refusal)
            {
                return Failure::Failed(format!("writing {}: {e}", dir.display()));
            }
            Failure::Failed(format!("{shard} refused to run: {e}"))
        }
    }
}

/// What the run itself said beside its recording.
struct Ran<'a> {
    started_at: &'a str,
    server_version: String,
    sizing: String,
    shard: Shard,
}

/// The run's result: its recording summarised, checked and judged, with the
/// settings it ran with.
fn result_of<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    workload: &W,
    a: &RunArgs,
    opts: &RunOptions,
    recording: &driver::Recording,
    ran: Ran<'_>,
) -> RunResult {
    let types = workload.transaction_types();
    let measured_secs = recording.measured.as_secs_f64();
    let mut transactions = summary::type_results(types, &recording.total.measured);
    let analysis = checks::analyse(recording, opts.open.as_ref(), types);
    for (i, t) in transactions.iter_mut().enumerate() {
        t.latency_intervals_ms = checks::intervals(recording, i, analysis.lag);
    }
    let basis = MetricBasis {
        driven: workload.driven(),
        wait: opts.wait,
    };
    RunResult {
        schema_version: RESULT_SCHEMA_VERSION,
        txbench_version: env!("CARGO_PKG_VERSION").to_string(),
        workload: workload.name().to_string(),
        engine: engine.name().to_string(),
        target: engine.describe(),
        started_at: ran.started_at.to_string(),
        window_start_unix_s: recording
            .window_start
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64()),
        machine: Machine::current(),
        merged_from: Vec::new(),
        parameters: recorded_parameters(workload, a, opts, engine.nodes(), &ran),
        server_version: ran.server_version,
        measured_secs,
        interrupted: recording.interrupted,
        metrics: W::metrics(&transactions, measured_secs, basis),
        transactions,
        cpu: summary::cpu_result(recording),
        error_samples: summary::error_samples(recording),
        open_loop: (opts.open.as_ref()).and_then(|load| summary::open_loop_result(recording, load)),
        verdict: checks::verdict(&analysis.checks),
        checks: analysis.checks,
        scheduler: summary::scheduler_result(recording),
        total_latency_ms: Some(summary::total_latency(&recording.total.measured)),
        total_censored_from_ms: summary::total_censored_from_ms(&recording.total.measured),
        total_latency_intervals_ms: checks::total_intervals(recording, analysis.lag),
        tail_secs: recording.tail.as_secs_f64(),
        operations: summary::operation_results(workload.operations(), &recording.total.operations),
        throughput_interval: summary::throughput_interval(recording),
    }
}

/// The settings recorded with the results: the workload's constants and the
/// run's settings as it resolved them.
fn recorded_parameters<W: Benchmark>(
    workload: &W,
    a: &RunArgs,
    opts: &RunOptions,
    nodes: usize,
    ran: &Ran<'_>,
) -> BTreeMap<String, String> {
    let mut parameters: BTreeMap<String, String> = workload.parameters().into_iter().collect();
    for (k, v) in [
        ("terminals", opts.terminals.to_string()),
        ("connections", opts.connections.to_string()),
        ("connections_sizing", ran.sizing.clone()),
        ("wait", format!("{:?}", opts.wait).to_lowercase()),
        ("seed", opts.seed.to_string()),
        ("duration_secs", a.duration.as_secs_f64().to_string()),
        ("warmup_secs", a.warmup.as_secs_f64().to_string()),
        ("max_retries", a.max_retries.to_string()),
        ("grace_secs", a.grace.as_secs_f64().to_string()),
        (
            "load",
            a.rate.map_or("closed".to_string(), |r| {
                format!("open {r}/s {:?}", a.arrival).to_lowercase()
            }),
        ),
        ("affinity", format!("{:?}", a.affinity).to_lowercase()),
        ("nodes", nodes.to_string()),
        ("shards", ran.shard.count().to_string()),
        ("shard_index", ran.shard.index().to_string()),
        (
            "start_at",
            a.start_at.map_or("none".to_string(), |t| {
                humantime::format_rfc3339_millis(t).to_string()
            }),
        ),
        (
            "isolation",
            a.isolation
                .map_or("default".to_string(), |i| i.name().to_string()),
        ),
    ] {
        parameters.insert(k.to_string(), v);
    }
    parameters
}

/// A measured run, and whether its interval files could be written.
pub struct Measured {
    /// The run's result, not yet saved.
    pub result: RunResult,
    /// Why the interval log or the timeline could not be written, if so.
    pub intervals_unsaved: Option<String>,
}

/// Write a measured run's `summary.json` into its results directory. A failure
/// to write it or the interval files names the file and exits 1; the summary
/// already printed holds what was measured, and no half-written file stays.
pub fn save(dir: &Path, measured: &Measured) -> Result<(), Failure> {
    let summary = results::write_summary(dir, &measured.result).err();
    let failures: Vec<String> = measured
        .intervals_unsaved
        .iter()
        .cloned()
        .chain(summary.map(|e| e.to_string()))
        .collect();
    if failures.is_empty() {
        return Ok(());
    }
    Err(Failure::Failed(format!(
        "{}; the summary printed above holds what was measured",
        failures.join("; ")
    )))
}

/// The flags of a run as TOML that `--config` reads back: the run as it was
/// configured, with the defaults it resolved (scale, terminals, connections) made
/// explicit and any password removed from the URL.
fn effective_config(
    a: &RunArgs,
    seed: u64,
    workload: &str,
    (scale_flag, scale): (&str, i64),
    options: Vec<(String, toml::Value)>,
    terminals: usize,
    connections: usize,
) -> String {
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
    put(scale_flag, scale.into());
    for (flag, value) in options {
        put(&flag, value);
    }
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
    put("seed", (seed as i64).into());
    if let Some(rate) = a.rate {
        put("rate", format!("{rate}/s").into());
        put("arrival", format!("{:?}", a.arrival).to_lowercase().into());
        put("pacing", format!("{:?}", a.pacing).to_lowercase().into());
    }
    if let Some(q) = a.queue_limit {
        put("queue-limit", (q as i64).into());
    }
    if let Some(i) = a.isolation {
        put("isolation", i.name().into());
    }
    put("max-retries", i64::from(a.max_retries).into());
    put(
        "grace",
        humantime::format_duration(a.grace).to_string().into(),
    );
    put(
        "affinity",
        format!("{:?}", a.affinity).to_lowercase().into(),
    );
    if a.shards > 1 {
        put("shards", i64::from(a.shards).into());
        if let Some(i) = a.shard_index {
            put("shard-index", i64::from(i).into());
        }
    }
    let secrets_removed = a.db.db.iter().any(|u| redact(u) != *u);
    format!(
        "# txbench {workload} run --config config.toml repeats this run.\n{}{}",
        if secrets_removed {
            "# Secrets in the URL were replaced by ***: give them again, or in PGPASSWORD, \
             MYSQL_PWD, REDISCLI_AUTH or TXBENCH_TOKEN.\n"
        } else {
            ""
        },
        toml::to_string(&t).expect("a TOML table serializes")
    )
}

/// A workload's options as `config.toml` entries (flag name, value), so that
/// the file repeats the run.
fn option_flags<O: serde::Serialize>(options: &O) -> Vec<(String, toml::Value)> {
    match toml::Value::try_from(options) {
        Ok(toml::Value::Table(t)) => t
            .into_iter()
            .map(|(k, v)| (k.replace('_', "-"), v))
            .collect(),
        _ => Vec::new(),
    }
}

/// An RFC 3339 time without separators, for directory names (20261122T221924Z).
pub fn compact_stamp(rfc3339: &str) -> String {
    rfc3339.chars().filter(|c| *c != '-' && *c != ':').collect()
}

/// Row-generating threads for a load: as asked, else every core.
pub fn load_threads(asked: Option<u32>) -> usize {
    asked.map_or_else(
        || std::thread::available_parallelism().map_or(2, |n| n.get()),
        |t| t as usize,
    )
}

/// Print check results, one a line; `Err(CheckFailed)` when any failed.
pub fn report_conditions(results: &[ConditionResult]) -> Result<(), Failure> {
    let mut ok = true;
    for r in results {
        ok &= r.passed();
        if r.passed() {
            outln!("PASS  {:<10} {}", r.clause, r.text);
        } else {
            outln!(
                "FAIL  {:<10} {} ({} violations)",
                r.clause,
                r.text,
                r.violations
            );
        }
    }
    if ok {
        Ok(())
    } else {
        Err(Failure::CheckFailed)
    }
}
