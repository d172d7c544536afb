//! A workload file loads and runs: the documented example and YCSB's core
//! workloads, loaded into SQLite through the shared load, driven by the
//! driver, their rows checked and their invariants kept.

mod support;

use std::sync::Arc;
use std::time::Duration;

use support::documented_example;
use txbench_core::driver;
use txbench_core::{Engine, Session};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine};
use txbench_workloads::custom::{self, ycsb};

fn engine(dir: &std::path::Path, name: &str) -> Arc<SqliteEngine> {
    let path = dir.join(name);
    Arc::new(SqliteEngine::new(SqliteConfig::parse(path.to_str().unwrap()).unwrap()).unwrap())
}

/// Load `text` at `scale` into an SQLite file of its own and run 3,000 of
/// its transactions on 4 terminals; the recording, the engine and the
/// checked file.
async fn load_and_run(
    dir: &std::path::Path,
    text: &str,
    scale: i64,
) -> (driver::Recording, Arc<SqliteEngine>, custom::Spec) {
    load_and_run_after(dir, text, scale, |_| {}).await
}

/// [`load_and_run`], `before` seeing the loaded database before the run.
async fn load_and_run_after(
    dir: &std::path::Path,
    text: &str,
    scale: i64,
    before: impl FnOnce(&Arc<SqliteEngine>),
) -> (driver::Recording, Arc<SqliteEngine>, custom::Spec) {
    let spec = custom::parse("workload.toml", text).unwrap();
    let engine = engine(dir, &format!("{}.db", spec.title.replace(' ', "-")));
    support::load(&engine, &spec, scale, false).await;
    before(&engine);
    let recording = support::run_until(&engine, &spec, scale, (4, 1), 3_000).await;
    (recording, engine, spec)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_example_loads_and_runs_and_its_payments_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let balances = std::sync::Mutex::new(0.0);
    let (rec, engine, spec) =
        load_and_run_after(dir.path(), &documented_example(), 100, |engine| {
            *balances.lock().unwrap() = pollster::block_on(total(engine, BALANCES));
        })
        .await;
    let (pay, look) = (&rec.total.measured[0], &rec.total.measured[1]);
    assert!(
        pay.committed > 50 && look.committed > 50,
        "{pay:?} {look:?}"
    );
    assert_eq!(
        pay.failed() + look.failed(),
        0,
        "{:?}",
        rec.total.error_samples
    );
    let mut s = engine.connect().await.unwrap();
    // Every Pay recorded its payment past the loaded ones.
    let payments = s.query_sql("SELECT count(*) FROM payment").await.unwrap();
    let payments = payments.row(0).unwrap().get(0).unwrap().as_i64().unwrap() as u64;
    assert!(payments >= 1_000 + pay.committed, "{payments} payments");
    // Each Pay read a balance into :c_balance, debited it by :amount and
    // recorded :amount as a payment past the loaded ones: the money moved
    // adds up, so every value went to the statement that used it.
    let before = *balances.lock().unwrap();
    let after = total(&engine, BALANCES).await;
    let paid = total(
        &engine,
        "SELECT coalesce(sum(p_amount), 0) FROM payment WHERE p_id > 1000",
    )
    .await;
    assert!(paid > 0.0);
    assert!(
        (before - paid - after).abs() < 1e-6,
        "{before} - {paid} != {after}"
    );
    // The hottest customers take hundreds of debits of up to 50 from at
    // most 1000: they run dry, and the debits they cannot cover end as
    // expected rollbacks, so the file's invariant holds after the run...
    assert!(pay.expected_rollbacks > 0, "{pay:?}");
    let found = custom::invariants::check(&mut s, &spec).await.unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].clause, "no negative balance");
    assert_eq!(found[0].violations, 0);
    // ...and counts the customers overdrawn once something breaks it.
    s.query_sql("UPDATE customer SET c_balance = -1 WHERE c_id IN (1, 2) RETURNING c_id")
        .await
        .unwrap();
    let found = custom::invariants::check(&mut s, &spec).await.unwrap();
    assert_eq!(found[0].violations, 2);
    // A query the database refuses is named.
    let mut broken = spec.clone();
    broken.invariants[0].1 = "SELECT nothing FROM nowhere".into();
    let e = custom::invariants::check(&mut s, &broken)
        .await
        .unwrap_err();
    assert!(e.message.contains("invariant 'no negative balance'"), "{e}");
}

const BALANCES: &str = "SELECT sum(c_balance) FROM customer";

