//! TATP's alternative-key strategies (`--key-access`) from the command line:
//! each on SQLite, on PostgreSQL whole and in hash partitions
//! (`--partitions`), and on MariaDB, after a contended run the population's
//! invariants (the index included) hold and the success rates per type are
//! those TATP expects (the run's own check "outcomes"); the same on a Redis
//! Cluster of three primaries, in TATP's script form; a strategy or a load an
//! engine cannot do is refused by name.

mod support;
use mysql_async::prelude::Queryable;

use std::path::Path;

use support::{
    MyDatabase, PgDatabase, RedisCluster, check_status, only_result, serve_tatp, server_url, text,
    txbench, txbench_output,
};

/// The strategies a database (not a txbench server) runs.
const ON_A_DATABASE: [&str; 5] = [
    "single",
    "lookup",
    "index",
    "every-partition",
    "try-every-partition",
];

/// The strategies a sharded key-value store (Redis Cluster) runs.
const ON_A_SHARDED_STORE: [&str; 3] = ["index", "every-partition", "try-every-partition"];

/// A contended TATP run of `strategy` on `url` (loaded): eight terminals on
/// 1,000 subscribers; its summary.
fn run(dir: &Path, url: &str, strategy: &str) -> serde_json::Value {
    let results = format!("results-{strategy}");
    txbench(dir)
        .args(["tatp", "run", "--db", url, "--key-access", strategy])
        .args(["--terminals", "8", "-d", "4s", "--warmup", "1s"])
        .args(["--results", &results, "-q"])
        .assert()
        .success();
    only_result(&dir.join(results), "summary.json")
}

/// A fresh load of 1,000 subscribers on `url`, in `partitions`.
fn load(dir: &Path, url: &str, partitions: Option<u32>) {
    let mut load = txbench(dir);
    load.args([
        "tatp",
        "load",
        "--db",
        url,
        "--subscribers",
        "1000",
        "--drop",
    ]);
    if let Some(n) = partitions {
        load.args(["--partitions", &n.to_string()]);
    }
    load.assert().success();
}

/// Every strategy on `url`, each on a fresh load (in `partitions`): recorded,
/// the success rates as expected, and `tatp check` passing after it. (A load
/// churned by runs before drifts from the success rates a fresh one implies:
/// Get-New-Destination's rises as forwardings are replaced.)
fn every_strategy_keeps_tatp(dir: &Path, url: &str, partitions: Option<u32>) {
    these_strategies_keep_tatp(dir, url, partitions, &ON_A_DATABASE);
}

/// [`every_strategy_keeps_tatp`] with `strategies`.
fn these_strategies_keep_tatp(dir: &Path, url: &str, partitions: Option<u32>, strategies: &[&str]) {
    for &strategy in strategies {
        load(dir, url, partitions);
        let s = run(dir, url, strategy);
        let parameters = &s["parameters"];
        assert_eq!(parameters["key_access"], strategy, "{parameters}");
        match partitions {
            Some(n) => assert_eq!(parameters["partitions"], n.to_string(), "{parameters}"),
            None => assert!(parameters.get("partitions").is_none(), "{parameters}"),
        }
        assert_eq!(
            s["settings"]["options"]["key_access"], strategy,
            "{}",
            s["settings"]
        );
        // A strategy that found the wrong subscriber, or none, would move a
        // type's success rate off TATP's expectation (or fail it outright).
        assert_ne!(
            check_status(&s, "outcomes"),
            "FAIL",
            "{strategy}: {}",
            s["checks"]
        );
        assert_ne!(
            check_status(&s, "errors"),
            "FAIL",
            "{strategy}: {}",
            s["checks"]
        );
        let sub_nbr_types = [
            "update_location",
            "insert_call_forwarding",
            "delete_call_forwarding",
        ];
        for t in s["transactions"].as_array().unwrap() {
            if sub_nbr_types.contains(&t["key"].as_str().unwrap()) {
                assert!(t["committed"].as_u64().unwrap() > 0, "{strategy}: {t}");
            }
        }
        let out = txbench_output(dir, &["tatp", "check", "--db", url]);
        assert!(out.status.success(), "{strategy}: {}", text(&out));
        assert!(text(&out).contains("SUBSCRIBER_NBR"), "{}", text(&out));
    }
}

