//! The command line: raw flags, parsed by clap. Every workload's commands come
//! from the registry ([`workload`]); a run's flags are validated into a typed
//! plan in [`crate::plan`].

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use txbench_core::settings;

pub mod flags;
pub mod help;
mod rates;
pub mod workload;

use rates::{parse_rate, parse_rate_range, parse_rate_schedule};
use workload::ServedScales;
pub use workload::{AllInOneArgs, Chosen, LoadArgs, Sweeps, Verb, Verbs, WorkloadArgs};

/// txbench: the standard OLTP workloads against any database, with honest numbers.
#[derive(Debug, Parser)]
#[command(name = "txbench", version, about, long_about = None, propagate_version = true, after_help = help::TOP)]
pub struct Cli {
    /// Read flags from a TOML file whose keys mirror the flags (`duration =
    /// "30s"`, `terminals = 32`); flags given on the command line win.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Threads of the driver's async runtime. 1 (the default) runs every terminal on
    /// one thread, which costs the least per transaction when the database works on
    /// other threads (embedded SQLite); raise it for tens of thousands of network
    /// transactions per second.
    #[arg(long, global = true, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub driver_threads: u32,

    /// The workload to run.
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parse a command line, or print clap's message and exit 2 (0 for
    /// `--help` and `--version`).
    pub fn parse_args<I, T>(args: I) -> Cli
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        Cli::try_parse_args(args).unwrap_or_else(|e| e.exit())
    }

    /// Parse a command line. Negative numbers are taken as values, so that
    /// `--terminals -1` is refused naming the flag and its range rather than
    /// as an "unexpected argument '-1'".
    pub fn try_parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches =
            without_run_flags(negatives_as_values(Cli::command())).try_get_matches_from(args)?;
        Cli::from_arg_matches(&matches)
    }
}

/// The commands that read results take no run: their help does not show the
/// global flags that only a run uses. Each gets hidden ones of the same
/// names, which clap's propagation then leaves alone, so a `--config` file
/// or a habit of `--driver-threads` is still accepted there.
fn without_run_flags(mut cmd: clap::Command) -> clap::Command {
    for name in ["report", "compare", "merge"] {
        cmd = cmd.mut_subcommand(name, |sub| {
            sub.arg(
                clap::Arg::new("driver_threads")
                    .long("driver-threads")
                    .hide(true)
                    .value_parser(clap::value_parser!(u32).range(1..=1024)),
            )
            .arg(
                clap::Arg::new("config")
                    .long("config")
                    .hide(true)
                    .value_parser(clap::value_parser!(PathBuf)),
            )
        });
    }
    cmd
}

/// Every flag that takes a value, in every subcommand, takes a negative number too.
fn negatives_as_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        let takes_value = a.get_action().takes_values();
        a.allow_negative_numbers(takes_value)
    })
    .mut_subcommands(negatives_as_values)
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The workloads of the registry: `txbench tpcc [VERB]`, `txbench tatp ...`.
    #[command(flatten)]
    Workload(Chosen<Verbs>),
    /// Serve a workload's transactions over TCP (the txbench transaction server):
    /// clients run with `--db txbench://HOST:PORT`; loads the database first if needed.
    #[command(after_help = help::SERVE)]
    Serve(ServeArgs),
    /// Find capacity: run open-loop steps of rising rate until a latency objective
    /// fails, refine, and report the highest rate that met it and whose limit
    /// stopped it (the database's, or the client's).
    Sweep(SweepCommand),
    /// Calibrate on this machine: run the simulated engine (sim:) where theory
    /// gives the truth, print measured against theory and whether each verdict
    /// was right, and the client's own noise floor; exit 3 when this machine
    /// cannot measure soundly at --rate.
    #[command(after_help = help::SELFTEST)]
    Selftest(SelftestArgs),
    /// Re-render a results directory: print its summary and write its report.html.
    #[command(after_help = help::REPORT)]
    Report(ReportArgs),
    /// Compare runs, or sets of runs (`run --repeat N`), side by side: throughput,
    /// percentiles, errors, and changes in % against the first, judged against
    /// the noise between runs where sets measured it.
    #[command(after_help = help::COMPARE)]
    Compare(CompareArgs),
    /// Merge runs made in parallel (one per client machine) into one result:
    /// histograms added, rates recomputed over the common measurement interval.
    #[command(after_help = help::MERGE)]
    Merge(MergeArgs),
}

