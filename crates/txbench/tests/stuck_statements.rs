//! No statement stops a run's clock (docs/reliability.md, "Every wait's
//! bound"): a statement still running when the grace after the window runs
//! out is stopped at the database and counts as unfinished, a signal stops
//! a run whose only thread is inside a statement, and a wait for another
//! process's lock ends with the run. The servers run nothing of txbench's
//! once it exited.

mod support;

use std::path::Path;
use std::process::{Child, Output};
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use support::{server_url, signal, spawn, text};
use txbench_core::{Engine, Session, TxMode};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine};

/// Far longer than any of these runs may take once its statements are
/// stopped, and far shorter than a statement left to itself: a run that
/// ends within it was not waiting for its statement.
const BOUND: Duration = Duration::from_secs(120);

/// A workload file of one table whose only transaction runs `sql` (`:k` a
/// key of the table).
fn one_statement(sql: &str) -> String {
    format!(
        r#"[workload]
name = "stuck"
scale = "rows"
default_scale = 10

[[table]]
name = "t"
rows_per_scale = 1
primary_key = ["id"]
columns = [{{ name = "id", type = "bigint", gen = "sequence" }}]

[[transaction]]
name = "Stuck"
weight = 100
params = [{{ name = "k", gen = "key", of = "t.id" }}]
statements = [{{ name = "stuck", sql = "{sql}", expect = "any" }}]
"#
    )
}

