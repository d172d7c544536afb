//! What a change against the baseline amounts to, figure by figure: for
//! sets of runs, against the run-to-run noise ([`super::noise`]); for two
//! single runs, only against each run's own intervals, which cannot tell a
//! change from the noise between runs.

use serde::Serialize;

use super::figures::{Better, Evidence, Figure, Value};
use super::noise::{self, Difference, Spread};

/// What a change against the baseline amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// Sets: the difference's interval leaves out zero, the right way.
    Better,
    /// Sets: it leaves out zero, the wrong way.
    Worse,
    /// Sets: the difference is within the run-to-run noise.
    NotSignificant,
    /// Sets: beyond the noise, but smaller than the threshold that matters.
    WithinThreshold,
    /// Single runs: their 95% intervals do not overlap (run-to-run noise unknown).
    Apart,
    /// Single runs: their intervals overlap.
    Overlap,
    /// A run marked the figure insufficient.
    Insufficient,
    /// Single runs without intervals: the change is shown, not judged.
    NoInterval,
    /// A run lacks the figure.
    Missing,
}

impl Judgement {
    /// How the judgement reads, in the table and the JSON.
    pub fn label(self) -> &'static str {
        match self {
            Judgement::Better => "better",
            Judgement::Worse => "worse",
            Judgement::NotSignificant => "no significant change",
            Judgement::WithinThreshold => "within threshold",
            Judgement::Apart => "intervals apart",
            Judgement::Overlap => "intervals overlap",
            Judgement::Insufficient => "insufficient samples",
            Judgement::NoInterval => "no interval",
            Judgement::Missing => "-",
        }
    }
}

impl Serialize for Judgement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

/// One compared figure, per side (a run or a set of runs).
#[derive(Debug, Serialize)]
pub struct Row {
    pub name: String,
    pub better: Better,
    /// Per side: the run's value, or the mean of the set's runs.
    pub values: Vec<Option<f64>>,
    /// Per side: a single run's 95% interval, where it has one.
    pub intervals: Vec<Option<[f64; 2]>>,
    /// Per side: each run's value.
    pub runs: Vec<Vec<Option<f64>>>,
    /// Per side: the standard deviation between its runs, % of their mean (sets only).
    pub spread_pct: Vec<Option<f64>>,
    /// Change against the first side, in %, per side (`None` for the first).
    pub change_pct: Vec<Option<f64>>,
    /// Sets: the interval of the change, in % of the first side's mean.
    pub change_interval_pct: Vec<Option<[f64; 2]>>,
    /// The judgement of each change (`None` for the first).
    pub judgement: Vec<Option<Judgement>>,
    /// Per side, where it could not be judged: what would let it be (runs
    /// a side, or the length of each run), from the noise measured.
    pub needs: Vec<Option<String>>,
}

/// Whether a side's values can be judged against the noise: all present,
/// and, for two single runs, none insufficient. Sets are judged by the
/// spread between their runs, which needs no run's own interval: a
/// percentile each short run alone cannot bound is still compared.
fn usable(values: &[Value], sets: bool) -> Result<Vec<f64>, Judgement> {
    if !sets && values.iter().any(|v| v.1 == Evidence::Insufficient) {
        return Err(Judgement::Insufficient);
    }
    values
        .iter()
        .map(|v| v.0.ok_or(Judgement::Missing))
        .collect()
}

/// Two single runs, by their own intervals.
fn by_intervals(base: Value, run: Value) -> Judgement {
    match (base.1, run.1) {
        (Evidence::Interval(al, ah), Evidence::Interval(bl, bh)) => {
            if al <= bh && bl <= ah {
                Judgement::Overlap
            } else {
                Judgement::Apart
            }
        }
        _ => Judgement::NoInterval,
    }
}

/// A side against the baseline, before its `alpha` is known: judged already
/// (single runs, missing or insufficient figures), or the two spreads to test.
enum Pending {
    Judged(Judgement),
    Test(Spread, Spread),
    /// Two single runs, and the spread a set of the same plan measured.
    Singles(f64, f64, Spread),
}

