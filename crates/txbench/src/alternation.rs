//! A run's alternating phases summarised ([`AlternationResult`]): each
//! phase's headline figures and per-type latency, and what the held types
//! cost the others, each phase with them against the phases without on
//! either side of it.

use txbench_core::alternation::Alternation;
use txbench_core::driver::PhaseTally;
use txbench_core::result::{AlternationResult, Contrast, PhaseResult, PhaseType};
use txbench_core::summary;
use txbench_core::txn::TxnTypeInfo;

use crate::compare::noise::{CONFIDENCE, Spread};
use crate::progress::Headline;

/// The phases of a run summarised, and the contrasts between them. A phase
/// whose counted seconds are less than half its length (the window's last,
/// cut short) has its figures but takes no part in the contrasts.
pub fn summarise(
    alternation: &Alternation,
    tallies: &[PhaseTally],
    types: &[TxnTypeInfo],
    headline: &Headline,
) -> AlternationResult {
    let phase_secs = alternation.phase.as_secs_f64();
    let phases: Vec<PhaseResult> = (tallies.iter())
        .map(|t| phase_result(t, types, headline))
        .collect();
    let whole: Vec<Option<&PhaseResult>> = (phases.iter())
        .map(|p| (p.counted_secs >= phase_secs / 2.0).then_some(p))
        .collect();
    AlternationResult {
        phase_secs,
        held: (types.get(alternation.held.clone()).unwrap_or_default())
            .iter()
            .map(|t| t.name.to_string())
            .collect(),
        contrasts: contrasts(&whole, types, &alternation.held),
        phases,
    }
}

fn phase_result(t: &PhaseTally, types: &[TxnTypeInfo], headline: &Headline) -> PhaseResult {
    let results = summary::type_results(types, &t.recorder.measured);
    PhaseResult {
        index: t.index,
        with_held: t.with_held,
        counted_secs: t.counted_secs,
        left_out_secs: t.left_out_secs,
        metrics: if t.counted_secs > 0.0 {
            headline(&results, t.counted_secs)
        } else {
            Vec::new()
        },
        transactions: (results.iter())
            .filter(|r| r.completed() > 0)
            .map(|r| PhaseType {
                key: r.key.clone(),
                completed: r.completed(),
                latency_ms: r.latency_ms.clone(),
            })
            .collect(),
    }
}

/// Each headline figure the phases without have (a figure of the held
/// types alone is zero there and compares nothing), then the p99 latency of
/// each type of the mix that is not held.
fn contrasts(
    phases: &[Option<&PhaseResult>],
    types: &[TxnTypeInfo],
    held: &std::ops::Range<usize>,
) -> Vec<Contrast> {
    let names: Vec<(String, String)> = (phases.iter().flatten().next())
        .map(|p| {
            (p.metrics.iter())
                .map(|m| (m.name.clone(), m.unit.clone()))
                .collect()
        })
        .unwrap_or_default();
    let mut out: Vec<Contrast> = names
        .into_iter()
        .filter_map(|(name, unit)| {
            let values = by_phase(phases, |p| p.metric(&name));
            contrast(&values, name, unit)
        })
        .collect();
    for (i, t) in types.iter().enumerate() {
        if held.contains(&i) || t.mix <= 0.0 {
            continue;
        }
        let values = by_phase(phases, |p| {
            (p.transactions.iter())
                .find(|x| x.key == t.key)
                .map(|x| x.latency_ms.p99)
        });
        out.extend(contrast(&values, format!("{} p99", t.name), "ms".into()));
    }
    out
}

fn by_phase(
    phases: &[Option<&PhaseResult>],
    figure: impl Fn(&PhaseResult) -> Option<f64>,
) -> Vec<Option<f64>> {
    phases.iter().map(|p| p.and_then(&figure)).collect()
}

/// The contrast of one figure, `values` by phase (`None`: not measured);
/// `None` when the phases without have nothing of it to compare with.
fn contrast(values: &[Option<f64>], name: String, unit: String) -> Option<Contrast> {
    let side = |with: bool| -> Vec<f64> {
        (values.iter().enumerate())
            .filter(|(k, _)| Alternation::is_with(*k as u64) == with)
            .filter_map(|(_, v)| *v)
            .collect()
    };
    let without = Spread::of(&side(false))?.mean;
    let with = Spread::of(&side(true))?.mean;
    if without <= 0.0 {
        return None;
    }
    let ratios: Vec<f64> = (1..values.len())
        .step_by(2)
        .filter_map(|k| ratio_to_neighbours(values, k))
        .collect();
    let spread = Spread::of(&ratios)?;
    Some(Contrast {
        name,
        unit,
        without,
        with,
        ratio: spread.mean,
        interval: interval(&spread),
        phases: spread.n,
    })
}

/// Phase `k`'s value over the mean of its neighbours' that were measured.
fn ratio_to_neighbours(values: &[Option<f64>], k: usize) -> Option<f64> {
    let v = values[k]?;
    let around: Vec<f64> = [k.checked_sub(1), Some(k + 1)]
        .into_iter()
        .flatten()
        .filter_map(|j| values.get(j).copied().flatten())
        .collect();
    let base = Spread::of(&around)?.mean;
    (base > 0.0).then(|| v / base)
}

/// Student's t interval (95%) of a mean of `spread.n` ratios, its lower end
/// no lower than 0 (no ratio of two throughputs or latencies is; a few
/// phases' wide interval would otherwise reach below it).
fn interval(spread: &Spread) -> Option<[f64; 2]> {
    let d = spread.mean_interval(1.0 - CONFIDENCE)?;
    Some([d.low.max(0.0), d.high])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_phase_with_is_set_against_its_neighbours_without() {
        // A steady rise of 10 a phase, halved in the phases with: each ratio
        // against the mean of both neighbours is exactly 0.5.
        let values: Vec<Option<f64>> = (0..7)
            .map(|k| {
                let base = 100.0 + 10.0 * k as f64;
                Some(if k % 2 == 1 { base / 2.0 } else { base })
            })
            .collect();
        let c = contrast(&values, "tpmC".into(), "txn/min".into()).unwrap();
        assert!((c.ratio - 0.5).abs() < 1e-12, "{c:?}");
        assert_eq!(c.phases, 3);
        let [low, high] = c.interval.unwrap();
        assert!((low - 0.5).abs() < 1e-9 && (high - 0.5).abs() < 1e-9);
        assert_eq!((c.without, c.with), (130.0, 65.0));
    }

    #[test]
    fn the_interval_is_student_s_over_the_phases_with() {
        // Ratios 0.4 and 0.6: mean 0.5, sd 0.1414, t(1) 12.706.
        let values = [Some(1.0), Some(0.4), Some(1.0), Some(0.6), Some(1.0)];
        let c = contrast(&values, "x".into(), "".into()).unwrap();
        let [low, high] = c.interval.unwrap();
        let half = 12.706_204 * 0.02f64.sqrt() / 2f64.sqrt();
        assert!((high - 0.5 - half).abs() < 1e-3, "{low} {high} {half}");
        // Its lower end would be below 0: a ratio is not.
        assert_eq!(low, 0.0);
        // A phase not measured has no ratio; one with no neighbour measured neither.
        let values = [None, Some(0.5), None, Some(0.5), Some(1.0)];
        let c = contrast(&values, "x".into(), "".into()).unwrap();
        assert_eq!((c.phases, c.interval), (1, None));
        // Nothing without: no contrast (a figure of the held types alone).
        assert!(contrast(&[Some(0.0), Some(5.0)], "QphH".into(), "".into()).is_none());
    }
}
