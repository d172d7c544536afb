//! The run a command line asks for, every flag validated once (the way
//! ripgrep turns its low-level arguments into high-level ones): the runner
//! executes a [`RunPlan`], `sweep` varies it step by step, and once the
//! workload is open it resolves into the typed [`RunSettings`] that
//! `config.toml` and `summary.json` are both written from.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use txbench_core::driver::RetryPolicy;
use txbench_core::driver::{self, OpenLoop, RateSchedule, StartAt};
use txbench_core::rng::Rand;
use txbench_core::settings::{Affinity, Arrival, Load, Pacing, RunSettings, Scale, WaitMode};
use txbench_core::{Isolation, RoundTrips, Shard, Timestamps};
use txbench_engines::EngineOptions;
use txbench_workloads::Benchmark;

use crate::cli::RunArgs;
use crate::cli::workload::RunCmd;
use crate::failure::Failure;
use crate::faults::plan::PlannedCommand;

/// A run as asked for: what the flags say, checked, with the seed and the
/// shard decided. What depends on the opened workload and the engine (the
/// scale found, terminals, sessions) is resolved by [`RunPlan::resolve`].
#[derive(Debug, Clone)]
pub struct RunPlan<W: Benchmark> {
    /// The database URLs (secrets included: never recorded as they are).
    pub db: Vec<String>,
    /// The database of the analytical terminals, when not `db`
    /// (`--analytic-db`; secrets included: never recorded as it is).
    pub analytic_db: Vec<String>,
    /// The scale asked for; `None`: what is loaded, or the workload's default.
    pub scale: Option<i64>,
    /// The workload's own run options.
    pub options: W::RunOptions,
    /// The measurement interval; with `transactions`, the most it may last.
    pub duration: Duration,
    /// End the window after this many transactions; `None`: it lasts `duration`.
    pub transactions: Option<u64>,
    /// The warm-up before it.
    pub warmup: Duration,
    /// Terminals asked for; `None`: the workload's default.
    pub terminals: Option<usize>,
    /// Sessions asked for; `None`: sized for the run.
    pub connections: Option<usize>,
    /// Keying and think times.
    pub wait: WaitMode,
    /// The run's seed.
    pub seed: u64,
    /// Open loop: offered transactions per second, constant or on a
    /// schedule; `None`: closed loop.
    pub rate: Option<RateSchedule>,
    /// Open loop: the arrival process.
    pub arrival: Arrival,
    /// Open loop: how the dispatchers wait for arrivals.
    pub pacing: Pacing,
    /// Open loop: most transactions waiting in the client.
    pub queue_limit: Option<u64>,
    /// Node affinity of a multi-node run.
    pub affinity: Affinity,
    /// The isolation level; `None`: the database's own.
    pub isolation: Option<Isolation>,
    /// Statements pipelined, or one per round trip.
    pub round_trips: RoundTrips,
    /// Whether the kernel's timestamps of the wire are read too.
    pub timestamps: Timestamps,
    /// Retries of a conflicting transaction.
    pub max_retries: u32,
    /// How long after the window the run waits for the transactions due in it.
    pub grace: Duration,
    /// This process's part of the run.
    pub shard: Shard,
    /// An agreed start time, for shards started together.
    pub start_at: Option<StartAt>,
    /// Commands to run at set times of the run (faults, recoveries).
    pub faults: Vec<PlannedCommand>,
    /// Runs of this plan to make one after another, as one set.
    pub repeat: u32,
    /// Where and how the run reports.
    pub output: Output,
}

/// Where and how a run reports; not a setting of the run.
#[derive(Debug, Clone)]
pub struct Output {
    /// The directory under which the run's results directory is made; `None`:
    /// no results written.
    pub results: Option<PathBuf>,
    /// How often the live progress line shows; `None`: never (`--quiet`).
    pub progress: Option<Duration>,
    /// What the progress line starts with (a sweep's step), if anything.
    pub progress_label: Option<String>,
    /// Where the run's figures are served as OpenMetrics, if anywhere.
    pub metrics: Option<std::net::SocketAddr>,
    /// A NOT SOUND verdict fails the command.
    pub strict: bool,
    /// Keep the acknowledged-work log in the results directory.
    pub ack_log: bool,
    /// Write report.html into the results directory at the end.
    pub report: bool,
}

