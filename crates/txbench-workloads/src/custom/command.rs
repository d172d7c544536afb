//! `txbench custom --file FILE`: a workload file as a workload of the
//! command line, with every verb, flag, result and report the built-in
//! workloads have; `--workload NAME` takes a file shipped in the binary
//! (BenchBase's, [`benchbase`]).
//!
//! The file is the workload's definition, which the built-in workloads
//! compile in: the command reads and checks it once, before any verb, and
//! the process keeps it (one workload file a process, as one command line
//! names one).

use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use txbench_core::result::{Metric, TypeResult, recorded_parameters};
use txbench_core::schema::{Schema, Table};
use txbench_core::text_file;
use txbench_core::{Engine, Session};

use super::check::parse;
use super::opened::{self, Defined};
use super::run::FileWorkload;
use super::spec::Spec;
use super::{benchbase, bounds};
use crate::about::{About, RunFlags, Scale};
use crate::benchmark::{Benchmark, MetricBasis};
use crate::bulk::{LoadPlan, LoadSummary};
use crate::capability::{Check, FileDefined};
use crate::error::WorkloadError;
use crate::meta_table::MetaTable;
use crate::options::{BadValue, Flag, NoOptions, Options};

/// The command's names and scale.
pub static ABOUT: About = About {
    name: "custom",
    title: "custom workload",
    summary: "A workload of your own, written as a file (docs/workload-file.md): its tables, \
              transactions and invariants, or one shipped (--workload: BenchBase's); without a \
              verb, load (if needed), run and report (embedded SQLite by default)",
    load_summary: "Create the file's tables and load them (--scale times each table's rows_per_scale)",
    run_summary: "Run the file's transaction mix against its loaded tables and report",
    scale: Scale {
        unit: "scale",
        one: "scale",
        short: None,
        default: 1,
        max: 1_000_000_000,
    },
    run_flags: RunFlags {
        terminals: "the file's terminals_per_scale times the scale",
        wait_spec: Some("the file's think_time after each transaction"),
        home: None,
        seed_draws: "the transactions' types and parameters",
    },
    required_example: " --file orders.toml",
    foreign_keys: None,
};

/// `--file` or `--workload`: the workload file every verb of `txbench
/// custom` takes, one of one's own or one shipped in the binary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkloadFileArg {
    /// The workload file. Optional here: the verbs' flags are parsed for
    /// the all-in-one form too, where a verb's own flags are absent;
    /// `define` asks for it or `workload`.
    pub file: Option<PathBuf>,
    /// A shipped workload file, by its name ([`benchbase::CHOICES`]).
    #[serde(default)]
    pub workload: Option<String>,
}

impl WorkloadFileArg {
    /// What names the file on the command line: `--file orders.toml`,
    /// `--workload smallbank`.
    fn named(&self) -> String {
        match (&self.file, &self.workload) {
            (Some(path), _) => format!("--file {}", path.display()),
            (None, Some(name)) => format!("--workload {name}"),
            (None, None) => "no workload file".to_string(),
        }
    }

    /// The name the file is checked under, and its text.
    fn read(&self) -> Result<(String, String), WorkloadError> {
        match (&self.file, &self.workload) {
            (Some(path), None) => {
                let text = text_file::read_bounded(path, bounds::MAX_FILE_BYTES).map_err(|e| {
                    WorkloadError::BadOption(format!("--file {}: {e}", path.display()))
                })?;
                Ok((path.display().to_string(), text))
            }
            (None, Some(name)) => {
                let (checked_as, text) = benchbase::file(name)
                    .ok_or_else(|| WorkloadError::BadOption(unknown_workload(name)))?;
                Ok((checked_as, text.to_string()))
            }
            (Some(path), Some(name)) => Err(WorkloadError::BadOption(format!(
                "--file {} and --workload {name}: one workload file, not two",
                path.display()
            ))),
            (None, None) => Err(WorkloadError::BadOption(
                "txbench custom needs the workload file: --file FILE (docs/workload-file.md) \
                 or a shipped one, --workload NAME"
                    .to_string(),
            )),
        }
    }
}

