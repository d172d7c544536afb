//! The CH-benCHmark (Cole et al., DBTest 2011): TPC-C's schema and
//! transactions, plus REGION, NATION and SUPPLIER and 22 analytical queries
//! adapted from TPC-H, run at once.
//!
//! * [`schema`] and [`mod@reference`]: the three tables and their population.
//! * [`queries`]: the 22 queries, one text made each engine's own.
//! * [`terminal`]: TPC-C's terminals, and the analytical streams that run the
//!   queries in order, back to back, each in a read-only transaction.
//! * [`freshness`]: each stream's look, as a round starts, at how fresh the
//!   data it sees is.
//!
//! TPC-C runs exactly as `txbench tpcc` runs it (the same procedures, checks
//! and acknowledged-work log); the queries are transaction types of their own
//! (Q1 to Q22), so each has its latency, count and outcome in the results.

pub mod freshness;
mod load;
pub mod options;
pub mod queries;
pub mod reference;
pub mod schema;
pub mod terminal;
pub mod timeout;

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use txbench_core::alternation::Alternation;
use txbench_core::executed::Executed;
use txbench_core::freshness::Probe;
use txbench_core::result::{Metric, TypeResult};
use txbench_core::schema::{Schema, Statement};
use txbench_core::{
    DbError, Engine, Outcome, Session, Shard, ShardError, TxMode, TxnTypeInfo, Workload, Written,
};

use crate::about::{About, RunFlags, Scale};
use crate::benchmark::{Benchmark, Frontier, MetricBasis, rate};
use crate::bulk::{LoadPlan, LoadSummary};
use crate::capability::{Check, Verify};
use crate::error::WorkloadError;
use crate::meta_table::{Loaded, MetaTable};
use crate::opening::{self, Found};
use crate::options::NoOptions;
use crate::tpcc::{self, Tpcc, TpccParameters};
use freshness::{Unseen, lock};
use options::ChRunOptions;
use queries::{Dialect, QUERIES};
use terminal::{ChInput, ChTerminal, FIRST_QUERY, FRESHNESS, TYPES};
use tpcc::input::TpccInput;
use txbench_core::written::AckStatus;

/// The CH-benCHmark's names and scale.
pub static ABOUT: About = About {
    name: "ch",
    title: "CH-benCHmark",
    summary: "The CH-benCHmark: TPC-C's transactions with analytical streams running 22 \
              TPC-H-like queries beside them",
    load_summary: "Load TPC-C (unless it is there) and the CH-benCHmark's region, nation and \
                   supplier tables",
    run_summary: "Drive TPC-C's mix and the analytical streams together; report tpmC, QphH and \
                  every query's latency",
    scale: Scale {
        unit: "warehouses",
        one: "warehouse",
        short: Some('w'),
        default: 1,
        max: 1_000_000,
    },
    run_flags: RunFlags {
        terminals: "10 per warehouse, as TPC-C has; the analytical streams run beside them",
        wait_spec: Some("TPC-C's keying and think times (clause 5.2.5.7); the streams never wait"),
        home: Some("the node of its home warehouse ((warehouse - 1) mod nodes)"),
        seed_draws: "TPC-C's inputs and its constant C-Run for customer last names",
    },
    required_example: "",
    foreign_keys: Some("TPC-C's of clause 1.3"),
};

static INSERT: Statement = Statement::new(
    "insert ch meta",
    "INSERT INTO txbench_ch_meta (m_key, m_value) VALUES (?, ?)",
);
static SELECT: Statement = Statement::new(
    "select ch meta",
    "SELECT m_key, m_value FROM txbench_ch_meta",
);

/// The record of the CH-benCHmark's own tables' load; TPC-C's is TPC-C's.
pub static META: MetaTable = MetaTable {
    about: &ABOUT,
    table: &schema::META,
    data: &schema::SUPPLIER,
    insert: &INSERT,
    select: &SELECT,
    count: None,
    count_varies: false,
};

