//! YCSB's core workloads A to F as workload files, shipped in the binary,
//! and `txbench ycsb`, the command that runs them: one table loaded once
//! (`usertable`, its load recorded in `txbench_ycsb_meta`), any of the six
//! mixes run on it, with the request distribution of the workload or the one
//! asked.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use txbench_core::result::{Metric, TypeResult};
use txbench_core::schema::{ColumnType, Schema, Table};
use txbench_core::{Engine, Session};

use super::check::parse;
use super::opened::{self, Defined};
use super::run::FileWorkload;
use super::spec::{Generator, Spec};
use crate::about::{About, RunFlags, Scale};
use crate::benchmark::{Benchmark, MetricBasis, refuse_unscripted};
use crate::bulk::{LoadPlan, LoadSummary};
use crate::error::WorkloadError;
use crate::meta_table::MetaTable;
use crate::opening::Found;
use crate::options::{BadValue, Choice, Flag, NoOptions, Options, by_name};

mod shape;
pub use shape::{LONGEST_FIELD, MOST_FIELDS, Shape, shaped};

/// Each core workload's letter and its file.
pub const CORE: [(char, &str); 6] = [
    ('a', include_str!("ycsb/a.toml")),
    ('b', include_str!("ycsb/b.toml")),
    ('c', include_str!("ycsb/c.toml")),
    ('d', include_str!("ycsb/d.toml")),
    ('e', include_str!("ycsb/e.toml")),
    ('f', include_str!("ycsb/f.toml")),
];

/// The file of core workload `letter` (a to f).
pub fn file(letter: char) -> Option<&'static str> {
    CORE.iter()
        .find(|(l, _)| *l == letter.to_ascii_lowercase())
        .map(|(_, f)| *f)
}

/// The command's names and scale.
pub static ABOUT: About = About {
    name: "ycsb",
    title: "YCSB",
    summary: "YCSB's core workloads A to F (key-value reads, updates, inserts, scans and \
              read-modify-writes over one table of records); without a verb, load (if needed), \
              run and report (embedded SQLite by default)",
    load_summary: "Load the records (ten 100-character fields under integer keys), once for \
                   every core workload",
    run_summary: "Run a core workload's mix against the loaded records and report",
    scale: Scale {
        unit: "records",
        one: "record",
        short: None,
        default: 100_000,
        max: 1_000_000_000,
    },
    run_flags: RunFlags {
        terminals: "1 per 10,000 records",
        wait_spec: None,
        home: None,
        seed_draws: "the operations and their keys and values",
    },
    required_example: "",
    foreign_keys: None,
};

/// One of YCSB's core workloads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Core {
    /// Update heavy: 50% reads, 50% updates.
    #[default]
    A,
    /// Read mostly: 95% reads, 5% updates.
    B,
    /// Read only.
    C,
    /// Read latest: 95% reads of the newest records, 5% inserts.
    D,
    /// Short ranges: 95% scans of 1 to 100 records, 5% inserts.
    E,
    /// Read-modify-write: 50% reads, 50% a read then an update of it.
    F,
}

impl Core {
    fn letter(self) -> char {
        match self {
            Core::A => 'a',
            Core::B => 'b',
            Core::C => 'c',
            Core::D => 'd',
            Core::E => 'e',
            Core::F => 'f',
        }
    }
}

/// How requests choose their record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    /// Zipfian over the records, theta 0.99, ranks scrambled over the keys.
    Zipfian,
    /// Every record alike.
    Uniform,
    /// Zipfian over the newest records first (theta 0.99).
    Latest,
}

/// What a YCSB run records: its core workload's file, and the records' shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct YcsbParameters {
    /// The core workload's name, title and scale.
    #[serde(flatten)]
    pub file: opened::FileParameters,
    /// Fields per record.
    pub field_count: u32,
    /// Characters per field.
    pub field_length: u32,
}

/// `txbench ycsb run`'s own flags.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct YcsbRunOptions {
    /// The core workload.
    pub workload: Core,
    /// The request distribution; `None`: the workload's own.
    pub distribution: Option<Distribution>,
}