/// The number `sql` returns.
async fn total(engine: &Arc<SqliteEngine>, sql: &str) -> f64 {
    let mut s = engine.connect().await.unwrap();
    let rows = s.query_sql(sql).await.unwrap();
    rows.row(0).unwrap().get(0).unwrap().as_f64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_drawn_other_than_an_earlier_one_never_equals_it_and_padded_names_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, engine, _) = load_and_run(dir.path(), support::TRANSFERS, 1).await;
    let (transfers, lookups) = (&rec.total.measured[0], &rec.total.measured[1]);
    assert!(
        transfers.committed > 20 && lookups.committed > 20,
        "{transfers:?} {lookups:?}"
    );
    assert_eq!(
        transfers.failed() + lookups.failed(),
        0,
        "{:?}",
        rec.total.error_samples
    );
    let name = total(&engine, "SELECT length(h_name) FROM holder WHERE h_id = 3").await;
    assert_eq!(name, 64.0);
    let outside = total(
        &engine,
        "SELECT count(*) FROM holder WHERE h_balance NOT BETWEEN 10000 AND 50000",
    )
    .await;
    assert_eq!(outside, 0.0, "balances drawn normal over [10000, 50000]");
    let pairs = total(
        &engine,
        "SELECT count(*) FROM (SELECT DISTINCT t_from, t_to FROM transfer) AS p",
    )
    .await;
    let to_oneself = total(&engine, "SELECT count(*) FROM transfer WHERE t_from = t_to").await;
    assert_eq!(
        (to_oneself, pairs),
        (0.0, 6.0),
        "3 customers, 6 ordered pairs"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_ycsb_core_workload_runs_without_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for (letter, text) in ycsb::CORE {
        let (rec, _, spec) = load_and_run(dir.path(), text, 2_000).await;
        for (t, stats) in spec.transactions.iter().zip(&rec.total.measured) {
            assert!(stats.committed > 10, "YCSB {letter} {}: {stats:?}", t.name);
            assert_eq!(
                stats.failed(),
                0,
                "YCSB {letter} {}: {:?}",
                t.name,
                rec.total.error_samples
            );
        }
    }
}

/// BenchBase's SmallBank as a workload file.
const SMALLBANK: &str = include_str!("../src/custom/benchbase/smallbank.toml");

/// SmallBank's whole mix runs with no error and keeps its invariants, and
/// the types that only move money (Amalgamate, SendPayment) leave the
/// bank's total to the cent: the drawn pairs, the names, the balances read
/// into later statements all reach the statements that use them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smallbank_runs_keeps_its_invariants_and_moves_money_without_making_any() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, engine, spec) = load_and_run(dir.path(), SMALLBANK, 1000).await;
    for (t, stats) in spec.transactions.iter().zip(&rec.total.measured) {
        assert!(stats.completed() > 20, "{}: {stats:?}", t.name);
        assert_eq!(
            stats.failed(),
            0,
            "{}: {:?}",
            t.name,
            rec.total.error_samples
        );
    }
    let mut s = engine.connect().await.unwrap();
    let found = custom::invariants::check(&mut s, &spec).await.unwrap();
    assert_eq!(found.len(), spec.invariants.len());
    for clause in &found {
        assert_eq!(clause.violations, 0, "{}", clause.clause);
    }

    let mut moving = spec.clone();
    moving
        .transactions
        .retain(|t| t.name == "Amalgamate" || t.name == "SendPayment");
    for t in &mut moving.transactions {
        t.share = 0.5;
    }
    let engine = self::engine(dir.path(), "moving.db");
    support::load(&engine, &moving, 1000, false).await;
    const MONEY: &str = "SELECT (SELECT sum(bal) FROM savings) + (SELECT sum(bal) FROM checking)";
    let before = total(&engine, MONEY).await;
    let rec = support::run_until(&engine, &moving, 1000, (4, 1), 1_000).await;
    let moved: u64 = rec.total.measured.iter().map(|t| t.committed).sum();
    assert!(moved > 100, "{:?}", rec.total.measured);
    let after = total(&engine, MONEY).await;
    assert!(
        (after - before).abs() < 1e-6,
        "{before} before, {after} after"
    );
}

const VOTER: &str = include_str!("../src/custom/benchbase/voter.toml");

