//! How the transactions keyed by the alternative key `sub_nbr`
//! (Update-Location, Insert- and Delete-Call-Forwarding: a fifth of the mix)
//! find their subscriber, while the data is placed by `s_id`. On a store
//! split by `s_id` there is no one right answer, so `--key-access` chooses
//! among the strategies the VoltDB study of TATP compared:
//!
//! * `single`: one transaction, by `sub_nbr` where TATP's text does (an
//!   update by `sub_nbr`; a select of `s_id` by `sub_nbr` first), which on a
//!   partitioned load touches every partition's index.
//! * `lookup`: `s_id` by `sub_nbr` from the subscriber table in a read-only
//!   transaction of its own (a query across partitions), then the transaction
//!   by `s_id` alone (one partition).
//! * `index`: the same, the lookup in the alternative key's own index
//!   (`subscriber_nbr`, placed by `sub_nbr`: one partition).
//! * `every-partition`: the lookup asked of every partition, one query each,
//!   sent together (one round trip), then the transaction by `s_id`.
//! * `try-every-partition`: the whole transaction tried on every partition in
//!   one transaction, one statement each, sent together; where the subscriber
//!   is not, it changes nothing.
//! * `server-side`: the transaction sent whole to a txbench server
//!   (`txbench://`), which does the lookup and the change next to the data in
//!   one network trip.
//!
//! On a sharded key-value store (Redis Cluster, [`Execution::Scripts`]) each
//! transaction by `s_id` is one script on its subscriber's partition; there
//! `index` reads the alternative key's own hash (placed by `sub_nbr`),
//! `every-partition` asks each partition's local index, and
//! `try-every-partition` sends the whole transaction by `sub_nbr` to every
//! partition. `single` and `lookup` need a query across partitions, which the
//! store has not, and are refused by name; `every-partition` is its default.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use txbench_core::Execution;
use txbench_core::schema::{Statement, partition_name};

use super::scripts::{Scripts, scripts};
use crate::error::WorkloadError;
use crate::options::BadValue;

/// The strategies; see the module's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyAccess {
    /// One transaction, by sub_nbr as TATP writes it
    Single,
    /// s_id by sub_nbr in a read-only transaction first, then the transaction by s_id
    Lookup,
    /// s_id from the alternative key's own index (subscriber_nbr) first, then by s_id
    Index,
    /// s_id asked of every partition (one query each, sent together), then by s_id
    EveryPartition,
    /// The transaction tried on every partition (one statement each, sent together)
    TryEveryPartition,
    /// The transaction sent whole to a txbench server, lookup and change in one trip
    ServerSide,
}

impl KeyAccess {
    /// Every strategy, in the order of the help.
    pub const ALL: [KeyAccess; 6] = [
        KeyAccess::Single,
        KeyAccess::Lookup,
        KeyAccess::Index,
        KeyAccess::EveryPartition,
        KeyAccess::TryEveryPartition,
        KeyAccess::ServerSide,
    ];

