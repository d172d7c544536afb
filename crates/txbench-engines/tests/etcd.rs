//! The etcd engine against real etcd clusters of the tests' own
//! (tests/etcd_cluster): the key-value checks every such engine passes
//! (tests/kv), snapshot reads, the URL's errors, and hot-key increments that
//! lose nothing while the leader of a three-member cluster is killed.
#![cfg(feature = "etcd")]

use txbench_test_support::etcd_cluster;
mod kv;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use etcd_cluster::EtcdCluster;
use kv::{get, put, single};
use txbench_core::{DbError, Engine, ErrorKind, Loader, Param, Session, TxMode};
use txbench_engines::etcd::{EtcdEngine, EtcdSession, EtcdTarget};

fn engine(url: &str) -> EtcdEngine {
    EtcdEngine::new(EtcdTarget::parse(url).unwrap()).unwrap()
}

#[tokio::test]
async fn key_value_statements_and_optimistic_transactions() {
    let Some(cluster) = EtcdCluster::up(&[23579]) else {
        return;
    };
    let engine = engine(&cluster.url());
    let mut a = engine.connect().await.unwrap();
    let mut b = engine.connect().await.unwrap();
    let version = a.server_version().await.unwrap();
    assert!(version.starts_with("etcd 3."), "{version}");
    assert!(
        version.ends_with("1 members, linearizable reads"),
        "{version}"
    );
    kv::optimistic_transactions_abort_when_their_reads_change(&mut a, &mut b).await;
    kv::wide_tables_hold_rows_in_key_order(&mut a, &mut b).await;

    // A read-only transaction reads one snapshot, whatever commits meanwhile,
    // and needs no validation: its commit sends nothing and succeeds.
    kv::load_kv(&mut a, 4).await;
    a.begin(TxMode::ReadOnly).await.unwrap();
    assert_eq!(get(&mut a, 3).await.as_deref(), Some("v3"));
    put(&mut b, 3, "changed").await;
    put(&mut b, 4, "changed").await;
    assert_eq!(get(&mut a, 4).await.as_deref(), Some("v4"));
    a.commit().await.unwrap();
    assert_eq!(get(&mut a, 4).await.as_deref(), Some("changed"));

    // A write to a key the transaction did not read still conflicts when
    // the key changed after the transaction's snapshot.
    a.begin(TxMode::ReadWrite).await.unwrap();
    get(&mut a, 1).await;
    put(&mut b, 2, "from b").await;
    put(&mut a, 2, "from a").await;
    assert_eq!(a.commit().await.unwrap_err().kind, ErrorKind::Conflict);
    assert_eq!(get(&mut a, 2).await.as_deref(), Some("from b"));
    a.drop_table(kv::KV.name).await.unwrap();

    let serializable = self::engine(&format!("{}?serializable=true", cluster.url()));
    let mut s = serializable.connect().await.unwrap();
    let version = s.server_version().await.unwrap();
    assert!(version.ends_with("serializable reads"), "{version}");
}

/// The requests of etcd's KV service (Range, Txn) the first member was
/// sent while `work` ran.
async fn requests_during(
    cluster: &EtcdCluster,
    work: impl std::future::Future<Output = ()>,
) -> (u64, u64) {
    let before = (cluster.requests("Range"), cluster.requests("Txn"));
    work.await;
    (
        cluster.requests("Range") - before.0,
        cluster.requests("Txn") - before.1,
    )
}

