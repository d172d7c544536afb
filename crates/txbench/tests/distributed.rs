//! One run split over client processes: shards started for one agreed time on
//! loopback, merged exactly; a late shard refusing; inconsistent shard sets
//! refused; and the Kubernetes manifest of docs/distributed.md, parsed and its
//! shard arguments run.

mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use support::merged::{merge, summary};
use yaml_rust2::{Yaml, YamlLoader};

fn txbench(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_txbench"));
    cmd.current_dir(dir);
    cmd
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// An RFC 3339 time `secs` from now (negative: in the past).
fn start_in(secs: f64) -> String {
    let now = SystemTime::now();
    let at = if secs >= 0.0 {
        now + Duration::from_secs_f64(secs)
    } else {
        now - Duration::from_secs_f64(-secs)
    };
    humantime::format_rfc3339_millis(at).to_string()
}

/// Start shard `index` of `shards` with extra `args`, writing under `results`.
fn spawn_shard(dir: &Path, index: u32, shards: u32, args: &[&str]) -> Child {
    txbench(dir)
        .args(["tpcc", "run", "-q", "--results", "results"])
        .args([
            "--shards",
            &shards.to_string(),
            "--shard-index",
            &index.to_string(),
        ])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_ok(children: Vec<Child>) {
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "a shard failed: {}", stderr(&out));
    }
}

/// The results directories under `dir/results` whose names contain `part`.
fn result_dirs(dir: &Path, part: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().contains(part))
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn four_shards_on_one_sqlite_file_merge_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("tpcc.db").display());
    let out = txbench(dir.path())
        .args(["tpcc", "load", "--db", &db, "--warehouses", "4"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    // Four processes share one database file and one agreed start; no --seed,
    // so they take the seed the start time makes.
    let start = start_in(3.0);
    let args = [
        "--db",
        &db,
        "--start-at",
        &start,
        "--warmup",
        "1s",
        "--duration",
        "3s",
        "--terminals",
        "2",
    ];
    wait_ok(
        (0..4)
            .map(|i| spawn_shard(dir.path(), i, 4, &args))
            .collect(),
    );
    // Each directory's name starts with its own process's start second, so
    // the shards are taken by index, not in the order their names sort.
    assert_eq!(result_dirs(dir.path(), "-shard").len(), 4);
    let shards: Vec<PathBuf> = (0..4)
        .map(|i| {
            let mine = result_dirs(dir.path(), &format!("-shard{i}of4"));
            assert_eq!(mine.len(), 1, "shard {i}: {mine:?}");
            mine[0].clone()
        })
        .collect();
    let summaries: Vec<Value> = shards.iter().map(|d| summary(d)).collect();
    for (i, s) in summaries.iter().enumerate() {
        let p = &s["parameters"];
        assert_eq!(p["home_warehouses"], format!("{0}..{0}", i + 1));
        assert_eq!(s["settings"]["seed"], summaries[0]["settings"]["seed"]);
        assert_eq!(s["settings"]["shard_index"], i);
        assert_eq!(s["settings"]["shards"], 4);
        assert_eq!(
            s["window_start_unix_s"],
            summaries[0]["window_start_unix_s"]
        );
    }

    let out = merge(dir.path(), &shards, "all");
    assert!(out.status.success(), "{}", stderr(&out));
    let merged = summary(&dir.path().join("all"));
    assert_eq!(merged["parameters"]["merged_runs"], "4");
    assert!(merged["parameters"].get("home_warehouses").is_none());
    // The merged run is the whole scale, driven by every shard's terminals.
    assert_eq!(
        merged["settings"]["scale"]["value"],
        summaries[0]["settings"]["scale"]["value"]
    );
    let terminals: u64 = summaries
        .iter()
        .map(|s| s["settings"]["terminals"].as_u64().unwrap())
        .sum();
    assert_eq!(merged["settings"]["terminals"], terminals);

    support::merged::assert_exact(&shards, &merged);
}

#[test]
fn a_late_shard_refuses_and_the_merge_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let start = start_in(-5.0);
    let out = spawn_shard(
        dir.path(),
        1,
        4,
        &["--db", "null:", "--warehouses", "8", "--start-at", &start],
    )
    .wait_with_output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("shard 1 of 4 refused to run"),
        "{}",
        stderr(&out)
    );
    let dirs = result_dirs(dir.path(), "-shard1of4");
    assert_eq!(dirs.len(), 1);
    assert!(!dirs[0].join("summary.json").exists());
    let refusal: Value =
        serde_json::from_str(&std::fs::read_to_string(dirs[0].join("refused.json")).unwrap())
            .unwrap();
    assert_eq!(refusal["shard_index"], 1);
    assert!(refusal["late_secs"].as_f64().unwrap() > 4.0);
    assert_eq!(refusal["tolerance_secs"], 1.0);

    let out = merge(dir.path(), &[dirs[0].clone(), dirs[0].clone()], "all");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("shard 1 of 4 refused to run"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("all").exists());
}