/// The CH-benCHmark opened on a database: TPC-C, the analytical streams and
/// the queries in the database's dialect.
#[derive(Debug, Clone)]
pub struct Ch {
    tpcc: Tpcc,
    streams: usize,
    /// Each phase's length when the streams alternate with phases without
    /// them; `None`: they run throughout.
    phases: Option<Duration>,
    queries: &'static [Statement; QUERIES],
    /// Run in a query's transaction before it: the time limit, where the
    /// server takes it so.
    before: Option<&'static Statement>,
    /// The New-Orders acknowledged and not yet seen by a stream's look.
    unseen: Arc<Unseen>,
    /// Each query that answered, by stream, timed from begin to commit.
    executed: Arc<Mutex<Vec<Executed>>>,
}

impl Ch {
    /// The workload over `tpcc` with `streams` analytical streams, whose
    /// queries are in `dialect`.
    pub fn new(tpcc: Tpcc, streams: usize, dialect: Dialect) -> Ch {
        Ch {
            streams,
            phases: None,
            queries: dialect.statements(),
            before: None,
            unseen: Arc::new(Unseen::new(tpcc.homes())),
            executed: Arc::default(),
            tpcc,
        }
    }

    /// The same, the streams running only in every other phase of `length`
    /// from the window's start (the first without them).
    pub fn alternating(self, length: Duration) -> Ch {
        Ch {
            phases: Some(length),
            ..self
        }
    }

    /// The same, each query's transaction running `limit` before the query
    /// ([`timeout::limit_statement`]).
    pub fn limited(self, limit: &'static Statement) -> Ch {
        Ch {
            before: Some(limit),
            ..self
        }
    }

    /// Analytical streams in a run.
    pub fn streams(&self) -> usize {
        self.streams
    }

    /// Query `q` (0 is Q1); a number past Q22 (from a client of a server) is
    /// refused as bad data.
    fn query(&self, q: usize) -> Result<&'static Statement, DbError> {
        self.queries.get(q).ok_or_else(|| {
            DbError::new(
                txbench_core::ErrorKind::Data,
                format!("no query Q{}: the CH-benCHmark has {QUERIES}", q + 1),
            )
        })
    }

    /// Keep a New-Order the database acknowledged (it ended in `outcome`,
    /// by what `written` stated) for the streams' looks, while there are
    /// streams to look.
    fn note_acknowledged(&self, input: &TpccInput, outcome: Option<Outcome>, written: &Written) {
        if self.streams > 0
            && matches!(input, TpccInput::NewOrder(_))
            && let Some(outcome) = outcome
            && written.status(&Ok(outcome)) == Some(AckStatus::Acknowledged)
            && let [w, d, o_id, ..] = *written.fields()
        {
            self.unseen.acknowledged((w, d, o_id), Instant::now());
        }
    }

    /// Run query `q` of `stream` in its transaction; keep when it ran and
    /// its answer's row count.
    async fn answer<S: Session>(
        &self,
        session: &mut S,
        (q, stream): (usize, u32),
    ) -> Result<usize, DbError> {
        let start = Instant::now();
        let rows = run_query(session, self.before, self.query(q)?).await?;
        let ran = Executed {
            stream,
            txn_type: FIRST_QUERY + q,
            start,
            end: Instant::now(),
            rows: rows as u64,
        };
        lock(&self.executed).push(ran);
        Ok(rows)
    }
}

/// Run query `stmt` in a read-only transaction, after `before` (its time
/// limit) if any; its answer's row count.
pub async fn run_query<S: Session>(
    session: &mut S,
    before: Option<&'static Statement>,
    stmt: &'static Statement,
) -> Result<usize, DbError> {
    session.begin(TxMode::ReadOnly).await?;
    if let Some(before) = before {
        session.execute(before, &[]).await?;
    }
    let rows = session.query(stmt, &[]).await?;
    session.commit().await?;
    Ok(rows.len())
}

impl Workload for Ch {
    type Input = ChInput;
    type Terminal = ChTerminal;