/// The words of a `--workload` that names no shipped file.
fn unknown_workload(name: &str) -> String {
    format!(
        "--workload {name}: no shipped workload file of that name (known: {})",
        benchbase::names()
    )
}

impl Options for WorkloadFileArg {
    const FLAGS: &'static [Flag<Self>] = &[
        Flag {
            long: "file",
            help: "The workload file (TOML, docs/workload-file.md); every verb needs it or \
                   --workload",
            value_name: "FILE",
            default: None,
            choices: &[],
            set: |o, v| {
                o.file = Some(PathBuf::from(v));
                Ok(())
            },
        },
        Flag {
            long: "workload",
            help: "A workload file shipped in txbench, instead of --file",
            value_name: "NAME",
            default: None,
            choices: benchbase::CHOICES,
            set: |o, v| {
                if benchbase::file(v).is_none() {
                    return Err(BadValue(unknown_workload(v)));
                }
                o.workload = Some(v.to_string());
                Ok(())
            },
        },
    ];
}

/// What a workload file's run records: the file's, and the digest of its
/// text (`file_sha256`, what merge and servers compare) once it is defined.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CustomParameters {
    /// The file's name, title and scale.
    #[serde(flatten)]
    pub file: opened::FileParameters,
    /// The digest of the file's text.
    pub file_sha256: Option<String>,
}

/// The file this process runs, once defined: the flags that named it, the
/// file, and the digest of its text.
static DEFINED: OnceLock<(WorkloadFileArg, Defined, String)> = OnceLock::new();

/// The digest of the file's text: what a client and a server compare to
/// know they run one file, and what `merge` compares in results.
const FILE_DIGEST: &str = txbench_core::result::FILE_DIGEST_PARAMETER;

/// The digest of what shaped the loaded data (the tables, their columns and
/// generators, as this version reads them), recorded by the load: a run
/// refuses a file whose tables changed since.
const SHAPE_DIGEST: &str = "shape_sha256";

/// The digest of `spec`'s tables and the statements that finish their
/// rows ([`SHAPE_DIGEST`]): of the tables alone when there are none, as
/// before the file format had them, so that data loaded then still runs.
fn shape_digest(spec: &Spec) -> String {
    let shape = match spec.after_load.is_empty() {
        true => format!("{:?}", spec.tables),
        false => format!("{:?} {:?}", spec.tables, spec.after_load),
    };
    format!("{:x}", Sha256::digest(shape))
}

/// The defined file: every verb defines it before it acts.
fn defined() -> &'static Defined {
    &DEFINED
        .get()
        .expect("txbench custom defines its file before any verb")
        .1
}

/// A workload file's workload, as `txbench custom` runs it.
pub type Custom = FileWorkload<CustomFile>;

/// The marker of [`Custom`].
#[derive(Debug)]
pub enum CustomFile {}

impl Benchmark for Custom {
    const ABOUT: &'static About = &ABOUT;
    type Definition = WorkloadFileArg;
    type LoadOptions = NoOptions;
    type RunOptions = NoOptions;
    const DEFAULT_SCALE_HELP: Option<&'static str> = Some("the file's default_scale");

    fn define(definition: &WorkloadFileArg) -> Result<(), WorkloadError> {
        let (checked_as, text) = definition.read()?;
        if let Some((first, ..)) = DEFINED.get() {
            return if first == definition {
                Ok(())
            } else {
                Err(WorkloadError::BadOption(format!(
                    "{}: this process already runs {}",
                    definition.named(),
                    first.named()
                )))
            };
        }
        let spec =
            parse(&checked_as, &text).map_err(|e| WorkloadError::BadOption(e.to_string()))?;
        // A race between two definitions keeps the first; both are this file.
        let digest = format!("{:x}", Sha256::digest(text.as_bytes()));
        let shape = shape_digest(&spec);
        let mut defined = Defined::new(spec, &ABOUT);
        defined.entries = vec![(SHAPE_DIGEST, shape)];
        crate::error::name_file_flag(ABOUT.name, definition.named());
        let _ = DEFINED.set((definition.clone(), defined, digest));
        Ok(())
    }

