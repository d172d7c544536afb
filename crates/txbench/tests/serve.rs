//! `txbench serve` and `--db txbench://` through the command line: a run against
//! the server passes `check` on the server's database, and a server killed
//! mid-run shows up as connection errors in a run that still ends with results.

use std::path::Path;
use std::process::{Command, Stdio};

mod support;
use support::{only_result, serve};

fn txbench(dir: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("txbench"));
    cmd.current_dir(dir);
    cmd
}

fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_run_through_the_server_passes_check_and_reports_server_time() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = serve(
        dir.path(),
        &[
            "--db",
            "sqlite:served.db",
            "--workload",
            "tpcc",
            "--token",
            "t0k",
        ],
    );
    // Without the token the server refuses, and the run says why.
    let out = txbench(dir.path())
        .args([
            "tpcc",
            "run",
            "--db",
            &url,
            "--duration",
            "1s",
            "--no-results",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("token"));
    let with_token = format!("{url}?token=t0k");
    let text = ok(txbench(dir.path()).args([
        "tpcc",
        "run",
        "--db",
        &with_token,
        "--duration",
        "3s",
        "--warmup",
        "1s",
        "-q",
        "--results",
        "res",
    ]));
    assert!(text.contains("tpmC"), "{text}");
    assert!(
        text.contains("\"statements\" is its own execution time"),
        "{text}"
    );
    let json = only_result(&dir.path().join("res"), "summary.json");
    assert_eq!(json["engine"], "txbench");
    assert!(
        json["server_version"]
            .as_str()
            .unwrap()
            .starts_with("txbench server")
    );
    assert_eq!(json["parameters"]["warehouses"], "1");
    for t in json["transactions"].as_array().unwrap() {
        assert!(t["committed"].as_u64().unwrap() > 0, "{t}");
        assert!(t["errors"].as_object().unwrap().is_empty(), "{t}");
        // The server's execution time is the statements' share of the latency.
        let server_ms = t["phases_ms"]["statements"].as_f64().unwrap();
        assert!(
            server_ms > 0.0 && server_ms < t["latency_ms"]["mean"].as_f64().unwrap(),
            "{t}"
        );
    }
    // SIGTERM: drain, close, exit 0.
    terminate(server.id());
    assert!(server.wait().unwrap().success());
    let check = ok(txbench(dir.path()).args(["tpcc", "check", "--db", "sqlite:served.db"]));
    assert_eq!(
        check.lines().filter(|l| l.starts_with("PASS")).count(),
        12,
        "{check}"
    );
}

#[test]
fn a_killed_server_is_reported_as_connection_errors_and_the_run_ends_with_results() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = serve(
        dir.path(),
        &[
            "--db",
            "sqlite::memory:",
            "--workload",
            "tatp",
            "--subscribers",
            "10000",
        ],
    );
    let client = txbench(dir.path())
        .args([
            "tatp",
            "run",
            "--db",
            &url,
            "--duration",
            "4s",
            "--warmup",
            "0s",
            "-q",
        ])
        .args(["--results", "res"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    server.kill().unwrap();
    let _ = server.wait();
    let out = client.wait_with_output().unwrap();
    assert!(out.status.success(), "the run ends cleanly");
    let json = only_result(&dir.path().join("res"), "summary.json");
    let committed = support::type_sum(&json, &["committed"]);
    let lost = support::type_sum(&json, &["errors", "connection"]);
    assert!(committed > 100, "{committed} committed before the kill");
    assert!(lost > 0, "the lost connections are counted: {json}");
}

/// SIGTERM, with the `kill` every Unix has.
fn terminate(pid: u32) {
    let status = Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success());
}