/// Wait for `child` at most [`BOUND`]; kill it and fail if it is still
/// running then.
fn ended_within_bound(mut child: Child, what: &str) -> Output {
    let deadline = Instant::now() + BOUND;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("{what}: still running after {BOUND:?}\n{}", text(&out));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Write `workload` to `dir` as `w.toml` and load it into `url`.
fn loaded(dir: &Path, url: &str, workload: &str) {
    std::fs::write(dir.join("w.toml"), workload).unwrap();
    let load = spawn(dir, &["custom", "load", "--file", "w.toml", "--db", url]);
    let out = ended_within_bound(load, "load");
    assert!(out.status.success(), "{}", text(&out));
}

/// Load the file `workload` in `dir` into `url`, then run it for 1 s with a
/// 1 s grace on 2 terminals; how the run ended.
fn load_and_run(dir: &Path, url: &str, workload: &str) -> Output {
    loaded(dir, url, workload);
    let run = spawn(
        dir,
        &[
            "custom",
            "run",
            "--file",
            "w.toml",
            "--db",
            url,
            "-d",
            "1s",
            "--warmup",
            "0s",
            "--grace",
            "1s",
            "-t",
            "2",
            "-q",
            "--results",
            "res",
        ],
    );
    ended_within_bound(run, "run")
}

/// The transactions the run counted unfinished, and the errors it counted.
fn unfinished_and_errors(dir: &Path) -> (u64, u64) {
    let summary = support::only_result(&dir.join("res"), "summary.json");
    let stuck = &summary["transactions"][0];
    let errors = stuck["errors"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    (stuck["unfinished"].as_u64().unwrap(), errors)
}

/// A query that never ends on SQLite: it counts forever.
const ENDLESS_SQLITE: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                              SELECT count(*) FROM n WHERE i = :k";

#[test]
fn a_never_ending_sqlite_statement_is_stopped_when_the_grace_runs_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = load_and_run(
        dir.path(),
        "sqlite:stuck.db",
        &one_statement(ENDLESS_SQLITE),
    );
    assert!(out.status.success(), "{}", text(&out));
    let (unfinished, errors) = unfinished_and_errors(dir.path());
    assert!(unfinished >= 1, "{unfinished} unfinished");
    assert_eq!(errors, 0, "a stopped statement is not the database's error");
}

#[test]
fn sigterm_reaches_a_run_whose_thread_is_inside_a_statement() {
    let dir = tempfile::tempdir().unwrap();
    loaded(dir.path(), "sqlite:s.db", &one_statement(ENDLESS_SQLITE));
    // One terminal: its statement runs on the runtime's only thread.
    let run = spawn(
        dir.path(),
        &[
            "custom",
            "run",
            "--file",
            "w.toml",
            "--db",
            "sqlite:s.db",
            "-d",
            "600s",
            "-t",
            "1",
            "-q",
            "--results",
            "res",
        ],
    );
    // Once the run has begun (its results directory holds its settings),
    // and a moment into its endless statement.
    let begun = || {
        std::fs::read_dir(dir.path().join("res"))
            .ok()
            .and_then(|mut d| d.next())
            .is_some_and(|run| run.unwrap().path().join("config.toml").exists())
    };
    support::wait_until("the run's start", BOUND, begun);
    std::thread::sleep(Duration::from_secs(1));
    signal(&run, "TERM");
    let out = ended_within_bound(run, "run after SIGTERM");
    assert_eq!(out.status.code(), Some(143), "{}", text(&out));
    assert!(
        text(&out).contains("summary holds what was measured"),
        "{}",
        text(&out)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_on_a_locked_sqlite_file_ends_with_its_window() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("locked.db");
    let url = format!("sqlite:{}", file.display());
    let load = spawn(
        dir.path(),
        &["tatp", "load", "--db", &url, "--subscribers", "1000"],
    );
    assert!(ended_within_bound(load, "load").status.success());
    // Another connection holds the write lock for the whole test; txbench
    // may wait for it an hour per statement.
    let config = SqliteConfig::parse(&file.display().to_string()).unwrap();
    let engine = SqliteEngine::new(config).unwrap();
    let mut holder = engine.connect().await.unwrap();
    holder.begin(TxMode::ReadWrite).await.unwrap();
    let patient = format!("{url}?busy_timeout_ms=3600000");
    let run = spawn(
        dir.path(),
        &[
            "tatp",
            "run",
            "--db",
            &patient,
            "-d",
            "1s",
            "--warmup",
            "0s",
            "--grace",
            "1s",
            "-q",
            "--results",
            "res",
        ],
    );
    let out = tokio::task::spawn_blocking(move || ended_within_bound(run, "run"))
        .await
        .unwrap();
    holder.rollback().await.unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let summary = support::only_result(&dir.path().join("res"), "summary.json");
    assert!(
        support::type_sum(&summary, &["unfinished"]) >= 1,
        "{summary}"
    );
}

/// Load and run `sql` as the file's one statement on `url` (off the
/// test's runtime): the run ends, with its statement counted unfinished.
async fn run_until_cut(url: &str, sql: String) {
    let dir = tempfile::tempdir().unwrap();
    let (path, url) = (dir.path().to_path_buf(), url.to_string());
    let out = tokio::task::spawn_blocking(move || load_and_run(&path, &url, &one_statement(&sql)))
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(unfinished_and_errors(dir.path()).0 >= 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_runs_nothing_of_a_run_that_ended() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = support::PgDatabase::create(&base, "stuck").await;
    let tag = format!("txbench_stuck_{}", std::process::id());
    let sql = format!("SELECT pg_sleep(3600 + 0 * :k) /* {tag} */");
    run_until_cut(&db.url, sql).await;
    let running = statements_tagged(&db, &tag).await;
    assert_eq!(running, 0, "the server still runs the run's statements");
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mariadb_runs_nothing_of_a_run_that_ended() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let mut db = support::MyDatabase::create(&base, "stuck").await;
    let tag = format!("txbench_stuck_{}", std::process::id());
    // Hours of hashing: a statement that works, where SLEEP() would only wait.
    let sql = format!("SELECT BENCHMARK(100000000000, MD5(:k)) /* {tag} */");
    run_until_cut(&db.url, sql).await;
    let running: Vec<u64> = db
        .admin
        .exec(
            "SELECT id FROM information_schema.processlist WHERE info LIKE ? \
             AND info NOT LIKE '%processlist%'",
            (format!("%{tag}%"),),
        )
        .await
        .unwrap();
    assert!(
        running.is_empty(),
        "the server still runs the run's statements"
    );
    db.drop_now().await;
}

/// A workload file whose invariant runs `sql`.
fn with_invariant(sql: &str) -> String {
    one_statement("SELECT id FROM t WHERE id = :k")
        + &format!("\n[[invariant]]\nname = \"slow\"\nsql = \"{sql}\"\n")
}

#[test]
fn a_check_obeys_its_timeout_and_signals() {
    let dir = tempfile::tempdir().unwrap();
    let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                   SELECT i FROM n WHERE i < 0";
    loaded(dir.path(), "sqlite:c.db", &with_invariant(endless));
    let check = ["custom", "check", "--file", "w.toml", "--db", "sqlite:c.db"];
    let timed = spawn(dir.path(), &[&check[..], &["--timeout", "1s"]].concat());
    let out = ended_within_bound(timed, "check with --timeout");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("did not finish within --timeout 1s"),
        "{}",
        text(&out)
    );
    let signalled = spawn(dir.path(), &check);
    std::thread::sleep(Duration::from_secs(1));
    signal(&signalled, "INT");
    let out = ended_within_bound(signalled, "check after SIGINT");
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    assert!(!text(&out).contains("PASS"), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_check_that_gives_up_leaves_nothing_running_on_postgres() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = support::PgDatabase::create(&base, "stuckcheck").await;
    let tag = format!("txbench_stuck_check_{}", std::process::id());
    let file = with_invariant(&format!("SELECT 1 FROM pg_sleep(3600) /* {tag} */"));
    let dir = tempfile::tempdir().unwrap();
    let (path, url) = (dir.path().to_path_buf(), db.url.clone());
    let out = tokio::task::spawn_blocking(move || {
        loaded(&path, &url, &file);
        let check = spawn(
            &path,
            &[
                "custom",
                "check",
                "--file",
                "w.toml",
                "--db",
                &url,
                "--timeout",
                "1s",
            ],
        );
        ended_within_bound(check, "check")
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("its statement was stopped"),
        "{}",
        text(&out)
    );
    let running = statements_tagged(&db, &tag).await;
    assert_eq!(running, 0, "the server still runs the check's statement");
    db.drop_now().await;
}

/// How many statements holding `tag` the PostgreSQL server of `db` still
/// runs 5 s after txbench exited (the asking one aside): none, unless they
/// were left to run their hour. A backend leaves a cancelled statement
/// shortly after sending its error, and a backend whose client has gone is
/// listed, idle, for a moment: a busy machine saw both right after the exit.
async fn statements_tagged(db: &support::PgDatabase, tag: &str) -> i64 {
    let pattern = format!("%{tag}%");
    txbench_test_support::settle::until_zero(Duration::from_secs(5), async || {
        db.admin()
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE $1 \
                 AND state = 'active' AND pid <> pg_backend_pid()",
                &[&pattern],
            )
            .await
            .unwrap()
            .get(0)
    })
    .await
}
