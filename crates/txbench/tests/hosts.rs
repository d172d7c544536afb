//! Shards on separate network hosts, on one machine: a network namespace per
//! host (scripts/hosts.sh), the database host running a PostgreSQL of the
//! test's own behind a link of 1 ms ± 0.25 ms each way (a delaying proxy of
//! the test's own: this kernel has no netem), and three client hosts each
//! running one shard for one `--start-at`, one of them cut off for 2 s
//! mid-run. Their merge is exact and carries the cut shard's outage; a shard
//! started too late refuses; a shard whose clock runs ahead (libfaketime)
//! says so, and merge refuses it.
//!
//! Needs root, iproute2, Debian's postgresql-common and faketime; skipped
//! with the reason otherwise.

mod support;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, SystemTime};

use support::merged::{assert_exact, merge, summary};
use support::{check, server_url, text};
use txbench_test_support::delay_proxy::{DelayProxy, Link};
use txbench_test_support::pg_cluster::PgCluster;

/// The hosts' namespaces: `txbh-db`, `txbh-c0` ... (scripts/hosts.sh).
const PREFIX: &str = "txbh";
/// The database host's address, which the first host named gets.
const DB_HOST: &str = "10.213.0.1";
/// The cluster's port, on the database host's loopback.
const CLUSTER_PORT: u16 = 25431;
const SHARDS: u32 = 3;

/// Hosts made by scripts/hosts.sh, removed when the value goes.
struct Hosts;

impl Hosts {
    /// The database host (`db`) first, then `c0`, `c1` ...; `Err` with what
    /// `ip` said when namespaces cannot be made here.
    fn up(clients: u32) -> Result<Hosts, String> {
        let names: Vec<String> = std::iter::once("db".to_string())
            .chain((0..clients).map(|i| format!("c{i}")))
            .collect();
        let out = script().arg("up").args(&names).output().unwrap();
        if !out.status.success() {
            let _ = script().arg("down").output();
            return Err(text(&out));
        }
        Ok(Hosts)
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        let _ = script().arg("down").output();
    }
}

fn script() -> Command {
    let mut cmd = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/hosts.sh"
    ));
    cmd.env("HOSTS_PREFIX", PREFIX);
    cmd
}

/// The namespace of host `name`.
fn netns(name: &str) -> String {
    format!("{PREFIX}-{name}")
}

/// Why this machine cannot run the test, if it cannot.
fn cannot_run() -> Option<String> {
    server_url("TXBENCH_TEST_POSTGRES_URL")?;
    let uid = Command::new("id").arg("-u").output();
    if uid.map_or(true, |u| String::from_utf8_lossy(&u.stdout).trim() != "0") {
        return Some("not root: network namespaces need it".into());
    }
    if Command::new("ip").arg("-V").output().is_err() {
        return Some("no `ip` (Debian's iproute2)".into());
    }
    if !Path::new("/usr/bin/pg_createcluster").exists() {
        return Some("no pg_createcluster (Debian's postgresql-common)".into());
    }
    if Command::new("faketime").arg("--version").output().is_err() {
        return Some("no faketime (Debian's faketime)".into());
    }
    None
}

/// txbench run on host `host` by the command `via` (none: directly), in `dir`.
fn txbench_on(host: &str, via: &[&str], dir: &Path) -> Command {
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &netns(host)])
        .args(via)
        .arg(env!("CARGO_BIN_EXE_txbench"))
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// An RFC 3339 time `secs` from now.
fn start_in(secs: u64) -> String {
    humantime::format_rfc3339_millis(SystemTime::now() + Duration::from_secs(secs)).to_string()
}

/// Shards of one run on hosts `c0`, `c1` ..., each against the database
/// host over its link.
struct ShardSet<'a> {
    dir: &'a Path,
    shards: u32,
    start: String,
    /// Where they write, under `dir`.
    results: &'a str,
}

impl ShardSet<'_> {
    /// Start shard `index` on host `c{index}`, run by the command `via`
    /// (`faketime ...`; none: directly), with `extra` arguments.
    fn spawn(&self, index: u32, via: &[&str], extra: &[&str]) -> Child {
        let db = format!("postgres://postgres@{DB_HOST}:5432/t");
        let (shards, i) = (self.shards.to_string(), index.to_string());
        txbench_on(&format!("c{index}"), via, self.dir)
            .args(["tpcc", "run", "-q", "--db", &db, "--warehouses", "3"])
            .args([
                "--shards",
                &shards,
                "--shard-index",
                &i,
                "--start-at",
                &self.start,
            ])
            .args([
                "--warmup",
                "2s",
                "--duration",
                "10s",
                "--results",
                self.results,
            ])
            // Two terminals without waits: latency stays low, so that a
            // silence of seconds stands out, and every second has work due.
            .args(["--terminals", "2", "--wait", "none"])
            .args(extra)
            .spawn()
            .unwrap()
    }

    /// The results directory of each shard, in order.
    fn dirs(&self) -> Vec<PathBuf> {
        (0..self.shards)
            .map(|i| {
                let part = format!("-shard{i}of{}", self.shards);
                let found = std::fs::read_dir(self.dir.join(self.results))
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| p.file_name().unwrap().to_string_lossy().ends_with(&part));
                found.unwrap_or_else(|| panic!("no results of shard {i}"))
            })
            .collect()
    }
}

fn finished(child: Child) -> Output {
    child.wait_with_output().unwrap()
}

/// The database host, ready: hosts `db`, `c0`, `c1`, `c2`, a cluster of
/// the test's own on `db` with TPC-C's 3 warehouses, and the proxy that
/// delays every byte between the hosts and it; all removed when it goes.
struct Site {
    _proxy: DelayProxy,
    _cluster: PgCluster,
    _hosts: Hosts,
}

