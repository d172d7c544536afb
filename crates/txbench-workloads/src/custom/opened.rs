//! What the commands that run workload files (`txbench custom`, `txbench
//! ycsb`) share: a checked file made ready for the engines once, its
//! workload opened at the scale the database holds, and its headline figures.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use serde::Serialize;
use txbench_core::Engine;
use txbench_core::ErrorKind;
use txbench_core::Session;
use txbench_core::result::{Counted, Metric, TypeResult};

use super::load::{self, Made};
use super::run::FileWorkload;
use super::spec::{Generator, KeyRange, Spec};
use super::{keep, keep_text};
use crate::about::About;
use crate::benchmark::rate;
use crate::bulk::{LoadPlan, LoadSummary};
use crate::conditions::ConditionResult;
use crate::error::WorkloadError;
use crate::opening::{self, Found};
use txbench_core::schema::{KvOp, Statement};

/// A checked workload file with its tables and metadata table made, kept for
/// the life of the process (the engines and the loaders take them so).
#[derive(Debug)]
pub struct Defined {
    /// The checked file.
    pub spec: Arc<Spec>,
    /// Its schema and metadata table, the load recorded under the command's
    /// name.
    pub made: Made,
    /// What a load records of it beyond the scale (YCSB's record shape).
    pub entries: Vec<(&'static str, String)>,
}

impl Defined {
    /// `spec` made ready, its load recorded as `about`'s.
    pub fn new(spec: Spec, about: &'static About) -> Defined {
        let made = load::make(&spec, about);
        Defined {
            spec: Arc::new(spec),
            made,
            entries: Vec::new(),
        }
    }

    /// Load it at `plan.scale`.
    pub async fn load<E: Engine>(
        &self,
        engine: Arc<E>,
        plan: &LoadPlan,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        let spec = Arc::clone(&self.spec);
        let entries = self.entries.clone();
        load::load(engine, spec, &self.made, plan, entries, rows_done).await
    }

    /// Its workload on a session of the database (or server) that holds it,
    /// at the scale there, checked against `asked`; `spec` says what runs,
    /// given what the load recorded (the file, or a variant of it with the
    /// same tables).
    pub async fn open<S: Session, K>(
        &self,
        session: &mut S,
        asked: Option<i64>,
        spec: impl FnOnce(&Found) -> Result<Spec, WorkloadError>,
    ) -> Result<FileWorkload<K>, WorkloadError> {
        let (scale, found) = opening::find(session, self.made.meta, asked).await?;
        if let Some(beyond) = self.spec.beyond_bounds(scale) {
            return Err(WorkloadError::BadOption(format!(
                "--scale {scale}: {beyond}"
            )));
        }
        let workload = FileWorkload::named(spec(&found)?, scale, self.made.about.name);
        if let Found::Loaded(_) = found {
            // A table of another shape is named as such, not by the first
            // statement of the file that the database refuses.
            crate::shape::check(session, self.made.meta, &workload.tables()).await?;
            prepares(session, &workload).await?;
            past_earlier_inserts(session, &workload).await?;
        }
        Ok(workload)
    }

    /// Its invariants on the database.
    pub async fn check<S: Session>(
        &self,
        session: &mut S,
    ) -> Result<Vec<ConditionResult>, WorkloadError> {
        Ok(super::invariants::check(session, &self.spec).await?)
    }
}

/// Every statement prepared on the database before the run: one it refuses
/// is a mistake in the file, named by its line with the database's own
/// message (a lost connection stays a failure), and so is an `into` that
/// names more values than the statement's rows have columns (it would read
/// NULL into the rest).
async fn prepares<S: Session, K>(
    session: &mut S,
    workload: &FileWorkload<K>,
) -> Result<(), WorkloadError> {
    let file = &workload.spec().file;
    for (statement, line, into) in workload.statements() {
        let columns = match session.prepare(statement).await {
            Ok(columns) => columns,
            Err(e) if e.kind == ErrorKind::Connection => return Err(e.into()),
            Err(e) => {
                return Err(WorkloadError::BadOption(format!(
                    "{file}:{line}: statement '{}': the database refuses it: {}",
                    statement.name, e.message
                )));
            }
        };
        if let Some(columns) = columns.filter(|&c| into > c) {
            return Err(WorkloadError::BadOption(format!(
                "{file}:{line}: statement '{}': into names {into} values, but its rows have {columns} column(s)",
                statement.name
            )));
        }
    }
    Ok(())
}

/// Start each key column's inserts past the largest key in its table: an
/// earlier run's inserts are there (YCSB D, then E, on one load), and keys
/// counted from the load alone would repeat them.
async fn past_earlier_inserts<S: Session, K>(
    session: &mut S,
    workload: &FileWorkload<K>,
) -> Result<(), WorkloadError> {
    let mut seen: Vec<&KeyRange> = Vec::new();
    let inserted = workload
        .spec()
        .transactions
        .iter()
        .flat_map(|t| &t.params)
        .filter_map(|(_, g)| match g {
            Generator::NextKey(keys) | Generator::Latest { keys, .. } => Some(keys),
            _ => None,
        });
    for keys in inserted {
        if seen.contains(&keys) {
            continue;
        }
        seen.push(keys);
        let rows = session.query(largest_key(workload, keys), &[]).await?;
        if let Some(largest) = rows.row(0).and_then(|r| r.get(0)).and_then(|v| v.as_i64()) {
            workload
                .next_keys()
                .start_past(keys, workload.scale(), largest);
        }
    }
    Ok(())
}

/// The query of the largest key of `keys`' column, in both forms (the SQL
/// and the key-value one).
fn largest_key<K>(workload: &FileWorkload<K>, keys: &KeyRange) -> &'static Statement {
    let sql = format!("SELECT max({}) FROM {}", keys.column, keys.table);
    let statement = Statement::new("largest key", keep_text(sql));
    keep(match workload.table(&keys.table) {
        Some(table) => statement.key_value(KvOp::Last { table }),
        None => statement,
    })
}

