//! `txbench ch`: TPC-C's terminals with analytical streams beside them on
//! SQLite, PostgreSQL and MariaDB. Both sides commit, no error, the queries
//! take no share of TPC-C's mix, and TPC-C's twelve conditions hold after;
//! `--query-timeout` stops the queries that run past it on PostgreSQL, each
//! counted as its type's error, and never reaches a TPC-C transaction on the
//! same sessions; an engine that cannot hold a query to a limit safely
//! (SQLite, MariaDB) refuses it as bad input, as an open loop refuses
//! streams beside it. With `--analytic-phases` the streams run only in
//! every other phase, nothing of theirs is counted in the phases without
//! them, and TPC-C's figures are set side by side across the phases;
//! `sweep ch --frontier` runs each stream count beside each terminal count;
//! the streams' freshness looks see everything acknowledged on one node, and
//! on a standby (`--analytic-db`) whose replay is paused, only what it held.
//! The queries' answers are held alike across engines by
//! txbench-workloads' tests/ch_answers.rs.

use std::path::Path;

mod support;
use support::{MyDatabase, PgDatabase, errors_by_kind, text, txbench_output};
use txbench_test_support::script::Replica;

const QUERY_KEYS: std::ops::RangeInclusive<u32> = 1..=22;

/// The summary's committed and errors of the TPC-C types and of the
/// streams' (the queries and the freshness looks).
fn by_side(summary: &serde_json::Value) -> [(u64, u64); 2] {
    let mut sides = [(0, 0); 2];
    for t in summary["transactions"].as_array().unwrap() {
        let key = t["key"].as_str().unwrap();
        let is_query = key == "freshness" || QUERY_KEYS.clone().any(|q| key == format!("q{q}"));
        let errors: u64 = t["errors"]
            .as_object()
            .map_or(0, |e| e.values().filter_map(|v| v.as_u64()).sum());
        let side = &mut sides[usize::from(is_query)];
        side.0 += t["committed"].as_u64().unwrap();
        side.1 += errors;
    }
    sides
}

/// Run 4 s (unless `extra` gives a `-d`) with 2 TPC-C terminals and 1
/// stream (plus `extra`); the run's summary.
fn run(dir: &Path, db: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "ch",
        "run",
        "--db",
        db,
        "--warmup",
        "0s",
        "-t",
        "2",
        "--analytic-streams",
        "1",
    ];
    if !extra.contains(&"-d") {
        args.extend(["-d", "4s"]);
    }
    args.extend_from_slice(extra);
    let out = txbench_output(dir, &args);
    assert!(out.status.success(), "{db}: {}", text(&out));
    let results = dir.join("results");
    let summary = support::only_result(&results, "summary.json");
    std::fs::remove_dir_all(&results).unwrap();
    summary
}