/// Outside a transaction a single-record operation is one request where
/// etcd can make it whole by itself: a read one Range, an insert or an
/// update of every field one Txn that puts the row if its key is absent (or
/// there), a scan one Range. An update of some fields needs the rest of the
/// row (etcd keeps it as one value): one Range, then one Txn that puts it if
/// unchanged. An update of a missing record writes nothing and an insert of
/// one already there is refused, as in a transaction.
#[tokio::test]
async fn a_single_record_operation_outside_a_transaction_is_one_request() {
    let Some(cluster) = EtcdCluster::up(&[23479]) else {
        return;
    };
    let mut a = engine(&cluster.url()).connect().await.unwrap();
    single::load(&mut a, 10).await;
    let read = |k| [Param::Int(k)];

    let rows = requests_during(&cluster, async {
        assert_eq!(a.query(&single::ONE_READ, &read(3)).await.unwrap().len(), 1);
    });
    assert_eq!(rows.await, (1, 0), "a read: one Range");
    let inserted = requests_during(&cluster, async {
        let new = [Param::Int(20), Param::Text("n0"), Param::Text("n1")];
        assert_eq!(a.execute(&single::ONE_INSERT, &new).await.unwrap(), 1);
    });
    assert_eq!(inserted.await, (0, 1), "an insert: one Txn");
    let whole = requests_during(&cluster, async {
        let all = [Param::Text("x0"), Param::Text("x1"), Param::Int(4)];
        assert_eq!(a.execute(&single::ONE_UPDATE_ALL, &all).await.unwrap(), 1);
    });
    assert_eq!(whole.await, (0, 1), "an update of every field: one Txn");
    let part = requests_during(&cluster, async {
        let set = [Param::Text("y0"), Param::Int(5)];
        assert_eq!(a.execute(&single::ONE_UPDATE, &set).await.unwrap(), 1);
    });
    assert_eq!(
        part.await,
        (1, 1),
        "an update of one field: Range, then Txn"
    );
    let scan = requests_during(&cluster, async {
        let from = [Param::Int(8), Param::Int(5)];
        let rows = a.query(&single::ONE_RANGE, &from).await.unwrap();
        assert_eq!(rows.len(), 3, "8, 9 and the inserted 20");
    });
    assert_eq!(scan.await, (1, 0), "a scan: one Range");

    // What they wrote, and the same semantics as in a transaction.
    assert_eq!(single::field(&mut a, 4, 2).await.as_deref(), Some("x1"));
    assert_eq!(single::field(&mut a, 5, 1).await.as_deref(), Some("y0"));
    assert_eq!(single::field(&mut a, 5, 2).await.as_deref(), Some("b5"));
    let missing = [Param::Text("x"), Param::Text("y"), Param::Int(99)];
    assert_eq!(
        a.execute(&single::ONE_UPDATE_ALL, &missing).await.unwrap(),
        0
    );
    let missing = [Param::Text("x"), Param::Int(99)];
    assert_eq!(a.execute(&single::ONE_UPDATE, &missing).await.unwrap(), 0);
    assert_eq!(
        a.query(&single::ONE_READ, &read(99)).await.unwrap().len(),
        0
    );
    let twice = [Param::Int(20), Param::Text("y"), Param::Text("y")];
    let err = a.execute(&single::ONE_INSERT, &twice).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Constraint, "{err}");
    assert_eq!(
        single::field(&mut a, 20, 2).await.as_deref(),
        Some("n1"),
        "the refused insert wrote nothing"
    );
    a.drop_table(single::ONE.name).await.unwrap();
}

/// Single-record updates of some fields under contention lose nothing:
/// four sessions update one record at once, two its f0 and two its f1, 100
/// times each, again when etcd answers that the row changed between the
/// read and the put (a conflict, as the driver retries it); the record ends
/// with the last value one of f0's writers wrote and the last one of f1's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_record_updates_under_contention_lose_nothing() {
    let Some(cluster) = EtcdCluster::up(&[23449]) else {
        return;
    };
    let engine = engine(&cluster.url());
    let mut a = engine.connect().await.unwrap();
    single::load(&mut a, 2).await;
    let writers = (0..4).map(|w| {
        let engine = engine.clone();
        tokio::spawn(async move {
            let mut s = engine.connect().await.unwrap();
            let statement = if w % 2 == 0 {
                &single::ONE_UPDATE
            } else {
                &single::ONE_UPDATE_F1
            };
            let mut conflicts = 0;
            for i in 0..100 {
                let value = format!("w{w}-{i}");
                let set = [Param::Text(&value), Param::Int(1)];
                loop {
                    match s.execute(statement, &set).await {
                        Ok(changed) => break assert_eq!(changed, 1),
                        Err(e) if e.kind == ErrorKind::Conflict => conflicts += 1,
                        Err(e) => panic!("{e}"),
                    }
                }
            }
            conflicts
        })
    });
    for w in writers.collect::<Vec<_>>() {
        w.await.unwrap();
    }
    let f0 = single::field(&mut a, 1, 1).await.unwrap();
    let f1 = single::field(&mut a, 1, 2).await.unwrap();
    assert!(["w0-99", "w2-99"].contains(&f0.as_str()), "f0 {f0}");
    assert!(["w1-99", "w3-99"].contains(&f1.as_str()), "f1 {f1}");
    a.drop_table(single::ONE.name).await.unwrap();
}

#[tokio::test]
async fn an_unreachable_cluster_is_a_connection_error_naming_it() {
    let engine = engine("etcd://app:secret@127.0.0.1:1,127.0.0.1:2");
    kv::unreachable_is_a_connection_error(&engine, "127.0.0.1:").await;
}