#[test]
fn inconsistent_shard_sets_are_refused_by_what_disagrees() {
    let dir = tempfile::tempdir().unwrap();
    let start = start_in(2.5);
    let later = start_in(4.0);
    let common = [
        "--db",
        "null:",
        "--warehouses",
        "8",
        "--seed",
        "7",
        "--warmup",
        "0s",
    ];
    let with = |extra: &[&'static str], at: &str| -> Vec<String> {
        common
            .iter()
            .chain(extra)
            .map(|s| s.to_string())
            .chain(["--start-at".to_string(), at.to_string()])
            .collect()
    };
    let set = with(&["--duration", "1s"], &start);
    let longer = with(&["--duration", "2s"], &start);
    let other_start = with(&["--duration", "1s"], &later);
    fn refs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    let mut children: Vec<Child> = (0..4)
        .map(|i| spawn_shard(dir.path(), i, 4, &refs(&set)))
        .collect();
    children.push(spawn_shard(dir.path(), 0, 4, &refs(&longer)));
    children.push(spawn_shard(dir.path(), 0, 4, &refs(&other_start)));
    wait_ok(children);
    let by_shard = |i: u32| result_dirs(dir.path(), &format!("-shard{i}of4"));
    let shard0 = by_shard(0);
    assert_eq!(shard0.len(), 3);
    let rest = [by_shard(1), by_shard(2), by_shard(3)].concat();
    let good0 = shard0
        .iter()
        .find(|d| {
            let s = &summary(d)["settings"];
            s["duration_secs"] == 1.0 && s["start_at"] == start.as_str()
        })
        .unwrap()
        .clone();
    let long0 = shard0
        .iter()
        .find(|d| summary(d)["settings"]["duration_secs"] == 2.0)
        .unwrap()
        .clone();
    let late0 = shard0
        .iter()
        .find(|d| **d != good0 && **d != long0)
        .unwrap()
        .clone();

    let refused = |runs: Vec<PathBuf>, expect: &str| {
        let out = merge(dir.path(), &runs, "all");
        assert_eq!(out.status.code(), Some(2), "{expect}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(expect),
            "wanted '{expect}' in: {}",
            stderr(&out)
        );
        assert!(!dir.path().join("all").exists());
    };
    // A shard missing, a shard twice, a shard of another length, another start.
    refused(rest[..2].to_vec(), "shards 0, 3 of 4 missing");
    refused(
        [vec![good0.clone(), good0.clone()], rest.clone()].concat(),
        "given more than once",
    );
    refused(
        [vec![long0], rest.clone()].concat(),
        "duration_secs differs",
    );
    refused([vec![late0], rest.clone()].concat(), "start_at differs");
    // The consistent set merges.
    let out = merge(dir.path(), &[vec![good0], rest].concat(), "all");
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A mapping's value by key path.
fn at<'a>(y: &'a Yaml, path: &[&str]) -> &'a Yaml {
    path.iter().fold(y, |y, k| &y[*k])
}