fn pending(base: &[Value], side: &[Value], noise: Option<&Spread>) -> Pending {
    let sets = base.len() > 1 || side.len() > 1;
    let (a, b) = match (usable(base, sets), usable(side, sets)) {
        (Err(j), _) | (_, Err(j)) => return Pending::Judged(j),
        (Ok(a), Ok(b)) => (a, b),
    };
    if let ([a], [b]) = (a.as_slice(), b.as_slice()) {
        return match noise.filter(|n| n.n > 1) {
            Some(noise) => Pending::Singles(*a, *b, *noise),
            None => Pending::Judged(by_intervals(base[0], side[0])),
        };
    }
    match (Spread::of(&a), Spread::of(&b)) {
        (Some(a), Some(b)) => Pending::Test(
            a.at_least(within_run_variance(base)),
            b.at_least(within_run_variance(side)),
        ),
        _ => Pending::Judged(Judgement::Missing),
    }
}

/// The variance each run's own 95% interval gives its figure, on average
/// over the runs that have one (0 without).
fn within_run_variance(values: &[Value]) -> f64 {
    let z = txbench_core::stats::Z95;
    let variances: Vec<f64> = values
        .iter()
        .filter_map(|v| match v.1 {
            Evidence::Interval(l, h) => Some(((h - l) / (2.0 * z)).powi(2)),
            _ => None,
        })
        .collect();
    if variances.is_empty() {
        return 0.0;
    }
    variances.iter().sum::<f64>() / variances.len() as f64
}

impl Pending {
    /// Its judgement and, where tested, the difference with its interval;
    /// `alpha` the figure's share of the comparison's confidence.
    fn judge(
        &self,
        better: Better,
        alpha: f64,
        change_pct: Option<f64>,
        threshold_pct: f64,
    ) -> (Judgement, Option<Difference>) {
        let d = match self {
            Pending::Judged(j) => return (*j, None),
            Pending::Test(a, b) => noise::difference(a, b, alpha),
            Pending::Singles(a, b, known) => noise::singles(*a, *b, known, alpha),
        };
        match d {
            Some(d) => (tested(better, &d, change_pct, threshold_pct), Some(d)),
            None => (Judgement::Missing, None),
        }
    }
}

/// The judgement of a tested difference whose change is `change_pct`.
fn tested(
    better: Better,
    d: &Difference,
    change_pct: Option<f64>,
    threshold_pct: f64,
) -> Judgement {
    if !d.significant() {
        Judgement::NotSignificant
    } else if change_pct.is_some_and(|c| c.abs() < threshold_pct) {
        Judgement::WithinThreshold
    } else if (d.delta > 0.0) == (better == Better::Higher) {
        Judgement::Better
    } else {
        Judgement::Worse
    }
}

/// The run-to-run noise of each figure, by name, as a set measured it.
pub type Noise = std::collections::HashMap<String, Spread>;

/// The noise `figures` of a set's runs give.
pub fn noise_of(figures: &[Figure]) -> Noise {
    (figures.iter())
        .filter_map(|f| {
            let values = usable(&f.runs, true).ok()?;
            let spread = Spread::of(&values)?.at_least(within_run_variance(&f.runs));
            Some((f.name.clone(), spread))
        })
        .collect()
}

/// The rows of `figures` whose runs belong to sides of `sizes` runs each, in
/// order; each side judged against the first, the confidence shared among
/// the figures tested for that side, changes under `threshold_pct` (in %)
/// too small to call; two single runs judged by `noise` where it has the
/// figure.
pub fn rows(figures: &[Figure], sizes: &[usize], threshold_pct: f64, noise: &Noise) -> Vec<Row> {
    let split = |f: &Figure| -> Vec<Vec<Value>> {
        let mut at = 0;
        sizes
            .iter()
            .map(|n| {
                at += n;
                f.runs[at - n..at].to_vec()
            })
            .collect()
    };
    let sides: Vec<Vec<Vec<Value>>> = figures.iter().map(split).collect();
    let pendings: Vec<Vec<Pending>> = (sides.iter().zip(figures))
        .map(|(s, f)| {
            let known = noise.get(&f.name);
            s[1..]
                .iter()
                .map(|side| pending(&s[0], side, known))
                .collect()
        })
        .collect();
    // Per side, how many figures are tested against the noise.
    let tests: Vec<usize> = (0..sizes.len() - 1)
        .map(|i| {
            pendings
                .iter()
                .filter(|p| matches!(p[i], Pending::Test(..) | Pending::Singles(..)))
                .count()
        })
        .collect();
    figures
        .iter()
        .zip(sides)
        .zip(pendings)
        .map(|((f, s), p)| row(f, &s, &p, (&tests, threshold_pct)))
        .collect()
}

