//! A transaction's BEGIN travels with its first statements, answered
//! together (one round trip). When that BEGIN fails (a cancel that lands on
//! it, a connection's error), the statements written behind it must not run
//! in autocommit and commit on their own: that is half a transaction.
//!
//! A proxy between the session and PostgreSQL makes the next BEGIN it
//! forwards fail, which makes the failure deterministic: a BEGIN sent as a
//! query becomes a syntax error, one bound from the session's prepared
//! BEGIN names a statement that does not exist.
//!
//! Likewise a statement that fails in the middle of a round trip with one
//! Sync (the session writing a transaction's statements itself, sharing
//! the socket with tokio-postgres): nothing of the statements before it
//! commits, the COMMIT after it is skipped, and the session goes on, over
//! TLS and without.
//!
//! Needs TXBENCH_TEST_POSTGRES_URL; skips with a notice otherwise.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_postgres::NoTls;
use txbench_core::schema::{Column, ColumnType, Statement, Table};
use txbench_core::{Call, Engine, ErrorKind, Loader, Param, Reply, Session, TxMode};
use txbench_engines::postgres::{PgEngine, PgTarget};
use txbench_test_support::service;

static BUMP_A: Statement =
    Statement::new("bump_a", "UPDATE txbench_begin SET v = v + 1 WHERE k = 1");
static BUMP_B: Statement =
    Statement::new("bump_b", "UPDATE txbench_begin SET v = v + 1 WHERE k = 2");

/// Forwards one client's bytes to the server as they are, except the first
/// BEGIN after `armed` is set: as a query it goes out as `BEGIX`, and a Bind
/// of a statement prepared as BEGIN goes out naming the statement `BEGIX`.
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
    // The names of the statements this client prepared as a BEGIN.
    let mut begins: Vec<Vec<u8>> = Vec::new();
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
        match head[0] {
            b'Q' if body.starts_with(b"BEGIN") && armed.swap(false, Ordering::SeqCst) => {
                body[4] = b'X';
            }
            // Parse: the statement's name, then its text.
            b'P' => {
                let [name, text] = cstrings(&body);
                if text.starts_with(b"BEGIN") {
                    begins.push(name.to_vec());
                }
            }
            // Bind: the portal's name, then the statement's.
            b'B' => {
                let [portal, statement] = cstrings(&body);
                if begins.iter().any(|b| b == statement) && armed.swap(false, Ordering::SeqCst) {
                    let rest = body[portal.len() + statement.len() + 2..].to_vec();
                    body = [portal, &b"\0BEGIX\0"[..], &rest[..]].concat();
                    head[1..].copy_from_slice(&(body.len() as u32 + 4).to_be_bytes());
                }
            }
            _ => {}
        }
        if to.write_all(&head).await.is_err() || to.write_all(&body).await.is_err() {
            return;
        }
    }
}

/// The first two NUL-terminated strings of a message's body.
fn cstrings(body: &[u8]) -> [&[u8]; 2] {
    let mut parts = body.splitn(3, |b| *b == 0);
    [
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    ]
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

/// A client of the test server's, with `table` made afresh: keys 1 and 2,
/// values 0.
async fn two_rows(url: &str, table: &str) -> tokio_postgres::Client {
    let (admin, conn) = tokio_postgres::connect(url, NoTls).await.unwrap();
    tokio::spawn(conn);
    admin
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS {table}; \
             CREATE TABLE {table} (k int PRIMARY KEY, v bigint NOT NULL); \
             INSERT INTO {table} VALUES (1, 0), (2, 0)"
        ))
        .await
        .unwrap();
    admin
}

/// The values of keys 1 and 2 in `table`.
async fn values_of(admin: &tokio_postgres::Client, table: &str) -> (i64, i64) {
    let rows = admin
        .query(&format!("SELECT v FROM {table} ORDER BY k"), &[])
        .await
        .unwrap();
    (rows[0].get(0), rows[1].get(0))
}

async fn values(admin: &tokio_postgres::Client) -> (i64, i64) {
    values_of(admin, "txbench_begin").await
}

#[tokio::test(flavor = "multi_thread")]
async fn statements_behind_a_failed_begin_commit_nothing() {
    let Some(url) = service::from_env("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let admin = two_rows(&url, "txbench_begin").await;
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

static BUMP: Statement = Statement::new(
    "bump",
    "UPDATE txbench_round_trip SET v = v + ? WHERE k = ?",
);
static READ: Statement = Statement::new("read", "SELECT v FROM txbench_round_trip WHERE k = ?");
/// Fails for k = 0: 1 / 0.
static DIVIDE: Statement = Statement::new(
    "divide",
    "UPDATE txbench_round_trip SET v = v + 1 / ? WHERE k = 1",
);

fn with_ssl(url: &str, mode: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}sslmode={mode}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_statement_in_a_round_trip_commits_nothing_and_the_session_goes_on() {
    let Some(url) = service::from_env("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let admin = two_rows(&url, "txbench_round_trip").await;
    let values = |admin| values_of(admin, "txbench_round_trip");
    // prefer takes TLS where the server offers it; disable is plain TCP.
    for mode in ["prefer", "disable"] {
        let engine = PgEngine::new(PgTarget::parse(&with_ssl(&url, mode)).unwrap(), None);
        let mut s = engine.connect().await.unwrap();
        let before = values(&admin).await;
        let one = [Param::Int(1), Param::Int(1)];
        let two = [Param::Int(1), Param::Int(2)];
        let zero = [Param::Int(0)];
        let k1 = [Param::Int(1)];

        // The first statement runs, the second fails: neither the first
        // nor the third (nor the COMMIT) leaves anything.
        s.begin(TxMode::ReadWrite).await.unwrap();
        let failing = [
            Call::execute(&BUMP, &one),
            Call::execute(&DIVIDE, &zero),
            Call::execute(&BUMP, &two),
        ];
        let err = s.pipeline_and_commit(&failing).await.expect_err(mode);
        assert_eq!(err.code.as_deref(), Some("SQLSTATE 22012"), "{mode}: {err}");
        assert_eq!(err.kind, ErrorKind::Other, "{mode}");
        s.rollback().await.unwrap();
        assert_eq!(values(&admin).await, before, "{mode}: nothing committed");

        // A statement of tokio-postgres's own (a check's query), then a
        // whole transaction: its reply read back in the same round trip.
        s.query_sql("SELECT count(*) FROM txbench_round_trip")
            .await
            .unwrap();
        s.begin(TxMode::ReadWrite).await.unwrap();
        let whole = [
            Call::execute(&BUMP, &one),
            Call::query(&READ, &k1),
            Call::execute(&BUMP, &two),
        ];
        let replies = s.pipeline_and_commit(&whole).await.unwrap();
        assert!(matches!(replies[0], Reply::Affected(1)), "{mode}");
        let Reply::Rows(rows) = &replies[1] else {
            panic!("{mode}: a query answers with rows");
        };
        let read = rows.row(0).and_then(|r| r.get(0)).and_then(Param::as_i64);
        assert_eq!(read, Some(before.0 + 1), "{mode}: the read sees the bump");
        assert_eq!(
            values(&admin).await,
            (before.0 + 1, before.1 + 1),
            "{mode}: the whole transaction committed"
        );

        // A conflict-free autocommit statement, outside any transaction.
        assert_eq!(s.execute(&BUMP, &one).await.unwrap(), 1, "{mode}");
    }
    admin
        .batch_execute("DROP TABLE txbench_round_trip")
        .await
        .unwrap();
}