/// Flags of `report`.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// A results directory (of a run, a sweep, or a merge).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Write report.html only; print nothing but its path.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Flags of `compare`.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Results directories; the first is the baseline.
    #[arg(value_name = "DIR", num_args = 2.., required = true)]
    pub dirs: Vec<PathBuf>,
    /// Also write the comparison as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Between sets: a change beyond the run-to-run noise but smaller than
    /// this (in %) is "within threshold", too small to call better or worse.
    #[arg(long, default_value_t = 1.0, value_parser = parse_threshold, value_name = "PCT")]
    pub threshold: f64,
    /// A set (`run --repeat`) of the same plan on this machine: two single
    /// runs are judged against the noise between its runs, which one run
    /// each cannot show.
    #[arg(long, value_name = "SET")]
    pub noise: Option<PathBuf>,
}

/// Flags of `selftest`.
#[derive(Debug, Clone, Args)]
pub struct SelftestArgs {
    /// The rate this machine must measure soundly (e.g. 20000/s): the client's
    /// noise floor is measured there too, and the exit status is 3 when it
    /// cannot.
    #[arg(long, value_parser = parse_rate, value_name = "RATE", default_value = "10000/s", allow_hyphen_values = true)]
    pub rate: f64,
    /// Length of each case's measurement (its warm-up is a second more).
    #[arg(long, default_value = "10s", value_parser = parse_positive_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Run every case this many times and print the false alarms and misses
    /// (the calibration table of docs/measurement.md).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Measure only the client's noise floor (can this machine hold --rate?),
    /// not the calibration cases.
    #[arg(long, conflicts_with = "repeat")]
    pub floor_only: bool,
    /// Also write every case's outcome as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// Flags of `merge`.
#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// Results directories of runs made at the same time.
    #[arg(value_name = "DIR", num_args = 2.., required = true)]
    pub dirs: Vec<PathBuf>,
    /// The merged results directory to write.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: PathBuf,
}

/// `txbench sweep WORKLOAD`.
#[derive(Debug, Args)]
pub struct SweepCommand {
    /// The workload to sweep.
    #[command(subcommand)]
    pub workload: Chosen<Sweeps>,
}

/// Flags of `serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// The workload to serve, by its command's name (tpcc, tatp, ...) or a
    /// shipped workload file's (smallbank, sibench, noop).
    #[arg(long, value_parser = workload::parse_served, required_unless_present = "workload_file")]
    pub workload: Option<String>,
    /// A workload file to serve (docs/workload-file.md): the custom workload
    /// it defines; clients run `txbench custom run --file` with the same file.
    #[arg(long, value_name = "FILE", conflicts_with = "workload")]
    pub workload_file: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub scales: ServedScales,
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1:7077", value_name = "ADDR")]
    pub listen: std::net::SocketAddr,
    /// Sessions executing transactions (default: the cores, or what the engine allows writers).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub workers: Option<u32>,
    /// Isolation level of the transactions served (default: the database's own).
    #[arg(long, value_enum)]
    pub isolation: Option<IsolationArg>,
    /// Token clients must present (default: the TXBENCH_TOKEN variable; none: no check).
    #[arg(long)]
    pub token: Option<String>,
    /// Connections served at once; more are refused (each holds at most
    /// 64 KiB of a request and 256 unanswered replies).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_connections: u32,
    /// How long a stop (Ctrl-C, SIGTERM) waits for clients to take their
    /// last answers before it closes their connections.
    #[arg(long, default_value = "5s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub grace: Duration,
    #[command(flatten)]
    pub load: LoadExtras,
}