    fn definition() -> WorkloadFileArg {
        DEFINED.get().map(|(d, ..)| d.clone()).unwrap_or_default()
    }

    fn file_defined() -> Option<FileDefined> {
        Some(FileDefined {
            define: |path| {
                Custom::define(&WorkloadFileArg {
                    file: Some(path.to_path_buf()),
                    workload: None,
                })
            },
            define_shipped: |name| {
                Custom::define(&WorkloadFileArg {
                    file: None,
                    workload: Some(name.to_string()),
                })
            },
        })
    }

    fn schema() -> &'static Schema {
        defined().made.schema
    }

    fn meta() -> &'static MetaTable {
        defined().made.meta
    }

    fn default_scale() -> i64 {
        defined().spec.default_scale
    }

    async fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        _options: &NoOptions,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        defined().load(engine, plan, rows_done).await
    }

    fn expected_rows(scale: i64) -> u64 {
        super::load::rows(&defined().spec, scale)
    }

    fn describe_load(_options: &NoOptions) -> String {
        let spec = &defined().spec;
        format!(" of {} ({} per unit)", spec.title, spec.scale_unit)
    }

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        _seed: u64,
        _options: &NoOptions,
    ) -> Result<Self, WorkloadError> {
        // A server runs the statements of the file it serves: the client's
        // must be the same file, or its draws would not fit them.
        let (arg, defined, digest) = DEFINED.get().expect("defined before any verb");
        let named = arg.named();
        if let Some(theirs) = crate::opening::served_value(session, FILE_DIGEST)
            && theirs != digest.as_str()
        {
            return Err(WorkloadError::BadOption(format!(
                "{named}: the txbench server serves another workload file (its text differs)"
            )));
        }
        defined
            .open(session, asked, |found| {
                match found.text(SHAPE_DIGEST) {
                    Some(recorded) if recorded != shape_digest(&defined.spec) => Err(WorkloadError::BadOption(format!(
                        "{named}: its tables, columns or generators changed since the load: load it again with --drop"
                    ))),
                    _ => Ok(defined.spec.as_ref().clone()),
                }
            })
            .await
    }

    fn check() -> Option<Check> {
        Some(Check {
            summary: "Run the file's invariants: each query must return no row",
            run: |session, _loaded| Box::pin(defined().check(session)),
        })
    }

    /// None: a file's tables are checked as it opens, before its
    /// statements are prepared (`Defined::open`).
    fn run_tables(&self) -> Vec<&'static Table> {
        Vec::new()
    }

    fn title(&self) -> String {
        self.spec().title.clone()
    }

    fn scale(&self) -> i64 {
        FileWorkload::scale(self)
    }

    type Parameters = CustomParameters;

    fn parameters(&self) -> CustomParameters {
        CustomParameters {
            file: opened::parameters(self),
            file_sha256: DEFINED.get().map(|(.., digest)| digest.clone()),
        }
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        let mut served = vec![
            ("workload".to_string(), ABOUT.name.to_string()),
            (ABOUT.scale.unit.to_string(), self.scale().to_string()),
        ];
        served.extend(recorded_parameters(&self.parameters()));
        served
    }

    /// Committed transactions a second and the share of expected rollbacks.
    fn metrics(types: &[TypeResult], measured_secs: f64, _basis: MetricBasis) -> Vec<Metric> {
        opened::metrics(types, measured_secs, "committed txn/s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_recorded_under_the_name_merge_and_servers_compare() {
        let parameters = CustomParameters {
            file: opened::FileParameters {
                file_workload: "w".into(),
                file_title: "W".into(),
                scale_counts: "rows".into(),
            },
            file_sha256: Some("abc".into()),
        };
        let recorded = recorded_parameters(&parameters);
        assert_eq!(recorded.get(FILE_DIGEST).map(String::as_str), Some("abc"));
        assert_eq!(recorded.len(), 4, "{recorded:?}");
    }
}