/// TPC-C and the stream both commit, nothing fails, the queries are not
/// part of the mix's shares, and TPC-C's conditions hold after.
fn runs_beside_tpcc(dir: &Path, db: &str) {
    let out = txbench_output(dir, &["ch", "load", "--db", db, "--drop"]);
    assert!(out.status.success(), "{}", text(&out));
    let summary = run(dir, db, &[]);
    let [(tpcc, tpcc_errors), (queries, query_errors)] = by_side(&summary);
    assert!(tpcc > 0 && queries > 0, "{db}: {tpcc} and {queries}");
    assert_eq!((tpcc_errors, query_errors), (0, 0), "{db}: {summary}");
    assert_eq!(summary["settings"]["terminals"], 2, "{db}");
    assert_eq!(summary["settings"]["options"]["analytic_streams"], 1);
    let mix = support::check(&summary, "transaction mix");
    let shares = mix["statistic"].as_str().unwrap();
    assert!(!shares.contains("Q1 "), "{db}: {shares}");
    let qphh = summary["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "QphH")
        .unwrap();
    assert!(qphh["value"].as_f64().unwrap() > 0.0, "{db}: {qphh}");
    // Each query that answered keeps its answer's rows (one that ended
    // after the window too); TPC-C's types none.
    for t in summary["transactions"].as_array().unwrap() {
        let is_query = t["key"].as_str().unwrap().starts_with('q');
        let answered = is_query && t["committed"].as_u64().unwrap() > 0;
        let kept = t.get("answer_rows").is_some();
        assert!(kept || !answered, "{db}: {t}");
        assert!(is_query || !kept, "{db}: {t}");
        if t["key"] == "q1" && answered {
            // Q1 groups the order lines by their number: 5 to 15 groups.
            let rows = t["answer_rows"].as_u64().unwrap();
            assert!((5..=15).contains(&rows), "{db}: {t}");
        }
    }
    fresh_on_one_node(&summary, db);
    streams_agree(&summary, db);
    let out = txbench_output(dir, &["ch", "check", "--db", db]);
    assert!(out.status.success(), "{db}: check: {}", text(&out));
}

/// The stream's own figures count what the run counted of its queries (a
/// query that ended at the window's edge may fall on either side: the
/// workload times it a moment before the driver does), and each of its
/// executions ends after it began.
fn streams_agree(summary: &serde_json::Value, db: &str) {
    let streams = &summary["streams"];
    let counted: u64 = (summary["transactions"].as_array().unwrap().iter())
        .filter(|t| t["key"].as_str().unwrap().starts_with('q'))
        .map(|t| t["committed"].as_u64().unwrap())
        .sum();
    let own = streams["streams"].as_array().unwrap();
    assert_eq!(own.len(), 1, "{db}: {streams}");
    let completed = own[0]["completed"].as_u64().unwrap();
    assert!(
        completed.abs_diff(counted) <= 1,
        "{db}: {completed} against {counted}: {streams}"
    );
    let by_type: u64 = (own[0]["types"].as_array().unwrap().iter())
        .map(|t| t["count"].as_u64().unwrap())
        .sum();
    assert_eq!(by_type, completed, "{db}: {streams}");
    for e in streams["executions"].as_array().unwrap() {
        assert!(e["to_s"].as_f64() >= e["from_s"].as_f64(), "{db}: {e}");
    }
}

/// The stream looked at the start of its first round at least, and, on a
/// database of one node, every look saw every New-Order acknowledged before
/// it: an acknowledged commit is in every snapshot taken after it.
fn fresh_on_one_node(summary: &serde_json::Value, db: &str) {
    let fresh = &summary["freshness"];
    assert_eq!(fresh["of"], "New-Order", "{db}: {summary}");
    let looks = fresh["looks"].as_array().unwrap();
    assert!(!looks.is_empty(), "{db}: {fresh}");
    assert_eq!(fresh["rounds"].as_u64(), Some(looks.len() as u64));
    assert_eq!(
        (looks[0]["stream"].as_u64(), looks[0]["round"].as_u64()),
        (Some(0), Some(0))
    );
    for look in looks {
        assert_eq!(look["unseen"], 0, "{db}: {fresh}");
        assert_eq!(look["age_ms"], 0.0, "{db}: {fresh}");
    }
}

/// With a limit of a millisecond, queries fail as their types' errors, and
/// TPC-C, on the same pool of sessions, never. (MariaDB looks at the limit
/// now and then, so a query that ends at once may still commit.)
fn the_limit_stops_queries_only(dir: &Path, db: &str) {
    let summary = run(dir, db, &["--query-timeout", "1ms"]);
    let [(tpcc, tpcc_errors), (_, query_errors)] = by_side(&summary);
    assert!(tpcc > 0, "{db}: {summary}");
    assert_eq!(tpcc_errors, 0, "{db}: {summary}");
    assert!(query_errors > 0, "{db}: {summary}");
    assert!(errors_by_kind(&summary).contains_key("other"), "{db}");
}

#[test]
fn analytics_run_beside_tpcc_on_sqlite_and_a_limit_is_refused_there() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("ch.db").display());
    runs_beside_tpcc(dir.path(), &db);
    let out = txbench_output(
        dir.path(),
        &[
            "ch",
            "run",
            "--db",
            &db,
            "-d",
            "1s",
            "--query-timeout",
            "5s",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--query-timeout: SQLite"),
        "{}",
        text(&out)
    );
    // An open loop would send the stream arrivals: refused, not run wrong.
    let out = txbench_output(
        dir.path(),
        &["ch", "run", "--db", &db, "-d", "1s", "--rate", "100/s"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--rate: CH-benCHmark"),
        "{}",
        text(&out)
    );
    // Without streams TPC-C runs at a rate, and no query has a line.
    let out = txbench_output(
        dir.path(),
        &[
            "ch",
            "run",
            "--db",
            &db,
            "-d",
            "1s",
            "--rate",
            "100/s",
            "--analytic-streams",
            "0",
            "--no-results",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("New-Order"), "{}", text(&out));
    assert!(!text(&out).contains("Q1 "), "{}", text(&out));
}

/// The keys of the types a phase of the summary completed anything of.
fn phase_keys(phase: &serde_json::Value) -> Vec<&str> {
    (phase["transactions"].as_array().unwrap().iter())
        .map(|t| t["key"].as_str().unwrap())
        .collect()
}

#[test]
fn phases_hold_the_streams_to_their_own_and_compare_tpcc_across_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("ch.db").display());
    let out = txbench_output(dir.path(), &["ch", "load", "--db", &db]);
    assert!(out.status.success(), "{}", text(&out));
    let summary = run(dir.path(), &db, &["-d", "15s", "--analytic-phases", "3s"]);
    let alt = &summary["alternation"];
    assert_eq!(alt["phase_secs"], 3.0, "{alt}");
    assert_eq!(alt["held"][0], "Q1");
    let phases = alt["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 5, "{alt}");
    let mut queries_with = 0;
    for (k, p) in phases.iter().enumerate() {
        let with = k % 2 == 1;
        assert_eq!(p["with_held"], with, "{p}");
        let keys = phase_keys(p);
        let queries = keys.iter().filter(|k| k.starts_with('q')).count();
        if with {
            queries_with += queries;
        } else {
            // Nothing held is ever counted in a phase without it.
            assert_eq!(queries, 0, "phase {k}: {p}");
        }
        if p["counted_secs"].as_f64().unwrap() > 0.0 {
            assert!(keys.contains(&"new_order"), "phase {k}: {p}");
        }
    }
    assert!(queries_with > 0, "{alt}");
    let all_measured = (phases.iter()).all(|p| p["counted_secs"].as_f64().unwrap() >= 1.5);
    let contrasts = alt["contrasts"].as_array().unwrap();
    let tpmc = contrasts.iter().find(|c| c["name"] == "tpmC");
    if all_measured {
        let tpmc = tpmc.unwrap_or_else(|| panic!("{alt}"));
        assert_eq!(tpmc["phases"], 2, "{tpmc}");
        assert!(tpmc["ratio"].as_f64().unwrap() > 0.0, "{tpmc}");
        assert!(tpmc["interval"].is_array(), "{tpmc}");
    }
    // QphH is the streams' alone: nothing without them to compare with.
    assert!(!contrasts.iter().any(|c| c["name"] == "QphH"), "{alt}");
    // Too short a window for four phases, and phases without streams: bad input.
    for (args, said) in [
        (
            &["-d", "5s", "--analytic-phases", "2s"][..],
            "need at least 4",
        ),
        (
            &["--analytic-phases", "2s", "--analytic-streams", "0"][..],
            "nothing to alternate",
        ),
    ] {
        let mut all = vec!["ch", "run", "--db", &db, "--no-results"];
        all.extend_from_slice(args);
        let out = txbench_output(dir.path(), &all);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(said), "{}", text(&out));
    }
}

