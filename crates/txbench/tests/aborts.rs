//! Aborts injected on purpose while TPC-C runs, on every SQL engine
//! (docs/durability.md, "Aborts on purpose"): an injector of the test's own
//! aborts transactions at random moments, between and within statement
//! groups, and afterwards `tpcc check` holds on every node and `tpcc verify`
//! finds no transaction in part, none lost and no failed attempt's writes.
//!
//! - MariaDB: KILL QUERY and KILL CONNECTION of the run's connections, lock
//!   waits past a lock-wait timeout of 1 s, and deadlocks provoked by
//!   transactions that lock stock rows, then a district and its warehouse.
//! - PostgreSQL: pg_cancel_backend and pg_terminate_backend, lock waits past
//!   a lock_timeout, and the same deadlocks (the run's sessions detect them
//!   first: a shorter deadlock_timeout).
//! - Galera: certification conflicts and brute-force aborts of the
//!   contended run itself (every terminal on every node), counted by the
//!   nodes' wsrep counters, with KILL QUERY and KILL CONNECTION beside.
//! - SQLite: a busy database (another connection holding it read or
//!   exclusively), in its rollback-journal mode, where a COMMIT can be refused.
//! - `txbench serve` on PostgreSQL: the server's own database connections
//!   cancelled and terminated.
//!
//! Each SQL engine runs in both `--round-trips` modes. The injector's counts
//! and the run's are printed (`cargo test --test aborts -- --nocapture`).

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mysql_async::prelude::Queryable;
use support::{server_url, text, txbench_output};

/// How long each run under aborts lasts.
const RUN: &str = "10s";

/// One abort test at a time: each changes a server's global settings or
/// loads a whole cluster. A tokio lock, as each test holds it across awaits
/// (and it does not poison: one failed test does not fail the rest).
async fn alone() -> tokio::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    ONE_AT_A_TIME.lock().await
}

/// TPC-C at 1 warehouse loaded at `url` (from `dir`).
fn load_one_warehouse(dir: &Path, url: &str) {
    let load = txbench_output(dir, &["tpcc", "load", "--db", url, "-w", "1"]);
    assert!(load.status.success(), "{}", text(&load));
}

/// Counts of aborts injected, by kind.
type Injected = BTreeMap<&'static str, u64>;

/// A small generator for the injector's choices (splitmix64): the test
/// needs random moments and targets, not a stream of statistical quality.
struct Dice(u64);

impl Dice {
    fn new() -> Dice {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        Dice(u64::from(nanos) ^ (u64::from(std::process::id()) << 32))
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n.max(1)
    }

    /// Which of `tried`'s kinds to inject next: one tried least so far, a
    /// random one among equals. Every kind comes round within a few
    /// injections however few a loaded machine leaves time for (a kind drawn
    /// at random was missing from one run of 15 injections).
    fn least_tried(&mut self, tried: &mut [u64]) -> usize {
        let start = self.below(tried.len() as u64) as usize;
        let kind = (0..tried.len())
            .map(|i| (start + i) % tried.len())
            .min_by_key(|&k| tried[k])
            .unwrap_or(0);
        tried[kind] += 1;
        kind
    }

    /// A pause of `from_ms` to `to_ms`.
    fn pause(&mut self, from_ms: u64, to_ms: u64) -> Duration {
        Duration::from_millis(from_ms + self.below(to_ms - from_ms + 1))
    }
}

