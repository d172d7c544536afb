//! A workload file's tables made for the engines and loaded: its schema with
//! a metadata table of its own (`txbench_<name>_meta`), its description, and
//! the population, generated in chunks of rows, each chunk from its own
//! random stream (so the database is the same whatever the order), through
//! the load every workload shares ([`crate::bulk::load`]).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::Engine;
use txbench_core::Value;
use txbench_core::rng::Rand;
use txbench_core::schema::{self, ColumnType, KvOp, Schema, Statement};
use txbench_core::value::RowBatch;

use super::draw::{Draw, NextKeys};
use super::spec::{Spec, Table};
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
    let meta_name = keep_text(format!("txbench_{}_meta", spec.name.replace('-', "_")));
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
            t.indexes.iter().map(|(name, columns)| schema::Index {
                name: keep_text(name.clone()),
                table: keep_text(t.name.clone()),
                columns: keep_all(columns.iter().map(|c| keep_text(c.clone())).collect()),
                unique: false,
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
    });
    Made {
        about,
        schema,
        meta,
    }
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

/// The rows a load of `spec` at `scale` writes.
pub fn rows(spec: &Spec, scale: i64) -> u64 {
    spec.tables
        .iter()
        .map(|t| t.rows.at(scale) as u64)
        .fold(0, u64::saturating_add)
}

/// A number drawn for a text column as its text (digits in a `varchar`, as
/// every engine then stores the same); other values as drawn.
fn as_column_takes(value: Value, ty: ColumnType) -> Value {
    match (value, ty) {
        (Value::Int(i), ColumnType::Char(_) | ColumnType::Varchar(_)) => Value::Text(i.to_string()),
        (Value::Float(f), ColumnType::Char(_) | ColumnType::Varchar(_)) => {
            Value::Text(f.to_string())
        }
        (value, _) => value,
    }
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
        for (d, c) in draws.iter().zip(&table.columns) {
            batch
                .values
                .push(as_column_takes(d.value(&mut rng, row), c.ty));
        }
    }
    batch
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
    // Each table's rows in chunks: (table, first row).
    let units: Vec<(usize, i64)> = spec
        .tables
        .iter()
        .enumerate()
        .flat_map(|(t, table)| {
            (0..table.rows.at(scale))
                .step_by(CHUNK as usize)
                .map(move |first| (t, first))
        })
        .collect();
    let tables = made.schema.tables;
    let population = Population {
        units,
        generate: move |index: usize, (t, first): (usize, i64)| {
            let table = &spec.tables[t];
            let end = (first + CHUNK).min(table.rows.at(scale));
            let rng = Rand::derive(seed, index as u64);
            vec![table_rows(table, &tables[t], first..end, scale, rng)]
        },
        entries,
        partitioning: None,
    };
    bulk::load(engine, made.meta, made.schema, plan, population, rows_done).await
}
