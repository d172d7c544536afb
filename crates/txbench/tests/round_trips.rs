//! `--round-trips` on the local PostgreSQL and MariaDB, and Delivery's
//! locking read: both ways of talking run the mix, are recorded in the
//! results, and leave the database consistent; concurrent Deliveries of one
//! warehouse queue instead of retrying (13-29% of them retried before).

mod support;

use std::path::Path;

use support::{MyDatabase, PgDatabase, server_url, text, txbench_output as txbench};

/// Run 4 s with 16 terminals on one warehouse each way; assert what each
/// recorded, that Deliveries rarely retried, and that `check` passes.
fn both_ways(dir: &Path, url: &str) {
    let out = txbench(dir, &["tpcc", "load", "--db", url]);
    assert!(out.status.success(), "{}", text(&out));
    for mode in ["pipelined", "statement"] {
        let results = dir.join(mode);
        let out = txbench(
            dir,
            &[
                "tpcc",
                "run",
                "--db",
                url,
                "-d",
                "4s",
                "--warmup",
                "1s",
                "-t",
                "16",
                "-q",
                "--round-trips",
                mode,
                "--results",
                results.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{mode}: {}", text(&out));
        let summary = support::only_result(&results, "summary.json");
        assert_eq!(summary["settings"]["round_trips"], mode, "{summary}");
        let delivery = summary["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["key"] == "delivery")
            .unwrap();
        let (done, retries) = (
            delivery["committed"].as_u64().unwrap(),
            delivery["retries"].as_u64().unwrap(),
        );
        assert!(done > 10, "{mode}: {delivery}");
        assert!(
            retries * 20 < done,
            "{mode}: {retries} Delivery retries for {done} committed"
        );
    }
    let out = txbench(dir, &["tpcc", "check", "--db", url]);
    assert!(out.status.success(), "{}", text(&out));
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_both_ways() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "rtrips").await;
    let dir = tempfile::tempdir().unwrap();
    both_ways(dir.path(), &db.url);
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mariadb_both_ways() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let db = MyDatabase::create(&base, "rtrips").await;
    let dir = tempfile::tempdir().unwrap();
    both_ways(dir.path(), &db.url);
    db.drop_now().await;
}

#[test]
fn statement_round_trips_are_refused_where_there_are_none() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench(
        dir.path(),
        &[
            "tpcc",
            "run",
            "--db",
            "sqlite::memory:",
            "--round-trips",
            "statement",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--round-trips statement: SQLite is embedded"),
        "{}",
        text(&out)
    );
}