/// Voter on SQLite: every valid vote is recorded, with the state of its
/// caller's area code, every vote for no contestant ends without one, and
/// the invariants hold. With the limit lowered to 3 votes a number and the
/// callers drawn from two numbers, no number records more than 3, and the
/// votes past it end as the rollbacks the workload expects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn voter_records_each_valid_vote_once_and_keeps_callers_to_their_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, engine, spec) = load_and_run(dir.path(), VOTER, 6).await;
    let (vote, invalid) = (&rec.total.measured[0], &rec.total.measured[1]);
    assert!(vote.committed > 100, "{vote:?}");
    assert_eq!((vote.expected_rollbacks, vote.failed()), (0, 0));
    assert!(invalid.expected_rollbacks > 0, "{invalid:?}");
    assert_eq!((invalid.committed, invalid.failed()), (0, 0));
    // Every committed vote is a row: those of the window and any the
    // grace finished (counted unfinished).
    let votes = total(&engine, "SELECT COUNT(*) * 1.0 FROM votes").await as u64;
    assert!(
        (vote.committed..=vote.committed + vote.unfinished).contains(&votes),
        "{votes} rows for {} committed",
        vote.committed
    );
    let mut s = engine.connect().await.unwrap();
    for clause in custom::invariants::check(&mut s, &spec).await.unwrap() {
        assert_eq!(clause.violations, 0, "{}", clause.clause);
    }

    let limited = VOTER
        .replace("< 1000", "< 3")
        .replace("HAVING COUNT(*) > 1000", "HAVING COUNT(*) > 3")
        .replace(
            "{ name = \"local\", gen = \"uniform\", min = 0, max = 9999999 }",
            "{ name = \"local\", gen = \"uniform\", min = 0, max = 1 }",
        );
    assert_ne!(limited, VOTER);
    let dir = tempfile::tempdir().unwrap();
    let mut spec = custom::parse("voter.toml", &limited).unwrap();
    // One area code: two numbers in all.
    spec.transactions[0].params[1].1 = custom::Generator::List(vec![toml::Value::Integer(907)]);
    let engine = self::engine(dir.path(), "limited.db");
    support::load(&engine, &spec, 6, false).await;
    let rec = support::run_until(&engine, &spec, 6, (4, 1), 3_000).await;
    let vote = &rec.total.measured[0];
    assert!(vote.expected_rollbacks > 100, "{vote:?}");
    assert_eq!(vote.failed(), 0, "{:?}", rec.total.error_samples);
    let most = total(
        &engine,
        "SELECT MAX(n) * 1.0 FROM (SELECT COUNT(*) AS n FROM votes GROUP BY phone_number)",
    )
    .await;
    assert_eq!(most, 3.0);
    let numbers = total(
        &engine,
        "SELECT COUNT(DISTINCT phone_number) * 1.0 FROM votes",
    )
    .await;
    assert_eq!(numbers, 2.0);
    let mut s = engine.connect().await.unwrap();
    for clause in custom::invariants::check(&mut s, &spec).await.unwrap() {
        assert_eq!(clause.violations, 0, "{}", clause.clause);
    }
}

/// More than `least` transactions committed and none failed, each type's
/// share of them within five binomial standard errors of its weight.
fn assert_committed_in_its_shares(rec: &driver::Recording, spec: &custom::Spec, least: u64) {
    let committed: Vec<u64> = rec.total.measured.iter().map(|t| t.committed).collect();
    let all: u64 = committed.iter().sum();
    assert!(all > least, "committed by type: {committed:?}");
    for (t, stats) in spec.transactions.iter().zip(&rec.total.measured) {
        assert_eq!(
            stats.failed(),
            0,
            "{}: {:?}",
            t.name,
            rec.total.error_samples
        );
        let share = stats.committed as f64 / all as f64;
        let sd = (t.share * (1.0 - t.share) / all as f64).sqrt();
        assert!(
            (share - t.share).abs() < 5.0 * sd + 1e-3,
            "{}: {share:.4} of the commits, weight {}",
            t.name,
            t.share
        );
    }
}

/// Every invariant of `spec` holds on `engine`'s database.
async fn assert_invariants_hold(engine: &Arc<SqliteEngine>, spec: &custom::Spec) {
    let mut s = engine.connect().await.unwrap();
    let found = custom::invariants::check(&mut s, spec).await.unwrap();
    assert_eq!(found.len(), spec.invariants.len());
    for clause in found {
        assert_eq!(clause.violations, 0, "{}", clause.clause);
    }
}

const EPINIONS: &str = include_str!("../src/custom/benchbase/epinions.toml");