#[test]
fn every_strategy_keeps_tatp_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("tatp.db").display());
    every_strategy_keeps_tatp(dir.path(), &url, None);
}

#[test]
fn what_an_engine_cannot_do_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("tatp.db").display());
    let refused = |args: &[&str], says: &str| {
        let out = txbench_output(dir.path(), args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    };
    refused(
        &[
            "tatp",
            "load",
            "--db",
            &url,
            "--subscribers",
            "100",
            "--partitions",
            "4",
        ],
        "--partitions 4: the sqlite engine has no hash partitions",
    );
    txbench(dir.path())
        .args(["tatp", "load", "--db", &url, "--subscribers", "100"])
        .assert()
        .success();
    refused(
        &[
            "tatp",
            "run",
            "--db",
            &url,
            "--key-access",
            "server-side",
            "-d",
            "1s",
        ],
        "--key-access server-side: only a txbench server",
    );
    // An unknown strategy is clap's to refuse: its first line names it, then
    // the possible values.
    let sideways = ["tatp", "run", "--db", &url, "--key-access", "sideways"];
    let out = txbench_output(dir.path(), &sideways);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().next().unwrap();
    assert!(
        first.contains("invalid value 'sideways' for '--key-access"),
        "{err}"
    );
    assert!(
        err.contains("every-partition, try-every-partition"),
        "{err}"
    );
    refused(
        &[
            "tatp",
            "run",
            "--db",
            "sim:?service=fixed:1ms",
            "--key-access",
            "index",
            "-d",
            "1s",
        ],
        "--key-access index: this engine holds no data",
    );
}

/// Through a txbench server the strategy is the server's own: server-side,
/// recorded; any other is refused by name.
#[test]
fn a_txbench_server_runs_the_strategy_server_side() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = serve_tatp(dir.path(), &[]);
    let s = run(dir.path(), &url, "server-side");
    assert_eq!(s["parameters"]["key_access"], "server-side");
    assert_ne!(check_status(&s, "outcomes"), "FAIL", "{}", s["checks"]);
    let out = txbench_output(
        dir.path(),
        &[
            "tatp",
            "run",
            "--db",
            &url,
            "--key-access",
            "index",
            "-d",
            "1s",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--key-access index: a txbench server runs each transaction whole"),
        "{}",
        text(&out)
    );
    server.kill().unwrap();
    server.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn every_strategy_keeps_tatp_on_postgres_whole_and_partitioned() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    for partitions in [None, Some(4)] {
        let tag = partitions.map_or("keys".to_string(), |n| format!("keys{n}"));
        let db = PgDatabase::create(&base, &tag).await;
        let dir = tempfile::tempdir().unwrap();
        every_strategy_keeps_tatp(dir.path(), &db.url, partitions);
        if let Some(n) = partitions {
            assert_partitioned(&db.url, n).await;
        }
        db.drop_now().await;
    }
}

