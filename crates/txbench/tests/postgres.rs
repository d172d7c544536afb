//! TPC-C against the local PostgreSQL, through the command line as a user runs
//! it. Needs TXBENCH_TEST_POSTGRES_URL (CI sets it); skips with a notice otherwise.

mod support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use support::{
    PgDatabase, assert_tpcc_check_passes as assert_check_passes, run_ok, server_url, summary_json,
    txbench_command as txbench,
};

#[tokio::test(flavor = "multi_thread")]
async fn load_run_check_two_warehouses() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "lrc").await;
    let out = run_ok(txbench().args([
        "tpcc",
        "load",
        "--db",
        &db.url,
        "--warehouses",
        "2",
        "--threads",
        "2",
    ]));
    assert!(out.contains("loaded 2 warehouses"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let out = run_ok(txbench().current_dir(dir.path()).args([
        "tpcc",
        "run",
        "--db",
        &db.url,
        "--duration",
        "20s",
        "--warmup",
        "1s",
        "--terminals",
        "8",
        "-q",
    ]));
    assert!(out.contains("tpmC"), "{out}");
    let summary = summary_json(dir.path());
    let committed = support::type_sum(&summary, &["committed"]);
    assert!(committed > 500, "only {committed} committed in 20 s");
    // Both warehouses got load: 8 terminals over 2 warehouses.
    assert_check_passes(&db.url);
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_credentials_and_unreachable_ports_fail_clearly_and_fast() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    // The local server trusts every connection, so no password is ever wrong
    // here; an unknown role is the credential error it can produce.
    let root = base.split_once("://").unwrap().1;
    let host = root.split_once('@').map_or(root, |(_, h)| h);
    let host = host.split_once('/').map_or(host, |(h, _)| h);
    let cases = [
        (
            format!("postgres://no_such_role_txbench:pw@{host}/test?sslmode=disable"),
            "no_such_role_txbench",
        ),
        (
            "postgres://postgres@127.0.0.1:1/test?sslmode=disable".to_string(),
            "127.0.0.1:1",
        ),
    ];
    for (url, named) in cases {
        let started = Instant::now();
        let out = txbench()
            .args(["tpcc", "check", "--db", &url])
            .output()
            .unwrap();
        let elapsed = started.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{url}: {stderr}");
        assert!(stderr.contains(named), "{url}: {stderr}");
        assert!(!stderr.contains(":pw@"), "the password leaked: {stderr}");
        assert!(elapsed < Duration::from_secs(10), "{url} took {elapsed:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_backends_are_survived_and_counted() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "kill").await;
    run_ok(txbench().args(["tpcc", "load", "--db", &db.url, "--threads", "2"]));
    let dir = tempfile::tempdir().unwrap();
    let child = txbench()
        .current_dir(dir.path())
        .args([
            "tpcc",
            "run",
            "--db",
            &db.url,
            "--duration",
            "8s",
            "--warmup",
            "0s",
            "--terminals",
            "4",
            "-q",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let killed = db
        .admin()
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'txbench'",
            &[&db.name()],
        )
        .await
        .unwrap();
    assert!(!killed.is_empty(), "no txbench backend to kill");
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the run did not survive: {stderr}");
    let summary = summary_json(dir.path());
    let lost = support::type_sum(&summary, &["errors", "connection"]);
    let committed = support::type_sum(&summary, &["committed"]);
    assert!(lost >= 1, "killed sessions were not counted: {summary}");
    assert!(
        committed > 100,
        "the run did not go on after the kill: {committed}"
    );
    assert_check_passes(&db.url);
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn hosts_that_are_down_are_skipped_and_tls_modes_work() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "hosts").await;
    run_ok(txbench().args([
        "tpcc",
        "load",
        "--db",
        &db.url,
        "--threads",
        "2",
        "--foreign-keys",
    ]));
    // --foreign-keys added the ten constraints of clause 1.3 after the data.
    let (client, conn) = tokio_postgres::connect(&db.url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let n: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conname LIKE 'fk_%'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(n, 10);
    drop(client);

    // A first host that refuses connections is skipped with a warning.
    let (prefix, rest) = db.url.split_once("://").unwrap();
    let (user, after) = rest.split_once('@').unwrap();
    let two_hosts = format!("{prefix}://{user}@127.0.0.1:1,{after}");
    let dir = tempfile::tempdir().unwrap();
    let out = txbench()
        .current_dir(dir.path())
        .args([
            "tpcc",
            "run",
            "--db",
            &two_hosts,
            "--duration",
            "2s",
            "--warmup",
            "0s",
            "--terminals",
            "2",
            "-q",
        ])
        .args(["--no-results"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("skipping PostgreSQL host 127.0.0.1:1"),
        "{stderr}"
    );

    // sslmode=require encrypts; verify-full refuses the server's self-signed
    // certificate with a clear message (when the server has TLS on at all).
    let ssl: String = db.admin().query_one("SHOW ssl", &[]).await.unwrap().get(0);
    if ssl != "on" {
        eprintln!("skipping the TLS part: the server has ssl = {ssl}");
        db.drop_now().await;
        return;
    }
    let tls = db.url.replace("sslmode=disable", "sslmode=require");
    let out = run_ok(txbench().args(["tpcc", "check", "--db", &tls]));
    assert_eq!(
        out.lines().filter(|l| l.starts_with("PASS")).count(),
        12,
        "{out}"
    );
    let verify = db.url.replace("sslmode=disable", "sslmode=verify-full");
    let out = txbench()
        .args(["tpcc", "check", "--db", &verify])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.to_lowercase().contains("certificate"), "{stderr}");
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_runs_transactions_on_postgres_sessions() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "serve").await;
    let url = db.url.clone();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let (mut server, remote) = support::serve(
            dir.path(),
            &["--db", &url, "--workload", "tpcc", "--workers", "4"],
        );
        let out = run_ok(txbench().current_dir(dir.path()).args([
            "tpcc",
            "run",
            "--db",
            &remote,
            "--duration",
            "3s",
            "--warmup",
            "1s",
            "-q",
        ]));
        assert!(out.contains("tpmC"), "{out}");
        let summary = summary_json(dir.path());
        assert_eq!(summary["engine"], "txbench");
        assert!(
            summary["server_version"]
                .as_str()
                .unwrap()
                .contains("PostgreSQL")
        );
        assert!(support::type_sum(&summary, &["committed"]) > 100);
        server.kill().unwrap();
        let _ = server.wait();
        assert_check_passes(&url);
    })
    .await
    .unwrap();
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_half_done_load_is_named_unfinished_until_load_drop_repairs_it() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "half").await;
    let mut load = txbench()
        .args(["tpcc", "load", "--db", &db.url, "-w", "4"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Four warehouses take several seconds: the kill lands with rows of some
    // of them in, before the load recorded itself complete.
    tokio::time::sleep(Duration::from_secs(3)).await;
    load.kill().unwrap();
    load.wait().unwrap();
    for args in [
        &["tpcc", "check", "--db", &db.url][..],
        &["tpcc", "load", "--db", &db.url][..],
    ] {
        let out = txbench().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!out.status.success(), "{args:?} went on: {stdout}");
        // Named for what it is, not as thousands of violations or as a
        // database "already holding 0 warehouses".
        assert!(stderr.contains("did not finish"), "{args:?}: {stderr}");
        assert!(!stdout.contains("violation"), "{args:?}: {stdout}");
    }
    run_ok(txbench().args(["tpcc", "load", "--db", &db.url, "--drop"]));
    assert_check_passes(&db.url);
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_load_creates_the_database_when_the_server_has_none() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "create").await;
    db.admin()
        .batch_execute(&format!("DROP DATABASE {} WITH (FORCE)", db.name()))
        .await
        .unwrap();
    let out = run_ok(txbench().args(["tatp", "load", "--db", &db.url, "--subscribers", "1000"]));
    assert!(
        out.contains(&format!("created database {}", db.name())),
        "{out}"
    );
    assert!(out.contains("loaded 1,000 subscribers"), "{out}");
    // Once made, it is there: the next load finds it.
    let out = run_ok(txbench().args([
        "tatp",
        "load",
        "--db",
        &db.url,
        "--subscribers",
        "1000",
        "--drop",
    ]));
    assert!(!out.contains("created database"), "{out}");
    db.drop_now().await;
}
