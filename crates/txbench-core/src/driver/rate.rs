//! The rate an open loop offers over the measurement window: constant, or a
//! schedule of holds and linear ramps (`1000/s for 1m, ramp 1000..4000/s over
//! 2m`).
//!
//! A schedule is a rate function λ(t) of the time since the window's start.
//! Arrivals follow it by warping a process of unit rate through the inverse of
//! the cumulative rate Λ(t) = ∫λ: the k-th arrival of the unit process at u
//! is sent at Λ⁻¹(u). A Poisson process warped so is the inhomogeneous Poisson
//! process of rate λ, exactly (the time-change theorem), and holds and linear
//! ramps have a closed-form inverse, so no arrival is drawn by thinning or
//! approximation. The same warp tells the checks what was offered: Λ(b)−Λ(a)
//! arrivals were due between a and b, and the gaps of a Poisson load are
//! exponential in Λ, not in t.
//!
//! Before the window (the warm-up) the first rate holds; after the schedule's
//! end its last rate does (arrivals there are past the window and not sent).

use std::fmt;

/// One piece of a schedule: the rate goes linearly from `from` to `to` over
/// `secs` (a hold when they are equal).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// Arrivals per second at its start.
    pub from: f64,
    /// Arrivals per second at its end.
    pub to: f64,
    /// Its length in seconds (infinite for a constant rate).
    pub secs: f64,
}

impl Segment {
    /// A constant rate for `secs`.
    pub fn hold(rate: f64, secs: f64) -> Segment {
        Segment {
            from: rate,
            to: rate,
            secs,
        }
    }

    /// The rate `s` seconds into it.
    fn rate_at(&self, s: f64) -> f64 {
        if self.from == self.to {
            self.from
        } else {
            self.from + (self.to - self.from) * s / self.secs
        }
    }

    /// Arrivals due in its first `s` seconds.
    fn arrivals(&self, s: f64) -> f64 {
        if self.from == self.to {
            self.from * s
        } else {
            s * (self.from + self.rate_at(s)) / 2.0
        }
    }

    /// The time into it by which `v` arrivals were due (the root of
    /// from·s + k·s²/2 = v, in the form that stays exact as the slope k goes
    /// to zero or below it).
    fn time_of(&self, v: f64) -> f64 {
        if self.from == self.to {
            // A pause never reaches an arrival past its start.
            return if self.from > 0.0 {
                v / self.from
            } else if v > 0.0 {
                f64::INFINITY
            } else {
                0.0
            };
        }
        let k = (self.to - self.from) / self.secs;
        let root = (self.from * self.from + 2.0 * k * v).max(0.0).sqrt();
        let denominator = self.from + root;
        if denominator > 0.0 {
            2.0 * v / denominator
        } else {
            0.0
        }
    }

    /// All the arrivals it offers.
    fn total(&self) -> f64 {
        self.arrivals(self.secs)
    }
}

/// The rate an open loop offers, as a function of the time since the start
/// of measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct RateSchedule {
    /// The pieces as given.
    segments: Vec<Segment>,
    /// The same pieces placed on the time line, then the last rate held for
    /// ever (a constant rate is its one endless piece): every `t` from 0 and
    /// every count of arrivals falls in one of them.
    placed: Vec<Placed>,
    /// The highest rate.
    peak: f64,
}

/// A piece where it starts, with the arrivals due before it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Placed {
    start: f64,
    before: f64,
    piece: Segment,
}

/// Why a rate schedule is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScheduleError {
    /// No pieces.
    #[error("a rate schedule needs at least one piece")]
    Empty,
    /// A piece without a positive finite length.
    #[error("a piece of {0}s has no length")]
    NoLength(f64),
    /// A rate below zero or not finite.
    #[error("rates must be zero or more")]
    NegativeRate,
    /// Every rate 0.
    #[error("the schedule offers nothing (every rate is 0)")]
    Nothing,
}

impl RateSchedule {
    /// The same rate throughout.
    pub fn constant(rate: f64) -> RateSchedule {
        RateSchedule::placing(vec![Segment::hold(rate, f64::INFINITY)])
    }