/// Every TATP table of the database at `url` is split into `n` hash
/// partitions, a subscriber's rows in partitions of the same number, and
/// the alternative key's index placed by the number.
async fn assert_partitioned(url: &str, n: u32) {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    for table in [
        "subscriber",
        "access_info",
        "special_facility",
        "call_forwarding",
        "subscriber_nbr",
    ] {
        let row = client
            .query_one(
                "SELECT count(*) FROM pg_inherits WHERE inhparent = $1::text::regclass",
                &[&table],
            )
            .await
            .unwrap();
        assert_eq!(row.get::<_, i64>(0), i64::from(n), "{table}");
    }
    for i in 0..n {
        let row = client
            .query_one(
                &format!(
                    "SELECT count(*) FROM access_info_p{i} a \
                     WHERE NOT EXISTS (SELECT 1 FROM subscriber_p{i} s WHERE s.s_id = a.s_id)"
                ),
                &[],
            )
            .await
            .unwrap();
        assert_eq!(row.get::<_, i64>(0), 0, "partition {i}");
    }
    let spread = client
        .query_one(
            "SELECT min(c), max(c) FROM (SELECT count(*) AS c FROM subscriber \
             GROUP BY tableoid) p",
            &[],
        )
        .await
        .unwrap();
    assert!(
        spread.get::<_, i64>(0) > 0,
        "a partition holds no subscriber"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_strategy_keeps_tatp_on_mariadb() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let mut db = MyDatabase::create(&base, "keys").await;
    let dir = tempfile::tempdir().unwrap();
    every_strategy_keeps_tatp(dir.path(), &db.url, None);
    // Partitions MariaDB has not are refused before the database named is
    // created.
    let absent = format!("{}_absent", db.name);
    let url = db.url.replacen(&db.name, &absent, 1);
    let load = ["tatp", "load", "--db", &url, "--partitions", "4"];
    let out = tokio::task::block_in_place(|| txbench_output(dir.path(), &load));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no hash partitions"), "{}", text(&out));
    let made: Vec<String> = db
        .admin
        .query(format!("SHOW DATABASES LIKE '{absent}'"))
        .await
        .unwrap();
    assert!(made.is_empty(), "{made:?}");
    db.drop_now().await;
}

/// `sweep tatp --key-access A,B`: a sweep per strategy, each in a directory
/// of its own, then their capacities side by side (`variants.json`) and one
/// chart; a run refuses several strategies by name.
#[test]
fn a_sweep_compares_strategies_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench_output(
        dir.path(),
        &[
            "sweep",
            "tatp",
            "--db",
            "sqlite::memory:",
            "--subscribers",
            "10000",
            "--key-access",
            "index,every-partition",
            "--rates",
            "200..400",
            "--step",
            "200",
            "--step-duration",
            "2s",
            "--warmup",
            "0s",
            "--slo",
            "p99<=50ms",
        ],
    );
    // Two-second steps are short for the measurement's own checks: a step
    // they find NOT SOUND fails, and a strategy may end without capacity
    // (exit 3 only when none has one). What is compared is asserted here.
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", text(&out));
    assert!(
        text(&out).contains("capacity per key_access under p99<=50ms"),
        "{}",
        text(&out)
    );
    let sweep = support::only_run(&dir.path().join("results"));
    let compared: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sweep.join("variants.json")).unwrap())
            .unwrap();
    assert_eq!(compared["option"], "key_access");
    let variants = compared["variants"].as_array().unwrap();
    let values: Vec<&str> = variants
        .iter()
        .map(|v| v["value"].as_str().unwrap())
        .collect();
    assert_eq!(values, ["index", "every-partition"]);
    for v in variants {
        if let Some(capacity) = v["capacity_rate"].as_f64() {
            assert!(capacity >= 200.0, "{v}");
            let latency = v["types_latency_ms_at_capacity"].as_f64().unwrap();
            assert!(latency > 0.0, "{v}");
        }
        let own = sweep.join(v["dir"].as_str().unwrap());
        assert!(own.join("sweep.json").exists(), "{}", own.display());
        // Each step ran the variant's strategy.
        let first = own.join("step-01-200").join("summary.json");
        let step: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&first).unwrap()).unwrap();
        assert_eq!(
            step["parameters"]["key_access"],
            v["value"],
            "{}",
            first.display()
        );
    }
    let page = std::fs::read_to_string(sweep.join("report.html")).unwrap();
    assert!(page.contains("Capacity per key_access"), "{page}");
    assert_eq!(page.matches("<svg").count(), 1);
    // `txbench report` renders the comparison again from its files.
    std::fs::remove_file(sweep.join("report.html")).unwrap();
    let out = txbench_output(dir.path(), &["report", sweep.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("capacity per key_access under p99<=50ms"),
        "{}",
        text(&out)
    );
    let again = std::fs::read_to_string(sweep.join("report.html")).unwrap();
    assert_eq!(again, page);

    let out = txbench_output(
        dir.path(),
        &["tatp", "run", "--key-access", "all", "-d", "1s"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--key-access single,lookup,index,every-partition,try-every-partition,server-side: a run takes one strategy"),
        "{}",
        text(&out)
    );
}

#[test]
fn every_strategy_keeps_tatp_on_a_redis_cluster() {
    let Some(cluster) = RedisCluster::up([7201, 7202, 7203]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (dir, url) = (dir.path(), cluster.url());
    // Two partitions a node.
    these_strategies_keep_tatp(dir, &url, Some(6), &ON_A_SHARDED_STORE);
    // The partitions are spread over the three nodes, none left empty.
    for port in ["7201", "7202", "7203"] {
        let out = std::process::Command::new("redis-cli")
            .args(["-p", port, "dbsize"])
            .output()
            .unwrap();
        let keys: u64 = text(&out).trim().parse().unwrap();
        assert!(keys > 1000, "node {port}: {keys} keys");
    }
    // A partition's own index broken (an entry gone, a stray one) is
    // counted by its partition's check script: 2 violations.
    let redis = |args: &[&str]| {
        let out = std::process::Command::new("redis-cli")
            .args(["-p", "7201"])
            .args(args)
            .output()
            .unwrap();
        text(&out).trim().to_string()
    };
    let index = redis(&["--scan", "--pattern", "*index:subscriber_sub_nbr"]);
    let index = index
        .lines()
        .next()
        .expect("a partition's index on node 7201");
    let entry = redis(&["hrandfield", index]);
    assert_eq!(redis(&["hdel", index, &entry]), "1");
    assert_eq!(redis(&["hset", index, "999999999999999", "1"]), "1");
    let out = txbench_output(dir, &["tatp", "check", "--db", &url]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let line = (text(&out).lines())
        .find(|l| l.contains("each partition's SUB_NBR index"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(line.starts_with("FAIL"), "{}", text(&out));
    assert!(line.contains("2 violations"), "{}", text(&out));
    // What the store cannot do, refused by name (exit 2).
    for (args, says) in [
        (
            vec!["--key-access", "single"],
            "--key-access single: a sharded key-value store",
        ),
        (
            vec!["--key-access", "lookup"],
            "--key-access lookup: a sharded key-value store",
        ),
        (
            vec!["--key-access", "server-side"],
            "--key-access server-side: only a txbench server",
        ),
        (
            vec!["--isolation", "serializable"],
            "--isolation serializable: Redis Cluster",
        ),
    ] {
        let mut all = vec!["tatp", "run", "--db", &url, "-d", "1s"];
        all.extend(args);
        let out = txbench_output(dir, &all);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(says), "{}", text(&out));
    }
    let out = txbench_output(dir, &["tatp", "load", "--db", &url, "--drop"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--partitions: the redis-cluster engine"),
        "{}",
        text(&out)
    );
    // Workloads without a script form are refused before anything is
    // written, saying where they run; a node given as one server is named
    // as a cluster's.
    let keys_before = redis(&["dbsize"]);
    for w in ["ycsb", "retwis"] {
        let out = txbench_output(dir, &[w, "load", "--db", &url]);
        assert_eq!(out.status.code(), Some(2), "{w}: {}", text(&out));
        assert!(
            text(&out).contains("run it on one server"),
            "{w}: {}",
            text(&out)
        );
    }
    assert_eq!(redis(&["dbsize"]), keys_before);
    let node = "redis://127.0.0.1:7201/0";
    let out = txbench_output(dir, &["retwis", "--db", node, "-d", "1s"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("redis-cluster://"), "{}", text(&out));
    // A sweep of every strategy sweeps those the store runs and names the
    // ones it refuses; one of refused strategies alone is refused.
    let out = txbench_output(
        dir,
        &[
            "sweep",
            "tatp",
            "--db",
            &url,
            "--key-access",
            "single,every-partition",
            "--rates",
            "500..1000",
            "--step",
            "500",
            "--step-duration",
            "2s",
            "--refine",
            "0",
            "--slo",
            "p99<=50ms",
            "--results",
            "swept",
        ],
    );
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", text(&out));
    assert!(
        text(&out).contains("single                 refused by the engine"),
        "{}",
        text(&out)
    );
    let sweep = support::only_run(&dir.join("swept"));
    let compared: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sweep.join("variants.json")).unwrap())
            .unwrap();
    assert_eq!(
        compared["variants"][0]["value"], "every-partition",
        "{compared}"
    );
    assert_eq!(compared["refused"][0]["value"], "single", "{compared}");
    let why = compared["refused"][0]["why"].as_str().unwrap();
    assert!(why.contains("a sharded key-value store"), "{why}");
    assert!(!sweep.join("key_access-single").exists());
    let out = txbench_output(
        dir,
        &[
            "sweep",
            "tatp",
            "--db",
            &url,
            "--key-access",
            "single,lookup",
            "--rates",
            "500..1000",
            "--step",
            "500",
            "--step-duration",
            "2s",
            "--slo",
            "p99<=50ms",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // Another workload's statements have no script form.
    let out = txbench_output(dir, &["tpcc", "load", "--db", &url, "-w", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("TPC-C has none"), "{}", text(&out));
}