    fn name(&self) -> &'static str {
        "ch"
    }

    fn transaction_types(&self) -> &'static [TxnTypeInfo] {
        &TYPES
    }

    fn default_terminals(&self) -> usize {
        self.tpcc.default_terminals()
    }

    fn added_terminals(&self) -> usize {
        self.streams
    }

    /// A query's last answer's rows, once it answered.
    fn answer_rows(&self, txn_type: usize) -> Option<u64> {
        (lock(&self.executed).iter())
            .filter(|e| e.txn_type == txn_type)
            .max_by_key(|e| e.end)
            .map(|e| e.rows)
    }

    /// With `--analytic-phases`, the queries run only in the odd phases.
    fn alternation(&self) -> Option<Alternation> {
        self.phases.map(|phase| Alternation {
            phase,
            held: FIRST_QUERY..FRESHNESS + 1,
        })
    }

    fn shard(&mut self, shard: Shard) -> Result<(), ShardError> {
        self.tpcc.shard(shard)?;
        self.unseen = Arc::new(Unseen::new(self.tpcc.homes()));
        Ok(())
    }

    /// The streams' looks, against the New-Orders this process acknowledged.
    fn freshness(&self) -> (&'static str, Vec<Probe>) {
        ("New-Order", self.unseen.looks())
    }

    /// Each query the streams ran and answered.
    fn executed(&self) -> Vec<Executed> {
        lock(&self.executed).clone()
    }

    /// The first `streams` terminals are the analytical streams; the rest are
    /// TPC-C's, numbered from 0 as a TPC-C run numbers them.
    fn terminal(&self, index: usize, seed: u64) -> ChTerminal {
        match index.checked_sub(self.streams) {
            None => ChTerminal::stream(index),
            Some(t) => ChTerminal::Tpcc(self.tpcc.terminal(t, seed)),
        }
    }

    async fn execute<S: Session>(
        &self,
        session: &mut S,
        input: &ChInput,
        written: &mut Written,
    ) -> Result<Outcome, DbError> {
        match input {
            ChInput::Tpcc(i) => {
                let ended = self.tpcc.execute(session, i, written).await;
                self.note_acknowledged(i, ended.as_ref().ok().copied(), written);
                ended
            }
            &ChInput::Query { query, stream } => {
                self.answer(session, (query, stream)).await?;
                Ok(Outcome::Committed)
            }
            &ChInput::Look { stream, round } => {
                self.unseen.look(session, (stream, round)).await?;
                Ok(Outcome::Committed)
            }
        }
    }

    fn ack_fields(&self, txn_type: usize) -> &'static str {
        if txn_type < FIRST_QUERY {
            self.tpcc.ack_fields(txn_type)
        } else {
            ""
        }
    }

    /// TPC-C's displayed fields; a query shows its answer's row count.
    async fn execute_displayed<S: Session>(
        &self,
        session: &mut S,
        input: &ChInput,
        written: &mut Written,
    ) -> Result<(Outcome, Vec<(String, String)>), DbError> {
        match input {
            ChInput::Tpcc(i) => {
                let ended = self.tpcc.execute_displayed(session, i, written).await;
                self.note_acknowledged(i, ended.as_ref().ok().map(|(o, _)| *o), written);
                ended
            }
            &ChInput::Query { query, stream } => {
                let rows = self.answer(session, (query, stream)).await?;
                Ok((Outcome::Committed, vec![("rows".into(), rows.to_string())]))
            }
            &ChInput::Look { stream, round } => {
                self.unseen.look(session, (stream, round)).await?;
                Ok((Outcome::Committed, Vec::new()))
            }
        }
    }
}

