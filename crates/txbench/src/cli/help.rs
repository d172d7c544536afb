//! Help in each workload's own words, and examples under every verb.
//!
//! The run's flags are written once for every workload (`RunArgs`); what
//! `--terminals`, `--wait`, `--affinity` and `--seed` mean differs (TATP has
//! no warehouses and no think times), so each workload's commands get their
//! help from its [`About`]. Examples are made from the workload's name and
//! scale, so a new workload has them without a line of its own.

use clap::Command;
use txbench_workloads::About;

/// The help of the run's shared flags, as `about`'s workload means them.
pub fn tailor_run_flags(cmd: Command, about: &About) -> Command {
    let flags = &about.run_flags;
    let wait = match flags.wait_spec {
        Some(spec) => format!("Terminals' waits: none (back to back) or spec ({spec})"),
        None => format!(
            "Terminals' waits: none (back to back); {} has no keying or think times, so spec \
             is the same",
            about.title
        ),
    };
    let affinity = match flags.home {
        Some(home) => format!(
            "With several --db URLs: off spreads every terminal's work over all nodes; \
             warehouse keeps each terminal's work on {home}"
        ),
        None => format!(
            "With several --db URLs, sessions spread over the nodes in turn; {}'s terminals \
             have no home node, so --affinity changes nothing",
            about.title
        ),
    };
    cmd.mut_arg("terminals", |a| {
        a.help(format!("Terminals (default: {})", flags.terminals))
    })
    .mut_arg("wait", |a| a.help(wait).hide_possible_values(true))
    .mut_arg("affinity", |a| a.help(affinity).hide_possible_values(true))
    .mut_arg("shards", |a| {
        a.help(format!(
            "Split the run across this many client processes: each drives a contiguous part \
             of the {} and writes its own results; `txbench merge` adds them up",
            about.scale.unit
        ))
    })
    .mut_arg("seed", |a| {
        a.help(format!(
            "Seed of the run's random streams: {}. Default: a fresh one per run (recorded in \
             the results), so a second run on the same database does not replay the first \
             one's writes",
            flags.seed_draws
        ))
    })
}

/// `--foreign-keys` in the workload's words, or hidden where it has none
/// (a workload without foreign keys refuses the flag).
pub fn tailor_load_flags(cmd: Command, about: &About) -> Command {
    cmd.mut_arg("foreign_keys", |a| match about.foreign_keys {
        Some(which) => a.help(format!(
            "Add the foreign keys after the data ({which}; not on SQLite)"
        )),
        None => a.hide(true),
    })
}

/// The verbs and forms that have examples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `txbench NAME`: load, run and report.
    AllInOne,
    /// `txbench NAME load`.
    Load,
    /// `txbench NAME run`.
    Run,
    /// `txbench NAME check`.
    Check,
    /// `txbench NAME verify`.
    Verify,
    /// `txbench NAME acid`.
    Acid,
    /// `txbench NAME clean`.
    Clean,
    /// `txbench sweep NAME`.
    Sweep,
}

impl Form {
    /// The verb's name (the all-in-one form and sweep have none of their own).
    fn name(self) -> &'static str {
        match self {
            Form::AllInOne | Form::Sweep => "",
            Form::Load => "load",
            Form::Run => "run",
            Form::Check => "check",
            Form::Verify => "verify",
            Form::Acid => "acid",
            Form::Clean => "clean",
        }
    }
}

/// Examples of `form` for `about`'s workload, for after the flags.
pub fn examples(about: &About, form: Form) -> String {
    let (name, unit, n) = (about.name, about.scale.unit, about.scale.default);
    // The command of the form, with the flags every command of the
    // workload needs after its verb.
    let required = about.required_example;
    let cmd = match form {
        Form::AllInOne => format!("txbench {name}{required}"),
        Form::Sweep => format!("txbench sweep {name}{required}"),
        verb => format!("txbench {name} {}{required}", verb.name()),
    };
    let file = format!("sqlite:{name}.db");
    let pg = format!("postgres://postgres@localhost/{name}");
    let lines: Vec<(String, &str)> = match form {
        Form::AllInOne => vec![
            (cmd.clone(), "load into in-memory SQLite, run 60 s, report"),
            (
                format!("{cmd} --db {file} --duration 30s"),
                "the same on a file (loaded once, kept)",
            ),
            (
                format!("{cmd} --db {pg} --terminals 32 --progress 5s"),
                "PostgreSQL, a progress line every 5 s",
            ),
        ],
        Form::Load => vec![
            (
                format!("{cmd} --db {file} --{unit} {n}"),
                "create the schema and load it",
            ),
            (
                format!("{cmd} --db {pg} --threads 8 --drop"),
                "replace what is loaded (the database is created if missing)",
            ),
        ],
        Form::Run => vec![
            (
                format!("{cmd} --db {file} --duration 2m --warmup 10s"),
                "closed loop, back to back",
            ),
            (
                format!("{cmd} --db {pg} --rate 2000/s --metrics-listen 9187"),
                "open loop, OpenMetrics at 127.0.0.1:9187/metrics",
            ),
            (
                format!("{cmd} --db {pg} --rate '1000/s for 1m, ramp 1000..4000/s over 2m'"),
                "a rate schedule: a hold, then a ramp (3 minutes in all)",
            ),
            (
                format!("{cmd} --db {file} --transactions 100000 --terminals 8"),
                "end once 100,000 have ended (YCSB's operationcount)",
            ),
            (
                format!("{cmd} --db {pg} --strict --no-report"),
                "exit 3 when the verdict is NOT SOUND",
            ),
        ],
        Form::Check => vec![(
            format!("{cmd} --db {file}"),
            "exit 0 when every condition holds",
        )],
        Form::Verify => vec![(
            format!("{cmd} --db {pg} results/RUN"),
            "after a run with --ack-log and a crash",
        )],
        Form::Acid => vec![(
            format!("{cmd} --db {pg} --isolation serializable"),
            "atomicity, consistency, isolation",
        )],
        Form::Clean => vec![(format!("{cmd} --db {file}"), "drop every table")],
        Form::Sweep => vec![(
            format!("{cmd} --db {pg} --rates 500..8000 --step 500 --slo 'p99<=10ms'"),
            "the highest rate that meets the objective",
        )],
    };
    let width = lines.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    let mut out = String::from("Examples:\n");
    for (command, what) in lines {
        out += &format!("  {command:<width$}  # {what}\n");
    }
    out
}

