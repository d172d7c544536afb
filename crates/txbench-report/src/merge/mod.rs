//! Exact merges of runs made at the same time (one per client machine): the
//! runs' per-second intervals inside the common measurement window are added,
//! histograms bucket by bucket and counts one by one; nothing is averaged.
//!
//! An interval belongs to the common window when its middle lies inside it; an
//! interval after a run's own window (its grace: what was due in the window and
//! completed after it, and what was given up) counts in that window's last
//! second. The merged measured length is the mean of the seconds each run
//! contributed (they differ by a fraction of a second), so throughput and tpmC
//! over it are the runs' rates added up.

//!
//! `read` reads a run's files, `validate` says whether runs can be merged,
//! and `combine` adds them up.

use std::io;

mod combine;
mod read;
mod validate;

pub use combine::{Merged, merge};
pub use read::{RunFiles, Timeline, TimelineRow, TypeCounts, read_run, read_timeline};
pub use validate::check_shard_set;

/// Why runs cannot be merged.
fn refuse(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intervals::IntervalWriter;
    use crate::intervals::{HLOG_FILE, Interval, TIMELINE_FILE};
    use crate::results::write_summary;
    use std::path::Path;
    use std::time::Duration;
    use std::time::SystemTime;
    use txbench_core::recorder::Completion;
    use txbench_core::recorder::Recorder;
    use txbench_core::rng::Rand;
    use txbench_core::{DbError, Outcome};

    const START: f64 = 1_800_000_000.0;

    /// (second, type, latency us) of every transaction of a run.
    fn samples() -> Vec<(u64, usize, u64)> {
        let mut rng = Rand::new(5);
        (0..5u64)
            .flat_map(|s| (0..400).map(move |_| s))
            .map(|s| {
                (
                    s,
                    rng.uniform(0, 1) as usize,
                    rng.uniform(50, 50_000) as u64,
                )
            })
            .collect()
    }

    /// Write a results directory holding `samples`, one interval a second.
    fn write_run(dir: &Path, samples: &[(u64, usize, u64)], warehouses: i64, start: f64) {
        std::fs::create_dir_all(dir).unwrap();
        let writer =
            IntervalWriter::create(dir, vec!["a".into(), "b".into()], vec!["get".into()]).unwrap();
        let ok: Result<Outcome, DbError> = Ok(Outcome::Committed);
        for second in 0..5u64 {
            let mut numbers = Recorder::new(2);
            for &(_, t, us) in samples.iter().filter(|s| s.0 == second) {
                numbers.record(
                    &Completion {
                        txn_type: t,
                        latency: Duration::from_micros(us),
                        service: Duration::from_micros(us / 3),
                        queue: Duration::from_micros(us - us / 3),
                        phases: Default::default(),
                        retries: 0,
                        retry_causes: &[],
                        result: &ok,
                        // Type b's sessions kept kernel timestamps.
                        wire: (t == 1).then(|| txbench_wire::Wire {
                            time: Duration::from_micros(us / 4),
                            kind: txbench_wire::Kind::Software,
                            round_trips: 1,
                        }),
                    },
                    true,
                );
                // One timed "get" of a tenth of the transaction's time each.
                numbers.record_operations(&[(0, Duration::from_micros(us / 10))], true);
            }
            writer.push(Interval {
                window_start: SystemTime::UNIX_EPOCH + Duration::from_secs_f64(start),
                start: Duration::from_secs(second),
                length: Duration::from_secs(1),
                numbers,
                figures: Vec::new(),
            });
        }
        writer.finish().unwrap();
        write_summary(dir, &crate::fixtures::summary(warehouses, start)).unwrap();
    }

    #[test]
    fn merging_two_halves_equals_the_single_run() {
        let dir = tempfile::tempdir().unwrap();
        let all = samples();
        let (odd, even): (Vec<_>, Vec<_>) = all.iter().enumerate().partition(|(i, _)| i % 2 == 1);
        let strip = |v: Vec<(usize, &(u64, usize, u64))>| {
            v.into_iter().map(|(_, s)| *s).collect::<Vec<_>>()
        };
        write_run(&dir.path().join("a"), &strip(odd), 2, START);
        write_run(&dir.path().join("b"), &strip(even), 2, START);
        write_run(&dir.path().join("all"), &all, 2, START);

        let halves = [
            read_run(&dir.path().join("a")).unwrap(),
            read_run(&dir.path().join("b")).unwrap(),
        ];
        let merged = merge(&halves).unwrap();
        let single = merge(&[read_run(&dir.path().join("all")).unwrap()]).unwrap();
        for (m, s) in merged
            .result
            .transactions
            .iter()
            .zip(&single.result.transactions)
        {
            assert_eq!(m.committed, s.committed);
            assert!(m.committed > 900, "{m:?}");
            assert_eq!(m.latency_ms, s.latency_ms, "{}", m.key);
            assert_eq!(m.service_ms, s.service_ms);
            assert_eq!(m.queue_ms, s.queue_ms);
            // The time on the wire too, from its own tag, where there was one.
            assert_eq!(m.wire_ms, s.wire_ms, "{}", m.key);
            assert_eq!(m.wire_ms.is_some(), m.key == "b");
        }
        assert_eq!(merged.result.measured_secs, 5.0);
        assert_eq!(merged.result.merged_from.len(), 2);
        // Each run by its own figures, in the order given.
        let parts: Vec<(&str, f64)> = merged
            .result
            .parts
            .iter()
            .map(|p| (p.dir.rsplit('/').next().unwrap(), p.cpu_secs))
            .collect();
        assert_eq!(parts, [("a", 0.0), ("b", 0.0)]);
        assert_eq!(
            merged.result.total_latency_ms,
            single.result.total_latency_ms
        );
        assert_eq!(
            merged.result.total_latency_ms.as_ref().unwrap().samples,
            all.len() as u64
        );
        // Timed operations merge exactly too, from their own tags.
        assert_eq!(merged.result.operations, single.result.operations);
        let gets = &merged.result.operations[0];
        assert_eq!(
            (gets.name.as_str(), gets.latency_ms.samples),
            ("get", all.len() as u64)
        );
        for (m, s) in merged.intervals.iter().zip(&single.intervals) {
            assert_eq!(m.numbers.measured[0].latency, s.numbers.measured[0].latency);
        }
        // And the single run's merged percentiles are the recorded ones: p50 of
        // type a straight from the samples.
        let mut a: Vec<u64> = all.iter().filter(|s| s.1 == 0).map(|s| s.2).collect();
        a.sort_unstable();
        let p50 = a[(a.len() - 1) / 2] as f64 / 1000.0;
        let got = merged.result.transactions[0].latency_ms.p50;
        assert!((got - p50).abs() / p50 < 0.002, "p50 {got} vs {p50}");
    }

    #[test]
    fn refuses_a_run_given_twice_or_with_its_copy() {
        let dir = tempfile::tempdir().unwrap();
        let all = samples();
        write_run(&dir.path().join("a"), &all, 2, START);
        write_run(&dir.path().join("copy"), &all, 2, START);
        for other in ["a", "copy"] {
            let runs = [
                read_run(&dir.path().join("a")).unwrap(),
                read_run(&dir.path().join(other)).unwrap(),
            ];
            let e = merge(&runs).err().expect("refused");
            assert!(e.to_string().contains("same run"), "{e}");
        }
    }

    /// A results file damaged in one of three ways: cut short, bytes
    /// overwritten, or replaced by random bytes.
    fn damage(path: &Path, how: u8, at: usize, bytes: &[u8]) {
        let mut data = std::fs::read(path).unwrap();
        let at = at % (data.len() + 1);
        match how % 3 {
            0 => data.truncate(at),
            1 => {
                for (i, b) in bytes.iter().enumerate() {
                    if let Some(d) = data.get_mut(at + i) {
                        *d = *b;
                    }
                }
            }
            _ => data = bytes.to_vec(),
        }
        std::fs::write(path, data).unwrap();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Whatever happens to summary.json, intervals.hlog or timeline.csv,
        /// reading and merging the run answers or refuses; it never panics.
        #[test]
        fn damaged_results_are_read_or_refused(
            file in 0usize..3,
            how in 0u8..3,
            at in 0usize..100_000,
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let all = samples();
            write_run(&dir.path().join("a"), &all, 2, START);
            write_run(&dir.path().join("b"), &all[..1000], 2, START);
            let name = [crate::results::SUMMARY_FILE, HLOG_FILE, TIMELINE_FILE][file];
            damage(&dir.path().join("b").join(name), how, at, &bytes);
            if let Ok(b) = read_run(&dir.path().join("b")) {
                let a = read_run(&dir.path().join("a")).unwrap();
                let _ = merge(&[a, b]);
            }
        }
    }

    #[test]
    fn refuses_other_scales_and_runs_that_did_not_overlap() {
        let dir = tempfile::tempdir().unwrap();
        let all = samples();
        write_run(&dir.path().join("a"), &all, 2, START);
        write_run(&dir.path().join("b"), &all, 3, START);
        write_run(&dir.path().join("late"), &all, 2, START + 60.0);
        let a = read_run(&dir.path().join("a")).unwrap();
        let e = merge(&[a, read_run(&dir.path().join("b")).unwrap()])
            .err()
            .unwrap();
        assert!(e.to_string().contains("warehouses = 3"), "{e}");
        let a = read_run(&dir.path().join("a")).unwrap();
        let e = merge(&[a, read_run(&dir.path().join("late")).unwrap()])
            .err()
            .unwrap();
        assert!(e.to_string().contains("not run at the same time"), "{e}");
    }

    /// Two files that name their workload alike (a 50/50 and a 90/10 mix
    /// merged to 75/25 in the issue) are not one workload.
    #[test]
    fn refuses_runs_of_different_workload_files() {
        let dir = tempfile::tempdir().unwrap();
        let all = samples();
        write_run(&dir.path().join("a"), &all, 2, START);
        // Another client's run: it started half a second later.
        write_run(&dir.path().join("b"), &all, 2, START + 0.5);
        let of_file = |run: &str, digest: &str| {
            let mut r = read_run(&dir.path().join(run)).unwrap();
            r.summary.parameters.insert(
                txbench_core::result::FILE_DIGEST_PARAMETER.into(),
                digest.into(),
            );
            r
        };
        let e = merge(&[of_file("a", "5050"), of_file("b", "9010")])
            .err()
            .unwrap();
        assert!(
            e.to_string().contains("ran another workload file than"),
            "{e}"
        );
        let e = merge(&[
            of_file("a", "5050"),
            read_run(&dir.path().join("b")).unwrap(),
        ])
        .err()
        .unwrap();
        assert!(e.to_string().contains("file_sha256 differs"), "{e}");
        let same = merge(&[of_file("a", "5050"), of_file("b", "5050")]);
        assert!(same.is_ok(), "{:?}", same.err());
    }

    #[test]
    fn refuses_runs_older_than_typed_settings_and_shards_that_differ() {
        let dir = tempfile::tempdir().unwrap();
        let all = samples();
        write_run(&dir.path().join("a"), &all, 2, START);
        write_run(&dir.path().join("old"), &all, 2, START);
        let (a, mut old) = (
            read_run(&dir.path().join("a")).unwrap(),
            read_run(&dir.path().join("old")).unwrap(),
        );
        old.summary.settings = None;
        old.summary.schema_version = 2;
        let e = merge(&[a, old]).err().unwrap();
        assert!(e.to_string().contains("results schema 2"), "{e}");

        let shard = |i: u32, seed: u64| {
            let mut r = read_run(&dir.path().join("a")).unwrap();
            let s = r.summary.settings.as_mut().unwrap();
            (s.shard_index, s.shards, s.seed) = (i, 2, seed);
            r
        };
        let e = merge(&[shard(0, 1), shard(1, 2)]).err().unwrap();
        assert!(e.to_string().contains("seed differs: 1 in"), "{e}");
        let e = merge(&[shard(1, 1), shard(1, 1)]).err().unwrap();
        assert!(
            e.to_string()
                .contains("the same shard given more than once"),
            "{e}"
        );
    }

    #[test]
    fn refuses_shards_whose_clocks_disagree_by_the_servers() {
        let dir = tempfile::tempdir().unwrap();
        write_run(&dir.path().join("a"), &samples(), 2, START);
        // Each shard's own clock said its window began at START.
        let shard = |i: u32, offset_ms: f64| {
            let mut r = read_run(&dir.path().join("a")).unwrap();
            let s = r.summary.settings.as_mut().unwrap();
            (s.shard_index, s.shards) = (i, 2);
            r.summary.clock = Some(txbench_core::result::ClockOffset {
                offset_ms,
                uncertainty_ms: 0.5,
            });
            r
        };
        // Shard 1's clock runs 3 s ahead: its window began 3 s early.
        let e = check_shard_set(&[shard(0, 0.0), shard(1, -3_000.0)])
            .err()
            .unwrap();
        assert!(
            e.to_string().contains(
                "shard 0's measurement window started 3.000 s after shard 1's (more than 1 s)"
            ),
            "{e}"
        );
        assert!(check_shard_set(&[shard(0, 0.0), shard(1, -400.0)]).is_ok());
        // Without the server's clock, the recorded starts are all there is.
        let mut unknown = shard(1, -3_000.0);
        unknown.summary.clock = None;
        assert!(check_shard_set(&[shard(0, 0.0), unknown]).is_ok());
    }
}
