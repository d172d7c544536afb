//! A transaction's last statements sent with its COMMIT
//! (`Session::pipeline_and_commit`) on the real servers: what succeeds is
//! committed, a failure leaves nothing of the transaction, and an empty
//! pipeline is no error (a Delivery that finds no order sends none). Needs
//! TXBENCH_TEST_POSTGRES_URL and TXBENCH_TEST_MYSQL_URL; skips otherwise.

mod support;

use mysql_async::prelude::Queryable;
use support::{MyDatabase, PgDatabase, server_url};
use txbench_core::schema::Statement;
use txbench_core::{Call, Engine, ErrorKind, Param, Reply, Session, TxMode};
use txbench_engines::mysql::{MyEngine, MyTarget};
use txbench_engines::postgres::{PgEngine, PgTarget};

static INSERT: Statement = Statement::new("t: insert", "INSERT INTO t (k) VALUES (?)");
static KEYS: Statement = Statement::new("t: keys", "SELECT k FROM t ORDER BY k");

/// The keys in `t`, read in a transaction of their own.
async fn keys<S: Session>(s: &mut S) -> Vec<i64> {
    s.begin(TxMode::ReadOnly).await.unwrap();
    let rows = s.query(&KEYS, &[]).await.unwrap();
    s.commit().await.unwrap();
    rows.iter()
        .map(|r| r.get(0).unwrap().as_i64().unwrap())
        .collect()
}

async fn commits_with_the_last_statements<S: Session>(s: &mut S) {
    s.begin(TxMode::ReadWrite).await.unwrap();
    assert!(s.pipeline(&[]).await.unwrap().is_empty());
    assert!(s.pipeline_and_commit(&[]).await.unwrap().is_empty());

    s.begin(TxMode::ReadWrite).await.unwrap();
    let (one, two) = ([Param::Int(1)], [Param::Int(2)]);
    let replies = s
        .pipeline_and_commit(&[Call::execute(&INSERT, &one), Call::execute(&INSERT, &two)])
        .await
        .unwrap();
    assert!(matches!(
        replies[..],
        [Reply::Affected(1), Reply::Affected(1)]
    ));
    assert_eq!(keys(s).await, [1, 2]);

    // 3 goes in, then 1 again breaks the key: the COMMIT after it must not
    // keep 3.
    s.begin(TxMode::ReadWrite).await.unwrap();
    s.execute(&INSERT, &[Param::Int(4)]).await.unwrap();
    let three = [Param::Int(3)];
    let e = s
        .pipeline_and_commit(&[Call::execute(&INSERT, &three), Call::execute(&INSERT, &one)])
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Constraint, "{e}");
    s.rollback().await.unwrap();
    assert_eq!(keys(s).await, [1, 2]);
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_commits_with_the_last_statements_and_only_whole() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "last_statements").await;
    let (client, connection) = tokio_postgres::connect(&db.url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute("CREATE TABLE t (k bigint PRIMARY KEY)")
        .await
        .unwrap();
    drop(client);
    let engine = PgEngine::new(PgTarget::parse(&db.url).unwrap(), None);
    let mut session = engine.connect().await.unwrap();
    commits_with_the_last_statements(&mut session).await;
    drop(session);
    db.drop_now().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mysql_commits_with_the_last_statements_and_only_whole() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let mut db = MyDatabase::create(&base, "last_statements").await;
    db.admin
        .query_drop(format!("CREATE TABLE {}.t (k BIGINT PRIMARY KEY)", db.name))
        .await
        .unwrap();
    let engine = MyEngine::new(vec![MyTarget::parse(&db.url).unwrap()], None);
    let mut session = engine.connect().await.unwrap();
    commits_with_the_last_statements(&mut session).await;
    drop(session);
    db.drop_now().await;
}