/// The measurement's length: `--duration`, else a rate schedule's length,
/// else 60 s, or with `--transactions` [`COUNT_LIMIT`]; both given and
/// different is refused.
fn duration_of(a: &RunArgs) -> Result<Duration, Failure> {
    let scheduled = a
        .rate
        .as_ref()
        .and_then(RateSchedule::length_secs)
        .map(Duration::from_secs_f64);
    match (a.duration, scheduled) {
        (Some(d), Some(s)) if d != s => Err(Failure::usage(format!(
            "--duration {} and the --rate schedule's length {} disagree: the schedule sets \
             the run's length, so leave --duration out",
            humantime::format_duration(d),
            humantime::format_duration(s)
        ))),
        (Some(d), _) => Ok(d),
        (None, Some(s)) => Ok(s),
        (None, None) if a.transactions.is_some() => Ok(COUNT_LIMIT),
        (None, None) => Ok(DEFAULT_DURATION),
    }
}

/// The measurement's length when neither `--duration` nor a schedule gives one.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(60);

/// The most a `--transactions` run's window lasts when no `--duration`
/// bounds it: a day, long enough for any count a client can send, and a
/// bound on a run whose database stopped answering.
pub const COUNT_LIMIT: Duration = Duration::from_secs(24 * 3600);

/// A run that ends at its transaction count ends when its own transactions
/// are done: shards started together would not share one window.
fn refuse_count_across_shards(a: &RunArgs) -> Result<(), Failure> {
    match a.transactions {
        Some(n) if a.shards > 1 || a.start_at.is_some() => Err(Failure::usage(format!(
            "--transactions {n} cannot go with --shards or --start-at: each shard would end \
             its window when its own transactions are done, and the shards' windows would \
             differ; give them --duration"
        ))),
        _ => Ok(()),
    }
}

/// Where and how the run reports; the acknowledged-work log needs the
/// results directory it is written in.
/// `--repeat` keeps its runs as a set in turn on one machine: not without a
/// results directory, nor across shards started together.
fn refuse_repeat_without_a_set(a: &RunArgs) -> Result<(), Failure> {
    if a.repeat == 1 {
        return Ok(());
    }
    let conflict = if a.no_results {
        "--no-results (a set is kept in a results directory, for compare)"
    } else if a.shards > 1 || a.start_at.is_some() {
        "--shards or --start-at (a set's runs are made one after another, in one process)"
    } else {
        return Ok(());
    };
    Err(Failure::usage(format!(
        "--repeat {} cannot go with {conflict}",
        a.repeat
    )))
}

fn output_of(a: &RunArgs) -> Result<Output, Failure> {
    if a.ack_log && a.no_results {
        return Err(Failure::usage(
            "--ack-log writes acks.csv into the run's results directory: it cannot go with \
             --no-results",
        ));
    }
    Ok(Output {
        results: (!a.no_results).then(|| a.results.clone()),
        progress: crate::progress::period(a.progress.progress, a.quiet),
        progress_label: None,
        metrics: a.metrics_listen,
        strict: a.strict,
        ack_log: a.ack_log,
        report: !a.no_report,
    })
}

/// What a plan resolves into once its workload is open: the settings
/// recorded and the driver's options.
pub struct Resolved {
    /// The settings, as the results record them.
    pub settings: RunSettings,
    /// How the driver runs them.
    pub driver: driver::RunOptions,
}

impl<W: Benchmark> RunPlan<W> {
    /// The plan of `NAME run`'s flags.
    pub fn of(cmd: &RunCmd<W>) -> Result<Self, Failure> {
        Self::new(&cmd.run, cmd.scale.asked, cmd.options.0.clone())
    }

