//! What a CH-benCHmark terminal submits: TPC-C's transactions, as TPC-C's
//! terminal draws them, or, for an analytical stream, the 22 queries in
//! order, back to back, round after round, each round begun with a look at
//! how fresh the stream's data is ([`super::freshness`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use txbench_core::{Planned, Terminal, TxnTypeInfo};

use super::queries::QUERIES;
use crate::tpcc::constants::TXN_TYPES as TPCC_TYPES;
use crate::tpcc::input::TpccInput;
use crate::tpcc::terminal::TpccTerminal;

/// The index of the first query's type: TPC-C's five come first.
pub const FIRST_QUERY: usize = TPCC_TYPES.len();

const fn query(name: &'static str, key: &'static str) -> TxnTypeInfo {
    TxnTypeInfo::back_to_back(name, key, 0.0, None)
}

/// The type of a stream's look at its data's freshness, after the queries.
pub const FRESHNESS: usize = FIRST_QUERY + QUERIES;

/// TPC-C's five types, then Q1 to Q22 and the streams' freshness looks (no
/// share of TPC-C's mix: the streams submit them whatever the transactional
/// terminals do).
pub static TYPES: [TxnTypeInfo; FRESHNESS + 1] = [
    TPCC_TYPES[0],
    TPCC_TYPES[1],
    TPCC_TYPES[2],
    TPCC_TYPES[3],
    TPCC_TYPES[4],
    query("Q1", "q1"),
    query("Q2", "q2"),
    query("Q3", "q3"),
    query("Q4", "q4"),
    query("Q5", "q5"),
    query("Q6", "q6"),
    query("Q7", "q7"),
    query("Q8", "q8"),
    query("Q9", "q9"),
    query("Q10", "q10"),
    query("Q11", "q11"),
    query("Q12", "q12"),
    query("Q13", "q13"),
    query("Q14", "q14"),
    query("Q15", "q15"),
    query("Q16", "q16"),
    query("Q17", "q17"),
    query("Q18", "q18"),
    query("Q19", "q19"),
    query("Q20", "q20"),
    query("Q21", "q21"),
    query("Q22", "q22"),
    query("Freshness", "freshness"),
];

/// One transaction of the CH-benCHmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ChInput {
    /// A TPC-C transaction.
    Tpcc(TpccInput),
    /// Analytical query number `0..22` (Q1 is 0), in a read-only
    /// transaction, of stream `stream`.
    Query {
        /// The query (0 is Q1).
        query: usize,
        /// The stream that runs it.
        stream: u32,
    },
    /// A stream's look at how fresh its data is, as its round starts.
    Look {
        /// The stream.
        stream: u32,
        /// The round the look starts.
        round: u32,
    },
}

/// A transactional terminal or an analytical stream.
#[derive(Debug, Clone)]
pub enum ChTerminal {
    /// TPC-C's terminal.
    Tpcc(TpccTerminal),
    /// A stream, with the query it runs next.
    Stream {
        /// The stream's number.
        index: u32,
        /// The next query (0 is Q1).
        next: usize,
        /// The round the next query is in.
        round: u32,
        /// Whether the round began with its look.
        looked: bool,
    },
}

impl ChTerminal {
    /// Stream `index`: it starts at query `index mod 22`, as go-tpc's
    /// streams do, so that streams do not run the same query in step.
    pub fn stream(index: usize) -> ChTerminal {
        ChTerminal::Stream {
            index: index as u32,
            next: index % QUERIES,
            round: 0,
            looked: false,
        }
    }
}

/// A stream's next submission: the look that begins a round, else the next
/// query; past the round's last query, the next round.
fn next_of_stream(
    index: u32,
    next: &mut usize,
    round: &mut u32,
    looked: &mut bool,
) -> Planned<ChInput> {
    let (input, txn_type) = if *looked {
        let q = *next;
        *next = (q + 1) % QUERIES;
        if *next == index as usize % QUERIES {
            *round += 1;
            *looked = false;
        }
        let query = ChInput::Query {
            query: q,
            stream: index,
        };
        (query, FIRST_QUERY + q)
    } else {
        *looked = true;
        let look = ChInput::Look {
            stream: index,
            round: *round,
        };
        (look, FRESHNESS)
    };
    Planned {
        input,
        txn_type,
        keying: Duration::ZERO,
        think: Duration::ZERO,
    }
}

impl Terminal for ChTerminal {
    type Input = ChInput;

    fn next(&mut self) -> Planned<ChInput> {
        match self {
            ChTerminal::Tpcc(t) => {
                let p = t.next();
                Planned {
                    input: ChInput::Tpcc(p.input),
                    txn_type: p.txn_type,
                    keying: p.keying,
                    think: p.think,
                }
            }
            ChTerminal::Stream {
                index,
                next,
                round,
                looked,
            } => next_of_stream(*index, next, round, looked),
        }
    }

    fn home(&self) -> Option<u64> {
        match self {
            ChTerminal::Tpcc(t) => t.home(),
            ChTerminal::Stream { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_looks_then_runs_the_22_queries_in_order_from_its_own_start_without_waits() {
        let mut s = ChTerminal::stream(23);
        let drawn: Vec<usize> = (0..25).map(|_| s.next().txn_type - FIRST_QUERY).collect();
        let mut expected = vec![QUERIES];
        expected.extend(1..QUERIES);
        expected.extend([0, QUERIES, 1]);
        assert_eq!(drawn, expected);
        let p = s.next();
        assert_eq!(
            p.input,
            ChInput::Query {
                query: 2,
                stream: 23
            }
        );
        assert_eq!((p.keying, p.think), (Duration::ZERO, Duration::ZERO));
        assert_eq!(TYPES[FIRST_QUERY + 21].key, "q22");
    }

    #[test]
    fn each_round_begins_with_a_look_of_its_own_number() {
        let mut s = ChTerminal::stream(0);
        let looks: Vec<ChInput> = (0..3 * (QUERIES + 1))
            .map(|_| s.next())
            .filter(|p| p.txn_type == FRESHNESS)
            .map(|p| p.input)
            .collect();
        let expected: Vec<ChInput> = (0..3)
            .map(|round| ChInput::Look { stream: 0, round })
            .collect();
        assert_eq!(looks, expected);
    }
}
