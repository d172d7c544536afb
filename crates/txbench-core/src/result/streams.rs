//! Each analytical stream's figures and each of its queries' executions,
//! from what the workload timed ([`crate::executed`]).

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::executed::Executed;
use crate::txn::TxnTypeInfo;

/// A run's streams and their queries' executions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamsResult {
    /// Each stream that completed anything in the window, by number.
    pub streams: Vec<StreamResult>,
    /// Each execution that overlapped the window, in the order they began.
    pub executions: Vec<Execution>,
}

/// One stream's figures over the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamResult {
    /// The stream (from 0).
    pub stream: u32,
    /// Its queries that committed in the window.
    pub completed: u64,
    /// Those an hour.
    pub per_hour: f64,
    /// Each query type it completed, in type order.
    pub types: Vec<StreamType>,
}

/// One query type's executions in one stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamType {
    /// The type's name ("Q1").
    pub name: String,
    /// Executions that committed in the window.
    pub count: u64,
    /// Their mean, median and longest time from begin to commit (ms).
    pub mean_ms: f64,
    /// See `mean_ms`.
    pub p50_ms: f64,
    /// See `mean_ms`.
    pub max_ms: f64,
    /// The rows of its last answer in the window.
    pub answer_rows: u64,
}

/// One execution, placed from the window's start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Execution {
    /// The stream.
    pub stream: u32,
    /// The type's name ("Q1").
    pub name: String,
    /// When it began and committed, seconds from the window's start (a
    /// beginning in the warm-up is negative).
    pub from_s: f64,
    /// See `from_s`.
    pub to_s: f64,
}

impl StreamsResult {
    /// The figures of `executed` in the window `start..end` (`measured_secs`
    /// of it measured), the types named by `types`; `None` without any.
    pub fn of(
        executed: &[Executed],
        types: &[TxnTypeInfo],
        (start, end): (Instant, Instant),
        measured_secs: f64,
    ) -> Option<StreamsResult> {
        let offset = |t: Instant| {
            t.checked_duration_since(start).map_or_else(
                || -start.duration_since(t).as_secs_f64(),
                |d| d.as_secs_f64(),
            )
        };
        let name = |t: usize| {
            types
                .get(t)
                .map_or_else(|| format!("type {t}"), |i| i.name.to_string())
        };
        let mut overlapping: Vec<&Executed> = (executed.iter())
            .filter(|e| e.end > start && e.start < end)
            .collect();
        if overlapping.is_empty() {
            return None;
        }
        overlapping.sort_by_key(|e| e.start);
        let executions = (overlapping.iter())
            .map(|e| Execution {
                stream: e.stream,
                name: name(e.txn_type),
                from_s: offset(e.start),
                to_s: offset(e.end),
            })
            .collect();
        // Completed in the window: committed in it, as the driver counts.
        let completed: Vec<&Executed> = (overlapping.into_iter())
            .filter(|e| e.end >= start && e.end < end)
            .collect();
        let mut numbers: Vec<u32> = completed.iter().map(|e| e.stream).collect();
        numbers.sort_unstable();
        numbers.dedup();
        let streams = (numbers.into_iter())
            .map(|s| stream_result(s, &completed, &name, measured_secs))
            .collect();
        Some(StreamsResult {
            streams,
            executions,
        })
    }
}

/// The median of sorted values (0 for none).
fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Stream `stream`'s figures over what `completed` in the window.
fn stream_result(
    stream: u32,
    completed: &[&Executed],
    name: &dyn Fn(usize) -> String,
    measured_secs: f64,
) -> StreamResult {
    let own: Vec<&Executed> = completed
        .iter()
        .copied()
        .filter(|e| e.stream == stream)
        .collect();
    let mut kinds: Vec<usize> = own.iter().map(|e| e.txn_type).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let types = (kinds.into_iter())
        .map(|t| {
            let of_type: Vec<&Executed> = own.iter().copied().filter(|e| e.txn_type == t).collect();
            let last = of_type.iter().max_by_key(|e| e.end).map_or(0, |e| e.rows);
            let mut ms: Vec<f64> = (of_type.iter())
                .map(|e| (e.end - e.start).as_secs_f64() * 1e3)
                .collect();
            ms.sort_by(f64::total_cmp);
            StreamType {
                name: name(t),
                count: ms.len() as u64,
                mean_ms: ms.iter().sum::<f64>() / ms.len() as f64,
                p50_ms: median(&ms),
                max_ms: ms.last().copied().unwrap_or(0.0),
                answer_rows: last,
            }
        })
        .collect();
    let n = own.len() as u64;
    StreamResult {
        stream,
        completed: n,
        per_hour: if measured_secs > 0.0 {
            3600.0 * n as f64 / measured_secs
        } else {
            0.0
        },
        types,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn each_stream_counts_what_committed_in_the_window_and_every_overlap_is_marked() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let types = [
            TxnTypeInfo::back_to_back("Q1", "q1", 0.0, None),
            TxnTypeInfo::back_to_back("Q2", "q2", 0.0, None),
        ];
        let run = |stream, txn_type, from, to| Executed {
            stream,
            txn_type,
            start: at(from),
            end: at(to),
            rows: to,
        };
        let executed = [
            // Began in the warm-up, committed in the window: counted.
            run(0, 0, 500, 1_500),
            run(0, 1, 1_500, 2_500),
            run(1, 1, 1_000, 1_400),
            run(1, 1, 1_400, 3_000),
            // Committed after the window: marked, not counted.
            run(1, 0, 10_900, 11_200),
            // Wholly before the window: neither.
            run(1, 0, 100, 900),
        ];
        let r = StreamsResult::of(&executed, &types, (at(1_000), at(11_000)), 10.0).unwrap();
        assert_eq!(r.executions.len(), 5);
        assert_eq!((r.executions[0].from_s, r.executions[0].to_s), (-0.5, 0.5));
        let s: Vec<(u32, u64)> = r.streams.iter().map(|s| (s.stream, s.completed)).collect();
        assert_eq!(s, [(0, 2), (1, 2)]);
        assert_eq!(r.streams[0].per_hour, 720.0);
        let q2 = &r.streams[1].types[0];
        assert_eq!((q2.name.as_str(), q2.count), ("Q2", 2));
        assert_eq!(
            (q2.mean_ms, q2.p50_ms, q2.max_ms),
            (1_000.0, 1_000.0, 1_600.0)
        );
        // The rows of the last answer that committed in the window.
        assert_eq!(q2.answer_rows, 3_000);
        assert_eq!(
            StreamsResult::of(&executed[5..], &types, (at(1_000), at(11_000)), 10.0),
            None
        );
    }
}
