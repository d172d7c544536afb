//! What a client puts on the wire, read byte by byte against docs/protocol.md,
//! and what it does with a server of another protocol version.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use txbench_core::Engine;
use txbench_remote::protocol::{self, ClientMessage, MAGIC, ServerMessage, VERSION};
use txbench_remote::{RemoteEngine, RemoteTarget};

/// A fake server's socket, and the client engine connecting to it (the token
/// in the URL, so that the environment's `TXBENCH_TOKEN` plays no part).
async fn client_and_socket(
    workload: Option<&'static str>,
) -> (tokio::task::JoinHandle<Result<(), String>>, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("txbench://{}?token=t0", listener.local_addr().unwrap());
    let engine = RemoteEngine::new(RemoteTarget::parse(&url).unwrap(), workload);
    let client =
        tokio::spawn(async move { engine.connect().await.map(drop).map_err(|e| e.to_string()) });
    let (socket, _) = listener.accept().await.unwrap();
    (client, socket)
}

/// One frame: the 4-byte big-endian length, then the body.
async fn read_frame(socket: &mut TcpStream) -> Vec<u8> {
    let len = socket.read_u32().await.unwrap();
    let mut body = vec![0; len as usize];
    socket.read_exact(&mut body).await.unwrap();
    body
}

#[tokio::test]
async fn a_client_hello_is_what_the_protocol_document_says() {
    let (client, mut socket) = client_and_socket(Some("tpcc")).await;
    let body = read_frame(&mut socket).await;
    let expected: Vec<u8> = [
        &[0x00][..],               // ClientMessage variant 0, Hello
        &[0x54, 0x58, 0x42, 0x4E], // magic "TXBN": 4 raw bytes, no length
        &[0x01],                   // version 1, a varint
        &[0x01, 0x04],             // workload: Some, a string of 4 bytes
        b"tpcc",
        &[0x01, 0x02], // token: Some, a string of 2 bytes
        b"t0",
    ]
    .concat();
    assert_eq!(body, expected);
    drop(socket);
    assert!(client.await.unwrap().is_err());
}

#[tokio::test]
async fn the_documents_example_hello_is_the_encoding() {
    let hello = ClientMessage::Hello {
        magic: MAGIC,
        version: VERSION,
        workload: Some("tpcc".into()),
        token: None,
    };
    assert_eq!(
        protocol::encode(&hello).as_ref(),
        [
            0x00, 0x54, 0x58, 0x42, 0x4E, 0x01, 0x01, 0x04, b't', b'p', b'c', b'c', 0x00
        ]
    );
}

#[tokio::test]
async fn a_server_of_another_protocol_version_is_refused_naming_both() {
    let (client, mut socket) = client_and_socket(None).await;
    read_frame(&mut socket).await;
    let welcome = protocol::encode(&ServerMessage::Welcome {
        version: VERSION + 1,
        workload: "tatp".into(),
        parameters: Vec::new(),
    });
    socket.write_u32(welcome.len() as u32).await.unwrap();
    socket.write_all(&welcome).await.unwrap();
    let err = client.await.unwrap().unwrap_err();
    assert!(
        err.contains(&format!("protocol version {}", VERSION + 1))
            && err.contains(&format!("speaks {VERSION}")),
        "{err}"
    );
}
