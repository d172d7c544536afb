//! Writing a workload's initial population in parallel: generator threads make
//! rows unit by unit (each unit from its own random stream, so the database is
//! the same whatever the order), a bounded queue keeps memory flat, and as many
//! writer sessions as the engine allows insert them in large transactions
//! through the engine's bulk path.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use txbench_core::engine::loader_of;
use txbench_core::schema::{Partitioning, Schema, Table};
use txbench_core::value::RowBatch;
use txbench_core::{DbError, Engine, ErrorKind, Loader, Session, TxMode, exec};

use crate::error::WorkloadError;
use crate::meta_table::MetaTable;
use crate::ownership;

/// A boxed future borrowing a session, for steps run by [`on_session`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How a load is asked for, whatever the workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadPlan {
    /// The scale to load (warehouses, subscribers, keys).
    pub scale: i64,
    /// Threads generating rows (writers are limited further by the engine).
    pub threads: usize,
    /// The load's seed: every row derives from it.
    pub seed: u64,
    /// Replace the workload's data already there instead of refusing.
    pub drop: bool,
    /// Add the schema's foreign keys after the data.
    pub foreign_keys: bool,
}

/// What a load did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadSummary {
    /// Rows written.
    pub rows: u64,
    /// Time spent, from connecting to the last index.
    pub elapsed: std::time::Duration,
    /// What the workload adds to the line that reports the load (TPC-C's
    /// C-Load constant), empty or starting with a comma.
    pub note: String,
}

/// Rows per write transaction during a load.
const ROWS_PER_COMMIT: u64 = 250_000;

/// Generate the rows of every unit on `threads` threads and write them through
/// `session` and further sessions of `engine` (up to its writer limit). Returns a
/// session for the steps after the data (keys, indexes, metadata). `rows_done`
/// counts rows as they are written, for a progress bar.
pub async fn write_population<E, U, G>(
    engine: &Arc<E>,
    session: E::Session,
    schema: &'static Schema,
    units: Vec<U>,
    generate: G,
    threads: usize,
    rows_done: Arc<AtomicU64>,
) -> Result<E::Session, DbError>
where
    E: Engine,
    U: Copy + Send + Sync + 'static,
    G: Fn(usize, U) -> Vec<RowBatch> + Send + Sync + 'static,
{
    let sessions = write_on(
        engine,
        vec![session],
        schema,
        units,
        generate,
        threads,
        rows_done,
    );
    Ok(first_of(sessions.await?))
}

/// [`write_population`] on `sessions` and as many more as the engine takes
/// writers; every writer's session back, the given ones first.
async fn write_on<E, U, G>(
    engine: &Arc<E>,
    sessions: Vec<E::Session>,
    schema: &'static Schema,
    units: Vec<U>,
    generate: G,
    threads: usize,
    rows_done: Arc<AtomicU64>,
) -> Result<Vec<E::Session>, DbError>
where
    E: Engine,
    U: Copy + Send + Sync + 'static,
    G: Fn(usize, U) -> Vec<RowBatch> + Send + Sync + 'static,
{
    let threads = threads.max(1);
    let (tx, rx) = async_channel::bounded::<RowBatch>(threads);
    let generators = start_generators(units, generate, threads, tx)?;
    // Writers: as many as the engine allows, the first on the given session.
    let writers = threads.min(engine.max_writers());
    let written = on_sessions(engine, sessions, writers, move |s| {
        write_batches(s, schema, rx.clone(), Arc::clone(&rows_done))
    })
    .await;
    // The writers and the queue's last receiver are gone: every generator
    // has finished, or stops at its next batch.
    for g in generators {
        let _ = g.join();
    }
    written
}

/// The first of the sessions a step handed back (there is always one).
fn first_of<S>(sessions: Vec<S>) -> S {
    sessions.into_iter().next().expect("at least one worker")
}

