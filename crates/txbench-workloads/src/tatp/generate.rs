//! Row generation for the initial population, by unit of [`CHUNK`] subscribers.
//!
//! Each unit draws from its own random stream derived from (seed, unit), so units
//! can be generated in any order on any thread and give the same database.

use txbench_core::Value;
use txbench_core::rng::Rand;
use txbench_core::value::RowBatch;

use super::constants::{ACTIVE_SHARE, CHUNK, START_TIMES};
use super::schema::{self, sub_nbr};

/// Units (chunks of subscribers) of a population of `subscribers`.
pub fn units(subscribers: i64) -> Vec<i64> {
    (0..(subscribers + CHUNK - 1) / CHUNK).collect()
}

/// Rows a population holds on average: per subscriber one subscriber row, 2.5
/// access-info rows, 2.5 special facilities and 1.5 call forwardings for
/// each, and its number's row in the alternative key's index.
pub fn expected_rows(subscribers: i64) -> u64 {
    (subscribers as f64 * (1.0 + 2.5 + 2.5 + 2.5 * 1.5 + 1.0)) as u64
}

/// `n` random upper-case letters.
fn letters(rng: &mut Rand, n: usize) -> String {
    (0..n)
        .map(|_| char::from(b'A' + rng.uniform(0, 25) as u8))
        .collect()
}

/// `k` distinct values of `items`, in random order.
fn distinct<const N: usize>(rng: &mut Rand, mut items: [i64; N], k: usize) -> Vec<i64> {
    rng.shuffle(&mut items);
    items[..k].to_vec()
}