/// A `txbench tpcc run` in `dir` with `args` (and `--ack-log`) while
/// `inject` runs until it ends; the injector's counts and the run's results
/// directory.
async fn run_under<F>(dir: &Path, args: &[String], inject: F) -> (Injected, PathBuf)
where
    F: FnOnce(Arc<AtomicBool>) -> tokio::task::JoinHandle<Injected>,
{
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("txbench"))
        .current_dir(dir)
        .args(["tpcc", "run", "-d", RUN, "--warmup", "1s", "-q"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The run's sessions are open once its warm-up has begun.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let stop = Arc::new(AtomicBool::new(false));
    let injector = inject(Arc::clone(&stop));
    let out = tokio::task::spawn_blocking(move || {
        let status = child.wait().unwrap();
        let mut stdout = String::new();
        let mut stderr = String::new();
        use std::io::Read;
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (status, format!("{stdout}{stderr}"))
    })
    .await
    .unwrap();
    stop.store(true, Ordering::Relaxed);
    let injected = injector.await.unwrap();
    assert!(out.0.success(), "the run under aborts failed: {}", out.1);
    (injected, support::only_run(&dir.join("results")))
}

/// What the run saw of the aborts: its retries by cause and its errors by
/// kind, in one map.
fn seen_by_the_run(results: &Path) -> BTreeMap<String, u64> {
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("summary.json")).unwrap())
            .unwrap();
    let mut seen = BTreeMap::new();
    for t in summary["transactions"].as_array().unwrap() {
        for (cause, n) in t["retry_causes"].as_object().into_iter().flatten() {
            *seen.entry(format!("retried {cause}")).or_default() += n.as_u64().unwrap();
        }
    }
    for (kind, n) in support::errors_by_kind(&summary) {
        *seen.entry(format!("failed {kind}")).or_default() += n;
    }
    seen
}

/// `tpcc check` passes on every node, and `verify` of the run's log finds
/// nothing lost, in part or leaked; prints the counts.
fn assert_whole(dir: &Path, label: &str, nodes: &[String], results: &Path, injected: &Injected) {
    let seen = seen_by_the_run(results);
    for url in nodes {
        let out = txbench_output(dir, &["tpcc", "check", "--db", url]);
        assert!(
            out.status.success(),
            "{label}: check on {url} failed after {injected:?} ({seen:?}):\n{}",
            text(&out)
        );
    }
    let (code, out, found) = support::verify(dir, &nodes[0], results);
    let partial: u64 = found["types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["partial"].as_u64().unwrap() + t["leaked"].as_u64().unwrap())
        .sum();
    assert_eq!(code, Some(0), "{label}: verify after {injected:?}:\n{out}");
    let rolled_back: u64 = found["types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["rolled_back"].as_u64().unwrap())
        .sum();
    println!(
        "{label}: injected {injected:?}; the run saw {seen:?}; verify: {rolled_back} rolled back, \
         {partial} partial or leaked; check passed on {} node(s)",
        nodes.len()
    );
}

/// Aborts of MySQL-wire transactions on the nodes at `urls` (each a
/// database's URL), until `stop`: KILL QUERY and KILL CONNECTION of the run's
/// connections and, where `locks`, lock holders and deadlocks.
fn mysql_injector(
    urls: Vec<String>,
    db: String,
    locks: bool,
) -> impl FnOnce(Arc<AtomicBool>) -> tokio::task::JoinHandle<Injected> {
    move |stop| {
        tokio::spawn(async move {
            let mut dice = Dice::new();
            let mut injected = Injected::new();
            let mut admins = Vec::new();
            for url in &urls {
                admins.push(mysql_async::Conn::from_url(url.as_str()).await.unwrap());
            }
            let mut tried = vec![0; if locks { 4 } else { 2 }];
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(dice.pause(20, 120)).await;
                let node = dice.below(admins.len() as u64) as usize;
                let admin = &mut admins[node];
                let kind = match dice.least_tried(&mut tried) {
                    0 => kill(admin, &db, "QUERY", &mut dice).await,
                    1 => kill(admin, &db, "CONNECTION", &mut dice).await,
                    2 => hold_a_district(admin, &mut dice).await,
                    _ => provoke_a_deadlock(admin, &mut dice).await,
                };
                if let Some(kind) = kind {
                    *injected.entry(kind).or_default() += 1;
                }
            }
            injected
        })
    }
}

/// KILL QUERY or KILL CONNECTION of one of the run's connections, busy
/// ones first (a query killed must be running); its kind when one was killed.
async fn kill(
    admin: &mut mysql_async::Conn,
    db: &str,
    what: &'static str,
    dice: &mut Dice,
) -> Option<&'static str> {
    let ids: Vec<(u64, String)> = admin
        .exec(
            "SELECT id, command FROM information_schema.processlist \
             WHERE db = ? AND id <> CONNECTION_ID()",
            (db,),
        )
        .await
        .ok()?;
    let busy: Vec<u64> = ids
        .iter()
        .filter(|(_, c)| c != "Sleep")
        .map(|(id, _)| *id)
        .collect();
    let pool: Vec<u64> = match (what, busy.is_empty()) {
        ("QUERY", false) => busy,
        _ => ids.iter().map(|(id, _)| *id).collect(),
    };
    let id = *pool.get(dice.below(pool.len() as u64) as usize)?;
    admin
        .query_drop(format!("KILL {what} {id}"))
        .await
        .ok()
        .map(|()| match what {
            "QUERY" => "KILL QUERY",
            _ => "KILL CONNECTION",
        })
}