/// Run `work` on `workers` sessions at once (at least one): `sessions`
/// first, then newly connected ones; every session back, in that order, or
/// the first failure. `work` itself, and what it holds (a queue's
/// receiver), is dropped once every worker has started. Sessions left over
/// beyond `workers` come back untouched.
async fn on_sessions<E, F, Fut>(
    engine: &Arc<E>,
    sessions: Vec<E::Session>,
    workers: usize,
    work: F,
) -> Result<Vec<E::Session>, DbError>
where
    E: Engine,
    F: Fn(E::Session) -> Fut,
    Fut: Future<Output = Result<E::Session, DbError>> + Send + 'static,
{
    let workers = workers.max(1);
    let mut given = sessions.into_iter();
    let mut handles = Vec::with_capacity(workers);
    for _ in 0..workers {
        let session = match given.next() {
            Some(s) => s,
            None => engine.connect().await?,
        };
        handles.push(exec::spawn(&**engine, "txbench-load", work(session)));
    }
    drop(work);
    let mut kept = Vec::with_capacity(handles.len());
    let mut failure = None;
    for h in handles {
        match h.join().await.ok_or_else(worker_died)? {
            Ok(s) => kept.push(s),
            Err(e) => failure = failure.or(Some(e)),
        }
    }
    match failure {
        Some(e) => Err(e),
        None => {
            kept.extend(given);
            Ok(kept)
        }
    }
}

/// Start `threads` row generators, each taking the next unit until none is
/// left and sending its batches to `tx`; a generator stops when the writers
/// are gone (a writer failed, and reports why).
fn start_generators<U, G>(
    units: Vec<U>,
    generate: G,
    threads: usize,
    tx: async_channel::Sender<RowBatch>,
) -> Result<Vec<std::thread::JoinHandle<()>>, DbError>
where
    U: Copy + Send + Sync + 'static,
    G: Fn(usize, U) -> Vec<RowBatch> + Send + Sync + 'static,
{
    let units = Arc::new(units);
    let generate = Arc::new(generate);
    let next = Arc::new(AtomicUsize::new(0));
    let mut generators = Vec::new();
    for _ in 0..threads {
        let (units, next, tx, generate) = (
            Arc::clone(&units),
            Arc::clone(&next),
            tx.clone(),
            Arc::clone(&generate),
        );
        let generator = move || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&unit) = units.get(i) else { break };
                for batch in generate(i, unit) {
                    if tx.send_blocking(batch).is_err() {
                        return;
                    }
                }
            }
        };
        let started = std::thread::Builder::new()
            .name("txbench-gen".into())
            .spawn(generator)
            .map_err(|e| {
                DbError::new(ErrorKind::Other, format!("starting a row generator: {e}"))
            })?;
        generators.push(started);
    }
    Ok(generators)
}

/// The error for a load worker that vanished (panicked or was cancelled).
pub fn worker_died() -> DbError {
    DbError::new(ErrorKind::Other, "a load worker stopped unexpectedly")
}

/// Most rows gathered into one bulk write. Each write is a statement of its
/// own (a COPY, a LOAD DATA) with its round trips and its start on the
/// server, and a file's load draws its rows in chunks of 1,000: written one
/// by one, 1,000 COPYs made a load of pgbench's scale 10 take 1.7 times as
/// long as `pgbench -i`'s one.
const ROWS_PER_WRITE: u64 = 20_000;

/// Write batches from the queue in large transactions, consecutive batches
/// of a table gathered into writes of up to [`ROWS_PER_WRITE`] rows; hand
/// the session back.
async fn write_batches<S: Session>(
    mut session: S,
    schema: &'static Schema,
    rx: async_channel::Receiver<RowBatch>,
    rows_done: Arc<AtomicU64>,
) -> Result<S, DbError> {
    let rows_per_commit = loader_of(&mut session)?
        .most_rows_per_commit()
        .map_or(ROWS_PER_COMMIT, |most| most.min(ROWS_PER_COMMIT));
    let mut writer = Writer {
        session,
        schema,
        rows_per_commit,
        in_txn: 0,
        open: false,
        rows_done,
    };
    let most = ROWS_PER_WRITE.min(rows_per_commit);
    let mut gathered: Option<RowBatch> = None;
    while let Ok(mut batch) = rx.recv().await {
        match &mut gathered {
            Some(g) if g.table == batch.table && (g.len() + batch.len()) as u64 <= most => {
                g.values.append(&mut batch.values);
            }
            _ => {
                if let Some(full) = gathered.replace(batch) {
                    writer.write(full).await?;
                }
            }
        }
    }
    if let Some(last) = gathered {
        writer.write(last).await?;
    }
    writer.finish().await
}

