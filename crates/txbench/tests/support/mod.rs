//! Helpers for tests against real database servers.

#![allow(dead_code)]

pub mod merged;

use std::io::BufRead;
use std::path::Path;

use mysql_async::prelude::Queryable;
use tokio_postgres::{Client, NoTls};

/// The txbench binary, run in `dir`.
pub fn txbench(dir: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("txbench").unwrap();
    cmd.current_dir(dir);
    cmd
}

/// The txbench binary run in `dir` with `args`, to its end.
pub fn txbench_output(dir: &Path, args: &[&str]) -> std::process::Output {
    txbench(dir).args(args).output().unwrap()
}

/// The txbench binary started in `dir` with `args`, its output piped.
pub fn spawn(dir: &Path, args: &[&str]) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("txbench"))
        .current_dir(dir)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Send `child` the signal `name` (`TERM`, `INT`, ...) with kill(1).
pub fn signal(child: &std::process::Child, name: &str) {
    let status = std::process::Command::new("kill")
        .args([format!("-{name}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{name} {}", child.id());
}

/// Wait until `ready` holds, looking every 50 ms; fail naming `what` if it
/// does not within `within`.
pub fn wait_until(what: &str, within: std::time::Duration, ready: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + within;
    while !ready() {
        assert!(std::time::Instant::now() < deadline, "{what} never came");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// What a command printed, stdout then stderr.
pub fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The complete example of docs/workload-file.md, written to `dir` as
/// `orders.toml`; its path.
pub fn documented_example(dir: &Path) -> String {
    let doc = include_str!("../../../../docs/workload-file.md");
    let start = doc.find("```toml\n").unwrap() + "```toml\n".len();
    let path = dir.join("orders.toml");
    std::fs::write(
        &path,
        &doc[start..start + doc[start..].find("```").unwrap()],
    )
    .unwrap();
    path.display().to_string()
}

/// A TPC-C database of one warehouse in an SQLite file in `dir`; its URL.
pub fn sqlite_loaded(dir: &Path) -> String {
    let url = format!("sqlite:{}", dir.join("t.db").display());
    let out = txbench_output(dir, &["tpcc", "load", "--db", &url, "--warehouses", "1"]);
    assert!(out.status.success(), "{}", text(&out));
    url
}

/// `txbench tpcc verify --json` of the run `run` against `url`: its exit
/// code, what it printed and its findings.
pub fn verify(dir: &Path, url: &str, run: &Path) -> (Option<i32>, String, serde_json::Value) {
    let json = dir.join("verify.json");
    let _ = std::fs::remove_file(&json);
    let out = txbench_output(
        dir,
        &[
            "tpcc",
            "verify",
            "--db",
            url,
            run.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    let found = std::fs::read_to_string(&json)
        .map(|j| serde_json::from_str(&j).unwrap())
        .unwrap_or(serde_json::Value::Null);
    (out.status.code(), text(&out), found)
}

/// The retried attempts a summary gives a cause for, all types.
pub fn retry_causes_sum(summary: &serde_json::Value) -> u64 {
    summary["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["retry_causes"].as_object())
        .flatten()
        .map(|(_, n)| n.as_u64().unwrap())
        .sum()
}

/// `txbench tpcc acid --db URL ARGS --json`: its exit code, what it printed
/// and its report.
pub fn acid(dir: &Path, url: &str, args: &[&str]) -> (Option<i32>, String, serde_json::Value) {
    let json = dir.join("acid.json");
    let _ = std::fs::remove_file(&json);
    let mut all = vec![
        "tpcc",
        "acid",
        "--db",
        url,
        "--json",
        json.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let out = txbench_output(dir, &all);
    let report = std::fs::read_to_string(&json)
        .map(|j| serde_json::from_str(&j).unwrap())
        .unwrap_or(serde_json::Value::Null);
    (out.status.code(), text(&out), report)
}

/// The status of each test of an acid report, by clause and the first word
/// of its name ("3.2.2.1 Payment").
pub fn acid_statuses(report: &serde_json::Value) -> Vec<(String, String)> {
    report["tests"]
        .as_array()
        .unwrap_or_else(|| panic!("no tests in {report}"))
        .iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap();
            let first = name.split(' ').next().unwrap();
            (
                format!("{} {first}", t["clause"].as_str().unwrap()),
                t["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Held by a test that times the machine (latency against theory, how soon a
/// command stops) so that the file's other tests do not run beside it under
/// `cargo test` (threads of one process): four commands at once on two cores
/// would time the machine's contention instead. Under cargo-nextest, which
/// runs each test in a process of its own, the `timing` and `servers` test
/// groups of `.config/nextest.toml` keep them apart instead.
pub fn alone() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A run's clock against its server's (`summary["clock"]`), where both
/// are this machine's: the offset is within what the reading can tell (a
/// millisecond more for the server's rounding).
pub fn assert_one_clock(summary: &serde_json::Value) {
    let clock = &summary["clock"];
    let offset = clock["offset_ms"].as_f64().expect("a clock offset");
    let within = clock["uncertainty_ms"].as_f64().unwrap();
    assert!(
        offset.abs() <= within + 1.0,
        "offset {offset} ms ± {within}"
    );
}

/// The directory of the only run (or sweep) written under `results`.
pub fn only_run(results: &Path) -> std::path::PathBuf {
    std::fs::read_dir(results)
        .unwrap_or_else(|e| panic!("reading {}: {e}", results.display()))
        .next()
        .expect("a results directory")
        .unwrap()
        .path()
}

/// The JSON file `name` of the only run (or sweep) written under `results`.
pub fn only_result(results: &Path, name: &str) -> serde_json::Value {
    let run = only_run(results);
    serde_json::from_str(&std::fs::read_to_string(run.join(name)).unwrap()).unwrap()
}

/// A count summed over a summary's transaction types: `path` leads from a type
/// to the count (`["committed"]`, `["errors", "connection"]`); a missing one is 0.
pub fn type_sum(summary: &serde_json::Value, path: &[&str]) -> u64 {
    summary["transactions"]
        .as_array()
        .expect("transactions")
        .iter()
        .map(|t| path.iter().fold(t, |v, k| &v[*k]).as_u64().unwrap_or(0))
        .sum()
}

/// Start `txbench serve` on a free loopback port; returns it and its URL.
pub fn serve(dir: &Path, args: &[&str]) -> (std::process::Child, String) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("txbench"))
        .current_dir(dir)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap();
    let url = served_url(&mut child);
    (child, url)
}

/// A TATP server of 1,000 subscribers in memory (see [`serve`]), with `extra` flags.
pub fn serve_tatp(dir: &Path, extra: &[&str]) -> (std::process::Child, String) {
    let mut args = vec![
        "--workload",
        "tatp",
        "--db",
        "sqlite::memory:",
        "--subscribers",
        "1000",
    ];
    args.extend_from_slice(extra);
    serve(dir, &args)
}

/// The check `name` in a summary.
pub fn check<'a>(summary: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    summary["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {}", summary["checks"]))
}

/// The status of the check `name` in a summary.
pub fn check_status(summary: &serde_json::Value, name: &str) -> String {
    check(summary, name)["status"].as_str().unwrap().to_string()
}

/// The rows (seconds) the timeline of the one run under `results` has so
/// far: 0 before the run has written one.
pub fn timeline_rows(results: &Path) -> usize {
    std::fs::read_dir(results)
        .ok()
        .and_then(|mut d| d.next())
        .and_then(|e| std::fs::read_to_string(e.ok()?.path().join("timeline.csv")).ok())
        .map_or(0, |t| t.lines().count().saturating_sub(1))
}

/// A summary's failed transactions by error kind, all types together.
pub fn errors_by_kind(summary: &serde_json::Value) -> std::collections::BTreeMap<String, u64> {
    let mut kinds = std::collections::BTreeMap::new();
    for t in summary["transactions"].as_array().unwrap() {
        for (kind, n) in t["errors"].as_object().unwrap() {
            *kinds.entry(kind.clone()).or_default() += n.as_u64().unwrap();
        }
    }
    kinds
}

/// A fault's impact: the rate of each second ending more than `from_s`
/// after the fault (transactions a second).
/// A last tick shorter than half a second is left out: it says little of
/// a rate (one of 0.25 s caught in a 650 ms stall of a loaded machine read
/// as "nothing committed").
pub fn rates_after(impact: &serde_json::Value, from_s: f64) -> Vec<f64> {
    let seconds = impact["seconds"].as_array().expect("the fault's seconds");
    let end = |s: &serde_json::Value| s["end_s"].as_f64().unwrap();
    let short_last = match seconds.as_slice() {
        [.., before, last] => end(last) - end(before) < 0.5,
        _ => false,
    };
    let whole = &seconds[..seconds.len() - usize::from(short_last)];
    whole
        .iter()
        .filter(|s| end(s) > from_s)
        .map(|s| s["per_s"].as_f64().unwrap())
        .collect()
}

/// A fault's impact: the rate of each second ending more than a second after
/// the first answer since the fault (none if nothing answered). Tests hold
/// that the run went on there; how soon it came back to its rate before is
/// the fault's measurement, not a test's business: on a shared machine the
/// second before can be a lucky one (a CI run saw 796/s there, then 311-679/s).
pub fn rates_after_first_answer(impact: &serde_json::Value) -> Vec<f64> {
    impact["first_answer_s"]
        .as_f64()
        .map(|first| rates_after(impact, first + 1.0))
        .unwrap_or_default()
}

/// The longest latency of any transaction of a summary (ms).
pub fn longest_ms(summary: &serde_json::Value) -> f64 {
    summary["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["latency_ms"]["max"].as_f64().unwrap())
        .fold(0.0, f64::max)
}

/// Every file and directory under `dir`, recursively.
pub fn entries_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(entries_under(&path));
        }
        out.push(path);
    }
    out
}

/// The `txbench://` address a starting `txbench serve` prints on its (piped)
/// stdout; the rest of its output is read and dropped, so the server never
/// blocks on a full pipe.
pub fn served_url(child: &mut std::process::Child) -> String {
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(at) = line.find("txbench://") {
            break line[at..].split_whitespace().next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    url
}

/// The URL `var` names, or `None` (the test skips with a notice), which
/// `TXBENCH_REQUIRE_SERVICES=1` makes a failure.
pub fn server_url(var: &str) -> Option<String> {
    txbench_test_support::service::from_env(var)
}

/// A database created for one test and dropped when it ends.
pub struct PgDatabase {
    admin: Client,
    name: String,
    /// The URL of the new database.
    pub url: String,
}

/// A client of the PostgreSQL server at `url`.
pub async fn pg_client(url: &str) -> Client {
    connect(url).await
}

async fn connect(url: &str) -> Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .unwrap_or_else(|e| panic!("connecting to {url}: {e}"));
    tokio::spawn(connection);
    client
}

impl PgDatabase {
    /// Create `txbench_<tag>_<pid>` on the server of `base`.
    pub async fn create(base: &str, tag: &str) -> PgDatabase {
        let admin = connect(base).await;
        let name = format!("txbench_{tag}_{}", std::process::id());
        // Two calls: DROP DATABASE may not share an implicit transaction.
        admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .await
            .unwrap();
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
        let (prefix, query) = base
            .split_once('?')
            .map_or((base, None), |(p, q)| (p, Some(q)));
        let root = prefix.rsplit_once('/').map_or(prefix, |(r, _)| r);
        let url = match query {
            Some(q) => format!("{root}/{name}?{q}"),
            None => format!("{root}/{name}?sslmode=disable"),
        };
        PgDatabase { admin, name, url }
    }

    /// The admin connection (to the base database).
    pub fn admin(&self) -> &Client {
        &self.admin
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Drop the database.
    pub async fn drop_now(self) {
        self.admin
            .batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .await
            .unwrap();
    }
}

/// A database of its own on the server of the base URL, dropped at the end.
pub struct MyDatabase {
    /// The admin connection (to the base database).
    pub admin: mysql_async::Conn,
    /// The database's name.
    pub name: String,
    /// The URL of the new database.
    pub url: String,
}

impl MyDatabase {
    /// Create `txbench_<tag>_<pid>` on the server of `base`.
    pub async fn create(base: &str, tag: &str) -> MyDatabase {
        let mut admin = mysql_async::Conn::from_url(base)
            .await
            .unwrap_or_else(|e| panic!("connecting to {base}: {e}"));
        let name = format!("txbench_{tag}_{}", std::process::id());
        admin
            .query_drop(format!("DROP DATABASE IF EXISTS {name}"))
            .await
            .unwrap();
        admin
            .query_drop(format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
        let root = base.rsplit_once('/').map_or(base, |(r, _)| r);
        MyDatabase {
            admin,
            url: format!("{root}/{name}"),
            name,
        }
    }

    /// Drop the database.
    pub async fn drop_now(mut self) {
        self.admin
            .query_drop(format!("DROP DATABASE IF EXISTS {}", self.name))
            .await
            .unwrap();
    }
}

/// A Redis Cluster of the test's own (three primaries on its own ports, from
/// `scripts/redis-cluster.sh`), stopped and removed when dropped.
pub struct RedisCluster {
    ports: String,
    dir: tempfile::TempDir,
}

impl RedisCluster {
    /// Start one on `ports`; `None` (the test skipped) where redis-server is
    /// not installed, unless `TXBENCH_REQUIRE_SERVICES=1`, which fails.
    pub fn up(ports: [u16; 3]) -> Option<RedisCluster> {
        let installed = std::process::Command::new("redis-server")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !installed {
            if std::env::var("TXBENCH_REQUIRE_SERVICES").as_deref() == Ok("1") {
                panic!("redis-server is not installed and TXBENCH_REQUIRE_SERVICES=1");
            }
            eprintln!("skipping: install redis-server (Debian package) to run this test");
            return None;
        }
        let ports: Vec<String> = ports.iter().map(u16::to_string).collect();
        let cluster = RedisCluster {
            ports: ports.join(" "),
            dir: tempfile::tempdir().unwrap(),
        };
        let out = cluster.script("up");
        assert!(out.status.success(), "{}", text(&out));
        Some(cluster)
    }

    /// Its URL: every node.
    pub fn url(&self) -> String {
        let nodes: Vec<String> = (self.ports.split(' '))
            .map(|p| format!("127.0.0.1:{p}"))
            .collect();
        format!("redis-cluster://{}", nodes.join(","))
    }

    fn script(&self, verb: &str) -> std::process::Output {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/redis-cluster.sh");
        std::process::Command::new(script)
            .arg(verb)
            .env("REDIS_CLUSTER_PORTS", &self.ports)
            .env("REDIS_CLUSTER_DIR", self.dir.path().join("nodes"))
            .output()
            .unwrap()
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        let _ = self.script("down");
    }
}

/// The txbench binary as a plain command.
pub fn txbench_command() -> std::process::Command {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("txbench"))
}

/// Run `cmd`, which must succeed; its standard output.
pub fn run_ok(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{cmd:?} failed: {stderr}\n{stdout}");
    stdout
}

/// `txbench tpcc check` passes all twelve conditions on `url`.
pub fn assert_tpcc_check_passes(url: &str) {
    let out = run_ok(txbench_command().args(["tpcc", "check", "--db", url]));
    assert_eq!(
        out.lines().filter(|l| l.starts_with("PASS")).count(),
        12,
        "{out}"
    );
}

/// The `summary.json` of the one run under `results_parent/results`.
pub fn summary_json(results_parent: &Path) -> serde_json::Value {
    only_result(&results_parent.join("results"), "summary.json")
}

/// A command's standard error, as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A command's standard output, as text.
pub fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `txbench tpcc load --db DB` in `dir`, which must succeed.
pub fn load(dir: &Path, db: &str) {
    let out = txbench(dir)
        .args(["tpcc", "load", "--db", db])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The results directories under `dir`, in name order.
pub fn results_dirs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs
}