/// Hold a district of warehouse 1 for longer than the run's lock-wait
/// timeout: transactions that need it wait, time out, and must roll back.
async fn hold_a_district(admin: &mut mysql_async::Conn, dice: &mut Dice) -> Option<&'static str> {
    let d = 1 + dice.below(10);
    let held = async {
        admin
            .query_drop("SET SESSION innodb_lock_wait_timeout = 5")
            .await?;
        admin.query_drop("START TRANSACTION").await?;
        admin
            .query_drop(format!(
                "UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1 AND d_id = {d}"
            ))
            .await?;
        tokio::time::sleep(Duration::from_millis(1300)).await;
        admin.query_drop("ROLLBACK").await
    };
    let ok = held.await.is_ok();
    let _ = admin.query_drop("ROLLBACK").await;
    ok.then_some("lock held past the timeout")
}

/// Lock many stock rows, then a district, then the warehouse: a New-Order
/// holding the district and needing one of the stock rows, or a Payment
/// holding the warehouse and needing the district, closes a cycle. The
/// injector's transaction holds more locks, so the database picks the run's
/// as the victim.
async fn provoke_a_deadlock(
    admin: &mut mysql_async::Conn,
    dice: &mut Dice,
) -> Option<&'static str> {
    let from = 1 + dice.below(80_000);
    let d = 1 + dice.below(10);
    let cycle = async {
        admin
            .query_drop("SET SESSION innodb_lock_wait_timeout = 5")
            .await?;
        admin.query_drop("START TRANSACTION").await?;
        admin
            .query_drop(format!(
                "UPDATE stock SET s_ytd = s_ytd WHERE s_w_id = 1 AND s_i_id BETWEEN {from} AND {}",
                from + 5000
            ))
            .await?;
        admin
            .query_drop(format!(
                "UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1 AND d_id = {d}"
            ))
            .await?;
        admin
            .query_drop("UPDATE warehouse SET w_ytd = w_ytd WHERE w_id = 1")
            .await?;
        tokio::time::sleep(Duration::from_millis(100)).await;
        admin.query_drop("ROLLBACK").await
    };
    let _ = cycle.await;
    let _ = admin.query_drop("ROLLBACK").await;
    Some("deadlock cycle offered")
}

/// The flags of a run under aborts: the nodes, the round trips, the
/// acknowledged-work log, and retries enough for a conflict to pass.
fn run_args(urls: &[String], round_trips: &str) -> Vec<String> {
    let mut args: Vec<String> = urls
        .iter()
        .flat_map(|u| ["--db".into(), u.clone()])
        .collect();
    args.extend(
        [
            "--round-trips",
            round_trips,
            "--ack-log",
            "--max-retries",
            "20",
        ]
        .map(String::from),
    );
    args
}

#[tokio::test(flavor = "multi_thread")]
async fn mariadb_transactions_stay_whole_under_kills_timeouts_and_deadlocks() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let _alone = alone().await;
    let db = support::MyDatabase::create(&base, "aborts").await;
    let dir = tempfile::tempdir().unwrap();
    load_one_warehouse(dir.path(), &db.url);
    // The run's sessions wait 1 s for a lock, not 50 (a session variable:
    // a global one would time out other tests' sessions on the shared server).
    let run_url = format!("{}?session_variables=innodb_lock_wait_timeout=1", db.url);
    for round_trips in ["pipelined", "statement"] {
        let run_dir = tempfile::tempdir().unwrap();
        let urls = vec![db.url.clone()];
        let (injected, results) = run_under(
            run_dir.path(),
            &[
                run_args(std::slice::from_ref(&run_url), round_trips),
                vec!["--terminals".into(), "8".into()],
            ]
            .concat(),
            mysql_injector(urls.clone(), db.name.clone(), true),
        )
        .await;
        assert!(
            injected.len() == 4,
            "every kind of abort was injected: {injected:?}"
        );
        assert_whole(
            run_dir.path(),
            &format!("MariaDB, {round_trips}"),
            &urls,
            &results,
            &injected,
        );
    }
    db.drop_now().await;
}