/// Epinions on SQLite: its drawn reviews and trusts load as BenchBase's
/// loader makes them (every item reviewed, by distinct users), every
/// procedure runs in its share of the mix with no error, and the
/// invariants hold after the updates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn epinions_loads_drawn_rows_and_runs_its_mix_in_benchbase_s_shares() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, engine, spec) = load_and_run(dir.path(), EPINIONS, 400).await;
    assert_committed_in_its_shares(&rec, &spec, 1_000);
    // 200 items, each reviewed once at least; no more than the 100
    // reviews an item may have at 400 users (0.25 a user).
    let reviewed = total(&engine, "SELECT COUNT(DISTINCT i_id) * 1.0 FROM review").await;
    assert_eq!(reviewed, 200.0);
    let most =
        "SELECT MAX(c) * 1.0 FROM (SELECT COUNT(*) AS c FROM review GROUP BY i_id) AS per_item";
    assert!(total(&engine, most).await <= 99.0);
    assert_invariants_hold(&engine, &spec).await;
}

/// A query's rows read as a list, and a later statement `IN` it.
const LISTS: &str = r#"
[workload]
name = "lists"
scale = "items"
default_scale = 100

[[table]]
name = "items"
rows_per_scale = 1
primary_key = ["id"]
columns = [
  { name = "id", type = "int", gen = "sequence" },
  { name = "grp", type = "int", gen = "sequence", per = 10 },
]

[[transaction]]
name = "Full"
weight = 50
read_only = true
params = [{ name = "g", gen = "uniform", min = 1, max = 10 }]
statements = [
  { name = "ids", sql = "SELECT id FROM items WHERE grp = :g ORDER BY id LIMIT 3", into_list = { name = "ids", rows = 8 } },
  { name = "count", sql = "SELECT count(*), max(id) - min(id) FROM items WHERE id IN (:ids) AND grp = :g", into = ["n", "span"] },
  { name = "three", sql = "SELECT id FROM items WHERE id = 3 AND id = :n AND :span = 2", expect = "one" },
]

[[transaction]]
name = "Empty"
weight = 50
read_only = true
params = [{ name = "g", gen = "uniform", min = 11, max = 12 }]
statements = [
  { name = "ids", sql = "SELECT id FROM items WHERE grp = :g", into_list = { name = "ids", rows = 8 } },
  { name = "count", sql = "SELECT count(*) FROM items WHERE id IN (:ids)", expect = "one-or-none" },
]
"#;

/// A list read is the first column of the rows a query returned, padded to
/// its size with the last one (so an `IN` of 8 placeholders counts the 3
/// rows), and a statement of a list that came back empty is not sent: it
/// returns no row, so its `one-or-none` ends the transaction as an expected
/// rollback (sent, `count(*)` would have returned one row).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_read_fills_a_later_in_list_and_an_empty_one_sends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, _engine, spec) = load_and_run(dir.path(), LISTS, 100).await;
    let (full, empty) = (&rec.total.measured[0], &rec.total.measured[1]);
    assert_eq!(spec.transactions[0].statements[1].args.len(), 9);
    assert!(full.committed > 100, "{full:?}");
    assert_eq!(
        (full.failed(), full.expected_rollbacks),
        (0, 0),
        "{:?}",
        rec.total.error_samples
    );
    assert!(empty.expected_rollbacks > 100, "{empty:?}");
    assert_eq!(
        (empty.committed, empty.failed()),
        (0, 0),
        "{:?}",
        rec.total.error_samples
    );
}

const TWITTER: &str = include_str!("../src/custom/benchbase/twitter.toml");

/// Twitter on SQLite: the followers table is the follows turned round (a
/// table loaded from a query), every procedure runs in its share of the
/// mix with no error, the IN-list reads included, and the invariants hold
/// after the inserts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twitter_loads_follows_both_ways_and_runs_its_mix_in_benchbase_s_shares() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, engine, spec) = load_and_run(dir.path(), TWITTER, 500).await;
    assert_committed_in_its_shares(&rec, &spec, 2_000);
    let follows = total(&engine, "SELECT COUNT(*) * 1.0 FROM follows").await;
    let followers = total(&engine, "SELECT COUNT(*) * 1.0 FROM followers").await;
    assert!(
        follows >= 500.0 && follows == followers,
        "{follows} follows, {followers} followers"
    );
    assert_invariants_hold(&engine, &spec).await;
}

