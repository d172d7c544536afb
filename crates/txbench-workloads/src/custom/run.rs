//! A checked workload file as a [`Workload`] the driver runs: its types, a
//! terminal that draws each transaction's parameters, and one procedure that
//! executes any type's statements in order, pipelining those that need none
//! of each other, reading values into later statements, and checking the
//! rows each one returns or changes.
//!
//! The driver takes statements and type descriptions for the life of the
//! process (`&'static`); a file's are made once per process and kept (leaked),
//! as the built-in workloads' are compiled in.

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use txbench_core::engine::{Call, Reply};
use txbench_core::rng::Rand;
use txbench_core::schema;
use txbench_core::value::{Rows, Value};
use txbench_core::{
    DbError, ErrorKind, Outcome, Param, Planned, Session, Terminal, TxMode, TxnTypeInfo, Workload,
    Written,
};

mod steps;

use super::draw::{Draw, NextKeys};
use super::spec::{Expect, Spec};
use super::{keep, keep_all, keep_text, load};
use steps::{Kind, Slot, Step, kind_of};

/// A value drawn for a parameter, as a transaction's input carries it (to a
/// txbench server too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Drawn {
    /// An integer.
    Int(i64),
    /// A number with a fraction.
    Float(f64),
    /// Text.
    Text(String),
    /// A point in time (`now`), microseconds since the Unix epoch: bound
    /// as a timestamp, which MariaDB takes for a timestamp column where it
    /// refuses an integer.
    Time(i64),
    /// NULL.
    Null,
}

impl From<Value> for Drawn {
    fn from(v: Value) -> Drawn {
        match v {
            Value::Int(i) => Drawn::Int(i),
            Value::Timestamp(t) => Drawn::Time(t),
            Value::Float(f) => Drawn::Float(f),
            Value::Text(t) => Drawn::Text(t),
            Value::Null => Drawn::Null,
        }
    }
}

/// A value read from a row, kept for a later statement.
fn drawn(p: Param<'_>) -> Drawn {
    match p {
        Param::Int(i) => Drawn::Int(i),
        Param::Timestamp(t) => Drawn::Time(t),
        Param::Float(f) => Drawn::Float(f),
        Param::Text(t) => Drawn::Text(t.to_string()),
        Param::Null => Drawn::Null,
    }
}

impl Drawn {
    fn param(&self) -> Param<'_> {
        match self {
            Drawn::Int(i) => Param::Int(*i),
            Drawn::Time(t) => Param::Timestamp(*t),
            Drawn::Float(f) => Param::Float(*f),
            Drawn::Text(t) => Param::Text(t),
            Drawn::Null => Param::Null,
        }
    }
}

/// One transaction to run: its type and its drawn parameters, in the order
/// the file lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileInput {
    /// The type, an index into the file's transactions.
    pub txn_type: usize,
    /// The drawn parameters.
    pub params: Vec<Drawn>,
}

/// A workload file's workload at one scale. `K` says which command runs it
/// (`txbench custom`, `txbench ycsb`): each is its own [`crate::Benchmark`]
/// over the same workload.
pub struct FileWorkload<K = Plain> {
    inner: Arc<Inner>,
    kind: PhantomData<fn() -> K>,
}

/// A file's workload run on its own, by the library.
#[derive(Debug)]
pub enum Plain {}

impl<K> Clone for FileWorkload<K> {
    fn clone(&self) -> Self {
        FileWorkload {
            inner: Arc::clone(&self.inner),
            kind: PhantomData,
        }
    }
}

impl<K> std::fmt::Debug for FileWorkload<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileWorkload")
            .field("inner", &self.inner)
            .finish()
    }
}

#[derive(Debug)]
struct Inner {
    spec: Spec,
    /// The file's tables as the engines take them (key-value forms name them).
    tables: Vec<&'static schema::Table>,
    scale: i64,
    name: &'static str,
    types: &'static [TxnTypeInfo],
    kinds: Vec<Kind>,
    next: NextKeys,
}

