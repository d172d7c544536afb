//! The flags of every workload's commands, written once and generic over the
//! workload: `txbench NAME [load|run|check|verify|acid|clean]` and `txbench sweep NAME`
//! for each workload of the registry, the scale flag named by the workload
//! (`--warehouses`, `--subscribers`, `--keys`) and its own options flattened in.

use std::fmt::Debug;
use std::marker::PhantomData;

use clap::{ArgMatches, Args, Command, FromArgMatches, Subcommand};
use txbench_workloads::capability::{Acid, Check, Verify};
use txbench_workloads::registry::{self, EachVisitor};
use txbench_workloads::{About, Benchmark};

use super::flags::Flags;
use super::help::{self, Form as HelpForm, examples, tailor_load_flags, tailor_run_flags};
use super::{DbArgs, IsolationArg, LoadExtras, ProgressArg, RunArgs, SweepArgs};

/// `txbench NAME [VERB]`: a verb, or without one load (if needed), run and
/// report.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WorkloadArgs<W: Benchmark> {
    /// What to do; without one, load (if needed), run and report.
    #[command(subcommand)]
    pub verb: Option<Verb<W>>,
    /// Flags of load and run, for the all-in-one form.
    #[command(flatten)]
    pub all: AllInOneArgs<W>,
}

/// A workload's verbs; `check` only for a workload that has a check.
// One value per command line: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Verb<W: Benchmark> {
    /// Create the schema and load the data.
    Load(LoadArgs<W>),
    /// Drive the mix and report.
    Run(RunCmd<W>),
    /// Verify the consistency conditions.
    Check(TablesArgs<W>),
    /// Hold a run's acknowledged-work log against the database.
    Verify(VerifyArgs),
    /// Run the specification's ACID tests.
    Acid(AcidArgs),
    /// Drop the workload's tables.
    Clean(TablesArgs<W>),
}

/// Flags of `NAME check` and `NAME clean`: the database, and what the
/// workload is (a workload file's `--file`).
#[derive(Debug, Clone, Args)]
pub struct TablesArgs<W: Benchmark> {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub definition: Flags<W::Definition>,
    /// Give up after DURATION (e.g. 10m): the statement in progress is
    /// stopped at the database, and the command fails. Ctrl-C and SIGTERM
    /// stop it the same way at any time. Default: no limit.
    #[arg(long, value_name = "DURATION", value_parser = crate::cli::parse_duration)]
    pub timeout: Option<std::time::Duration>,
}

/// Flags of `NAME verify`.
#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// The run's results directory (its acks.csv), or the log file itself.
    #[arg(value_name = "RESULTS")]
    pub results: std::path::PathBuf,
    /// Also write the findings as JSON to FILE (per type, with examples).
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,
}

/// Flags of `NAME acid`.
#[derive(Debug, Clone, Args)]
pub struct AcidArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Isolation level of the transactions (default: the database's own); the
    /// reads-repeat and phantom tests are judged by what the level promises.
    #[arg(long, value_enum)]
    pub isolation: Option<IsolationArg>,
    /// Seed of the tests' choices (warehouses, districts, customers, items).
    /// Default: a fresh one, printed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Length of the durability test's run (after a 1 s warm-up).
    #[arg(long, short = 'd', default_value = "8s", value_parser = super::parse_positive_duration, allow_hyphen_values = true)]
    pub duration: std::time::Duration,
    /// The durability test: crash the database this long into its run
    /// (warm-up included), with the matching --fault-cmd. Without one the
    /// test is skipped.
    #[arg(long, value_parser = super::parse_duration, value_name = "TIME", allow_hyphen_values = true)]
    pub fault_at: Vec<std::time::Duration>,
    /// The command (run by `sh -c`) that crashes the database.
    #[arg(long, value_name = "CMD")]
    pub fault_cmd: Vec<String>,
    /// Bring the database back this long into the run, with the matching
    /// --recover-cmd.
    #[arg(long, value_parser = super::parse_duration, value_name = "TIME", allow_hyphen_values = true)]
    pub recover_at: Vec<std::time::Duration>,
    /// The command (run by `sh -c`) that brings the database back.
    #[arg(long, value_name = "CMD")]
    pub recover_cmd: Vec<String>,
    /// Directory under which the tests write their results (acid.json and
    /// the durability run's directory).
    #[arg(long, default_value = "results", value_name = "DIR")]
    pub results: std::path::PathBuf,
    /// Also write the report as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,
}