/// The nodes' wsrep counters of brute-force aborts and certification
/// failures, summed.
async fn wsrep_aborts(urls: &[String]) -> u64 {
    let mut sum = 0;
    for url in urls {
        let mut conn = mysql_async::Conn::from_url(url.as_str()).await.unwrap();
        let rows: Vec<(String, String)> = conn
            .query(
                "SHOW GLOBAL STATUS WHERE Variable_name IN \
                 ('wsrep_local_bf_aborts', 'wsrep_local_cert_failures')",
            )
            .await
            .unwrap();
        sum += rows
            .iter()
            .map(|(_, v)| v.parse::<u64>().unwrap())
            .sum::<u64>();
    }
    sum
}

#[tokio::test(flavor = "multi_thread")]
async fn galera_transactions_stay_whole_under_certification_conflicts_and_kills() {
    let Some(urls) = server_url("TXBENCH_TEST_GALERA_URLS") else {
        return;
    };
    let _alone = alone().await;
    let nodes: Vec<&str> = urls.split_whitespace().collect();
    let db = support::MyDatabase::create(nodes[0], "galera_aborts").await;
    let on_node = |node: &str| {
        let root = node.rsplit_once('/').map_or(node, |(r, _)| r);
        format!("{root}/{}", db.name)
    };
    let urls: Vec<String> = nodes.iter().map(|n| on_node(n)).collect();
    let dir = tempfile::tempdir().unwrap();
    load_one_warehouse(dir.path(), &urls[0]);
    for round_trips in ["pipelined", "statement"] {
        let run_dir = tempfile::tempdir().unwrap();
        let before = wsrep_aborts(&urls).await;
        let mut args = run_args(&urls, round_trips);
        // Every terminal writes through every node: certification conflicts.
        args.extend(
            [
                "--affinity",
                "off",
                "--terminals",
                "16",
                "--connections",
                "12",
            ]
            .map(String::from),
        );
        let (mut injected, results) = run_under(
            run_dir.path(),
            &args,
            mysql_injector(urls.clone(), db.name.clone(), false),
        )
        .await;
        let conflicts = wsrep_aborts(&urls).await - before;
        injected.insert("certification failures and brute-force aborts", conflicts);
        assert!(
            conflicts > 0,
            "no transaction was aborted by another node's"
        );
        assert_whole(
            run_dir.path(),
            &format!("Galera, {round_trips}"),
            &urls,
            &results,
            &injected,
        );
    }
    db.drop_now().await;
}

async fn pg_connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("connecting to {url}: {e}"));
    tokio::spawn(connection);
    client
}

/// Aborts of PostgreSQL transactions in database `db` (reached at `url`)
/// until `stop`: pg_cancel_backend and pg_terminate_backend of its other
/// sessions and, where `locks`, lock holders and deadlocks.
fn pg_injector(
    url: String,
    db: String,
    locks: bool,
) -> impl FnOnce(Arc<AtomicBool>) -> tokio::task::JoinHandle<Injected> {
    move |stop| {
        tokio::spawn(async move {
            let mut dice = Dice::new();
            let mut injected = Injected::new();
            let admin = pg_connect(&url).await;
            // The injector's own lock waits outlast the run's: its sessions
            // are the ones that give up, and detect a deadlock first.
            admin
                .batch_execute("SET lock_timeout = 0; SET deadlock_timeout = '10s'")
                .await
                .unwrap();
            let mut tried = vec![0; if locks { 4 } else { 2 }];
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(dice.pause(20, 120)).await;
                let kind = match dice.least_tried(&mut tried) {
                    0 => pg_signal(&admin, &db, "pg_cancel_backend", &mut dice).await,
                    1 => pg_signal(&admin, &db, "pg_terminate_backend", &mut dice).await,
                    2 => pg_hold_a_district(&admin, &mut dice).await,
                    _ => pg_provoke_a_deadlock(&admin, &mut dice).await,
                };
                if let Some(kind) = kind {
                    *injected.entry(kind).or_default() += 1;
                }
            }
            injected
        })
    }
}