impl FileWorkload {
    /// The workload of `spec` at `scale`, named in results by the file's name.
    pub fn new(spec: Spec, scale: i64) -> FileWorkload {
        let name = keep_text(spec.name.clone());
        FileWorkload::named(spec, scale, name)
    }
}

impl<K> FileWorkload<K> {
    /// The workload of `spec` at `scale`, named `name` in results (the
    /// command that runs it: `custom`, `ycsb`).
    pub fn named(spec: Spec, scale: i64, name: &'static str) -> FileWorkload<K> {
        let think = Duration::from_secs_f64(spec.think_secs);
        let types: Vec<TxnTypeInfo> = spec
            .transactions
            .iter()
            .map(|t| {
                let key = keep_text(t.name.to_ascii_lowercase().replace(['-', ' '], "_"));
                TxnTypeInfo {
                    mean_think: think,
                    ..TxnTypeInfo::back_to_back(
                        keep_text(t.name.clone()),
                        key,
                        t.share,
                        t.expected_success,
                    )
                }
            })
            .collect();
        let next = NextKeys::default();
        let tables: Vec<&'static schema::Table> = spec
            .tables
            .iter()
            .map(|t| keep(load::schema_table(t)))
            .collect();
        let kinds = spec
            .transactions
            .iter()
            .map(|t| kind_of(t, &tables, &next, scale))
            .collect();
        FileWorkload {
            inner: Arc::new(Inner {
                name,
                types: keep_all(types),
                kinds,
                scale,
                spec,
                tables,
                next,
            }),
            kind: PhantomData,
        }
    }

    /// The next key of each key column its inserts draw from, shared by
    /// its terminals.
    pub fn next_keys(&self) -> &NextKeys {
        &self.inner.next
    }

    /// The scale it runs at.
    pub fn scale(&self) -> i64 {
        self.inner.scale
    }

    /// The checked file it runs.
    pub fn spec(&self) -> &Spec {
        &self.inner.spec
    }

    /// The file's table `name` as the engines take it.
    pub fn tables(&self) -> Vec<&'static schema::Table> {
        self.inner.tables.clone()
    }

    /// The file's table `name` as the engines take it.
    pub fn table(&self, name: &str) -> Option<&'static schema::Table> {
        self.inner.tables.iter().find(|t| t.name == name).copied()
    }

    /// Every statement it may run (variants included), with its line in
    /// the file and the number of values its `into` reads from its row.
    pub fn statements(
        &self,
    ) -> impl Iterator<Item = (&'static schema::Statement, usize, usize)> + '_ {
        self.inner
            .kinds
            .iter()
            .flat_map(|k| &k.steps)
            .flat_map(|s| {
                s.statements
                    .iter()
                    .map(move |st| (*st, s.line, s.into.len()))
            })
    }
}

/// Draws each transaction: its type by the mix, then its parameters.
pub struct FileTerminal {
    rng: Rand,
    /// Cumulative shares of the types.
    cumulative: Vec<f64>,
    /// Each type's parameters, ready to draw.
    draws: Vec<Vec<Draw>>,
    /// How many times each type draws them (its `repeat`).
    repeats: Vec<usize>,
    think: f64,
}

impl Terminal for FileTerminal {
    type Input = FileInput;

    fn next(&mut self) -> Planned<FileInput> {
        let u = self.rng.unit();
        let txn_type = self
            .cumulative
            .iter()
            .position(|c| u < *c)
            .unwrap_or(self.cumulative.len() - 1);
        let draws = &self.draws[txn_type];
        let repeat = self.repeats[txn_type];
        let mut params = Vec::with_capacity(draws.len() * repeat);
        for _ in 0..repeat {
            let start = params.len();
            for d in draws {
                let value = draw_param(d, &mut self.rng, &params[start..]);
                params.push(value);
            }
        }
        let think = if self.think > 0.0 {
            Duration::from_secs_f64(
                self.rng
                    .exponential(self.think)
                    .min(self.think * txbench_core::workload::THINK_TRUNCATION),
            )
        } else {
            Duration::ZERO
        };
        Planned {
            input: FileInput { txn_type, params },
            txn_type,
            keying: Duration::ZERO,
            think,
        }
    }
}

