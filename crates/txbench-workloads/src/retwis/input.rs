//! The four Retwis transactions as TAPIR's Retwis client draws them: a type from
//! one uniform 0..99 (5% Add-User, 15% Follow, 30% Post-Tweet, 50% Get-Timeline),
//! then its reads and writes on keys from the key chooser, in this order:
//!
//! | transaction | operations |
//! |---|---|
//! | Add-User | get k1, put k1, put k2, put k3 |
//! | Follow | get k1, put k1, get k2, put k2 |
//! | Post-Tweet | get k1, put k1, get k2, put k2, get k3, put k3, put k4, put k5 |
//! | Get-Timeline | get k1 .. get kn, n uniform in 1..10 |

use txbench_core::keys::KeyChooser;
use txbench_core::rng::Rand;

/// Index of Add-User.
pub const ADD_USER: usize = 0;
/// Index of Follow.
pub const FOLLOW: usize = 1;
/// Index of Post-Tweet.
pub const POST_TWEET: usize = 2;
/// Index of Get-Timeline.
pub const GET_TIMELINE: usize = 3;

/// The cumulative mix in percent.
const MIX_PERCENT: [u8; 4] = [5, 20, 50, 100];

/// One operation of a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Op {
    /// Read a key.
    Get(u64),
    /// Write a key (the value is made at execution, of the configured size).
    Put(u64),
}

/// The input of one Retwis transaction: its operations in order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RetwisInput {
    /// The transaction type.
    pub txn_type: usize,
    /// Reads and writes, in order.
    pub ops: Vec<Op>,
}

impl RetwisInput {
    /// Whether the transaction only reads (Get-Timeline).
    pub fn read_only(&self) -> bool {
        self.ops.iter().all(|op| matches!(op, Op::Get(_)))
    }
}

/// The type of the next transaction, from the mix.
pub fn next_type(rng: &mut Rand) -> usize {
    let p = rng.uniform(0, 99) as u8;
    MIX_PERCENT
        .iter()
        .position(|&edge| p < edge)
        .expect("the mix ends at 100")
}

/// The input of a transaction of type `txn_type`.
pub fn input(rng: &mut Rand, keys: &KeyChooser, txn_type: usize) -> RetwisInput {
    let mut key = || keys.key(rng);
    let ops = match txn_type {
        ADD_USER => {
            let (a, b, c) = (key(), key(), key());
            vec![Op::Get(a), Op::Put(a), Op::Put(b), Op::Put(c)]
        }
        FOLLOW => {
            let (a, b) = (key(), key());
            vec![Op::Get(a), Op::Put(a), Op::Get(b), Op::Put(b)]
        }
        POST_TWEET => {
            let k: [u64; 5] = std::array::from_fn(|_| key());
            vec![
                Op::Get(k[0]),
                Op::Put(k[0]),
                Op::Get(k[1]),
                Op::Put(k[1]),
                Op::Get(k[2]),
                Op::Put(k[2]),
                Op::Put(k[3]),
                Op::Put(k[4]),
            ]
        }
        GET_TIMELINE => {
            let n = rng.uniform(1, 10);
            (0..n).map(|_| Op::Get(keys.key(rng))).collect()
        }
        other => unreachable!("Retwis has four transaction types, not {other}"),
    };
    RetwisInput { txn_type, ops }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(input: &RetwisInput) -> (usize, usize) {
        let gets = input
            .ops
            .iter()
            .filter(|op| matches!(op, Op::Get(_)))
            .count();
        (gets, input.ops.len() - gets)
    }

    #[test]
    fn mix_and_get_put_counts_are_retwis_as_tapir_runs_it() {
        let keys = KeyChooser::new(1_000_000, 0.75).unwrap();
        let mut rng = Rand::new(5);
        let n = 400_000u32;
        let mut per_type = [0u32; 4];
        let mut timeline_gets = [0u32; 11];
        for _ in 0..n {
            let t = next_type(&mut rng);
            per_type[t] += 1;
            let input = input(&mut rng, &keys, t);
            let (gets, puts) = counts(&input);
            match t {
                ADD_USER => assert_eq!((gets, puts), (1, 3)),
                FOLLOW => assert_eq!((gets, puts), (2, 2)),
                POST_TWEET => assert_eq!((gets, puts), (3, 5)),
                _ => {
                    assert_eq!(puts, 0);
                    assert!(input.read_only());
                    timeline_gets[gets] += 1;
                }
            }
            assert!(
                input
                    .ops
                    .iter()
                    .all(|op| matches!(op, Op::Get(k) | Op::Put(k) if (1..=1_000_000).contains(k)))
            );
        }
        for (t, share) in [0.05, 0.15, 0.30, 0.50].into_iter().enumerate() {
            let seen = f64::from(per_type[t]) / f64::from(n);
            // Binomial standard error is at most 0.0008 here.
            assert!((seen - share).abs() < 0.004, "type {t}: {seen}");
        }
        // Get-Timeline reads 1..10 keys, each count equally likely.
        assert_eq!(timeline_gets[0], 0);
        let timelines: u32 = timeline_gets.iter().sum();
        for (gets, &c) in timeline_gets.iter().enumerate().skip(1) {
            let share = f64::from(c) / f64::from(timelines);
            assert!((share - 0.1).abs() < 0.005, "{gets} gets: {share}");
        }
    }
}