/// The rows of subscribers `chunk * CHUNK + 1 ..= min((chunk + 1) * CHUNK, subscribers)`.
pub fn generate(seed: u64, subscribers: i64, chunk: i64) -> Vec<RowBatch> {
    let mut rng = Rand::derive(seed, chunk as u64);
    let first = chunk * CHUNK + 1;
    let last = ((chunk + 1) * CHUNK).min(subscribers);
    let n = (last - first + 1).max(0) as usize;
    let mut subs = RowBatch::for_table(&schema::SUBSCRIBER, n);
    let mut access = RowBatch::for_table(&schema::ACCESS_INFO, n * 5 / 2);
    let mut facilities = RowBatch::for_table(&schema::SPECIAL_FACILITY, n * 5 / 2);
    let mut forwarding = RowBatch::for_table(&schema::CALL_FORWARDING, n * 4);
    let mut numbers = RowBatch::for_table(&schema::SUBSCRIBER_NBR, n);
    for s_id in first..=last {
        subs.values.push(Value::Int(s_id));
        subs.values.push(Value::Text(sub_nbr(s_id)));
        numbers.values.push(Value::Text(sub_nbr(s_id)));
        numbers.values.push(Value::Int(s_id));
        for (lo, hi) in [(0, 1), (0, 15), (0, 255)] {
            for _ in 0..10 {
                subs.values.push(Value::Int(rng.uniform(lo, hi)));
            }
        }
        subs.values
            .push(Value::Int(rng.uniform(1, u32::MAX as i64)));
        subs.values
            .push(Value::Int(rng.uniform(1, u32::MAX as i64)));

        let k = rng.uniform(1, 4) as usize;
        for ai_type in distinct(&mut rng, [1, 2, 3, 4], k) {
            access.values.push(Value::Int(s_id));
            access.values.push(Value::Int(ai_type));
            access.values.push(Value::Int(rng.uniform(0, 255)));
            access.values.push(Value::Int(rng.uniform(0, 255)));
            access.values.push(Value::Text(letters(&mut rng, 3)));
            access.values.push(Value::Text(letters(&mut rng, 5)));
        }

        let k = rng.uniform(1, 4) as usize;
        for sf_type in distinct(&mut rng, [1, 2, 3, 4], k) {
            facilities.values.push(Value::Int(s_id));
            facilities.values.push(Value::Int(sf_type));
            facilities
                .values
                .push(Value::Int(i64::from(rng.unit() < ACTIVE_SHARE)));
            facilities.values.push(Value::Int(rng.uniform(0, 255)));
            facilities.values.push(Value::Int(rng.uniform(0, 255)));
            facilities.values.push(Value::Text(letters(&mut rng, 5)));
            let calls = rng.uniform(0, 3) as usize;
            for start in distinct(&mut rng, START_TIMES, calls) {
                forwarding.values.push(Value::Int(s_id));
                forwarding.values.push(Value::Int(sf_type));
                forwarding.values.push(Value::Int(start));
                forwarding
                    .values
                    .push(Value::Int(start + rng.uniform(1, 8)));
                forwarding.values.push(Value::Text(rng.nstring(15, 15)));
            }
        }
    }
    vec![subs, access, facilities, forwarding, numbers]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    #[test]
    fn the_population_follows_the_rules() {
        let batches = generate(7, 25_000, 2);
        let [subs, access, facilities, forwarding, numbers] = &batches[..] else {
            panic!("four tables and the index")
        };
        // The index: each subscriber's number and id, in the same order.
        assert_eq!(numbers.len(), subs.len());
        for (index, sub) in numbers.rows().zip(subs.rows()) {
            assert_eq!((&index[0], &index[1]), (&sub[1], &sub[0]));
        }
        assert_eq!(subs.len(), 5_000, "the last chunk holds 20,001..25,000");
        for row in subs.rows() {
            let s_id = row[0].as_i64().unwrap();
            assert!((20_001..=25_000).contains(&s_id));
            assert_eq!(row[1].as_str().unwrap(), format!("{s_id:015}"));
            assert!(
                row[2..12]
                    .iter()
                    .all(|v| (0..=1).contains(&v.as_i64().unwrap()))
            );
            assert!(
                row[12..22]
                    .iter()
                    .all(|v| (0..=15).contains(&v.as_i64().unwrap()))
            );
            assert!(
                row[22..32]
                    .iter()
                    .all(|v| (0..=255).contains(&v.as_i64().unwrap()))
            );
        }
        // 1..4 distinct types per subscriber, 2.5 on average.
        for batch in [access, facilities] {
            let mut types: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
            for row in batch.rows() {
                let fresh = types
                    .entry(row[0].as_i64().unwrap())
                    .or_default()
                    .insert(row[1].as_i64().unwrap());
                assert!(fresh, "duplicate type in {}", batch.table);
            }
            assert_eq!(types.len(), 5_000);
            assert!(types.values().all(|t| (1..=4).contains(&t.len())));
            let mean = batch.len() as f64 / 5_000.0;
            assert!(
                (mean - 2.5).abs() < 0.05,
                "{} per subscriber: {mean}",
                batch.table
            );
        }
        let active = facilities
            .rows()
            .filter(|r| r[2].as_i64() == Some(1))
            .count() as f64
            / facilities.len() as f64;
        assert!((active - 0.85).abs() < 0.02, "active share {active}");
        // 0..3 forwardings per facility with distinct start times, 1.5 on average.
        let mut starts: BTreeMap<(i64, i64), BTreeSet<i64>> = BTreeMap::new();
        for row in forwarding.rows() {
            let start = row[2].as_i64().unwrap();
            let end = row[3].as_i64().unwrap();
            assert!(START_TIMES.contains(&start) && (start + 1..=start + 8).contains(&end));
            assert_eq!(row[4].as_str().unwrap().len(), 15);
            let key = (row[0].as_i64().unwrap(), row[1].as_i64().unwrap());
            assert!(starts.entry(key).or_default().insert(start));
        }
        let mean = forwarding.len() as f64 / facilities.len() as f64;
        assert!((mean - 1.5).abs() < 0.05, "forwardings per facility {mean}");
    }

    #[test]
    fn units_cover_every_subscriber_once() {
        assert_eq!(units(100_000).len(), 10);
        assert_eq!(units(100_001).len(), 11);
        assert_eq!(generate(1, 100_001, 10)[0].len(), 1);
    }
}