/// A latency objective: a percentile of every transaction type at or under a limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slo {
    /// The percentile, 0..100.
    pub percentile: f64,
    /// The limit in milliseconds.
    pub limit_ms: f64,
}

/// Flags of every sweep.
#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// The range of offered rates, e.g. 500..8000 (per second).
    #[arg(long, value_parser = parse_rate_range, value_name = "FROM..TO", allow_hyphen_values = true, required_unless_present = "frontier")]
    pub rates: Option<(f64, f64)>,
    /// Rate added per step (per second).
    #[arg(long, value_parser = parse_rate, allow_hyphen_values = true, required_unless_present = "frontier")]
    pub step: Option<f64>,
    /// Instead of rates: closed-loop steps with each of these numbers of the
    /// workload's second kind of terminals (the CH-benCHmark's analytical
    /// streams), e.g. 0,1,2,4, drawing each side's throughput against the
    /// other's (the frontier: tpmC against QphH).
    #[arg(long, value_delimiter = ',', value_name = "A,A,...", conflicts_with_all = ["rates", "step", "slo", "keep_going"])]
    pub frontier: Vec<usize>,
    /// With --frontier: the terminal counts of the first kind to cross with
    /// it (e.g. 4,8); default: --terminals, or the workload's default.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "T,T,...",
        requires = "frontier"
    )]
    pub frontier_terminals: Vec<usize>,
    /// Measurement time of each step.
    #[arg(long, default_value = "30s", value_parser = parse_positive_duration, allow_hyphen_values = true)]
    pub step_duration: Duration,
    /// The latency objective, e.g. 'p99<=10ms' (every transaction type must
    /// meet it). Without one, a step passes when the database took the
    /// offered load with a sound measurement: the sweep draws latency against
    /// rate and finds the highest rate taken, not a capacity under an
    /// objective.
    #[arg(long, value_parser = parse_slo)]
    pub slo: Option<Slo>,
    /// Go on past a step where only the client fell behind (it sent late
    /// while the database met the objective), instead of stopping there:
    /// the steps above show what the database does while the client is late.
    #[arg(long)]
    pub keep_going: bool,
    /// Steps of refinement between the last passing and the first failing rate.
    #[arg(long, default_value_t = 2)]
    pub refine: u32,
}

/// Where the database is.
#[derive(Debug, Clone, Args)]
pub struct DbArgs {
    /// Database URL: sqlite::memory: (in this process only), sqlite:path.db,
    /// postgres://user:pw@host:port[,host2...]/db[?sslmode=...] (PostgreSQL,
    /// CockroachDB, YugabyteDB), mysql://user:pw@host:port/db (MySQL, MariaDB,
    /// TiDB), redis://host:port[/db] (key-value workloads: Retwis, YCSB, and
    /// workload files in the key-value form; etcd://host:port the same when
    /// built with the etcd feature),
    /// txbench://host:port (a `txbench serve`), null: (no database: the
    /// client's own cost), sim:... (a simulated server of known latency, see
    /// selftest). Give it once per node of a cluster to spread the sessions
    /// over the nodes.
    #[arg(long, default_value = "sqlite::memory:", value_name = "URL", action = clap::ArgAction::Append)]
    pub db: Vec<String>,
}

impl std::fmt::Display for DbArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let urls: Vec<String> = self.db.iter().map(|u| txbench_engines::redact(u)).collect();
        f.write_str(&urls.join(" "))
    }
}

/// Whether terminals wait as the specification says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WaitArg {
    /// Back to back.
    None,
    /// Keying and think times of clause 5.2.5.7.
    Spec,
}

/// How terminals' work is placed on the nodes of a multi-node database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AffinityArg {
    /// Sessions spread over the nodes in turn; any session takes any terminal's work.
    Off,
    /// Each terminal's transactions go to one node, chosen by its home warehouse
    /// ((warehouse - 1) mod nodes), as partition-aware clients do.
    Warehouse,
}