#[test]
fn a_frontier_runs_each_stream_count_beside_each_terminal_count() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("ch.db").display());
    let out = txbench_output(dir.path(), &["ch", "load", "--db", &db]);
    assert!(out.status.success(), "{}", text(&out));
    let out = txbench_output(
        dir.path(),
        &[
            "sweep",
            "ch",
            "--db",
            &db,
            "--frontier",
            "0,1",
            "--frontier-terminals",
            "1,2",
            "--step-duration",
            "3s",
            "--warmup",
            "0s",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let sweep = support::only_run(&dir.path().join("results"));
    let f: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sweep.join("frontier.json")).unwrap())
            .unwrap();
    let points = f["points"].as_array().unwrap();
    let cells: Vec<(u64, u64)> = (points.iter())
        .map(|p| {
            (
                p["terminals"].as_u64().unwrap(),
                p["added"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(cells, [(1, 0), (1, 1), (2, 0), (2, 1)], "{f}");
    for p in points {
        let (y, x) = (p["y"].as_f64().unwrap(), p["x"].as_f64().unwrap());
        assert!(y > 0.0, "{p}");
        // QphH only where a stream ran.
        assert_eq!(x > 0.0, p["added"] == 1, "{p}");
        // Each step is a run of its own, with the streams it was given.
        let step: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(sweep.join(p["results"].as_str().unwrap())).unwrap(),
        )
        .unwrap();
        assert_eq!(step["settings"]["options"]["analytic_streams"], p["added"]);
        assert_eq!(step["settings"]["terminals"], p["terminals"]);
    }
    let page = std::fs::read_to_string(sweep.join("report.html")).unwrap();
    assert!(
        page.contains("<svg") && page.contains("2 terminals"),
        "{page}"
    );
    // A workload of one kind of terminal has no frontier.
    let out = txbench_output(
        dir.path(),
        &[
            "sweep",
            "tpcc",
            "--db",
            &db,
            "--frontier",
            "0,1",
            "--no-results",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--frontier: TPC-C"), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread")]
async fn analytics_run_beside_tpcc_on_postgres_within_their_limit() {
    let Some(base) = support::server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "ch_runs").await;
    let dir = tempfile::tempdir().unwrap();
    runs_beside_tpcc(dir.path(), &db.url);
    the_limit_stops_queries_only(dir.path(), &db.url);
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn analytics_run_beside_tpcc_on_mariadb_and_a_limit_is_refused_there() {
    let Some(base) = support::server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let db = MyDatabase::create(&base, "ch_runs").await;
    let dir = tempfile::tempdir().unwrap();
    runs_beside_tpcc(dir.path(), &db.url);
    // MariaDB 10.11 died stopping a query in its optimizer: refused.
    let out = txbench_output(
        dir.path(),
        &[
            "ch",
            "run",
            "--db",
            &db.url,
            "-d",
            "1s",
            "--query-timeout",
            "5s",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("MariaDB's crashed"), "{}", text(&out));
    db.drop_now().await;
}

/// `--analytic-db` a standby whose replay is paused: the streams run there
/// (TPC-C on the primary, none of it failing as a standby's refused write
/// would), and their freshness sees the standby stand still. A look waits
/// for the first phase with streams (3 s into the window), when TPC-C has
/// acknowledged New-Orders the standby cannot have; from then on, nothing
/// it holds changes, so what a look cannot see only grows, and the age of
/// the oldest grows exactly as the time between the looks.
#[tokio::test(flavor = "multi_thread")]
async fn analytics_on_a_paused_standby_see_it_stand_still() {
    if support::server_url("TXBENCH_TEST_POSTGRES_URL").is_none() {
        return;
    }
    let replica = Replica::up("txbench_fresh_test", 25421, &["--async"]);
    let (primary, standby) = (replica.primary_url(), replica.standby_url());
    let dir = tempfile::tempdir().unwrap();
    let out = txbench_output(dir.path(), &["ch", "load", "--db", &primary]);
    assert!(out.status.success(), "{}", text(&out));
    caught_up_then_paused(&primary, &standby).await;
    let summary = run(
        dir.path(),
        &primary,
        &[
            "--analytic-db",
            &standby,
            "-d",
            "12s",
            "--analytic-phases",
            "3s",
        ],
    );
    assert!(
        summary["target"]
            .as_str()
            .unwrap()
            .contains(", analytics on postgres://"),
        "{}",
        summary["target"]
    );
    let [(tpcc, tpcc_errors), (queries, query_errors)] = by_side(&summary);
    assert!(tpcc > 0 && queries > 0, "{tpcc} and {queries}");
    assert_eq!((tpcc_errors, query_errors), (0, 0), "{summary}");
    let fresh = &summary["freshness"];
    let looks = fresh["looks"].as_array().unwrap();
    assert!(!looks.is_empty(), "{fresh}");
    let field = |l: &serde_json::Value, k: &str| l[k].as_f64().unwrap();
    assert!(field(&looks[0], "unseen") > 0.0, "{fresh}");
    for pair in looks.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(field(b, "unseen") >= field(a, "unseen"), "{fresh}");
        let (aged, passed) = (
            field(b, "age_ms") - field(a, "age_ms"),
            1e3 * (field(b, "at_s") - field(a, "at_s")),
        );
        assert!(
            (aged - passed).abs() < 1.0,
            "{aged} ms against {passed} ms: {fresh}"
        );
    }
    let out = txbench_output(dir.path(), &["ch", "check", "--db", &primary]);
    assert!(out.status.success(), "check: {}", text(&out));
    // A frontier's step without streams is its baseline, run without the
    // standby; a run asked for none with a standby for them is refused.
    let sweep = [
        "sweep",
        "ch",
        "--db",
        &primary,
        "--analytic-db",
        &standby,
        "--frontier",
        "0,1",
        "--step-duration",
        "2s",
        "--warmup",
        "0s",
        "-t",
        "2",
        "--no-results",
    ];
    let out = txbench_output(dir.path(), &sweep);
    assert!(out.status.success(), "{}", text(&out));
    let none = [
        "ch",
        "run",
        "--db",
        &primary,
        "--analytic-db",
        &standby,
        "--analytic-streams",
        "0",
        "-d",
        "1s",
    ];
    let out = txbench_output(dir.path(), &none);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--analytic-db: with no analytical stream"),
        "{}",
        text(&out)
    );
    // A database of another engine cannot hold the analytics.
    let other = format!("sqlite:{}", dir.path().join("other.db").display());
    let out = txbench_output(
        dir.path(),
        &[
            "ch",
            "run",
            "--db",
            &primary,
            "--analytic-db",
            &other,
            "-d",
            "1s",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--analytic-db sqlite:"),
        "{}",
        text(&out)
    );
    drop(replica);
}

/// Wait until the standby replayed everything the primary wrote so far,
/// then pause its replay.
async fn caught_up_then_paused(primary: &str, standby: &str) {
    let primary = support::pg_client(primary).await;
    let standby = support::pg_client(standby).await;
    let row = primary
        .query_one("SELECT pg_current_wal_lsn()::text", &[])
        .await
        .unwrap();
    let written: String = row.get(0);
    let replayed = format!("SELECT pg_last_wal_replay_lsn() >= '{written}'::pg_lsn");
    while !standby
        .query_one(&replayed, &[])
        .await
        .unwrap()
        .get::<_, bool>(0)
    {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    standby
        .batch_execute("SELECT pg_wal_replay_pause()")
        .await
        .unwrap();
}
