//! The server against a hand-written client on loopback: the handshake and its
//! refusals, pipelined requests answered by id with the displayed fields, bad
//! frames and inputs that never stop it, and a draining stop.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_util::codec::Framed;
use txbench_core::{Terminal, Workload};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine};
use txbench_remote::protocol::{self, ClientMessage, MAGIC, ServerMessage, Status, VERSION};
use txbench_server::{ServeOptions, ServeSummary, serve};
use txbench_workloads::LoadPlan;
use txbench_workloads::tpcc::Tpcc;
use txbench_workloads::tpcc::load::load;

type Client = Framed<TcpStream, tokio_util::codec::LengthDelimitedCodec>;

struct Server {
    addr: std::net::SocketAddr,
    stop: watch::Sender<bool>,
    done: tokio::task::JoinHandle<ServeSummary>,
    tpcc: Tpcc,
}

/// A 1-warehouse in-memory TPC-C database served by `workers` sessions.
async fn start(workers: usize, token: Option<&str>) -> Server {
    let engine = Arc::new(SqliteEngine::new(SqliteConfig::parse(":memory:").unwrap()).unwrap());
    let opts = LoadPlan {
        scale: 1,
        threads: 2,
        seed: 1,
        drop: false,
        foreign_keys: false,
    };
    load(Arc::clone(&engine), &opts, Arc::new(AtomicU64::new(0)))
        .await
        .unwrap();
    let mut s = txbench_core::Engine::connect(&*engine).await.unwrap();
    let tpcc = Tpcc::open(&mut s, None, 3).await.unwrap();
    drop(s);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = watch::channel(false);
    let opts = ServeOptions {
        workers,
        token: token.map(String::from),
        parameters: tpcc.served_parameters(),
        max_connections: 1024,
        grace: std::time::Duration::from_secs(5),
    };
    let served = Arc::new(tpcc.clone());
    let done = tokio::spawn(async move {
        serve(engine, served, listener, opts, stopped)
            .await
            .unwrap()
    });
    Server {
        addr,
        stop,
        done,
        tpcc,
    }
}

async fn connect(addr: std::net::SocketAddr) -> Client {
    Framed::new(TcpStream::connect(addr).await.unwrap(), protocol::codec())
}

fn hello(version: u16, token: Option<&str>) -> Bytes {
    protocol::encode(&ClientMessage::Hello {
        magic: MAGIC,
        version,
        workload: None,
        token: token.map(String::from),
    })
}

