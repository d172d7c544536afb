//! TPC-C's random rules: NURand constants and the C-Run rule (clause 2.1.6),
//! customer last names (4.3.2.3), zip codes and "ORIGINAL" data (4.3.3.1).

use serde::{Deserialize, Serialize};
use txbench_core::rng::Rand;

use super::constants::SYLLABLES;

/// The C constants of NURand for the three fields that use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NurandConstants {
    /// C for C_LAST, NURand(255, 0, 999).
    pub c_last: i64,
    /// C for C_ID, NURand(1023, 1, 3000).
    pub c_id: i64,
    /// C for OL_I_ID, NURand(8191, 1, 100000).
    pub ol_i_id: i64,
}

impl NurandConstants {
    /// Constants chosen at random, each in 0..=A (clause 2.1.6).
    pub fn random(rng: &mut Rand) -> Self {
        NurandConstants {
            c_last: rng.uniform(0, 255),
            c_id: rng.uniform(0, 1023),
            ol_i_id: rng.uniform(0, 8191),
        }
    }

    /// The run's constants for a database loaded with `load` (clause 2.1.6.1).
    ///
    /// C_LAST gets a new C-Run whose distance from C-Load is in 65..=119 and is
    /// neither 96 nor 112; C_ID and OL_I_ID keep the load's values, which the clause
    /// allows.
    pub fn for_run(load: &NurandConstants, rng: &mut Rand) -> Self {
        let candidates: Vec<i64> = (0..=255).filter(|&c| valid_c_run(load.c_last, c)).collect();
        // Every C-Load in 0..=255 has valid candidates (at least 65 + 119 away on one side).
        let pick = candidates[rng.uniform(0, candidates.len() as i64 - 1) as usize];
        NurandConstants {
            c_last: pick,
            ..*load
        }
    }
}

/// Whether `c_run` is a valid C-Run for C_LAST given `c_load` (clause 2.1.6.1).
pub fn valid_c_run(c_load: i64, c_run: i64) -> bool {
    let delta = (c_run - c_load).abs();
    (65..=119).contains(&delta) && delta != 96 && delta != 112
}

/// The customer last name of number `n` in 0..=999: three syllables by its digits.
pub fn last_name(n: i64) -> String {
    let mut s = String::with_capacity(15);
    push_last_name(&mut s, n);
    s
}

/// Append the last name of number `n` to `out`.
pub fn push_last_name(out: &mut String, n: i64) {
    let n = n.clamp(0, 999) as usize;
    out.push_str(SYLLABLES[n / 100]);
    out.push_str(SYLLABLES[n / 10 % 10]);
    out.push_str(SYLLABLES[n % 10]);
}

/// A zip code: four random digits then "11111" (clause 4.3.2.7).
pub fn zip(rng: &mut Rand) -> String {
    let mut z = rng.nstring(4, 4);
    z.push_str("11111");
    z
}

/// A data field of 26..=50 random characters, 10% of which contain "ORIGINAL" at a
/// random position (I_DATA and S_DATA, clause 4.3.3.1).
pub fn data_with_original(rng: &mut Rand) -> String {
    let mut s = rng.astring(26, 50);
    if rng.uniform(1, 10) == 1 {
        let at = rng.uniform(0, s.len() as i64 - 8) as usize;
        s.replace_range(at..at + 8, "ORIGINAL");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_names_follow_the_syllables() {
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        assert_eq!(last_name(999), "EINGEINGEING");
    }

    #[test]
    fn c_run_rule_matches_the_clause() {
        assert!(valid_c_run(100, 165));
        assert!(valid_c_run(100, 219));
        assert!(valid_c_run(200, 81));
        assert!(!valid_c_run(100, 164));
        assert!(!valid_c_run(100, 220));
        assert!(!valid_c_run(100, 196));
        assert!(!valid_c_run(100, 212));
        assert!(!valid_c_run(100, 100));
    }

    #[test]
    fn run_constants_always_satisfy_the_rule() {
        let mut rng = Rand::new(11);
        for c_load in 0..=255 {
            let load = NurandConstants {
                c_last: c_load,
                c_id: 7,
                ol_i_id: 9,
            };
            for _ in 0..20 {
                let run = NurandConstants::for_run(&load, &mut rng);
                assert!(
                    valid_c_run(c_load, run.c_last),
                    "{c_load} -> {}",
                    run.c_last
                );
                assert!((0..=255).contains(&run.c_last));
                assert_eq!((run.c_id, run.ol_i_id), (7, 9));
            }
        }
    }

    #[test]
    fn original_appears_in_about_ten_percent() {
        let mut rng = Rand::new(12);
        let n = 20_000;
        let hits = (0..n)
            .filter(|_| {
                let d = data_with_original(&mut rng);
                assert!((26..=50).contains(&d.len()));
                d.contains("ORIGINAL")
            })
            .count();
        let share = hits as f64 / n as f64;
        assert!((0.09..0.11).contains(&share), "share {share}");
    }

    #[test]
    fn zip_is_four_digits_and_eleven_eleven_one() {
        let mut rng = Rand::new(13);
        let z = zip(&mut rng);
        assert_eq!(z.len(), 9);
        assert!(z.ends_with("11111") && z[..4].bytes().all(|b| b.is_ascii_digit()));
    }
}