/// A load session writing batches in transactions of about
/// `rows_per_commit` rows.
struct Writer<S> {
    session: S,
    schema: &'static Schema,
    rows_per_commit: u64,
    /// Rows written in the open transaction.
    in_txn: u64,
    open: bool,
    rows_done: Arc<AtomicU64>,
}

impl<S: Session> Writer<S> {
    /// Write `batch`, in the open transaction or a new one; commit once the
    /// transaction holds enough rows.
    async fn write(&mut self, batch: RowBatch) -> Result<(), DbError> {
        let table = self
            .schema
            .table(batch.table)
            .ok_or_else(|| DbError::new(ErrorKind::Other, format!("no table {}", batch.table)))?;
        if !self.open {
            self.session.begin(TxMode::ReadWrite).await?;
            self.open = true;
        }
        loader_of(&mut self.session)?
            .insert_batch(table, &batch)
            .await?;
        let n = batch.len() as u64;
        self.rows_done.fetch_add(n, Ordering::Relaxed);
        self.in_txn += n;
        if self.in_txn >= self.rows_per_commit {
            self.session.commit().await?;
            self.open = false;
            self.in_txn = 0;
        }
        Ok(())
    }

    /// Commit what is open; the session back.
    async fn finish(mut self) -> Result<S, DbError> {
        if self.open {
            self.session.commit().await?;
        }
        Ok(self.session)
    }
}

/// A schema's tables split into its metadata table (the last one, by each
/// workload's convention) and its data tables.
fn meta_and_data(schema: &Schema) -> (&'static Table, &'static [Table]) {
    schema
        .tables
        .split_last()
        .expect("a workload's schema has tables")
}

/// Run a step on a session, on the executor its engine needs (an OS thread for a
/// blocking engine), and hand the session back.
pub async fn on_session<E, T, F>(
    engine: &E,
    session: E::Session,
    step: F,
) -> Result<(E::Session, T), DbError>
where
    E: Engine,
    T: Send + 'static,
    F: for<'s> FnOnce(&'s mut E::Session) -> BoxFuture<'s, Result<T, DbError>> + Send + 'static,
{
    let mut session = session;
    let handle = exec::spawn(engine, "txbench-load", async move {
        let r = step(&mut session).await;
        (session, r)
    });
    let (session, r) = handle.join().await.ok_or_else(worker_died)?;
    Ok((session, r?))
}

/// Prepare for a load: drop the schema's tables txbench created first when
/// `drop_first` ([`ownership::drop_ours`]), enter the engine's bulk-load
/// mode and create the tables, those `partitioning` names split into hash
/// partitions, each recorded as txbench's once it is made.
pub async fn create_tables<E: Engine>(
    engine: &E,
    session: E::Session,
    meta: &'static MetaTable,
    schema: &'static Schema,
    drop_first: bool,
    partitioning: Option<Partitioning>,
) -> Result<E::Session, DbError> {
    let (session, ()) = on_session(engine, session, move |s| {
        Box::pin(async move {
            if drop_first {
                ownership::drop_ours(s, meta, schema).await?;
            }
            loader_of(s)?.begin_bulk_load().await?;
            // The (empty) metadata table first: from here on the database says
            // "a load is in progress" until the load's last step records it finished.
            let (meta_table, data) = meta_and_data(schema);
            let mut created: Vec<&str> = Vec::with_capacity(schema.tables.len());
            let made = async {
                create_table(s, meta_table, partitioning).await?;
                created.push(meta_table.name);
                for (i, table) in data.iter().enumerate() {
                    create_table(s, table, partitioning).await?;
                    created.push(table.name);
                    ownership::record_created(s, meta, i, table.name).await?;
                }
                Ok::<(), DbError>(())
            }
            .await;
            if let Err(e) = made {
                // An engine that cannot hold a table (Redis and TPC-C's)
                // refuses the workload: leave nothing of it behind, or the
                // next command would take it for a load that did not finish.
                let tables = loader_of(s)?;
                for name in created.iter().rev() {
                    let _ = tables.drop_table(name).await;
                }
                return Err(e);
            }
            Ok(())
        })
    })
    .await?;
    Ok(session)
}

