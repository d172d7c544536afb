//! Results directories read back: merge of parallel runs, compare, and the
//! HTML report (rendered in headless Chromium).

use std::path::Path;

mod support;
use support::{results_dirs, stderr, stdout, txbench};

/// Two open-loop runs on the null engine at the same time, as two client
/// machines would make them.
fn two_parallel_runs(dir: &Path) {
    let start = || {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("txbench"))
            .current_dir(dir)
            .args([
                "tpcc", "run", "--db", "null:", "-w", "2", "--rate", "4000/s",
            ])
            .args([
                "--duration",
                "4s",
                "--warmup",
                "1s",
                "-q",
                "--results",
                "res",
            ])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (start(), start());
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
}

/// `compare` of `runs` in `dir`, which must succeed: what it printed and the
/// JSON it wrote.
fn compare(dir: &Path, runs: &[std::path::PathBuf]) -> (String, serde_json::Value) {
    let out = txbench(dir)
        .arg("compare")
        .args(runs)
        .args(["--json", "cmp.json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let json = std::fs::read_to_string(dir.join("cmp.json")).unwrap();
    (stdout(&out), serde_json::from_str(&json).unwrap())
}

#[test]
fn merge_adds_parallel_runs_and_report_and_compare_read_them() {
    let dir = tempfile::tempdir().unwrap();
    two_parallel_runs(dir.path());
    let runs = results_dirs(&dir.path().join("res"));
    assert_eq!(runs.len(), 2, "{runs:?}");
    let read = |p: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p.join("summary.json")).unwrap()).unwrap()
    };
    let tpmc = |v: &serde_json::Value| v["metrics"][0]["value"].as_f64().unwrap();
    let sum = tpmc(&read(&runs[0])) + tpmc(&read(&runs[1]));

    let out = txbench(dir.path())
        .arg("merge")
        .args(&runs)
        .args(["-o", "merged"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let merged = read(&dir.path().join("merged"));
    assert_eq!(merged["merged_from"].as_array().unwrap().len(), 2);
    // Each run's rate over the common window, added: within 5% of the whole runs'.
    assert!(
        (tpmc(&merged) - sum).abs() / sum < 0.05,
        "{} vs {sum}",
        tpmc(&merged)
    );

    // A second merge into the same directory is refused, as is a scale mismatch.
    let out = txbench(dir.path())
        .arg("merge")
        .args(&runs)
        .args(["-o", "merged"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let out = txbench(dir.path())
        .args(["report", "merged"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(dir.path().join("merged/report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("merged from 2 runs"));

    let (text, cmp) = compare(dir.path(), &runs);
    assert!(text.contains("tpmC") && text.contains("B vs A"), "{text}");
    assert_eq!(cmp["rows"][0]["better"], "higher");
    assert!(cmp["rows"][0]["change_pct"][1].is_number());
}

/// The report of a run renders in a real browser: headless Chromium loads it,
/// lays it out and draws it, without a console error, and every chart is there.
#[test]
fn the_report_renders_in_headless_chromium() {
    let chromium = match std::env::var("TXBENCH_TEST_CHROMIUM") {
        Ok(c) if !c.is_empty() => c,
        _ => {
            if std::env::var("TXBENCH_REQUIRE_SERVICES").as_deref() == Ok("1") {
                panic!("TXBENCH_TEST_CHROMIUM is not set and TXBENCH_REQUIRE_SERVICES=1");
            }
            eprintln!("skipping: set TXBENCH_TEST_CHROMIUM to a Chromium binary to run this test");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    // On a rate schedule, so that the throughput chart has the offered rate
    // and tpmC on its right-hand axis beside the warm-up's band.
    let out = txbench(dir.path())
        .args([
            "tpcc",
            "--rate",
            "20/s for 2s, ramp 20..60/s over 2s",
            "--warmup",
            "1s",
            "-q",
            "--results",
            "res",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let run = results_dirs(&dir.path().join("res")).remove(0);
    let out = txbench(dir.path())
        .arg("report")
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let page = run.join("report.html");
    let url = format!("file://{}", page.display());
    let profile = dir.path().join("chromium-profile");
    let browser = |extra: &[&str]| {
        std::process::Command::new(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--enable-logging=stderr",
                "--v=0",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(&url)
            .output()
            .unwrap()
    };
    let dom = browser(&["--dump-dom"]);
    assert!(dom.status.success(), "{}", stderr(&dom));
    let dom_text = stdout(&dom);
    let log = stderr(&dom);
    assert!(
        !log.contains("CONSOLE") && !log.contains("Uncaught"),
        "{log}"
    );
    // The browser built the page: the four charts as SVG elements with their
    // axes (a box per type, the CCDF, throughput and p99 over time), the
    // legends beside them, the quartiles in the table.
    assert_eq!(dom_text.matches("<svg").count(), 4, "{dom_text}");
    for text in [
        "latency (ms, log scale)",
        "transactions/s",
        "tpmC (right axis)",
        "offered",
        "warm-up (not measured)",
        "rate schedule",
        "p99 latency (ms)",
        "Latency by type: min, p25, median, p75, p99, max",
        "class=\"legend\"",
        "<th>p25</th>",
        "New-Order",
        // Outcomes and latency in two tables a laptop's screen holds, the
        // files behind the page linked, the command that repeats the run.
        "<h2>Latency</h2>",
        "<th>rollbacks</th>",
        "href=\"summary.json\"",
        "href=\"timeline.csv\"",
        "run --config config.toml",
    ] {
        assert!(dom_text.contains(text), "missing '{text}'");
    }
    assert!(!dom_text.contains("chart not drawn"));
    // And drew it: a screenshot of the page that is not blank.
    let shot = dir.path().join("report.png");
    let out = browser(&[
        &format!("--screenshot={}", shot.display()),
        "--window-size=1200,2400",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 50_000,
        "{} bytes",
        png.len()
    );
    if let Ok(keep) = std::env::var("TXBENCH_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}

/// `compare` of two single runs sets their intervals side by side but never
/// calls a change better or worse: one run each cannot tell it from the
/// noise between runs, and it says so. Four times the terminals on a
/// simulated server whose 10 ms service leaves the client idle, four times
/// the throughput (disjoint intervals even on a loaded machine); a rare
/// type's p99.9 is refused as insufficient, and the differing setting is
/// named.
#[test]
fn compare_judges_by_intervals_and_names_differing_settings() {
    let dir = tempfile::tempdir().unwrap();
    for terminals in ["1", "4"] {
        let out = txbench(dir.path())
            .args(["tatp", "run", "--db", "sim:?service=fixed:10ms&workers=8"])
            .args(["--subscribers", "1000", "--terminals", terminals])
            .args(["--duration", "11s", "--warmup", "0s", "-q"])
            .args(["--results", "res"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let runs = results_dirs(&dir.path().join("res"));
    let (text, cmp) = compare(dir.path(), &runs);
    assert!(
        text.contains("settings differ") && text.contains("terminals: A 1, B 4"),
        "{text}"
    );
    let line = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
            .to_string()
    };
    assert!(
        line("throughput txn/s").ends_with("intervals apart"),
        "{text}"
    );
    assert!(
        text.contains("one run each, so a change cannot be told from run-to-run noise")
            && !text.contains("better")
            && !text.contains("worse")
            && !text.contains("noise of this plan on this machine"),
        "{text}"
    );
    // Insert-Call-Forwarding is 2% of the mix: under 100 transactions, no p99.9.
    assert!(
        line("Insert-Call-Forwarding p99.9 ms").ends_with("insufficient samples"),
        "{text}"
    );
    assert_eq!(cmp["rows"][0]["judgement"][1], "intervals apart", "{cmp}");
    assert!(cmp["rows"][0]["intervals"][0].is_array(), "{cmp}");
}

/// `--repeat` sets: four runs of a simulated server with 1 ms of service,
/// four with 1.1 ms. `compare` of the sets finds the 10% change in the
/// median latency against the noise between runs, with its interval, and
/// shows each set's noise; a single run against a set is judged by the
/// set's spread. A 10% change is near the noise a busy machine adds to a
/// simulated server's sleeps, so this test is in the timing group, alone on
/// the machine: beside the other tests, one slow run made the throughput's
/// difference "not significant" (-6.8% [-16.7, +3.1]), and another the
/// median's against the set's noise (+9.9% [-0.4, +20.2]).
#[test]
fn compare_of_sets_finds_a_ten_percent_slower_server() {
    let dir = tempfile::tempdir().unwrap();
    for service in ["1ms", "1.1ms"] {
        let db = format!("sim:?service=fixed:{service}&workers=1");
        let out = txbench(dir.path())
            .args(["tatp", "run", "--db", &db, "--subscribers", "1000"])
            .args(["--terminals", "4", "--duration", "2s", "--warmup", "0s"])
            .args(["--repeat", "4", "-q", "--no-report", "--results", "res"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(
            text.contains("a set of 4 runs") && text.contains("the set's 4 runs"),
            "{text}"
        );
    }
    let sets = results_dirs(&dir.path().join("res"));
    assert_eq!(sets.len(), 2, "{sets:?}");
    let set: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sets[0].join("set.json")).unwrap()).unwrap();
    assert_eq!(set["runs"].as_array().unwrap().len(), 4, "{set}");

    let (text, cmp) = compare(dir.path(), &sets);
    let row = |name: &str| {
        let rows = cmp["rows"].as_array().unwrap();
        rows.iter().find(|r| r["name"] == name).unwrap().clone()
    };
    let median = row("Get-Subscriber-Data p50 ms");
    assert_eq!(median["judgement"][1], "worse", "{text}");
    let [low, high] = [0, 1].map(|i| median["change_interval_pct"][1][i].as_f64().unwrap());
    let change = median["change_pct"][1].as_f64().unwrap();
    assert!(0.0 < low && low <= change && change <= high, "{text}");
    assert!(
        (8.0..12.0).contains(&change),
        "1.1 ms against 1 ms of service: {change}%"
    );
    let throughput = row("throughput txn/s");
    assert_ne!(throughput["judgement"][1], "better", "{text}");
    assert!(text.contains("run-to-run noise of A (4 runs)"), "{text}");
    assert_eq!(cmp["sizes"], serde_json::json!([4, 4]));

    // One run of the slower server against the faster set: judged by the
    // set's spread, an interval around its change (whether it reaches past
    // zero depends on how noisy each run was: four runs leave few degrees
    // of freedom).
    let single = sets[1].join("run-01");
    let (text, cmp) = compare(dir.path(), &[sets[0].clone(), single]);
    let throughput = &cmp["rows"][0];
    let [low, high] = [0, 1].map(|i| throughput["change_interval_pct"][1][i].as_f64().unwrap());
    let change = throughput["change_pct"][1].as_f64().unwrap();
    assert!(low <= change && change <= high, "{text}");
    assert!(!text.contains("one run each"), "{text}");

    // Two single runs, judged against the noise of a set of the same plan
    // on this machine (--noise): the median's 10% is found. Unasked, the
    // noise of the set that holds the first is shown, and how to use it.
    let singles = [sets[0].join("run-02"), sets[1].join("run-02")];
    let (text, _) = compare(dir.path(), &singles);
    assert!(text.contains("one run each"), "{text}");
    let known = format!(
        "run-to-run noise of this plan on this machine, from the set {} (4 runs): throughput",
        sets[0].display()
    );
    assert!(text.contains(&known), "{text}");
    assert!(text.contains(&format!("`--noise {}` judges", sets[0].display())));
    let out = txbench(dir.path())
        .arg("compare")
        .args(&singles)
        .arg("--noise")
        .arg(&sets[0])
        .args(["--json", "noise.json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("(--noise)"), "{text}");
    let cmp: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("noise.json")).unwrap())
            .unwrap();
    let rows = cmp["rows"].as_array().unwrap();
    let median = rows
        .iter()
        .find(|r| r["name"] == "Get-Subscriber-Data p50 ms")
        .unwrap();
    assert_eq!(median["judgement"][1], "worse", "{text}");
    // A --noise that names no set is refused as bad input.
    let out = txbench(dir.path())
        .arg("compare")
        .args(&singles)
        .args(["--noise", "no-such-set"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