fn row(
    f: &Figure,
    sides: &[Vec<Value>],
    pendings: &[Pending],
    (tests, threshold_pct): (&[usize], f64),
) -> Row {
    // A side's value is its runs' mean, shown even where it cannot be judged.
    let spreads: Vec<Option<Spread>> = sides
        .iter()
        .map(|s| {
            let v: Option<Vec<f64>> = s.iter().map(|v| v.0).collect();
            Spread::of(&v?)
        })
        .collect();
    let values: Vec<Option<f64>> = spreads.iter().map(|s| s.map(|s| s.mean)).collect();
    let base = values[0];
    let pct = |v: f64| match base {
        Some(b) if b != 0.0 => Some(v / b.abs() * 100.0),
        _ => None,
    };
    let mut change_pct = vec![None];
    let mut change_interval_pct = vec![None];
    let mut judgement = vec![None];
    let mut needs = vec![None];
    for (i, p) in pendings.iter().enumerate() {
        let change = base.zip(values[i + 1]).and_then(|(b, v)| pct(v - b));
        let alpha = noise::alpha_each(tests[i]);
        let (j, d) = p.judge(f.better, alpha, change, threshold_pct);
        change_pct.push(change);
        judgement.push(Some(j));
        change_interval_pct.push(d.and_then(|d| Some([pct(d.low)?, pct(d.high)?])));
        needs.push(match (j, p) {
            (Judgement::NotSignificant, Pending::Test(a, b)) => {
                runs_needed(a, b, threshold_pct, alpha)
            }
            (Judgement::Insufficient, _) => f
                .needs_secs
                .map(|s| format!("runs of {s:.0} s or more would bound it")),
            _ => None,
        });
    }
    Row {
        name: f.name.clone(),
        better: f.better,
        values,
        intervals: sides
            .iter()
            .map(|s| match s.as_slice() {
                [(_, Evidence::Interval(l, h))] => Some([*l, *h]),
                _ => None,
            })
            .collect(),
        runs: sides
            .iter()
            .map(|s| s.iter().map(|v| v.0).collect())
            .collect(),
        // A run short of samples has no spread worth showing.
        spread_pct: (sides.iter().zip(&spreads))
            .map(|(s, spread)| spread.filter(|_| usable(s, s.len() > 1).is_ok())?.cv_pct())
            .collect(),
        change_pct,
        change_interval_pct,
        judgement,
        needs,
    }
}

