//! A merge's runs side by side (the shards of one run, each on its own
//! client machine), and the slowest of them: the one whose latency a user
//! looks into first.

use txbench_core::result::PartResult;
use txbench_core::shard::Shard;

use crate::millis::{grouped, ms};

/// The column heads of [`rows`].
pub const HEADS: [&str; 8] = [
    "run", "txn/s", "p50 ms", "p99 ms", "max ms", "CPU s", "clock ms", "verdict",
];

/// The part with the highest p99 latency (the first of equals), when two or
/// more were merged.
pub fn slowest(parts: &[PartResult]) -> Option<&PartResult> {
    if parts.len() < 2 {
        return None;
    }
    let p99 = |p: &PartResult| p.latency_ms.as_ref().map_or(0.0, |l| l.p99);
    parts
        .iter()
        .reduce(|worst, p| if p99(p) > p99(worst) { p } else { worst })
}

/// How a part is named: its shard, or its directory for runs that are no
/// shards.
pub fn name(p: &PartResult) -> String {
    match Shard::new(p.shard_index, p.shards) {
        Ok(shard) if !shard.is_whole() => shard.to_string(),
        _ => p.dir.clone(),
    }
}

/// One row of cells per part, under [`HEADS`]; its clock is the server's
/// less its own, ± what the reading could tell ("-": not read).
pub fn rows(parts: &[PartResult]) -> Vec<[String; 8]> {
    parts
        .iter()
        .map(|p| {
            let (p50, p99, max) = p
                .latency_ms
                .as_ref()
                .map_or(("-".into(), "-".into(), "-".into()), |l| {
                    (ms(l.p50), ms(l.p99), ms(l.max))
                });
            [
                name(p),
                grouped(p.per_s, 1),
                p50,
                p99,
                max,
                format!("{:.2}", p.cpu_secs),
                p.clock.map_or("-".into(), |c| {
                    format!("{:+.1} ± {:.1}", c.offset_ms, c.uncertainty_ms)
                }),
                p.verdict.clone(),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_core::result::Percentiles;

    fn part(index: u32, p99: f64) -> PartResult {
        PartResult {
            dir: format!("results/x-shard{index}of3"),
            shard_index: index,
            shards: 3,
            per_s: 100.0 + f64::from(index),
            latency_ms: Some(Percentiles {
                p50: 1.0,
                p99,
                max: p99 * 2.0,
                ..Percentiles::default()
            }),
            cpu_secs: 1.5,
            clock: None,
            verdict: "SOUND".into(),
        }
    }

    #[test]
    fn the_slowest_is_the_highest_p99_and_a_lone_run_has_none() {
        let parts = [part(0, 5.0), part(1, 9.0), part(2, 9.0)];
        assert_eq!(slowest(&parts).map(|p| p.shard_index), Some(1));
        assert!(slowest(&parts[..1]).is_none());
        let rows = rows(&parts);
        assert_eq!(rows[1][0], "shard 1 of 3");
        assert_eq!(rows[1][3], ms(9.0));
        assert_eq!(rows[2][1], grouped(102.0, 1));
        assert_eq!(rows[0][6], "-");
        let mut read = part(0, 5.0);
        read.clock = Some(txbench_core::result::ClockOffset {
            offset_ms: -3001.25,
            uncertainty_ms: 0.4,
        });
        assert_eq!(super::rows(&[read])[0][6], "-3001.2 ± 0.4");
    }
}