/// A transaction's parameter drawn by `d`, after the `earlier` ones (an
/// `add`, an `other_than` key and a `seeded_by` value are made of them).
fn draw_param(d: &Draw, rng: &mut Rand, earlier: &[Drawn]) -> Drawn {
    let earlier_int = |i: usize| match earlier.get(i) {
        Some(Drawn::Int(v)) => Some(*v),
        _ => None,
    };
    (d.given(rng, earlier_int))
        .unwrap_or_else(|| d.parameter(rng))
        .into()
}

impl<K: 'static> Workload for FileWorkload<K> {
    type Input = FileInput;
    type Terminal = FileTerminal;

    fn name(&self) -> &'static str {
        self.inner.name
    }

    fn transaction_types(&self) -> &'static [TxnTypeInfo] {
        self.inner.types
    }

    fn default_terminals(&self) -> usize {
        ((self.inner.spec.terminals_per_scale * self.inner.scale as f64).round() as usize).max(1)
    }

    fn terminal(&self, index: usize, seed: u64) -> FileTerminal {
        let rng = Rand::derive(seed, index as u64);
        // NURand's constant is the run's: drawn from the seed, not the terminal.
        let mut constants = Rand::derive(seed, u64::MAX);
        let spec = &self.inner.spec;
        // Its home, for the draws that keep to one (`home_step`): the
        // terminals the file asks for each have their own.
        let home = (index % self.default_terminals()) as i64;
        let draws = spec
            .transactions
            .iter()
            .map(|t| {
                t.params
                    .iter()
                    .map(|(_, g)| {
                        Draw::new(g, self.inner.scale, &self.inner.next, &mut constants)
                            .expect("a generator checked at open")
                            .at_home(g, home)
                    })
                    .collect()
            })
            .collect();
        let mut sum = 0.0;
        let cumulative = spec
            .transactions
            .iter()
            .map(|t| {
                sum += t.share;
                sum
            })
            .collect();
        FileTerminal {
            rng,
            cumulative,
            draws,
            repeats: spec.transactions.iter().map(|t| t.repeat).collect(),
            think: spec.think_secs,
        }
    }

    fn ack_fields(&self, txn_type: usize) -> &'static str {
        self.inner.kinds.get(txn_type).map_or("", |k| k.ack_fields)
    }

    async fn execute<S: Session>(
        &self,
        session: &mut S,
        input: &FileInput,
        written: &mut Written,
    ) -> Result<Outcome, DbError> {
        let kind = self.inner.kinds.get(input.txn_type).ok_or_else(|| {
            DbError::new(
                ErrorKind::Data,
                format!("no transaction type {}", input.txn_type),
            )
        })?;
        let outcome = match run_kind(session, kind, input, written).await {
            // A conflict to retry, as the file says; its code stays the
            // database's, by which retries count their causes.
            Err(e) if kind.retry_duplicates && e.is_duplicate_key() => Err(DbError {
                kind: ErrorKind::Conflict,
                ..e
            }),
            other => other,
        };
        for (i, inserts) in &kind.inserts {
            if let Some(Drawn::Int(key)) = input.params.get(*i) {
                inserts.done(*key);
            }
        }
        outcome
    }
}