    /// The plan `run`'s flags ask for, with the workload's scale and options.
    pub fn new(a: &RunArgs, scale: Option<i64>, options: W::RunOptions) -> Result<Self, Failure> {
        let duration = duration_of(a)?;
        refuse_repeat_without_a_set(a)?;
        refuse_count_across_shards(a)?;
        if a.analytic_db.is_some() && W::FRONTIER.is_none() {
            return Err(Failure::usage(format!(
                "--analytic-db: {} has no analytical terminals to run there",
                W::ABOUT.title
            )));
        }
        Ok(RunPlan {
            db: a.db.db.clone(),
            analytic_db: a.analytic_db.iter().cloned().collect(),
            scale,
            options,
            duration,
            transactions: a.transactions,
            warmup: a.warmup,
            terminals: a.terminals.map(|t| t as usize),
            connections: a.connections.map(|c| c as usize),
            wait: a.wait.into(),
            seed: run_seed(a)?,
            rate: a.rate.clone(),
            arrival: a.arrival.into(),
            pacing: a.pacing.into(),
            queue_limit: a.queue_limit,
            affinity: a.affinity.into(),
            isolation: a.isolation.map(crate::cli::IsolationArg::level),
            round_trips: a.round_trips.into(),
            timestamps: a.timestamps.into(),
            max_retries: a.max_retries,
            grace: a.grace,
            shard: shard_of(a)?,
            start_at: a.start_at.map(|at| StartAt {
                at,
                tolerance: a.start_tolerance,
            }),
            faults: crate::faults::plan::plan(
                (&a.fault_at, &a.fault_cmd),
                (&a.recover_at, &a.recover_cmd),
                (a.warmup + duration, a.command_limit),
            )?,
            repeat: a.repeat,
            output: output_of(a)?,
        })
    }

    /// The engine options the run asks for: its isolation level, an SQLite
    /// file shared with the run's other shards, and the workload's name (a
    /// txbench server refuses a client of another workload).
    pub fn engine_options(&self) -> EngineOptions {
        EngineOptions {
            isolation: self.isolation,
            round_trips: self.round_trips,
            timestamps: self.timestamps,
            shared_by_shards: self.shard.count() > 1,
            workload: Some(W::ABOUT.name),
        }
    }

    /// Step `number` (from 1) of a sweep: this plan offered `rate` per
    /// second for `duration`, its progress line labelled `label`, drawing
    /// from a seed of its own made from the plan's. With the plan's seed each
    /// step would replay the inputs of the steps before it on the data they
    /// changed (TATP's inserts of forwardings already there, deletes of ones
    /// gone), and its success rates would be off the workload's.
    pub fn step(&self, number: u32, rate: f64, duration: Duration, label: String) -> Self {
        let mut step = self.clone();
        step.seed = Rand::derive(self.seed, u64::from(number)).uniform(0, i64::MAX) as u64;
        step.rate = Some(RateSchedule::constant(rate));
        step.duration = duration;
        step.output.progress_label = Some(label);
        step
    }

    /// Run `number` (from 1) of a set of `count`: this plan with a seed of
    /// its own made from the plan's (for the reason [`RunPlan::step`] gives),
    /// its progress line labelled with its place in the set.
    pub fn repetition(&self, number: u32, count: u32) -> Self {
        let mut run = self.clone();
        run.seed = Rand::derive(self.seed, u64::from(number)).uniform(0, i64::MAX) as u64;
        run.repeat = 1;
        run.output.progress_label = Some(format!("run {number} of {count}"));
        run
    }

