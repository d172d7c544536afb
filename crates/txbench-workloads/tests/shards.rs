//! Sharded workloads: each shard draws only its contiguous part of the scale,
//! and the shards of a TPC-C run are, terminal for terminal, the whole run.

use std::collections::HashMap;

use txbench_core::{Shard, Terminal, Workload};
use txbench_workloads::retwis::Retwis;
use txbench_workloads::retwis::input::Op;
use txbench_workloads::tatp::Tatp;
use txbench_workloads::tatp::input::TatpInput;
use txbench_workloads::tpcc::Tpcc;
use txbench_workloads::tpcc::random::NurandConstants;

fn tpcc(warehouses: i64) -> Tpcc {
    Tpcc::new(
        warehouses,
        NurandConstants {
            c_last: 1,
            c_id: 2,
            ol_i_id: 3,
        },
    )
}

#[test]
fn tpcc_shards_together_are_the_whole_run_terminal_for_terminal() {
    let (warehouses, shards, seed) = (12, 4, 99);
    let whole = tpcc(warehouses);
    // (warehouse, district) -> the first three inputs the terminal draws.
    let draws = |w: &Tpcc, n: usize| -> HashMap<(i64, i64), String> {
        (0..n)
            .map(|i| {
                let mut t = w.terminal(i, seed);
                let key = (t.warehouse(), t.district());
                let inputs: Vec<String> = (0..3).map(|_| format!("{:?}", t.next().input)).collect();
                (key, inputs.join(";"))
            })
            .collect()
    };
    let expected = draws(&whole, whole.default_terminals());
    assert_eq!(expected.len(), 120);
    let mut union = HashMap::new();
    for i in 0..shards {
        let mut part = tpcc(warehouses);
        part.shard(Shard::new(i, shards).unwrap()).unwrap();
        assert_eq!(part.default_terminals(), 30);
        let lo = 3 * i64::from(i) + 1;
        for (key, inputs) in draws(&part, part.default_terminals()) {
            assert!(
                (lo..lo + 3).contains(&key.0),
                "shard {i} drove warehouse {}",
                key.0
            );
            assert!(union.insert(key, inputs).is_none(), "{key:?} twice");
        }
    }
    assert_eq!(union, expected);
}

fn tatp_subscriber(input: &TatpInput) -> i64 {
    match input {
        TatpInput::GetSubscriberData { s_id }
        | TatpInput::GetNewDestination { s_id, .. }
        | TatpInput::GetAccessData { s_id, .. }
        | TatpInput::UpdateSubscriberData { s_id, .. } => *s_id,
        TatpInput::UpdateLocation { sub_nbr, .. }
        | TatpInput::InsertCallForwarding { sub_nbr, .. }
        | TatpInput::DeleteCallForwarding { sub_nbr, .. } => sub_nbr.as_str().parse().unwrap(),
    }
}

#[test]
fn tatp_shards_draw_subscribers_from_their_range_on_their_own_streams() {
    let mut first_draws = Vec::new();
    for i in 0..3 {
        let mut w = Tatp::new(30_000);
        w.shard(Shard::new(i, 3).unwrap()).unwrap();
        let lo = 10_000 * i64::from(i) + 1;
        let mut seen = (i64::MAX, i64::MIN);
        let mut t = w.terminal(0, 5);
        for _ in 0..50_000 {
            let s = tatp_subscriber(&t.next().input);
            assert!(
                (lo..lo + 10_000).contains(&s),
                "shard {i} drew subscriber {s}"
            );
            seen = (seen.0.min(s), seen.1.max(s));
        }
        // NURand over the range reaches (nearly) both ends of it.
        assert!(seen.0 < lo + 100 && seen.1 > lo + 9_900, "{seen:?}");
        first_draws.push(format!("{:?}", w.terminal(0, 5).next().input));
    }
    assert_eq!(
        Tatp::new(10)
            .shard(Shard::new(0, 11).unwrap())
            .unwrap_err()
            .to_string(),
        "10 subscribers cannot be split into 11 shards: each shard needs at least one"
    );
    // Terminal 0 of each shard is not the same random stream shifted.
    assert!(first_draws[0] != first_draws[1] || first_draws[1] != first_draws[2]);
}

#[test]
fn retwis_shards_draw_keys_from_their_range_hottest_first() {
    for i in 0..4 {
        let mut w = Retwis::new(1_000, 16, 0.99, 1).unwrap();
        w.shard(Shard::new(i, 4).unwrap()).unwrap();
        let lo = 250 * u64::from(i) + 1;
        let mut hits = HashMap::new();
        let mut t = w.terminal(0, 3);
        for _ in 0..20_000 {
            for op in t.next().input.ops {
                let (Op::Get(k) | Op::Put(k)) = op;
                assert!((lo..lo + 250).contains(&k), "shard {i} drew key {k}");
                *hits.entry(k).or_insert(0u32) += 1;
            }
        }
        let hottest = hits.iter().max_by_key(|(_, n)| **n).map(|(k, _)| *k);
        assert_eq!(hottest, Some(lo));
    }
}
