//! The command line as a user meets it: help, errors that name the bad value, exit
//! codes, config files, and a short end-to-end run.

use std::path::Path;

mod support;
use support::{load, only_result, stderr, stdout, txbench};

#[test]
fn every_verb_has_help() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["--help"],
        vec!["tpcc", "--help"],
        vec!["tpcc", "load", "--help"],
        vec!["tpcc", "run", "--help"],
        vec!["tpcc", "check", "--help"],
        vec!["tpcc", "clean", "--help"],
        vec!["tatp", "--help"],
        vec!["tatp", "load", "--help"],
        vec!["tatp", "run", "--help"],
        vec!["tatp", "check", "--help"],
        vec!["tatp", "clean", "--help"],
        vec!["sweep", "tatp", "--help"],
        vec!["retwis", "--help"],
        vec!["retwis", "load", "--help"],
        vec!["retwis", "run", "--help"],
        vec!["retwis", "clean", "--help"],
        vec!["sweep", "retwis", "--help"],
        vec!["ycsb", "--help"],
        vec!["ycsb", "load", "--help"],
        vec!["ycsb", "run", "--help"],
        vec!["ycsb", "clean", "--help"],
        vec!["sweep", "ycsb", "--help"],
        vec!["custom", "--help"],
        vec!["custom", "load", "--help"],
        vec!["custom", "run", "--help"],
        vec!["custom", "check", "--help"],
        vec!["custom", "clean", "--help"],
        vec!["sweep", "custom", "--help"],
        vec!["serve", "--help"],
    ] {
        let out = txbench(dir.path()).args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        assert!(stdout(&out).contains("Usage"), "{args:?}");
    }
}

#[test]
fn bad_flags_and_values_exit_2_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["tpcc", "run", "--bogus"], "--bogus"),
        (&["tpcc", "run", "--duration", "5x"], "5x"),
        (&["tpcc", "run", "--duration", "0s"], "0s"),
        (&["tpcc", "run", "--terminals", "0"], "0"),
        (&["tpcc", "run", "--wait", "sometimes"], "sometimes"),
        (&["tpcc", "run", "--rate", "fast"], "fast"),
        (&["tpcc", "run", "--rate", "100/h"], "/h"),
        (&["tpcc", "run", "--arrival", "bursty"], "bursty"),
        (&["tpcc", "load", "--warehouses", "-3"], "-3"),
        (&["tpcc", "load", "--warehouses", "many"], "many"),
        (&["tpcc", "check", "--db", "oracle://x"], "oracle"),
        (&["tpcc", "check", "--db", "nonsense"], "nonsense"),
        (
            &["tpcc", "check", "--db", "sqlite:t.db?synchronous=maybe"],
            "maybe",
        ),
        (
            &["tpcc", "run", "--db", "txbench://host-without-port"],
            "txbench",
        ),
        (&["tatp", "load", "--subscribers", "0"], "0"),
        (&["serve", "--workload", "ycsb-z"], "ycsb-z"),
        (
            &["serve", "--workload", "tpcc", "--subscribers", "10"],
            "--subscribers",
        ),
        (
            &["serve", "--workload", "tpcc", "--listen", "nowhere"],
            "nowhere",
        ),
        (&["retwis", "check"], "check"),
        (&["retwis", "run", "--zipf", "-1"], "-1"),
        (&["retwis", "load", "--value-size", "4096"], "4096"),
        // An engine that cannot honour an option refuses it by name.
        (
            &[
                "tatp",
                "run",
                "--db",
                "null:",
                "--isolation",
                "read-committed",
            ],
            "--isolation read-committed",
        ),
        (
            &[
                "retwis",
                "--db",
                "redis://127.0.0.1:1",
                "--isolation",
                "serializable",
            ],
            "--isolation serializable",
        ),
        (
            &["tpcc", "--isolation", "repeatable-read"],
            "--isolation repeatable-read",
        ),
        (
            &[
                "sweep",
                "tatp",
                "--db",
                "null:",
                "--rates",
                "100..200",
                "--step",
                "100",
                "--slo",
                "p99<=5s",
                "--isolation",
                "serializable",
            ],
            "--isolation serializable",
        ),
    ];
    for (args, named) in cases {
        let out = txbench(dir.path()).args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(named),
            "{args:?} should name {named}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
}