    /// Its name on the command line and in the results.
    pub fn name(self) -> &'static str {
        match self {
            KeyAccess::Single => "single",
            KeyAccess::Lookup => "lookup",
            KeyAccess::Index => "index",
            KeyAccess::EveryPartition => "every-partition",
            KeyAccess::TryEveryPartition => "try-every-partition",
            KeyAccess::ServerSide => "server-side",
        }
    }

    /// The strategy a session runs: the one asked, if the session can run
    /// it; none asked, its own (`single` on a database, `server-side` on a
    /// txbench server); `None` on an engine without data, where no strategy
    /// applies. A strategy the session cannot run is refused by name.
    pub fn resolve(
        asked: Option<KeyAccess>,
        execution: Execution,
    ) -> Result<Option<KeyAccess>, WorkloadError> {
        let refuse = |why: &str| {
            let name = asked.map_or("", KeyAccess::name);
            Err(WorkloadError::BadOption(format!(
                "--key-access {name}: {why}"
            )))
        };
        match (execution, asked) {
            (Execution::Statements, None) => Ok(Some(KeyAccess::Single)),
            (Execution::Statements, Some(KeyAccess::ServerSide)) => refuse(
                "only a txbench server (--db txbench://...) runs the lookup and the change in \
                 one network trip; this database takes the transaction's statements",
            ),
            (Execution::Statements, Some(asked)) => Ok(Some(asked)),
            (Execution::ServedTransactions, None | Some(KeyAccess::ServerSide)) => {
                Ok(Some(KeyAccess::ServerSide))
            }
            (Execution::ServedTransactions, Some(_)) => refuse(
                "a txbench server runs each transaction whole, next to its data: its strategy \
                 is server-side",
            ),
            (Execution::Scripts, None) => Ok(Some(KeyAccess::EveryPartition)),
            (Execution::Scripts, Some(KeyAccess::Single | KeyAccess::Lookup)) => refuse(
                "a sharded key-value store has no query by sub_nbr across its partitions (no \
                 transaction spans them, and no global index but the one txbench keeps): use \
                 index, every-partition or try-every-partition",
            ),
            (Execution::Scripts, Some(KeyAccess::ServerSide)) => refuse(
                "only a txbench server (--db txbench://...) runs the lookup and the change in \
                 one network trip; a sharded key-value store runs one script per partition",
            ),
            (Execution::Scripts, Some(asked)) => Ok(Some(asked)),
            (Execution::Dataless, None) => Ok(None),
            (Execution::Dataless, Some(_)) => refuse(
                "this engine holds no data and answers whole transactions, so no strategy of \
                 finding a subscriber applies",
            ),
        }
    }
}

/// `--key-access` as given: one strategy, several (comma-separated) or `all`.
/// A run takes one; a sweep compares several, one sweep each. Recorded as the
/// strategy's name, or a list of names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Recorded", into = "Recorded")]
pub struct KeyAccessChoice(Vec<KeyAccess>);

/// How a [`KeyAccessChoice`] is recorded.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Recorded {
    One(KeyAccess),
    Several(Vec<KeyAccess>),
}

impl From<Recorded> for KeyAccessChoice {
    fn from(r: Recorded) -> Self {
        match r {
            Recorded::One(k) => KeyAccessChoice(vec![k]),
            Recorded::Several(all) => KeyAccessChoice(all),
        }
    }
}

impl From<KeyAccessChoice> for Recorded {
    fn from(c: KeyAccessChoice) -> Self {
        match c.0.as_slice() {
            [one] => Recorded::One(*one),
            _ => Recorded::Several(c.0),
        }
    }
}

impl KeyAccessChoice {
    /// One strategy.
    pub fn one(strategy: KeyAccess) -> Self {
        KeyAccessChoice(vec![strategy])
    }

    /// The strategies, in the order given.
    pub fn strategies(&self) -> &[KeyAccess] {
        &self.0
    }

    /// `all`, or strategies separated by commas (each once).
    pub fn parse(s: &str) -> Result<KeyAccessChoice, BadValue> {
        if s.trim() == "all" {
            return Ok(KeyAccessChoice(KeyAccess::ALL.to_vec()));
        }
        let mut chosen = Vec::new();
        for name in s.split(',').map(str::trim) {
            let named = KeyAccess::ALL.into_iter().find(|k| k.name() == name);
            let strategy = named.ok_or_else(|| {
                let names: Vec<&str> = KeyAccess::ALL.iter().map(|k| k.name()).collect();
                BadValue(format!(
                    "invalid strategy '{name}': expected {}, several separated by commas, or all",
                    names.join(", ")
                ))
            })?;
            if chosen.contains(&strategy) {
                return Err(BadValue(format!("strategy '{name}' is given twice")));
            }
            chosen.push(strategy);
        }
        Ok(KeyAccessChoice(chosen))
    }

    /// The one strategy of a run; several are refused by name.
    pub fn for_a_run(&self) -> Result<KeyAccess, WorkloadError> {
        match self.0.as_slice() {
            [one] => Ok(*one),
            several => {
                let names: Vec<&str> = several.iter().map(|k| k.name()).collect();
                Err(WorkloadError::BadOption(format!(
                    "--key-access {}: a run takes one strategy; `txbench sweep tatp` compares \
                     several, one sweep each",
                    names.join(",")
                )))
            }
        }
    }
}