impl Options for YcsbRunOptions {
    const FLAGS: &'static [Flag<Self>] = &[
        Flag {
            long: "workload",
            help: "The core workload",
            value_name: "WORKLOAD",
            default: Some("a"),
            choices: &[
                Choice {
                    name: "a",
                    help: "Update heavy: 50% reads, 50% updates",
                },
                Choice {
                    name: "b",
                    help: "Read mostly: 95% reads, 5% updates",
                },
                Choice {
                    name: "c",
                    help: "Read only",
                },
                Choice {
                    name: "d",
                    help: "Read latest: 95% reads of the newest records, 5% inserts",
                },
                Choice {
                    name: "e",
                    help: "Short ranges: 95% scans of 1 to 100 records, 5% inserts",
                },
                Choice {
                    name: "f",
                    help: "Read-modify-write: 50% reads, 50% a read then an update of it",
                },
            ],
            set: |o, v| {
                o.workload = by_name(v)?;
                Ok(())
            },
        },
        Flag {
            long: "distribution",
            help: "The request distribution [default: the workload's own: latest for D, else \
                   zipfian]",
            value_name: "DISTRIBUTION",
            default: None,
            choices: &[
                Choice {
                    name: "zipfian",
                    help: "Zipfian over the records, theta 0.99, ranks scrambled over the keys",
                },
                Choice {
                    name: "uniform",
                    help: "Every record alike",
                },
                Choice {
                    name: "latest",
                    help: "Zipfian over the newest records first (theta 0.99)",
                },
            ],
            set: |o, v| {
                o.distribution = Some(by_name(v)?);
                Ok(())
            },
        },
    ];
}

/// The records' shape, the flags shared by every verb (they shape the
/// table a load creates; a run takes the loaded shape unless asked).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct YcsbShapeArgs {
    /// Fields per record; `None`: the loaded records', or 10.
    pub field_count: Option<u32>,
    /// Characters per field; `None`: the loaded records', or 100.
    pub field_length: Option<u32>,
}

impl Options for YcsbShapeArgs {
    const FLAGS: &'static [Flag<Self>] = &[
        Flag {
            long: "field-count",
            help: "Fields per record [default: the loaded records', or 10]",
            value_name: "N",
            default: None,
            choices: &[],
            set: |o, v| {
                o.field_count = Some(whole_number(v)?);
                Ok(())
            },
        },
        Flag {
            long: "field-length",
            help: "Characters per field [default: the loaded records', or 100]",
            value_name: "N",
            default: None,
            choices: &[],
            set: |o, v| {
                o.field_length = Some(whole_number(v)?);
                Ok(())
            },
        },
    ];
}

/// A count of fields or characters given on the command line.
fn whole_number(value: &str) -> Result<u32, BadValue> {
    value
        .parse()
        .map_err(|_| BadValue(format!("'{value}' is not a whole number")))
}

/// The shape asked on the command line, set once before any verb.
static ASKED: OnceLock<YcsbShapeArgs> = OnceLock::new();

fn asked() -> &'static YcsbShapeArgs {
    ASKED.get_or_init(YcsbShapeArgs::default)
}

/// The shape a load makes: the one asked, else YCSB's.
fn load_shape() -> Shape {
    let asked = asked();
    let default = Shape::default();
    Shape {
        fields: asked.field_count.unwrap_or(default.fields),
        length: asked.field_length.unwrap_or(default.length),
    }
}

/// The records' table and metadata table, the same for every core workload.
fn records() -> &'static Defined {
    static RECORDS: OnceLock<Defined> = OnceLock::new();
    RECORDS.get_or_init(|| {
        let shape = load_shape();
        let mut defined = Defined::new(shaped(core(Core::A), shape), &ABOUT);
        defined.entries = vec![
            (FIELD_COUNT, shape.fields.to_string()),
            (FIELD_LENGTH, shape.length.to_string()),
        ];
        defined
    })
}

const FIELD_COUNT: &str = "field_count";
const FIELD_LENGTH: &str = "field_length";

/// The shape of the records the database holds (YCSB's when the load
/// recorded none), checked against the one asked.
fn loaded_shape(found: &Found) -> Result<Shape, WorkloadError> {
    let default = Shape::default();
    let held = Shape {
        fields: found.int(FIELD_COUNT)?.map_or(default.fields, |n| n as u32),
        length: found
            .int(FIELD_LENGTH)?
            .map_or(default.length, |n| n as u32),
    };
    let asked = asked();
    let (fields, length) = (held.fields, held.length);
    opened::as_loaded(
        "field-count",
        asked.field_count,
        fields,
        &format!("records of {fields} fields"),
    )?;
    opened::as_loaded(
        "field-length",
        asked.field_length,
        length,
        &format!("records of {length} characters a field"),
    )?;
    Ok(held)
}

/// Core workload `w`'s file, checked (a unit test checks every shipped one).
fn core(w: Core) -> Spec {
    let text = file(w.letter()).expect("a file for each letter");
    parse(&format!("ycsb/{}.toml", w.letter()), text).expect("the shipped files check")
}

