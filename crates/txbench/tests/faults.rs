//! Faults and bad input, each reproduced as a user met it: nothing corrupted,
//! nothing lost, nothing leaked, nothing hangs (docs/reliability.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod support;
use support::txbench;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("txbench")
}

#[test]
fn out_of_bounds_values_are_refused_naming_the_flag_and_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["tpcc", "run", "--terminals", "-1"],
            &["--terminals", "-1"],
        ),
        (
            &["tatp", "run", "--connections", "-5"],
            &["--connections", "-5"],
        ),
        (
            &["tpcc", "run", "--max-retries", "-2"],
            &["--max-retries", "-2"],
        ),
        (&["tpcc", "run", "--rate", "1e30/s"], &["1e30", "limit"]),
        (&["tpcc", "run", "--rate", "-3/s"], &["-3/s"]),
        (&["tpcc", "run", "--duration", "-5s"], &["-5s"]),
        (
            &["tpcc", "run", "--duration", "99999999999999s"],
            &["99999999999999s", "limit"],
        ),
        (
            &["tpcc", "run", "--warmup", "400days"],
            &["400days", "limit"],
        ),
        (
            &["tpcc", "run", "--start-at", "2999-01-01T00:00:00Z"],
            &["2999-01-01T00:00:00Z", "30days ahead"],
        ),
        (
            &["tpcc", "run", "--config", "/dev/zero"],
            &["/dev/zero", "1024 KiB"],
        ),
        (
            &["serve", "--workload", "tatp", "--token", ""],
            &["--token"],
        ),
    ];
    for (args, named) in cases {
        let out = txbench(dir.path())
            .args(*args)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        for n in *named {
            assert!(err.contains(n), "{args:?} should name {n}: {err}");
        }
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn failed_runs_and_sweeps_leave_no_empty_results_directory() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 1: the runs fail before measuring anything.
    for args in [
        &["tatp", "run", "--db", "txbench://127.0.0.1:1", "-q"][..],
        &[
            "sweep",
            "tatp",
            "--db",
            "txbench://127.0.0.1:1",
            "--rates",
            "100..200",
            "--step",
            "100",
            "--slo",
            "p99<=10ms",
        ][..],
    ] {
        let out = txbench(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let left = support::entries_under(&dir.path().join("results"));
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

#[test]
fn a_second_txbench_on_one_sqlite_file_is_refused_while_the_first_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench(dir.path())
        .args([
            "tatp",
            "load",
            "--db",
            "sqlite:t.db",
            "--subscribers",
            "1000",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut first = Command::new(bin())
        .current_dir(dir.path())
        .args(["tatp", "run", "--db", "sqlite:t.db", "--duration", "8s"])
        .args(["--warmup", "0s", "-q", "--no-results"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let second = txbench(dir.path())
        .args(["tatp", "run", "--db", "sqlite:t.db", "--duration", "1s"])
        .args(["--warmup", "0s", "-q", "--no-results"])
        .output()
        .unwrap();
    let err = stderr(&second);
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(
        err.contains("t.db") && err.contains("in use by another txbench"),
        "{err}"
    );
    assert!(first.wait().unwrap().success());
    // Once the first is done, the file is free again.
    let third = txbench(dir.path())
        .args(["tatp", "check", "--db", "sqlite:t.db"])
        .output()
        .unwrap();
    assert!(third.status.success(), "{}", stderr(&third));
}

/// Run `script` with `mnt` a tmpfs of `size` in a mount namespace of its own,
/// or `None` where this machine cannot (not root, no unshare).
fn on_small_tmpfs(mnt: &Path, size: &str, script: &str) -> Option<Output> {
    let probe = Command::new("unshare")
        .args(["-m", "true"])
        .stderr(Stdio::null())
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("skipping: this machine cannot make a mount namespace (unshare -m)");
        return None;
    }
    let script = format!(
        "mount -t tmpfs -o size={size} tmpfs '{}' && {script}",
        mnt.display()
    );
    Some(
        Command::new("unshare")
            .args(["-m", "sh", "-c", &script])
            .env("TXBENCH", bin())
            .output()
            .unwrap(),
    )
}

#[test]
fn a_full_disk_when_writing_results_loses_no_summary_and_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    // 64 KiB: room for the config and the first seconds of intervals, not for a
    // TATP run's intervals and summary.
    let Some(out) = on_small_tmpfs(
        &mnt,
        "64k",
        &format!(
            "\"$TXBENCH\" tatp run --db null: --rate 20000/s --duration 6s --warmup 1s -q \
             --results '{0}/res'; echo \"exit $?\" >&2; ls -R '{0}' >&2",
            mnt.display()
        ),
    ) else {
        return;
    };
    let (out_text, err) = (stdout(&out), stderr(&out));
    assert!(err.contains("exit 1"), "{err}");
    assert!(
        out_text.contains("MQTh") && out_text.contains("verdict"),
        "{out_text}"
    );
    assert!(err.contains("No space left"), "{err}");
    // Where the disk filled depends on how large this run's intervals were:
    // at the intervals or the summary, the summary printed above is named as
    // what holds the measurement; at the report, the page is not left behind.
    let (said, listing) = err.split_once("exit 1").unwrap_or((&err, ""));
    if said.contains("summary.json") || said.contains(".hlog") {
        assert!(said.contains("the summary printed above"), "{err}");
    } else {
        assert!(said.contains("report.html: No space left"), "{err}");
        assert!(!listing.contains("report.html"), "{err}");
    }
    // The listing (ls -R, on stderr) holds no half-written file.
    assert!(!err.contains(".partial"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn an_sqlite_load_on_a_full_disk_says_so_and_the_file_is_detected_or_named_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    let Some(out) = on_small_tmpfs(
        &mnt,
        "2m",
        &format!(
            "\"$TXBENCH\" tpcc load --db 'sqlite:{0}/t.db'; echo \"load exit $?\" >&2; \
             \"$TXBENCH\" tpcc check --db 'sqlite:{0}/t.db'; echo \"check exit $?\" >&2; \
             \"$TXBENCH\" tpcc run --db 'sqlite:{0}/t.db' --no-results -d 1s; \
             echo \"run exit $?\" >&2; \
             \"$TXBENCH\" tpcc load --db 'sqlite:{0}/u.db' 2>'{0}/err.txt'; \
             echo \"stderr on the full disk: exit $?\" >&2",
            mnt.display()
        ),
    ) else {
        return;
    };
    let err = stderr(&out);
    assert!(err.contains("load exit 1"), "{err}");
    assert!(err.contains("full"), "the load names the full disk: {err}");
    for verb in ["check", "run"] {
        assert!(err.contains(&format!("{verb} exit 1")), "{verb}: {err}");
    }
    // Every refusal says what to do: reload, or delete the damaged file.
    let refusals = err
        .lines()
        .filter(|l| l.starts_with("txbench:"))
        .skip(1)
        .collect::<Vec<_>>();
    assert_eq!(refusals.len(), 2, "{err}");
    for r in refusals {
        assert!(
            r.contains("did not finish") || r.contains("delete the file"),
            "{r}"
        );
    }
    assert!(!err.contains("panicked"), "{err}");
    // With nowhere to write its message, the failure keeps its exit code
    // (writing to stderr must not panic into exit 101).
    assert!(err.contains("stderr on the full disk: exit 1"), "{err}");
}

#[test]
fn a_killed_load_is_named_unfinished_until_load_drop_repairs_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut load = Command::new(bin())
        .current_dir(dir.path())
        .args(["tpcc", "load", "--db", "sqlite:t.db", "-w", "4"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    load.kill().unwrap();
    load.wait().unwrap();
    for args in [
        &["tpcc", "check", "--db", "sqlite:t.db"][..],
        &[
            "tpcc",
            "run",
            "--db",
            "sqlite:t.db",
            "-d",
            "1s",
            "--no-results",
        ][..],
        &["tpcc", "load", "--db", "sqlite:t.db", "-w", "1"][..],
    ] {
        let out = txbench(dir.path()).args(args).output().unwrap();
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?} went on: {}", stdout(&out));
        assert!(
            err.contains("did not finish") || err.contains("delete the file"),
            "{args:?}: {err}"
        );
        assert!(!stdout(&out).contains("PASS"), "{args:?}");
    }
    let out = txbench(dir.path())
        .args(["tpcc", "load", "--db", "sqlite:t.db", "-w", "1", "--drop"])
        .output()
        .unwrap();
    if stderr(&out).contains("delete the file") {
        // The kill tore a page (the load writes without a journal): the
        // message says what to do, and doing it works.
        std::fs::remove_file(dir.path().join("t.db")).unwrap();
        let again = txbench(dir.path())
            .args(["tpcc", "load", "--db", "sqlite:t.db", "-w", "1"])
            .output()
            .unwrap();
        assert!(again.status.success(), "{}", stderr(&again));
    } else {
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = txbench(dir.path())
        .args(["tpcc", "check", "--db", "sqlite:t.db"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_database_on_a_read_only_file_system_is_named_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("ro");
    std::fs::create_dir(&mnt).unwrap();
    let Some(out) = on_small_tmpfs(
        &mnt,
        "4m",
        &format!(
            "\"$TXBENCH\" tatp load --db 'sqlite:{0}/t.db' --subscribers 100 >/dev/null && \
             mount -o remount,ro '{0}' && \
             \"$TXBENCH\" tatp run --db 'sqlite:{0}/t.db' -d 1s --no-results; \
             echo \"exit $?\" >&2",
            mnt.display()
        ),
    ) else {
        return;
    };
    let err = stderr(&out);
    assert!(err.contains("exit 1"), "{err}");
    assert!(err.contains("read-only"), "{err}");
}

/// A short run on the null engine, its results directory.
fn null_run(dir: &Path) -> PathBuf {
    let out = txbench(dir)
        .args([
            "tatp", "run", "--db", "null:", "--rate", "2000/s", "-d", "2s",
        ])
        .args(["--warmup", "0s", "-q", "--results", "res"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::read_dir(dir.join("res"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn merge_and_report_refuse_a_run_twice_a_copy_a_newer_schema_and_a_damaged_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let run = null_run(dir.path());
    let copy = dir.path().join("copy");
    copy_dir(&run, &copy);
    for (i, pair) in [[&run, &run], [&run, &copy]].into_iter().enumerate() {
        let out = txbench(dir.path())
            .arg("merge")
            .args(pair)
            .args(["-o", &format!("merged{i}")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("same run"), "{}", stderr(&out));
    }

    let newer = dir.path().join("newer");
    copy_dir(&run, &newer);
    let summary = newer.join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["schema_version"] = 99.into();
    std::fs::write(&summary, json.to_string()).unwrap();
    let damaged = dir.path().join("damaged");
    copy_dir(&run, &damaged);
    let timeline = damaged.join("timeline.csv");
    let mut lines: Vec<String> = std::fs::read_to_string(&timeline)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert!(lines.len() > 2, "{lines:?}");
    lines[1] = "garbage,\u{1}\u{2},not a row".into();
    std::fs::write(&timeline, lines.join("\n") + "\n").unwrap();
    for (bad, named) in [(&newer, "schema_version 99"), (&damaged, "timeline.csv")] {
        let out = txbench(dir.path()).arg("report").arg(bad).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(named), "{}", stderr(&out));
    }
    let out = txbench(dir.path())
        .arg("report")
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A Redis server of the test's own on a free loopback port, its data in
/// `dir`, loading each key 100 µs slowly after a restart (so that it answers
/// LOADING for seconds); killed when dropped.
struct OwnRedis {
    child: std::process::Child,
    port: u16,
    dir: PathBuf,
}

impl OwnRedis {
    fn start(dir: &Path, port: u16) -> OwnRedis {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .args(["--key-load-delay", "100"])
            .args(["--loading-process-events-interval-bytes", "1024"])
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (Debian package redis-server) on the PATH");
        let redis = OwnRedis {
            child,
            port,
            dir: dir.to_owned(),
        };
        redis.wait_for(|answer| !answer.is_empty() && !answer.contains("refused"));
        redis
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn cli(&self, args: &[&str]) -> String {
        let out = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
            + String::from_utf8_lossy(&out.stderr).trim()
    }

    /// PING until `ready` holds for the answer; every answer seen, in order.
    fn wait_for(&self, ready: impl Fn(&str) -> bool) -> Vec<String> {
        let mut seen = Vec::new();
        for _ in 0..300 {
            let answer = self.cli(&["PING"]);
            let done = ready(&answer);
            seen.push(answer);
            if done {
                return seen;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis on {} never became ready: {seen:?}", self.port);
    }

    /// Stop without saving and start again: on the data saved last, or on
    /// nothing (the data gone).
    fn restart(&mut self, keep_data: bool) {
        self.cli(&["SHUTDOWN", "NOSAVE"]);
        self.child.wait().unwrap();
        if !keep_data {
            let _ = std::fs::remove_file(self.dir.join("dump.rdb"));
        }
        let dir = self.dir.clone();
        *self = OwnRedis::start(&dir, self.port);
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Redis of the test's own holding a Retwis load of `keys` keys.
fn redis_with_retwis(dir: &Path, keys: &str) -> OwnRedis {
    let redis = OwnRedis::start(dir, free_port());
    let load = txbench(dir)
        .args(["retwis", "load", "--db", &redis.url(), "--keys", keys])
        .output()
        .unwrap();
    assert!(load.status.success(), "{}", stderr(&load));
    redis
}

/// A 4-terminal Retwis run on `url` for `duration`, started in the
/// background, its results under `dir`/results.
fn retwis_run(dir: &Path, url: &str, duration: &str) -> std::process::Child {
    Command::new(bin())
        .current_dir(dir)
        .args(["retwis", "run", "--db", url, "--terminals", "4"])
        .args(["--duration", duration, "--warmup", "0s"])
        .args(["--results", "results", "-q"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_restarting_redis_costs_latency_not_a_flood_of_errors() {
    // Needs redis-server, which CI installs with the Redis service.
    if support::server_url("TXBENCH_TEST_REDIS_URL").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut redis = redis_with_retwis(dir.path(), "20000");
    assert_eq!(redis.cli(&["SAVE"]), "OK");
    let run = retwis_run(dir.path(), &redis.url(), "8s");
    std::thread::sleep(Duration::from_secs(2));
    redis.restart(true);
    // 20,000 keys at 100 µs each: seconds of LOADING before it serves again.
    let answers = redis.wait_for(|answer| answer == "PONG");
    assert!(
        answers.iter().any(|a| a.starts_with("LOADING")),
        "the restarted server was never seen loading: {answers:?}"
    );
    let out = run.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let summary = support::only_result(&dir.path().join("results"), "summary.json");
    // LOADING used to be an error of kind "other", failing at once, thousands
    // of times while the server loaded.
    let kinds = support::errors_by_kind(&summary);
    assert!(kinds.keys().all(|k| k == "connection"), "{kinds:?}");
    let errors: u64 = kinds.values().sum();
    assert!(
        errors <= 8,
        "{errors} errors for 4 sessions losing one connection each"
    );
    let longest_ms = support::longest_ms(&summary);
    assert!(
        longest_ms >= 1000.0,
        "the restart is in no transaction's latency: the longest took {longest_ms} ms"
    );
}

#[test]
fn a_summary_that_cannot_be_printed_is_said_and_kept_on_disk() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipping: no /dev/full");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        Command::new(bin())
            .current_dir(dir.path())
            .args(["tatp", "run", "--db", "null:", "--subscribers", "1000"])
            .args(["-d", "1s", "--warmup", "0s"])
            .args(extra)
            .stdout(full)
            .output()
            .unwrap()
    };
    // Saved: the error names where the summary is.
    let out = run(&["--results", "results"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("could not be printed"),
        "{}",
        stderr(&out)
    );
    let summary = support::only_result(&dir.path().join("results"), "summary.json");
    assert!(stderr(&out).contains("results/"), "{}", stderr(&out));
    assert_eq!(summary["workload"], "tatp");
    // Not saved: the error says the numbers are lost, rather than exit 0.
    let out = run(&["--no-results"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("lost"), "{}", stderr(&out));
    // Every other command prints through the same path: `report` on a full
    // stdout fails saying so, into a closed pipe it ends quietly; neither panics.
    let run_dir = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(bin())
        .arg("report")
        .arg(&run_dir)
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("could not be written"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    let mut closed = Command::new(bin())
        .arg("report")
        .arg(&run_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(closed.stdout.take());
    let out = closed.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn a_redis_restarted_empty_fails_the_run_on_its_data_errors() {
    if support::server_url("TXBENCH_TEST_REDIS_URL").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut redis = redis_with_retwis(dir.path(), "2000");
    let run = retwis_run(dir.path(), &redis.url(), "5s");
    std::thread::sleep(Duration::from_secs(2));
    redis.restart(false);
    let out = run.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = support::only_result(&dir.path().join("results"), "summary.json");
    // The rows the workload guarantees are gone: data errors, never numbers
    // of transactions that ran on nothing.
    let kinds = support::errors_by_kind(&summary);
    assert!(kinds.get("data").copied().unwrap_or(0) > 0, "{kinds:?}");
    let verdict = summary["verdict"].as_str().unwrap();
    assert!(verdict.starts_with("NOT SOUND"), "{verdict}");
}

#[test]
fn a_server_that_stops_answering_cannot_hang_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = support::serve_tatp(dir.path(), &[]);
    let run = Command::new(bin())
        .current_dir(dir.path())
        .args(["tatp", "run", "--db", &url, "--terminals", "4"])
        .args(["--duration", "4s", "--warmup", "0s", "--grace", "2s"])
        .args(["--results", "results", "-q"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // Stopped, not killed: its connections stay open and nothing answers, as
    // when the network to it is cut without a reset.
    let pid = server.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-STOP", &pid])
            .status()
            .unwrap()
            .success()
    );
    let out = run.wait_with_output().unwrap();
    let _ = Command::new("kill").args(["-CONT", &pid]).status();
    server.kill().unwrap();
    server.wait().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = support::only_result(&dir.path().join("results"), "summary.json");
    // Each terminal's transaction waited for an answer that never came: given
    // up at the end of the grace, with the time it waited as a lower bound.
    let given_up = support::type_sum(&summary, &["abandoned"]);
    assert!(given_up >= 1, "{}", summary["transactions"]);
    assert_eq!(
        support::check_status(&summary, "outages"),
        "FAIL",
        "{}",
        summary["checks"]
    );
}