/// etcd's authentication with the URL's user and password: the right ones
/// work, a wrong password is refused when connecting, and no error shows it.
#[tokio::test]
async fn the_urls_user_and_password_authenticate_and_stay_secret() {
    let Some(cluster) = EtcdCluster::up(&[23779]) else {
        return;
    };
    let endpoint = "127.0.0.1:23779";
    let mut admin = etcd_client::Client::connect([endpoint], None)
        .await
        .unwrap();
    admin.role_add("root").await.unwrap();
    admin.user_add("root", "s3cret-pw", None).await.unwrap();
    admin.user_grant_role("root", "root").await.unwrap();
    admin.auth_enable().await.unwrap();

    let user = engine(&format!("etcd://root:s3cret-pw@{endpoint}"));
    assert!(!format!("{user:?}").contains("s3cret"));
    let mut s = user.connect().await.unwrap();
    kv::load_kv(&mut s, 3).await;
    assert_eq!(get(&mut s, 3).await.as_deref(), Some("v3"));

    let wrong = engine(&format!("etcd://root:wr0ng-pw@{endpoint}"));
    let err = kv::connect_error(&wrong, "the password is wrong").await;
    assert!(err.message.contains("authentication failed"), "{err}");
    assert!(!err.message.contains("wr0ng"), "{err}");
    let anonymous = engine(&format!("etcd://{endpoint}"));
    let mut a = anonymous.connect().await.unwrap();
    let err = a
        .query(&kv::GET, &[txbench_core::Param::Int(3)])
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Other, "{err}");
    s.drop_table(kv::KV.name).await.unwrap();
    drop(cluster);
}

/// What the incrementing sessions saw.
#[derive(Default)]
struct Tally {
    /// Increments acknowledged, per key.
    acknowledged: [AtomicU64; HOT_KEYS],
    /// Commits whose answer was lost (the member died): applied or not.
    in_doubt: [AtomicU64; HOT_KEYS],
    acknowledged_after_kill: AtomicU64,
    conflicts: AtomicU64,
    unavailable: AtomicU64,
}

const HOT_KEYS: usize = 4;

/// Read key `k`, add one, write it back, commit.
async fn increment(s: &mut EtcdSession, k: i64) -> Result<(), (DbError, bool)> {
    let before = |e| (e, false);
    s.begin(TxMode::ReadWrite).await.map_err(before)?;
    let rows = s
        .query(&kv::GET, &[txbench_core::Param::Int(k)])
        .await
        .map_err(before)?;
    let v: i64 = rows
        .row(0)
        .unwrap()
        .get(0)
        .unwrap()
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let next = (v + 1).to_string();
    s.execute(
        &kv::PUT,
        &[
            txbench_core::Param::Text(&next),
            txbench_core::Param::Int(k),
        ],
    )
    .await
    .map_err(before)?;
    s.commit().await.map_err(|e| (e, true))
}

