//! sysbench's OLTP scripts as workload files made in the binary
//! ([`script`]), and `txbench sysbench`, the command that runs them: the
//! tables `sbtest1..N` loaded once (the load recorded in
//! `txbench_sysbench_meta`; data `sysbench prepare` made is found by
//! `sbtest1`'s rows), any of the eight scripts run on them with sysbench's
//! options as flags.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

use crate::conditions::ConditionResult;
use serde::{Deserialize, Serialize};
use txbench_core::Loader;
use txbench_core::result::{Metric, TypeResult};
use txbench_core::schema::{Schema, Table};
use txbench_core::{Engine, Session};

use super::opened::{self, Defined};
use super::run::FileWorkload;
use crate::about::{About, RunFlags, Scale};
use crate::benchmark::{Benchmark, MetricBasis};
use crate::bulk::{LoadPlan, LoadSummary};
use crate::capability::Check;
use crate::error::WorkloadError;
use crate::meta_table::{Loaded, MetaTable};
use crate::opening::Found;
use crate::options::{BadValue, Choice, Flag, Options, by_name};

pub mod script;
pub use script::{Counts, MOST_TABLES, RandType, Script};

/// The command's names and scale: sysbench's `--table-size`.
pub static ABOUT: About = About {
    name: "sysbench",
    title: "sysbench",
    summary: "sysbench's OLTP scripts (oltp_read_write, oltp_read_only, oltp_write_only, \
              oltp_point_select, oltp_update_index, oltp_update_non_index, oltp_insert, \
              oltp_delete) on sysbench's tables, statement for statement, also on data \
              `sysbench prepare` made; without a verb, load (if needed), run and report \
              (embedded SQLite by default)",
    load_summary: "Load sysbench's tables as `sysbench prepare` does: sbtest1..N of \
                   --table-size rows (id, k, c, pad), each with its index on k",
    run_summary: "Run one of sysbench's OLTP scripts on its tables and report",
    scale: Scale {
        unit: "table-size",
        one: "table-size",
        short: None,
        default: 10_000,
        max: 2_000_000_000,
    },
    run_flags: RunFlags {
        terminals: "1 (sysbench's --threads default)",
        wait_spec: None,
        home: None,
        seed_draws: "the tables, rows and values of each statement",
    },
    required_example: "",
    foreign_keys: None,
};

/// `txbench sysbench run`'s own flags: the script and sysbench's options.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SysbenchRunOptions {
    /// The script (sysbench's test name).
    pub script: Script,
    /// Its statement counts and switches.
    #[serde(flatten)]
    pub counts: Counts,
}

/// A count of statements or rows given on the command line.
fn count(value: &str) -> Result<u32, BadValue> {
    value
        .parse()
        .map_err(|_| BadValue(format!("'{value}' is not a whole number")))
}

/// The most statements of one kind a transaction: sysbench's defaults are
/// 1 to 10, and a transaction of 200,000 point selects took minutes to open.
pub const MOST_STATEMENTS: u32 = 1_000;

/// The longest range a range query may span.
pub const MOST_RANGE: u32 = 1_000_000;

/// A count within `least..=most`, the bounds named when it is not.
fn count_within(value: &str, least: u32, most: u32) -> Result<u32, BadValue> {
    let n = count(value)?;
    if n < least || n > most {
        return Err(BadValue(format!("'{value}' is outside {least}..={most}")));
    }
    Ok(n)
}

/// sysbench's `on`/`off` (and `true`/`false`).
fn switch(value: &str) -> Result<bool, BadValue> {
    match value {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        other => Err(BadValue(format!("'{other}' is not on or off"))),
    }
}

/// A flag setting one of the counts, by sysbench's option name.
macro_rules! count_flag {
    ($long:literal, $field:ident, $default:literal, $help:literal) => {
        count_flag!($long, $field, $default, $help, 0, MOST_STATEMENTS)
    };
    ($long:literal, $field:ident, $default:literal, $help:literal, $least:expr, $most:expr) => {
        Flag {
            long: $long,
            help: $help,
            value_name: "N",
            default: Some($default),
            choices: &[],
            set: |o: &mut SysbenchRunOptions, v| {
                o.counts.$field = count_within(v, $least, $most)?;
                Ok(())
            },
        }
    };
}

const ON_OFF: &[Choice] = &[
    Choice {
        name: "on",
        help: "Yes",
    },
    Choice {
        name: "off",
        help: "No",
    },
];

