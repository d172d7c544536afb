//! The repository's scripts (scripts/), run by a test with names and ports
//! of its own: a PostgreSQL primary and standby ([`Replica`]), a Galera
//! cluster.

use std::process::{Command, Output};

/// One of the repository's scripts, with the environment that gives it
/// names and ports of the test's own.
pub struct Script {
    path: String,
    env: Vec<(&'static str, String)>,
}

impl Script {
    /// scripts/`name` with `env` set.
    pub fn new(name: &str, env: Vec<(&'static str, String)>) -> Script {
        Script {
            path: format!("{}/../../scripts/{name}", env!("CARGO_MANIFEST_DIR")),
            env,
        }
    }

    /// Run it with `args`.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(&self.path)
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap()
    }

    /// The command line that runs it with `args`, for `--fault-cmd`.
    pub fn command(&self, args: &str) -> String {
        let env: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{} {} {args}", env.join(" "), self.path)
    }
}

/// What a command printed, both streams.
fn printed(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A primary and a standby from `scripts/pg-replica.sh`, under a name and
/// on ports of the test's own, removed when it goes. The tests' servers
/// listen below 32768, outside the kernel's ephemeral range, where a
/// client's outgoing connection can hold the port first (54402 once was,
/// and the standby could not bind).
pub struct Replica {
    /// The script, with the pair's name and ports.
    pub script: Script,
    port: u16,
}

impl Replica {
    /// Start the pair `name`, the primary on `port` and the standby on the
    /// next, with pg-replica.sh's `mode` flags (`--async`).
    pub fn up(name: &str, port: u16, mode: &[&str]) -> Replica {
        let script = Script::new(
            "pg-replica.sh",
            vec![
                ("PG_REPLICA_NAME", name.to_string()),
                ("PG_REPLICA_PORT", port.to_string()),
            ],
        );
        script.run(&["down"]);
        let mut args = vec!["up"];
        args.extend_from_slice(mode);
        let out = script.run(&args);
        if !out.status.success() {
            // Half made: nothing of it stays behind the failure.
            script.run(&["down"]);
        }
        assert!(out.status.success(), "pg-replica.sh up: {}", printed(&out));
        Replica { script, port }
    }

    /// The multi-host URL that finds the primary.
    pub fn url(&self) -> String {
        String::from_utf8(self.script.run(&["status"]).stdout)
            .unwrap()
            .trim()
            .to_string()
    }

    /// The standby's own URL (database `test`), as it started.
    pub fn standby_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/test", self.port + 1)
    }

    /// The primary's own URL (database `test`), as it started.
    pub fn primary_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/test", self.port)
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.script.run(&["down"]);
    }
}
