//! YCSB's core workloads held to YCSB's definitions over long draws: each
//! workload's operation mix, the zipfian key popularity (theta 0.99, ranks
//! scrambled over the keys), latest skewed to the newest insert, and insert
//! keys drawn by concurrent terminals with no gap and no duplicate.

use std::collections::HashMap;
use std::sync::Arc;

use txbench_core::rng::Rand;
use txbench_core::{Terminal, Workload};
use txbench_workloads::custom::draw::{Draw, NextKeys};
use txbench_workloads::custom::run::{Drawn, FileWorkload};
use txbench_workloads::custom::ycsb::{self, Core};
use txbench_workloads::custom::{Generator, KeyRange};

/// Operations drawn per workload.
const DRAWS: usize = 200_000;
/// Records in the table drawn from.
const RECORDS: i64 = 10_000;

/// How many standard deviations a measured share may be from its expectation.
const SIGMAS: f64 = 5.0;

fn within(measured: f64, expected: f64, n: usize, what: &str) {
    let sd = (expected * (1.0 - expected) / n as f64).sqrt();
    assert!(
        (measured - expected).abs() <= SIGMAS * sd + 1e-12,
        "{what}: measured {measured:.5}, expected {expected:.5} (sd {sd:.5})"
    );
}

/// Zipf's rank-frequency with exponent `theta` over `n` ranks: rank r's
/// probability, r from 1.
fn zipf_probability(r: u64, n: u64, theta: f64) -> f64 {
    let h: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
    (r as f64).powf(-theta) / h
}

/// `DRAWS` operations of core workload `w`: each one's type index and key.
fn draws(w: Core) -> (FileWorkload, Vec<(usize, i64)>) {
    let workload = FileWorkload::new(ycsb::spec(w, None), RECORDS);
    let mut terminal = workload.terminal(0, 7);
    let ops = (0..DRAWS)
        .map(|_| {
            let planned = terminal.next();
            let Drawn::Int(key) = planned.input.params[0] else {
                panic!("a key first: {:?}", planned.input.params)
            };
            (planned.txn_type, key)
        })
        .collect();
    (workload, ops)
}

#[test]
fn every_core_workload_draws_ycsb_s_operation_mix() {
    // YCSB's core workload properties: proportions of read, update, insert,
    // scan and read-modify-write.
    let mixes: [(Core, &[(&str, f64)]); 6] = [
        (Core::A, &[("Read", 0.5), ("Update", 0.5)]),
        (Core::B, &[("Read", 0.95), ("Update", 0.05)]),
        (Core::C, &[("Read", 1.0)]),
        (Core::D, &[("Read", 0.95), ("Insert", 0.05)]),
        (Core::E, &[("Scan", 0.95), ("Insert", 0.05)]),
        (Core::F, &[("Read", 0.5), ("Read-Modify-Write", 0.5)]),
    ];
    for (w, mix) in mixes {
        let (workload, ops) = draws(w);
        let types = workload.transaction_types();
        assert_eq!(types.len(), mix.len(), "{w:?}");
        for (i, (name, share)) in mix.iter().enumerate() {
            assert_eq!(types[i].name, *name, "{w:?}");
            let n = ops.iter().filter(|(t, _)| *t == i).count();
            within(
                n as f64 / DRAWS as f64,
                *share,
                DRAWS,
                &format!("{w:?} {name}"),
            );
        }
    }
}

