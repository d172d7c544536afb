//! `--timestamps kernel` against a txbench server of known service time on
//! loopback: the time on the wire sits on the service time, idle or not,
//! while a CPU hog on the client's core inflates the latency the client
//! measures, and the verdict names the bias. Engines that cannot stamp
//! their sockets refuse the flag by name. (Linux: SO_TIMESTAMPING.)

#![cfg(target_os = "linux")]

mod support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use support::{PgDatabase, alone, check_status, only_result, server_url, txbench, txbench_output};
use txbench_remote::protocol::{self, ClientMessage, ServerMessage, Status};

/// The fixed server's time per transaction.
const SERVICE: Duration = Duration::from_millis(2);

fn read_frame(s: &mut TcpStream) -> Option<BytesMut> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).ok()?;
    let mut body = BytesMut::zeroed(u32::from_be_bytes(len) as usize);
    s.read_exact(&mut body).ok()?;
    Some(body)
}

fn framed(message: &ServerMessage) -> Vec<u8> {
    let body = protocol::encode(message);
    let mut frame = (body.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    frame
}

/// A txbench server for TATP (1,000 subscribers) that commits every
/// request exactly [`SERVICE`] after it arrived: a reader thread per
/// connection, and a responder that answers in arrival order (every
/// request takes the same time, so the first in is the first due).
fn fixed_time_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            std::thread::spawn(move || {
                conn.set_nodelay(true).unwrap();
                read_frame(&mut conn).expect("a hello");
                let welcome = ServerMessage::Welcome {
                    version: protocol::VERSION,
                    workload: "tatp".into(),
                    parameters: vec![
                        ("workload".into(), "tatp".into()),
                        ("subscribers".into(), "1000".into()),
                        ("engine".into(), "fixed".into()),
                        ("server_version".into(), "fixed 2 ms".into()),
                    ],
                };
                conn.write_all(&framed(&welcome)).unwrap();
                let mut out = conn.try_clone().unwrap();
                let (due, answers) = mpsc::channel::<(Instant, u64)>();
                std::thread::spawn(move || {
                    for (at, id) in answers {
                        std::thread::sleep(at.saturating_duration_since(Instant::now()));
                        let response = ServerMessage::Response {
                            id,
                            status: Status::Committed,
                            server_us: SERVICE.as_micros() as u64,
                            output: Vec::new(),
                        };
                        if out.write_all(&framed(&response)).is_err() {
                            return;
                        }
                    }
                });
                while let Some(frame) = read_frame(&mut conn) {
                    if let Ok(ClientMessage::Request { id, .. }) = protocol::decode(&frame) {
                        let _ = due.send((Instant::now() + SERVICE, id));
                    }
                }
            });
        }
    });
    format!("txbench://{addr}")
}

/// CPU 0 kept busy by two shell loops pinned to it (taskset execs the
/// shell, so each child is the loop itself), until dropped.
struct Hog(Vec<Child>);