/// ResourceStresser on SQLite: every type runs in its share of the mix with
/// no error (CPU1 and CPU2 through txbench's md5() for SQLite), every type
/// spends at least its repetitions' pauses inside its transaction, and
/// every employee is still in every table after the updates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_stresser_runs_its_mix_with_its_pauses_inside_the_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let text = support::resource_stresser_with_short_pauses();
    let spec = custom::parse("workload.toml", &text).unwrap();
    let engine = engine(dir.path(), "ResourceStresser.db");
    support::load(&engine, &spec, 4, false).await;
    // SQLite's one connection takes its hashing and pauses one
    // transaction at a time (about 60 a second here).
    let rec = support::run_until(&engine, &spec, 4, (4, 1), 300).await;
    assert_committed_in_its_shares(&rec, &spec, 250);
    for (t, stats) in spec.transactions.iter().zip(&rec.total.measured) {
        let paused: Duration = t.statements.iter().filter_map(|s| s.pause_after).sum();
        let least = paused * t.repeat as u32;
        // Service time: from the start of its execution to its end.
        let shortest = Duration::from_micros(stats.service.min());
        assert!(
            shortest >= least,
            "{}: {shortest:?}, pauses {least:?}",
            t.name
        );
    }
    assert_invariants_hold(&engine, &spec).await;
}

/// Pages whose title and namespace are functions of their id
/// (`seeded_by`), as Wikipedia's are, looked up by all three.
const SEEDED: &str = r#"
[workload]
name = "seeded"
scale = "pages"
default_scale = 500

[[table]]
name = "page"
rows_per_scale = 1
primary_key = ["page_id"]
columns = [
  { name = "page_id", type = "int", gen = "sequence" },
  { name = "ns", type = "int", gen = "list", values = [0, 1, 2, 3, 4, 6], seeded_by = "page_id" },
  { name = "title", type = "varchar(40)", gen = "string", lengths = [[3, 1], [12, 5], [40, 2]], seeded_by = "page_id" },
]

[[transaction]]
name = "Read"
weight = 100
read_only = true
expected_success = 1
params = [
  { name = "page", gen = "zipfian", of = "page.page_id", theta = 1.0001 },
  { name = "ns", gen = "list", values = [0, 1, 2, 3, 4, 6], seeded_by = "page" },
  { name = "title", gen = "string", lengths = [[3, 1], [12, 5], [40, 2]], seeded_by = "page" },
]
statements = [
  { name = "page", sql = "SELECT page_id FROM page WHERE page_id = :page AND ns = :ns AND title = :title", expect = "one" },
]
"#;

/// A value seeded by a key is the same at the load and in every
/// terminal's draw: every page is found by its id, namespace and title
/// (none by an id alone: the titles differ from page to page).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_value_seeded_by_a_key_is_drawn_in_the_run_as_it_was_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, engine, _spec) = load_and_run(dir.path(), SEEDED, 500).await;
    let read = &rec.total.measured[0];
    assert!(read.committed > 100, "{} committed", read.committed);
    assert_eq!(
        (read.failed(), read.expected_rollbacks),
        (0, 0),
        "{:?}",
        rec.total.error_samples
    );
    let titles = total(&engine, "SELECT COUNT(DISTINCT title) * 1.0 FROM page").await;
    assert!(titles > 400.0, "{titles} distinct titles of 500");
    let spaces = total(&engine, "SELECT COUNT(DISTINCT ns) * 1.0 FROM page").await;
    assert_eq!(spaces, 6.0);
}

/// Pages of a namespace drawn by a histogram, each with a number of
/// revisions drawn by another, as Wikipedia's are.
const HISTOGRAMS: &str = r#"
[workload]
name = "histograms"
scale = "pages"
default_scale = 1000

[[table]]
name = "page"
rows_per_scale = 1
primary_key = ["page_id"]
columns = [
  { name = "page_id", type = "int", gen = "sequence" },
  { name = "ns", type = "int", gen = "histogram", values = [[0, 6], [1, 3], [14, 1]] },
]

[[table]]
name = "revision"
for_each = "page.page_id"
rows_each = { gen = "histogram", values = [[1, 3], [2, 1], [5, 1]] }
primary_key = ["rev_id"]
columns = [
  { name = "rev_id", type = "int", gen = "sequence" },
  { name = "rev_page", type = "int", gen = "parent" },
]

[[transaction]]
name = "Count"
weight = 100
read_only = true
params = [{ name = "ns", gen = "histogram", values = [[0, 1], [14, 1], [99, 2]] }]
statements = [
  { name = "count", sql = "SELECT page_id FROM page WHERE ns = :ns LIMIT 1", expect = "one-or-none" },
]
"#;