/// `function` (pg_cancel_backend or pg_terminate_backend) on one of the
/// sessions of `db` other than the injector's, active ones first.
async fn pg_signal(
    admin: &tokio_postgres::Client,
    db: &str,
    function: &'static str,
    dice: &mut Dice,
) -> Option<&'static str> {
    let rows = admin
        .query(
            // A backend still starting has no state yet (NULL).
            "SELECT pid, coalesce(state = 'active', false) FROM pg_stat_activity \
             WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
            &[&db],
        )
        .await
        .ok()?;
    let all: Vec<(i32, bool)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    let active: Vec<i32> = all.iter().filter(|(_, a)| *a).map(|(p, _)| *p).collect();
    let pool: Vec<i32> = if active.is_empty() || function == "pg_terminate_backend" {
        all.iter().map(|(p, _)| *p).collect()
    } else {
        active
    };
    let pid = *pool.get(dice.below(pool.len() as u64) as usize)?;
    let signalled: bool = admin
        .query_one(&format!("SELECT {function}($1)"), &[&pid])
        .await
        .ok()?
        .get(0);
    signalled.then_some(function)
}

async fn pg_hold_a_district(
    admin: &tokio_postgres::Client,
    dice: &mut Dice,
) -> Option<&'static str> {
    let d = 1 + dice.below(10);
    let held = admin
        .batch_execute(&format!(
            "BEGIN; SELECT 1 FROM district WHERE d_w_id = 1 AND d_id = {d} FOR UPDATE; \
             SELECT pg_sleep(0.8); ROLLBACK"
        ))
        .await;
    let _ = admin.batch_execute("ROLLBACK").await;
    held.is_ok().then_some("lock held past the timeout")
}