async fn answer(client: &mut Client) -> Option<ServerMessage> {
    let frame = tokio::time::timeout(Duration::from_secs(10), client.next())
        .await
        .expect("an answer within 10 s")?
        .ok()?;
    Some(protocol::decode(&frame).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_are_answered_by_id_with_the_displayed_fields() {
    let server = start(4, None).await;
    let mut client = connect(server.addr).await;
    client.send(hello(VERSION, None)).await.unwrap();
    let Some(ServerMessage::Welcome { parameters, .. }) = answer(&mut client).await else {
        panic!("no welcome")
    };
    assert!(parameters.contains(&("warehouses".to_string(), "1".to_string())));
    // 200 transactions of the standard mix, all sent before any answer is read.
    let mut terminal = server.tpcc.terminal(0, 9);
    let mut sent = std::collections::HashMap::new();
    for id in 0..200u64 {
        let plan = terminal.next();
        let input = postcard::to_stdvec(&plan.input).unwrap();
        let request = ClientMessage::Request {
            id,
            txn_type: plan.txn_type as u16,
            input,
        };
        client.feed(protocol::encode(&request)).await.unwrap();
        sent.insert(id, plan.txn_type);
    }
    SinkExt::<Bytes>::flush(&mut client).await.unwrap();
    let mut new_orders = 0;
    for _ in 0..200 {
        let Some(ServerMessage::Response {
            id, status, output, ..
        }) = answer(&mut client).await
        else {
            panic!("no response")
        };
        let txn_type = sent.remove(&id).expect("an id that was sent, once");
        // Four workers on one in-memory database: a reader may meet a writer's
        // table lock, a conflict the client's driver retries. Nothing else fails.
        if let Status::Error { kind, message } = &status {
            assert_eq!(kind, "conflict", "{message}");
        }
        if txn_type == 0 && status == Status::Committed {
            new_orders += 1;
            assert!(
                output
                    .iter()
                    .any(|(k, v)| k == "o_id" && v.parse::<i64>().unwrap() > 3000)
            );
            assert!(output.iter().any(|(k, _)| k == "total"));
        }
    }
    assert!(sent.is_empty());
    assert!(new_orders > 50, "{new_orders} New-Orders");

    // A bad type and an undecodable input get error answers; the connection goes on.
    for (id, txn_type, input) in [(1_000, 99u16, vec![0]), (1_001, 0, vec![0xff; 7])] {
        let request = ClientMessage::Request {
            id,
            txn_type,
            input,
        };
        client.send(protocol::encode(&request)).await.unwrap();
        match answer(&mut client).await {
            Some(ServerMessage::Response {
                id: got,
                status: Status::Error { .. },
                ..
            }) => assert_eq!(got, id),
            other => panic!("{other:?}"),
        }
    }
    let plan = terminal.next();
    let request = ClientMessage::Request {
        id: 2_000,
        txn_type: plan.txn_type as u16,
        input: postcard::to_stdvec(&plan.input).unwrap(),
    };
    client.send(protocol::encode(&request)).await.unwrap();
    assert!(matches!(
        answer(&mut client).await,
        Some(ServerMessage::Response { id: 2_000, .. })
    ));

    server.stop.send(true).unwrap();
    let summary = server.done.await.unwrap();
    assert_eq!(
        summary.committed + summary.expected_rollbacks + summary.errors,
        203,
        "every request answered once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_handshakes_and_frames_are_refused_and_the_server_goes_on() {
    let server = start(1, Some("s3cret")).await;
    // Wrong token, missing token, unknown version: refused with the reason.
    for (version, token, reason) in [
        (VERSION, Some("guess"), "token"),
        (VERSION, None, "token"),
        (99, Some("s3cret"), "version 99"),
    ] {
        let mut client = connect(server.addr).await;
        client.send(hello(version, token)).await.unwrap();
        match answer(&mut client).await {
            Some(ServerMessage::Refused { reason: r }) => assert!(r.contains(reason), "{r}"),
            other => panic!("{other:?}"),
        }
        assert!(
            answer(&mut client).await.is_none(),
            "closed after a refusal"
        );
    }
    // A request before the handshake, garbage, an oversized frame, a truncated one.
    let mut client = connect(server.addr).await;
    let request = ClientMessage::Request {
        id: 1,
        txn_type: 0,
        input: vec![],
    };
    client.send(protocol::encode(&request)).await.unwrap();
    assert!(matches!(
        answer(&mut client).await,
        Some(ServerMessage::Refused { .. })
    ));
    let mut raw = TcpStream::connect(server.addr).await.unwrap();
    raw.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    let mut sink = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(15), raw.read_to_end(&mut sink)).await;
    let mut raw = TcpStream::connect(server.addr).await.unwrap();
    let mut big = BytesMut::new();
    big.put_u32(u32::MAX);
    raw.write_all(&big).await.unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(15), raw.read_to_end(&mut sink)).await;
    let mut raw = TcpStream::connect(server.addr).await.unwrap();
    raw.write_all(&[0, 0, 0, 50, 1, 2]).await.unwrap();
    drop(raw);
    // The server still serves a good client.
    let mut client = connect(server.addr).await;
    client.send(hello(VERSION, Some("s3cret"))).await.unwrap();
    assert!(matches!(
        answer(&mut client).await,
        Some(ServerMessage::Welcome { .. })
    ));
    let mut terminal = server.tpcc.terminal(1, 4);
    let plan = terminal.next();
    let request = ClientMessage::Request {
        id: 7,
        txn_type: plan.txn_type as u16,
        input: postcard::to_stdvec(&plan.input).unwrap(),
    };
    client.send(protocol::encode(&request)).await.unwrap();
    assert!(matches!(
        answer(&mut client).await,
        Some(ServerMessage::Response { id: 7, .. })
    ));
    server.stop.send(true).unwrap();
    let summary = server.done.await.unwrap();
    assert_eq!(summary.committed + summary.expected_rollbacks, 1);
}