/// Create one table, split into hash partitions where `partitioning` names it.
async fn create_table<S: Session>(
    session: &mut S,
    table: &'static Table,
    partitioning: Option<Partitioning>,
) -> Result<(), DbError> {
    let s = loader_of(session)?;
    match partitioning.and_then(|p| Some((p.column(table.name)?, p.count))) {
        Some((column, count)) => s.create_partitioned_table(table, column, count).await,
        None => s.create_table(table).await,
    }
}

/// After the data: each table's primary key (where the engine left it out),
/// its indexes and its statistics, the tables in parallel on up to `threads`
/// sessions where the engine takes several writers (the first the given
/// one); then, when asked, foreign keys. Building keys once is faster than
/// maintaining them row by row. Leaves the engine's bulk-load mode.
pub async fn finish_tables<E: Engine>(
    engine: &Arc<E>,
    session: E::Session,
    schema: &'static Schema,
    threads: usize,
    foreign_keys: bool,
) -> Result<E::Session, DbError> {
    finish_on(engine, vec![session], schema, threads, foreign_keys).await
}

/// [`finish_tables`] on `sessions` (the first the one that stays in
/// bulk-load mode to the end), connecting more only where the engine takes
/// more writers than given: a load's writers go on to its keys, rather than
/// wait for new connections (one of PostgreSQL's took 28 ms at scale 1, a
/// tenth of the load).
async fn finish_on<E: Engine>(
    engine: &Arc<E>,
    sessions: Vec<E::Session>,
    schema: &'static Schema,
    threads: usize,
    foreign_keys: bool,
) -> Result<E::Session, DbError> {
    let workers = threads.min(engine.max_writers()).min(schema.tables.len());
    let next = Arc::new(AtomicUsize::new(0));
    let sessions = on_sessions(engine, sessions, workers, move |s| {
        key_tables(s, schema, Arc::clone(&next))
    })
    .await?;
    let session = first_of(sessions);
    let (session, ()) = on_session(engine.as_ref(), session, move |s| {
        Box::pin(async move {
            let s = loader_of(s)?;
            if foreign_keys {
                for key in schema.foreign_keys {
                    s.add_foreign_key(key).await?;
                }
            }
            s.end_bulk_load().await
        })
    })
    .await?;
    Ok(session)
}

/// Take the schema's tables one by one (the next by `next`) and give each its
/// primary key, its indexes and fresh statistics; the session back.
async fn key_tables<S: Session>(
    mut session: S,
    schema: &'static Schema,
    next: Arc<AtomicUsize>,
) -> Result<S, DbError> {
    loop {
        let Some(table) = schema.tables.get(next.fetch_add(1, Ordering::Relaxed)) else {
            return Ok(session);
        };
        let s = loader_of(&mut session)?;
        s.add_primary_key(table).await?;
        for index in schema.indexes.iter().filter(|i| i.table == table.name) {
            s.create_index(index).await?;
        }
        s.analyze(table).await?;
    }
}