/// The statements that address one partition: the tables' partition of that
/// number on a partitioned load, the whole tables otherwise.
#[derive(Debug)]
pub struct PartitionStatements {
    /// `s_id` by `sub_nbr`.
    pub find: Statement,
    /// Update-Location's change.
    pub update_location: Statement,
    /// Insert-Call-Forwarding in one statement: a row for the subscriber's
    /// facility of the type, where both are in the partition.
    pub insert_forwarding: Statement,
    /// Delete-Call-Forwarding in one statement.
    pub delete_forwarding: Statement,
}

impl PartitionStatements {
    /// The statements on the tables `table` names (a partition of each, or
    /// the whole tables).
    fn on(table: impl Fn(&str) -> String) -> PartitionStatements {
        // A statement is a static definition (engines prepare it once per
        // session, keyed by its address), so each partition count's
        // statements are made once per process and kept: a few per partition.
        let text = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let subscriber = table("subscriber");
        let forwarding = table("call_forwarding");
        let facility = table("special_facility");
        PartitionStatements {
            find: Statement::new(
                text(format!("find s_id in {subscriber}")),
                text(format!("SELECT s_id FROM {subscriber} WHERE sub_nbr = ?")),
            ),
            update_location: Statement::new(
                text(format!("update location in {subscriber}")),
                text(format!(
                    "UPDATE {subscriber} SET vlr_location = ? WHERE sub_nbr = ?"
                )),
            ),
            insert_forwarding: Statement::new(
                text(format!("insert call forwarding in {forwarding}")),
                text(format!(
                    "INSERT INTO {forwarding} (s_id, sf_type, start_time, end_time, numberx) \
                     SELECT f.s_id, f.sf_type, ?, ?, ? FROM {subscriber} s, {facility} f \
                     WHERE s.sub_nbr = ? AND f.s_id = s.s_id AND f.sf_type = ?"
                )),
            ),
            delete_forwarding: Statement::new(
                text(format!("delete call forwarding in {forwarding}")),
                text(format!(
                    "DELETE FROM {forwarding} WHERE sf_type = ? AND start_time = ? \
                     AND s_id IN (SELECT s_id FROM {subscriber} WHERE sub_nbr = ?)"
                )),
            ),
        }
    }
}

/// The statements of each partition of a load in `count` hash partitions
/// (0: not partitioned, one set on the whole tables), made once per process.
fn statements(count: u32) -> &'static [PartitionStatements] {
    static MADE: Mutex<BTreeMap<u32, &'static [PartitionStatements]>> = Mutex::new(BTreeMap::new());
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    made.entry(count).or_insert_with(|| {
        let all: Vec<PartitionStatements> = if count == 0 {
            vec![PartitionStatements::on(str::to_string)]
        } else {
            (0..count)
                .map(|i| PartitionStatements::on(|table| partition_name(table, i)))
                .collect()
        };
        Vec::leak(all)
    })
}

/// How this run's transactions keyed by `sub_nbr` find their subscriber.
#[derive(Debug, Clone, Copy)]
pub struct Access {
    /// The strategy.
    pub strategy: KeyAccess,
    /// The load's hash partitions (0: whole tables).
    pub partitions: u32,
    /// The statements of each partition (one set on the whole tables when
    /// not partitioned; none where the transactions run as scripts).
    pub statements: &'static [PartitionStatements],
    /// The scripts, where the transactions run as scripts on a sharded
    /// key-value store ([`Execution::Scripts`]); `None` on a database.
    pub scripts: Option<&'static Scripts>,
}

impl Access {
    /// `strategy` on a load in `partitions` hash partitions (0: whole tables).
    pub fn new(strategy: KeyAccess, partitions: u32) -> Access {
        Access {
            strategy,
            partitions,
            statements: statements(partitions),
            scripts: None,
        }
    }

    /// `strategy` on a sharded key-value store loaded in `partitions`, the
    /// transactions run as scripts (and no SQL statement).
    pub fn in_scripts(strategy: KeyAccess, partitions: u32) -> Access {
        Access {
            strategy,
            partitions,
            statements: &[],
            scripts: Some(scripts(partitions)),
        }
    }

