//! An etcd cluster of a test's own, from `scripts/etcd-cluster.sh`: its own
//! directory and ports, removed when the value goes. The server binary is
//! the one `TXBENCH_TEST_ETCD` names (`.ci/run` installs Debian's
//! etcd-server and sets it); without it the test skips with a notice, or
//! fails under `TXBENCH_REQUIRE_SERVICES=1`. Shared by the engine's tests
//! and the command's (crates/txbench/tests/etcd.rs), which use different parts.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::service;

/// A running cluster.
pub struct EtcdCluster {
    dir: tempfile::TempDir,
    ports: Vec<u16>,
    etcd: String,
}

impl EtcdCluster {
    /// Start members listening for clients on `ports` (their peers on the
    /// next port each); `None` when no etcd binary is named.
    pub fn up(ports: &[u16]) -> Option<EtcdCluster> {
        let etcd = etcd_binary()?;
        let cluster = EtcdCluster {
            dir: tempfile::tempdir().unwrap(),
            ports: ports.to_vec(),
            etcd,
        };
        let out = cluster.script(&["up"]);
        assert!(out.status.success(), "etcd-cluster.sh up: {}", text(&out));
        Some(cluster)
    }

    /// The `etcd://` URL of every member.
    pub fn url(&self) -> String {
        let hosts: Vec<String> = self
            .ports
            .iter()
            .map(|p| format!("127.0.0.1:{p}"))
            .collect();
        format!("etcd://{}", hosts.join(","))
    }

    /// The command line that kills the leader, for `--fault-cmd`.
    pub fn kill_leader_command(&self) -> String {
        let env: Vec<String> = self
            .env()
            .iter()
            .map(|(k, v)| format!("{k}='{v}'"))
            .collect();
        format!("{} {} kill-leader", env.join(" "), script_path().display())
    }

    /// Kill the leader now (SIGKILL); its endpoint.
    pub fn kill_leader(&self) -> String {
        let out = self.script(&["kill-leader"]);
        assert!(out.status.success(), "kill-leader: {}", text(&out));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    /// The endpoints of the members running.
    pub fn running(&self) -> Vec<String> {
        let out = self.script(&["status"]);
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// How many keys the cluster holds, through etcd's JSON gateway.
    pub fn keys(&self) -> u64 {
        // The whole key space: from "\0" to "\0" (base64 "AA==").
        let range = r#"{"key": "AA==", "range_end": "AA==", "count_only": true}"#;
        let answer = self.curl("v3/kv/range", &["-X", "POST", "-d", range]);
        let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
        // The gateway leaves out a count of 0, and writes 64-bit integers as strings.
        answer["count"].as_str().map_or(0, |c| c.parse().unwrap())
    }

    /// How many `method` requests of etcd's KV service (`Range`, `Txn`,
    /// `Put`) the first member has been sent, from its metrics.
    pub fn requests(&self, method: &str) -> u64 {
        let wanted = format!("grpc_method=\"{method}\",grpc_service=\"etcdserverpb.KV\"");
        self.curl("metrics", &[])
            .lines()
            .filter(|l| l.starts_with("grpc_server_started_total{") && l.contains(&wanted))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as u64
    }

    /// The body of `path` on the first member's client port, with curl's
    /// `args`.
    fn curl(&self, path: &str, args: &[&str]) -> String {
        let out = Command::new("curl")
            .args(["-sf", "-m", "5"])
            .args(args)
            .arg(format!("http://127.0.0.1:{}/{path}", self.ports[0]))
            .output()
            .unwrap();
        assert!(out.status.success(), "curl: {}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        let ports: Vec<String> = self.ports.iter().map(u16::to_string).collect();
        vec![
            (
                "ETCD_DIR",
                self.dir.path().join("cluster").display().to_string(),
            ),
            ("ETCD_PORTS", ports.join(" ")),
            ("ETCD", self.etcd.clone()),
        ]
    }

    fn script(&self, args: &[&str]) -> Output {
        Command::new(script_path())
            .args(args)
            .envs(self.env())
            .output()
            .unwrap()
    }
}

impl Drop for EtcdCluster {
    fn drop(&mut self) {
        self.script(&["down"]);
    }
}

/// The etcd binary `TXBENCH_TEST_ETCD` names; `None` (the test skips) when
/// it names none, which `TXBENCH_REQUIRE_SERVICES=1` makes a failure.
pub fn etcd_binary() -> Option<String> {
    service::from_env("TXBENCH_TEST_ETCD")
}

fn script_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/etcd-cluster.sh")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