    /// A schedule of these pieces in order; refused when it is empty, a piece
    /// has no positive finite length, a rate is negative or not finite, or
    /// nothing at all is offered.
    pub fn new(segments: Vec<Segment>) -> Result<RateSchedule, ScheduleError> {
        if segments.is_empty() {
            return Err(ScheduleError::Empty);
        }
        for s in &segments {
            if !(s.secs > 0.0 && s.secs.is_finite()) {
                return Err(ScheduleError::NoLength(s.secs));
            }
            if !(s.from >= 0.0 && s.from.is_finite() && s.to >= 0.0 && s.to.is_finite()) {
                return Err(ScheduleError::NegativeRate);
            }
        }
        let schedule = RateSchedule::placing(segments);
        if schedule.peak <= 0.0 {
            return Err(ScheduleError::Nothing);
        }
        Ok(schedule)
    }

    /// The schedule of `segments`, placed once (arrivals are looked up in it
    /// one at a time).
    fn placing(segments: Vec<Segment>) -> RateSchedule {
        let mut placed = Vec::with_capacity(segments.len() + 1);
        let (mut start, mut before) = (0.0, 0.0);
        for &piece in &segments {
            placed.push(Placed {
                start,
                before,
                piece,
            });
            start += piece.secs;
            before += piece.total();
        }
        let last = segments[segments.len() - 1];
        if start.is_finite() {
            placed.push(Placed {
                start,
                before,
                piece: Segment::hold(last.to, f64::INFINITY),
            });
        }
        let peak = segments
            .iter()
            .map(|s| s.from.max(s.to))
            .fold(0.0, f64::max);
        RateSchedule {
            segments,
            placed,
            peak,
        }
    }

    /// Whether the rate never changes.
    pub fn is_constant(&self) -> bool {
        self.segments.len() == 1 && self.segments[0].secs.is_infinite()
    }

    /// The schedule's pieces in order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// How long the schedule lasts (seconds); `None` for a constant rate.
    pub fn length_secs(&self) -> Option<f64> {
        (!self.is_constant()).then(|| self.segments.iter().map(|s| s.secs).sum())
    }

    /// The highest rate it offers.
    pub fn peak(&self) -> f64 {
        self.peak
    }

    /// The placed piece that holds time `t` (at or after 0).
    fn at_time(&self, t: f64) -> &Placed {
        &self.placed[self.placed.partition_point(|p| p.start <= t).max(1) - 1]
    }

    /// The rate at `t` seconds from the start of measurement.
    pub fn rate_at(&self, t: f64) -> f64 {
        if t < 0.0 {
            return self.segments[0].from;
        }
        let p = self.at_time(t);
        p.piece.rate_at(t - p.start)
    }

    /// Arrivals due from the start of measurement to `t` (Λ(t); negative
    /// before the start).
    pub fn arrivals(&self, t: f64) -> f64 {
        if t < 0.0 {
            return self.segments[0].from * t;
        }
        let p = self.at_time(t);
        p.before + p.piece.arrivals(t - p.start)
    }

    /// Arrivals due between `a` and `b` seconds from the start of measurement.
    pub fn arrivals_between(&self, a: f64, b: f64) -> f64 {
        self.arrivals(b) - self.arrivals(a)
    }

    /// The time from the start of measurement by which `v` arrivals were due
    /// (Λ⁻¹(v)); infinite when the schedule never offers that many.
    pub fn time_of(&self, v: f64) -> f64 {
        if v < 0.0 {
            let first = self.segments[0].from;
            return if first > 0.0 { v / first } else { 0.0 };
        }
        // The last piece with those arrivals due by its start: a pause due
        // no more than the piece after it is passed over.
        let p = &self.placed[self.placed.partition_point(|p| p.before <= v).max(1) - 1];
        p.start + p.piece.time_of(v - p.before)
    }

    /// The mean rate over the first `secs` seconds of measurement.
    pub fn mean_over(&self, secs: f64) -> f64 {
        if secs > 0.0 {
            self.arrivals(secs) / secs
        } else {
            self.segments[0].from
        }
    }
}

/// As `--rate` takes it back: `1000/s`, or `1000/s for 60s, ramp
/// 1000..4000/s over 120s`.
impl fmt::Display for RateSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_constant() {
            return write!(f, "{}/s", self.segments[0].from);
        }
        for (i, s) in self.segments.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            let secs = seconds_text(s.secs);
            if s.from == s.to {
                write!(f, "{}/s for {secs}", s.from)?;
            } else {
                write!(f, "ramp {}..{}/s over {secs}", s.from, s.to)?;
            }
        }
        Ok(())
    }
}