/// Flags of `NAME load`.
#[derive(Debug, Clone, Args)]
pub struct LoadArgs<W: Benchmark> {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub definition: Flags<W::Definition>,
    #[command(flatten)]
    pub scale: LoadScale<W>,
    /// Seed of the population: every row, and every constant the load draws,
    /// derive from it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub options: Flags<W::LoadOptions>,
    #[command(flatten)]
    pub load: LoadExtras,
    #[command(flatten)]
    pub progress: ProgressArg,
}

/// Flags of `NAME run`.
#[derive(Debug, Clone, Args)]
pub struct RunCmd<W: Benchmark> {
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub definition: Flags<W::Definition>,
    #[command(flatten)]
    pub scale: RunScale<W>,
    #[command(flatten)]
    pub options: Flags<W::RunOptions>,
}

/// Flags of `NAME` without a verb: those of load and run together.
#[derive(Debug, Clone, Args)]
pub struct AllInOneArgs<W: Benchmark> {
    #[command(flatten)]
    pub run: RunCmd<W>,
    #[command(flatten)]
    pub options: Flags<W::LoadOptions>,
    #[command(flatten)]
    pub load: LoadExtras,
}

/// Flags of `sweep NAME`.
#[derive(Debug, Clone, Args)]
pub struct SweepCmd<W: Benchmark> {
    #[command(flatten)]
    pub sweep: SweepArgs,
    #[command(flatten)]
    pub definition: Flags<W::Definition>,
    #[command(flatten)]
    pub scale: RunScale<W>,
    #[command(flatten)]
    pub options: Flags<W::RunOptions>,
}

/// The scale a load writes: the workload's flag, with its default.
#[derive(Debug, Clone, Copy)]
pub struct LoadScale<W> {
    /// The scale asked for, if any.
    asked: Option<i64>,
    workload: PhantomData<fn() -> W>,
}

impl<W: Benchmark> LoadScale<W> {
    /// The scale to load: the flag's, else the workload's default (a
    /// workload file's own, known once the file is defined).
    pub fn value(&self) -> i64 {
        self.asked.unwrap_or_else(W::default_scale)
    }
}

/// The scale a run expects: what is loaded unless the flag says otherwise.
#[derive(Debug, Clone, Copy)]
pub struct RunScale<W> {
    /// The scale asked for, if any.
    pub asked: Option<i64>,
    workload: PhantomData<fn() -> W>,
}

/// The workload's scale flag (`--warehouses`/`-w`, `--subscribers`, `--keys`).
pub fn scale_arg(about: &About) -> clap::Arg {
    let scale = &about.scale;
    let mut arg = clap::Arg::new(scale.unit)
        .long(scale.unit)
        .value_parser(clap::value_parser!(i64).range(1..=scale.max));
    if let Some(short) = scale.short {
        arg = arg.short(short);
    }
    arg
}

/// "Warehouses" from "warehouses".
fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

fn given(m: &ArgMatches, id: &str) -> Option<i64> {
    m.try_get_one::<i64>(id).ok().flatten().copied()
}

