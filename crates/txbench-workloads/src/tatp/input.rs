//! TATP transaction inputs and the terminals that draw them: a type from the
//! standard mix, a subscriber from NURand(A, 1, N), and the other parameters
//! uniformly from their ranges. No keying or think times: TATP clients submit
//! back to back.

use std::time::Duration;

use txbench_core::rng::Rand;
use txbench_core::{Planned, Terminal};

use super::constants::{
    DELETE_CALL_FORWARDING, GET_ACCESS_DATA, GET_NEW_DESTINATION, GET_SUBSCRIBER_DATA,
    INSERT_CALL_FORWARDING, MIX_PERCENT, START_TIMES, UPDATE_LOCATION, UPDATE_SUBSCRIBER_DATA,
    nurand_a,
};

/// Fifteen decimal digits (a `sub_nbr` or a `numberx`), kept inline so drawing
/// an input allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Digits([u8; 15]);

impl Digits {
    /// `n` zero-padded to 15 digits.
    pub fn of(mut n: u64) -> Digits {
        let mut d = [b'0'; 15];
        for slot in d.iter_mut().rev() {
            *slot = b'0' + (n % 10) as u8;
            n /= 10;
        }
        Digits(d)
    }

    /// The digits as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("digits are ASCII")
    }
}

/// The input of one TATP transaction.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum TatpInput {
    /// Read one subscriber row by `s_id`.
    GetSubscriberData {
        /// The subscriber.
        s_id: i64,
    },
    /// Read the forwarding number of an active facility at a time.
    GetNewDestination {
        /// The subscriber.
        s_id: i64,
        /// The facility type, 1..4.
        sf_type: i64,
        /// A start time from {0, 8, 16}.
        start_time: i64,
        /// An end time from 1..24.
        end_time: i64,
    },
    /// Read one access-info row.
    GetAccessData {
        /// The subscriber.
        s_id: i64,
        /// The access type, 1..4.
        ai_type: i64,
    },
    /// Set a subscriber's bit_1 and a facility's data_a.
    UpdateSubscriberData {
        /// The subscriber.
        s_id: i64,
        /// The new bit_1, 0..1.
        bit_1: i64,
        /// The facility type, 1..4.
        sf_type: i64,
        /// The new data_a, 0..255.
        data_a: i64,
    },
    /// Set a subscriber's vlr_location, found by sub_nbr.
    UpdateLocation {
        /// The subscriber's number.
        sub_nbr: Digits,
        /// The new location.
        vlr_location: i64,
    },
    /// Add a call forwarding, the subscriber found by sub_nbr.
    InsertCallForwarding {
        /// The subscriber's number.
        sub_nbr: Digits,
        /// The facility type, 1..4.
        sf_type: i64,
        /// A start time from {0, 8, 16}.
        start_time: i64,
        /// An end time from 1..24.
        end_time: i64,
        /// The number calls go to.
        numberx: Digits,
    },
    /// Remove a call forwarding, the subscriber found by sub_nbr.
    DeleteCallForwarding {
        /// The subscriber's number.
        sub_nbr: Digits,
        /// The facility type, 1..4.
        sf_type: i64,
        /// A start time from {0, 8, 16}.
        start_time: i64,
    },
}

/// Draws inputs for a population of `subscribers`.
#[derive(Debug, Clone, Copy)]
pub struct InputGenerator {
    /// Subscribers in the database.
    pub subscribers: i64,
    /// The A of NURand(A, 1, subscribers).
    pub a: i64,
    /// The subscribers drawn from: all (1..=subscribers), or a shard's range.
    pub drawn: (i64, i64),
}

impl InputGenerator {
    /// A generator for a population of `subscribers`.
    pub fn new(subscribers: i64) -> Self {
        InputGenerator {
            subscribers,
            a: nurand_a(subscribers),
            drawn: (1, subscribers),
        }
    }

    /// A subscriber id from NURand(A, 1, N) = ((random(0, A) | random(1, N)) mod N) + 1,
    /// or over a shard's range x..=y, ((random(0, A) | random(x, y)) mod (y - x + 1)) + x
    /// with the population's A.
    pub fn subscriber(&self, rng: &mut Rand) -> i64 {
        rng.nurand(self.a, self.drawn.0, self.drawn.1, 0)
    }

    /// The type index of the next transaction, from the standard mix.
    pub fn next_type(rng: &mut Rand) -> usize {
        let p = rng.uniform(1, 100) as u8;
        MIX_PERCENT
            .iter()
            .position(|&edge| p <= edge)
            .expect("the mix ends at 100")
    }

