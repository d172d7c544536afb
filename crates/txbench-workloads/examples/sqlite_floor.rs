//! The floor under txbench on embedded SQLite: the statements a TPC-C mix
//! executes, replayed through rusqlite alone on the same data, with nothing of
//! txbench between them (no driver, terminals, sessions, recorder or checks).
//!
//! 1. Load one warehouse into an in-memory database and run `--transactions`
//!    transactions of the mix on it through the workload's own procedures
//!    (10 terminals' inputs in turn, as `txbench tpcc` draws them), recording
//!    every statement with its parameters and every BEGIN, COMMIT and ROLLBACK.
//! 2. Load the same warehouse (same seed: the same rows) into a second
//!    in-memory database and replay the recording on it with rusqlite: every
//!    statement (BEGIN and COMMIT too) prepared once before the clock starts,
//!    then per step its parameters bound, its rows stepped and every column
//!    read.
//!
//! Prints the replay's transactions per second: what SQLite alone does with
//! this machine, the figure `bench/sqlite-floor.sh` holds txbench's against.
//!
//!     cargo run --release -p txbench-workloads --example sqlite_floor -- 100000

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use rusqlite::types::ValueRef;
use txbench_core::cpu::thread_cpu_time;
use txbench_core::rng::Rand;
use txbench_core::schema::Statement;
use txbench_core::written::Written;
use txbench_core::{DbError, Engine, Param, Rows, Session, Terminal, TxMode, Value, Workload};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine, begin_sql, bind};
use txbench_workloads::LoadPlan;
use txbench_workloads::tpcc::Tpcc;
use txbench_workloads::tpcc::load::{load, load_constants};
use txbench_workloads::tpcc::random::NurandConstants;

const SEED: u64 = 42;
const TERMINALS: usize = 10;

/// One step of the recording.
enum Step {
    Begin(TxMode),
    Statement {
        sql: &'static str,
        params: Vec<Value>,
    },
    Commit,
    Rollback,
}

/// A session that records what it is asked, then does it.
struct Recording<S> {
    inner: S,
    steps: Vec<Step>,
}

impl<S: Session> Recording<S> {
    fn note(&mut self, stmt: &'static Statement, params: &[Param<'_>]) {
        let params = params
            .iter()
            .map(|p| match *p {
                Param::Null => Value::Null,
                Param::Int(v) => Value::Int(v),
                Param::Float(v) => Value::Float(v),
                Param::Text(s) => Value::Text(s.to_string()),
                Param::Timestamp(v) => Value::Timestamp(v),
            })
            .collect();
        // The SQLite engine runs a statement's text as written (FOR UPDATE
        // is never appended: a write transaction holds the lock already).
        self.steps.push(Step::Statement {
            sql: stmt.sql,
            params,
        });
    }
}

impl<S: Session> Session for Recording<S> {
    type Loader = S::Loader;
    type Whole = txbench_core::NoWholeTransactions;

    fn execution(&self) -> txbench_core::Execution {
        self.inner.execution()
    }

    fn loader(&mut self) -> Option<&mut S::Loader> {
        self.inner.loader()
    }

    async fn begin(&mut self, mode: TxMode) -> Result<(), DbError> {
        self.steps.push(Step::Begin(mode));
        self.inner.begin(mode).await
    }

    async fn commit(&mut self) -> Result<(), DbError> {
        self.steps.push(Step::Commit);
        self.inner.commit().await
    }

    async fn rollback(&mut self) -> Result<(), DbError> {
        self.steps.push(Step::Rollback);
        self.inner.rollback().await
    }

