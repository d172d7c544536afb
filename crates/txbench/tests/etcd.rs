//! Retwis on a three-member etcd cluster of the test's own, its leader killed
//! by the run's own fault schedule: the run goes on on the new leader, and
//! the conflicts, the failed transactions and the outage are in the results.
#![cfg(feature = "etcd")]

use txbench_test_support::etcd_cluster;
mod support;

use etcd_cluster::EtcdCluster;
use support::{errors_by_kind, text, txbench_output as txbench};

#[test]
fn retwis_goes_on_when_the_leader_is_killed() {
    let Some(cluster) = EtcdCluster::up(&[23979, 23989, 23999]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let db = cluster.url();
    let out = txbench(dir, &["retwis", "load", "--db", &db, "--keys", "2000"]);
    assert!(out.status.success(), "{}", text(&out));
    let kill = cluster.kill_leader_command();
    let out = txbench(
        dir,
        &[
            "retwis",
            "run",
            "--db",
            &db,
            "--zipf",
            "0.99",
            "-t",
            "16",
            "-d",
            "8s",
            "--warmup",
            "1s",
            "-q",
            "--fault-at",
            "3s",
            "--fault-cmd",
            &kill,
        ],
    );
    let shown = text(&out);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{shown}");
    assert_eq!(cluster.running().len(), 2, "{shown}");
    let results = dir.join("results");
    let summary = support::only_result(&results, "summary.json");
    let version = summary["server_version"].as_str().unwrap_or_default();
    assert!(
        version.ends_with("3 members, linearizable reads"),
        "{version}"
    );
    let errors = errors_by_kind(&summary);
    assert!(
        errors.get("conflict").copied().unwrap_or(0) > 0,
        "{errors:?}"
    );
    let fault = &summary["faults"][0];
    assert_eq!(fault["exit_code"], 0, "{fault}");
    let impact = &fault["impact"];
    assert!(impact["first_answer_s"].as_f64().is_some(), "{impact}");
    let after: f64 = support::rates_after(impact, 2.0).iter().sum();
    assert!(after > 10.0, "the run went on: {impact}");
    // The sessions on the killed member failed and moved to a survivor.
    assert!(
        errors.get("connection").copied().unwrap_or(0) > 0,
        "{errors:?}"
    );
    assert!(impact["reconnections"].as_u64().unwrap() > 0, "{impact}");
    assert!(impact["unavailable_s"].as_f64().unwrap() > 0.0, "{impact}");
    eprintln!("{errors:?}\n{impact}");
}