    /// The settings and the driver's options for `workload` opened on an
    /// engine of `nodes` nodes taking `max_writers` writers, with the defaults
    /// that depend on them resolved.
    pub fn resolve(&self, workload: &W, max_writers: usize, nodes: usize) -> Resolved {
        let terminals = self.terminals.unwrap_or(workload.default_terminals());
        // The settings keep the count the user gives (a repeat gives it
        // again); the driver runs the workload's own terminals beside it.
        let driven = terminals + workload.added_terminals();
        let (connections, sizing) = self.pool_size(max_writers, driven, workload);
        let settings = RunSettings {
            scale: Scale {
                unit: W::ABOUT.scale.unit.to_string(),
                value: workload.scale(),
            },
            options: options_map(&self.options),
            duration_secs: self.duration.as_secs_f64(),
            transactions: self.transactions,
            warmup_secs: self.warmup.as_secs_f64(),
            terminals,
            connections,
            connections_sizing: sizing,
            wait: self.wait,
            seed: self.seed,
            load: self.load(),
            max_retries: self.max_retries,
            grace_secs: self.grace.as_secs_f64(),
            affinity: self.affinity,
            isolation: self.isolation,
            round_trips: self.round_trips,
            timestamps: self.timestamps,
            nodes,
            shard_index: self.shard.index(),
            shards: self.shard.count(),
            start_at: self
                .start_at
                .map(|s| humantime::format_rfc3339_millis(s.at).to_string()),
        };
        let driver = driver::RunOptions {
            duration: self.duration,
            transactions: self.transactions,
            warmup: self.warmup,
            terminals: driven,
            connections,
            wait: self.wait,
            seed: self.seed,
            retry: RetryPolicy {
                max_retries: self.max_retries,
                ..RetryPolicy::default()
            },
            affinity: self.affinity == Affinity::Warehouse,
            start_at: self.start_at,
            grace: self.grace,
            open: self.open_loop(),
            // The runner opens the log in the results directory and
            // schedules the faults' commands.
            acks: None,
            schedule: Vec::new(),
        };
        Resolved { settings, driver }
    }

    /// How the load is offered, as the results record it.
    pub fn load(&self) -> Load {
        match &self.rate {
            None => Load::Closed,
            Some(rate) => Load::Open {
                rate: rate.mean_over(self.duration.as_secs_f64()),
                schedule: (!rate.is_constant()).then(|| rate.to_string()),
                arrival: self.arrival,
                pacing: self.pacing,
                queue_limit: self.queue_limit,
            },
        }
    }

    /// The open-loop load the plan offers, if it is open.
    fn open_loop(&self) -> Option<OpenLoop> {
        self.rate.clone().map(|rate| OpenLoop {
            rate,
            arrival: self.arrival,
            queue_limit: self.queue_limit.map(|q| q as usize),
            // One dispatcher per driver thread: the ceiling grows with them.
            dispatchers: tokio::runtime::Handle::try_current()
                .map_or(1, |h| h.metrics().num_workers()),
            pacing: self.pacing,
        })
    }

    /// Sessions for the run and how that number was reached (kept in the
    /// settings). `--connections` decides outright. Closed-loop terminals with
    /// spec waits get a pool sized by Little's law for the rate they offer;
    /// otherwise (back-to-back terminals, always busy, or an open loop) one
    /// session per terminal up to 64. Never more than the engine takes
    /// writers, or than there are terminals; the terminals a workload adds
    /// (analytical streams, which only read) get a session each beyond the
    /// writers. `terminals` counts them.
    fn pool_size(&self, max_writers: usize, terminals: usize, workload: &W) -> (usize, String) {
        use txbench_core::driver::sizing;
        if let Some(c) = self.connections {
            return (c, "--connections".into());
        }
        // The terminals a workload adds only read (analytical streams): they
        // count against no writer limit.
        let added = workload.added_terminals();
        let cap = max_writers.min(terminals - added).max(1) + added;
        let rate = match (self.wait, &self.rate) {
            (WaitMode::Spec, None) => {
                sizing::offered_rate(workload.transaction_types(), terminals - added)
            }
            _ => None,
        };
        let Some(rate) = rate else {
            return (
                cap.min(64),
                "one per terminal, at most 64 and the engine's writers".into(),
            );
        };
        let waiting = sizing::sessions_for(rate, sizing::ASSUMED_HOLD);
        // A terminal the workload adds (an analytical stream) never waits:
        // a session of its own each.
        let wanted = waiting + added;
        let streams = if added > 0 {
            format!(", + {added} added terminals = {wanted}")
        } else {
            String::new()
        };
        let capped = if wanted > cap {
            format!(", capped at {cap}")
        } else {
            String::new()
        };
        (
            wanted.min(cap),
            format!(
                "little's law: {rate:.1} txn/s offered x {} ms hold = {:.1} busy, \
                 + 3 sqrt = {waiting}{streams}{capped}",
                sizing::ASSUMED_HOLD.as_millis(),
                rate * sizing::ASSUMED_HOLD.as_secs_f64(),
            ),
        )
    }
}

