//! A workload written against the `Benchmark` trait alone, as a new one would
//! be: a key-value table and one read-then-increment transaction. The trait and
//! the shared pieces (`bulk::load`, `MetaTable`, `opening::find`) give it its
//! load, its record of the load and its open; the driver runs it. Adding it to
//! the command line would be this module in `src/` and one line in
//! `registry.rs` (and `mod` in lib.rs); everything else follows.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use txbench_core::driver::{self, RunOptions, WaitMode};
use txbench_core::result::{Metric, TypeResult};
use txbench_core::rng::Rand;
use txbench_core::schema::{Column, ColumnType, Index, Schema, Statement, Table};
use txbench_core::value::RowBatch;
use txbench_core::{
    DbError, Engine, ErrorKind, Outcome, Param, Planned, Session, Terminal, TxMode, TxnTypeInfo,
    Value, Workload, Written,
};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine};
use txbench_workloads::bulk::{self, LoadPlan, LoadSummary, Population};
use txbench_workloads::meta_table::MetaTable;
use txbench_workloads::{
    About, Benchmark, MetricBasis, NoOptions, RunFlags, Scale, WorkloadError, opening,
};

static ABOUT: About = About {
    name: "kv",
    title: "KV",
    summary: "a key-value table and one read-then-increment transaction",
    load_summary: "load the keys",
    run_summary: "run read-then-increment",
    scale: Scale {
        unit: "keys",
        one: "key",
        short: None,
        default: 1_000,
        max: 1_000_000,
    },
    run_flags: RunFlags {
        terminals: "10",
        wait_spec: None,
        home: None,
        seed_draws: "the keys read",
    },
    required_example: "",
    foreign_keys: None,
};

static KV: Table = Table {
    name: "toy_kv",
    columns: &[
        Column::new("k", ColumnType::BigInt),
        Column::new("v", ColumnType::BigInt),
    ],
    primary_key: &["k"],
};
static META_TABLE: Table = Table {
    name: "toy_kv_meta",
    columns: &[
        Column::new("m_key", ColumnType::Varchar(64)),
        Column::new("m_value", ColumnType::Varchar(200)),
    ],
    primary_key: &["m_key"],
};
static SCHEMA: Schema = Schema {
    tables: &[KV, META_TABLE],
    indexes: &[] as &[Index],
    foreign_keys: &[],
    key_value: false,
};
static META: MetaTable = MetaTable {
    about: &ABOUT,
    table: &META_TABLE,
    data: &KV,
    insert: &Statement::new(
        "insert kv meta",
        "INSERT INTO toy_kv_meta (m_key, m_value) VALUES (?, ?)",
    ),
    select: &Statement::new("select kv meta", "SELECT m_key, m_value FROM toy_kv_meta"),
    count: None,
    count_varies: false,
};

static GET: Statement = Statement::new("get", "SELECT v FROM toy_kv WHERE k = ?");
static BUMP: Statement = Statement::new("bump", "UPDATE toy_kv SET v = ? WHERE k = ?");
static TYPES: [TxnTypeInfo; 1] = [TxnTypeInfo::back_to_back(
    "Read-Increment",
    "read_increment",
    1.0,
    None,
)];

/// The toy workload: `keys` keys, each read and incremented.
#[derive(Debug, Clone)]
struct Kv {
    keys: i64,
}

/// Draws a key uniformly.
struct KvTerminal {
    rng: Rand,
    keys: i64,
}

impl Terminal for KvTerminal {
    type Input = i64;
    fn next(&mut self) -> Planned<i64> {
        Planned {
            input: self.rng.uniform(1, self.keys),
            txn_type: 0,
            keying: Duration::ZERO,
            think: Duration::ZERO,
        }
    }
}

impl Workload for Kv {
    type Input = i64;
    type Terminal = KvTerminal;
    fn name(&self) -> &'static str {
        "kv"
    }
    fn transaction_types(&self) -> &'static [TxnTypeInfo] {
        &TYPES
    }
    fn default_terminals(&self) -> usize {
        4
    }
    fn terminal(&self, index: usize, seed: u64) -> KvTerminal {
        KvTerminal {
            rng: Rand::derive(seed, index as u64),
            keys: self.keys,
        }
    }
    fn ack_fields(&self, _: usize) -> &'static str {
        "key value"
    }

    async fn execute<S: Session>(
        &self,
        s: &mut S,
        key: &i64,
        written: &mut Written,
    ) -> Result<Outcome, DbError> {
        s.begin(TxMode::ReadWrite).await?;
        let rows = s.query(&GET, &[Param::Int(*key)]).await?;
        let v = (rows.row(0).and_then(|r| r.get(0)?.as_i64()))
            .ok_or_else(|| DbError::new(ErrorKind::Data, format!("key {key} is missing")))?;
        s.execute(&BUMP, &[Param::Int(v + 1), Param::Int(*key)])
            .await?;
        written.committing([*key, v + 1]);
        s.commit().await?;
        Ok(Outcome::Committed)
    }
}

