//! What every workload's commands share: the engine a URL names, a session on
//! the executor its engine needs, and a measured run (progress line, results
//! directory, checks, summary), generic over the workload.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::watch;
use txbench_core::acks::AckCounts;
use txbench_core::checks;
use txbench_core::driver::{self, Phase, RunError, RunOptions};
use txbench_core::machine::Machine;
use txbench_core::result::{ClockOffset, RESULT_SCHEMA_VERSION, RunResult, recorded_parameters};
use txbench_core::settings::RunSettings;
use txbench_core::summary;
use txbench_core::{Engine, Session, Workload, exec};
use txbench_report::{results, terminal};
use txbench_workloads::conditions::ConditionResult;
use txbench_workloads::{Benchmark, MetricBasis};

use crate::ack_log;
use crate::clock;
use crate::failure::Failure;
use crate::faults::impact::{self, RunSecond};
use crate::faults::inject::Injector;
use crate::figures::Figures;
use crate::metrics::{Live, RunLabels};
use crate::plan::{Resolved, RunPlan};
use crate::progress::{Headline, RunProgress};

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
    on_its_executor(&**engine, session, f).await
}

/// Run `f` on `session`, on the executor the engine needs.
async fn on_its_executor<E, T, Fut>(
    engine: &E,
    session: E::Session,
    f: impl FnOnce(E::Session) -> Fut,
) -> Result<T, Failure>
where
    E: Engine,
    T: Send + 'static,
    Fut: Future<Output = T> + Send + 'static,
{
    exec::spawn(engine, "txbench-session", f(session))
        .join()
        .await
        .ok_or_else(|| Failure::failed("a database session stopped unexpectedly"))
}

/// Run a future on a session of the engine, as [`on_session`] does, until
/// `stop` is set or `limit` (if any) runs out: then the session's statement
/// in progress is stopped at the database (a check waiting on a lock, an
/// invariant that scans for ever), and `what` is named in the failure.
pub async fn on_session_until<E, T, Fut>(
    engine: &Arc<E>,
    (stop, limit): (&watch::Receiver<bool>, Option<Duration>),
    what: &str,
    f: impl FnOnce(E::Session) -> Fut,
) -> Result<T, Failure>
where
    E: Engine,
    T: Send + 'static,
    Fut: Future<Output = T> + Send + 'static,
{
    let session = engine.connect().await?;
    let interrupter = session.interrupter();
    let work = on_its_executor(&**engine, session, f);
    tokio::pin!(work);
    let mut stop = stop.clone();
    let run_out = async {
        match limit {
            Some(limit) => tokio::time::sleep(limit).await,
            None => std::future::pending().await,
        }
    };
    let interrupted = tokio::select! {
        out = &mut work => return out,
        _ = stop.wait_for(|s| *s) => true,
        () = run_out => false,
    };
    // Stopped means ended: the session's work returns once the server has
    // stopped its statement. (A session with no interrupter has nothing
    // running elsewhere: dropping its work stops it.)
    let stop_limit = txbench_core::interrupt::STOP_LIMIT;
    let stopped = match interrupter {
        Some(handle) => {
            txbench_core::interrupt::send(vec![handle.interrupt()]).await;
            tokio::time::timeout(stop_limit, &mut work).await.is_ok()
        }
        None => true,
    };
    if interrupted {
        return Err(Failure::Interrupted(format!("stopped during {what}")));
    }
    let statement = match stopped {
        true => "its statement was stopped".to_string(),
        false => format!(
            "its statement was asked to stop, and still ran {} s later",
            stop_limit.as_secs()
        ),
    };
    Err(Failure::failed(format!(
        "{what} did not finish within --timeout {}; {statement}",
        humantime::format_duration(limit.unwrap_or_default())
    )))
}