#[test]
fn the_kubernetes_manifest_is_an_indexed_job_whose_shards_run() {
    let manifest = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/k8s/tpcc-shards.yaml"),
    )
    .unwrap();
    let docs = YamlLoader::load_from_str(&manifest).unwrap();
    let kind = |k: &'static str| docs.iter().filter(move |d| d["kind"].as_str() == Some(k));
    let jobs: Vec<&Yaml> = kind("Job").collect();
    assert_eq!(jobs.len(), 2, "a shard Job and a merge Job");
    assert_eq!(kind("PersistentVolumeClaim").count(), 1);
    let shards_job = jobs
        .iter()
        .find(|j| at(j, &["spec", "completionMode"]).as_str() == Some("Indexed"))
        .expect("an Indexed Job");
    let spec = &shards_job["spec"];
    let n = spec["completions"].as_i64().unwrap();
    assert_eq!(
        spec["parallelism"].as_i64(),
        Some(n),
        "parallelism = completions"
    );

    let container = &at(spec, &["template", "spec", "containers"])[0];
    let args: Vec<&str> = container["args"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|a| a.as_str().expect("string arguments"))
        .collect();
    let flag = |f: &str| args.iter().position(|a| *a == f).map(|i| args[i + 1]);
    assert_eq!(flag("--shards"), Some(n.to_string().as_str()));
    assert!(flag("--start-at").is_some(), "shards share a start time");
    assert!(
        flag("--shard-index").is_none(),
        "the index comes from JOB_COMPLETION_INDEX"
    );
    let results = flag("--results").unwrap();
    let mount = container["volumeMounts"][0]["mountPath"].as_str().unwrap();
    assert!(
        results.starts_with(mount),
        "results {results} on the volume at {mount}"
    );

    let merge_job = jobs
        .iter()
        .find(|j| !std::ptr::eq(**j, *shards_job))
        .unwrap();
    let merge_container = &at(merge_job, &["spec", "template", "spec", "containers"])[0];
    let merge_env: HashMap<&str, &str> = merge_container["env"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap(), e["value"].as_str().unwrap()))
        .collect();
    assert_eq!(
        merge_env["SHARDS"],
        n.to_string(),
        "the merge waits for every shard"
    );
    let script = merge_container["args"][0].as_str().unwrap();
    assert!(script.contains("txbench merge"));
    assert_eq!(
        merge_container["volumeMounts"][0]["mountPath"].as_str(),
        Some(mount)
    );

    // The shard arguments, as pod 2 runs them, against the null engine: the
    // database URL, the time and the lengths replaced, everything else as written.
    let dir = tempfile::tempdir().unwrap();
    let start = start_in(2.0);
    let replaced: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, a)| match (i.checked_sub(1).map(|p| args[p]), *a) {
            (Some("--db"), _) => "null:".to_string(),
            (Some("--start-at"), _) => start.clone(),
            (Some("--warmup"), _) => "0s".to_string(),
            (Some("--duration"), _) => "1s".to_string(),
            (Some("--results"), _) => "results".to_string(),
            _ => a.to_string(),
        })
        .collect();
    let out = txbench(dir.path())
        .args(&replaced)
        .env("JOB_COMPLETION_INDEX", "2")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let run = result_dirs(dir.path(), &format!("-shard2of{n}"));
    assert_eq!(run.len(), 1);
    let warehouses: i64 = flag("--warehouses").unwrap().parse().unwrap();
    let (lo, hi) = (warehouses * 2 / n + 1, warehouses * 3 / n);
    assert_eq!(
        summary(&run[0])["parameters"]["home_warehouses"],
        format!("{lo}..{hi}")
    );
}
