//! Watching a run: the OpenMetrics endpoint scraped while a run goes and
//! parsed as OpenMetrics, the progress line when stderr is piped, and the
//! report every run writes at its end.

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use openmetrics_parser::{MetricsExposition, OpenMetricsType, OpenMetricsValue};

mod support;
use support::{only_run, text, txbench_output};

/// Start a TATP run with `--metrics-listen` on a free port; the child and
/// the stderr lines it prints, as they come.
fn start_watched_run(dir: &std::path::Path, extra: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("txbench"))
        .current_dir(dir)
        .args([
            "tatp",
            "--db",
            "sqlite::memory:",
            "--subscribers",
            "1000",
            "--warmup",
            "1s",
            "--duration",
            "6s",
            "--metrics-listen",
            "127.0.0.1:0",
        ])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// The endpoint's address, from the line the run prints when it listens.
fn endpoint(lines: &mpsc::Receiver<String>) -> String {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .expect("the run printed where its metrics are");
        if let Some(rest) = line.strip_prefix("metrics: http://") {
            return rest.trim_end_matches("/metrics").to_string();
        }
    }
}

/// GET `path` from `addr`: the status line, the headers and the body.
fn get(addr: &str, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    (head.to_string(), body.to_string())
}

/// The sum of a counter family's samples whose labels include `label`.
fn counter_sum(
    exposition: &MetricsExposition<OpenMetricsType, OpenMetricsValue>,
    family: &str,
) -> f64 {
    let f = exposition
        .families
        .get(family)
        .unwrap_or_else(|| panic!("no family {family}"));
    f.iter_samples()
        .map(|s| match &s.value {
            OpenMetricsValue::Counter(c) => c.value.as_f64(),
            other => panic!("{family} is not a counter: {other:?}"),
        })
        .sum()
}

#[test]
fn metrics_are_served_as_openmetrics_while_the_run_goes() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, lines) = start_watched_run(dir.path(), &[]);
    let addr = endpoint(&lines);

    // Scrape every half second until the run has committed something (the
    // load of 1,000 subscribers and the warm-up come first).
    let deadline = Instant::now() + Duration::from_secs(60);
    let exposition = loop {
        let (head, body) = get(&addr, "/metrics");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(
            head.to_lowercase()
                .contains("content-type: application/openmetrics-text; version=1.0.0"),
            "{head}"
        );
        let exposition = openmetrics_parser::openmetrics::parse_openmetrics(&body)
            .unwrap_or_else(|e| panic!("not OpenMetrics ({e:?}):\n{body}"));
        if exposition.families.contains_key("txbench_committed")
            && counter_sum(&exposition, "txbench_committed") > 0.0
        {
            break exposition;
        }
        assert!(
            Instant::now() < deadline,
            "nothing committed in time:\n{body}"
        );
        std::thread::sleep(Duration::from_millis(500));
    };

    for family in [
        "txbench_rollbacks",
        "txbench_retries",
        "txbench_errors",
        "txbench_in_flight",
        "txbench_client_queue",
        "txbench_latency_seconds",
        "txbench_latency_p99_seconds",
        "txbench_headline",
        "txbench_phase",
    ] {
        assert!(exposition.families.contains_key(family), "no {family}");
    }
    let latency = &exposition.families["txbench_latency_seconds"];
    assert_eq!(latency.family_type, OpenMetricsType::Histogram);
    let committed = &exposition.families["txbench_committed"];
    let names = committed.get_label_names();
    for label in ["workload", "engine", "run", "shard", "type"] {
        assert!(names.iter().any(|n| n == label), "labels {names:?}");
    }
    let sample = committed.iter_samples().next().unwrap();
    let labels = sample.get_labelset().unwrap();
    assert_eq!(labels.get_label_value("workload"), Some("tatp"));
    assert_eq!(labels.get_label_value("engine"), Some("sqlite"));
    let headline = &exposition.families["txbench_headline"];
    assert!(
        headline
            .iter_samples()
            .any(|s| s.get_labelset().unwrap().get_label_value("name") == Some("MQTh")),
        "the headline of TATP is MQTh"
    );

    let (head, _) = get(&addr, "/other");
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_bad_listen_address_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench_output(
        dir.path(),
        &["tatp", "run", "--metrics-listen", "localhost:port"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("'localhost:port'"), "{}", text(&out));
}