/// How open-loop dispatchers wait for arrivals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PacingArg {
    /// Sleep at ordinary rates, spin where gaps are shorter than a wake-up.
    Auto,
    /// A thread per dispatcher that sleeps until each arrival.
    Sleep,
    /// A task per dispatcher that yields until each arrival.
    Spin,
}

/// Arrival processes of an open-loop run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ArrivalArg {
    /// Exponential gaps (a Poisson process).
    Poisson,
    /// Gaps uniform in [0, 2 / rate].
    Uniform,
    /// Equal gaps.
    Fixed,
}

impl From<WaitArg> for settings::WaitMode {
    fn from(w: WaitArg) -> Self {
        match w {
            WaitArg::None => settings::WaitMode::None,
            WaitArg::Spec => settings::WaitMode::Spec,
        }
    }
}

impl From<AffinityArg> for settings::Affinity {
    fn from(a: AffinityArg) -> Self {
        match a {
            AffinityArg::Off => settings::Affinity::Off,
            AffinityArg::Warehouse => settings::Affinity::Warehouse,
        }
    }
}

impl From<PacingArg> for settings::Pacing {
    fn from(p: PacingArg) -> Self {
        match p {
            PacingArg::Auto => settings::Pacing::Auto,
            PacingArg::Sleep => settings::Pacing::Sleep,
            PacingArg::Spin => settings::Pacing::Spin,
        }
    }
}

impl From<ArrivalArg> for settings::Arrival {
    fn from(a: ArrivalArg) -> Self {
        match a {
            ArrivalArg::Poisson => settings::Arrival::Poisson,
            ArrivalArg::Uniform => settings::Arrival::Uniform,
            ArrivalArg::Fixed => settings::Arrival::Fixed,
        }
    }
}

/// Transaction isolation levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IsolationArg {
    /// READ COMMITTED.
    ReadCommitted,
    /// REPEATABLE READ (snapshot isolation on PostgreSQL).
    RepeatableRead,
    /// SERIALIZABLE.
    Serializable,
}

impl IsolationArg {
    /// The level in the core's terms.
    pub fn level(self) -> txbench_core::Isolation {
        match self {
            IsolationArg::ReadCommitted => txbench_core::Isolation::ReadCommitted,
            IsolationArg::RepeatableRead => txbench_core::Isolation::RepeatableRead,
            IsolationArg::Serializable => txbench_core::Isolation::Serializable,
        }
    }
}

/// `--round-trips`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoundTripsArg {
    /// Independent statements in one round trip, BEGIN with the first.
    Pipelined,
    /// One prepared statement per round trip, BEGIN its own.
    Statement,
}

impl From<RoundTripsArg> for txbench_core::RoundTrips {
    fn from(a: RoundTripsArg) -> Self {
        match a {
            RoundTripsArg::Pipelined => txbench_core::RoundTrips::Pipelined,
            RoundTripsArg::Statement => txbench_core::RoundTrips::Statement,
        }
    }
}

/// `--timestamps`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TimestampsArg {
    /// The client's clock only: latency from the intended start.
    Client,
    /// Also the kernel's timestamps of the bytes on the wire.
    Kernel,
}

impl From<TimestampsArg> for txbench_core::Timestamps {
    fn from(a: TimestampsArg) -> Self {
        match a {
            TimestampsArg::Client => txbench_core::Timestamps::Client,
            TimestampsArg::Kernel => txbench_core::Timestamps::Kernel,
        }
    }
}

