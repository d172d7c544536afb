//! The Redis engine against a real server: key-value statements, optimistic
//! transactions whose reads were changed underneath abort as conflicts, reads
//! see the transaction's own writes, and tables are key prefixes that load and
//! drop (tests/kv, shared with etcd's). Needs TXBENCH_TEST_REDIS_URL (a
//! server; the tests use its databases 12 to 14 and empty what they wrote);
//! skip with a notice otherwise.

mod kv;
use txbench_test_support::service;

use kv::{get, put};
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