/// Nothing loaded: the load command for the user's own URL, ready to paste,
/// and no empty SQLite file left behind by the command that found nothing.
#[test]
fn run_and_check_on_an_empty_database_say_to_load_first() {
    let dir = tempfile::tempdir().unwrap();
    for verb in ["run", "check"] {
        let out = txbench(dir.path())
            .args(["tpcc", verb, "--db", "sqlite:empty.db"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{verb}");
        assert!(
            stderr(&out).contains("load it first with `txbench tpcc load --db sqlite:empty.db`"),
            "{verb}: {}",
            stderr(&out)
        );
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{verb} left {left:?}");
    }
}

/// A `--db` whose server refuses it says what is wrong (exit 1, the
/// server's answer): a database that does not exist (which `load`
/// creates), credentials refused.
#[test]
fn a_missing_database_or_refused_password_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    if let Some(pg) = support::server_url("TXBENCH_TEST_POSTGRES_URL") {
        let (base, _) = pg.rsplit_once('/').unwrap();
        let url = format!("{base}/txbench_no_such_db");
        // The load command to paste, for the user's own URL.
        cases.push((
            url.clone(),
            format!("`load` creates it: `txbench tatp load --db {url}`"),
        ));
    }
    if let Some(my) = support::server_url("TXBENCH_TEST_MYSQL_URL") {
        let wrong = my.replacen("root@", "root:wrong-password@", 1);
        cases.push((wrong, "refused the user or password".into()));
        let (base, _) = my.rsplit_once('/').unwrap();
        let url = format!("{base}/txbench_no_such_db");
        cases.push((
            url.clone(),
            format!("`load` creates it: `txbench tatp load --db {url}`"),
        ));
    }
    for (url, said) in cases {
        let out = txbench(dir.path())
            .args(["tatp", "run", "--db", &url, "--duration", "1s"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{url}: {}", stderr(&out));
        assert!(stderr(&out).contains(&said), "{url}: {}", stderr(&out));
        assert!(!stderr(&out).contains("wrong-password"), "{}", stderr(&out));
    }
}

/// Flags a workload does not take are refused, naming why: foreign keys
/// where it has none, and YCSB's `-threads` habit.
#[test]
fn flags_a_workload_does_not_take_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 2] = [
        (
            &["retwis", "load", "--foreign-keys"],
            "Retwis has no foreign keys",
        ),
        (
            &["ycsb", "--threads", "8", "-d", "1s"],
            "is --terminals here",
        ),
    ];
    for (args, said) in cases {
        let out = txbench(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
    }
    let help = txbench(dir.path())
        .args(["retwis", "load", "--help"])
        .output()
        .unwrap();
    assert!(
        !stdout(&help).contains("--foreign-keys"),
        "{}",
        stdout(&help)
    );
    let help = txbench(dir.path())
        .args(["tatp", "load", "--help"])
        .output()
        .unwrap();
    assert!(
        stdout(&help).contains("TATP's: ACCESS_INFO"),
        "{}",
        stdout(&help)
    );
}

#[test]
fn load_refuses_a_loaded_database_unless_drop_and_run_refuses_another_scale() {
    let dir = tempfile::tempdir().unwrap();
    load(dir.path(), "sqlite:t.db");
    let out = txbench(dir.path())
        .args(["tpcc", "load", "--db", "sqlite:t.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--drop"), "{}", stderr(&out));

    let out = txbench(dir.path())
        .args([
            "tpcc",
            "run",
            "--db",
            "sqlite:t.db",
            "--warehouses",
            "2",
            "--duration",
            "1s",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--warehouses 2"), "{}", stderr(&out));

    let out = txbench(dir.path())
        .args(["tpcc", "load", "--db", "sqlite:t.db", "--drop"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn load_run_check_clean_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    load(dir.path(), "sqlite:t.db");
    let out = txbench(dir.path())
        .args([
            "tpcc",
            "run",
            "--db",
            "sqlite:t.db",
            "--duration",
            "2s",
            "--warmup",
            "0s",
            "-q",
        ])
        .args(["--results", "res"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("tpmC") && text.contains("New-Order") && text.contains("Stock-Level"),
        "{text}"
    );

    // The JSON summary is written and says what the terminal said.
    let json = only_result(&dir.path().join("res"), "summary.json");
    assert_eq!(json["schema_version"], 3);
    // The schema round-trips: the file reads into the result model and writes back
    // the same document.
    let model: txbench_core::result::RunResult = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(serde_json::to_value(&model).unwrap(), json);
    assert!(!json["server_version"].as_str().unwrap().is_empty());
    assert!(json["machine"]["cores"].as_u64().unwrap() >= 1);
    assert!(json["window_start_unix_s"].as_f64().unwrap() > 1.7e9);
    assert_eq!(json["workload"], "tpcc");
    let tpmc = json["metrics"][0]["value"].as_f64().unwrap();
    assert_eq!(json["metrics"][0]["name"], "tpmC");
    assert!(tpmc > 0.0);
    let committed = json["transactions"][0]["committed"].as_f64().unwrap();
    let secs = json["measured_secs"].as_f64().unwrap();
    assert!((tpmc - committed * 60.0 / secs).abs() < 1e-6 * tpmc);

    let out = txbench(dir.path())
        .args(["tpcc", "check", "--db", "sqlite:t.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        stdout(&out)
            .lines()
            .filter(|l| l.starts_with("PASS"))
            .count(),
        12
    );

    let out = txbench(dir.path())
        .args(["tpcc", "clean", "--db", "sqlite:t.db"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = txbench(dir.path())
        .args(["tpcc", "check", "--db", "sqlite:t.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn check_exits_1_and_names_the_broken_condition() {
    let dir = tempfile::tempdir().unwrap();
    load(dir.path(), "sqlite:t.db");
    break_condition_8(dir.path().join("t.db").as_path());
    let out = txbench(dir.path())
        .args(["tpcc", "check", "--db", "sqlite:t.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("FAIL  3.3.2.8"), "{text}");
    assert_eq!(text.lines().count(), 12);
}

/// Break condition 3.3.2.8 by inserting a history row through txbench's own engine.
fn break_condition_8(path: &Path) {
    use txbench_core::{Engine, Session};
    use txbench_engines::sqlite::{SqliteConfig, SqliteEngine};
    let engine = SqliteEngine::new(SqliteConfig::parse(path.to_str().unwrap()).unwrap()).unwrap();
    pollster::block_on(async {
        let mut s = engine.connect().await.unwrap();
        s.query_sql("INSERT INTO history VALUES (1, 1, 1, 1, 1, 0, 99.0, 'x')")
            .await
            .unwrap();
    });
}

#[test]
fn config_file_keys_mirror_flags_and_the_command_line_wins() {
    let dir = tempfile::tempdir().unwrap();
    load(dir.path(), "sqlite:t.db");
    std::fs::write(
        dir.path().join("c.toml"),
        "db = \"sqlite:t.db\"\nwarehouses = 3\n",
    )
    .unwrap();
    // The config's warehouses = 3 is refused against the 1 loaded ...
    let out = txbench(dir.path())
        .args(["--config", "c.toml", "tpcc", "run", "--duration", "1s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--warehouses 3"), "{}", stderr(&out));
    // ... and the command line overrides it.
    let out = txbench(dir.path())
        .args([
            "--config",
            "c.toml",
            "tpcc",
            "run",
            "--duration",
            "1s",
            "--warmup",
            "0s",
        ])
        .args(["--warehouses", "1", "-q", "--no-results"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    std::fs::write(dir.path().join("bad.toml"), "warehouse = 3\n").unwrap();
    let out = txbench(dir.path())
        .args(["--config", "bad.toml", "tpcc", "run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("'warehouse'"), "{}", stderr(&out));

    let out = txbench(dir.path())
        .args(["--config", "missing.toml", "tpcc", "run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.toml"), "{}", stderr(&out));
}

#[test]
fn all_in_one_loads_runs_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = txbench(dir.path())
        .args([
            "tpcc",
            "--duration",
            "1s",
            "--warmup",
            "0s",
            "-q",
            "--no-results",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("loaded 1 warehouse (") && text.contains(" rows) into sqlite::memory: in "),
        "{text}"
    );
    assert!(!text.contains("sqlite::memory::"), "{text}");
    assert!(text.contains("tpmC"), "{text}");
}

#[test]
fn help_has_examples_and_speaks_each_workloads_words() {
    let dir = tempfile::tempdir().unwrap();
    let help = |args: &[&str]| {
        let out = txbench(dir.path())
            .args(args)
            .arg("--help")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        stdout(&out)
    };
    let mut verbs: Vec<Vec<&str>> = vec![
        vec![],
        vec!["serve"],
        vec!["selftest"],
        vec!["report"],
        vec!["compare"],
        vec!["merge"],
    ];
    for w in ["tpcc", "tatp", "retwis"] {
        verbs.push(vec![w]);
        verbs.push(vec!["sweep", w]);
        for v in ["load", "run", "clean"] {
            verbs.push(vec![w, v]);
        }
    }
    verbs.push(vec!["tpcc", "check"]);
    verbs.push(vec!["tpcc", "verify"]);
    verbs.push(vec!["tpcc", "acid"]);
    for args in &verbs {
        let text = help(args);
        assert!(text.contains("Examples:\n  txbench "), "{args:?}:\n{text}");
    }
    for w in ["tatp", "retwis"] {
        for v in [&[w][..], &[w, "run"], &[w, "load"], &["sweep", w]] {
            let text = help(v).to_lowercase();
            for word in ["warehouse", "c-run", "c-load", "5.2.5.7"] {
                assert!(!text.contains(word), "{v:?} speaks of {word}:\n{text}");
            }
        }
    }
    let db = help(&["tatp", "run"]);
    for scheme in [
        "sqlite:",
        "postgres://",
        "mysql://",
        "redis://",
        "txbench://",
        "null:",
    ] {
        assert!(db.contains(scheme), "--db help lacks {scheme}");
    }
    for v in ["report", "compare", "merge"] {
        let text = help(&[v]);
        assert!(
            !text.contains("--driver-threads") && !text.contains("--config"),
            "{v} shows run flags:\n{text}"
        );
    }
    let sweep = help(&["sweep", "tatp"]);
    assert!(
        sweep.contains("--step-duration") && !sweep.contains("--duration <"),
        "{sweep}"
    );
}

#[test]
fn sweep_refuses_the_run_flags_it_sets_itself() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, value) in [
        ("--duration", "3s"),
        ("--transactions", "1000"),
        ("--rate", "100/s"),
    ] {
        let out = txbench(dir.path())
            .args(["sweep", "tatp", "--rates", "100..200", "--step", "100"])
            .args(["--slo", "p99<=5ms", flag, value])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("sweep does not take {flag}")),
            "{}",
            stderr(&out)
        );
    }
}