/// Run once, print the summary and where the results are.
pub async fn run_on<E: Engine, W: Benchmark>(
    engine: Arc<E>,
    plan: &RunPlan<W>,
    stop: watch::Receiver<bool>,
) -> Result<(), Failure> {
    let started_at = now_rfc3339();
    // A base directory this run makes, and leaves empty, goes with it.
    let new_base = (plan.output.results.as_deref()).filter(|under| !under.exists());
    let dir =
        match &plan.output.results {
            None => None,
            Some(under) => {
                let mut name = format!(
                    "{}-{}-{}",
                    compact_stamp(&started_at),
                    W::ABOUT.name,
                    engine.name()
                );
                if !plan.shard.is_whole() {
                    name += &format!("-shard{}of{}", plan.shard.index(), plan.shard.count());
                }
                Some(results::create_unique(under, &name).map_err(|e| {
                    Failure::failed_because(e, format!("creating {}", under.display()))
                })?)
            }
        };
    let measured = measure::<E, W>(&engine, plan, stop, &started_at, dir.as_deref())
        .await
        .inspect_err(|_| {
            if let Some(dir) = &dir {
                results::remove_if_empty(dir);
            }
            if let Some(base) = new_base {
                results::remove_if_empty(base);
            }
        })?;
    let result = &measured.result;
    // The summary first, and never a panic on a stdout that cannot be written:
    // a results directory on a full disk must not take the run with it.
    let printed = crate::output::try_print(&terminal::summary(result));
    if let Some(dir) = &dir {
        if let Some(Ok(counts)) = &measured.acks {
            outln!("{}", crate::ack_log::summary_line(dir, counts));
        }
        save(dir, &measured)?;
        outln!("results: {}", dir.display());
        if plan.output.report {
            let page = crate::report::write_run_report(dir, result)?;
            outln!("report: {}", page.display());
        }
    }
    if let Err(e) = printed {
        return Err(Failure::failed(match &dir {
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
    if plan.output.strict && checks::worst(&result.checks) == checks::Status::Fail {
        return Err(Failure::NotSound(result.verdict.clone()));
    }
    Ok(())
}

/// The current time, RFC 3339 to the second (UTC).
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// Run once and build its result (nothing printed but the progress line). With a
/// results directory, the interval log and timeline are written there as the run
/// goes, and `config.toml` holds the flags that repeat the run; [`save`] writes
/// `summary.json` once the caller has shown the result.
pub async fn measure<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    plan: &RunPlan<W>,
    stop: watch::Receiver<bool>,
    started_at: &str,
    dir: Option<&Path>,
) -> Result<Measured, Failure> {
    let Opened {
        workload,
        server_version,
        clock,
    } = open_workload::<E, W>(engine, plan, &stop).await?;
    let mut run = plan.resolve(&workload, engine.max_writers(), engine.nodes());
    crate::fit::refuse_unfit(&run, workload.as_ref(), !plan.analytic_db.is_empty())?;
    // The endpoint before any file: an address that cannot be bound leaves
    // nothing behind.
    let headline = headline_of::<W>(&run.driver, &workload);
    let live = live_endpoint(plan, engine.as_ref(), started_at, dir, workload.as_ref()).await?;
    let figures = Figures::new(
        run.driver.open.as_ref().map(|o| o.rate.clone()),
        Arc::clone(&headline),
        workload.transaction_types(),
    );
    let (writer, acks) = open_files(
        engine.as_ref(),
        dir,
        plan,
        &run,
        workload.as_ref(),
        &figures,
    )?;
    run.driver.acks = acks.as_ref().map(|a| a.log.clone());
    let injector = (!plan.faults.is_empty()).then(Injector::default);
    if let Some(injector) = &injector {
        run.driver.schedule = injector.schedule(&plan.faults);
    }
    let mut seconds = injector.as_ref().map(|_| Vec::new());
    let mut warmup_per_s = Vec::new();
    let recording = drive(
        engine,
        &workload,
        &run.driver,
        Watch {
            progress: run_progress(plan, &run.driver, &workload, headline),
            live,
            figures: &figures,
            writer: writer.as_ref(),
            seconds: seconds.as_mut(),
            warmup_per_s: &mut warmup_per_s,
        },
        stop,
    )
    .await;
    // The commands still running are waited for (each has a time limit),
    // unless the run was stopped: then they are killed.
    let stopped = recording.as_ref().map_or(true, |r| r.interrupted);
    let ran = injector.map(|i| {
        if stopped {
            i.abandon();
        }
        i.finish()
    });
    // Whatever happened to the run, the intervals measured so far and the
    // acknowledged work are on disk.
    let written = writer.map(results::IntervalWriter::finish);
    let acks = acks.zip(dir).map(|(log, dir)| log.close(dir));
    let recording = match recording {
        Ok(recording) => recording,
        Err(e) => {
            if let Some(dir) = dir
                && nothing_measured(written.as_ref(), acks.as_ref())
            {
                discard_unmeasured(dir);
            }
            return Err(not_run(e, plan, dir));
        }
    };
    let ran_commands = ran;
    let ran = Ran {
        started_at,
        server_version,
        clock,
    };
    let mut result = result_of::<E, W>(engine, &workload, &run, &recording, ran);
    result.warmup_per_s = warmup_per_s;
    if let Some(commands) = &ran_commands {
        let run_start = recording.window_start - run.driver.warmup;
        result.faults = impact::results(
            commands,
            run_start,
            seconds.as_deref().unwrap_or_default(),
            &recording.answers,
        );
    }
    Ok(Measured {
        result,
        intervals_unsaved: unsaved(written, dir),
        acks,
    })
}

/// The OpenMetrics endpoint serving this run's figures, when asked for.
async fn live_endpoint<E: Engine, W: Benchmark>(
    plan: &RunPlan<W>,
    engine: &E,
    started_at: &str,
    dir: Option<&Path>,
    workload: &W,
) -> Result<Option<Arc<Live>>, Failure> {
    let Some(addr) = plan.output.metrics else {
        return Ok(None);
    };
    let labels = run_labels(plan, engine, started_at, dir);
    Ok(Some(serve_run(addr, labels, workload).await?))
}

/// The results directory's files a run writes as it goes: its interval
/// writer, and its log of acknowledged work when asked for; none without a
/// results directory.
fn open_files<E: Engine, W: Benchmark>(
    engine: &E,
    dir: Option<&Path>,
    plan: &RunPlan<W>,
    run: &Resolved,
    workload: &W,
    figures: &Figures,
) -> Result<(Option<results::IntervalWriter>, Option<ack_log::OpenLog>), Failure> {
    let Some(dir) = dir else {
        return Ok((None, None));
    };
    let writer = start_results(dir, plan, &run.settings, workload, figures)?;
    let acks = if plan.output.ack_log {
        Some(ack_log::open(engine, dir, workload)?)
    } else {
        None
    };
    Ok((Some(writer), acks))
}

/// Why the intervals were not saved, if they were not. A failure to write
/// them loses them, not the run: it is reported after the summary is
/// printed.
fn unsaved(written: Option<std::io::Result<u64>>, dir: Option<&Path>) -> Option<String> {
    match (written, dir) {
        (Some(Err(e)), Some(dir)) => Some(format!(
            "writing {} or {} in {}: {e}",
            results::HLOG_FILE,
            results::TIMELINE_FILE,
            dir.display()
        )),
        _ => None,
    }
}

/// What opening the database found: the workload, narrowed to this
/// process's shard, the server's version and its clock against ours.
struct Opened<W> {
    workload: Arc<W>,
    server_version: String,
    clock: Option<ClockOffset>,
}

/// Open the workload on a session (Ctrl-C stops the wait), narrowed to this
/// process's shard, with the server's version and clock. A shard started
/// for a time (`--start-at`) whose clock disagrees with the server's says so.
async fn open_workload<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    plan: &RunPlan<W>,
    stop: &watch::Receiver<bool>,
) -> Result<Opened<W>, Failure> {
    let (asked, seed, options) = (plan.scale, plan.seed, plan.options.clone());
    let opening = async {
        on_session(engine, |mut s| async move {
            let workload = W::open(&mut s, asked, seed, &options).await?;
            txbench_workloads::shape::check(&mut s, W::meta(), &workload.run_tables()).await?;
            let version = s
                .server_version()
                .await
                .unwrap_or_else(|_| "unknown".into());
            // A server that cannot tell its time is no reason not to run.
            let clock = clock::offset(&mut s).await.unwrap_or(None);
            Ok::<_, Failure>((workload, version, clock))
        })
        .await?
    };
    let (mut workload, server_version, clock) =
        unless_stopped(stop, "opening the database", opening).await?;
    workload
        .shard(plan.shard)
        .map_err(|e| Failure::usage(e.to_string()))?;
    if let (Some(start), Some(clock)) = (plan.start_at, &clock)
        && let Some(warning) = clock::disagreement(clock, start.tolerance)
    {
        crate::output::eprint_line(&warning);
    }
    Ok(Opened {
        workload: Arc::new(workload),
        server_version,
        clock,
    })
}

/// Create the results directory's `config.toml` and its interval writer.
fn start_results<W: Benchmark>(
    dir: &Path,
    plan: &RunPlan<W>,
    settings: &RunSettings,
    workload: &W,
    figures: &Figures,
) -> Result<results::IntervalWriter, Failure> {
    let io = |e: std::io::Error| Failure::failed_because(e, format!("writing {}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let definition = crate::plan::options_map(&W::definition());
    let config = crate::config::repeat_file(W::ABOUT.name, &plan.db, &definition, settings);
    std::fs::write(dir.join(results::CONFIG_FILE), config).map_err(io)?;
    let types = workload.transaction_types();
    results::IntervalWriter::with_figures(
        dir,
        types.iter().map(|t| t.key.to_string()).collect(),
        workload
            .operations()
            .iter()
            .map(|o| o.to_string())
            .collect(),
        &figures.names(),
    )
    .map_err(io)
}

/// What this run's headline figures depend on.
fn basis_of<W: Benchmark>(opts: &RunOptions, workload: &W) -> MetricBasis {
    MetricBasis {
        driven: workload.driven(),
        wait: opts.wait,
    }
}

/// The workload's headline figures over some seconds of this run.
fn headline_of<W: Benchmark>(opts: &RunOptions, workload: &W) -> Headline {
    let basis = basis_of(opts, workload);
    Arc::new(move |types, secs| W::metrics(types, secs, basis))
}

/// The endpoint at `addr`, serving this run's figures from now on.
async fn serve_run<W: Benchmark>(
    addr: std::net::SocketAddr,
    labels: RunLabels,
    workload: &W,
) -> Result<Arc<Live>, Failure> {
    let live = crate::metrics::serve(addr).await?;
    live.begin(labels, workload.transaction_types());
    Ok(live)
}

/// The live line of a run.
fn run_progress<W: Benchmark>(
    plan: &RunPlan<W>,
    opts: &RunOptions,
    workload: &W,
    headline: Headline,
) -> RunProgress {
    RunProgress::new(
        opts.warmup + opts.duration,
        workload.transaction_types(),
        plan.output.progress,
        plan.output.progress_label.as_deref(),
        headline,
    )
    .counting(opts.transactions)
}

/// The labels of this run's metrics: the results directory's name names the
/// run (its start time without one).
fn run_labels<E: Engine, W: Benchmark>(
    plan: &RunPlan<W>,
    engine: &E,
    started_at: &str,
    dir: Option<&Path>,
) -> RunLabels {
    RunLabels {
        workload: W::ABOUT.name.to_string(),
        engine: engine.name().to_string(),
        run: dir.and_then(Path::file_name).map_or_else(
            || compact_stamp(started_at),
            |n| n.to_string_lossy().into_owned(),
        ),
        shard: format!("{}/{}", plan.shard.index(), plan.shard.count()),
    }
}

/// What watches a run's seconds as they finish.
struct Watch<'a> {
    /// The live line.
    progress: RunProgress,
    /// The figures served to scrapers.
    live: Option<Arc<Live>>,
    /// The run's own figures of each second (its headline, once a second,
    /// for the scrapers and the timeline alike).
    figures: &'a Figures,
    /// Where each second of the window is written.
    writer: Option<&'a results::IntervalWriter>,
    /// Where each second of the window is kept for the faults' figures.
    seconds: Option<&'a mut Vec<RunSecond>>,
    /// Where each second of the warm-up's throughput is kept, for the report.
    warmup_per_s: &'a mut Vec<(f64, f64)>,
}

/// The shortest piece of a tick before the window whose throughput is kept:
/// a sliver of a second gives a rate of noise.
const WARMUP_PIECE: f64 = 0.25;

/// Drive the run, showing its progress and writing each finished second.
async fn drive<E: Engine, W: Workload>(
    engine: &Arc<E>,
    workload: &Arc<W>,
    opts: &RunOptions,
    mut watch: Watch<'_>,
    stop: watch::Receiver<bool>,
) -> Result<driver::Recording, RunError> {
    let recording = driver::run(engine, workload, opts, stop, |t| {
        watch.progress.tick(&t);
        let headline = watch.figures.headline_of(&t);
        if let Some(live) = &watch.live {
            live.tick(&t, headline.as_deref());
        }
        let (from, to) = t.window_span;
        // The part of the tick before the window (what ended there is not
        // measured): the warm-up's throughput, kept for the report.
        let began = t.elapsed.saturating_sub(t.interval_length);
        if began < opts.warmup && t.phase != Phase::Finishing {
            let end = t.elapsed.min(opts.warmup);
            let secs = (end - began).as_secs_f64();
            if secs >= WARMUP_PIECE {
                let before_window = end.as_secs_f64() - opts.warmup.as_secs_f64();
                watch
                    .warmup_per_s
                    .push((before_window, t.interval.unmeasured as f64 / secs));
            }
        }
        if to <= from {
            return;
        }
        // A fault's seconds are the window's: what completes in the grace
        // after it is counted late, not as throughput, so a short last piece
        // of grace would read as a second with nothing done.
        if let Some(seconds) = watch.seconds.as_deref_mut()
            && from < opts.duration
        {
            seconds.push(RunSecond::of(opts.warmup + to, to - from, &t.interval));
        }
        if let Some(w) = watch.writer {
            w.push(results::Interval {
                window_start: t.window_start,
                start: from,
                length: to - from,
                figures: watch.figures.of((from, to), headline.as_deref()),
                numbers: t.interval,
            });
        }
    })
    .await;
    watch.progress.finish();
    recording
}

/// Whether a run that failed left nothing of its own in its results: no
/// interval written and no transaction in its acknowledged-work log.
fn nothing_measured(
    written: Option<&std::io::Result<u64>>,
    acks: Option<&Result<AckCounts, String>>,
) -> bool {
    let no_intervals = matches!(written, None | Some(Ok(0)));
    let no_acks = match acks {
        None => true,
        Some(Ok(counts)) => counts.by_type.iter().flatten().all(|&n| n == 0),
        Some(Err(_)) => false,
    };
    no_intervals && no_acks
}

/// Remove the files a run that never measured made in its results directory
/// (the settings, the headers of the interval files and of the log), so that
/// [`results::remove_if_empty`] leaves no directory of a run that did not
/// happen; a refusal written after this stays.
fn discard_unmeasured(dir: &Path) {
    for file in [
        results::CONFIG_FILE,
        results::HLOG_FILE,
        results::TIMELINE_FILE,
        txbench_core::acks::ACKS_FILE,
    ] {
        let _ = std::fs::remove_file(dir.join(file));
    }
}

/// Why a run measured nothing, as the command's failure; a shard that
/// started too late records why in `refused.json`.
fn not_run<W: Benchmark>(e: RunError, plan: &RunPlan<W>, dir: Option<&Path>) -> Failure {
    let shard = plan.shard;
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
                start_at: plan
                    .start_at
                    .map(|s| humantime::format_rfc3339_millis(s.at).to_string()),
                late_secs: late.as_secs_f64(),
                tolerance_secs: tolerance.as_secs_f64(),
                refused_at: now_rfc3339(),
            };
            if let Some(dir) = dir
                && let Err(e) = results::write_refusal(dir, &refusal)
            {
                return Failure::failed_because(e, format!("writing {}", dir.display()));
            }
            Failure::failed_because(e, format!("{shard} refused to run"))
        }
    }
}