/// One transaction of type `kind` with `input`'s parameters: its round trips
/// in order, each reply checked and its values kept for the later ones.
async fn run_kind<S: Session>(
    session: &mut S,
    kind: &Kind,
    input: &FileInput,
    written: &mut Written,
) -> Result<Outcome, DbError> {
    let acked = || {
        kind.ack_params.iter().map(|&i| match input.params[i] {
            Drawn::Int(v) => v,
            _ => 0,
        })
    };
    // The values read for later statements; the drawn ones stay in the input.
    let mut read = vec![Drawn::Null; kind.reads];
    let mode = if kind.read_only {
        TxMode::ReadOnly
    } else {
        TxMode::ReadWrite
    };
    if kind.autocommit {
        // Each statement may commit as soon as it is sent.
        if !kind.ack_params.is_empty() {
            written.committing(acked());
        }
    } else {
        session.begin(mode).await?;
    }
    let last = kind.waves.len() - 1;
    for (w, wave) in kind.waves.iter().enumerate() {
        let wave = &kind.steps[wave.clone()];
        let with_commit = w == last && kind.commit_with_last;
        if with_commit && !kind.ack_params.is_empty() {
            written.committing(acked());
        }
        let replies = send_wave(session, wave, input, &read, with_commit).await?;
        let pause = wave.last().and_then(|s| s.pause_after);
        for (step, (reply, held)) in wave.iter().zip(replies) {
            if !kept(step, &reply, held, &mut read)? {
                if kind.autocommit {
                    // What was sent committed; the rest is not sent.
                    return Ok(Outcome::ExpectedRollback);
                }
                if !kind.ack_params.is_empty() {
                    written.writing(acked());
                }
                session.rollback().await?;
                return Ok(Outcome::ExpectedRollback);
            }
        }
        if let Some(pause) = pause {
            // Inside the transaction, holding what it locked.
            tokio::time::sleep(pause).await;
        }
    }
    if kind.autocommit || kind.commit_with_last {
        return Ok(Outcome::Committed);
    }
    if !kind.ack_params.is_empty() {
        written.committing(acked());
    }
    session.commit().await?;
    Ok(Outcome::Committed)
}

/// One round trip of `wave`'s statements, with the COMMIT after them when
/// `with_commit`: every placeholder in one buffer, each statement's a slice
/// of it, and each statement the variant its pick draws.
async fn send_wave<S: Session>(
    session: &mut S,
    wave: &[Step],
    input: &FileInput,
    read: &[Drawn],
    with_commit: bool,
) -> Result<Vec<(Reply, bool)>, DbError> {
    let value = |slot: &Slot| match *slot {
        Slot::Drawn(i) => input.params[i].param(),
        Slot::Read(i) => read[i].param(),
    };
    let params: Vec<Param<'_>> = wave.iter().flat_map(|s| s.args.iter().map(value)).collect();
    let fate = |s: &Step| fate(s, input, read);
    let mut rest = &params[..];
    let calls: Vec<Call<'_>> = wave
        .iter()
        .filter_map(|s| {
            let (own, after) = rest.split_at(s.args.len());
            rest = after;
            (fate(s) == Fate::Sent).then_some((s, own))
        })
        .map(|(s, own)| {
            let statement = match s.pick.map(|i| &input.params[i]) {
                Some(Drawn::Int(i)) => {
                    s.statements[i.rem_euclid(s.statements.len() as i64) as usize]
                }
                _ => s.statements[0],
            };
            if s.query {
                Call::query(statement, own)
            } else {
                Call::execute(statement, own)
            }
        })
        .collect();
    let mut replies = match (calls.is_empty(), with_commit) {
        (false, true) => session.pipeline_and_commit(&calls).await?,
        (false, false) => session.pipeline(&calls).await?,
        (true, true) => {
            session.commit().await?;
            Vec::new()
        }
        (true, false) => Vec::new(),
    }
    .into_iter();
    // A statement not sent returns no rows; a branch not taken is held
    // to no `expect`.
    let replied = wave.iter().map(|s| match fate(s) {
        Fate::Sent => (
            replies.next().expect("a reply for each statement sent"),
            true,
        ),
        Fate::EmptyList => (Reply::Rows(Rows::default()), true),
        Fate::NotTaken => (Reply::Rows(Rows::default()), false),
    });
    Ok(replied.collect())
}