impl Hog {
    fn start() -> Hog {
        let spin = || {
            Command::new("taskset")
                .args(["-c", "0", "sh", "-c", "while :; do :; done"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("taskset (util-linux)")
        };
        Hog(vec![spin(), spin()])
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// An open-loop TATP run on `url` with kernel timestamps, the client pinned
/// to CPU 0; its summary.json.
fn stamped_run(url: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("txbench");
    let status = Command::new("taskset")
        .args(["-c", "0"])
        .arg(&bin)
        .args(["tatp", "run", "--db", url, "--timestamps", "kernel"])
        .args(["--rate", "300", "--duration", "6s", "--warmup", "1s"])
        .args(["--results", "results", "-q"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    only_result(&dir.path().join("results"), "summary.json")
}

fn ms(v: &serde_json::Value, path: &[&str]) -> f64 {
    let mut v = v;
    for p in path {
        v = &v[*p];
    }
    v.as_f64().unwrap_or_else(|| panic!("{path:?}: {v}"))
}

/// The run's wire p50 is at least the service time and at most the latency's p50.
fn wire_p50_between_service_and_latency(run: &serde_json::Value, service_ms: f64, what: &str) {
    let wire_p50 = ms(&run["wire"], &["total_wire_ms", "p50"]);
    let latency_p50 = ms(run, &["total_latency_ms", "p50"]);
    assert!(
        service_ms <= wire_p50 && wire_p50 <= latency_p50,
        "{what}: wire p50 {wire_p50} ms for a {service_ms} ms service, latency p50 {latency_p50} ms"
    );
}

#[test]
fn wire_time_lies_between_the_service_time_and_the_latency_while_a_hog_inflates_it() {
    let _alone = alone();
    let url = fixed_time_server();
    let service_ms = SERVICE.as_secs_f64() * 1000.0;

    // The wire time's median is never below the service time (the server
    // sleeps that long after a request arrived, after it left the client)
    // nor above the latency's (each transaction's time on the wire lies
    // inside its latency). How close it sits to the service time is the
    // machine's as much as txbench's: this test's server shares the client's
    // machine, and a late wake-up of its threads is time on the wire too
    // (once 4.2 ms for the 2 ms service here); `bench/timestamps.sh`
    // measures it with the server on a core of its own.
    let idle = stamped_run(&url);
    let wire = &idle["wire"];
    assert_eq!(wire["clock"], "software", "{wire}");
    assert_eq!(wire["unstamped"], 0, "{wire}");
    assert!(wire["stamped"].as_u64().unwrap() > 1000, "{wire}");
    assert_eq!(idle["settings"]["timestamps"], "kernel");
    wire_p50_between_service_and_latency(&idle, service_ms, "idle");
    for t in idle["transactions"].as_array().unwrap() {
        let samples = t["wire_ms"]["samples"].as_u64().unwrap_or(0);
        assert_eq!(samples, t["latency_ms"]["samples"].as_u64().unwrap(), "{t}");
    }

    let hog = Hog::start();
    let busy = stamped_run(&url);
    drop(hog);
    let wire = &busy["wire"];
    wire_p50_between_service_and_latency(&busy, service_ms, "busy");
    let (latency_p99, client_p99) = (
        ms(&busy, &["total_latency_ms", "p99"]),
        ms(wire, &["client_p99_ms"]),
    );
    // The idle client's own share is not asserted: pinned to one core of a
    // shared virtual machine, its wake-ups alone can be late by a millisecond.
    assert!(
        client_p99 > 1.0,
        "the client's own share of p99 with the hog: {client_p99} ms (latency {latency_p99} ms)"
    );
    assert_eq!(check_status(&busy, "client bias"), "WARN");
    let verdict = busy["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("client bias (the client machine biases the latency: its own share is"),
        "{verdict}"
    );
}

#[test]
fn engines_whose_sockets_cannot_be_stamped_refuse_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for (url, says) in [
        ("sqlite::memory:", "SQLite is embedded"),
        ("mysql://root@127.0.0.1:3306/test", "mysql_async"),
        ("redis://127.0.0.1:6379", "redis crate"),
        ("sim:?service=fixed:1ms", "sends nothing over a wire"),
    ] {
        let out = txbench_output(
            dir.path(),
            &[
                "tatp",
                "run",
                "--db",
                url,
                "--timestamps",
                "kernel",
                "-d",
                "1s",
            ],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {err}");
        assert!(
            err.contains("--timestamps kernel: ") && err.contains(says),
            "{url}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{url}: {err}");
    }
    // Without the flag nothing changes: no wire section.
    let out = txbench(dir.path())
        .args([
            "tatp",
            "run",
            "--db",
            "sim:?service=fixed:1ms",
            "--subscribers",
            "1000",
        ])
        .args(["-d", "1s", "--warmup", "0s", "--results", "plain", "-q"])
        .assert()
        .success();
    drop(out);
    let s = only_result(&dir.path().join("plain"), "summary.json");
    assert!(s.get("wire").is_none(), "{}", s["wire"]);
}

/// On PostgreSQL every completed transaction has its round trips' time on
/// the wire, below its latency, pipelined and one statement per round trip;
/// the latter's extra round trips are counted on the wire. (Their time is
/// not compared: on a shared machine a busy second moves one run's median
/// past the other's, as a CI run saw, 0.093 ms pipelined, 0.071 statement.)
#[tokio::test(flavor = "multi_thread")]
async fn postgres_transactions_have_their_round_trips_on_the_wire() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "stamps").await;
    let dir = tempfile::tempdir().unwrap();
    txbench(dir.path())
        .args(["tatp", "load", "--db", &db.url, "--subscribers", "1000"])
        .assert()
        .success();
    let mut round_trips_each = Vec::new();
    for round_trips in ["pipelined", "statement"] {
        let results = format!("results-{round_trips}");
        txbench(dir.path())
            .args(["tatp", "run", "--db", &db.url, "--timestamps", "kernel"])
            .args([
                "--round-trips",
                round_trips,
                "-t",
                "2",
                "-d",
                "3s",
                "--warmup",
                "1s",
            ])
            .args(["--results", &results, "-q"])
            .assert()
            .success();
        let s = only_result(&dir.path().join(&results), "summary.json");
        let wire = &s["wire"];
        assert_eq!(wire["unstamped"], 0, "{round_trips}: {wire}");
        assert!(
            wire["stamped"].as_u64().unwrap() > 100,
            "{round_trips}: {wire}"
        );
        for t in s["transactions"].as_array().unwrap() {
            let (l, w) = (&t["latency_ms"], &t["wire_ms"]);
            assert_eq!(w["samples"], l["samples"], "{round_trips}: {t}");
            let (lp, wp) = (l["p50"].as_f64().unwrap(), w["p50"].as_f64().unwrap());
            assert!(
                wp > 0.0 && wp <= lp,
                "{round_trips} {}: wire {wp} ms, latency {lp} ms",
                t["name"]
            );
        }
        round_trips_each.push(wire["round_trips_per_transaction"].as_f64().unwrap());
    }
    // Pipelined, BEGIN goes with the first statement (2.05 each here, on
    // 2026-11-27); a round trip of its own for each statement, BEGIN and
    // COMMIT adds at least one to every transaction (3.07), whatever its type.
    let [pipelined, statement] = round_trips_each[..] else {
        unreachable!()
    };
    assert!(
        pipelined >= 1.0 && statement > pipelined + 0.5,
        "a round trip per statement: {round_trips_each:?}"
    );
    db.drop_now().await;
}
