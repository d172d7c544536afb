//! The simulated engine (`sim:`) through the command line: every workload
//! runs on it, what txbench measures agrees with queueing theory, and the
//! checks catch what the simulated server does wrong. The tests run one at a
//! time ([`alone`]), and assert only what a loaded machine cannot break
//! (bounds that load only moves away from); `bench/sim.sh` measures how close
//! to theory txbench comes on an idle one.

mod support;

use support::{alone, check, check_status, errors_by_kind, longest_ms, only_result, txbench};

/// Run `args` with results in a temporary directory; its summary.json.
fn summary(args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    txbench(dir.path())
        .args(args)
        .args(["--results", "results", "-q"])
        .assert()
        .success();
    only_result(&dir.path().join("results"), "summary.json")
}

/// A TATP run of 1,000 subscribers on `db`: the head of its arguments.
fn tatp_run(db: &str) -> Vec<&str> {
    vec!["tatp", "run", "--db", db, "--subscribers", "1000"]
}

/// A short closed-loop TATP run on `db`: its arguments, `extra` appended.
fn tatp_args<'a>(db: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = tatp_run(db);
    args.extend(["--terminals", "4", "--duration", "3s", "--warmup", "0s"]);
    args.extend_from_slice(extra);
    args
}

/// The summary of a short closed-loop TATP run on `db`.
fn tatp_on(db: &str, extra: &[&str]) -> serde_json::Value {
    summary(&tatp_args(db, extra))
}

/// The summary of an open-loop TATP run on `db`: `rate` for `duration`,
/// `extra` appended.
fn tatp_open_loop(db: &str, rate: &str, duration: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = tatp_run(db);
    args.extend(["--rate", rate, "--duration", duration]);
    args.extend_from_slice(extra);
    summary(&args)
}

/// Mean latency (ms) of all types together, over 12 s of Poisson arrivals at
/// `rate` on `db`; `workload` is the workload's name then its scale flags.
fn open_loop_mean(workload: &[&str], db: &str, rate: &str) -> f64 {
    let (name, scale) = workload.split_first().expect("a workload");
    let mut args = vec![*name, "run"];
    args.extend_from_slice(scale);
    args.extend([
        "--db",
        db,
        "--rate",
        rate,
        "--duration",
        "12s",
        "--warmup",
        "1s",
    ]);
    let s = summary(&args);
    let (mut sum, mut n) = (0.0, 0.0);
    for t in s["transactions"].as_array().unwrap() {
        let count = t["latency_ms"]["samples"].as_f64().unwrap();
        sum += t["latency_ms"]["mean"].as_f64().unwrap() * count;
        n += count;
    }
    sum / n
}

#[test]
fn an_mm1_queue_is_never_measured_below_theory() {
    // (The selftest holds TATP against M/D/1 and M/M/1 on an idle machine,
    // `bench/sim.sh`; this one TPC-C, with a bound no load can break.)
    let _alone = alone();
    // Exponential service of mean 2 ms, Poisson at 250/s: an M/M/1 queue at
    // utilisation 0.5, whose latency is exponential with mean 1 / (mu - lambda)
    // = 4 ms. A busy machine serves and sends late, which only adds to latency
    // counted from the intended start; a client that measured from the send
    // (leaving out the queue) would report about 2 ms.
    let mean = open_loop_mean(&["tpcc"], "sim:?service=exp:2ms", "250/s");
    assert!(mean >= 3.0, "mean latency {mean:.3} ms, theory 4 ms");
}

