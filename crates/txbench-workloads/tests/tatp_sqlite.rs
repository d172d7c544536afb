//! TATP on embedded SQLite: the load and check, each transaction's effect, and
//! the success rates of a long run of the standard mix against those the
//! population implies.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::{Engine, Outcome, Session, Terminal, Written};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine, SqliteSession};
use txbench_workloads::tatp::constants::TXN_TYPES;
use txbench_workloads::tatp::expected::GET_NEW_DESTINATION_CHURNED;
use txbench_workloads::tatp::input::{Digits, InputGenerator, TatpInput, TatpTerminal};
use txbench_workloads::tatp::key_access::{Access, KeyAccess};
use txbench_workloads::tatp::load::load;
use txbench_workloads::tatp::{check, procedures};
use txbench_workloads::{LoadPlan, WorkloadError};

/// A database of `subscribers` in a temporary file, and a session on it.
struct Db {
    _dir: tempfile::TempDir,
    engine: Arc<SqliteEngine>,
    s: SqliteSession,
    /// How the transactions keyed by sub_nbr find their subscriber.
    access: Access,
}

/// The strategies a database (not a txbench server) runs, on whole tables.
fn on_a_database() -> impl Iterator<Item = Access> {
    KeyAccess::ALL
        .into_iter()
        .filter(|k| *k != KeyAccess::ServerSide)
        .map(|strategy| Access::new(strategy, 0))
}