#[test]
fn requests_follow_zipf_with_theta_0_99_scrambled_over_the_keys() {
    let (_, ops) = draws(Core::C);
    let mut counts: HashMap<i64, usize> = HashMap::new();
    for (_, key) in &ops {
        assert!((0..RECORDS).contains(key), "{key}");
        *counts.entry(*key).or_default() += 1;
    }
    let mut by_count: Vec<(i64, usize)> = counts.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    // The most popular keys, most popular first, are ranks 1, 2, 3, ... of
    // Zipf's law over the records. (Scrambling may send two ranks to one
    // key, as YCSB's hashing does; the first ten do not collide here, which
    // the exact agreement below would show.)
    for (i, (key, n)) in by_count.iter().take(10).enumerate() {
        let p = zipf_probability(i as u64 + 1, RECORDS as u64, 0.99);
        within(
            *n as f64 / DRAWS as f64,
            p,
            DRAWS,
            &format!("rank {} (key {key})", i + 1),
        );
    }
    // Scrambled: the hot keys are spread over the key space, not its start.
    let top: Vec<i64> = by_count.iter().take(10).map(|(k, _)| *k).collect();
    assert!(top.iter().filter(|&&k| k < 10).count() <= 1, "{top:?}");
    let spread = top.iter().max().unwrap() - top.iter().min().unwrap();
    assert!(spread > RECORDS / 2, "{top:?}");
    // Unscrambled the hottest key would be the first, by the same law.
    let plain = Draw::new(
        &Generator::Zipfian {
            keys: records(),
            theta: 0.99,
            scrambled: false,
        },
        RECORDS,
        &NextKeys::default(),
        &mut Rand::new(1),
    )
    .unwrap();
    let mut rng = Rand::new(2);
    let first = (0..DRAWS)
        .filter(|_| plain.value(&mut rng, 0) == txbench_core::value::Value::Int(0))
        .count();
    within(
        first as f64 / DRAWS as f64,
        zipf_probability(1, RECORDS as u64, 0.99),
        DRAWS,
        "unscrambled key 0",
    );
}

fn records() -> KeyRange {
    KeyRange {
        table: "usertable".into(),
        column: "ycsb_key".into(),
        start: 0,
        rows: txbench_workloads::custom::Rows::PerScale(1.0),
    }
}

#[test]
fn latest_reads_the_newest_records_by_zipf_s_law() {
    // D: reads skewed to the newest record, its inserts moving the newest.
    let workload = FileWorkload::new(ycsb::spec(Core::D, None), RECORDS);
    let mut terminal = workload.terminal(0, 11);
    let (mut reads, mut at_distance) = (0usize, HashMap::<i64, usize>::new());
    let keys = workload.next_keys().of(&records(), RECORDS);
    for _ in 0..DRAWS {
        let planned = terminal.next();
        let Drawn::Int(key) = planned.input.params[0] else {
            panic!()
        };
        if planned.txn_type == 0 {
            reads += 1;
            *at_distance.entry(keys.newest_done() - key).or_default() += 1;
        } else {
            // The insert is over at once, as it is when one terminal runs.
            keys.done(key);
        }
    }
    assert!(
        at_distance.keys().all(|&d| d >= 0),
        "a read past the newest"
    );
    for d in 0..5 {
        let n = at_distance.get(&d).copied().unwrap_or(0);
        within(
            n as f64 / reads as f64,
            zipf_probability(d as u64 + 1, RECORDS as u64, 0.99),
            reads,
            &format!("distance {d} from the newest"),
        );
    }
    // The newest moved with the inserts: about 5% of the draws.
    let inserted = keys.newest_done() - (RECORDS - 1);
    within(inserted as f64 / DRAWS as f64, 0.05, DRAWS, "inserts");
}

#[test]
fn concurrent_inserters_take_every_key_once_with_no_gap() {
    let next = Arc::new(NextKeys::default());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let next = Arc::clone(&next);
            std::thread::spawn(move || {
                let mut rng = Rand::new(t);
                let insert =
                    Draw::new(&Generator::NextKey(records()), RECORDS, &next, &mut rng).unwrap();
                (0..20_000)
                    .map(|_| match insert.value(&mut rng, 0) {
                        txbench_core::value::Value::Int(k) => k,
                        other => panic!("{other:?}"),
                    })
                    .collect::<Vec<i64>>()
            })
        })
        .collect();
    let mut all: Vec<i64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    all.sort_unstable();
    let expected: Vec<i64> = (RECORDS..RECORDS + 160_000).collect();
    assert_eq!(all, expected);
}
