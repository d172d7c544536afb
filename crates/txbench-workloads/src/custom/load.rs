//! A workload file's tables made for the engines and loaded: its schema with
//! a metadata table of its own (`txbench_<name>_meta`), its description, and
//! the population, generated in chunks of rows, each chunk from its own
//! random stream (so the database is the same whatever the order), through
//! the load every workload shares ([`crate::bulk::load`]).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::Engine;
use txbench_core::rng::Rand;
use txbench_core::schema::{self, ColumnType, KvOp, Schema, Statement};
use txbench_core::value::RowBatch;

use super::draw::{Draw, NextKeys, as_column_takes};
use super::drawn_rows::{self, Chunk};
use super::fits;
use super::spec::{Generator, Rows, Spec, Table};
use super::{keep, keep_all, keep_text};
use crate::about::{About, RunFlags, Scale};
use crate::bulk::{self, LoadPlan, LoadSummary, Population};
use crate::error::WorkloadError;
use crate::meta_table::MetaTable;

/// Rows generated together, from one random stream.
const CHUNK: i64 = 1_000;

/// What the engines and the shared steps need of a file's workload, made
/// once per process (the driver and the loaders take them for its life).
#[derive(Debug)]
pub struct Made {
    /// The names, title and scale.
    pub about: &'static About,
    /// The file's tables, then its metadata table.
    pub schema: &'static Schema,
    /// Where its load is recorded.
    pub meta: &'static MetaTable,
}

/// The description of `spec` as a workload of its own (the library's use;
/// the commands describe it as theirs: `custom`, `ycsb`).
pub fn about_of(spec: &Spec) -> &'static About {
    keep(About {
        name: keep_text(spec.name.clone()),
        title: keep_text(spec.title.clone()),
        summary: "a workload file",
        load_summary: "create the file's tables and load them",
        run_summary: "run the file's transactions",
        scale: Scale {
            unit: keep_text(spec.scale_unit.clone()),
            one: keep_text(spec.scale_unit.trim_end_matches('s').to_string()),
            short: None,
            default: spec.default_scale,
            max: i64::MAX / 1_000_000,
        },
        run_flags: RunFlags {
            terminals: "terminals_per_scale of the file",
            wait_spec: None,
            home: None,
            seed_draws: "the transactions' parameters",
        },
        required_example: " --file orders.toml",
        foreign_keys: None,
    })
}

/// The schema and metadata table of `spec`, the load recorded under `about`.
pub fn make(spec: &Spec, about: &'static About) -> Made {
    let tables: Vec<schema::Table> = spec.tables.iter().map(schema_table).collect();
    let meta_name = keep_text(crate::meta_table::file_record(&spec.name));
    let meta_table = schema::Table {
        name: meta_name,
        columns: keep([
            schema::Column::new("m_key", ColumnType::Varchar(64)),
            schema::Column::new("m_value", ColumnType::Varchar(200)),
        ]),
        primary_key: keep(["m_key"]),
    };
    let all = keep_all(tables.into_iter().chain([meta_table]).collect());
    let indexes = (spec.tables.iter())
        .flat_map(|t| {
            t.indexes.iter().map(|i| schema::Index {
                name: keep_text(i.name.clone()),
                table: keep_text(t.name.clone()),
                columns: keep_all(i.columns.iter().map(|c| keep_text(c.clone())).collect()),
                unique: i.unique,
            })
        })
        .collect();
    let schema = keep(Schema {
        tables: all,
        indexes: keep_all(indexes),
        foreign_keys: &[],
        key_value: spec.key_value(),
    });
    // Data another tool loaded is found by the table its scale comes from.
    let data = (spec.scale_from.as_ref())
        .and_then(|name| spec.tables.iter().position(|t| t.name == *name))
        .unwrap_or(0);
    let meta = keep(MetaTable {
        about,
        table: &all[all.len() - 1],
        data: &all[data],
        // Key-value operations too, so that Redis keeps the same record.
        insert: keep(
            Statement::new(
                "insert meta",
                keep_text(format!(
                    "INSERT INTO {meta_name} (m_key, m_value) VALUES (?, ?)"
                )),
            )
            .key_value(KvOp::Put {
                table: meta_name,
                key: 0,
                value: 1,
            }),
        ),
        select: keep(
            Statement::new(
                "select meta",
                keep_text(format!("SELECT m_key, m_value FROM {meta_name}")),
            )
            .key_value(KvOp::Scan { table: meta_name }),
        ),
        count: spec.scale_from.as_ref().map(|table| {
            let sql = format!("SELECT count(*) FROM {table}");
            keep(Statement::new("count the scale", keep_text(sql)))
        }),
        count_varies: spec
            .scale_from
            .as_ref()
            .is_some_and(|table| changes_rows_of(spec, table)),
    });
    Made {
        about,
        schema,
        meta,
    }
}