impl Site {
    /// `None` (with the reason printed) where this machine cannot host it.
    fn up(dir: &Path) -> Option<Site> {
        if let Some(why) = cannot_run() {
            eprintln!("skipping: {why}");
            return None;
        }
        let hosts = match Hosts::up(SHARDS) {
            Ok(h) => h,
            Err(why) => {
                eprintln!("skipping: network namespaces cannot be made here: {why}");
                return None;
            }
        };
        let cluster = PgCluster::start_in("txbench_hosts", CLUSTER_PORT, Some(&netns("db")));
        // Loaded on the database host itself, not over the slow link.
        let load = ["tpcc", "load", "--db", &cluster.url(), "--warehouses", "3"];
        let out = finished(txbench_on("db", &[], dir).args(load).spawn().unwrap());
        assert!(out.status.success(), "{}", text(&out));
        let link = Link {
            delay: Duration::from_millis(1),
            jitter: Duration::from_micros(250),
        };
        let listen: SocketAddr = format!("{DB_HOST}:5432").parse().unwrap();
        let target: SocketAddr = format!("127.0.0.1:{CLUSTER_PORT}").parse().unwrap();
        let proxy = DelayProxy::start(Some(&netns("db")), listen, target, link).unwrap();
        Some(Site {
            _proxy: proxy,
            _cluster: cluster,
            _hosts: hosts,
        })
    }
}

#[test]
fn shards_on_three_hosts_over_delayed_links_merge_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let Some(_site) = Site::up(dir) else {
        return;
    };
    let set = ShardSet {
        dir,
        shards: SHARDS,
        start: start_in(4),
        results: "results",
    };
    let cut = three_shards_one_cut_off(&set);
    merged_exactly_with_the_cut(dir, &set.dirs(), cut);
    // A shard ready after --start-tolerance (1 s) refuses to run: the three
    // started for a time now more than 10 s past.
    let late = ShardSet {
        results: "late",
        ..set
    };
    let out = finished(late.spawn(0, &[], &[]));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("shard 0 of 3 refused to run"),
        "{}",
        text(&out)
    );
    clocks_that_disagree_are_named_and_not_merged(dir);
}

/// Three shards on hosts `c0`..`c2` for one start, shard 1's host cut off
/// for 2 s 3 s into the window; the command that cut it.
fn three_shards_one_cut_off(set: &ShardSet) -> &'static str {
    let cut = "ip link set eth0 down; sleep 2; ip link set eth0 up";
    let running: Vec<Child> = (0..SHARDS)
        .map(|i| match i {
            1 => set.spawn(i, &[], &["--fault-at", "5s", "--fault-cmd", cut]),
            _ => set.spawn(i, &[], &[]),
        })
        .collect();
    for (i, child) in running.into_iter().enumerate() {
        let out = finished(child);
        // A shard whose checks failed (the cut one's outage) exits 1.
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "shard {i}: {}",
            text(&out)
        );
    }
    // Every shard read its clock against the server's; on one machine they
    // are one clock.
    for d in set.dirs() {
        support::assert_one_clock(&summary(&d));
    }
    cut
}

/// The merge of `shards` is exact, sets them side by side, and carries the
/// cut shard's fault and checks under its name.
fn merged_exactly_with_the_cut(dir: &Path, shards: &[PathBuf], cut: &str) {
    let cut_shard = summary(&shards[1]);
    let fault = &cut_shard["faults"][0];
    // No answer can cross a link that is down: the silence the cut shard
    // measured is at least the 2 s (a loaded machine only lengthens it).
    let unavailable = fault["impact"]["unavailable_s"].as_f64().unwrap();
    assert!(unavailable >= 2.0, "unavailable {unavailable} s");

    let out = merge(dir, shards, "all");
    let shown = text(&out);
    let merged = summary(&dir.join("all"));
    assert_exact(shards, &merged);
    assert!(
        shown.contains("the merged runs, each by its own figures"),
        "{shown}"
    );
    assert!(shown.contains("slowest: shard "), "{shown}");
    assert_eq!(merged["parts"].as_array().unwrap().len(), SHARDS as usize);
    let merged_fault = &merged["faults"][0];
    assert_eq!(merged_fault["command"], format!("shard 1 of 3: {cut}"));
    assert_eq!(merged_fault["impact"], fault["impact"]);
    let own = check(&cut_shard, "outages");
    assert_eq!(
        check(&merged, "shard 1 of 3: outages")["status"],
        own["status"]
    );
}

/// Two shards, the second on a host whose clock runs 3 s ahead (libfaketime):
/// it starts 3 s early though its own clock says on time, says that its
/// clock disagrees with the server's, and merge refuses the pair.
fn clocks_that_disagree_are_named_and_not_merged(dir: &Path) {
    let pair = ShardSet {
        dir,
        shards: 2,
        // Far enough ahead that the fast host, which sees it 3 s sooner, is
        // ready in time.
        start: start_in(8),
        results: "clocks",
    };
    let running = [
        pair.spawn(0, &[], &[]),
        pair.spawn(1, &["faketime", "-f", "+3s"], &[]),
    ];
    let outs = running.map(finished);
    for out in &outs {
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(out));
    }
    let warned = text(&outs[1]);
    assert!(
        warned.contains("s ahead of the database server's"),
        "{warned}"
    );
    let out = merge(dir, &pair.dirs(), "clocks-merged");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("their machines' clocks disagree"),
        "{}",
        text(&out)
    );
}