/// What becomes of a statement of a round trip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Sent.
    Sent,
    /// Not sent: a list it uses came back empty (its `expect` decides).
    EmptyList,
    /// Not sent: its `when` does not hold (a branch not taken).
    NotTaken,
}

/// The fate of `s` with the drawn `input` and the values `read` so far.
fn fate(s: &Step, input: &FileInput, read: &[Drawn]) -> Fate {
    let holds = |(slot, equals): &(Slot, i64)| match slot {
        Slot::Drawn(i) => matches!(input.params[*i], Drawn::Int(v) if v == *equals),
        Slot::Read(i) => matches!(read[*i], Drawn::Int(v) if v == *equals),
    };
    if !s.when.as_ref().is_none_or(holds) {
        Fate::NotTaken
    } else if s.lists.iter().any(|&l| matches!(read[l], Drawn::Int(0))) {
        Fate::EmptyList
    } else {
        Fate::Sent
    }
}

/// Check a reply against what its statement expects, when `held` to it
/// (not a branch not taken), and keep the values it reads; false when what
/// it found ends the transaction.
fn kept(step: &Step, reply: &Reply, held: bool, read: &mut [Drawn]) -> Result<bool, DbError> {
    if held && !as_expected(step, reply)? {
        return Ok(false);
    }
    if let (Some(rows), false) = (reply.rows(), step.into.is_empty())
        && let Some(row) = rows.row(0)
    {
        for (column, &slot) in step.into.iter().enumerate() {
            read[slot] = row.get(column).map_or(Drawn::Null, drawn);
        }
    }
    if let (Some(rows), Some((slots, length))) = (reply.rows(), &step.into_list) {
        keep_list(rows, slots.clone(), *length, read);
    }
    Ok(true)
}

/// Whether `reply` is what `step` expects: false for an expected rollback,
/// an error for a data error.
fn as_expected(step: &Step, reply: &Reply) -> Result<bool, DbError> {
    let count = match reply {
        Reply::Rows(rows) => rows.len() as u64,
        Reply::Affected(n) => *n,
    };
    let wrong = |what: &str| {
        DbError::new(
            ErrorKind::Data,
            format!(
                "statement '{}' {what} {count} rows",
                step.statements[0].name
            ),
        )
    };
    match (step.expect, count) {
        (Expect::One, 1) | (Expect::OneOrNone, 1) | (Expect::None, 0) | (Expect::Any, _) => {}
        (Expect::OneOrNone, 0) | (Expect::None, _) => return Ok(false),
        (Expect::One, _) => return Err(wrong("expected one row and got")),
        (Expect::OneOrNone, _) => return Err(wrong("expected one row or none and got")),
    }
    Ok(true)
}