/// Seconds as a duration flag takes them: whole seconds, else milliseconds.
fn seconds_text(secs: f64) -> String {
    if secs.fract() == 0.0 {
        format!("{secs}s")
    } else {
        format!("{}ms", (secs * 1000.0).round())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    fn steps_and_ramp() -> RateSchedule {
        RateSchedule::new(vec![
            Segment::hold(1000.0, 60.0),
            Segment::hold(2000.0, 60.0),
            Segment {
                from: 2000.0,
                to: 4000.0,
                secs: 120.0,
            },
        ])
        .unwrap()
    }

    #[test]
    fn a_constant_rate_is_the_line_through_the_origin() {
        let c = RateSchedule::constant(250.0);
        assert!(c.is_constant());
        assert_eq!(c.length_secs(), None);
        assert_eq!(c.arrivals(4.0), 1000.0);
        assert_eq!(c.arrivals(-2.0), -500.0);
        assert_eq!(c.time_of(1000.0), 4.0);
        assert_eq!(c.time_of(-500.0), -2.0);
        assert_eq!(c.to_string(), "250/s");
    }

    #[test]
    fn cumulative_arrivals_add_up_holds_and_ramps() {
        let s = steps_and_ramp();
        assert_eq!(s.length_secs(), Some(240.0));
        assert_eq!(s.peak(), 4000.0);
        assert!(close(s.arrivals(60.0), 60_000.0));
        assert!(close(s.arrivals(120.0), 180_000.0));
        // Half the ramp: 60 s from 2000/s to 3000/s, 150,000 arrivals.
        assert!(close(s.arrivals(180.0), 330_000.0));
        assert!(close(s.arrivals(240.0), 540_000.0));
        // Past the end the last rate holds; before the start the first.
        assert!(close(s.arrivals(250.0), 580_000.0));
        assert!(close(s.arrivals(-5.0), -5000.0));
        assert!(close(s.rate_at(180.0), 3000.0));
        assert!(close(s.mean_over(240.0), 2250.0));
    }

    #[test]
    fn the_inverse_undoes_the_cumulative_everywhere() {
        let s = steps_and_ramp();
        let down = RateSchedule::new(vec![
            Segment {
                from: 0.0,
                to: 500.0,
                secs: 10.0,
            },
            Segment::hold(0.0, 5.0),
            Segment {
                from: 800.0,
                to: 1.0,
                secs: 7.5,
            },
        ])
        .unwrap();
        for schedule in [&s, &down] {
            for i in 0..=500 {
                let t = i as f64 * 0.5 - 3.0;
                // Where the rate is 0 the inverse lands on the next arrival's time.
                if schedule.rate_at(t) == 0.0 {
                    continue;
                }
                let back = schedule.time_of(schedule.arrivals(t));
                assert!(
                    (back - t).abs() < 1e-6,
                    "{schedule}: {t} came back as {back}"
                );
            }
        }
        // Through a pause the next arrival waits for the rate to rise again.
        assert!(close(down.time_of(2500.0 + 1e-9), 15.0));
    }

    #[test]
    fn a_schedule_reads_as_the_flag_that_makes_it() {
        assert_eq!(
            steps_and_ramp().to_string(),
            "1000/s for 60s, 2000/s for 60s, ramp 2000..4000/s over 120s"
        );
        let short = RateSchedule::new(vec![Segment::hold(10.5, 1.5)]).unwrap();
        assert_eq!(short.to_string(), "10.5/s for 1500ms");
    }

    #[test]
    fn empty_silent_or_endless_pieces_are_refused() {
        assert!(RateSchedule::new(vec![]).is_err());
        assert!(RateSchedule::new(vec![Segment::hold(0.0, 10.0)]).is_err());
        assert!(RateSchedule::new(vec![Segment::hold(10.0, 0.0)]).is_err());
        assert!(RateSchedule::new(vec![Segment::hold(10.0, f64::INFINITY)]).is_err());
        assert!(RateSchedule::new(vec![Segment::hold(-1.0, 1.0)]).is_err());
    }
}
