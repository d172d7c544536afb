//! The Redis engine against a real server: key-value statements, optimistic
//! transactions whose reads were changed underneath abort as conflicts, reads
//! see the transaction's own writes, and tables are key prefixes that load and
//! drop (tests/kv, shared with etcd's). Needs TXBENCH_TEST_REDIS_URL (a
//! server; the tests use its databases 10 to 14 and empty what they wrote);
//! skip with a notice otherwise.

mod kv;
use txbench_test_support::service;

use kv::single::{ONE, ONE_INSERT, ONE_RANGE, ONE_READ, ONE_UPDATE, ONE_UPDATE_ALL, ONE_UPDATE_F1};
use kv::{get, put};
use txbench_core::Param;
use txbench_core::{Engine, ErrorKind, Loader, Session, TxMode};
use txbench_engines::redis::{RedisEngine, RedisSession, RedisTarget};

fn server_url() -> Option<String> {
    service::from_env("TXBENCH_TEST_REDIS_URL")
}

/// The server's database `n` (the URL's own database number replaced).
fn database(base: &str, n: u32) -> String {
    let root = base.trim_end_matches('/');
    let root = match root.rsplit_once('/') {
        Some((r, db)) if db.parse::<u32>().is_ok() => r,
        _ => root,
    };
    format!("{root}/{n}")
}

/// Two sessions on the server's database `n`; `None` without a server.
async fn sessions(n: u32) -> Option<(RedisSession, RedisSession)> {
    let base = server_url()?;
    let engine = RedisEngine::new(RedisTarget::parse(&database(&base, n)).unwrap()).unwrap();
    Some((
        engine.connect().await.unwrap(),
        engine.connect().await.unwrap(),
    ))
}

#[tokio::test]
async fn optimistic_transactions_abort_when_their_reads_change() {
    let Some((mut a, mut b)) = sessions(13).await else {
        return;
    };
    assert!(a.server_version().await.unwrap().starts_with("Redis "));
    kv::optimistic_transactions_abort_when_their_reads_change(&mut a, &mut b).await;
}

/// Redis validates a read-only transaction too (an empty MULTI/EXEC): a key
/// it read that changed before its commit makes it a conflict.
#[tokio::test]
async fn a_read_only_transaction_is_validated_at_commit() {
    let Some((mut a, mut b)) = sessions(14).await else {
        return;
    };
    kv::load_kv(&mut a, 3).await;
    a.begin(TxMode::ReadOnly).await.unwrap();
    get(&mut a, 3).await;
    put(&mut b, 3, "changed").await;
    assert_eq!(a.commit().await.unwrap_err().kind, ErrorKind::Conflict);
    a.drop_table(kv::KV.name).await.unwrap();
}

#[tokio::test]
async fn an_unreachable_server_is_a_connection_error_naming_it() {
    let engine =
        RedisEngine::new(RedisTarget::parse("redis://app:secret@127.0.0.1:1/0").unwrap()).unwrap();
    kv::unreachable_is_a_connection_error(&engine, "127.0.0.1:1").await;
}

#[tokio::test]
async fn wide_tables_are_hashes_with_their_keys_in_order() {
    let Some((mut a, mut b)) = sessions(12).await else {
        return;
    };
    kv::wide_tables_hold_rows_in_key_order(&mut a, &mut b).await;
}

/// The commands the server ran for database `db` while `work` ran, as the
/// MONITOR of another connection saw them (a script's own commands left
/// out: MONITOR names them `lua`), up to an ECHO that marks the end.
async fn commands_during(
    url: &str,
    db: u32,
    work: impl std::future::Future<Output = ()>,
) -> Vec<String> {
    use futures_util::StreamExt;
    let client = redis::Client::open(url).unwrap();
    let mut monitor = client.get_async_monitor().await.unwrap();
    let mut lines = monitor.on_message::<String>();
    // Connected before the work, so that its SELECT comes before it.
    let mut marker = client.get_multiplexed_async_connection().await.unwrap();
    let _: String = redis::cmd("ECHO")
        .arg("txbench-start-of-work")
        .query_async(&mut marker)
        .await
        .unwrap();
    work.await;
    let _: String = redis::cmd("ECHO")
        .arg("txbench-end-of-work")
        .query_async(&mut marker)
        .await
        .unwrap();
    let mut commands = Vec::new();
    let mut started = false;
    while let Some(line) = lines.next().await {
        if line.contains("txbench-start-of-work") {
            started = true;
            continue;
        }
        if !started {
            continue;
        }
        if line.contains("txbench-end-of-work") {
            break;
        }
        // `1700000000.123 [11 127.0.0.1:5000] "HMGET" "key" ...`
        let Some((source, rest)) = line.split_once("] ") else {
            continue;
        };
        if source.ends_with(" lua") || !source.contains(&format!("[{db} ")) {
            continue;
        }
        let name = rest.split('"').nth(1).unwrap_or("").to_lowercase();
        commands.push(name);
    }
    commands
}