/// The first column of up to `slots.len()` of `rows` into `slots`, the rest
/// the last one again (BenchBase's padding of an `IN` list), and their
/// number into `length`.
fn keep_list(rows: &Rows, slots: Range<usize>, length: usize, read: &mut [Drawn]) {
    let n = rows.len().min(slots.len());
    let mut last = Drawn::Null;
    for (i, slot) in slots.enumerate() {
        if i < n {
            last = (rows.row(i).and_then(|r| r.get(0))).map_or(Drawn::Null, drawn);
        }
        read[slot] = last.clone();
    }
    read[length] = Drawn::Int(n as i64);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(ids: &[i64]) -> Rows {
        let mut rows = Rows::new(2);
        for id in ids {
            rows.push_row([Param::Int(*id), Param::Text("x")]);
        }
        rows
    }

    /// The first transaction of type `name` that terminal `index` of
    /// ResourceStresser at scale 2 draws.
    fn resource_stresser_draws(index: usize, name: &str) -> Vec<Drawn> {
        let (path, text) = crate::custom::benchbase::file("resourcestresser").unwrap();
        let spec = crate::custom::parse(&path, text).unwrap();
        let wanted = spec
            .transactions
            .iter()
            .position(|t| t.name == name)
            .unwrap();
        let mut terminal = FileWorkload::new(spec, 2).terminal(index, 7);
        loop {
            let planned = terminal.next();
            if planned.txn_type == wanted {
                return planned.input.params;
            }
        }
    }

    #[test]
    fn a_repeated_type_draws_its_parameters_afresh_for_each_repetition() {
        let params = resource_stresser_draws(0, "IO2");
        assert_eq!(params.len(), 100);
        let ids: std::collections::BTreeSet<String> = params
            .iter()
            .step_by(2)
            .map(|id| format!("{id:?}"))
            .collect();
        assert!(ids.len() > 10, "50 ids drawn, {} distinct", ids.len());
        // An add sums its own repetition's value: IO1's hi is its lo + 10.
        let io1 = resource_stresser_draws(0, "IO1");
        assert_eq!(io1.len(), 10 * 18);
        for r in io1.chunks(18) {
            match (&r[0], &r[1]) {
                (Drawn::Int(lo), Drawn::Int(hi)) => assert_eq!(*hi, lo + 10),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_home_step_keeps_each_terminal_to_its_home_s_keys() {
        // Scale 2: two terminals by default, homes 0 and 1; terminal 2
        // shares terminal 0's.
        for (index, home) in [(0, 0), (1, 1), (2, 0)] {
            let params = resource_stresser_draws(index, "IO2");
            for id in params.iter().step_by(2) {
                let Drawn::Int(id) = id else { panic!("{id:?}") };
                assert!(
                    (home * 100..home * 100 + 100).contains(id),
                    "terminal {index}: {id}"
                );
            }
        }
    }

    #[test]
    fn a_list_keeps_the_first_column_padded_with_its_last_value_and_its_length() {
        let mut read = vec![Drawn::Null; 6];
        keep_list(&rows_of(&[7, 9]), 1..5, 5, &mut read);
        let ints = [7, 9, 9, 9].map(Drawn::Int);
        assert_eq!((&read[1..5], &read[5]), (&ints[..], &Drawn::Int(2)));
        // More rows than room: the first ones, and the count kept.
        keep_list(&rows_of(&[1, 2, 3, 4, 5, 6]), 1..5, 5, &mut read);
        assert_eq!(
            (&read[1..5], &read[5]),
            (&[1, 2, 3, 4].map(Drawn::Int)[..], &Drawn::Int(4))
        );
        keep_list(&rows_of(&[]), 1..5, 5, &mut read);
        assert_eq!(read[5], Drawn::Int(0));
    }

    #[test]
    fn a_branch_not_taken_is_held_to_nothing_and_its_list_is_empty() {
        use super::steps::tests::{kind, shipped};
        let kinds = shipped("seats", 2_000);
        let by_id_str = &kind(&kinds, "UpdateCustomer").steps[0];
        let nearby = &kind(&kinds, "FindFlights").steps[1];
        let mut read = vec![Drawn::Int(5); 64];
        let empty = Reply::Rows(Rows::default());
        assert!(kept(by_id_str, &empty, false, &mut read).unwrap());
        assert!(kept(nearby, &empty, false, &mut read).unwrap());
        let (_, length) = nearby.into_list.clone().unwrap();
        assert_eq!(read[length], Drawn::Int(0));
        // Sent, the same `one` that found nothing is a data error.
        assert!(kept(by_id_str, &empty, true, &mut read).is_err());
    }

    #[test]
    fn a_check_that_finds_a_row_rolls_back_and_one_that_finds_none_goes_on() {
        use super::steps::tests::{kind, shipped};
        let kinds = shipped("seats", 2_000);
        let check_seat = &kind(&kinds, "NewReservation").steps[2];
        assert_eq!(check_seat.expect, Expect::None);
        let mut read = vec![Drawn::Null; 64];
        let sold = Reply::Rows(rows_of(&[3]));
        assert!(!kept(check_seat, &sold, true, &mut read).unwrap());
        let open = Reply::Rows(Rows::default());
        assert!(kept(check_seat, &open, true, &mut read).unwrap());
    }
}