impl Options for SysbenchRunOptions {
    const FLAGS: &'static [Flag<Self>] = &[
        Flag {
            long: "script",
            help: "The OLTP script, as sysbench's test name",
            value_name: "SCRIPT",
            default: Some("oltp_read_write"),
            choices: &[
                Choice {
                    name: "oltp_read_write",
                    help: "Point selects, ranges, updates, a delete and an insert, in a \
                           transaction",
                },
                Choice {
                    name: "oltp_read_only",
                    help: "Point selects and ranges, in a transaction",
                },
                Choice {
                    name: "oltp_write_only",
                    help: "Index and non-index updates, a delete and an insert, in a \
                           transaction",
                },
                Choice {
                    name: "oltp_point_select",
                    help: "One point select, in autocommit",
                },
                Choice {
                    name: "oltp_update_index",
                    help: "Index updates (k = k + 1), in autocommit",
                },
                Choice {
                    name: "oltp_update_non_index",
                    help: "Non-index updates (c), in autocommit",
                },
                Choice {
                    name: "oltp_insert",
                    help: "One insert of a new row, in autocommit",
                },
                Choice {
                    name: "oltp_delete",
                    help: "One delete, in autocommit",
                },
            ],
            set: |o, v| {
                o.script = by_name(v)?;
                Ok(())
            },
        },
        count_flag!(
            "range-size",
            range_size,
            "100",
            "Rows a range query spans (1 to 1000000, at most the table's)",
            1,
            MOST_RANGE
        ),
        count_flag!(
            "point-selects",
            point_selects,
            "10",
            "Point selects a transaction (0 to 1000)"
        ),
        count_flag!(
            "simple-ranges",
            simple_ranges,
            "1",
            "Simple range selects a transaction (0 to 1000)"
        ),
        count_flag!(
            "sum-ranges",
            sum_ranges,
            "1",
            "SUM() range selects a transaction (0 to 1000)"
        ),
        count_flag!(
            "order-ranges",
            order_ranges,
            "1",
            "ORDER BY range selects a transaction (0 to 1000)"
        ),
        count_flag!(
            "distinct-ranges",
            distinct_ranges,
            "1",
            "DISTINCT range selects a transaction (0 to 1000)"
        ),
        count_flag!(
            "index-updates",
            index_updates,
            "1",
            "Index updates a transaction (0 to 1000)"
        ),
        count_flag!(
            "non-index-updates",
            non_index_updates,
            "1",
            "Non-index updates a transaction (0 to 1000)"
        ),
        count_flag!(
            "delete-inserts",
            delete_inserts,
            "1",
            "Delete-and-insert pairs a transaction (0 to 1000)"
        ),
        Flag {
            long: "range-selects",
            help: "Whether the range selects run",
            value_name: "on|off",
            default: Some("on"),
            choices: ON_OFF,
            set: |o, v| {
                o.counts.range_selects = switch(v)?;
                Ok(())
            },
        },
        Flag {
            long: "skip-trx",
            help: "Every statement in autocommit, no BEGIN or COMMIT",
            value_name: "on|off",
            default: Some("off"),
            choices: ON_OFF,
            set: |o, v| {
                o.counts.skip_trx = switch(v)?;
                Ok(())
            },
        },
        Flag {
            long: "rand-type",
            help: "How rows are chosen (sysbench 1.0's default is special: pass it for the \
                   same requests as sysbench 1.0 without --rand-type)",
            value_name: "TYPE",
            default: Some("uniform"),
            choices: &[
                Choice {
                    name: "uniform",
                    help: "Every row alike (sysbench 1.1's default)",
                },
                Choice {
                    name: "special",
                    help: "75% of the requests on 1% of the rows, the rest gaussian \
                           (sysbench 1.0's default)",
                },
                Choice {
                    name: "gaussian",
                    help: "The mean of 12 uniform draws",
                },
                Choice {
                    name: "pareto",
                    help: "80% of the requests on the first 20% of the rows",
                },
                Choice {
                    name: "zipfian",
                    help: "Zipfian of exponent 0.8, the first rows the hottest (sysbench 1.1)",
                },
            ],
            set: |o, v| {
                o.counts.rand_type = by_name(v)?;
                Ok(())
            },
        },
    ];
}

/// The tables' count, the flag shared by every verb (it shapes what a
/// load creates; a run takes the loaded count unless asked).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SysbenchTables {
    /// Tables; `None`: the loaded count, or 1.
    pub tables: Option<u32>,
}