#[test]
fn outcomes_follow_the_workload_unless_told_otherwise() {
    let _alone = alone();
    // (committed share, expected share, transactions) of one type.
    let share = |s: &serde_json::Value, key: &str| {
        let t = s["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["key"] == key)
            .unwrap()
            .clone();
        let committed = t["committed"].as_f64().unwrap();
        let n = committed + t["expected_rollbacks"].as_f64().unwrap();
        (committed / n, t["expected_success"].as_f64().unwrap(), n)
    };
    let s = tatp_on("sim:?service=fixed:100us&workers=4", &[]);
    for key in ["get_new_destination", "get_access_data"] {
        let (observed, expected, n) = share(&s, key);
        // Binomial: within five standard deviations.
        let sd = (expected * (1.0 - expected) / n).sqrt();
        assert!(
            (observed - expected).abs() < 5.0 * sd,
            "{key}: {observed:.4} committed of {n}, the workload expects {expected:.4}"
        );
    }
    let s = tatp_on(
        "sim:?service=fixed:100us&workers=4&success=get_new_destination:1",
        &[],
    );
    assert_eq!(share(&s, "get_new_destination").0, 1.0);
}

#[test]
fn a_bad_sim_setting_is_named_in_one_line() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let out = txbench(dir.path())
        .args(tatp_args("sim:?service=fixed:4", &[]))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("'4'"), "{err}");
}

#[test]
fn the_checks_catch_what_the_server_does_wrong() {
    let _alone = alone();
    // A healthy server: no error, outcomes as expected. (Outages and
    // unfinished transactions are left out: a stalled machine looks like a
    // stalled server, rightly.)
    let healthy = tatp_on("sim:?service=fixed:200us&workers=4", &[]);
    for name in ["measurement", "errors", "outcomes"] {
        assert_eq!(
            check_status(&healthy, name),
            "PASS",
            "{name}: {}",
            healthy["checks"]
        );
    }
    // Committing every Get-New-Destination, which TATP expects to fail mostly.
    let s = tatp_on(
        "sim:?service=fixed:200us&workers=4&success=get_new_destination:1",
        &[],
    );
    assert_eq!(check_status(&s, "outcomes"), "FAIL");
    assert!(
        s["verdict"].as_str().unwrap().starts_with("NOT SOUND"),
        "{}",
        s["verdict"]
    );
    // A quarter of the transactions failing with conflicts (after their retries).
    let s = tatp_on(
        "sim:?service=fixed:200us&workers=4&errors=0.5",
        &["--max-retries", "1"],
    );
    assert_eq!(check_status(&s, "errors"), "FAIL", "{}", s["checks"]);
    // Any data error.
    let s = tatp_on("sim:?service=fixed:200us&workers=4&errors=0.002:data", &[]);
    assert_eq!(check_status(&s, "errors"), "FAIL", "{}", s["checks"]);
    // Down for two seconds of three: an outage, named.
    let s = tatp_on("sim:?service=fixed:200us&workers=4&outage=1s+2s", &[]);
    assert_eq!(check_status(&s, "outages"), "FAIL", "{}", s["checks"]);
    // Down for the whole run: nothing measured.
    let s = tatp_on("sim:?outage=0s+1h", &["--max-retries", "0"]);
    assert_eq!(check_status(&s, "measurement"), "FAIL", "{}", s["checks"]);
}

#[test]
fn an_outage_in_a_closed_loop_is_in_the_latency_not_in_a_flood_of_errors() {
    let _alone = alone();
    // Down from 0.5 s to 2.5 s after the server started: each terminal's
    // transaction then fails, and its next one waits for the server to come
    // back. Sessions used to reconnect at once and fail again, some 200,000
    // times, leaving the two seconds in no transaction's latency.
    let s = tatp_on("sim:?service=fixed:200us&workers=4&outage=500ms+2s", &[]);
    let errors: u64 = errors_by_kind(&s).values().sum();
    assert!(errors <= 8, "{errors} errors: {}", s["checks"]);
    let max_ms = longest_ms(&s);
    assert!(max_ms >= 1500.0, "the longest transaction took {max_ms} ms");
    assert_eq!(check_status(&s, "outages"), "FAIL", "{}", s["checks"]);
}