/// Whether any of `spec`'s statements inserts rows into or deletes rows
/// from `table`.
fn changes_rows_of(spec: &Spec, table: &str) -> bool {
    let table = table.to_ascii_lowercase();
    let [insert, delete] = [
        format!("insert into {table} "),
        format!("delete from {table} "),
    ];
    (spec.transactions.iter())
        .flat_map(|t| &t.statements)
        .map(|s| s.sql.to_ascii_lowercase())
        .any(|sql| sql.contains(&insert) || sql.contains(&delete))
}

/// A checked table as the engines take it.
pub fn schema_table(t: &Table) -> schema::Table {
    schema::Table {
        name: keep_text(t.name.clone()),
        columns: keep_all(
            t.columns
                .iter()
                .map(|c| schema::Column {
                    nullable: c.nullable,
                    ..schema::Column::new(keep_text(c.name.clone()), c.ty)
                })
                .collect(),
        ),
        primary_key: keep_all(t.primary_key.iter().map(|k| keep_text(k.clone())).collect()),
    }
}

/// The rows a load of `spec` at `scale` writes; a `for_each` table's
/// estimated by the mean of its count ([`rows_loaded`] draws them).
pub fn rows(spec: &Spec, scale: i64) -> u64 {
    spec.tables
        .iter()
        .map(|t| t.rows.at(scale) as u64)
        .fold(0, u64::saturating_add)
}

/// The rows a load of `spec` at `scale` with `seed` writes, a `for_each`
/// table's counted as the load draws them.
pub fn rows_loaded(spec: &Spec, scale: i64, seed: u64) -> u64 {
    (spec.tables.iter())
        .map(|table| match &table.rows {
            Rows::ForEach(each) => drawn_rows::counts(table, each, scale, seed, CHUNK).total,
            rows => rows.at(scale),
        } as u64)
        .fold(0, u64::saturating_add)
}

/// The rows `rows` of `table` (made as `made`) at `scale`, drawn from
/// `rng`. Its generators were checked with the file and the scale
/// ([`Spec::beyond_bounds`]), so each one is ready to draw.
pub fn table_rows(
    table: &Table,
    made: &schema::Table,
    rows: std::ops::Range<i64>,
    scale: i64,
    mut rng: Rand,
) -> RowBatch {
    let next = NextKeys::default();
    let draws: Vec<Draw> = table
        .columns
        .iter()
        .map(|c| Draw::new(&c.generator, scale, &next, &mut rng).expect("checked"))
        .collect();
    let mut batch = RowBatch::for_table(made, (rows.end - rows.start).max(0) as usize);
    for row in rows {
        let first = batch.values.len();
        for (d, c) in draws.iter().zip(&table.columns) {
            let value = d.column_value(&mut rng, row, &batch.values[first..]);
            batch.values.push(as_column_takes(value, c.ty));
        }
    }
    batch
}

/// The statements that load the `from` tables of `spec` (made as `made`),
/// in the file's order: each an `INSERT` of its query's rows.
fn derived(made: &[schema::Table], spec: &Spec) -> Vec<&'static Statement> {
    (spec.tables.iter().zip(made))
        .filter_map(|(table, made)| {
            let Rows::Selected(query) = &table.rows else {
                return None;
            };
            let columns: Vec<&str> = made.columns.iter().map(|c| c.name).collect();
            let sql = format!("INSERT INTO {} ({}) {query}", made.name, columns.join(", "));
            let name = keep_text(format!("load {}", made.name));
            Some(keep(Statement::new(name, keep_text(sql))))
        })
        .collect()
}