impl<W: Benchmark> FromArgMatches for LoadScale<W> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(LoadScale {
            asked: given(m, W::ABOUT.scale.unit),
            workload: PhantomData,
        })
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<W: Benchmark> Args for LoadScale<W> {
    fn augment_args(cmd: Command) -> Command {
        let scale = &W::ABOUT.scale;
        cmd.arg(scale_arg(W::ABOUT).help(format!(
            "{} to load [default: {}]",
            capitalised(scale.unit),
            W::DEFAULT_SCALE_HELP.map_or_else(|| scale.default.to_string(), String::from)
        )))
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl<W: Benchmark> FromArgMatches for RunScale<W> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(RunScale {
            asked: given(m, W::ABOUT.scale.unit),
            workload: PhantomData,
        })
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<W: Benchmark> Args for RunScale<W> {
    fn augment_args(cmd: Command) -> Command {
        let scale = &W::ABOUT.scale;
        cmd.arg(scale_arg(W::ABOUT).help(format!(
            "{} expected in the database (default: what is loaded; an empty database \
             is loaded with {}); a different count is refused. With `--db null:` it \
             sets the scale",
            capitalised(scale.unit),
            scale.default
        )))
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl<W: Benchmark> FromArgMatches for Verb<W> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        match m.subcommand() {
            Some(("load", sub)) => Ok(Verb::Load(LoadArgs::from_arg_matches(sub)?)),
            Some(("run", sub)) => Ok(Verb::Run(RunCmd::from_arg_matches(sub)?)),
            Some(("check", sub)) if W::check().is_some() => {
                Ok(Verb::Check(TablesArgs::from_arg_matches(sub)?))
            }
            Some(("verify", sub)) if W::verify().is_some() => {
                Ok(Verb::Verify(VerifyArgs::from_arg_matches(sub)?))
            }
            Some(("acid", sub)) if W::acid().is_some() => {
                Ok(Verb::Acid(AcidArgs::from_arg_matches(sub)?))
            }
            Some(("clean", sub)) => Ok(Verb::Clean(TablesArgs::from_arg_matches(sub)?)),
            Some((other, _)) => Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidSubcommand,
                format!("'{other}' is not a {} verb\n", W::ABOUT.title),
            )),
            None => Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand)),
        }
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<W: Benchmark> Subcommand for Verb<W> {
    fn augment_subcommands(cmd: Command) -> Command {
        let about = W::ABOUT;
        let verb = |args: Command, summary: String, form| {
            args.about(summary).after_help(examples(about, form))
        };
        let run = tailor_run_flags(RunCmd::<W>::augment_args(Command::new("run")), about);
        let mut cmd = cmd
            .subcommand(verb(
                tailor_load_flags(LoadArgs::<W>::augment_args(Command::new("load")), about),
                about.load_summary.into(),
                HelpForm::Load,
            ))
            .subcommand(verb(run, about.run_summary.into(), HelpForm::Run));
        if let Some(Check { summary, .. }) = W::check() {
            let check = TablesArgs::<W>::augment_args(Command::new("check"));
            cmd = cmd.subcommand(verb(check, summary.into(), HelpForm::Check));
        }
        if let Some(Verify { summary, .. }) = W::verify() {
            let verify = VerifyArgs::augment_args(Command::new("verify"));
            cmd = cmd.subcommand(verb(verify, summary.into(), HelpForm::Verify));
        }
        if let Some(Acid { summary, .. }) = W::acid() {
            let acid = AcidArgs::augment_args(Command::new("acid"));
            cmd = cmd.subcommand(verb(acid, summary.into(), HelpForm::Acid));
        }
        let clean = TablesArgs::<W>::augment_args(Command::new("clean"));
        cmd.subcommand(verb(
            clean,
            // Only the tables its load made: a user's table of the same name
            // stays, and the CH-benCHmark's clean leaves TPC-C's tables.
            format!("Drop the {} tables txbench created", about.title),
            HelpForm::Clean,
        ))
    }
    fn augment_subcommands_for_update(cmd: Command) -> Command {
        Self::augment_subcommands(cmd)
    }
    fn has_subcommand(name: &str) -> bool {
        matches!(name, "load" | "run" | "clean")
            || (name == "check" && W::check().is_some())
            || (name == "verify" && W::verify().is_some())
            || (name == "acid" && W::acid().is_some())
    }
}

/// A command form that exists once per workload: its flags for workload `W`
/// and its help line.
pub trait Form: Debug + 'static {
    /// The flags of the form for workload `W`.
    type Args<W: Benchmark>: Args + Debug;
    /// The help line of the form for a workload.
    fn about(about: &About) -> String;
    /// The form's command for a workload, its help in the workload's words.
    fn tailor(cmd: Command, about: &About) -> Command;
}

/// `txbench NAME [VERB]`.
#[derive(Debug)]
pub struct Verbs;

impl Form for Verbs {
    type Args<W: Benchmark> = WorkloadArgs<W>;
    fn about(about: &About) -> String {
        about.summary.to_string()
    }
    fn tailor(cmd: Command, about: &About) -> Command {
        tailor_load_flags(tailor_run_flags(cmd, about), about)
            .after_help(examples(about, help::Form::AllInOne))
    }
}

/// `txbench sweep NAME`.
#[derive(Debug)]
pub struct Sweeps;

impl Form for Sweeps {
    type Args<W: Benchmark> = SweepCmd<W>;
    fn about(about: &About) -> String {
        format!("{} (an empty database is loaded first)", about.title)
    }
    fn tailor(cmd: Command, about: &About) -> Command {
        // Each step's length and rate are the sweep's own flags.
        tailor_run_flags(cmd, about)
            .mut_arg("duration", |a| a.hide(true))
            .mut_arg("rate", |a| a.hide(true))
            .after_help(examples(about, help::Form::Sweep))
    }
}

/// The workload a command line chose, with its flags still as clap matched
/// them: [`Chosen::args`] types them for the workload once the registry has
/// named it.
#[derive(Debug, Clone)]
pub struct Chosen<F> {
    /// The workload's name.
    pub workload: String,
    matches: ArgMatches,
    form: PhantomData<F>,
}