/// Flags of `run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Length of the measurement interval (e.g. 60s, 2m) [default: 60s, or
    /// the length of a --rate schedule].
    #[arg(long, short = 'd', value_parser = parse_positive_duration, allow_hyphen_values = true)]
    pub duration: Option<Duration>,
    /// Warm-up before measurement (not measured).
    #[arg(long, default_value = "5s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub warmup: Duration,
    /// End the measurement once this many transactions due in it have ended
    /// (all terminals together; YCSB's operationcount, sysbench's --events;
    /// `--operations` is the same flag): the window is the time they took,
    /// and --duration, if given, is the most it may last [default: no count,
    /// the window lasts --duration].
    #[arg(long, alias = "operations", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub transactions: Option<u64>,
    /// Terminals (default: 10 per warehouse, as the specification has).
    #[arg(long, short = 't', value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub terminals: Option<u32>,
    /// Database sessions shared by the terminals. Default: with --wait spec, a
    /// pool sized by Little's law for the rate the terminals offer (see
    /// connections_sizing in the results); otherwise one per terminal up to
    /// 64; never more than the engine takes writers (1 for SQLite), but for
    /// the CH-benCHmark's analytical streams, which only read: a session each
    /// beyond them.
    #[arg(long, short = 'c', value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub connections: Option<u32>,
    /// Run the workload's analytical terminals (the CH-benCHmark's streams)
    /// on this database instead, a session each, while the others stay on
    /// --db: a replica of it, of the same engine (its freshness then shows
    /// the replication lag).
    #[arg(long, value_name = "URL")]
    pub analytic_db: Option<String>,
    /// Keying and think times: none (back to back) or spec.
    #[arg(long, value_enum, default_value_t = WaitArg::None)]
    pub wait: WaitArg,
    /// Seed of the run's random streams (inputs, C-Run). Default: a fresh one per
    /// run (recorded in the results), so a second run on the same database does
    /// not replay the first one's inserts and deletes.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Open loop: offered transactions per second (e.g. 3000/s, 180000/min),
    /// or a schedule of holds and ramps over the measurement ('1000/s for 1m,
    /// ramp 1000..4000/s over 2m, 4000/s for 1m'; its length is the run's
    /// duration, the warm-up offers its first rate); transactions start on
    /// schedule whatever the database does, and latency counts from the
    /// scheduled time. Without it, terminals run closed-loop.
    #[arg(long, value_parser = parse_rate_schedule, value_name = "RATE", allow_hyphen_values = true)]
    pub rate: Option<txbench_core::driver::RateSchedule>,
    /// Open loop: the arrival process.
    #[arg(long, value_enum, default_value_t = ArrivalArg::Poisson)]
    pub arrival: ArrivalArg,
    /// Open loop: how the dispatchers wait for each arrival. sleep: a thread per
    /// dispatcher sleeps until it is due (little CPU, but each wake-up can come
    /// late on a busy or virtual machine); spin: a task beside the sessions
    /// yields until it is due (a core per dispatcher, punctual); auto: sleep
    /// below 4,000/s per dispatcher, spin from there.
    #[arg(long, value_enum, default_value_t = PacingArg::Auto)]
    pub pacing: PacingArg,
    /// Open loop: most transactions waiting in the client for a session; more
    /// are shed and counted (default: no limit).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub queue_limit: Option<u64>,
    /// With several --db URLs: keep each terminal's work on the node of its home
    /// warehouse, or spread it over all nodes.
    #[arg(long, value_enum, default_value_t = AffinityArg::Off)]
    pub affinity: AffinityArg,
    /// Isolation level of the transactions (default: the database's own).
    #[arg(long, value_enum)]
    pub isolation: Option<IsolationArg>,
    /// How the sessions talk to a network database: pipelined (statements
    /// that do not depend on each other in one round trip, BEGIN with the
    /// first) or statement (one prepared statement per round trip, BEGIN its
    /// own: how JDBC, lib/pq and go-tpc clients talk, for comparing with
    /// their published numbers).
    #[arg(long, value_enum, default_value_t = RoundTripsArg::Pipelined)]
    pub round_trips: RoundTripsArg,
    /// kernel: read each transaction's time on the wire from the kernel's
    /// timestamps of its bytes (Linux SO_TIMESTAMPING; txbench:// and
    /// postgres:// over TCP), next to the latency the client measures, and
    /// report the difference as the client's own share; client: the
    /// client's clock only.
    #[arg(long, value_enum, default_value_t = TimestampsArg::Client)]
    pub timestamps: TimestampsArg,
    /// Retries of a transaction that hits a conflict before it counts as an error.
    #[arg(long, default_value_t = 5)]
    pub max_retries: u32,
    /// How long after the measurement window the run waits for the
    /// transactions due in it; those still queued or unanswered then count as
    /// unfinished, with the time they waited as a lower bound of their latency.
    #[arg(long, default_value = "5s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub grace: Duration,
    /// Exit with status 3 when the run completes but its verdict is NOT SOUND
    /// (the results are written all the same), so that scripts can gate on it.
    #[arg(long)]
    pub strict: bool,
    /// Split the run across this many client processes: each drives a
    /// contiguous part of the scale (TPC-C warehouses, TATP subscribers, Retwis
    /// keys) and writes its own results; `txbench merge` adds them up.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub shards: u32,
    /// This process's shard, 0..SHARDS-1. Default: $JOB_COMPLETION_INDEX (set
    /// by a Kubernetes Indexed Job) when --shards is above 1.
    #[arg(long, value_name = "I")]
    pub shard_index: Option<u32>,
    /// Start the run (its warm-up) at this wall-clock time, RFC 3339 (e.g.
    /// 2026-12-01T10:00:00Z), so that the shards share one measurement window.
    #[arg(long, value_parser = parse_start_at, value_name = "TIME")]
    pub start_at: Option<SystemTime>,
    /// How late past --start-at a process may be ready before it refuses to run
    /// (and records why in refused.json).
    #[arg(long, default_value = "1s", value_parser = parse_duration, allow_hyphen_values = true)]
    pub start_tolerance: Duration,
    /// Directory under which each run writes its results.
    #[arg(long, default_value = "results", value_name = "DIR")]
    pub results: PathBuf,
    /// Do not write a results directory.
    #[arg(long)]
    pub no_results: bool,
    /// Make this many runs of the same plan, one after another, each with a
    /// seed of its own, and keep them as one set (a directory holding each
    /// run's results and set.json): `compare` of two sets judges a change
    /// against the noise between runs, which one run cannot show.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Do not write report.html at the end of the run (`txbench report DIR`
    /// writes it later).
    #[arg(long)]
    pub no_report: bool,
    /// Keep the acknowledged-work log: every transaction that wrote, with what
    /// it wrote and whether the database acknowledged it, left it in doubt or
    /// rolled it back, in acks.csv in the results directory, for `verify`.
    #[arg(long)]
    pub ack_log: bool,
    /// Inject a fault this long after the run starts (warm-up included): run
    /// the matching --fault-cmd then. Repeat both for several faults; each
    /// fault's cost (the outage, throughput and p99 around it, the time to
    /// recover 90% of the throughput before it) goes into the results.
    #[arg(long, value_parser = parse_duration, value_name = "TIME", allow_hyphen_values = true)]
    pub fault_at: Vec<Duration>,
    /// The command (run by `sh -c`) that injects the fault of the matching
    /// --fault-at; its output and exit status are kept in the results.
    #[arg(long, value_name = "CMD")]
    pub fault_cmd: Vec<String>,
    /// Undo a fault this long after the run starts: run the matching
    /// --recover-cmd then.
    #[arg(long, value_parser = parse_duration, value_name = "TIME", allow_hyphen_values = true)]
    pub recover_at: Vec<Duration>,
    /// The command (run by `sh -c`) of the matching --recover-at.
    #[arg(long, value_name = "CMD")]
    pub recover_cmd: Vec<String>,
    /// How long a fault or recovery command may run: past it, the command
    /// and every process it started in its group are killed, and its results
    /// say so.
    #[arg(long, default_value = "120s", value_parser = parse_positive_duration, value_name = "DURATION")]
    pub command_limit: Duration,
    /// No live progress line.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub progress: ProgressArg,
    /// Serve the run's figures as OpenMetrics at http://ADDR/metrics while it
    /// runs (committed, rollbacks, retries, errors by kind, in flight, client
    /// queue, latency histogram, last second's p50/p99, the headline figures),
    /// for Prometheus and docs/grafana/txbench.json. A port alone listens on
    /// loopback (9187 is 127.0.0.1:9187); give 0.0.0.0:9187 to be scraped
    /// from elsewhere.
    #[arg(long, value_parser = parse_listen, value_name = "ADDR")]
    pub metrics_listen: Option<std::net::SocketAddr>,
}

