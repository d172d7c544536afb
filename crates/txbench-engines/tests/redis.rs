//! The Redis engine against a real server: key-value statements, optimistic
//! transactions whose reads were changed underneath abort as conflicts, reads
//! see the transaction's own writes, and tables are key prefixes that load and
//! drop (tests/kv, shared with etcd's). Needs TXBENCH_TEST_REDIS_URL (a
//! server; the tests use its databases 12 to 14 and empty what they wrote);
//! skip with a notice otherwise.

mod kv;

use kv::{get, put};
use txbench_core::{Engine, ErrorKind, Loader, Session, TxMode};
use txbench_engines::redis::{RedisEngine, RedisTarget};

fn server_url() -> Option<String> {
    match std::env::var("TXBENCH_TEST_REDIS_URL") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            assert!(
                std::env::var("TXBENCH_REQUIRE_SERVICES").as_deref() != Ok("1"),
                "TXBENCH_TEST_REDIS_URL is not set and TXBENCH_REQUIRE_SERVICES=1"
            );
            eprintln!("skipping: set TXBENCH_TEST_REDIS_URL to run this test");
            None
        }
    }
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

#[tokio::test]
async fn optimistic_transactions_abort_when_their_reads_change() {
    let Some(base) = server_url() else { return };
    let engine = RedisEngine::new(RedisTarget::parse(&database(&base, 13)).unwrap()).unwrap();
    let mut a = engine.connect().await.unwrap();
    let mut b = engine.connect().await.unwrap();
    assert!(a.server_version().await.unwrap().starts_with("Redis "));
    kv::optimistic_transactions_abort_when_their_reads_change(&mut a, &mut b).await;
}

/// Redis validates a read-only transaction too (an empty MULTI/EXEC): a key
/// it read that changed before its commit makes it a conflict.
#[tokio::test]
async fn a_read_only_transaction_is_validated_at_commit() {
    let Some(base) = server_url() else { return };
    let engine = RedisEngine::new(RedisTarget::parse(&database(&base, 14)).unwrap()).unwrap();
    let mut a = engine.connect().await.unwrap();
    let mut b = engine.connect().await.unwrap();
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
    let err = match engine.connect().await {
        Err(e) => e,
        Ok(_) => panic!("connected to port 1"),
    };
    assert_eq!(err.kind, ErrorKind::Connection, "{err}");
    assert!(err.message.contains("127.0.0.1:1"), "{err}");
    assert!(!err.message.contains("secret"), "{err}");
}

#[tokio::test]
async fn wide_tables_are_hashes_with_their_keys_in_order() {
    let Some(base) = server_url() else { return };
    let engine = RedisEngine::new(RedisTarget::parse(&database(&base, 12)).unwrap()).unwrap();
    let mut a = engine.connect().await.unwrap();
    let mut b = engine.connect().await.unwrap();
    kv::wide_tables_hold_rows_in_key_order(&mut a, &mut b).await;
}