/// A histogram draws each value in proportion to its weight: a column's
/// values, a table's rows for each key, a parameter's values (half of
/// them 99, a namespace no page has, so that half the reads find none).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_histogram_draws_values_and_rows_in_proportion_to_their_weights() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, engine, _spec) = load_and_run(dir.path(), HISTOGRAMS, 1000).await;
    // Within five binomial standard errors of the weight's share.
    let near = |count: f64, n: f64, share: f64| {
        (count / n - share).abs() < 5.0 * (share * (1.0 - share) / n).sqrt()
    };
    let ns0 = total(&engine, "SELECT COUNT(*) * 1.0 FROM page WHERE ns = 0").await;
    let ns14 = total(&engine, "SELECT COUNT(*) * 1.0 FROM page WHERE ns = 14").await;
    let other = total(
        &engine,
        "SELECT COUNT(*) * 1.0 FROM page WHERE ns NOT IN (0, 1, 14)",
    )
    .await;
    assert!(
        near(ns0, 1000.0, 0.6) && near(ns14, 1000.0, 0.1),
        "{ns0} and {ns14} of 1,000"
    );
    assert_eq!(other, 0.0);
    let per_page = "SELECT COUNT(*) * 1.0 FROM (SELECT rev_page FROM revision GROUP BY rev_page \
                    HAVING COUNT(*) = 5) AS five";
    let five = total(&engine, per_page).await;
    let odd = "SELECT COUNT(*) * 1.0 FROM (SELECT rev_page FROM revision GROUP BY rev_page \
               HAVING COUNT(*) NOT IN (1, 2, 5)) AS odd";
    assert!(near(five, 1000.0, 0.2), "{five} pages of 5 revisions");
    assert_eq!(total(&engine, odd).await, 0.0);
    let pages = "SELECT COUNT(DISTINCT rev_page) * 1.0 FROM revision";
    assert_eq!(total(&engine, pages).await, 1000.0);
    let count = &rec.total.measured[0];
    let done = (count.committed + count.expected_rollbacks) as f64;
    assert!(done > 100.0, "{done} done");
    let missed = count.expected_rollbacks;
    assert!(
        near(missed as f64, done, 0.5),
        "{missed} of {done} found none"
    );
}

/// A `text` column holds strings longer than any varchar, loaded and
/// rewritten whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_column_holds_documents_longer_than_a_varchar() {
    let dir = tempfile::tempdir().unwrap();
    let (rec, engine, spec) = load_and_run(dir.path(), support::DOCUMENTS, 100).await;
    assert_committed_in_its_shares(&rec, &spec, 100);
    let long = total(
        &engine,
        "SELECT COUNT(*) * 1.0 FROM doc WHERE length(body) = 50000",
    )
    .await;
    assert!(long > 10.0, "{long} documents of 50,000 characters");
    assert_invariants_hold(&engine, &spec).await;
}

const WIKIPEDIA: &str = include_str!("../src/custom/benchbase/wikipedia.toml");

/// Wikipedia on SQLite: every procedure runs in its share of the mix with
/// no error, so every page the run drew was found by the namespace and
/// title the load drew from its id (its `" [id]"` suffix included); each
/// edit added one revision, text, recent change and log entry, about a
/// quarter of them the anonymous user's (`instead`); a watch of an
/// article watches its talk page too, and no other page's (`when`); the
/// invariants hold, the edit counts and latest revisions the load finished
/// (`after_load`) among them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wikipedia_finds_its_pages_by_title_and_edits_them_in_benchbase_s_shares() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = std::sync::Mutex::new((0.0, 0.0));
    let (rec, engine, spec) = load_and_run_after(dir.path(), WIKIPEDIA, 40, |engine| {
        let count = |sql| pollster::block_on(total(engine, sql));
        *loaded.lock().unwrap() = (
            count("SELECT COUNT(*) * 1.0 FROM revision"),
            count("SELECT COUNT(*) * 1.0 FROM text"),
        );
    })
    .await;
    assert_committed_in_its_shares(&rec, &spec, 2_000);
    let (revisions, texts) = *loaded.lock().unwrap();
    assert!(
        revisions >= 40.0 && revisions == texts,
        "{revisions} {texts}"
    );
    let edits = rec.total.measured[2].committed as f64;
    let count = |sql| total(&engine, sql);
    assert_eq!(
        count("SELECT COUNT(*) * 1.0 FROM revision").await,
        revisions + edits
    );
    assert_eq!(
        count("SELECT COUNT(*) * 1.0 FROM text").await,
        texts + edits
    );
    assert_eq!(
        count("SELECT COUNT(*) * 1.0 FROM recentchanges").await,
        edits
    );
    let anonymous = count("SELECT COUNT(*) * 1.0 FROM recentchanges WHERE rc_user = 0").await;
    let sd = (0.26 * 0.74 / edits).sqrt();
    assert!(
        (anonymous / edits - 0.26).abs() < 5.0 * sd,
        "{anonymous} of {edits} edits anonymous"
    );
    let titled = "SELECT COUNT(*) * 1.0 FROM page WHERE page_title LIKE '% [' || page_id || ']'";
    assert_eq!(count(titled).await, 40.0);
    let talk = "SELECT COUNT(*) * 1.0 FROM watchlist w, page p WHERE p.page_id = w.wl_page \
                AND w.wl_namespace = 1 AND p.page_namespace = 0 AND w.wl_title = p.page_title";
    assert!(count(talk).await > 0.0, "no article's talk page watched");
    let strays = "SELECT COUNT(*) * 1.0 FROM watchlist w, page p WHERE p.page_id = w.wl_page \
                  AND (w.wl_title <> p.page_title OR (w.wl_namespace <> p.page_namespace \
                  AND NOT (w.wl_namespace = 1 AND p.page_namespace = 0)))";
    assert_eq!(count(strays).await, 0.0);
    assert_invariants_hold(&engine, &spec).await;
}

