//! A workload file's tables made for the engines and loaded: its schema with
//! a metadata table of its own (`txbench_<name>_meta`), its description, and
//! the population, generated in chunks of rows, each chunk from its own
//! random stream (so the database is the same whatever the order), through
//! the load every workload shares ([`crate::bulk::load`]).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::Engine;
use txbench_core::rng::Rand;
use txbench_core::schema::{self, ColumnType, Schema, Statement};
use txbench_core::value::RowBatch;

use super::check::Spec;
use super::draw::{Draw, NextKeys};
use crate::about::{About, RunFlags, Scale};
use crate::bulk::{self, LoadPlan, LoadSummary, Population};
use crate::error::WorkloadError;
use crate::meta_table::MetaTable;

/// Rows generated together, from one random stream.
const CHUNK: i64 = 1_000;

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

fn text(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

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

/// The schema, description and metadata table of `spec`.
pub fn make(spec: &Spec) -> Made {
    let tables: Vec<schema::Table> = spec
        .tables
        .iter()
        .map(|t| schema::Table {
            name: text(t.name.clone()),
            columns: Box::leak(
                t.columns
                    .iter()
                    .map(|c| schema::Column::new(text(c.name.clone()), c.ty))
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            ),
            primary_key: Box::leak(
                t.primary_key
                    .iter()
                    .map(|k| text(k.clone()))
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            ),
        })
        .collect();
    let meta_name = text(format!("txbench_{}_meta", spec.name.replace('-', "_")));
    let meta_table = schema::Table {
        name: meta_name,
        columns: leak([
            schema::Column::new("m_key", ColumnType::Varchar(64)),
            schema::Column::new("m_value", ColumnType::Varchar(200)),
        ]),
        primary_key: leak(["m_key"]),
    };
    let all: &'static [schema::Table] = Box::leak(
        tables
            .into_iter()
            .chain([meta_table])
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    let about = leak(About {
        name: text(spec.name.clone()),
        title: text(spec.title.clone()),
        summary: "a workload file",
        load_summary: "create the file's tables and load them",
        run_summary: "run the file's transactions",
        check_summary: (!spec.invariants.is_empty()).then_some("run the file's invariants"),
        scale: Scale {
            unit: text(spec.scale_unit.clone()),
            one: text(spec.scale_unit.trim_end_matches('s').to_string()),
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
    });
    let schema = leak(Schema {
        tables: all,
        indexes: &[],
        foreign_keys: &[],
    });
    let meta = leak(MetaTable {
        about,
        table: &all[all.len() - 1],
        data: &all[0],
        insert: leak(Statement::new(
            "insert meta",
            text(format!(
                "INSERT INTO {meta_name} (m_key, m_value) VALUES (?, ?)"
            )),
        )),
        select: leak(Statement::new(
            "select meta",
            text(format!("SELECT m_key, m_value FROM {meta_name}")),
        )),
        count: None,
    });
    Made {
        about,
        schema,
        meta,
    }
}

/// The rows a load of `spec` at `scale` writes.
pub fn rows(spec: &Spec, scale: i64) -> u64 {
    spec.tables
        .iter()
        .map(|t| table_rows(t.rows_per_scale, scale) as u64)
        .sum()
}

fn table_rows(per_scale: f64, scale: i64) -> i64 {
    (per_scale * scale as f64).round().max(1.0) as i64
}

/// Load `spec` at `plan.scale` through `made`'s schema.
pub async fn load<E: Engine>(
    engine: Arc<E>,
    spec: Arc<Spec>,
    made: &Made,
    plan: &LoadPlan,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, WorkloadError> {
    let scale = plan.scale;
    let seed = plan.seed;
    // Each table's rows in chunks: (table, first row).
    let units: Vec<(usize, i64)> = spec
        .tables
        .iter()
        .enumerate()
        .flat_map(|(t, table)| {
            (0..table_rows(table.rows_per_scale, scale))
                .step_by(CHUNK as usize)
                .map(move |first| (t, first))
        })
        .collect();
    let tables = made.schema.tables;
    let population = Population {
        units,
        generate: move |index: usize, (t, first): (usize, i64)| {
            let table = &spec.tables[t];
            let end = (first + CHUNK).min(table_rows(table.rows_per_scale, scale));
            let mut rng = Rand::derive(seed, index as u64);
            let next = NextKeys::default();
            let draws: Vec<Draw> = table
                .columns
                .iter()
                .map(|c| Draw::new(&c.generator, scale, &next, &mut rng).expect("checked"))
                .collect();
            let mut batch = RowBatch::for_table(&tables[t], (end - first) as usize);
            for row in first..end {
                for d in &draws {
                    batch.values.push(d.value(&mut rng, row));
                }
            }
            vec![batch]
        },
        entries: Vec::new(),
    };
    bulk::load(engine, made.meta, made.schema, plan, population, rows_done).await
}