/// `--progress`: how often the live line shows.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ProgressArg {
    /// How often the live progress line shows its figures (over that
    /// period): redrawn in place on a terminal, a line each when stderr is
    /// piped (default: 1s on a terminal, 10s when piped).
    #[arg(long, value_parser = parse_progress, value_name = "DURATION", allow_hyphen_values = true)]
    pub progress: Option<Duration>,
}

/// How to load: flags of `load` and of the all-in-one forms.
#[derive(Debug, Clone, Default, Args)]
pub struct LoadExtras {
    /// Threads generating rows (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Replace the workload's data already in the database.
    #[arg(long)]
    pub drop: bool,
    /// Add the workload's foreign keys after the data (TPC-C's and TATP's; not on SQLite).
    #[arg(long)]
    pub foreign_keys: bool,
}

/// The longest duration any flag takes: a run longer than 30 days is a typo.
const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(s)
        .map_err(|e| format!("invalid duration '{s}': {e} (examples: 30s, 2m, 1h)"))?;
    if d > MAX_DURATION {
        return Err(format!(
            "invalid duration '{s}': longer than the limit of {}",
            humantime::format_duration(MAX_DURATION)
        ));
    }
    Ok(d)
}

fn parse_slo(s: &str) -> Result<Slo, String> {
    let bad =
        || format!("invalid objective '{s}': expected a percentile and a limit such as p99<=10ms");
    let (p, limit) = s.split_once("<=").ok_or_else(bad)?;
    let percentile: f64 = p
        .trim()
        .strip_prefix('p')
        .ok_or_else(bad)?
        .parse()
        .map_err(|_| bad())?;
    if !(0.0..100.0).contains(&percentile) || percentile <= 0.0 {
        return Err(bad());
    }
    let limit = humantime::parse_duration(limit.trim()).map_err(|_| bad())?;
    Ok(Slo {
        percentile,
        limit_ms: limit.as_secs_f64() * 1000.0,
    })
}