/// Examples under the commands that are not a workload's.
pub const TOP: &str = "Examples:
  txbench tpcc                                   # TPC-C: load in-memory SQLite, run 60 s, report
  txbench tatp --db postgres://postgres@localhost/tatp --duration 2m
  txbench sweep tatp --db sqlite:tatp.db --rates 1000..20000 --step 1000 --slo 'p99<=5ms'
  txbench report results/RUN                     # the summary again, and report.html
  txbench tatp run --repeat 5 --results before   # a set of five runs: the noise between runs
  txbench compare before/SET after/SET           # better, worse or no significant change
";

/// Examples of `report`.
pub const REPORT: &str = "Examples:
  txbench report results/20261126T040000Z-tpcc-sqlite        # print the summary, write report.html
  txbench report -q results/20261126T040000Z-sweep-tatp-sqlite   # a sweep's page only
";

/// Examples of `compare`.
pub const COMPARE: &str = "Examples:
  txbench compare results/before-set results/after-set   # sets (run --repeat 5): judged against their noise
  txbench compare results/A results/B results/C --json cmp.json
  txbench compare results/A results/B --threshold 2      # changes under 2% are too small to call
";

/// Examples of `merge`.
pub const MERGE: &str = "Examples:
  txbench merge results/*-shard*of4 -o results/all   # one run from the shards of one
";

/// Examples of `serve`.
pub const SERVE: &str = "Examples:
  txbench serve --workload tatp --db sqlite:tatp.db                 # on 127.0.0.1:7077
  txbench tatp run --db txbench://127.0.0.1:7077                    # a client of it
  TXBENCH_TOKEN=secret txbench serve --workload tpcc --db postgres://postgres@localhost/tpcc --listen 0.0.0.0:7077
";

/// Examples of `selftest`.
pub const SELFTEST: &str = "Examples:
  txbench selftest                          # can this machine measure soundly at 10,000/s?
  txbench selftest --rate 50000/s --floor-only
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_speak_of_the_workloads_own_scale() {
        let tatp = &txbench_workloads::tatp::ABOUT;
        let load = examples(tatp, Form::Load);
        assert!(load.contains("--subscribers 100000"), "{load}");
        assert!(!load.contains("warehouse"), "{load}");
        assert!(examples(tatp, Form::Sweep).contains("txbench sweep tatp"));
    }

    /// Every example of every workload's every form parses as it is printed
    /// (a workload file's examples once lacked `--file`).
    #[test]
    fn every_example_parses_as_printed() {
        struct AboutOf;
        impl txbench_workloads::registry::Visitor for AboutOf {
            type Output = (&'static About, bool);
            fn visit<W: txbench_workloads::Benchmark>(self) -> Self::Output {
                let extra = W::check().is_some() && W::verify().is_some() && W::acid().is_some();
                (W::ABOUT, extra)
            }
        }
        for name in txbench_workloads::registry::NAMES {
            let (about, all_verbs) = txbench_workloads::registry::visit(name, AboutOf).unwrap();
            let mut forms = vec![
                Form::AllInOne,
                Form::Load,
                Form::Run,
                Form::Clean,
                Form::Sweep,
            ];
            if all_verbs {
                forms.extend([Form::Check, Form::Verify, Form::Acid]);
            }
            for form in forms {
                let text = examples(about, form);
                for line in text.lines().skip(1) {
                    let command = line.trim().split("  # ").next().unwrap().trim();
                    let words = shell_words(command);
                    if let Err(e) = crate::cli::Cli::try_parse_args(&words) {
                        panic!("{name} {form:?}: `{command}` does not parse: {e}");
                    }
                }
            }
        }
    }

    /// A command line's words, single quotes grouping.
    fn shell_words(command: &str) -> Vec<String> {
        let mut words = vec![String::new()];
        let mut quoted = false;
        for c in command.chars() {
            match c {
                '\'' => quoted = !quoted,
                ' ' if !quoted => words.push(String::new()),
                c => words.last_mut().unwrap().push(c),
            }
        }
        words.retain(|w| !w.is_empty());
        words
    }
}