    async fn query(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<Rows, DbError> {
        self.note(stmt, params);
        self.inner.query(stmt, params).await
    }

    async fn execute(
        &mut self,
        stmt: &'static Statement,
        params: &[Param<'_>],
    ) -> Result<u64, DbError> {
        self.note(stmt, params);
        self.inner.execute(stmt, params).await
    }

    async fn query_sql(&mut self, sql: &str) -> Result<Rows, DbError> {
        self.inner.query_sql(sql).await
    }
}

/// An in-memory database holding one loaded warehouse.
async fn loaded() -> Arc<SqliteEngine> {
    let engine = Arc::new(
        SqliteEngine::new(SqliteConfig::parse(":memory:").expect("memory URL"))
            .expect("in-memory SQLite"),
    );
    let plan = LoadPlan {
        scale: 1,
        threads: 1,
        seed: SEED,
        drop: false,
        foreign_keys: false,
    };
    load(Arc::clone(&engine), &plan, Arc::new(AtomicU64::new(0)))
        .await
        .expect("load");
    engine
}

/// Run `n` transactions of the mix through the procedures, recording them.
async fn record(n: usize) -> Vec<Step> {
    let engine = loaded().await;
    let constants = NurandConstants::for_run(&load_constants(SEED), &mut Rand::derive(SEED, 7));
    let workload = Tpcc::new(1, constants);
    let mut terminals: Vec<_> = (0..TERMINALS).map(|i| workload.terminal(i, SEED)).collect();
    let mut session = Recording {
        inner: engine.connect().await.expect("session"),
        steps: Vec::with_capacity(n * 30),
    };
    let mut written = Written::new();
    for i in 0..n {
        let planned = terminals[i % TERMINALS].next();
        written.clear();
        if workload
            .execute(&mut session, &planned.input, &mut written)
            .await
            .is_err()
        {
            session.rollback().await.expect("rollback");
        }
    }
    session.steps
}

/// A step of the recording with its statement resolved to an index into the
/// statements prepared before the replay starts.
struct Resolved<'a> {
    statement: usize,
    params: &'a [Value],
}

/// The SQL of a step: a transaction's boundaries are statements like the others.
fn sql_of(step: &Step) -> &'static str {
    match step {
        Step::Begin(mode) => begin_sql(*mode),
        Step::Commit => "COMMIT",
        Step::Rollback => "ROLLBACK",
        Step::Statement { sql, .. } => sql,
    }
}

/// Replay `steps` on a fresh copy of the data through rusqlite alone; returns
/// the transactions replayed, the seconds they took and the CPU seconds the
/// replaying thread used.
///
/// Every distinct statement, BEGIN and COMMIT included, is prepared before the
/// clock starts and each step points at its statement by index: the floor pays
/// neither parsing nor a cache lookup by SQL text, the least any client of
/// rusqlite can pay.
fn replay(copy: &SqliteEngine, steps: &[Step]) -> (usize, f64, f64) {
    // The settings the SQLite engine gives its sessions.
    let conn = copy.connection().expect("open the copy");
    let mut texts: Vec<&'static str> = Vec::new();
    let resolved: Vec<Resolved<'_>> = steps
        .iter()
        .map(|step| {
            let sql = sql_of(step);
            let statement = texts.iter().position(|t| *t == sql).unwrap_or_else(|| {
                texts.push(sql);
                texts.len() - 1
            });
            let params = match step {
                Step::Statement { params, .. } => params.as_slice(),
                _ => &[],
            };
            Resolved { statement, params }
        })
        .collect();
    let mut statements: Vec<_> = texts
        .iter()
        .map(|sql| conn.prepare(sql).expect("prepare"))
        .collect();
    let transactions = steps.iter().filter(|s| matches!(s, Step::Begin(_))).count();
    let (started, cpu_started) = (Instant::now(), thread_cpu_time());
    for step in &resolved {
        run(&mut statements[step.statement], step.params);
    }
    let cpu = thread_cpu_time().saturating_sub(cpu_started);
    (
        transactions,
        started.elapsed().as_secs_f64(),
        cpu.as_secs_f64(),
    )
}

/// One statement: bound, stepped to its end, every column of every row read.
fn run(st: &mut rusqlite::Statement<'_>, params: &[Value]) {
    bind(st, params.iter().map(Value::as_param), "replay").expect("bind");
    let columns = st.column_count();
    let mut rows = st.raw_query();
    let mut read = 0usize;
    while let Some(row) = rows.next().expect("step") {
        for c in 0..columns {
            read += match row.get_ref(c).expect("column") {
                ValueRef::Text(t) | ValueRef::Blob(t) => t.len(),
                _ => 1,
            };
        }
    }
    std::hint::black_box(read);
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("the number of transactions"))
        .unwrap_or(100_000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let steps = rt.block_on(record(n));
    let copy = rt.block_on(loaded());
    let (transactions, secs, cpu) = replay(&copy, &steps);
    println!(
        "floor: {transactions} transactions replayed through rusqlite alone in {secs:.2} s \
         ({cpu:.2} s of CPU): {:.0} txn/s, {:.0} txn per CPU second",
        transactions as f64 / secs,
        transactions as f64 / cpu
    );
}