impl Benchmark for Ch {
    const ABOUT: &'static About = &ABOUT;
    type Definition = NoOptions;
    fn schema() -> &'static Schema {
        &schema::SCHEMA
    }
    fn meta() -> &'static MetaTable {
        &META
    }
    type LoadOptions = NoOptions;
    type RunOptions = ChRunOptions;
    const FRONTIER: Option<Frontier> = Some(Frontier {
        option: "analytic-streams",
        x: "QphH",
        y: "tpmC",
    });

    /// The CH-benCHmark's tables' load, complete only when TPC-C's is too;
    /// `None` while they are not there (a load adds them to TPC-C's data).
    async fn loaded<S: Session>(session: &mut S) -> Result<Option<Loaded>, WorkloadError> {
        let Some(mut own) = META.read(session).await? else {
            return Ok(None);
        };
        let tpcc = tpcc::meta::META.read(session).await?;
        own.complete &= tpcc.is_some_and(|t| t.complete && t.scale == own.scale);
        Ok(Some(own))
    }

    async fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        _options: &NoOptions,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        load::load(engine, plan, rows_done).await
    }

    fn expected_rows(warehouses: i64) -> u64 {
        tpcc::generate::expected_rows(warehouses) + reference::ROWS
    }

    fn verify() -> Option<Verify> {
        Tpcc::verify()
    }

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        seed: u64,
        options: &ChRunOptions,
    ) -> Result<Self, WorkloadError> {
        let (warehouses, found) = opening::find(session, &META, asked).await?;
        // TPC-C's constants are in TPC-C's record; a server and an engine
        // without data say what they say.
        let found = match found {
            Found::Loaded(_) => {
                opening::find(session, &tpcc::meta::META, Some(warehouses))
                    .await?
                    .1
            }
            other => other,
        };
        let tpcc = Tpcc::opened(warehouses, &found, seed)?;
        let version = session.server_version().await?;
        let dialect = Dialect::of_version(&version);
        let mut ch = Ch::new(tpcc, options.analytic_streams, dialect);
        if let Some(phase) = options.analytic_phases() {
            if ch.streams == 0 {
                return Err(WorkloadError::BadOption(
                    "--analytic-phases: with --analytic-streams 0 there is nothing to alternate"
                        .into(),
                ));
            }
            ch = ch.alternating(phase);
        }
        match (options.query_timeout(), found) {
            (None, _) => Ok(ch),
            (Some(_), Found::Served(_)) => Err(WorkloadError::BadOption(
                "--query-timeout: the queries run on the txbench server, which takes no time \
                 limit from its clients"
                    .into(),
            )),
            (Some(limit), _) => Ok(ch.limited(timeout::limit_statement(dialect, &version, limit)?)),
        }
    }

    fn check() -> Option<Check> {
        Some(Check {
            summary: "Verify TPC-C's twelve consistency conditions (exit 0 if all hold, 1 \
                      otherwise)",
            run: |session, _loaded| Box::pin(async move { Ok(tpcc::check::check(session).await?) }),
        })
    }

    fn scale(&self) -> i64 {
        self.tpcc.warehouses()
    }

    fn driven(&self) -> i64 {
        self.tpcc.home_warehouses()
    }

    type Parameters = TpccParameters;

    fn parameters(&self) -> TpccParameters {
        self.tpcc.parameters()
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        let mut out = self.tpcc.served_parameters();
        for (key, value) in &mut out {
            if key == "workload" {
                *value = ABOUT.name.to_string();
            }
        }
        out
    }

    /// TPC-C's figures over its five types, and QphH: the queries completed
    /// an hour, over every stream.
    fn metrics(types: &[TypeResult], measured_secs: f64, basis: MetricBasis) -> Vec<Metric> {
        let (tpcc, queries) = types.split_at(FIRST_QUERY.min(types.len()));
        let mut out = Tpcc::metrics(tpcc, measured_secs, basis);
        // The looks are no queries.
        let queries = &queries[..QUERIES.min(queries.len())];
        let completed: u64 = queries.iter().map(TypeResult::completed).sum();
        out.push(Metric {
            name: "QphH".into(),
            value: 3600.0 * rate(completed, measured_secs),
            unit: "queries/h".into(),
            counts: None,
            interval: None,
        });
        out
    }
}
