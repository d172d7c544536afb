//! Crashes of a real server, injected on a schedule by the run itself
//! (`--fault-at`/`--fault-cmd`, `--recover-at`/`--recover-cmd`), and the
//! acknowledged-work log held against what survived (docs/durability.md).
//!
//! The server is a PostgreSQL cluster of the test's own (`pg_createcluster`
//! on its own port and data directory, removed at the end), never the shared
//! one. Runs where the shared PostgreSQL's URL is set (CI); Debian's
//! postgresql-common tools must be there.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::server_url;

/// A PostgreSQL cluster of the test's own, dropped (stopped first) when it goes.
struct OwnCluster {
    version: String,
    name: String,
    port: u16,
}

impl OwnCluster {
    /// Create and start cluster `name` on `port`, trusting local connections,
    /// with a database `t`.
    fn start(name: &str, port: u16) -> OwnCluster {
        let version = std::fs::read_dir("/etc/postgresql")
            .expect("Debian's postgresql-common: /etc/postgresql")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .max()
            .expect("a PostgreSQL version in /etc/postgresql");
        let cluster = OwnCluster {
            version,
            name: name.into(),
            port,
        };
        // A cluster a killed test left behind goes first.
        cluster.drop_cluster();
        let port = port.to_string();
        run(&[
            "pg_createcluster",
            &cluster.version,
            name,
            "-p",
            &port,
            "--",
            "--auth=trust",
        ]);
        cluster.ctl("start");
        run(&[
            "psql",
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            "postgres",
            "-c",
            "CREATE DATABASE t",
        ]);
        cluster
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/t", self.port)
    }

    /// The command line that does `action` (start, stop -m immediate, ...).
    fn ctl_command(&self, action: &str) -> String {
        format!(
            "pg_ctlcluster --skip-systemctl-redirect {} {} {action}",
            self.version, self.name
        )
    }

    fn ctl(&self, action: &str) {
        run(&["sh", "-c", &self.ctl_command(action)]);
    }

    fn drop_cluster(&self) {
        let _ = Command::new("pg_dropcluster")
            .args(["--stop", &self.version, &self.name])
            .output();
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        self.drop_cluster();
    }
}

fn run(args: &[&str]) -> Output {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn txbench(dir: &Path, args: &[&str]) -> Output {
    support::txbench(dir).args(args).output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn postgres_killed_mid_run_loses_no_acknowledged_transaction() {
    if server_url("TXBENCH_TEST_POSTGRES_URL").is_none() {
        return;
    }
    let cluster = OwnCluster::start("txbench_crash", 54391);
    let url = cluster.url();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let out = txbench(dir, &["tpcc", "load", "--db", &url, "--warehouses", "1"]);
    assert!(out.status.success(), "{}", text(&out));

    // Killed (no shutdown, no checkpoint) 3 s into an 8 s run, started again 1 s later.
    let kill = cluster.ctl_command("stop -m immediate");
    let start = cluster.ctl_command("start");
    let out = txbench(
        dir,
        &[
            "tpcc",
            "run",
            "--db",
            &url,
            "-d",
            "8s",
            "--warmup",
            "1s",
            "-t",
            "4",
            "-q",
            "--ack-log",
            "--fault-at",
            "3s",
            "--fault-cmd",
            &kill,
            "--recover-at",
            "4s",
            "--recover-cmd",
            &start,
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let results = support::only_run(&dir.join("results"));
    let summary = support::only_result(&dir.join("results"), "summary.json");
    let faults = summary["faults"].as_array().expect("faults in the summary");
    assert_eq!(faults.len(), 2, "{faults:?}");
    let (fault, recover) = (&faults[0], &faults[1]);
    assert_eq!(fault["kind"], "fault");
    assert_eq!(fault["exit_code"], 0, "{fault}");
    assert_eq!(recover["kind"], "recover");
    assert_eq!(recover["exit_code"], 0, "{recover}");
    let impact = &fault["impact"];
    let unavailable = impact["unavailable_s"].as_f64().expect("an outage");
    assert!(
        unavailable > 0.5 && unavailable < 6.0,
        "down from 3 s to at least 4 s: {impact}"
    );
    assert!(
        impact["first_answer_s"].as_f64().unwrap() >= 1.0,
        "{impact}"
    );
    assert!(impact["reconnections"].as_u64().unwrap() >= 1, "{impact}");
    assert!(
        impact["errors"]["connection"].as_u64().unwrap() >= 1,
        "{impact}"
    );
    assert!(
        impact["recovered_90_s"].as_f64().is_some(),
        "the run recovered within its 5 s after the restart: {impact}"
    );

    let json = dir.join("verify.json");
    let out = txbench(
        dir,
        &[
            "tpcc",
            "verify",
            "--db",
            &url,
            results.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let found: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let new_order = &found["types"][0];
    assert_eq!(new_order["key"], "new_order");
    assert_eq!(new_order["lost"], 0, "{found}");
    assert!(new_order["durable"].as_u64().unwrap() > 100, "{found}");
    // Each transaction in flight at the kill is in the log, classified.
    let log = std::fs::read_to_string(results.join("acks.csv")).unwrap();
    let in_doubt = log.lines().filter(|l| l.contains(",doubt,")).count() as u64;
    let classified: u64 = found["types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["in_doubt_present"].as_u64().unwrap() + t["in_doubt_absent"].as_u64().unwrap())
        .sum();
    assert_eq!(classified, in_doubt, "{found}");
    drop(cluster);
}