const SEATS: &str = include_str!("../src/custom/benchbase/seats.toml");

/// SEATS on SQLite: the load sells 1 percent of the seats (each flight's
/// reservations a count of mean 1.5 of 150 seats) and gives each customer
/// five frequent-flyer accounts on average; every procedure runs in its
/// share of the mix with no error; each booking committed added one
/// reservation and each cancellation removed one; each type commits as
/// the file expects (DeleteReservation 99.8 percent, the others that
/// cannot fail all of the time), bookings nearly always (their seat was
/// open) and moves as often as their drawn seat was not sold; and the
/// invariants hold: no seat sold twice, each flight's seats left its
/// seats less its reservations.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_books_moves_and_cancels_seats_in_benchbase_s_shares() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = std::sync::Mutex::new((0.0, 0.0));
    let (rec, engine, spec) = load_and_run_after(dir.path(), SEATS, 2_000, |engine| {
        let count = |sql| pollster::block_on(total(engine, sql));
        *loaded.lock().unwrap() = (
            count("SELECT COUNT(*) * 1.0 FROM reservation"),
            count("SELECT COUNT(*) * 1.0 FROM frequent_flyer"),
        );
    })
    .await;
    assert_committed_in_its_shares(&rec, &spec, 2_000);
    let (reservations, accounts) = *loaded.lock().unwrap();
    // 1,530 flights of 150 seats, 1 percent sold (a Poisson count's
    // deviation over 1,530 flights is 48 reservations).
    let seats = 1_530.0 * 150.0;
    assert!(
        (reservations / seats - 0.01).abs() < 0.001,
        "{reservations} reservations loaded"
    );
    assert!(
        (accounts / 2_000.0 - 5.0).abs() < 0.25,
        "{accounts} accounts"
    );
    let stats = |name: &str| {
        let i = spec
            .transactions
            .iter()
            .position(|t| t.name == name)
            .unwrap();
        &rec.total.measured[i]
    };
    let (new, delete) = (stats("NewReservation"), stats("DeleteReservation"));
    assert_eq!(
        total(&engine, "SELECT COUNT(*) * 1.0 FROM reservation").await,
        reservations + new.committed as f64 - delete.committed as f64
    );
    for t in &spec.transactions {
        let s = stats(&t.name);
        let share = s.committed as f64 / s.completed() as f64;
        match t.expected_success {
            Some(1.0) => assert_eq!(share, 1.0, "{}", t.name),
            Some(p) => {
                let sd = (p * (1.0 - p) / s.completed() as f64).sqrt();
                assert!((share - p).abs() < 6.0 * sd, "{}: {share}", t.name);
            }
            None => {}
        }
    }
    let booked = new.committed as f64 / new.completed() as f64;
    assert!(booked > 0.99, "{booked} of bookings committed");
    // A move fails when its seat is sold: at least the 1 percent of the
    // load, at most what the run left sold.
    let update = stats("UpdateReservation");
    let moved = update.committed as f64 / update.completed() as f64;
    let sold = total(&engine, "SELECT COUNT(*) * 1.0 FROM reservation").await / seats;
    assert!(
        moved < 1.0 && moved > 1.0 - 4.0 * sold,
        "{moved} moved, {sold} sold"
    );
    assert_invariants_hold(&engine, &spec).await;
}