#[test]
fn a_piped_progress_line_comes_every_period_with_the_headline() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench_output(
        dir.path(),
        &[
            "tatp",
            "--db",
            "sqlite::memory:",
            "--subscribers",
            "1000",
            "--warmup",
            "1s",
            "--duration",
            "4s",
            "--progress",
            "1s",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let measuring: Vec<&str> = stderr.lines().filter(|l| l.contains(" measure ")).collect();
    // A line a second of the 4 s window (the edges may fall either side).
    assert!(
        (3..=5).contains(&measuring.len()),
        "{} lines:\n{stderr}",
        measuring.len()
    );
    assert!(
        measuring.iter().all(|l| l.contains("MQTh ")),
        "the headline is TATP's:\n{stderr}"
    );
    assert!(
        !stderr.contains("warehouse"),
        "TATP's progress speaks of subscribers:\n{stderr}"
    );
}

#[test]
fn a_progress_period_under_a_second_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench_output(dir.path(), &["tpcc", "run", "--progress", "500ms"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("'500ms'"), "{}", text(&out));
}

#[test]
fn every_run_ends_with_its_report_unless_told_not_to() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "retwis",
            "--db",
            "sqlite::memory:",
            "--keys",
            "1000",
            "--warmup",
            "0s",
            "--duration",
            "1s",
            "-q",
        ];
        args.extend_from_slice(extra);
        let out = txbench_output(dir.path(), &args);
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let printed = run(&[]);
    let results = only_run(&dir.path().join("results"));
    let report = results.join("report.html");
    assert!(report.is_file(), "no report in {}", results.display());
    let named = std::path::Path::new("results")
        .join(results.file_name().unwrap())
        .join("report.html");
    assert!(
        printed.contains(&format!("report: {}", named.display())),
        "{printed}"
    );
    let page = std::fs::read_to_string(&report).unwrap();
    assert!(page.contains("<svg"), "the report has its charts");

    std::fs::remove_dir_all(dir.path().join("results")).unwrap();
    let printed = run(&["--no-report"]);
    let results = only_run(&dir.path().join("results"));
    assert!(!results.join("report.html").exists());
    assert!(!printed.contains("report:"), "{printed}");
}

/// The results directories left under `dir/results`.
fn results_left(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir.join("results"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[test]
fn a_run_stopped_before_its_start_leaves_no_results_directory() {
    let dir = tempfile::tempdir().unwrap();
    support::txbench_output(
        dir.path(),
        &[
            "tatp",
            "load",
            "--db",
            "sqlite:t.db",
            "--subscribers",
            "1000",
        ],
    );
    let at = humantime_in(Duration::from_secs(30));
    let child = Command::new(assert_cmd::cargo::cargo_bin("txbench"))
        .current_dir(dir.path())
        .args([
            "tatp",
            "run",
            "--db",
            "sqlite:t.db",
            "--start-at",
            &at,
            "-q",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The run writes its settings when it is ready, then waits for its start.
    support::wait_until("the run's readiness", Duration::from_secs(60), || {
        results_left(dir.path())
            .iter()
            .any(|d| d.join("config.toml").exists())
    });
    support::signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    assert!(
        results_left(dir.path()).is_empty(),
        "left behind: {:?}",
        support::entries_under(&dir.path().join("results"))
    );
}

/// An RFC 3339 time `ahead` from now.
fn humantime_in(ahead: Duration) -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now() + ahead).to_string()
}

#[test]
fn a_run_that_never_starts_leaves_no_results_directory() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 1: the run fails before it measures anything.
    let out = txbench_output(
        dir.path(),
        &[
            "tatp",
            "run",
            "--db",
            "postgres://postgres@127.0.0.1:1/none",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(results_left(dir.path()).is_empty());
}

#[test]
fn a_piped_load_shows_rows_rate_and_time_left_each_period() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench_output(
        dir.path(),
        &[
            "tatp",
            "load",
            "--db",
            "sqlite:t.db",
            "--subscribers",
            "300000",
            "--progress",
            "1s",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("loading "))
        .collect();
    assert!(!lines.is_empty(), "no load line in:\n{stderr}");
    for line in &lines {
        assert!(
            line.contains(" rows (") && line.contains(" rows/s  eta "),
            "{line}"
        );
        // The count never passes the total it is shown against.
        let share: f64 = line
            .split('(')
            .nth(1)
            .and_then(|s| s.split('%').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no share in {line}"));
        assert!(share <= 100.0, "{line}");
    }
}

#[test]
fn a_metrics_address_in_use_fails_the_run_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = txbench_output(
        dir.path(),
        &[
            "tatp",
            "--subscribers",
            "1000",
            "--metrics-listen",
            &addr,
            "-q",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("--metrics-listen {addr}")),
        "{}",
        text(&out)
    );
    assert!(results_left(dir.path()).is_empty());
}
