//! TATP from the command line: all in one, open loop on the null engine, and
//! parallel runs merged.

mod support;
use support::{only_result, results_dirs, stderr, stdout, txbench};

#[test]
fn tatp_all_in_one_loads_runs_reports_and_the_file_passes_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench(dir.path())
        .args(["tatp", "--db", "sqlite:tatp.db", "--subscribers", "5000"])
        .args([
            "--duration",
            "2s",
            "--warmup",
            "0s",
            "-q",
            "--results",
            "res",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("loaded 5,000 subscribers"), "{text}");
    assert!(
        text.contains("MQTh") && text.contains("Get-New-Destination"),
        "{text}"
    );
    let json = only_result(&dir.path().join("res"), "summary.json");
    assert_eq!(json["workload"], "tatp");
    assert_eq!(json["metrics"][0]["name"], "MQTh");
    let types = json["transactions"].as_array().unwrap();
    assert_eq!(types.len(), 7);
    // Every type ran; the reads that can miss did, as expected outcomes.
    let access = &types[2];
    assert_eq!(access["key"], "get_access_data");
    assert_eq!(access["expected_success"], 0.625);
    assert!(
        access["expected_rollbacks"].as_u64().unwrap() > 0,
        "{access}"
    );
    let run_dir = std::fs::read_dir(dir.path().join("res"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    // The report shows the headline and each type's success against the expected rate.
    let out = txbench(dir.path())
        .args(["report", "-q"])
        .arg(&run_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(run_dir.join("report.html")).unwrap();
    assert!(
        html.contains("MQTh") && html.contains("success (expected)"),
        "report lacks TATP"
    );
    assert!(
        html.contains("(62.50%)"),
        "no expected rate for Get-Access-Data"
    );
    // The seed the run used is recorded, so the run can be repeated.
    let config = std::fs::read_to_string(run_dir.join("config.toml")).unwrap();
    assert!(
        config.contains("subscribers = 5000") && config.contains("seed = "),
        "{config}"
    );
    // A second all-in-one run uses what is loaded; another scale is refused.
    let out = txbench(dir.path())
        .args(["tatp", "--db", "sqlite:tatp.db", "--subscribers", "6000"])
        .args(["--duration", "1s", "--no-results", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--subscribers 6000 disagrees with the 5000"),
        "{}",
        stderr(&out)
    );
    let out = txbench(dir.path())
        .args(["tatp", "check", "--db", "sqlite:tatp.db"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(
        stdout(&out)
            .lines()
            .filter(|l| l.starts_with("PASS"))
            .count(),
        8,
        "the subscribers, six conditions and the alternative key's index: {}",
        stdout(&out)
    );
}

#[test]
fn tatp_runs_open_loop_on_the_null_engine_and_parallel_runs_merge() {
    let dir = tempfile::tempdir().unwrap();
    let start = || {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("txbench"))
            .current_dir(dir.path())
            .args(["tatp", "run", "--db", "null:", "--subscribers", "1000000"])
            .args(["--rate", "10000/s", "--duration", "3s", "--warmup", "1s"])
            .args(["-q", "--results", "res"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (start(), start());
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
    let runs = results_dirs(&dir.path().join("res"));
    assert_eq!(runs.len(), 2);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(runs[0].join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(json["settings"]["scale"]["unit"], "subscribers");
    assert_eq!(json["settings"]["scale"]["value"], 1000000);
    assert_eq!(json["parameters"]["nurand_a"], "65535");
    let ratio = json["open_loop"]["achieved_ratio"].as_f64().unwrap();
    assert!((0.95..=1.05).contains(&ratio), "{}", json["open_loop"]);
    // Merged, the headline is MQTh of both runs together: the successful
    // transactions of 20,000/s, which the null engine ends as TATP expects
    // (74.9% succeed over the mix), so about 15,000/s.
    let out = txbench(dir.path())
        .args(["merge", "-o", "all"])
        .args(&runs)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let merged: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("all/summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(merged["metrics"][0]["name"], "MQTh");
    let mqth = merged["metrics"][0]["value"].as_f64().unwrap();
    assert!((13_500.0..16_500.0).contains(&mqth), "merged MQTh {mqth}");
}