    /// An input of type `txn_type`.
    pub fn input(&self, rng: &mut Rand, txn_type: usize) -> TatpInput {
        let s_id = self.subscriber(rng);
        // Drawn per type, only where the transaction uses them.
        let sub_nbr = || Digits::of(s_id as u64);
        let start_time = |rng: &mut Rand| START_TIMES[rng.uniform(0, 2) as usize];
        match txn_type {
            GET_SUBSCRIBER_DATA => TatpInput::GetSubscriberData { s_id },
            GET_NEW_DESTINATION => TatpInput::GetNewDestination {
                s_id,
                sf_type: rng.uniform(1, 4),
                start_time: start_time(rng),
                end_time: rng.uniform(1, 24),
            },
            GET_ACCESS_DATA => TatpInput::GetAccessData {
                s_id,
                ai_type: rng.uniform(1, 4),
            },
            UPDATE_SUBSCRIBER_DATA => TatpInput::UpdateSubscriberData {
                s_id,
                bit_1: rng.uniform(0, 1),
                sf_type: rng.uniform(1, 4),
                data_a: rng.uniform(0, 255),
            },
            UPDATE_LOCATION => TatpInput::UpdateLocation {
                sub_nbr: sub_nbr(),
                vlr_location: rng.uniform(1, u32::MAX as i64),
            },
            INSERT_CALL_FORWARDING => TatpInput::InsertCallForwarding {
                sub_nbr: sub_nbr(),
                sf_type: rng.uniform(1, 4),
                start_time: start_time(rng),
                end_time: rng.uniform(1, 24),
                numberx: Digits::of(rng.uniform(0, 999_999_999_999_999) as u64),
            },
            DELETE_CALL_FORWARDING => TatpInput::DeleteCallForwarding {
                sub_nbr: sub_nbr(),
                sf_type: rng.uniform(1, 4),
                start_time: start_time(rng),
            },
            other => unreachable!("TATP has seven transaction types, not {other}"),
        }
    }
}

/// One TATP client: draws the next transaction from the mix.
#[derive(Debug, Clone)]
pub struct TatpTerminal {
    rng: Rand,
    inputs: InputGenerator,
}

impl TatpTerminal {
    /// Terminal `index` of a run, with its own random stream.
    pub fn new(index: usize, seed: u64, inputs: InputGenerator) -> Self {
        TatpTerminal::on_stream(index as u64, seed, inputs)
    }

    /// A terminal with random stream `stream` of `seed`.
    pub fn on_stream(stream: u64, seed: u64, inputs: InputGenerator) -> Self {
        TatpTerminal {
            rng: Rand::derive(seed, stream),
            inputs,
        }
    }
}

impl Terminal for TatpTerminal {
    type Input = TatpInput;

    fn next(&mut self) -> Planned<TatpInput> {
        let txn_type = InputGenerator::next_type(&mut self.rng);
        Planned {
            input: self.inputs.input(&mut self.rng, txn_type),
            txn_type,
            keying: Duration::ZERO,
            think: Duration::ZERO,
        }
    }
}

/// Insert-Call-Forwarding's input, borrowed from a [`TatpInput`].
pub struct Forwarding<'a> {
    /// The subscriber's number.
    pub sub_nbr: &'a str,
    /// The facility's type.
    pub sf_type: i64,
    /// The forwarding's start (0, 8 or 16).
    pub start_time: i64,
    /// Its end.
    pub end_time: i64,
    /// The number forwarded to.
    pub numberx: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tatp::constants::TXN_TYPES;

    #[test]
    fn the_mix_is_the_standard_one() {
        let mut rng = Rand::new(3);
        let n = 1_000_000;
        let mut counts = [0u32; 7];
        for _ in 0..n {
            counts[InputGenerator::next_type(&mut rng)] += 1;
        }
        for (t, c) in TXN_TYPES.iter().zip(counts) {
            let share = f64::from(c) / f64::from(n);
            // Binomial standard error is at most 0.0005 here.
            assert!((share - t.mix).abs() < 0.002, "{}: {share}", t.name);
        }
        let total: f64 = TXN_TYPES.iter().map(|t| t.mix).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }

    #[test]
    fn subscribers_follow_nurand_with_the_specified_a() {
        let g = InputGenerator::new(100_000);
        assert_eq!(g.a, 65_535);
        assert_eq!(InputGenerator::new(2_000_000).a, 1_048_575);
        assert_eq!(InputGenerator::new(20_000_000).a, 2_097_151);
        let mut rng = Rand::new(5);
        let mut hits = vec![0u32; 100_001];
        for _ in 0..2_000_000 {
            let s = g.subscriber(&mut rng);
            assert!((1..=100_000).contains(&s));
            hits[s as usize] += 1;
        }
        // The OR skews towards ids with many one bits in the A's 16 bits: ids with
        // at least 14 of them are drawn far more often than ids with at most 2.
        let mean_hits = |keep: &dyn Fn(u32) -> bool| {
            let ids: Vec<usize> = (1..=100_000usize)
                .filter(|&id| keep(((id - 1) as u32 & 0xffff).count_ones()))
                .collect();
            ids.iter().map(|&id| f64::from(hits[id])).sum::<f64>() / ids.len() as f64
        };
        let (many, few) = (mean_hits(&|ones| ones >= 14), mean_hits(&|ones| ones <= 2));
        assert!(many > 50.0 * few.max(0.01), "many ones {many}, few {few}");
    }

    #[test]
    fn digits_are_zero_padded() {
        assert_eq!(Digits::of(42).as_str(), "000000000000042");
        assert_eq!(Digits::of(999_999_999_999_999).as_str(), "999999999999999");
    }
}
