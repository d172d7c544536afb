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
    assert_eq!(json["settings"]["scale"]["value"], 1);
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

/// `serve --workload-file` serves a file's workload: a client with the same
/// file runs it through the server and the file's invariant holds on the
/// server's database; a client with another file is refused by name.
#[test]
fn a_workload_file_is_served_to_clients_of_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = support::documented_example(dir.path());
    let (mut server, url) = serve(
        dir.path(),
        &[
            "--db",
            "sqlite:orders.db",
            "--workload-file",
            &file,
            "--scale",
            "20",
        ],
    );
    let text = ok(txbench(dir.path()).args([
        "custom",
        "run",
        "--file",
        &file,
        "--db",
        &url,
        "-d",
        "2s",
        "--warmup",
        "0s",
        "-t",
        "4",
        "-q",
        "--results",
        "res",
    ]));
    assert!(text.contains("committed txn/s"), "{text}");
    let json = only_result(&dir.path().join("res"), "summary.json");
    assert_eq!(json["engine"], "txbench");
    assert_eq!(json["workload"], "custom");
    assert_eq!(json["workload_title"], "Orders");
    for t in json["transactions"].as_array().unwrap() {
        assert!(t["committed"].as_u64().unwrap() > 0, "{t}");
        assert!(t["errors"].as_object().unwrap().is_empty(), "{t}");
    }
    // Another file (one more comment is enough) is refused before it runs.
    let other = dir.path().join("other.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&other, format!("# another file\n{text}")).unwrap();
    let out = txbench(dir.path())
        .args([
            "custom",
            "run",
            "--file",
            other.to_str().unwrap(),
            "--db",
            &url,
            "-d",
            "1s",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("serves another workload file"), "{err}");
    terminate(server.id());
    assert!(server.wait().unwrap().success());
    let check = ok(txbench(dir.path()).args([
        "custom",
        "check",
        "--file",
        &file,
        "--db",
        "sqlite:orders.db",
    ]));
    assert!(check.contains("PASS") && !check.contains("FAIL"), "{check}");
}

/// `serve --workload smallbank` serves the shipped file: a client naming it
/// by the same name runs it through the server, and one of another shipped
/// file is refused by name.
#[test]
fn a_shipped_workload_file_is_served_by_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = serve(
        dir.path(),
        &[
            "--db",
            "sqlite:bank.db",
            "--workload",
            "smallbank",
            "--scale",
            "1000",
        ],
    );
    let run = |name: &str| {
        txbench(dir.path())
            .args(["custom", "run", "--workload", name, "--db", &url])
            .args([
                "-d",
                "2s",
                "--warmup",
                "0s",
                "-t",
                "4",
                "-q",
                "--results",
                "res",
            ])
            .output()
            .unwrap()
    };
    let out = run("smallbank");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = only_result(&dir.path().join("res"), "summary.json");
    assert_eq!(json["engine"], "txbench");
    assert_eq!(json["workload_title"], "SmallBank");
    for t in json["transactions"].as_array().unwrap() {
        assert!(t["committed"].as_u64().unwrap() > 0, "{t}");
        assert!(t["errors"].as_object().unwrap().is_empty(), "{t}");
    }
    let out = run("sibench");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--workload sibench: the txbench server serves another"),
        "{err}"
    );
    terminate(server.id());
    assert!(server.wait().unwrap().success());
    let check = ok(txbench(dir.path()).args([
        "custom",
        "check",
        "--workload",
        "smallbank",
        "--db",
        "sqlite:bank.db",
    ]));
    assert!(check.contains("PASS") && !check.contains("FAIL"), "{check}");
}

#[test]
fn a_client_of_another_workload_is_refused_in_the_handshake() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = support::serve_tatp(dir.path(), &[]);
    let out = txbench(dir.path())
        .args(["tpcc", "run", "--db", &url, "-d", "1s", "--no-results"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The client names TPC-C in its Hello, and the server refuses it there.
    assert!(err.contains("refused") && err.contains("tatp"), "{err}");
    terminate(server.id());
    server.wait().unwrap();
}

#[test]
fn a_servers_tables_are_not_loaded_checked_or_dropped_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = support::serve_tatp(dir.path(), &[]);
    for verb in ["load", "check", "clean"] {
        let out = txbench(dir.path())
            .args(["tatp", verb, "--db", &url])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{verb}: {err}");
        assert!(
            err.contains(&format!(
                "runs whole transactions only: {verb} the database"
            )),
            "{verb}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // The server still serves its data: nothing was dropped or reloaded.
    let out = ok(txbench(dir.path()).args(["tatp", "run", "--db", &url, "-d", "1s", "-q"]));
    assert!(
        out.contains("subscribers 1,000") || out.contains("subscribers 1000"),
        "{out}"
    );
    // The all-in-one form runs on the server's data as it is: nothing to load.
    let out =
        ok(txbench(dir.path()).args(["tatp", "--db", &url, "-d", "1s", "-q", "--no-results"]));
    assert!(!out.contains("loaded"), "{out}");
    assert!(out.contains("TATP on txbench://"), "{out}");
    terminate(server.id());
    server.wait().unwrap();
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

/// Start `txbench serve` through `sh -c` (for a `ulimit` first), with its
/// stderr piped; the child, its URL, and a channel of its stderr lines.
fn serve_in_shell(
    dir: &Path,
    prefix: &str,
    listen: &str,
) -> (
    std::process::Child,
    String,
    std::sync::mpsc::Receiver<String>,
) {
    use std::io::BufRead;
    let script = format!(
        "{prefix} exec \"$TXBENCH\" serve --workload tatp --db sqlite::memory: \
         --subscribers 1000 --listen {listen}"
    );
    let mut child = Command::new("sh")
        .args(["-c", &script])
        .current_dir(dir)
        .env("TXBENCH", assert_cmd::cargo::cargo_bin("txbench"))
        .env_remove("TXBENCH_TOKEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let err = std::io::BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in err.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let url = support::served_url(&mut child);
    (child, url, rx)
}

#[test]
fn an_open_server_without_a_token_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, _url, stderr) = serve_in_shell(dir.path(), "", "0.0.0.0:0");
    let warning = stderr
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("a warning on stderr");
    assert!(
        warning.contains("without a token") && warning.contains("TXBENCH_TOKEN"),
        "{warning}"
    );
    server.kill().unwrap();
    server.wait().unwrap();
}

/// CPU time (user + system) of a process so far, from /proc (Linux).
fn cpu_secs(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command name in parentheses: fields 14 and 15 are utime, stime.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

#[test]
fn a_server_out_of_file_handles_waits_instead_of_spinning() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url, stderr) = serve_in_shell(dir.path(), "ulimit -n 64 &&", "127.0.0.1:0");
    let addr = url.trim_start_matches("txbench://").to_string();
    // More connections than the server may hold files: its accept fails.
    let held: Vec<_> = (0..100)
        .filter_map(|_| std::net::TcpStream::connect(&addr).ok())
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let before = cpu_secs(server.id());
    std::thread::sleep(std::time::Duration::from_secs(3));
    let used = cpu_secs(server.id()) - before;
    let said: Vec<String> = stderr.try_iter().collect();
    assert!(
        said.iter()
            .any(|l| l.contains("accepting a connection failed")),
        "{said:?}"
    );
    // Spinning on accept took ~75% of a core; waiting between tries, next to none.
    assert!(used < 0.6, "{used} s of CPU in 3 s");
    drop(held);
    server.kill().unwrap();
    server.wait().unwrap();
}