/// `compare --threshold`: a percentage, 0 or more.
fn parse_threshold(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(v) if (0.0..=1000.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "invalid threshold '{s}': a percentage from 0 to 1000, such as 1 or 2.5%"
        )),
    }
}

fn parse_start_at(s: &str) -> Result<SystemTime, String> {
    let at = humantime::parse_rfc3339_weak(s).map_err(|e| {
        format!("invalid start time '{s}': {e} (an RFC 3339 time such as 2026-12-01T10:00:00Z)")
    })?;
    // A run that would wait longer than the longest run is a typo.
    if at > SystemTime::now() + MAX_DURATION {
        return Err(format!(
            "invalid start time '{s}': more than {} ahead",
            humantime::format_duration(MAX_DURATION)
        ));
    }
    Ok(at)
}

/// `--metrics-listen`: an address, or a port alone (`9187`, `:9187`) on loopback.
fn parse_listen(s: &str) -> Result<std::net::SocketAddr, String> {
    let port = s.strip_prefix(':').unwrap_or(s);
    if let Ok(port) = port.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    s.parse().map_err(|_| {
        format!(
            "invalid listen address '{s}': expected a port (9187) or an address and port \
             (127.0.0.1:9187, [::1]:9187)"
        )
    })
}

/// `--progress`: whole seconds at least (the driver's figures come a
/// second at a time).
fn parse_progress(s: &str) -> Result<Duration, String> {
    let d = parse_positive_duration(s)?;
    if d < Duration::from_secs(1) || d.subsec_nanos() != 0 {
        return Err(format!(
            "invalid progress period '{s}': whole seconds, 1s or more (the figures come a \
             second at a time)"
        ));
    }
    Ok(d)
}

fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err(format!(
            "invalid duration '{s}': it must be longer than zero"
        )),
        d => Ok(d),
    }
}
