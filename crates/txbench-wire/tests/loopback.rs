//! On loopback, against a server that answers each request after a fixed
//! time: the kernel's stamps of the request leaving and the answer arriving
//! are that time apart, however late the client reads the answer.

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use txbench_wire::{Kind, StampedStream};

const SERVICE: Duration = Duration::from_millis(5);
/// How late the client reads every other answer: long, so that the margins
/// below (half of it) are far beyond what a loaded machine adds.
const CLIENT_DELAY: Duration = Duration::from_millis(100);

/// A server on its own thread: reads 8-byte requests, answers each with its
/// 8 bytes after [`SERVICE`].
fn serve_after_a_fixed_time() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        s.set_nodelay(true).unwrap();
        let mut req = [0u8; 8];
        while s.read_exact(&mut req).is_ok() {
            std::thread::sleep(SERVICE);
            if s.write_all(&req).is_err() {
                return;
            }
        }
    });
    addr
}

#[tokio::test(flavor = "current_thread")]
async fn wire_time_is_the_servers_however_late_the_client_reads() {
    let addr = serve_after_a_fixed_time();
    let tcp = TcpStream::connect(addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    let mut stream = StampedStream::new(tcp).unwrap();
    let log = stream.log();
    let mut wires = Vec::new();
    for i in 0..20u64 {
        let sent = Instant::now();
        stream.write_all(&i.to_be_bytes()).await.unwrap();
        // Every other answer is read late: the client's own delay.
        if i % 2 == 1 {
            std::thread::sleep(CLIENT_DELAY);
        }
        let mut answer = [0u8; 8];
        stream.read_exact(&mut answer).await.unwrap();
        let app = sent.elapsed();
        let wire = log.lock().unwrap().exchange(8 * i + 7, 8 * i + 7);
        let wire = wire.unwrap_or_else(|| panic!("request {i}: no stamps"));
        assert_eq!(wire.kind, Kind::Software, "loopback has no card to stamp");
        wires.push((wire.time, app));
    }
    // The server's sleep is a floor; above it, a busy machine may delay the
    // server too, so medians judge the rest, with half the client's delay as
    // the margin: a wire time that took in the client's delay would be over
    // it, and one that lost the server's time would not leave the delay out.
    for (i, (wire, app)) in wires.iter().enumerate() {
        assert!(
            *wire >= SERVICE,
            "request {i}: wire {wire:?}, application {app:?}"
        );
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let wire = median(wires.iter().map(|w| w.0).collect());
    assert!(wire < SERVICE + CLIENT_DELAY / 2, "median wire {wire:?}");
    let late_reads = wires.iter().skip(1).step_by(2);
    let client_share = median(late_reads.map(|(w, a)| a.saturating_sub(*w)).collect());
    assert!(
        client_share >= CLIENT_DELAY / 2,
        "the late reads' {CLIENT_DELAY:?} left {client_share:?} outside the wire time"
    );
    assert_eq!(log.lock().unwrap().unmatched(), 0);
}
