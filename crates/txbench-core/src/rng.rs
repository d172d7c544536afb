//! The seeded random stream and the distributions the specifications use.
//!
//! Every terminal and every load batch gets its own stream derived from
//! `(run seed, stream id)`, so runs are reproducible and parallel generation does
//! not depend on scheduling.

use rand::{RngExt, SeedableRng};
/// Draws of indexes in proportion to their weights (a histogram's).
pub use rand_distr::weighted::WeightedIndex;
use rand_xoshiro::{SplitMix64, Xoshiro256PlusPlus};

const ALPHANUMERIC: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A fast, seeded random stream (xoshiro256++).
#[derive(Debug, Clone)]
pub struct Rand(Xoshiro256PlusPlus);

impl Rand {
    /// A stream from a seed.
    pub fn new(seed: u64) -> Self {
        Rand(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// Stream number `stream` of the run seeded with `seed`: independent of the others.
    pub fn derive(seed: u64, stream: u64) -> Self {
        // SplitMix64 decorrelates nearby (seed, stream) pairs before seeding xoshiro.
        let mut mix = SplitMix64::seed_from_u64(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        Rand(Xoshiro256PlusPlus::from_rng(&mut mix))
    }

    /// A draw from any `rand` distribution (Zipf, ...).
    pub fn sample<T, D: rand::distr::Distribution<T>>(&mut self, distribution: &D) -> T {
        distribution.sample(&mut self.0)
    }

    /// A uniform integer in `lo..=hi` (TPC-C's random(x, y)).
    #[inline]
    pub fn uniform(&mut self, lo: i64, hi: i64) -> i64 {
        self.0.random_range(lo..=hi)
    }

    /// A uniform float in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// A uniform decimal in `lo..=hi` with `scale` digits after the point,
    /// e.g. `decimal(1.00, 5000.00, 2)` (every representable value equally likely).
    pub fn decimal(&mut self, lo: f64, hi: f64, scale: u32) -> f64 {
        let factor = 10f64.powi(scale as i32);
        let units = self.uniform((lo * factor).round() as i64, (hi * factor).round() as i64);
        units as f64 / factor
    }

    /// TPC-C's non-uniform random NURand(A, x, y) with run constant `c` (clause 2.1.6).
    #[inline]
    pub fn nurand(&mut self, a: i64, x: i64, y: i64, c: i64) -> i64 {
        (((self.uniform(0, a) | self.uniform(x, y)) + c) % (y - x + 1)) + x
    }

    /// A draw of the standard normal distribution (mean 0, deviation 1).
    pub fn standard_normal(&mut self) -> f64 {
        self.sample(&rand_distr::StandardNormal)
    }

    /// An exponentially distributed float with the given mean (inverse transform).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - unit() lies in (0, 1], so the logarithm is finite.
        -(1.0 - self.unit()).ln() * mean
    }

    /// Append a random alphanumeric string of length `min..=max` (an a-string).
    pub fn push_astring(&mut self, out: &mut String, min: usize, max: usize) {
        let len = self.uniform(min as i64, max as i64) as usize;
        out.reserve(len);
        for _ in 0..len {
            let i = self.0.random_range(0..ALPHANUMERIC.len());
            out.push(ALPHANUMERIC[i] as char);
        }
    }

    /// A random alphanumeric string of length `min..=max` (an a-string).
    pub fn astring(&mut self, min: usize, max: usize) -> String {
        let mut s = String::new();
        self.push_astring(&mut s, min, max);
        s
    }

    /// A random numeric string of length `min..=max` (an n-string).
    pub fn nstring(&mut self, min: usize, max: usize) -> String {
        let len = self.uniform(min as i64, max as i64) as usize;
        (0..len)
            .map(|_| char::from(b'0' + self.0.random_range(0..10u8)))
            .collect()
    }

    /// A uniformly random permutation of `1..=n`.
    pub fn permutation(&mut self, n: usize) -> Vec<i64> {
        let mut v: Vec<i64> = (1..=n as i64).collect();
        self.shuffle(&mut v);
        v
    }

    /// Shuffle a slice uniformly (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        use rand::seq::SliceRandom;
        items.shuffle(&mut self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_stays_in_bounds_and_hits_both_ends() {
        let mut r = Rand::new(1);
        let mut seen = [0u32; 11];
        for _ in 0..100_000 {
            let v = r.uniform(5, 15);
            assert!((5..=15).contains(&v));
            seen[(v - 5) as usize] += 1;
        }
        // Each of 11 values is expected 9091 times; 5 sigma is about 480.
        for count in seen {
            assert!((8_600..=9_600).contains(&count), "count {count}");
        }
    }

    #[test]
    fn derived_streams_differ_and_repeat() {
        let a: Vec<i64> = (0..8)
            .map(|_| Rand::derive(7, 1).uniform(0, 1 << 40))
            .collect();
        let mut s1 = Rand::derive(7, 1);
        let mut s2 = Rand::derive(7, 2);
        let x: Vec<i64> = (0..8).map(|_| s1.uniform(0, 1 << 40)).collect();
        let y: Vec<i64> = (0..8).map(|_| s2.uniform(0, 1 << 40)).collect();
        assert_ne!(x, y);
        assert_eq!(a[0], x[0]);
    }

    #[test]
    fn nurand_stays_in_range_and_is_skewed() {
        let mut r = Rand::new(3);
        let mut counts = vec![0u32; 3000];
        for _ in 0..300_000 {
            let v = r.nurand(1023, 1, 3000, 259);
            assert!((1..=3000).contains(&v));
            counts[(v - 1) as usize] += 1;
        }
        let max = *counts.iter().max().unwrap() as f64;
        let mean = 300_000.0 / 3000.0;
        // The OR of two uniforms concentrates mass: the hottest id is far above the mean.
        assert!(max > 3.0 * mean, "max {max} mean {mean}");
    }

    #[test]
    fn nurand_matches_its_exact_distribution() {
        // The exact law of NURand(255, 0, 999, C): enumerate both uniforms.
        let (a, x, y, c) = (255i64, 0i64, 999i64, 117i64);
        let mut exact = vec![0f64; 1000];
        for r1 in 0..=a {
            for r2 in x..=y {
                exact[((((r1 | r2) + c) % (y - x + 1)) + x) as usize] += 1.0;
            }
        }
        let combos = ((a + 1) * (y - x + 1)) as f64;
        let n = 2_000_000u32;
        let mut seen = vec![0f64; 1000];
        let mut r = Rand::new(21);
        for _ in 0..n {
            seen[r.nurand(a, x, y, c) as usize] += 1.0;
        }
        // Pearson's chi-square over 999 degrees of freedom: mean 999, sd 44.7;
        // 1250 is more than 5 sd out, so a correct generator fails it about never.
        let chi2: f64 = exact
            .iter()
            .zip(&seen)
            .map(|(e, o)| {
                let expected = e / combos * f64::from(n);
                (o - expected).powi(2) / expected
            })
            .sum();
        assert!(chi2 < 1250.0, "chi-square {chi2}");
    }

    #[test]
    fn strings_have_the_asked_lengths_and_alphabets() {
        let mut r = Rand::new(9);
        for _ in 0..1000 {
            let a = r.astring(26, 50);
            assert!((26..=50).contains(&a.len()));
            assert!(a.bytes().all(|b| b.is_ascii_alphanumeric()));
            let n = r.nstring(16, 16);
            assert_eq!(n.len(), 16);
            assert!(n.bytes().all(|b| b.is_ascii_digit()));
        }
    }

    #[test]
    fn decimal_has_the_scale_and_bounds() {
        let mut r = Rand::new(4);
        for _ in 0..10_000 {
            let v = r.decimal(1.0, 5000.0, 2);
            assert!((1.0..=5000.0).contains(&v));
            assert!(((v * 100.0).round() - v * 100.0).abs() < 1e-6);
        }
    }

    #[test]
    fn exponential_has_the_mean() {
        let mut r = Rand::new(5);
        let n = 200_000;
        let sum: f64 = (0..n).map(|_| r.exponential(12.0)).sum();
        let mean = sum / n as f64;
        // Standard error is 12 / sqrt(n) = 0.027.
        assert!((mean - 12.0).abs() < 0.15, "mean {mean}");
    }

    #[test]
    fn permutation_is_a_permutation() {
        let mut r = Rand::new(6);
        let mut p = r.permutation(3000);
        p.sort_unstable();
        assert_eq!(p, (1..=3000).collect::<Vec<_>>());
    }
}