/// Increment random hot keys until `stop`, counting what happened.
async fn incrementer(
    engine: EtcdEngine,
    seed: u64,
    tally: Arc<Tally>,
    killed: Arc<AtomicBool>,
    until: Instant,
) {
    let mut s = engine.connect().await.unwrap();
    let mut x = seed;
    while Instant::now() < until {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let key = ((x >> 33) % HOT_KEYS as u64) as usize;
        match increment(&mut s, key as i64 + 1).await {
            Ok(()) => {
                tally.acknowledged[key].fetch_add(1, Ordering::Relaxed);
                if killed.load(Ordering::Relaxed) {
                    tally
                        .acknowledged_after_kill
                        .fetch_add(1, Ordering::Relaxed);
                }
            }
            Err((e, _)) if e.kind == ErrorKind::Conflict => {
                tally.conflicts.fetch_add(1, Ordering::Relaxed);
            }
            Err((e, in_commit)) if e.kind == ErrorKind::Connection => {
                let counter = if in_commit {
                    &tally.in_doubt[key]
                } else {
                    &tally.unavailable
                };
                counter.fetch_add(1, Ordering::Relaxed);
                while s.reconnect().await.is_err() && Instant::now() < until {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            Err((e, _)) => panic!("{e}"),
        }
    }
}

/// Eight sessions over three members increment four hot keys; the leader is
/// killed two seconds in. The run goes on, conflicts and the outage are
/// counted, and every key holds its acknowledged increments, plus at most
/// the in-doubt commits (those whose answer the kill lost): none lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hot_key_increments_lose_nothing_across_a_leader_kill() {
    let Some(cluster) = EtcdCluster::up(&[23679, 23689, 23699]) else {
        return;
    };
    let engine = engine(&cluster.url());
    let mut admin = engine.connect().await.unwrap();
    admin.drop_table(kv::KV.name).await.unwrap();
    admin.create_table(&kv::KV).await.unwrap();
    for k in 1..=HOT_KEYS as i64 {
        put(&mut admin, k, "0").await;
    }
    let tally = Arc::new(Tally::default());
    let killed = Arc::new(AtomicBool::new(false));
    let until = Instant::now() + Duration::from_secs(7);
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            tokio::spawn(incrementer(
                engine.clone(),
                i,
                tally.clone(),
                killed.clone(),
                until,
            ))
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let leader = tokio::task::spawn_blocking({
        let killed = killed.clone();
        move || {
            let leader = cluster.kill_leader();
            killed.store(true, Ordering::Relaxed);
            (leader, cluster)
        }
    });
    let (leader, cluster) = leader.await.unwrap();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(cluster.running().len(), 2, "{leader} killed");
    let mut survivor = engine.connect().await.unwrap();
    let mut acknowledged = 0;
    for (i, key) in (1..=HOT_KEYS as i64).enumerate() {
        let value: u64 = get(&mut survivor, key).await.unwrap().parse().unwrap();
        let acked = tally.acknowledged[i].load(Ordering::Relaxed);
        let doubt = tally.in_doubt[i].load(Ordering::Relaxed);
        assert!(
            acked <= value && value <= acked + doubt,
            "key {key}: {value} increments in the database, {acked} acknowledged, {doubt} in doubt"
        );
        acknowledged += acked;
    }
    let conflicts = tally.conflicts.load(Ordering::Relaxed);
    let outage = tally.unavailable.load(Ordering::Relaxed)
        + tally
            .in_doubt
            .iter()
            .map(|d| d.load(Ordering::Relaxed))
            .sum::<u64>();
    let after = tally.acknowledged_after_kill.load(Ordering::Relaxed);
    eprintln!(
        "{acknowledged} increments acknowledged ({after} after the kill of {leader}), \
         {conflicts} conflicts, {outage} failed on the outage"
    );
    assert!(conflicts > 0, "four hot keys, eight sessions: conflicts");
    assert!(outage > 0, "the sessions on the killed leader saw it go");
    assert!(after > 0, "the run went on after the kill");
    survivor.drop_table(kv::KV.name).await.unwrap();
}

/// TLS from the URL: `cacert` names the CA of the member's certificate; a
/// member whose certificate that CA did not sign is refused.
#[tokio::test]
async fn cacert_in_the_url_connects_over_tls() {
    let Some(etcd) = etcd_cluster::etcd_binary() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = |f: &str| dir.path().join(f).display().to_string();
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    for ca in ["ca", "other-ca"] {
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            &format!("/CN=txbench test {ca}"),
            "-keyout",
            &path(&format!("{ca}.key")),
            "-out",
            &path(&format!("{ca}.pem")),
        ]);
    }
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        &path("member.key"),
        "-out",
        &path("member.csr"),
    ]);
    std::fs::write(path("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        &path("member.csr"),
        "-CA",
        &path("ca.pem"),
        "-CAkey",
        &path("ca.key"),
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        &path("san.ext"),
        "-out",
        &path("member.pem"),
    ]);
    let url = "https://127.0.0.1:23769";
    let _member = KilledOnDrop(
        std::process::Command::new(etcd)
            .args(["--name", "tls", "--data-dir", &path("data")])
            .args(["--listen-client-urls", url, "--advertise-client-urls", url])
            .args(["--listen-peer-urls", "http://127.0.0.1:23770"])
            .args(["--initial-advertise-peer-urls", "http://127.0.0.1:23770"])
            .args(["--initial-cluster", "tls=http://127.0.0.1:23770"])
            .args([
                "--cert-file",
                &path("member.pem"),
                "--key-file",
                &path("member.key"),
            ])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let trusted = engine(&format!("etcd://127.0.0.1:23769?cacert={}", path("ca.pem")));
    let mut session = None;
    for _ in 0..100 {
        match trusted.connect().await {
            Ok(s) => {
                session = Some(s);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let mut s = session.expect("a TLS session within 10 s");
    kv::load_kv(&mut s, 2).await;
    assert_eq!(get(&mut s, 2).await.as_deref(), Some("v2"));
    let untrusted = engine(&format!(
        "etcd://127.0.0.1:23769?cacert={}",
        path("other-ca.pem")
    ));
    let err = kv::connect_error(&untrusted, "another CA signed the member's certificate").await;
    assert_eq!(err.kind, ErrorKind::Connection, "{err}");
    let missing = EtcdEngine::new(EtcdTarget::parse("etcd://h:1?cacert=/nonexistent.pem").unwrap())
        .unwrap_err();
    assert!(missing.message.contains("/nonexistent.pem"), "{missing}");
}

/// A server process of the test's own, killed however the test ends.
struct KilledOnDrop(std::process::Child);

impl Drop for KilledOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