/// The statements of `spec`'s `[[after_load]]`, in the file's order.
fn finishing(spec: &Spec) -> Vec<&'static Statement> {
    (spec.after_load.iter())
        .map(|(name, sql)| {
            let name = keep_text(format!("after_load {name}"));
            keep(Statement::new(name, keep_text(sql.clone())))
        })
        .collect()
}

/// A chunk of a table's rows to make: of keys of the parent for a
/// `for_each` table, else of rows.
#[derive(Debug, Clone, Copy)]
struct Unit {
    /// The table's place in the file.
    table: usize,
    /// The chunk's place in the table.
    chunk: usize,
    /// Its first row (or, for a `for_each` table, its first parent key's
    /// offset).
    first: i64,
    /// The table's row its first row is.
    first_row: i64,
}

/// Every table's chunks at `scale` and `seed`; a `for_each` table's counts
/// drawn to number its rows, and its sequences checked against them.
fn units(spec: &Spec, scale: i64, seed: u64) -> Result<Vec<Unit>, WorkloadError> {
    let mut units = Vec::new();
    for (t, table) in spec.tables.iter().enumerate() {
        let chunks: Vec<(i64, i64)> = match &table.rows {
            Rows::ForEach(each) => {
                let counts = drawn_rows::counts(table, each, scale, seed, CHUNK);
                sequences_fit(table, counts.total, scale)?;
                let starts = (0..each.parent.rows.at(scale)).step_by(CHUNK as usize);
                starts.zip(counts.first_rows).collect()
            }
            rows => (0..rows.at(scale))
                .step_by(CHUNK as usize)
                .map(|f| (f, f))
                .collect(),
        };
        units.extend(
            chunks
                .into_iter()
                .enumerate()
                .map(|(chunk, (first, first_row))| Unit {
                    table: t,
                    chunk,
                    first,
                    first_row,
                }),
        );
    }
    Ok(units)
}

/// A `for_each` table's sequence columns hold its `rows` drawn rows.
fn sequences_fit(table: &Table, rows: i64, scale: i64) -> Result<(), WorkloadError> {
    for c in &table.columns {
        if let Generator::Sequence { start, .. } = c.generator
            && let Some(misfit) = fits::keys_misfit(c.ty, start, rows)
        {
            return Err(WorkloadError::BadOption(format!(
                "--scale {scale}: table '{}' column '{}': {misfit}",
                table.name, c.name
            )));
        }
    }
    Ok(())
}

/// Load `spec` at `plan.scale` through `made`'s schema.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    spec: Arc<Spec>,
    made: &Made,
    plan: &LoadPlan,
    entries: Vec<(&'static str, String)>,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, WorkloadError> {
    let scale = plan.scale;
    let seed = plan.seed;
    if let Some(beyond) = spec.beyond_bounds(scale) {
        return Err(WorkloadError::BadOption(format!(
            "--scale {scale}: {beyond}"
        )));
    }
    let units = units(&spec, scale, seed)?;
    let derived = derived(&made.schema.tables[..spec.tables.len()], &spec);
    let finishing = finishing(&spec);
    let tables = made.schema.tables;
    let population = Population {
        units,
        generate: move |index: usize, unit: Unit| {
            let table = &spec.tables[unit.table];
            let rng = Rand::derive(seed, index as u64);
            let made = &tables[unit.table];
            let batch = match &table.rows {
                Rows::ForEach(each) => drawn_rows::rows(
                    (table, each),
                    made,
                    Chunk {
                        index: unit.chunk,
                        keys: unit.first..(unit.first + CHUNK).min(each.parent.rows.at(scale)),
                        first_row: unit.first_row,
                    },
                    (scale, seed),
                    rng,
                ),
                rows => {
                    let end = (unit.first + CHUNK).min(rows.at(scale));
                    table_rows(table, made, unit.first..end, scale, rng)
                }
            };
            vec![batch]
        },
        entries,
        partitioning: None,
        derived,
        finishing,
    };
    bulk::load(engine, made.meta, made.schema, plan, population, rows_done).await
}