impl Benchmark for Kv {
    const ABOUT: &'static About = &ABOUT;
    type Definition = NoOptions;
    fn schema() -> &'static Schema {
        &SCHEMA
    }
    fn meta() -> &'static MetaTable {
        &META
    }
    type LoadOptions = NoOptions;
    type RunOptions = NoOptions;

    async fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        _: &NoOptions,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        let keys = plan.scale;
        let population = Population {
            units: (0..(keys + 499) / 500).collect::<Vec<i64>>(),
            generate: move |_, chunk: i64| {
                let mut batch = RowBatch::for_table(&KV, 500);
                for k in (chunk * 500 + 1)..=((chunk + 1) * 500).min(keys) {
                    batch.values.extend([Value::Int(k), Value::Int(0)]);
                }
                vec![batch]
            },
            entries: Vec::new(),
            partitioning: None,
            derived: Vec::new(),
            finishing: Vec::new(),
        };
        bulk::load(engine, &META, &SCHEMA, plan, population, rows_done).await
    }
    fn expected_rows(scale: i64) -> u64 {
        scale as u64
    }
    async fn open<S: Session>(
        s: &mut S,
        asked: Option<i64>,
        _seed: u64,
        _: &NoOptions,
    ) -> Result<Kv, WorkloadError> {
        let (keys, _) = opening::find(s, &META, asked).await?;
        Ok(Kv { keys })
    }
    fn scale(&self) -> i64 {
        self.keys
    }
    type Parameters = ();

    fn parameters(&self) {}
    fn served_parameters(&self) -> Vec<(String, String)> {
        vec![
            ("workload".into(), "kv".into()),
            ("keys".into(), self.keys.to_string()),
        ]
    }
    fn metrics(types: &[TypeResult], secs: f64, _: MetricBasis) -> Vec<Metric> {
        vec![Metric {
            name: "throughput".into(),
            value: types[0].committed as f64 / secs.max(1e-9),
            unit: "txn/s".into(),
            counts: None,
            interval: None,
        }]
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workload_written_against_the_trait_loads_opens_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kv.db");
    let engine =
        Arc::new(SqliteEngine::new(SqliteConfig::parse(path.to_str().unwrap()).unwrap()).unwrap());
    let plan = LoadPlan {
        scale: 2_000,
        threads: 2,
        seed: 1,
        drop: false,
        foreign_keys: false,
    };
    let rows = Arc::new(AtomicU64::new(0));
    let loaded = Kv::load(Arc::clone(&engine), &plan, &NoOptions {}, rows)
        .await
        .unwrap();
    assert_eq!(loaded.rows, 2_000);

    // Opened on the loaded database, it finds its scale in its record; another
    // scale is refused by the shared opening, in the workload's own words.
    let mut s = engine.connect().await.unwrap();
    let kv = Kv::open(&mut s, None, 1, &NoOptions {}).await.unwrap();
    assert_eq!(kv.scale(), 2_000);
    let other = Kv::open(&mut s, Some(3_000), 1, &NoOptions {}).await;
    assert!(
        matches!(
            other,
            Err(WorkloadError::ScaleMismatch { loaded: 2_000, .. })
        ),
        "{other:?}"
    );
    let again = Kv::load(
        Arc::clone(&engine),
        &plan,
        &NoOptions {},
        Default::default(),
    )
    .await;
    assert!(again.is_err(), "a second load over the first is refused");

    // The driver runs it; every committed transaction incremented one key.
    let opts = RunOptions {
        duration: Duration::from_secs(1),
        transactions: None,
        warmup: Duration::ZERO,
        terminals: 2,
        connections: 1,
        wait: WaitMode::None,
        seed: 7,
        retry: Default::default(),
        affinity: false,
        start_at: None,
        grace: Duration::from_secs(1),
        acks: None,
        schedule: Vec::new(),
        open: None,
    };
    let (_keep_running, stop) = tokio::sync::watch::channel(false);
    let recording = driver::run(&engine, &Arc::new(kv), &opts, stop, |_| {})
        .await
        .unwrap();
    let committed = recording.total.measured[0].committed;
    assert!(committed > 100, "{committed} committed");
    let sum = s.query_sql("SELECT sum(v) FROM toy_kv").await.unwrap();
    let sum = sum.row(0).unwrap().get(0).unwrap().as_i64().unwrap() as u64;
    // Warm-up is zero, so the increments are the measured commits and those
    // that finished in the grace after the window (none start after it).
    assert!(sum >= committed, "{sum} increments, {committed} committed");
}