/// Outside a transaction a single-record operation is one command that
/// Redis runs whole (YCSB's single operations, `autocommit`): a read one
/// HMGET, an update or an insert one script that checks the record is
/// there (or is not) and writes it, a scan one script that finds its keys
/// and reads their records. An update of a missing record writes nothing
/// and an insert of one already there is refused, as in a transaction.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_record_operation_outside_a_transaction_is_one_command() {
    let Some(base) = server_url() else {
        return;
    };
    let url = database(&base, 11);
    let engine = RedisEngine::new(RedisTarget::parse(&url).unwrap()).unwrap();
    let mut a = engine.connect().await.unwrap();
    kv::single::load(&mut a, 10).await;
    // The scripts loaded once, as a run's first operations load them.
    a.execute(&ONE_UPDATE, &[Param::Text("warm"), Param::Int(0)])
        .await
        .unwrap();
    a.query(&ONE_RANGE, &[Param::Int(0), Param::Int(1)])
        .await
        .unwrap();

    let seen = commands_during(&url, 11, async {
        let rows = a.query(&ONE_READ, &[Param::Int(3)]).await.unwrap();
        assert_eq!(rows.len(), 1);
        let set = [Param::Text("x"), Param::Int(4)];
        assert_eq!(a.execute(&ONE_UPDATE, &set).await.unwrap(), 1);
        let new = [Param::Int(20), Param::Text("n0"), Param::Text("n1")];
        assert_eq!(a.execute(&ONE_INSERT, &new).await.unwrap(), 1);
        let rows = a
            .query(&ONE_RANGE, &[Param::Int(8), Param::Int(5)])
            .await
            .unwrap();
        assert_eq!(rows.len(), 3, "8, 9 and the inserted 20");
    })
    .await;
    assert_eq!(seen, ["hmget", "evalsha", "evalsha", "evalsha"]);

    // Semantics as in a transaction.
    let missing = [Param::Text("x"), Param::Int(99)];
    assert_eq!(a.execute(&ONE_UPDATE, &missing).await.unwrap(), 0);
    assert_eq!(
        a.query(&ONE_READ, &[Param::Int(99)]).await.unwrap().len(),
        0
    );
    let twice = [Param::Int(20), Param::Text("y"), Param::Text("y")];
    let err = a.execute(&ONE_INSERT, &twice).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Constraint, "{err}");
    assert_eq!(
        kv::single::field(&mut a, 20, 2).await.as_deref(),
        Some("n1"),
        "the refused insert wrote nothing"
    );
    let all = [Param::Text("x"), Param::Text("y"), Param::Int(99)];
    assert_eq!(a.execute(&ONE_UPDATE_ALL, &all).await.unwrap(), 0);
    a.drop_table(ONE.name).await.unwrap();
}

/// Single-record updates under contention lose nothing: four sessions
/// update one record at once, two its f0 and two its f1, 200 times each;
/// the record ends with the last value one of f0's writers wrote and the
/// last one of f1's, and no write of one field undid the other's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_record_updates_under_contention_lose_nothing() {
    let Some(base) = server_url() else {
        return;
    };
    let url = database(&base, 10);
    let engine = RedisEngine::new(RedisTarget::parse(&url).unwrap()).unwrap();
    let mut a = engine.connect().await.unwrap();
    a.drop_table(ONE.name).await.unwrap();
    a.create_table(&ONE).await.unwrap();
    let new = [Param::Int(1), Param::Text("start"), Param::Text("start")];
    assert_eq!(a.execute(&ONE_INSERT, &new).await.unwrap(), 1);
    let writers = (0..4).map(|w| {
        let engine = engine.clone();
        tokio::spawn(async move {
            let mut s = engine.connect().await.unwrap();
            let statement = if w % 2 == 0 {
                &ONE_UPDATE
            } else {
                &ONE_UPDATE_F1
            };
            for i in 0..200 {
                let value = format!("w{w}-{i}");
                let set = [Param::Text(&value), Param::Int(1)];
                assert_eq!(s.execute(statement, &set).await.unwrap(), 1);
            }
        })
    });
    for w in writers.collect::<Vec<_>>() {
        w.await.unwrap();
    }
    let rows = a.query(&ONE_READ, &[Param::Int(1)]).await.unwrap();
    let row = rows.row(0).unwrap();
    let field = |c| row.get(c).unwrap().as_str().unwrap().to_string();
    assert!(
        ["w0-199", "w2-199"].contains(&field(1).as_str()),
        "f0 {}",
        field(1)
    );
    assert!(
        ["w1-199", "w3-199"].contains(&field(2).as_str()),
        "f1 {}",
        field(2)
    );
    a.drop_table(ONE.name).await.unwrap();
}

/// Answers longer than many reads (a table's values in one MGET, as a check
/// reads them) arrive whole and unchanged.
#[tokio::test]
async fn long_answers_arrive_whole() {
    // Database 12 with the key-and-value table: no other test here has both.
    let Some((mut a, _)) = sessions(12).await else {
        return;
    };
    kv::load_kv(&mut a, 1).await;
    let long: String = (0..3_000_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    for k in 0..4 {
        kv::put(&mut a, k, &format!("{k}{long}")).await;
    }
    let all = a.query(&kv::SCAN, &[]).await.unwrap();
    assert_eq!(all.len(), 4);
    for row in all.iter() {
        let (k, v) = (row.get(0).unwrap(), row.get(1).unwrap());
        let k = k.as_str().unwrap();
        assert_eq!(
            v.as_str().unwrap(),
            format!("{k}{long}"),
            "the value of key {k}"
        );
    }
    a.drop_table(kv::KV.name).await.unwrap();
}