/// The outages check of `summary`: its status and the lengths (ms) of the
/// silences it named ("at 8.912 s for 1003 ms, ...").
fn named_silences(summary: &serde_json::Value) -> (String, Vec<f64>) {
    let check = check(summary, "outages");
    let detail = check["detail"].as_str().unwrap();
    let lengths = detail
        .split(" for ")
        .skip(1)
        .map(|rest| {
            let ms = rest.split(" ms").next().unwrap();
            ms.parse().unwrap_or_else(|_| panic!("{detail}"))
        })
        .collect();
    (check["status"].as_str().unwrap().to_string(), lengths)
}

#[test]
fn stalls_of_a_second_are_named_and_a_busy_healthy_server_has_none() {
    let _alone = alone();
    // A server that stalls 1 s every 10 s: two stalls in 21 s. Nothing
    // completes in them; whole seconds did not show them where a stall
    // straddled two (its p99, near 931 ms, was the only trace).
    let s = tatp_open_loop(
        "sim:?service=fixed:2ms&workers=4&stall=1s/10s",
        "500/s",
        "21s",
        &["--warmup", "1s"],
    );
    let (status, lengths) = named_silences(&s);
    assert_ne!(status, "PASS", "{}", s["checks"]);
    // Each named from when work waited in it: no longer than the stall and
    // the service time of what it held, nor much shorter (load only
    // lengthens a silence).
    assert!(!lengths.is_empty(), "{}", s["checks"]);
    assert!(
        lengths.iter().all(|&ms| ms >= 900.0),
        "{lengths:?}: {}",
        s["checks"]
    );
    // M/M/1 at utilisation 0.8: the longest silence in which work waits is
    // a few service times of 1 ms, far from 100 ms.
    let s = tatp_open_loop(
        "sim:?service=exp:1ms&workers=1",
        "800/s",
        "12s",
        &["--warmup", "1s"],
    );
    let (status, lengths) = named_silences(&s);
    assert_eq!(
        (status.as_str(), lengths.len()),
        ("PASS", 0),
        "{}",
        s["checks"]
    );
}

/// A 20 s closed-loop TATP run on a healthy simulated server.
fn healthy_closed_loop() -> serde_json::Value {
    summary(&[
        "tatp",
        "run",
        "--db",
        "sim:?service=exp:1ms&workers=4",
        "--subscribers",
        "10000",
        "--terminals",
        "4",
        "--duration",
        "20s",
        "--warmup",
        "2s",
    ])
}

/// (Whether the verdict is SOUND depends on the machine too, a stalled one
/// rightly warns: the selftest's healthy cases judge it, `bench/sim.sh`.)
#[test]
fn a_healthy_closed_loop_run_has_intervals_for_every_busy_type() {
    let _alone = alone();
    let s = healthy_closed_loop();
    // Every interval drawn from batches brackets its figure; the types of
    // the mix's larger shares (by the specification, not by how many
    // transactions a busy machine let the run make) each have their median's.
    let mut busy = 0;
    for t in s["transactions"].as_array().unwrap() {
        for iv in t["latency_intervals_ms"].as_array().unwrap() {
            let Some(batches) = iv["batches"].as_u64() else {
                continue;
            };
            assert!(batches >= 10, "{iv}");
            let (low, high) = (iv["low"].as_f64().unwrap(), iv["high"].as_f64().unwrap());
            let key = format!("p{}", iv["percentile"].as_f64().unwrap());
            let figure = t["latency_ms"][key.as_str()].as_f64().unwrap();
            assert!(low <= figure && figure <= high, "{key} {figure}: {iv}");
        }
        if t["spec_share"].as_f64().unwrap() >= 0.1 {
            busy += 1;
            let median = &t["latency_intervals_ms"][0];
            assert_eq!(median["percentile"], 50.0, "{median}");
            assert!(
                median["batches"].as_u64().is_some(),
                "{}: {median}",
                t["name"]
            );
        }
    }
    assert_eq!(busy, 4, "{}", s["transactions"]);
}

#[test]
fn an_offered_rate_the_server_cannot_take_fails_the_run() {
    let _alone = alone();
    // 300/s offered to a server that answers 100/s.
    let s = tatp_open_loop(
        "sim:?service=fixed:10ms",
        "300/s",
        "4s",
        &["--warmup", "0s", "--grace", "200ms"],
    );
    for name in ["achieved rate", "client queue"] {
        assert_eq!(check_status(&s, name), "FAIL", "{name}: {}", s["checks"]);
    }
}