impl<F: Form> Chosen<F> {
    /// The flags, typed for workload `W` (the one [`Chosen::workload`] names).
    pub fn args<W: Benchmark>(&self) -> Result<F::Args<W>, clap::Error> {
        F::Args::<W>::from_arg_matches(&self.matches)
    }

    /// Whether the flag `id` was given on the command line (not defaulted).
    pub fn given(&self, id: &str) -> bool {
        self.matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
    }
}

/// Adds every workload's subcommand of form `F`.
struct AddSubcommands<F> {
    cmd: Option<Command>,
    form: PhantomData<F>,
}

impl<F: Form> EachVisitor for AddSubcommands<F> {
    fn visit<W: Benchmark>(&mut self) {
        let sub = F::Args::<W>::augment_args(Command::new(W::ABOUT.name)).about(F::about(W::ABOUT));
        let sub = F::tailor(sub, W::ABOUT);
        self.cmd = self.cmd.take().map(|c| c.subcommand(sub));
    }
}

/// Checks that the matched flags type for the named workload.
struct Validate<'m, F>(&'m ArgMatches, PhantomData<F>);

impl<F: Form> registry::Visitor for Validate<'_, F> {
    type Output = Result<(), clap::Error>;
    fn visit<W: Benchmark>(self) -> Self::Output {
        F::Args::<W>::from_arg_matches(self.0).map(drop)
    }
}

impl<F: Form> FromArgMatches for Chosen<F> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, sub)) = m.subcommand() else {
            return Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand));
        };
        registry::visit(name, Validate::<F>(sub, PhantomData)).unwrap_or_else(|| {
            Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidSubcommand,
                format!("unknown workload '{name}'\n"),
            ))
        })?;
        Ok(Chosen {
            workload: name.to_string(),
            matches: sub.clone(),
            form: PhantomData,
        })
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<F: Form> Subcommand for Chosen<F> {
    fn augment_subcommands(cmd: Command) -> Command {
        let mut add = AddSubcommands::<F> {
            cmd: Some(cmd),
            form: PhantomData,
        };
        registry::each(&mut add);
        add.cmd.expect("put back after each workload")
    }
    fn augment_subcommands_for_update(cmd: Command) -> Command {
        Self::augment_subcommands(cmd)
    }
    fn has_subcommand(name: &str) -> bool {
        registry::NAMES.contains(&name)
    }
}

/// The scale flags `serve` takes: every workload's, each refused unless it
/// is the served workload's.
#[derive(Debug, Clone, Default)]
pub struct ServedScales {
    /// (unit, value) for each scale flag given.
    pub given: Vec<(&'static str, i64)>,
}

struct AddScaleFlags(Option<Command>, Vec<&'static str>);

impl EachVisitor for AddScaleFlags {
    fn visit<W: Benchmark>(&mut self) {
        let scale = &W::ABOUT.scale;
        if self.1.contains(&scale.unit) {
            return;
        }
        self.1.push(scale.unit);
        let arg = scale_arg(W::ABOUT).help(format!(
            "{} {} (loaded when the database holds none; default {})",
            W::ABOUT.title,
            scale.unit,
            scale.default
        ));
        self.0 = self.0.take().map(|c| c.arg(arg));
    }
}

struct GivenScales<'m>(&'m ArgMatches, Vec<(&'static str, i64)>);

impl EachVisitor for GivenScales<'_> {
    fn visit<W: Benchmark>(&mut self) {
        let unit = W::ABOUT.scale.unit;
        if let Some(v) = given(self.0, unit)
            && !self.1.iter().any(|(u, _)| *u == unit)
        {
            self.1.push((unit, v));
        }
    }
}

impl FromArgMatches for ServedScales {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut scales = GivenScales(m, Vec::new());
        registry::each(&mut scales);
        Ok(ServedScales { given: scales.1 })
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for ServedScales {
    fn augment_args(cmd: Command) -> Command {
        let mut add = AddScaleFlags(Some(cmd), Vec::new());
        registry::each(&mut add);
        add.0.expect("put back after each workload")
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// `serve --workload`: a workload's name, or a shipped workload file's.
pub fn parse_served(s: &str) -> Result<String, String> {
    if txbench_workloads::custom::benchbase::file(s).is_some() {
        return Ok(s.to_string());
    }
    parse_workload(s).map_err(|e| {
        let shipped = txbench_workloads::custom::benchbase::names();
        format!("{e}; shipped workload files: {shipped}")
    })
}

/// A workload of the registry, by its name.
pub fn parse_workload(s: &str) -> Result<String, String> {
    if registry::NAMES.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "unknown workload '{s}' (known: {})",
            registry::NAMES.join(", ")
        ))
    }
}
