//! The shared bulk loader gathers consecutive batches of a table into one
//! write of the engine's bulk path (a COPY, a LOAD DATA), up to a bound and
//! within the engine's rows per commit, and writes every row once.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use txbench_core::schema::{Column, ColumnType, Index, Schema, Statement, Table};
use txbench_core::{
    DbError, Engine, Loader, NoWholeTransactions, Param, RowBatch, Rows, Session, TxMode, Value,
};
use txbench_workloads::bulk;

static COLUMNS: [Column; 1] = [Column::new("k", ColumnType::BigInt)];
static TABLES: [Table; 2] = [
    Table {
        name: "first",
        columns: &COLUMNS,
        primary_key: &[],
    },
    Table {
        name: "second",
        columns: &COLUMNS,
        primary_key: &[],
    },
];
static SCHEMA: Schema = Schema {
    tables: &TABLES,
    indexes: &[],
    foreign_keys: &[],
    key_value: false,
};

/// Each bulk write: its table and its rows.
type Writes = Arc<Mutex<Vec<(&'static str, usize)>>>;

/// An engine whose loads only note their writes, with a limit of rows per
/// commit where given.
#[derive(Clone)]
struct Counting {
    writes: Writes,
    most_rows_per_commit: Option<u64>,
}

impl Engine for Counting {
    type Session = Counting;
    const BLOCKING: bool = false;
    fn name(&self) -> &'static str {
        "counting"
    }
    fn describe(&self) -> String {
        "counting".into()
    }
    async fn connect(&self) -> Result<Counting, DbError> {
        Ok(self.clone())
    }
    fn max_writers(&self) -> usize {
        1
    }
}

impl Session for Counting {
    type Loader = Counting;
    type Whole = NoWholeTransactions;
    fn loader(&mut self) -> Option<&mut Counting> {
        Some(self)
    }
    async fn begin(&mut self, _: TxMode) -> Result<(), DbError> {
        Ok(())
    }
    async fn commit(&mut self) -> Result<(), DbError> {
        Ok(())
    }
    async fn rollback(&mut self) -> Result<(), DbError> {
        Ok(())
    }
    async fn query(&mut self, _: &'static Statement, _: &[Param<'_>]) -> Result<Rows, DbError> {
        Ok(Rows::empty())
    }
    async fn execute(&mut self, _: &'static Statement, _: &[Param<'_>]) -> Result<u64, DbError> {
        Ok(0)
    }
    async fn query_sql(&mut self, _: &str) -> Result<Rows, DbError> {
        Ok(Rows::empty())
    }
}

impl Loader for Counting {
    async fn create_table(&mut self, _: &Table) -> Result<(), DbError> {
        Ok(())
    }
    async fn create_index(&mut self, _: &Index) -> Result<(), DbError> {
        Ok(())
    }
    async fn drop_table(&mut self, _: &str) -> Result<(), DbError> {
        Ok(())
    }
    async fn table_exists(&mut self, _: &str) -> Result<bool, DbError> {
        Ok(false)
    }
    async fn insert_batch(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        self.writes.lock().unwrap().push((table.name, batch.len()));
        Ok(())
    }
    async fn begin_bulk_load(&mut self) -> Result<(), DbError> {
        Ok(())
    }
    async fn end_bulk_load(&mut self) -> Result<(), DbError> {
        Ok(())
    }
    fn most_rows_per_commit(&self) -> Option<u64> {
        self.most_rows_per_commit
    }
}

/// `rows` rows of `table` from key `first`.
fn batch(table: &'static Table, first: i64, rows: i64) -> RowBatch {
    let mut b = RowBatch::for_table(table, rows as usize);
    b.values.extend((first..first + rows).map(Value::Int));
    b
}

/// The writes of a load of `units` units, each made by `generate`, on one
/// generator thread (so the batches come in order).
fn writes_of<G>(
    units: usize,
    generate: G,
    most_rows_per_commit: Option<u64>,
) -> Vec<(&'static str, usize)>
where
    G: Fn(usize, usize) -> Vec<RowBatch> + Send + Sync + 'static,
{
    let engine = Arc::new(Counting {
        writes: Writes::default(),
        most_rows_per_commit,
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let session = engine.connect().await.unwrap();
        let unit_list: Vec<usize> = (0..units).collect();
        bulk::write_population(
            &engine,
            session,
            &SCHEMA,
            unit_list,
            generate,
            1,
            Arc::new(AtomicU64::new(0)),
        )
        .await
        .unwrap();
    });
    engine.writes.lock().unwrap().clone()
}

#[test]
fn a_table_s_batches_in_a_row_go_in_writes_of_up_to_20_000_rows() {
    // 105 chunks of 1,000 rows, as a workload file's load draws them.
    let writes = writes_of(
        105,
        |_, unit| vec![batch(&TABLES[0], unit as i64 * 1000, 1000)],
        None,
    );
    assert_eq!(
        writes,
        vec![
            ("first", 20_000),
            ("first", 20_000),
            ("first", 20_000),
            ("first", 20_000),
            ("first", 20_000),
            ("first", 5_000),
        ]
    );
}

#[test]
fn another_table_s_batch_ends_the_write_and_every_row_is_written_once() {
    // Each unit a batch of each table: nothing to gather.
    let writes = writes_of(
        30,
        |_, unit| {
            let first = unit as i64 * 700;
            vec![batch(&TABLES[0], first, 700), batch(&TABLES[1], first, 300)]
        },
        None,
    );
    assert_eq!(writes.len(), 60);
    let rows = |name: &str| -> usize {
        writes
            .iter()
            .filter(|(t, _)| *t == name)
            .map(|(_, n)| n)
            .sum()
    };
    assert_eq!((rows("first"), rows("second")), (21_000, 9_000));
    assert!(
        writes
            .chunks(2)
            .all(|pair| pair[0].0 == "first" && pair[1].0 == "second")
    );
}

#[test]
fn a_write_holds_no_more_rows_than_the_engine_commits_at_once() {
    // Galera's 10,000 rows a commit bounds a write too.
    let writes = writes_of(
        25,
        |_, unit| vec![batch(&TABLES[0], unit as i64 * 1000, 1000)],
        Some(10_000),
    );
    let sizes: Vec<usize> = writes.iter().map(|(_, n)| *n).collect();
    assert_eq!(sizes, vec![10_000, 10_000, 5_000]);
}