#[test]
fn transactions_given_up_that_could_move_the_tail_fail_the_run() {
    let _alone = alone();
    // 200/s for 4 s; the server stalls from 3 s for 2 s, past the window's
    // end, and the run gives up 0.2 s after it: some 200 transactions count
    // at lower bounds of 0.2 s and more, above the exact p99 of the rest.
    let s = tatp_open_loop(
        "sim:?service=fixed:1ms&stall=2s/3s",
        "200/s",
        "4s",
        &["--warmup", "0s", "--grace", "200ms"],
    );
    assert_eq!(check_status(&s, "unfinished"), "FAIL", "{}", s["checks"]);
}

#[test]
fn strict_exits_3_on_a_run_that_is_not_sound_and_still_writes_it() {
    let _alone = alone();
    let args = tatp_args(
        "sim:?service=fixed:200us&workers=4&errors=0.002:data",
        &["--results", "results", "-q"],
    );
    let dir = tempfile::tempdir().unwrap();
    txbench(dir.path())
        .args(&args)
        .arg("--strict")
        .assert()
        .code(3);
    let s = only_result(&dir.path().join("results"), "summary.json");
    assert!(s["verdict"].as_str().unwrap().starts_with("NOT SOUND"));
    // Without --strict the same run is a complete run.
    let dir = tempfile::tempdir().unwrap();
    txbench(dir.path()).args(&args).assert().success();
}

/// `txbench selftest` runs every calibration case and the client's noise
/// floor, and its exit status says truly whether every case held: success
/// exactly when every verdict was right and every latency within theory.
/// (Whether they hold is the machine's as much as txbench's: on an idle
/// machine they do, `bench/sim.sh`; a loaded one may rightly miss. So the
/// test asserts the agreement, which no load can break, and runs beside the
/// others, its cases 3 s each, not in the timing group.)
#[test]
fn selftest_says_truly_whether_every_case_held() {
    // One at a time with this binary's other tests under `cargo test`, whose
    // timing it would disturb.
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let out = txbench(dir.path())
        .args(["selftest", "--rate", "1000/s", "--duration", "3s"])
        .args(["--json", "selftest.json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let st: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("selftest.json")).unwrap())
            .unwrap();
    let outcomes = st["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 11, "{text}");
    let cases_held = outcomes
        .iter()
        .all(|o| o["right"] == true && o["within_theory"] != false);
    let theory = outcomes
        .iter()
        .filter(|o| o["theory_ms"].is_array())
        .count();
    assert_eq!(theory, 5, "{text}");
    let floor = st["floor"].as_array().unwrap();
    let rates: Vec<f64> = floor
        .iter()
        .map(|f| f["rate_per_s"].as_f64().unwrap())
        .collect();
    assert_eq!(rates, [1_000.0, 10_000.0, 100_000.0], "{text}");
    assert!(
        floor[0]["latency_ms"]["p99"].as_f64().unwrap() > 0.0,
        "{text}"
    );
    // The rate asked (1,000/s) measured soundly: no check of its floor failed.
    let rate_held = floor[0]["failed"].as_array().unwrap().is_empty();
    let held = cases_held && rate_held;
    let code = out.status.code();
    assert_eq!(
        code,
        Some(if held { 0 } else { 3 }),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A rate this machine cannot hold: the selftest exits 3 and says why. (No
/// machine holds it, loaded or not: not in the timing group.)
#[test]
fn selftest_says_when_the_machine_cannot_hold_the_rate() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let out = txbench(dir.path())
        .args(["selftest", "--floor-only", "--rate", "20000000/s"])
        .args(["--duration", "2s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot measure soundly at 20,000,000/s: ")
            && (err.contains("achieved rate") || err.contains("client lateness")),
        "{err}"
    );
}