/// Core workload `w` with its requests drawn by `d`.
pub fn spec(w: Core, d: Option<Distribution>) -> Spec {
    let mut spec = core(w);
    let Some(d) = d else { return spec };
    for t in &mut spec.transactions {
        for (_, g) in &mut t.params {
            // A request's key; an insert's next key stays what it is.
            let keys = match g {
                Generator::Zipfian { keys, .. } | Generator::Latest { keys, .. } => keys.clone(),
                Generator::Key(keys) => keys.clone(),
                _ => continue,
            };
            *g = match d {
                Distribution::Zipfian => Generator::Zipfian {
                    keys,
                    theta: 0.99,
                    scrambled: true,
                },
                Distribution::Uniform => Generator::Key(keys),
                Distribution::Latest => Generator::Latest { keys, theta: 0.99 },
            };
        }
    }
    spec
}

/// A core workload, as `txbench ycsb` runs it.
pub type Ycsb = FileWorkload<YcsbCore>;

/// The marker of [`Ycsb`].
#[derive(Debug)]
pub enum YcsbCore {}

impl Ycsb {
    /// The shape of the records it runs on.
    pub fn shape(&self) -> Shape {
        let columns = &self.spec().tables[0].columns;
        Shape {
            fields: columns.len() as u32 - 1,
            length: match columns.get(1).map(|c| c.ty) {
                Some(ColumnType::Varchar(n)) => u32::from(n),
                _ => 0,
            },
        }
    }
}

impl Benchmark for Ycsb {
    const ABOUT: &'static About = &ABOUT;
    type Definition = YcsbShapeArgs;
    type LoadOptions = NoOptions;
    type RunOptions = YcsbRunOptions;

    fn define(shape: &YcsbShapeArgs) -> Result<(), WorkloadError> {
        opened::within("field-count", shape.field_count, MOST_FIELDS)?;
        opened::within("field-length", shape.field_length, LONGEST_FIELD)?;
        opened::keep_asked(&ASKED, shape, "--field-count/--field-length")
    }

    fn schema() -> &'static Schema {
        records().made.schema
    }

    /// Records wider than the engine holds in a row, refused by the flags
    /// that shape them.
    fn refuse_load<E: Engine>(engine: &E, _options: &NoOptions) -> Result<(), WorkloadError> {
        refuse_unscripted(engine, &ABOUT)?;
        engine.can_hold(Self::schema()).map_err(|e| {
            let shape = load_shape();
            WorkloadError::BadOption(format!(
                "--field-count {} --field-length {}: {}",
                shape.fields, shape.length, e.message
            ))
        })
    }

    fn meta() -> &'static MetaTable {
        records().made.meta
    }

    async fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        _options: &NoOptions,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        records().load(engine, plan, rows_done).await
    }

    fn expected_rows(records: i64) -> u64 {
        records.max(0) as u64
    }

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        _seed: u64,
        options: &YcsbRunOptions,
    ) -> Result<Self, WorkloadError> {
        // A server runs the statements of the core workload it serves: the
        // client's must be the same.
        if let Some(core) = crate::opening::served_value(session, "core")
            && core != options.workload.letter().to_string()
        {
            return Err(WorkloadError::BadOption(format!(
                "--workload {}: the txbench server serves YCSB {}",
                options.workload.letter(),
                core.to_ascii_uppercase()
            )));
        }
        let run = spec(options.workload, options.distribution);
        records()
            .open(session, asked, |found| {
                Ok(shaped(run, loaded_shape(found)?))
            })
            .await
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

    type Parameters = YcsbParameters;

    fn parameters(&self) -> YcsbParameters {
        let shape = self.shape();
        YcsbParameters {
            file: opened::parameters(self),
            field_count: shape.fields,
            field_length: shape.length,
        }
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        let letter = self
            .spec()
            .title
            .trim_start_matches("YCSB ")
            .to_ascii_lowercase();
        vec![
            ("workload".to_string(), ABOUT.name.to_string()),
            (ABOUT.scale.unit.to_string(), self.scale().to_string()),
            ("core".to_string(), letter),
            (FIELD_COUNT.to_string(), self.shape().fields.to_string()),
            (FIELD_LENGTH.to_string(), self.shape().length.to_string()),
        ]
    }

    /// Operations a second (each of YCSB's operations is one transaction)
    /// and the share that found no record.
    fn metrics(types: &[TypeResult], measured_secs: f64, _basis: MetricBasis) -> Vec<Metric> {
        opened::metrics(types, measured_secs, "ops/s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_the_help_shows_is_taken_and_recorded_by_its_name() {
        for flag in YcsbRunOptions::FLAGS {
            for choice in flag.choices {
                let mut options = YcsbRunOptions::default();
                (flag.set)(&mut options, choice.name).unwrap();
                let recorded = toml::Value::try_from(&options).unwrap();
                assert_eq!(
                    recorded.get(flag.long).and_then(|v| v.as_str()),
                    Some(choice.name),
                    "{}",
                    flag.long
                );
            }
        }
    }
}
