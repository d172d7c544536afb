//! A transaction type made for the driver: each statement's values
//! resolved to the drawn or read slot they come from, its statements
//! grouped into round trips (a statement that needs another's reply, or
//! follows a pause, starts one), made once for each repetition.

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use txbench_core::schema::{self, KvOp};

use super::super::draw::{Inserts, NextKeys};
use super::super::spec::{Expect, Generator, KvForm, ListRead, Statement, Transaction};
use super::super::{keep, keep_all, keep_text};

/// Where a placeholder's value comes from.
#[derive(Debug, Clone, Copy)]
pub(super) enum Slot {
    /// The input's drawn parameter of this index.
    Drawn(usize),
    /// The value an earlier statement read, of this index.
    Read(usize),
}

/// A statement made for the driver, with where its values come from.
#[derive(Debug)]
pub(super) struct Step {
    /// The statement, then its variants.
    pub(super) statements: Vec<&'static schema::Statement>,
    /// The drawn value that chooses among them, if any.
    pub(super) pick: Option<usize>,
    /// Its line in the file.
    pub(super) line: usize,
    /// Each placeholder's value, in order.
    pub(super) args: Vec<Slot>,
    pub(super) query: bool,
    pub(super) expect: Expect,
    /// The read values its first row's columns fill, in column order.
    pub(super) into: Vec<usize>,
    /// The read values its rows' first column fills, and the one its
    /// number of rows fills ([`super::ListRead`]).
    pub(super) into_list: Option<(Range<usize>, usize)>,
    /// The lengths of the lists it uses, by read value: any of them 0, it
    /// is not sent and returns no rows.
    pub(super) lists: Vec<usize>,
    /// How long the terminal waits after its reply (it ends its round trip).
    pub(super) pause_after: Option<Duration>,
    /// The value, and the integer it must be, for it to be sent (`when`).
    pub(super) when: Option<(Slot, i64)>,
}

/// A type made for the driver.
#[derive(Debug)]
pub(super) struct Kind {
    pub(super) steps: Vec<Step>,
    /// The steps of each round trip, in order: a statement starts a new one
    /// when it needs a statement of the one before.
    pub(super) waves: Vec<Range<usize>>,
    /// Values its statements read for later ones.
    pub(super) reads: usize,
    pub(super) read_only: bool,
    /// Whether each statement commits on its own (no BEGIN or COMMIT).
    pub(super) autocommit: bool,
    /// Whether a duplicate key is a conflict to retry.
    pub(super) retry_duplicates: bool,
    /// Whether the COMMIT goes out with the last round trip's statements:
    /// in a transaction whose last round trip holds no `one-or-none` (that
    /// one's none must roll back, so the COMMIT waits for its answer), as
    /// pgbench's `\startpipeline` sends BEGIN to END together.
    pub(super) commit_with_last: bool,
    /// Its parameters that are keys of inserts, by index, and their column's
    /// inserts, told when each is over.
    pub(super) inserts: Vec<(usize, Arc<Inserts>)>,
    /// What the acknowledged-work log keeps of it: its integer parameters'
    /// names (none for a read-only type), and their indexes.
    pub(super) ack_fields: &'static str,
    pub(super) ack_params: Vec<usize>,
}

/// The steps of a transaction type: its values' slots resolved, its
/// statements grouped into round trips, made once for each of its
/// repetitions (each with its own drawn and read values).
pub(super) fn kind_of(
    t: &Transaction,
    tables: &[&'static schema::Table],
    next: &NextKeys,
    scale: i64,
) -> Kind {
    let per_repeat = t.params.len();
    let repeated = |i: usize| (0..t.repeat).map(move |r| r * per_repeat + i);
    let inserts = t
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, (_, g))| match g {
            Generator::NextKey(keys) => Some((i, next.of(keys, scale))),
            _ => None,
        })
        .flat_map(|(i, inserts)| repeated(i).map(move |at| (at, Arc::clone(&inserts))))
        .collect();
    let statements: Vec<Vec<&'static schema::Statement>> = t
        .statements
        .iter()
        .map(|s| driver_statements(t, s, tables))
        .collect();
    let drawn: Vec<&str> = t.params.iter().map(|(n, _)| n.as_str()).collect();
    let mut steps = Steps::default();
    for r in 0..t.repeat {
        steps.repetition(t, (&statements, &drawn), r * per_repeat);
    }
    let Steps {
        steps,
        mut waves,
        read,
        wave_start,
        ..
    } = steps;
    waves.push(wave_start..steps.len());
    let last = &steps[wave_start..];
    let commit_with_last = !t.autocommit
        && last.iter().all(|s| !s.expect.may_roll_back())
        && last.last().is_none_or(|s| s.pause_after.is_none());
    let ack_params: Vec<usize> = if t.read_only {
        Vec::new()
    } else {
        (0..per_repeat)
            .filter(|&i| draws_integers(&t.params[i].1))
            .flat_map(repeated)
            .collect()
    };
    let ack_names: Vec<&str> = (ack_params.iter())
        .map(|&i| t.params[i % per_repeat].0.as_str())
        .collect();
    Kind {
        steps,
        waves,
        reads: read.len(),
        read_only: t.read_only,
        autocommit: t.autocommit,
        retry_duplicates: t.retry_duplicates,
        commit_with_last,
        inserts,
        ack_fields: keep_text(ack_names.join(" ")),
        ack_params,
    }
}

