//! A PostgreSQL cluster of a test's own, from Debian's postgresql-common
//! (`pg_createcluster` on its own port and data directory), never the shared
//! server: for tests that crash a server or put one on a host of its own.
//! Dropped (stopped first) when the value goes.

use std::process::Command;

use crate::command::run;

/// A running cluster with a database `t`, trusting local connections.
pub struct PgCluster {
    version: String,
    name: String,
    port: u16,
    /// What runs its commands on its host: `ip netns exec NS`, or nothing.
    on_host: Vec<String>,
}

impl PgCluster {
    /// Create and start cluster `name` on `port` on this host.
    pub fn start(name: &str, port: u16) -> PgCluster {
        Self::start_in(name, port, None)
    }

    /// Create cluster `name` and start it on `port` inside the network
    /// namespace `netns` (a host of scripts/hosts.sh, listening on its
    /// loopback), or on this host.
    pub fn start_in(name: &str, port: u16, netns: Option<&str>) -> PgCluster {
        Self::start_with(name, port, netns, &[])
    }

    /// Create cluster `name` with server settings `settings` (`guc=value`,
    /// as `pg_createcluster -o` takes them: `shared_preload_libraries=...`)
    /// and start it on `port`, inside `netns` or on this host.
    pub fn start_with(name: &str, port: u16, netns: Option<&str>, settings: &[&str]) -> PgCluster {
        let version = std::fs::read_dir("/etc/postgresql")
            .expect("Debian's postgresql-common: /etc/postgresql")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .max()
            .expect("a PostgreSQL version in /etc/postgresql");
        let on_host = netns.map_or(Vec::new(), |ns| {
            ["ip", "netns", "exec", ns].map(String::from).to_vec()
        });
        let cluster = PgCluster {
            version,
            name: name.into(),
            port,
            on_host,
        };
        // A cluster a killed test left behind goes first.
        cluster.drop_cluster();
        let port = port.to_string();
        let mut create = vec!["pg_createcluster", &cluster.version, name, "-p", &port];
        for setting in settings {
            create.extend(["-o", setting]);
        }
        run(&[&create[..], &["--", "--auth=trust"]].concat());
        cluster.ctl("start");
        let psql = ["psql", "-h", "127.0.0.1", "-p", &port, "-U", "postgres"];
        run(&cluster.on_its_host(&[&psql[..], &["-c", "CREATE DATABASE t"]].concat()));
        cluster
    }

    /// Its database `t`, as reached on its host.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/t", self.port)
    }

    /// Its server log (where `log_statement` writes), as Debian's
    /// postgresql-common places it.
    pub fn log(&self) -> std::path::PathBuf {
        format!(
            "/var/log/postgresql/postgresql-{}-{}.log",
            self.version, self.name
        )
        .into()
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The shell command line that does `action` (start, stop -m immediate,
    /// ...), on its host.
    pub fn ctl_command(&self, action: &str) -> String {
        let ctl = format!(
            "pg_ctlcluster --skip-systemctl-redirect {} {} {action}",
            self.version, self.name
        );
        [self.on_host.join(" "), ctl].join(" ").trim().to_string()
    }

    /// Do `action` now.
    pub fn ctl(&self, action: &str) {
        run(&["sh", "-c", &self.ctl_command(action)]);
    }

    /// `args` prefixed with what runs them on the cluster's host.
    pub fn on_its_host<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let prefix = self.on_host.iter().map(String::as_str);
        prefix.chain(args.iter().copied()).collect()
    }

    fn drop_cluster(&self) {
        let _ = Command::new("pg_dropcluster")
            .args(["--stop", &self.version, &self.name])
            .output();
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        self.drop_cluster();
    }
}