/// What a workload's load writes: its units of rows and how each is made,
/// and the entries of its own it records (TPC-C's C-Load constants).
pub struct Population<U, G> {
    /// The units of work (warehouses, chunks of subscribers or keys).
    pub units: Vec<U>,
    /// Makes a unit's rows (unit index, unit).
    pub generate: G,
    /// Entries recorded with the load beyond scale, seed and version.
    pub entries: Vec<(&'static str, String)>,
    /// Tables split into hash partitions; `None`: every table whole.
    pub partitioning: Option<Partitioning>,
    /// Statements that fill tables from the rows written (a workload
    /// file's `from` tables: `INSERT INTO t (...) SELECT ...`), run in
    /// order once every unit is written, before keys and indexes.
    pub derived: Vec<&'static txbench_core::schema::Statement>,
    /// Statements that finish the rows written (a workload file's
    /// `after_load` UPDATEs), run in order once the keys and indexes are
    /// made; the rows they change are no rows loaded.
    pub finishing: Vec<&'static txbench_core::schema::Statement>,
}

/// Load a workload, the same steps for every one: refuse a database that
/// holds its data (unless `plan.drop`), create the tables with the metadata
/// table first, write the population in parallel, build keys and indexes,
/// and record the load last, so that an interrupted load says so.
pub async fn load<E, U, G>(
    engine: Arc<E>,
    meta: &'static MetaTable,
    schema: &'static Schema,
    plan: &LoadPlan,
    population: Population<U, G>,
    rows_done: Arc<AtomicU64>,
) -> Result<LoadSummary, WorkloadError>
where
    E: Engine,
    U: Copy + Send + Sync + 'static,
    G: Fn(usize, U) -> Vec<RowBatch> + Send + Sync + 'static,
{
    let about = meta.about;
    if plan.scale < 1 {
        return Err(WorkloadError::BadScale {
            about,
            value: plan.scale,
        });
    }
    engine.can_hold(schema)?;
    let started = std::time::Instant::now();
    let session = engine.connect().await?;
    let (session, found) = on_session(engine.as_ref(), session, move |s| {
        Box::pin(ownership::survey(s, meta, schema))
    })
    .await?;
    if let Some(table) = found.foreign.first() {
        return Err(WorkloadError::NotOurs { about, table });
    }
    let (session, state) = on_session(engine.as_ref(), session, |s| Box::pin(meta.read(s))).await?;
    match state {
        Some(_) if plan.drop => {}
        Some(state) if !state.complete => return Err(WorkloadError::Incomplete(about)),
        Some(state) => {
            return Err(WorkloadError::AlreadyLoaded {
                about,
                loaded: state.scale,
            });
        }
        None => {}
    }
    let session = create_tables(
        engine.as_ref(),
        session,
        meta,
        schema,
        plan.drop,
        population.partitioning,
    )
    .await?;
    let mut sessions = write_on(
        &engine,
        vec![session],
        schema,
        population.units,
        population.generate,
        plan.threads,
        Arc::clone(&rows_done),
    )
    .await?;
    let session = sessions.remove(0);
    let (derived, finishing) = (population.derived, population.finishing);
    let (session, copied) = on_session(engine.as_ref(), session, move |s| {
        Box::pin(async move {
            let mut rows = 0;
            for statement in derived {
                rows += s.execute(statement, &[]).await?;
            }
            Ok(rows)
        })
    })
    .await?;
    rows_done.fetch_add(copied, Ordering::Relaxed);
    sessions.insert(0, session);
    let session = finish_on(&engine, sessions, schema, plan.threads, plan.foreign_keys).await?;
    // With the keys and indexes made: a statement that finishes a row from
    // others looks them up by key (Wikipedia's page its newest revision)
    // rather than scanning a table for each row.
    let (session, ()) = on_session(engine.as_ref(), session, move |s| {
        Box::pin(async move {
            for statement in &finishing {
                s.execute(statement, &[]).await?;
            }
            // The statistics were taken before these statements changed
            // rows (AuctionMark's counts of bids): a planner that read them
            // would think every item has none, and scan for one that has.
            if !finishing.is_empty() {
                let loader = loader_of(s)?;
                for table in schema.tables {
                    loader.analyze(table).await?;
                }
            }
            Ok(())
        })
    })
    .await?;
    let (scale, seed, entries) = (plan.scale, plan.seed, population.entries);
    on_session(engine.as_ref(), session, move |s| {
        Box::pin(async move { meta.write(s, scale, seed, &entries).await })
    })
    .await?;
    Ok(LoadSummary {
        rows: rows_done.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
        note: String::new(),
    })
}