const AUCTIONMARK: &str = include_str!("../src/custom/benchbase/auctionmark.toml");

/// AuctionMark on SQLite: the load numbers each item's bids from 0 and
/// points each item with bids at its last one; every procedure runs in its
/// share of the mix with no error; each committed purchase, comment,
/// feedback and listing added exactly one row, and bids were added and
/// first bids given their winning bid; and the invariants hold: each item's
/// count of bids and comments is its rows, its winning bid its own at its
/// price, a bought auction closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auctionmark_bids_buys_and_comments_in_benchbase_s_shares() {
    const COUNTS: [&str; 6] = [
        "SELECT COUNT(*) * 1.0 FROM item_purchase",
        "SELECT COUNT(*) * 1.0 FROM item_comment",
        "SELECT COUNT(*) * 1.0 FROM useracct_feedback",
        "SELECT COUNT(*) * 1.0 FROM item",
        "SELECT COUNT(*) * 1.0 FROM item_bid",
        "SELECT COUNT(*) * 1.0 FROM item_max_bid",
    ];
    let dir = tempfile::tempdir().unwrap();
    let loaded = std::sync::Mutex::new(Vec::new());
    let (rec, engine, spec) = load_and_run_after(dir.path(), AUCTIONMARK, 500, |engine| {
        let count = |sql| pollster::block_on(total(engine, sql));
        *loaded.lock().unwrap() = COUNTS.iter().map(|sql| count(sql)).collect();
        // Each item's bids are numbered 0, 1, ... and its winning bid is
        // its last one.
        let numbered = "SELECT COUNT(*) * 1.0 FROM item i WHERE i.i_num_bids > 0 AND \
                        (SELECT MAX(b.ib_id) FROM item_bid b WHERE b.ib_i_id = i.i_id) <> i.i_num_bids - 1";
        assert_eq!(count(numbered), 0.0);
        let last = "SELECT COUNT(*) * 1.0 FROM item_max_bid m WHERE m.imb_ib_id <> \
                    (SELECT MAX(b.ib_id) FROM item_bid b WHERE b.ib_i_id = m.imb_i_id)";
        assert_eq!(count(last), 0.0);
    })
    .await;
    assert_committed_in_its_shares(&rec, &spec, 2_000);
    let before = loaded.lock().unwrap().clone();
    let mut after = Vec::new();
    for sql in COUNTS {
        after.push(total(&engine, sql).await);
    }
    let committed = |name: &str| {
        let i = spec
            .transactions
            .iter()
            .position(|t| t.name == name)
            .unwrap();
        rec.total.measured[i].committed as f64
    };
    for (i, name) in ["NewPurchase", "NewComment", "NewFeedback", "NewItem"]
        .into_iter()
        .enumerate()
    {
        assert_eq!(
            after[i],
            before[i] + committed(name),
            "{name}: {}",
            COUNTS[i]
        );
    }
    // A bid adds a row unless it raised its bidder's own maximum.
    let bids = after[4] - before[4];
    assert!(
        bids > 0.5 * committed("NewBid") && bids <= committed("NewBid"),
        "{bids} bids added by {} NewBids",
        committed("NewBid")
    );
    assert!(after[5] > before[5], "no first bid on an item without bids");
    // The finds reach the items listed during the run (inserted = true):
    // some of the 1,500 loaded ones' successors were bid on.
    let new_bid_on = "SELECT COUNT(*) * 1.0 FROM item WHERE i_id > 1500 AND i_num_bids > 0";
    assert!(
        total(&engine, new_bid_on).await > 0.0,
        "no bid on a listed item"
    );
    // GetUserInfo and NewItem always commit, as the file expects; the
    // rest roll back only where they find no item or comment in the
    // status they want, a bid would lower its bidder's own maximum, a
    // feedback was given already or a buyer charged twice cannot pay.
    for (t, stats) in spec.transactions.iter().zip(&rec.total.measured) {
        let share = stats.committed as f64 / stats.completed() as f64;
        match t.expected_success {
            Some(expected) => assert_eq!(share, expected, "{}", t.name),
            None => assert!(share > 0.95, "{}: {share}", t.name),
        }
    }
    assert_invariants_hold(&engine, &spec).await;
}