impl Options for SysbenchTables {
    const FLAGS: &'static [Flag<Self>] = &[Flag {
        long: "tables",
        help: "Tables (sbtest1..N) [default: the loaded count, or 1]",
        value_name: "N",
        default: None,
        choices: &[],
        set: |o, v| {
            o.tables = Some(count(v)?);
            Ok(())
        },
    }];
}

/// The count asked on the command line, set once before any verb.
static ASKED: OnceLock<SysbenchTables> = OnceLock::new();

/// The count the opened run takes (the record's, or the tables there): what
/// its config.toml and summary.json say, so that a repeat runs as many.
static OPENED: OnceLock<u32> = OnceLock::new();

/// The tables a load makes, and a database without a record holds.
fn asked_tables() -> u32 {
    ASKED.get().and_then(|a| a.tables).unwrap_or(1)
}

const TABLES: &str = "tables";

/// The tables and metadata table of a load, the same for every script.
fn tables() -> &'static Defined {
    static DEFINED: OnceLock<Defined> = OnceLock::new();
    DEFINED.get_or_init(|| {
        let n = asked_tables();
        let spec = script::spec(Script::OltpReadWrite, &Counts::default(), n);
        let mut defined = Defined::new(spec, &ABOUT);
        defined.entries = vec![(TABLES, n.to_string())];
        defined
    })
}

/// The tables the database holds: the load's record, else (data `sysbench
/// prepare` made keeps none) the count asked, or without `--tables` the
/// `present` run of sbtest1, sbtest2, ...; checked against the asked.
fn loaded_tables(found: &Found, present: u32) -> Result<u32, WorkloadError> {
    let asked = ASKED.get().and_then(|a| a.tables);
    let Some(held) = found.int(TABLES)? else {
        return match (asked, found) {
            (None, Found::Loaded(_)) => Ok(present),
            // Data another tool loaded, which a load would not replace.
            (Some(asked), Found::Loaded(_)) if asked > present => {
                Err(WorkloadError::BadOption(format!(
                    "--tables {asked}: the database holds sbtest1..{present} and no sbtest{} \
                     (leave --tables out to run on them)",
                    present + 1
                )))
            }
            _ => Ok(asked_tables()),
        };
    };
    let held = held as u32;
    opened::as_loaded("tables", asked, held, &format!("{held} tables"))?;
    Ok(held)
}

/// How many of sbtest1, sbtest2, ... the database holds in a row.
async fn tables_present<S: Session>(session: &mut S) -> Result<u32, WorkloadError> {
    let tables = txbench_core::engine::loader_of(session)?;
    let mut n = 1;
    while n < MOST_TABLES && tables.table_exists(&format!("sbtest{}", n + 1)).await? {
        n += 1;
    }
    Ok(n)
}

/// Check every table the load recorded (or, without `--tables`, that many:
/// the tables asked for when data `sysbench prepare` made keeps no record).
async fn check_loaded<S: Session>(
    session: &mut S,
    loaded: &Loaded,
) -> Result<Vec<ConditionResult>, WorkloadError> {
    // The tables there are counted only where no record says how many.
    let present = if loaded.entries.has(TABLES) {
        0
    } else {
        tables_present(session).await?
    };
    let held = loaded_tables(&Found::Loaded(loaded.clone()), present)?;
    let spec = script::spec(Script::OltpReadWrite, &Counts::default(), held);
    Ok(super::invariants::check(session, &spec).await?)
}

/// What a sysbench run records: the file's, and the tables it ran on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SysbenchParameters {
    /// The script's name, title and scale.
    #[serde(flatten)]
    pub file: opened::FileParameters,
    /// The tables (sbtest1..N).
    pub tables: u32,
}

/// An OLTP script, as `txbench sysbench` runs it.
pub type Sysbench = FileWorkload<SysbenchScript>;

/// The marker of [`Sysbench`].
#[derive(Debug)]
pub enum SysbenchScript {}

impl Benchmark for Sysbench {
    const ABOUT: &'static About = &ABOUT;
    type Definition = SysbenchTables;
    type LoadOptions = crate::options::NoOptions;
    type RunOptions = SysbenchRunOptions;

    fn definition() -> SysbenchTables {
        SysbenchTables {
            tables: OPENED.get().copied().or(ASKED.get().and_then(|a| a.tables)),
        }
    }