/// A count given to a definition flag (`--field-count`, `--tables`) that
/// must be from 1 to `most`.
pub fn within(flag: &str, asked: Option<u32>, most: u32) -> Result<(), WorkloadError> {
    match asked {
        Some(n) if n == 0 || n > most => Err(WorkloadError::BadOption(format!(
            "--{flag} {n}: must be 1 to {most}"
        ))),
        _ => Ok(()),
    }
}

/// Keep `asked`, the definition flags of the process's first verb, in
/// `cell` (the tables a command makes are made once per process); another
/// definition later is refused, naming its `flags`.
pub fn keep_asked<T: Clone + PartialEq>(
    cell: &std::sync::OnceLock<T>,
    asked: &T,
    flags: &str,
) -> Result<(), WorkloadError> {
    match cell.get() {
        Some(first) if first != asked => Err(WorkloadError::BadOption(format!(
            "{flags}: this process already runs another definition"
        ))),
        Some(_) => Ok(()),
        None => {
            let _ = cell.set(asked.clone());
            Ok(())
        }
    }
}

/// A definition flag asked (`asked`) against what the load made (`held`):
/// another value is refused, saying what the database `holds`.
pub fn as_loaded(
    flag: &str,
    asked: Option<u32>,
    held: u32,
    holds: &str,
) -> Result<(), WorkloadError> {
    match asked {
        Some(a) if a != held => Err(WorkloadError::BadOption(format!(
            "--{flag} {a}: the database holds {holds} (load again with --{flag} {a} --drop, or \
             leave it out)"
        ))),
        _ => Ok(()),
    }
}

/// What every file's run records of the file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileParameters {
    /// The file's name for its workload.
    pub file_workload: String,
    /// Its title.
    pub file_title: String,
    /// What its scale counts.
    pub scale_counts: String,
}

/// What every file's run records of the file: its name and title, and the
/// scale's own word.
pub fn parameters<K>(workload: &FileWorkload<K>) -> FileParameters {
    let spec = workload.spec();
    FileParameters {
        file_workload: spec.name.clone(),
        file_title: spec.title.clone(),
        scale_counts: spec.scale_unit.clone(),
    }
}

/// Committed transactions a second, in `unit`: a file's first headline.
pub fn throughput(types: &[TypeResult], measured_secs: f64, unit: &str) -> Metric {
    let committed: u64 = types.iter().map(|t| t.committed).sum();
    Metric {
        name: "throughput".into(),
        value: rate(committed, measured_secs),
        unit: unit.into(),
        counts: Some(Counted::Committed),
        interval: None,
    }
}

/// A file's headline figures: its [`throughput`], and the observed share of
/// transactions that ended in a rollback the workload's logic asks for
/// (named "rolled back": "expected rollbacks" read as an expectation).
pub fn metrics(types: &[TypeResult], measured_secs: f64, unit: &str) -> Vec<Metric> {
    let committed: u64 = types.iter().map(|t| t.committed).sum();
    let rollbacks: u64 = types.iter().map(|t| t.expected_rollbacks).sum();
    let ended = committed + rollbacks;
    vec![
        throughput(types, measured_secs, unit),
        Metric {
            name: "rolled back".into(),
            value: if ended > 0 {
                rollbacks as f64 * 100.0 / ended as f64
            } else {
                0.0
            },
            unit: "% (as the workload asks)".into(),
            counts: None,
            interval: None,
        },
    ]
}