fn loaded(subscribers: i64) -> Db {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tatp.db");
    let engine =
        Arc::new(SqliteEngine::new(SqliteConfig::parse(path.to_str().unwrap()).unwrap()).unwrap());
    let opts = LoadPlan {
        scale: subscribers,
        threads: 2,
        seed: 3,
        drop: false,
        foreign_keys: false,
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(load(
        Arc::clone(&engine),
        &opts,
        0,
        Arc::new(AtomicU64::new(0)),
    ))
    .unwrap();
    let s = pollster::block_on(engine.connect()).unwrap();
    Db {
        _dir: dir,
        engine,
        s,
        access: Access::single(),
    }
}

impl Db {
    fn int(&mut self, sql: &str) -> i64 {
        let rows = pollster::block_on(self.s.query_sql(sql)).unwrap();
        rows.row(0)
            .unwrap()
            .get(0)
            .unwrap()
            .as_i64()
            .unwrap_or_else(|| panic!("no integer from {sql}"))
    }
    fn run(&mut self, input: TatpInput) -> Outcome {
        pollster::block_on(procedures::execute(
            &mut self.s,
            &input,
            &mut Written::new(),
            &self.access,
        ))
        .unwrap()
    }
    fn violations(&mut self, subscribers: i64) -> Vec<(&'static str, i64)> {
        pollster::block_on(check::check(&mut self.s, subscribers, true))
            .unwrap()
            .into_iter()
            .filter(|c| !c.passed())
            .map(|c| (c.text, c.violations))
            .collect()
    }
}

#[test]
fn load_gives_the_population_and_check_passes() {
    let mut db = loaded(20_000);
    assert_eq!(db.int("SELECT count(*) FROM subscriber"), 20_000);
    let access = db.int("SELECT count(*) FROM access_info") as f64 / 20_000.0;
    let facilities = db.int("SELECT count(*) FROM special_facility") as f64 / 20_000.0;
    let forwardings = db.int("SELECT count(*) FROM call_forwarding") as f64 / 20_000.0;
    assert!((access - 2.5).abs() < 0.05, "{access}");
    assert!((facilities - 2.5).abs() < 0.05, "{facilities}");
    assert!((forwardings - 3.75).abs() < 0.1, "{forwardings}");
    // The alternative key's own index: every subscriber's number, once.
    assert_eq!(
        db.int(
            "SELECT count(*) FROM subscriber_nbr n JOIN subscriber s \
             ON s.sub_nbr = n.sub_nbr AND s.s_id = n.s_id"
        ),
        20_000
    );
    assert!(db.violations(20_000).is_empty());
    // A second load refuses to overwrite the first.
    let again = LoadPlan {
        scale: 10,
        threads: 1,
        seed: 1,
        drop: false,
        foreign_keys: false,
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let refused = rt.block_on(load(
        Arc::clone(&db.engine),
        &again,
        0,
        Arc::new(AtomicU64::new(0)),
    ));
    assert!(matches!(
        refused,
        Err(WorkloadError::AlreadyLoaded { loaded: 20_000, .. })
    ));
}

#[test]
fn check_finds_broken_invariants() {
    let mut db = loaded(2_000);
    pollster::block_on(db.s.query_sql("DELETE FROM access_info WHERE s_id = 7")).unwrap();
    pollster::block_on(
        db.s.query_sql("UPDATE subscriber SET sub_nbr = '000000000000999' WHERE s_id = 8"),
    )
    .unwrap_err(); // the unique index refuses a duplicate number
    pollster::block_on(db.s.query_sql("UPDATE subscriber SET sub_nbr = '123' WHERE s_id = 8"))
        .unwrap();
    let v = db.violations(2_000);
    assert!(
        v.contains(&("1..4 ACCESS_INFO rows per subscriber", 1)),
        "{v:?}"
    );
    assert!(
        v.contains(&("S_ID 1..N, each once; SUB_NBR = S_ID in 15 digits", 1)),
        "{v:?}"
    );
    // Checked against a scale the database does not hold, the ids disagree.
    assert!(!db.violations(2_001).is_empty());
}

#[test]
fn check_finds_a_broken_index_of_the_alternative_key() {
    let mut db = loaded(2_000);
    let index = "SUBSCRIBER_NBR: each subscriber's SUB_NBR once, with its S_ID, and no other";
    // A number pointing at the wrong subscriber counts twice (its subscriber
    // has no right entry, and the entry no subscriber); a missing one once.
    pollster::block_on(
        db.s.query_sql("UPDATE subscriber_nbr SET s_id = 9 WHERE sub_nbr = '000000000000008'"),
    )
    .unwrap();
    pollster::block_on(
        db.s.query_sql("DELETE FROM subscriber_nbr WHERE sub_nbr = '000000000000011'"),
    )
    .unwrap();
    assert_eq!(db.violations(2_000), vec![(index, 3)]);
}

/// A facility type of subscriber `s_id` that exists, and one that does not.
fn facility_types(db: &mut Db, s_id: i64) -> (i64, Option<i64>) {
    let present = db.int(&format!(
        "SELECT min(sf_type) FROM special_facility WHERE s_id = {s_id}"
    ));
    let absent = (1..=4).find(|t| {
        db.int(&format!(
            "SELECT count(*) FROM special_facility WHERE s_id = {s_id} AND sf_type = {t}"
        )) == 0
    });
    (present, absent)
}

#[test]
fn each_transaction_does_what_the_specification_says_with_every_strategy() {
    for access in on_a_database() {
        let mut db = loaded(2_000);
        db.access = access;
        eprintln!("--key-access {}", access.strategy.name());
        each_transaction_does_what_the_specification_says(db);
    }
}

fn each_transaction_does_what_the_specification_says(mut db: Db) {
    assert_eq!(
        db.run(TatpInput::GetSubscriberData { s_id: 17 }),
        Outcome::Committed
    );

    // Access data: an existing type commits, a missing one is an expected failure.
    let ai = db.int("SELECT min(ai_type) FROM access_info WHERE s_id = 17");
    assert_eq!(
        db.run(TatpInput::GetAccessData {
            s_id: 17,
            ai_type: ai
        }),
        Outcome::Committed
    );
    let s_missing = db.int(
        "SELECT min(s_id) FROM subscriber s WHERE \
         (SELECT count(*) FROM access_info a WHERE a.s_id = s.s_id) < 4",
    );
    let ai_missing = (1..=4)
        .find(|t| {
            db.int(&format!(
                "SELECT count(*) FROM access_info WHERE s_id = {s_missing} AND ai_type = {t}"
            )) == 0
        })
        .unwrap();
    assert_eq!(
        db.run(TatpInput::GetAccessData {
            s_id: s_missing,
            ai_type: ai_missing
        }),
        Outcome::ExpectedRollback
    );

    // Update subscriber data: both rows change, or neither when the facility is missing.
    let s_id = db.int(
        "SELECT min(s_id) FROM subscriber s WHERE \
         (SELECT count(*) FROM special_facility f WHERE f.s_id = s.s_id) < 4",
    );
    let (present, absent) = facility_types(&mut db, s_id);
    let bit = 1 - db.int(&format!("SELECT bit_1 FROM subscriber WHERE s_id = {s_id}"));
    let input = |sf_type| TatpInput::UpdateSubscriberData {
        s_id,
        bit_1: bit,
        sf_type,
        data_a: 201,
    };
    assert_eq!(db.run(input(absent.unwrap())), Outcome::ExpectedRollback);
    assert_eq!(
        db.int(&format!("SELECT bit_1 FROM subscriber WHERE s_id = {s_id}")),
        1 - bit,
        "the subscriber's change is rolled back with the missing facility"
    );
    assert_eq!(db.run(input(present)), Outcome::Committed);
    assert_eq!(
        db.int(&format!("SELECT bit_1 FROM subscriber WHERE s_id = {s_id}")),
        bit
    );
    assert_eq!(
        db.int(&format!(
            "SELECT data_a FROM special_facility WHERE s_id = {s_id} AND sf_type = {present}"
        )),
        201
    );

    // Update location, by sub_nbr.
    assert_eq!(
        db.run(TatpInput::UpdateLocation {
            sub_nbr: Digits::of(42),
            vlr_location: 123_456
        }),
        Outcome::Committed
    );
    assert_eq!(
        db.int("SELECT vlr_location FROM subscriber WHERE s_id = 42"),
        123_456
    );

    // Call forwarding: clear the facility's slots, insert, a duplicate fails, a
    // missing facility fails, delete, a second delete fails.
    pollster::block_on(db.s.query_sql(&format!(
        "DELETE FROM call_forwarding WHERE s_id = {s_id} AND sf_type = {present}"
    )))
    .unwrap();
    let insert = |sf_type| TatpInput::InsertCallForwarding {
        sub_nbr: Digits::of(s_id as u64),
        sf_type,
        start_time: 8,
        end_time: 13,
        numberx: Digits::of(555),
    };
    assert_eq!(db.run(insert(present)), Outcome::Committed);
    assert_eq!(db.run(insert(present)), Outcome::ExpectedRollback);
    assert_eq!(db.run(insert(absent.unwrap())), Outcome::ExpectedRollback);
    let forwardings = format!("SELECT count(*) FROM call_forwarding WHERE s_id = {s_id}");
    assert_eq!(
        db.int(&forwardings),
        1 + db.int(&format!(
            "SELECT count(*) FROM call_forwarding WHERE s_id = {s_id} AND sf_type <> {present}"
        ))
    );

    // New destination: the row answers inside its window, not after it, and not
    // when the facility is inactive.
    let destination = |db: &mut Db, start_time, end_time| {
        db.run(TatpInput::GetNewDestination {
            s_id,
            sf_type: present,
            start_time,
            end_time,
        })
    };
    pollster::block_on(db.s.query_sql(&format!(
        "UPDATE special_facility SET is_active = 1 WHERE s_id = {s_id} AND sf_type = {present}"
    )))
    .unwrap();
    assert_eq!(destination(&mut db, 8, 12), Outcome::Committed);
    assert_eq!(destination(&mut db, 16, 12), Outcome::Committed);
    assert_eq!(destination(&mut db, 8, 13), Outcome::ExpectedRollback);
    assert_eq!(destination(&mut db, 0, 12), Outcome::ExpectedRollback);
    pollster::block_on(db.s.query_sql(&format!(
        "UPDATE special_facility SET is_active = 0 WHERE s_id = {s_id} AND sf_type = {present}"
    )))
    .unwrap();
    assert_eq!(destination(&mut db, 8, 12), Outcome::ExpectedRollback);

    let delete = TatpInput::DeleteCallForwarding {
        sub_nbr: Digits::of(s_id as u64),
        sf_type: present,
        start_time: 8,
    };
    assert_eq!(db.run(delete.clone()), Outcome::Committed);
    assert_eq!(db.run(delete), Outcome::ExpectedRollback);
    assert!(db.violations(2_000).is_empty());
}

#[test]
fn a_long_run_meets_the_expected_success_rates() {
    a_long_run_with(Access::single(), 400_000);
}

/// Each strategy finds the right subscriber, or the success rates of the
/// types keyed by sub_nbr would be off their expectation.
#[test]
fn a_run_of_each_strategy_meets_the_expected_success_rates() {
    for access in on_a_database().filter(|a| a.strategy != KeyAccess::Single) {
        eprintln!("--key-access {}", access.strategy.name());
        a_long_run_with(access, 100_000);
    }
}

fn a_long_run_with(access: Access, n: u32) {
    let subscribers = 20_000;
    let mut db = loaded(subscribers);
    db.access = access;
    let mut terminal = TatpTerminal::new(0, 11, InputGenerator::new(subscribers));
    let mut completed = [0u32; 7];
    let mut committed = [0u32; 7];
    for _ in 0..n {
        let plan = terminal.next();
        completed[plan.txn_type] += 1;
        if db.run(plan.input) == Outcome::Committed {
            committed[plan.txn_type] += 1;
        }
    }
    for (t, info) in TXN_TYPES.iter().enumerate() {
        let share = f64::from(completed[t]) / f64::from(n);
        assert!(
            (share - info.mix).abs() < 4.0 * (info.mix * (1.0 - info.mix) / f64::from(n)).sqrt(),
            "{} share {share}",
            info.name
        );
        let rate = f64::from(committed[t]) / f64::from(completed[t]);
        let expected = info.expected_success.unwrap();
        // Four binomial standard errors.
        let tolerance = 4.0 * (expected * (1.0 - expected) / f64::from(completed[t])).sqrt();
        if info.key == "get_new_destination" {
            // Inserted forwardings have end times from 1..24, so the rate drifts
            // from the loaded population's towards the churned population's.
            assert!(
                rate > expected - tolerance && rate < GET_NEW_DESTINATION_CHURNED + tolerance,
                "{}: {rate} outside [{expected}, {GET_NEW_DESTINATION_CHURNED}]",
                info.name
            );
        } else {
            assert!(
                (rate - expected).abs() <= tolerance.max(1e-9),
                "{}: {rate} against {expected} +- {tolerance}",
                info.name
            );
        }
    }
    assert!(db.violations(subscribers).is_empty());
}
