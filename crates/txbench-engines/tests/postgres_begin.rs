//! A transaction's BEGIN travels with its first statements, answered
//! together (one round trip). When that BEGIN fails (a cancel that lands on
//! it, a connection's error), the statements written behind it must not run
//! in autocommit and commit on their own: that is half a transaction.
//!
//! A proxy between the session and PostgreSQL turns the next BEGIN it
//! forwards into a syntax error, which makes the failure deterministic.
//! Needs TXBENCH_TEST_POSTGRES_URL; skips with a notice otherwise.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_postgres::NoTls;
use txbench_core::schema::{Column, ColumnType, Table};
use txbench_core::{Call, Engine, Loader, Param, Session, TxMode};
use txbench_engines::postgres::{PgEngine, PgTarget};
use txbench_test_support::service;

static BUMP_A: txbench_core::schema::Statement = txbench_core::schema::Statement::new(
    "bump_a",
    "UPDATE txbench_begin SET v = v + 1 WHERE k = 1",
);
static BUMP_B: txbench_core::schema::Statement = txbench_core::schema::Statement::new(
    "bump_b",
    "UPDATE txbench_begin SET v = v + 1 WHERE k = 2",
);

/// Forwards one client's bytes to the server as they are, except that the
/// first BEGIN after `armed` is set goes out as `BEGIX`.
async fn forward_client(
    mut from: impl AsyncReadExt + Unpin,
    mut to: impl AsyncWriteExt + Unpin,
    armed: Arc<AtomicBool>,
) {
    // The startup message has no type byte: a length, then the rest.
    let mut len = [0u8; 4];
    if from.read_exact(&mut len).await.is_err() {
        return;
    }
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize - 4];
    if from.read_exact(&mut body).await.is_err() {
        return;
    }
    if to.write_all(&len).await.is_err() || to.write_all(&body).await.is_err() {
        return;
    }
    loop {
        let mut head = [0u8; 5];
        if from.read_exact(&mut head).await.is_err() {
            return;
        }
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut body = vec![0u8; len - 4];
        if from.read_exact(&mut body).await.is_err() {
            return;
        }
        // A BEGIN goes as a simple query, or (in a round trip with one
        // Sync) parsed as the unnamed statement: its name, "", comes first.
        let begin = match head[0] {
            b'Q' => Some(0),
            b'P' => Some(1),
            _ => None,
        };
        if let Some(at) = begin
            && body[at..].starts_with(b"BEGIN")
            && armed.swap(false, Ordering::SeqCst)
        {
            body[at + 4] = b'X';
        }
        if to.write_all(&head).await.is_err() || to.write_all(&body).await.is_err() {
            return;
        }
    }
}

/// A proxy to `server` on a port of its own; returns the port.
async fn proxy(server: String, armed: Arc<AtomicBool>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let upstream = TcpStream::connect(&server).await.unwrap();
            let (client_read, mut client_write) = client.into_split();
            let (mut server_read, server_write) = upstream.into_split();
            tokio::spawn(forward_client(
                client_read,
                server_write,
                Arc::clone(&armed),
            ));
            tokio::spawn(async move {
                drop(tokio::io::copy(&mut server_read, &mut client_write).await);
            });
        }
    });
    port
}

/// The test server's address and a URL to it through a proxy.
async fn proxied(url: &str, armed: Arc<AtomicBool>) -> String {
    let config: tokio_postgres::Config = url.parse().unwrap();
    let host = match &config.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(h) => h.clone(),
        other => panic!("the test server is reached over TCP, not {other:?}"),
    };
    let port = proxy(format!("{host}:{}", config.get_ports()[0]), armed).await;
    format!(
        "postgres://{}@127.0.0.1:{port}/{}?sslmode=disable",
        config.get_user().unwrap_or("postgres"),
        config.get_dbname().unwrap_or("postgres")
    )
}

async fn values(admin: &tokio_postgres::Client) -> (i64, i64) {
    let rows = admin
        .query("SELECT v FROM txbench_begin ORDER BY k", &[])
        .await
        .unwrap();
    (rows[0].get(0), rows[1].get(0))
}

#[tokio::test(flavor = "multi_thread")]
async fn statements_behind_a_failed_begin_commit_nothing() {
    let Some(url) = service::from_env("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let (admin, conn) = tokio_postgres::connect(&url, NoTls).await.unwrap();
    tokio::spawn(conn);
    admin
        .batch_execute(
            "DROP TABLE IF EXISTS txbench_begin; \
             CREATE TABLE txbench_begin (k int PRIMARY KEY, v bigint NOT NULL); \
             INSERT INTO txbench_begin VALUES (1, 0), (2, 0)",
        )
        .await
        .unwrap();
    let armed = Arc::new(AtomicBool::new(false));
    let engine = PgEngine::new(
        PgTarget::parse(&proxied(&url, Arc::clone(&armed)).await).unwrap(),
        None,
    );
    let mut s = engine.connect().await.unwrap();
    let none: [Param<'_>; 0] = [];
    let both = [Call::execute(&BUMP_A, &none), Call::execute(&BUMP_B, &none)];

    // A whole transaction first: the statements are prepared, both rows move.
    s.begin(TxMode::ReadWrite).await.unwrap();
    s.pipeline_and_commit(&both).await.unwrap();
    assert_eq!(values(&admin).await, (1, 1));

    // Each way a first statement travels with its BEGIN, the BEGIN failing.
    for way in ["execute", "pipeline", "pipeline_and_commit"] {
        armed.store(true, Ordering::SeqCst);
        s.begin(TxMode::ReadWrite).await.unwrap();
        let result = match way {
            "execute" => s.execute(&BUMP_A, &none).await.map(drop),
            "pipeline" => s.pipeline(&both).await.map(drop),
            _ => s.pipeline_and_commit(&both).await.map(drop),
        };
        let err = result.expect_err(way);
        assert!(err.message.contains("BEGIX"), "{way}: {err}");
        s.rollback().await.unwrap();
        assert!(
            !armed.load(Ordering::SeqCst),
            "{way}: the BEGIN went through the proxy"
        );
        assert_eq!(
            values(&admin).await,
            (1, 1),
            "{way}: nothing behind the failed BEGIN committed"
        );
    }

    // The session goes on: a transaction commits whole, and statements
    // outside any transaction (a load's) run as before.
    s.begin(TxMode::ReadWrite).await.unwrap();
    s.execute(&BUMP_A, &none).await.unwrap();
    s.execute(&BUMP_B, &none).await.unwrap();
    s.commit().await.unwrap();
    assert_eq!(values(&admin).await, (2, 2));
    static COLUMNS: [Column; 1] = [Column {
        name: "k",
        ty: ColumnType::Int,
        nullable: false,
    }];
    let table = Table {
        name: "txbench_begin_loaded",
        columns: &COLUMNS,
        primary_key: &["k"],
    };
    let loader = s.loader().unwrap();
    loader.drop_table(table.name).await.unwrap();
    loader.create_table(&table).await.unwrap();
    loader.drop_table(table.name).await.unwrap();
    admin
        .batch_execute("DROP TABLE txbench_begin")
        .await
        .unwrap();
}
