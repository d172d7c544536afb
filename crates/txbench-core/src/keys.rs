//! Keys drawn from a key space, uniformly or Zipf-skewed, for key-value workloads
//! (Retwis, and YCSB later). The Zipf sampler is `rand_distr`'s (rejection
//! inversion, Hörmann and Derflinger): key 1 is the hottest, then 2, and so on;
//! a coefficient of 0 is uniform.

use rand_distr::Zipf;
use thiserror::Error;

use crate::rng::Rand;

/// Why keys cannot be drawn as asked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeysError {
    /// No keys.
    #[error("the key space is empty: give at least one key")]
    Empty,
    /// A coefficient below 0, or not a number.
    #[error("invalid Zipf coefficient {0}: it must be 0 (uniform) or more")]
    Coefficient(String),
    /// The sampler refused the pair.
    #[error("Zipf({keys}, {coefficient}): {why}")]
    Zipf {
        /// The keys.
        keys: u64,
        /// The coefficient.
        coefficient: String,
        /// The sampler's words.
        why: String,
    },
}

/// How keys are drawn.
#[derive(Debug, Clone)]
pub struct KeyChooser {
    /// The first key: 1, or the start of a shard's range.
    first: u64,
    keys: u64,
    zipf: Option<Zipf<f64>>,
}

impl KeyChooser {
    /// Keys `1..=keys` with Zipf coefficient `s` (0: uniform). An empty key space
    /// or a coefficient that is negative or not a number is refused, named.
    pub fn new(keys: u64, s: f64) -> Result<KeyChooser, KeysError> {
        KeyChooser::over(1, keys, s)
    }

    /// Keys `first..first + keys` with Zipf coefficient `s`: key `first` is the
    /// hottest (a shard's part of a key space).
    pub fn over(first: u64, keys: u64, s: f64) -> Result<KeyChooser, KeysError> {
        if keys == 0 {
            return Err(KeysError::Empty);
        }
        if !(s >= 0.0 && s.is_finite()) {
            return Err(KeysError::Coefficient(s.to_string()));
        }
        let zipf = if s == 0.0 {
            None
        } else {
            let refused = |e: rand_distr::ZipfError| KeysError::Zipf {
                keys,
                coefficient: s.to_string(),
                why: e.to_string(),
            };
            Some(Zipf::new(keys as f64, s).map_err(refused)?)
        };
        Ok(KeyChooser { first, keys, zipf })
    }

    /// The number of keys.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// A key in `first..first + keys` (`1..=keys` unless made [`KeyChooser::over`]).
    pub fn key(&self, rng: &mut Rand) -> u64 {
        let rank = match &self.zipf {
            // The sampler returns whole numbers as floats in 1..=keys.
            Some(z) => (rng.sample(z) as u64).clamp(1, self.keys),
            None => rng.uniform(1, self.keys as i64) as u64,
        };
        self.first - 1 + rank
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generalized harmonic number H(n, s) = sum of k^-s for k in 1..=n.
    fn harmonic(n: u64, s: f64) -> f64 {
        (1..=n).map(|k| (k as f64).powf(-s)).sum()
    }

    #[test]
    fn rank_frequency_follows_zipf() {
        let (n, draws) = (1_000u64, 2_000_000u32);
        for s in [0.5, 0.75, 0.99, 1.2] {
            let chooser = KeyChooser::new(n, s).unwrap();
            let mut rng = Rand::new(7);
            let mut counts = vec![0u32; n as usize + 1];
            for _ in 0..draws {
                counts[chooser.key(&mut rng) as usize] += 1;
            }
            let h = harmonic(n, s);
            // The ten hottest keys and a few colder ranks, each within four
            // binomial standard errors of k^-s / H(n, s).
            for k in (1..=10).chain([50, 200, 1_000]) {
                let p = (k as f64).powf(-s) / h;
                let expected = p * f64::from(draws);
                let sd = (expected * (1.0 - p)).sqrt();
                let seen = f64::from(counts[k as usize]);
                assert!(
                    (seen - expected).abs() < 4.0 * sd + 1.0,
                    "s {s}, rank {k}: {seen} draws, expected {expected:.0} +- {sd:.0}"
                );
            }
        }
    }

    #[test]
    fn zero_is_uniform_and_bad_settings_are_named() {
        let chooser = KeyChooser::new(10, 0.0).unwrap();
        let mut rng = Rand::new(1);
        let mut counts = [0u32; 11];
        for _ in 0..100_000 {
            counts[chooser.key(&mut rng) as usize] += 1;
        }
        assert_eq!(counts[0], 0);
        assert!(
            counts[1..].iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
        assert!(
            KeyChooser::new(0, 0.5)
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
        assert!(
            KeyChooser::new(10, -1.0)
                .unwrap_err()
                .to_string()
                .contains("-1")
        );
        assert!(
            KeyChooser::new(10, f64::NAN)
                .unwrap_err()
                .to_string()
                .contains("NaN")
        );
    }
}
