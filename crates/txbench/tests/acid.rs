//! `txbench tpcc acid` through the command line (docs/durability.md): on an
//! SQLite file, on PostgreSQL at read committed and at serializable, and on
//! MariaDB, every test the level promises passes; what read committed does
//! not promise is seen happening and reported as such. The durability test
//! across a crash is in crash.rs, on a server of the test's own.

mod support;

use support::{MyDatabase, PgDatabase, acid, acid_statuses, server_url};

/// Assert the report passed: exit 0, no test failed, the durability test
/// skipped (no crash asked for) and `not_promised` tests reported as not
/// promised or passed; the rest passed.
fn assert_passed(code: Option<i32>, out: &str, report: &serde_json::Value, not_promised: &[&str]) {
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("acid PASSED"), "{out}");
    let statuses = acid_statuses(report);
    assert_eq!(statuses.len(), 16, "{statuses:?}");
    for (test, status) in &statuses {
        let expected: &[&str] = if test.starts_with("3.5 ") {
            &["skipped"]
        } else if not_promised.iter().any(|c| test.starts_with(c)) {
            &["not-promised", "pass"]
        } else {
            &["pass"]
        };
        assert!(
            expected.contains(&status.as_str()),
            "{test}: {status}\n{out}"
        );
    }
}

#[test]
fn acid_passes_on_an_sqlite_file() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("t.db").display());
    let (code, out, report) = acid(dir.path(), &url, &[]);
    assert_passed(code, &out, &report, &[]);
    assert_eq!(report["isolation"], "serializable");
    // The results directory keeps the report.
    let results = support::only_run(&dir.path().join("results"));
    assert!(results.join("acid.json").is_file());
}

#[tokio::test(flavor = "multi_thread")]
async fn acid_passes_on_postgres_at_read_committed_and_serializable() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "acid").await;
    let dir = tempfile::tempdir().unwrap();
    let unpromised = ["3.4.2.7", "3.4.2.8", "3.4.2.9"];
    let (code, out, report) = acid(dir.path(), &db.url, &["--isolation", "read-committed"]);
    assert_passed(code, &out, &report, &unpromised);
    assert_eq!(report["isolation"], "read-committed");
    // Read committed lets the second read see the other's commit, and the
    // tests see it: the price changed between the reads.
    let statuses = acid_statuses(&report);
    let seen = statuses.iter().filter(|(_, s)| s == "not-promised").count();
    assert!(seen >= 1, "read committed showed no anomaly: {out}");
    assert!(out.contains("read-committed does not promise it"), "{out}");

    let (code, out, report) = acid(dir.path(), &db.url, &["--isolation", "serializable"]);
    assert_passed(code, &out, &report, &[]);
    assert_eq!(report["isolation"], "serializable");
    // Without --isolation the database's own level is asked and named.
    let (code, out, report) = acid(dir.path(), &db.url, &[]);
    assert_passed(code, &out, &report, &unpromised);
    assert_eq!(report["isolation"], "read-committed", "{out}");
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn acid_passes_on_mariadb() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let db = MyDatabase::create(&base, "acid").await;
    let dir = tempfile::tempdir().unwrap();
    // InnoDB's own level: repeatable read, whose reads repeat.
    let (code, out, report) = acid(dir.path(), &db.url, &[]);
    assert_passed(code, &out, &report, &["3.4.2.8", "3.4.2.9"]);
    assert_eq!(report["isolation"], "repeatable-read", "{out}");
    // Serializable: locking reads make the writer wait instead.
    let (code, out, report) = acid(dir.path(), &db.url, &["--isolation", "serializable"]);
    assert_passed(code, &out, &report, &[]);
    assert!(out.contains("T2 waited while T1 was open"), "{out}");
    db.drop_now().await;
}