    fn define(asked: &SysbenchTables) -> Result<(), WorkloadError> {
        opened::within("tables", asked.tables, MOST_TABLES)?;
        opened::keep_asked(&ASKED, asked, "--tables")
    }

    fn schema() -> &'static Schema {
        tables().made.schema
    }

    fn meta() -> &'static MetaTable {
        tables().made.meta
    }

    async fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        _options: &crate::options::NoOptions,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        tables().load(engine, plan, rows_done).await
    }

    fn expected_rows(table_size: i64) -> u64 {
        super::load::rows(&tables().spec, table_size)
    }

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        _seed: u64,
        options: &SysbenchRunOptions,
    ) -> Result<Self, WorkloadError> {
        let name = txbench_core::settings::name_of(&options.script);
        if let Some(served) = crate::opening::served_value(session, "script")
            && served != name
        {
            return Err(WorkloadError::BadOption(format!(
                "--script {name}: the txbench server serves sysbench's {served}"
            )));
        }
        let (script, counts) = (options.script, options.counts.clone());
        let present = match session.execution() {
            txbench_core::Execution::Statements => tables_present(session).await?,
            _ => 1,
        };
        let workload: Self = tables()
            .open(session, asked, |found| {
                Ok(script::spec(
                    script,
                    &counts,
                    loaded_tables(found, present)?,
                ))
            })
            .await?;
        let _ = OPENED.set(workload.spec().tables.len() as u32);
        let rows = FileWorkload::scale(&workload);
        // sysbench's default of 100 spans a smaller table whole, as in
        // sysbench; a range asked for that the table cannot hold is a mistake.
        let ranges = matches!(script, Script::OltpReadWrite | Script::OltpReadOnly);
        let asked = counts.range_size != Counts::default().range_size;
        if ranges && asked && i64::from(counts.range_size) > rows {
            return Err(WorkloadError::BadOption(format!(
                "--range-size {}: the tables hold {rows} rows",
                counts.range_size
            )));
        }
        Ok(workload)
    }

    fn check() -> Option<Check> {
        Some(Check {
            summary: "Check that each table's ids run from 1 to its row count, as prepare made \
                      them and read_write keeps them",
            run: |session, loaded| Box::pin(check_loaded(session, loaded)),
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

    type Parameters = SysbenchParameters;

    fn parameters(&self) -> SysbenchParameters {
        SysbenchParameters {
            file: opened::parameters(self),
            tables: self.spec().tables.len() as u32,
        }
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        let script = self
            .spec()
            .title
            .trim_start_matches("sysbench ")
            .to_string();
        vec![
            ("workload".to_string(), ABOUT.name.to_string()),
            (ABOUT.scale.unit.to_string(), self.scale().to_string()),
            ("script".to_string(), script),
            (TABLES.to_string(), self.spec().tables.len().to_string()),
        ]
    }

    /// Transactions a second, as sysbench's "transactions: N (per sec.)".
    fn metrics(types: &[TypeResult], measured_secs: f64, _basis: MetricBasis) -> Vec<Metric> {
        vec![opened::throughput(types, measured_secs, "tps")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_the_help_shows_is_taken_and_recorded_by_its_name() {
        for flag in SysbenchRunOptions::FLAGS {
            for choice in flag.choices {
                let mut options = SysbenchRunOptions::default();
                (flag.set)(&mut options, choice.name).unwrap();
                let recorded = toml::Value::try_from(&options).unwrap();
                let key = flag.long.replace('-', "_");
                let value = recorded.get(&key).unwrap_or_else(|| panic!("{key}"));
                let shown = match value {
                    toml::Value::Boolean(b) => if *b { "on" } else { "off" }.to_string(),
                    other => other.as_str().unwrap().to_string(),
                };
                assert_eq!(shown, choice.name, "{}", flag.long);
            }
        }
    }

    #[test]
    fn a_count_flag_sets_its_count_and_refuses_what_is_not_one() {
        let mut options = SysbenchRunOptions::default();
        let flag = |long| {
            SysbenchRunOptions::FLAGS
                .iter()
                .find(|f| f.long == long)
                .unwrap()
        };
        (flag("point-selects").set)(&mut options, "3").unwrap();
        assert_eq!(options.counts.point_selects, 3);
        let e = (flag("range-size").set)(&mut options, "ten").unwrap_err();
        assert_eq!(e.0, "'ten' is not a whole number");
        let e = (flag("skip-trx").set)(&mut options, "maybe").unwrap_err();
        assert_eq!(e.0, "'maybe' is not on or off");
    }
}