/// What sets judged "no significant change" would need to tell a change of
/// the threshold (1% at least) from their noise: more runs, or nothing (a
/// change that large would have shown).
fn runs_needed(a: &Spread, b: &Spread, threshold_pct: f64, alpha: f64) -> Option<String> {
    let change_pct = threshold_pct.max(1.0);
    let n = noise::runs_to_resolve(a, b, a.mean.abs() * change_pct / 100.0, alpha)?;
    Some(if n <= a.n.min(b.n) {
        format!("a {change_pct:.0}% change would have shown")
    } else {
        format!("about {n} runs a side would resolve a {change_pct:.0}% change")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(better: Better, runs: Vec<Value>) -> Figure {
        Figure::of("f".into(), better, runs)
    }

    fn plain(v: f64) -> Value {
        (Some(v), Evidence::None)
    }

    #[test]
    fn single_runs_are_judged_by_their_intervals_only() {
        let a = (Some(1.0), Evidence::Interval(0.9, 1.1));
        let overlapping = (Some(1.05), Evidence::Interval(1.0, 1.1));
        let apart = (Some(2.0), Evidence::Interval(1.8, 2.2));
        let f = figure(Better::Lower, vec![a, overlapping, apart]);
        let r = &rows(&[f], &[1, 1, 1], 1.0, &Noise::new())[0];
        assert_eq!(
            r.judgement,
            vec![None, Some(Judgement::Overlap), Some(Judgement::Apart)]
        );
        assert_eq!(r.change_interval_pct, vec![None, None, None]);
    }

    #[test]
    fn an_insufficient_percentile_is_not_compared() {
        let a = (Some(1.0), Evidence::Interval(0.9, 1.1));
        let b = (Some(9.0), Evidence::Insufficient);
        let r = &rows(
            &[figure(Better::Lower, vec![a, b])],
            &[1, 1],
            1.0,
            &Noise::new(),
        )[0];
        assert_eq!(r.judgement[1], Some(Judgement::Insufficient));
        let r = &rows(
            &[figure(Better::Lower, vec![a, plain(9.0)])],
            &[1, 1],
            1.0,
            &Noise::new(),
        )[0];
        assert_eq!(r.judgement[1], Some(Judgement::NoInterval));
    }

    /// Sets of three 3-second runs, 1 against 8 terminals: New-Order's p50
    /// went from 3.98 to 27.1 ms and every latency row read "insufficient
    /// samples" (no run alone could bound its percentiles).
    #[test]
    fn sets_of_short_runs_compare_percentiles_by_the_spread_between_runs() {
        let short = |v: f64| (Some(v), Evidence::Insufficient);
        let runs = [[3.98, 4.1, 3.9].map(short), [27.1, 26.0, 28.3].map(short)].concat();
        let r = &rows(&[figure(Better::Lower, runs)], &[3, 3], 1.0, &Noise::new())[0];
        assert_eq!(r.judgement[1], Some(Judgement::Worse), "{r:?}");
    }

    /// A change the sets cannot tell from their noise says what would:
    /// here the runs spread by about 3%, so a 1% change needs more runs.
    #[test]
    fn what_sets_cannot_judge_says_how_many_runs_would() {
        let base = [100.0, 103.0, 97.0, 101.0, 99.0].map(plain);
        let same = [100.5, 97.5, 102.0, 99.0, 101.0].map(plain);
        let r = &rows(
            &[figure(Better::Higher, [base, same].concat())],
            &[5, 5],
            1.0,
            &Noise::new(),
        )[0];
        assert_eq!(r.judgement[1], Some(Judgement::NotSignificant), "{r:?}");
        let needs = r.needs[1].as_deref().unwrap();
        let n: usize = needs
            .strip_prefix("about ")
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{needs}"));
        // Variances 5 and 3.1: (1.96 * sqrt(8.1) / 1)^2 = 32 runs a side.
        assert!((30..=60).contains(&n), "{needs}");
    }

    #[test]
    fn sets_are_judged_against_their_spread_in_the_right_direction() {
        let base = [100.0, 101.0, 99.0, 100.5, 99.5].map(plain);
        let lower = [90.0, 91.0, 89.0, 90.5, 89.5].map(plain);
        let same = [100.2, 99.1, 101.3, 100.0, 99.4].map(plain);
        let runs = [base, lower, same].concat();
        let throughput = figure(Better::Higher, runs.clone());
        let latency = figure(Better::Lower, runs);
        let r = rows(&[throughput, latency], &[5, 5, 5], 1.0, &Noise::new());
        assert_eq!(r[0].judgement[1], Some(Judgement::Worse));
        assert_eq!(r[1].judgement[1], Some(Judgement::Better));
        assert_eq!(r[0].judgement[2], Some(Judgement::NotSignificant));
        let [low, high] = r[0].change_interval_pct[1].unwrap();
        assert!(
            low < -10.0 + 1e-9 || high > -10.0,
            "{low}..{high} holds -10%"
        );
        assert!(high < 0.0, "{low}..{high}");
        assert!(
            (r[0].spread_pct[0].unwrap() - 0.79).abs() < 0.01,
            "{:?}",
            r[0].spread_pct
        );
    }

    #[test]
    fn runs_that_agree_closer_than_they_measure_are_not_a_change() {
        // p50 read from one histogram bucket in every run: no spread between
        // runs, 0.1% apart, each run's own interval 0.4% wide.
        let at = |v: f64| (Some(v), Evidence::Interval(v - 0.008, v + 0.008));
        let runs = [[3.997; 5].map(at), [3.993; 5].map(at)].concat();
        let r = &rows(
            &[figure(Better::Lower, runs.clone())],
            &[5, 5],
            0.0,
            &Noise::new(),
        )[0];
        assert_eq!(r.judgement[1], Some(Judgement::NotSignificant), "{r:?}");
        // Plain values without intervals: 0.1% beyond the noise, under 1%.
        let plain_runs: Vec<Value> = runs.iter().map(|v| plain(v.0.unwrap())).collect();
        let r = &rows(
            &[figure(Better::Lower, plain_runs.clone())],
            &[5, 5],
            1.0,
            &Noise::new(),
        )[0];
        assert_eq!(r.judgement[1], Some(Judgement::WithinThreshold), "{r:?}");
        let r = &rows(
            &[figure(Better::Lower, plain_runs)],
            &[5, 5],
            0.0,
            &Noise::new(),
        )[0];
        assert_eq!(r.judgement[1], Some(Judgement::Better), "{r:?}");
    }
}