/// What the run itself said beside its recording.
struct Ran<'a> {
    started_at: &'a str,
    server_version: String,
    clock: Option<ClockOffset>,
}

/// The run's result: its recording summarised, checked and judged, with the
/// settings it ran with.
fn result_of<E: Engine, W: Benchmark>(
    engine: &Arc<E>,
    workload: &W,
    run: &Resolved,
    recording: &driver::Recording,
    ran: Ran<'_>,
) -> RunResult {
    let opts = &run.driver;
    let types = workload.transaction_types();
    let measured_secs = recording.measured.as_secs_f64();
    let mut transactions = summary::type_results(types, &recording.total.measured);
    let mut analysis = checks::analyse(recording, opts.open.as_ref(), types);
    let stamped = run.settings.timestamps == txbench_core::Timestamps::Kernel;
    let wire = stamped.then(|| summary::wire_result(&recording.total.measured));
    if let Some(wire) = &wire {
        analysis.checks.push(checks::wire::client_bias(wire));
    }
    for (i, t) in transactions.iter_mut().enumerate() {
        t.latency_intervals_ms = checks::intervals(recording, i, analysis.lag);
        t.answer_rows = workload.answer_rows(i);
    }
    let basis = basis_of(opts, workload);
    let headline = headline_of(opts, workload);
    let alternation = (workload.alternation())
        .map(|alt| crate::alternation::summarise(&alt, &recording.phases, types, &headline));
    let (fresh_of, probes) = workload.freshness();
    let looks = txbench_core::freshness::looks_in(probes, recording.window);
    let freshness = txbench_core::result::FreshnessResult::of(fresh_of, looks);
    let streams = txbench_core::result::StreamsResult::of(
        &workload.executed(),
        types,
        recording.window,
        measured_secs,
    );
    // One writer shared by the queries and the transactions (SQLite).
    if let Some(s) = streams.as_ref().filter(|_| engine.max_writers() == 1) {
        let check = checks::shared_writer(&s.executions, measured_secs);
        analysis.checks.push(check);
    }
    RunResult {
        schema_version: RESULT_SCHEMA_VERSION,
        txbench_version: env!("CARGO_PKG_VERSION").to_string(),
        workload: workload.name().to_string(),
        workload_title: workload.title(),
        engine: engine.name().to_string(),
        target: engine.describe(),
        started_at: ran.started_at.to_string(),
        window_start_unix_s: recording
            .window_start
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64()),
        machine: Machine::current(),
        merged_from: Vec::new(),
        settings: Some(run.settings.clone()),
        parameters: recorded_parameters(&workload.parameters()),
        server_version: ran.server_version,
        measured_secs,
        interrupted: recording.interrupted,
        metrics: {
            let mut metrics = W::metrics(&transactions, measured_secs, basis);
            summary::rate_intervals(&mut metrics, recording);
            metrics
        },
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
        faults: Vec::new(),
        wire,
        warmup_per_s: Vec::new(),
        parts: Vec::new(),
        clock: ran.clock,
        alternation,
        freshness,
        streams,
    }
}

/// A measured run, and whether its interval files could be written.
pub struct Measured {
    /// The run's result, not yet saved.
    pub result: RunResult,
    /// Why the interval log or the timeline could not be written, if so.
    pub intervals_unsaved: Option<String>,
    /// What the acknowledged-work log holds, or why it could not be written;
    /// `None` when the run kept none.
    pub acks: Option<Result<AckCounts, String>>,
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
        .chain(measured.acks.iter().filter_map(|a| a.clone().err()))
        .chain(summary.map(|e| e.to_string()))
        .collect();
    if failures.is_empty() {
        return Ok(());
    }
    Err(Failure::failed(format!(
        "{}; the summary printed above holds what was measured",
        failures.join("; ")
    )))
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