async fn pg_provoke_a_deadlock(
    admin: &tokio_postgres::Client,
    dice: &mut Dice,
) -> Option<&'static str> {
    let from = 1 + dice.below(80_000);
    let d = 1 + dice.below(10);
    let _ = admin
        .batch_execute(&format!(
            "BEGIN; \
             SELECT 1 FROM stock WHERE s_w_id = 1 AND s_i_id BETWEEN {from} AND {} FOR UPDATE; \
             SELECT 1 FROM district WHERE d_w_id = 1 AND d_id = {d} FOR UPDATE; \
             SELECT 1 FROM warehouse WHERE w_id = 1 FOR UPDATE; \
             SELECT pg_sleep(0.1); ROLLBACK",
            from + 5000
        ))
        .await;
    let _ = admin.batch_execute("ROLLBACK").await;
    Some("deadlock cycle offered")
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_transactions_stay_whole_under_cancels_terminations_timeouts_and_deadlocks() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let _alone = alone().await;
    let db = support::PgDatabase::create(&base, "aborts").await;
    let dir = tempfile::tempdir().unwrap();
    load_one_warehouse(dir.path(), &db.url);
    // The run's sessions (opened after this) give up on a lock after 300 ms
    // and look for a deadlock after 50 ms.
    db.admin()
        .batch_execute(&format!(
            "ALTER DATABASE {0} SET lock_timeout = '300ms'; \
             ALTER DATABASE {0} SET deadlock_timeout = '50ms'",
            db.name()
        ))
        .await
        .unwrap();
    for round_trips in ["pipelined", "statement"] {
        let run_dir = tempfile::tempdir().unwrap();
        let mut args = run_args(std::slice::from_ref(&db.url), round_trips);
        args.extend(["--terminals".into(), "8".into()]);
        let (injected, results) = run_under(
            run_dir.path(),
            &args,
            pg_injector(db.url.clone(), db.name().to_string(), true),
        )
        .await;
        assert!(
            injected.len() == 4,
            "every kind of abort was injected: {injected:?}"
        );
        assert_whole(
            run_dir.path(),
            &format!("PostgreSQL, {round_trips}"),
            std::slice::from_ref(&db.url),
            &results,
            &injected,
        );
    }
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_transactions_stay_whole_when_the_database_is_busy() {
    let _alone = alone().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.db");
    // The rollback journal, where a reader's lock refuses a COMMIT (busy),
    // and a short busy timeout, so that waits end in errors.
    let url = format!(
        "sqlite:{}?journal_mode=delete&busy_timeout_ms=20",
        file.display()
    );
    load_one_warehouse(dir.path(), &url);
    let inject = move |stop: Arc<AtomicBool>| {
        tokio::task::spawn_blocking(move || {
            let mut dice = Dice::new();
            let mut injected = Injected::new();
            let db = rusqlite::Connection::open(&file).unwrap();
            // Short waits for its own locks, so that a lock it cannot have
            // (the run's writers hold the file) is tried again soon rather
            // than taking the run's seconds.
            db.busy_timeout(Duration::from_millis(500)).unwrap();
            // The kinds in turn, the next one once this one was held: both
            // are held after two locks, whatever the dice and the machine.
            let kinds = [
                // A reader: writers' COMMITs wait for it and give up.
                ("BEGIN", "read lock held"),
                // A writer: nobody else begins to write.
                ("BEGIN EXCLUSIVE", "exclusive lock held"),
            ];
            let mut turn = 0;
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(dice.pause(20, 120));
                let (begin, kind) = kinds[turn % 2];
                if db.execute_batch(begin).is_err() {
                    continue;
                }
                let read =
                    db.query_row("SELECT count(*) FROM district", [], |r| r.get::<_, i64>(0));
                std::thread::sleep(dice.pause(30, 150));
                if db.execute_batch("COMMIT").is_err() {
                    let _ = db.execute_batch("ROLLBACK");
                }
                if read.is_ok() {
                    *injected.entry(kind).or_default() += 1;
                    turn += 1;
                }
            }
            injected
        })
    };
    let (injected, results) = run_under(
        dir.path(),
        &[
            "--db",
            &url,
            "--ack-log",
            "--max-retries",
            "20",
            "--terminals",
            "4",
        ]
        .map(String::from),
        inject,
    )
    .await;
    assert!(
        injected.len() == 2,
        "both kinds of lock were held: {injected:?}"
    );
    let seen = seen_by_the_run(&results);
    assert!(
        seen.keys()
            .any(|k| k.contains("SQLite busy") || k.contains("conflict")),
        "the run met a busy database: {seen:?}"
    );
    assert_whole(dir.path(), "SQLite", &[url], &results, &injected);
}

#[tokio::test(flavor = "multi_thread")]
async fn served_transactions_stay_whole_when_the_servers_connections_are_killed() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let _alone = alone().await;
    let db = support::PgDatabase::create(&base, "aborts_served").await;
    let dir = tempfile::tempdir().unwrap();
    load_one_warehouse(dir.path(), &db.url);
    let (mut server, served) = support::serve(dir.path(), &["--db", &db.url, "--workload", "tpcc"]);
    let run_dir = tempfile::tempdir().unwrap();
    // The run over txbench:// keeps no acknowledged-work log (the server's
    // transactions write on its side): what is held is every condition of
    // check on the database the server wrote.
    let args = ["--db", &served, "--terminals", "8"].map(String::from);
    let (injected, results) = run_under(
        run_dir.path(),
        &args,
        pg_injector(db.url.clone(), db.name().to_string(), false),
    )
    .await;
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        injected.len() == 2,
        "both kinds of abort were injected: {injected:?}"
    );
    let seen = seen_by_the_run(&results);
    let out = txbench_output(run_dir.path(), &["tpcc", "check", "--db", &db.url]);
    assert!(
        out.status.success(),
        "check after {injected:?} ({seen:?}):\n{}",
        text(&out)
    );
    println!(
        "txbench serve on PostgreSQL: injected {injected:?}; the run saw {seen:?}; check passed"
    );
    db.drop_now().await;
}