/// A statement of the file as the driver takes it, then its variants.
fn driver_statements(
    t: &Transaction,
    s: &Statement,
    tables: &[&'static schema::Table],
) -> Vec<&'static schema::Statement> {
    let name = keep_text(format!("{} {}", t.name, s.name));
    std::iter::once((&s.sql, &s.kv))
        .chain(s.variants.iter().map(|(sql, kv)| (sql, kv)))
        .map(|(sql, kv)| {
            let statement = schema::Statement::new(name, keep_text(sql.clone()));
            keep(match kv {
                Some(form) => statement.key_value(kv_op(form, tables)),
                None => statement,
            })
        })
        .collect()
}

/// A type's steps as they are made, repetition after repetition.
#[derive(Default)]
struct Steps {
    steps: Vec<Step>,
    waves: Vec<Range<usize>>,
    /// The names of the values read, each at its slot.
    read: Vec<String>,
    /// The first step of the round trip being made.
    wave_start: usize,
}

impl Steps {
    /// The steps of one repetition of `t`'s statements (made for the
    /// driver), whose `drawn` parameters start at `drawn_from` in the input.
    fn repetition(
        &mut self,
        t: &Transaction,
        (statements, drawn): (&[Vec<&'static schema::Statement>], &[&str]),
        drawn_from: usize,
    ) {
        let first_step = self.steps.len();
        // A repetition reads only what it read itself.
        let read_from = self.read.len();
        for (s, statements) in t.statements.iter().zip(statements) {
            let read = &self.read[read_from..];
            // A value read last is the latest one given to its name.
            let slot = |n: &str| match read.iter().rposition(|x| *x == n) {
                Some(r) => Slot::Read(read_from + r),
                None => {
                    Slot::Drawn(drawn_from + drawn.iter().position(|x| *x == n).expect("checked"))
                }
            };
            let args: Vec<Slot> = s.args.iter().map(|a| slot(a)).collect();
            let when = s.when.as_ref().map(|(p, equals)| (slot(p), *equals));
            let lists = (s.lists.iter())
                .map(|l| match slot(&ListRead::length(l)) {
                    Slot::Read(r) => r,
                    Slot::Drawn(_) => unreachable!("a list is read"),
                })
                .collect::<Vec<usize>>();
            let i = self.steps.len();
            // A statement that needs one of the round trip's, or follows a
            // pause, starts a round trip; so does one that follows checks
            // (`none`), whose answer decides whether it is sent at all.
            let needs = s.after.iter().any(|&a| first_step + a >= self.wave_start);
            let paused = self.steps.last().is_some_and(|p| p.pause_after.is_some());
            let checked = s.expect != Expect::None
                && self.steps.last().is_some_and(|p| p.expect == Expect::None);
            if i > 0 && (needs || paused || checked) {
                self.waves.push(self.wave_start..i);
                self.wave_start = i;
            }
            let into = (s.into.iter())
                .map(|n| {
                    self.read.push(n.clone());
                    self.read.len() - 1
                })
                .collect();
            let into_list = s.into_list.as_ref().map(|l| {
                let first = self.read.len();
                (self.read).extend((0..l.rows).map(|k| ListRead::slot(&l.name, k)));
                self.read.push(ListRead::length(&l.name));
                (first..first + l.rows, self.read.len() - 1)
            });
            let pick = (s.pick.as_ref())
                .map(|p| drawn_from + drawn.iter().position(|x| x == p).expect("checked"));
            self.steps.push(Step {
                statements: statements.clone(),
                pick,
                line: s.line,
                args,
                query: s.query,
                expect: s.expect,
                into,
                into_list,
                lists,
                pause_after: s.pause_after,
                when,
            });
        }
    }
}

/// A checked key-value form as the engines take it.
fn kv_op(form: &KvForm, tables: &[&'static schema::Table]) -> KvOp {
    let Some(name) = form.table() else {
        return KvOp::Ping;
    };
    let table = *tables
        .iter()
        .find(|t| t.name == name)
        .expect("a checked form names a table of the file");
    let names = |cs: &[String]| keep_all(cs.iter().map(|c| keep_text(c.clone())).collect());
    match form {
        KvForm::Read { key, columns, .. } => KvOp::Read {
            table,
            key: *key,
            columns: names(columns),
        },
        KvForm::Write {
            key, set, insert, ..
        } => KvOp::Write {
            table,
            key: *key,
            set: keep_all(
                set.iter()
                    .map(|(c, i)| (keep_text(c.clone()), *i))
                    .collect(),
            ),
            insert: *insert,
        },
        KvForm::Scan {
            from,
            count,
            columns,
            ..
        } => KvOp::Range {
            table,
            from: *from,
            count: *count,
            columns: names(columns),
        },
        KvForm::Ping => KvOp::Ping,
    }
}

/// Whether `g` draws integers (what the acknowledged-work log keeps).
fn draws_integers(g: &Generator) -> bool {
    match g {
        Generator::Text { .. } | Generator::Padded { .. } => false,
        Generator::Constant(v) => v.is_integer(),
        Generator::List(values) => values.iter().all(toml::Value::is_integer),
        Generator::Seeded { inner, .. } | Generator::Instead { inner, .. } => draws_integers(inner),
        _ => true,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::custom::{benchbase, load, parse};

    /// The types of the shipped workload `name` made for the driver at
    /// `scale`.
    pub(in crate::custom::run) fn shipped(name: &str, scale: i64) -> Vec<(String, Kind)> {
        let (path, text) = benchbase::file(name).unwrap();
        let spec = parse(&path, text).unwrap();
        let tables: Vec<&'static schema::Table> = (spec.tables.iter())
            .map(|t| keep(load::schema_table(t)))
            .collect();
        let next = NextKeys::default();
        (spec.transactions.iter())
            .map(|t| (t.name.clone(), kind_of(t, &tables, &next, scale)))
            .collect()
    }

    /// ResourceStresser's types made for the driver at scale 2.
    fn resource_stresser() -> Vec<(String, Kind)> {
        shipped("resourcestresser", 2)
    }

    pub(in crate::custom::run) fn kind<'a>(kinds: &'a [(String, Kind)], name: &str) -> &'a Kind {
        &kinds.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn a_repeated_type_has_its_steps_once_a_repetition_each_with_its_own_draws() {
        let kinds = resource_stresser();
        let io2 = kind(&kinds, "IO2");
        assert_eq!(io2.steps.len(), 50);
        // Repetition r's :flag and :id are its own two drawn values.
        for (r, step) in io2.steps.iter().enumerate() {
            let slots: Vec<usize> = (step.args.iter())
                .map(|s| match s {
                    Slot::Drawn(i) => *i,
                    Slot::Read(_) => panic!("IO2 reads nothing"),
                })
                .collect();
            assert_eq!(slots, [2 * r + 1, 2 * r], "repetition {r}");
        }
        // Its integer values are logged for every repetition.
        assert_eq!(io2.ack_params.len(), 100);
        assert_eq!(io2.ack_fields.split(' ').filter(|f| *f == "id").count(), 50);
    }

    #[test]
    fn repetitions_that_need_nothing_of_each_other_go_out_in_one_round_trip() {
        let kinds = resource_stresser();
        for name in ["IO1", "IO2"] {
            let k = kind(&kinds, name);
            assert_eq!(
                (k.waves.len(), k.waves[0].clone()),
                (1, 0..k.steps.len()),
                "{name}"
            );
            // and the COMMIT with them.
            assert!(k.commit_with_last, "{name}");
        }
    }

    #[test]
    fn a_pause_ends_its_round_trip_and_comes_before_the_commit() {
        let kinds = resource_stresser();
        for (name, repeat, pause) in [
            ("CPU1", 10, Duration::from_millis(1)),
            ("Contention1", 20, Duration::from_secs(1)),
            ("Contention2", 5, Duration::from_secs(2)),
        ] {
            let k = kind(&kinds, name);
            let one_each: Vec<Range<usize>> = (0..repeat).map(|i| i..i + 1).collect();
            assert_eq!(k.waves, one_each, "{name}");
            assert!(
                k.steps.iter().all(|s| s.pause_after == Some(pause)),
                "{name}"
            );
            // The last pause is the transaction's too: it holds its locks.
            assert!(!k.commit_with_last, "{name}");
        }
    }

    #[test]
    fn checks_that_must_find_nothing_end_their_round_trip_before_what_they_guard() {
        let kinds = shipped("seats", 2_000);
        // SEATS' booking: the open seat and the flight; the two checks
        // (the seat's needs the seat read), which go out together; then
        // the booking's reads and writes with the COMMIT, once neither
        // found a row.
        let new = kind(&kinds, "NewReservation");
        assert_eq!(new.waves, [0..2, 2..4, 4..9]);
        assert!(new.commit_with_last);
        // A move: the reservation found; the seat's check; the customer's
        // and the moves. Its last round trip may roll back (a reservation
        // another terminal deleted), so the COMMIT waits for it.
        let update = kind(&kinds, "UpdateReservation");
        assert_eq!(update.waves, [0..1, 1..2, 2..7]);
        assert!(!update.commit_with_last);
    }

    #[test]
    fn a_branch_on_a_list_compares_its_length_once_its_query_answered() {
        let kinds = shipped("seats", 2_000);
        let find = kind(&kinds, "FindFlights");
        let (nearby, flights) = (&find.steps[1], &find.steps[2]);
        let (_, length) = nearby.into_list.clone().unwrap();
        assert!(matches!(flights.when, Some((Slot::Read(r), 0)) if r == length));
        let wave_of = |i: usize| find.waves.iter().position(|w| w.contains(&i));
        assert!(wave_of(2) > wave_of(1), "{:?}", find.waves);
    }
}