    /// Today's TATP: `single` on whole tables.
    pub fn single() -> Access {
        Access::new(KeyAccess::Single, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_partition_count_is_made_once_with_its_tables() {
        let whole = statements(0);
        assert_eq!(whole.len(), 1);
        assert_eq!(
            whole[0].find.sql,
            "SELECT s_id FROM subscriber WHERE sub_nbr = ?"
        );
        let four = statements(4);
        assert_eq!(four.len(), 4);
        assert!(
            four[3]
                .update_location
                .sql
                .starts_with("UPDATE subscriber_p3 ")
        );
        assert!(
            four[2]
                .insert_forwarding
                .sql
                .contains("special_facility_p2 f")
        );
        // The same statements (their addresses are the engines' keys).
        assert!(std::ptr::eq(statements(4), four));
    }

    #[test]
    fn a_strategy_a_session_cannot_run_is_refused_by_name() {
        use Execution::*;
        let ok = |asked, execution| KeyAccess::resolve(asked, execution).unwrap();
        assert_eq!(ok(None, Statements), Some(KeyAccess::Single));
        assert_eq!(ok(None, ServedTransactions), Some(KeyAccess::ServerSide));
        assert_eq!(ok(None, Dataless), None);
        assert_eq!(ok(None, Scripts), Some(KeyAccess::EveryPartition));
        for strategy in KeyAccess::ALL {
            let on_database = KeyAccess::resolve(Some(strategy), Statements);
            let on_server = KeyAccess::resolve(Some(strategy), ServedTransactions);
            if strategy == KeyAccess::ServerSide {
                let e = on_database.unwrap_err().to_string();
                assert!(
                    e.starts_with("--key-access server-side: only a txbench server"),
                    "{e}"
                );
                assert_eq!(on_server.unwrap(), Some(strategy));
            } else {
                assert_eq!(on_database.unwrap(), Some(strategy));
                let e = on_server.unwrap_err().to_string();
                assert!(
                    e.starts_with(&format!("--key-access {}: ", strategy.name())),
                    "{e}"
                );
            }
            assert!(KeyAccess::resolve(Some(strategy), Dataless).is_err());
            let on_store = KeyAccess::resolve(Some(strategy), Scripts);
            match strategy {
                KeyAccess::Index | KeyAccess::EveryPartition | KeyAccess::TryEveryPartition => {
                    assert_eq!(on_store.unwrap(), Some(strategy));
                }
                _ => {
                    let e = on_store.unwrap_err().to_string();
                    assert!(
                        e.starts_with(&format!("--key-access {}: ", strategy.name())),
                        "{e}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_choice_is_one_several_or_all_and_recorded_as_given() {
        let all = KeyAccessChoice::parse("all").unwrap();
        assert_eq!(all.strategies(), KeyAccess::ALL);
        let two = KeyAccessChoice::parse("index, every-partition").unwrap();
        assert_eq!(
            two.strategies(),
            [KeyAccess::Index, KeyAccess::EveryPartition]
        );
        let e = KeyAccessChoice::parse("index,sideways").unwrap_err();
        assert!(
            e.0.starts_with("invalid strategy 'sideways': expected single, lookup"),
            "{e}"
        );
        assert!(KeyAccessChoice::parse("index,index").is_err());
        let one = KeyAccessChoice::one(KeyAccess::Lookup);
        assert_eq!(
            toml::Value::try_from(&one).unwrap().as_str(),
            Some("lookup")
        );
        assert_eq!(one.for_a_run().unwrap(), KeyAccess::Lookup);
        let e = two.for_a_run().unwrap_err().to_string();
        assert!(
            e.starts_with("--key-access index,every-partition: a run takes one"),
            "{e}"
        );
        // Read back as written, one or several.
        #[derive(serde::Serialize, serde::Deserialize)]
        struct Holder {
            key_access: KeyAccessChoice,
        }
        for choice in [one, two] {
            let text = toml::to_string(&Holder {
                key_access: choice.clone(),
            })
            .unwrap();
            let back: Holder = toml::from_str(&text).unwrap();
            assert_eq!(back.key_access, choice, "{text}");
        }
    }

    #[test]
    fn names_are_the_command_line_values() {
        for strategy in KeyAccess::ALL {
            let parsed = KeyAccessChoice::parse(strategy.name()).unwrap();
            assert_eq!(parsed.strategies(), [strategy]);
            let recorded = toml::Value::try_from(strategy).unwrap();
            assert_eq!(recorded.as_str(), Some(strategy.name()));
        }
    }
}