/// A workload's options as named values; a workload without options (a unit
/// struct) has none.
pub fn options_map<O: serde::Serialize>(options: &O) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(options) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    }
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
        (None, n, None) => Err(Failure::usage(format!(
            "--shards {n} needs --seed or --start-at: every shard must draw from the run's one seed"
        ))),
    }
}

/// A seed no earlier run used: std's randomly keyed hasher over the clock.
pub(crate) fn fresh_seed() -> u64 {
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

/// This process's shard: `--shard-index`, else $JOB_COMPLETION_INDEX when the
/// run has several shards, of `--shards`.
fn shard_of(a: &RunArgs) -> Result<Shard, Failure> {
    const ENV: &str = "JOB_COMPLETION_INDEX";
    let index = match (a.shard_index, a.shards) {
        (Some(i), _) => i,
        (None, 1) => 0,
        (None, n) => {
            let Ok(v) = std::env::var(ENV) else {
                return Err(Failure::usage(format!(
                    "--shards {n} needs --shard-index (or {ENV}, as a Kubernetes Indexed Job sets it)"
                )));
            };
            match v.trim().parse::<u32>() {
                Ok(i) if i < n => i,
                _ => {
                    return Err(Failure::usage(format!(
                        "{ENV}={v:?} is not a shard index (0..{})",
                        n - 1
                    )));
                }
            }
        }
    };
    Shard::new(index, a.shards).map_err(|e| Failure::usage(e.to_string()))
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use txbench_workloads::retwis::Retwis;
    use txbench_workloads::tatp::Tatp;
    use txbench_workloads::tpcc::Tpcc;

    use super::*;

    /// `run`'s flags as a command line gives them.
    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        run: RunArgs,
    }

    fn plan<W: Benchmark>(flags: &[&str]) -> Result<RunPlan<W>, Failure> {
        let args = Flags::try_parse_from(std::iter::once("run").chain(flags.iter().copied()))
            .expect("flags parse");
        RunPlan::new(&args.run, None, W::RunOptions::default())
    }

    #[test]
    fn flags_become_typed_settings() {
        let p = plan::<Tpcc>(&[
            "--rate=250/s",
            "--arrival=fixed",
            "--queue-limit=9",
            "--seed=7",
            "--isolation=serializable",
            "--affinity=warehouse",
            "-d",
            "2m",
        ])
        .unwrap();
        assert_eq!(p.seed, 7);
        assert_eq!(p.duration, Duration::from_secs(120));
        assert_eq!(p.isolation, Some(Isolation::Serializable));
        assert_eq!(p.affinity, Affinity::Warehouse);
        assert_eq!(
            p.load(),
            Load::Open {
                rate: 250.0,
                schedule: None,
                arrival: Arrival::Fixed,
                pacing: Pacing::Auto,
                queue_limit: Some(9),
            }
        );
        assert_eq!(p.engine_options().isolation, Some(Isolation::Serializable));
        assert_eq!(p.engine_options().workload, Some("tpcc"));
        assert!(p.output.results.is_some());
    }

    #[test]
    fn a_rate_schedule_sets_the_length_and_offers_its_mean() {
        let p = plan::<Tatp>(&["--rate=100/s for 10s, ramp 100..300/s over 10s"]).unwrap();
        assert_eq!(p.duration, Duration::from_secs(20));
        assert_eq!(
            p.load(),
            Load::Open {
                rate: 150.0,
                schedule: Some("100/s for 10s, ramp 100..300/s over 10s".into()),
                arrival: Arrival::Poisson,
                pacing: Pacing::Auto,
                queue_limit: None,
            }
        );
        assert!(plan::<Tatp>(&["--rate=100/s for 10s", "-d", "10s"]).is_ok());
        let Err(Failure::Usage(why)) = plan::<Tatp>(&["--rate=100/s for 10s", "-d", "1m"]) else {
            panic!("a duration that disagrees with the schedule was accepted");
        };
        assert!(
            why.to_string()
                .contains("--duration 1m and the --rate schedule's length 10s disagree"),
            "{why}"
        );
        assert_eq!(
            plan::<Tatp>(&["--rate=5/s"]).unwrap().duration,
            DEFAULT_DURATION
        );
    }

    #[test]
    fn each_step_of_a_sweep_draws_from_a_seed_of_its_own() {
        let plan = plan::<Tatp>(&["--seed=7"]).unwrap();
        let step = |n| {
            plan.step(n, 1000.0, Duration::from_secs(1), String::new())
                .seed
        };
        let seeds: std::collections::BTreeSet<u64> = (1..=20).map(step).collect();
        assert_eq!(seeds.len(), 20);
        assert!(!seeds.contains(&7));
        // The same plan's steps again: a sweep with --seed repeats.
        assert_eq!(step(3), step(3));
        assert!(seeds.iter().all(|s| *s <= i64::MAX as u64));
    }

    #[test]
    fn a_run_without_a_seed_gets_a_fresh_one() {
        let (a, b) = (plan::<Tpcc>(&[]).unwrap(), plan::<Tpcc>(&[]).unwrap());
        assert_ne!(a.seed, b.seed);
        assert!(
            a.seed <= i64::MAX as u64,
            "config.toml keeps it as a TOML integer"
        );
    }

    #[test]
    fn shards_share_a_seed_made_from_their_start_time() {
        let flags = [
            "--shards=3",
            "--shard-index=2",
            "--start-at=2026-01-01T00:00:00Z",
        ];
        let (a, b) = (plan::<Tpcc>(&flags).unwrap(), plan::<Tpcc>(&flags).unwrap());
        assert_eq!(a.seed, b.seed);
        let mut later = flags;
        later[2] = "--start-at=2026-01-01T00:00:01Z";
        assert_ne!(
            plan::<Tpcc>(&later).unwrap().seed,
            a.seed,
            "the next run draws anew"
        );
        assert_eq!((a.shard.index(), a.shard.count()), (2, 3));
        assert!(a.engine_options().shared_by_shards);
    }

    #[test]
    fn shards_without_a_seed_or_a_start_are_refused_by_name() {
        let Err(Failure::Usage(why)) = plan::<Tpcc>(&["--shards=2", "--shard-index=0"]) else {
            panic!("a shard set without one seed was accepted");
        };
        assert!(
            why.to_string()
                .contains("--shards 2 needs --seed or --start-at"),
            "{why}"
        );
    }

    #[test]
    fn a_shard_index_outside_the_set_is_refused() {
        let Err(Failure::Usage(why)) = plan::<Tpcc>(&["--shards=2", "--shard-index=2", "--seed=1"])
        else {
            panic!("shard 2 of 2 was accepted");
        };
        assert!(
            why.to_string()
                .contains("shard index 2 is not below --shards 2"),
            "{why}"
        );
    }

    #[test]
    fn a_sweep_step_is_the_plan_offered_one_rate_with_its_label() {
        let p = plan::<Retwis>(&["--seed=3", "--arrival=uniform", "--pacing=spin"]).unwrap();
        assert_eq!(p.load(), Load::Closed);
        let step = p.step(2, 500.0, Duration::from_secs(4), "step 2".into());
        assert_eq!(
            step.load(),
            Load::Open {
                rate: 500.0,
                schedule: None,
                arrival: Arrival::Uniform,
                pacing: Pacing::Spin,
                queue_limit: None,
            }
        );
        assert_eq!(step.duration, Duration::from_secs(4));
        assert_eq!(step.output.progress_label.as_deref(), Some("step 2"));
        assert_eq!(step.output.progress, p.output.progress);
        assert_ne!(step.seed, 3, "a step draws from a seed of its own");
    }

    #[test]
    fn workload_options_are_recorded_by_name() {
        let options = txbench_workloads::retwis::options::RetwisRunOptions { zipf: 0.75 };
        let map = options_map(&options);
        assert_eq!(map.get("zipf"), Some(&serde_json::json!(0.75)));
        assert!(options_map(&txbench_workloads::NoOptions {}).is_empty());
    }

    #[test]
    fn no_results_leaves_no_directory_to_write() {
        let p = plan::<Tpcc>(&["--no-results", "--strict", "-q"]).unwrap();
        assert!(p.output.results.is_none());
        assert!(p.output.strict && p.output.progress.is_none());
    }
}
