//! A TPC-C terminal: a fixed home warehouse and district, a deck of cards for the
//! mix (clause 5.2.4.2), and the keying and think times of clause 5.2.5.

use std::time::Duration;

use txbench_core::rng::Rand;
use txbench_core::workload::THINK_TRUNCATION;
use txbench_core::{Planned, Terminal};

use super::constants::{
    DECK, DECK_SIZE, DELIVERY, DISTRICTS, NEW_ORDER, ORDER_STATUS, PAYMENT, STOCK_LEVEL, TXN_TYPES,
};
use super::input::{InputGenerator, TpccInput};

/// One emulated terminal.
#[derive(Debug, Clone)]
pub struct TpccTerminal {
    rng: Rand,
    w_id: i64,
    d_id: i64,
    /// Cards of each type not yet dealt from the current pass of the deck: 12
    /// bytes, where the deck itself would be 2,000 per terminal.
    left: [u16; 5],
    /// Cards not yet dealt (the sum of `left`).
    left_total: u16,
    inputs: InputGenerator,
}

impl TpccTerminal {
    /// Terminal `index` of a run over `inputs.warehouses` warehouses.
    ///
    /// Terminals are spread over warehouses first, then districts, so that with
    /// fewer than 10 per warehouse every warehouse still gets load, and with 10
    /// per warehouse each (warehouse, district) pair has exactly one terminal.
    pub fn new(index: usize, seed: u64, inputs: InputGenerator) -> Self {
        let w = inputs.warehouses.max(1) as usize;
        let w_id = (index % w) as i64 + 1;
        let d_id = ((index / w) % DISTRICTS as usize) as i64 + 1;
        TpccTerminal::at(w_id, d_id, index as u64, seed, inputs)
    }

    /// A terminal at warehouse `w_id`, district `d_id`, with random stream
    /// `stream` of `seed` (distinct streams for distinct terminals of a run).
    pub fn at(w_id: i64, d_id: i64, stream: u64, seed: u64, inputs: InputGenerator) -> Self {
        TpccTerminal {
            rng: Rand::derive(seed, stream),
            w_id,
            d_id,
            left: DECK,
            left_total: DECK_SIZE,
            inputs,
        }
    }

    /// The home warehouse.
    pub fn warehouse(&self) -> i64 {
        self.w_id
    }

    /// The terminal's district (used by Stock-Level).
    pub fn district(&self) -> i64 {
        self.d_id
    }

    /// The next transaction type from the deck: a card drawn uniformly from
    /// those not yet dealt (which deals a shuffled deck card by card), and a
    /// fresh deck once all [`DECK_SIZE`] are dealt.
    pub fn next_type(&mut self) -> usize {
        if self.left_total == 0 {
            self.left = DECK;
            self.left_total = DECK_SIZE;
        }
        let mut pick = self.rng.uniform(0, i64::from(self.left_total) - 1) as u16;
        let mut card = 0;
        while pick >= self.left[card] {
            pick -= self.left[card];
            card += 1;
        }
        self.left[card] -= 1;
        self.left_total -= 1;
        card
    }

    fn think(&mut self, mean: Duration) -> Duration {
        let mean = mean.as_secs_f64();
        Duration::from_secs_f64(self.rng.exponential(mean).min(mean * THINK_TRUNCATION))
    }
}

impl Terminal for TpccTerminal {
    type Input = TpccInput;

    fn home(&self) -> Option<u64> {
        Some(self.w_id as u64)
    }

    fn next(&mut self) -> Planned<TpccInput> {
        let txn_type = self.next_type();
        let (rng, g, w) = (&mut self.rng, &self.inputs, self.w_id);
        let input = match txn_type {
            NEW_ORDER => TpccInput::NewOrder(g.new_order(rng, w)),
            PAYMENT => TpccInput::Payment(g.payment(rng, w)),
            ORDER_STATUS => TpccInput::OrderStatus(g.order_status(rng, w)),
            DELIVERY => TpccInput::Delivery(g.delivery(rng, w)),
            STOCK_LEVEL => TpccInput::StockLevel(g.stock_level(rng, w, self.d_id)),
            _ => unreachable!("the deck holds only the five types"),
        };
        let info = &TXN_TYPES[txn_type];
        Planned {
            input,
            txn_type,
            keying: info.keying,
            think: self.think(info.mean_think),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tpcc::random::NurandConstants;

    fn terminal(index: usize, warehouses: i64) -> TpccTerminal {
        let inputs = InputGenerator {
            warehouses,
            constants: NurandConstants {
                c_last: 1,
                c_id: 2,
                ol_i_id: 3,
            },
        };
        TpccTerminal::new(index, 42, inputs)
    }

    #[test]
    fn every_pass_of_the_deck_holds_the_exact_mix() {
        let mut t = terminal(0, 1);
        for _ in 0..50 {
            let mut counts = [0u16; 5];
            for _ in 0..DECK_SIZE {
                counts[t.next_type()] += 1;
            }
            assert_eq!(counts, DECK);
        }
    }

    #[test]
    fn the_deck_is_dealt_in_random_order() {
        // A shuffled deck: the first 100 cards hold each type in about its share,
        // not the types in blocks.
        let mut counts = [0u32; 5];
        for i in 0..200 {
            let mut t = terminal(i, 20);
            for _ in 0..100 {
                counts[t.next_type()] += 1;
            }
        }
        for (c, &d) in counts.iter().zip(DECK.iter()) {
            let expected = f64::from(d) / f64::from(DECK_SIZE) * 20_000.0;
            assert!(
                (f64::from(*c) - expected).abs() < 5.0 * expected.sqrt(),
                "{counts:?}"
            );
        }
    }

    #[test]
    fn long_run_mix_meets_the_minimums_of_clause_5_2_3() {
        let mut t = terminal(3, 2);
        let n = 2_000 * 115;
        let mut counts = [0usize; 5];
        for _ in 0..n {
            counts[t.next().txn_type] += 1;
        }
        let share = |i: usize| counts[i] as f64 / n as f64;
        assert!(share(PAYMENT) >= 0.43);
        assert!(share(ORDER_STATUS) >= 0.04);
        assert!(share(DELIVERY) >= 0.04);
        assert!(share(STOCK_LEVEL) >= 0.04);
        assert!((share(NEW_ORDER) - 0.448).abs() < 1e-9);
    }

    #[test]
    fn terminals_cover_each_warehouse_district_once() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..30 {
            let t = terminal(i, 3);
            assert!(seen.insert((t.warehouse(), t.district())));
        }
        assert_eq!(seen.len(), 30);
    }

    #[test]
    fn think_times_have_the_mean_and_the_cap() {
        let mut t = terminal(0, 1);
        let mean = Duration::from_secs(12);
        let n = 100_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let d = t.think(mean);
            assert!(d <= mean * 10);
            sum += d.as_secs_f64();
        }
        // Truncation at 10x the mean removes e^-10 of the mass: the mean stays ~12 s.
        let m = sum / n as f64;
        assert!((m - 12.0).abs() < 0.2, "mean think {m}");
    }
}
