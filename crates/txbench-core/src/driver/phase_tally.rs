//! What each phase of an alternating run measured ([`Alternation`]), a tick
//! at a time: the ticks that lie in one phase, and in a phase without the
//! held types only once none of their work is left running from the phase
//! before (a query that outlasts its phase is not the quiet phase's). The
//! clock ticks just before the window's whole seconds, so a tick crosses an
//! edge only by a few milliseconds: a phase with the held types allows it
//! ([`EDGE_SLACK`]); one without allows nothing, so that nothing held is
//! ever counted in it (it loses its first tick).

use std::time::{Duration, Instant};

use super::worker::Window;
use crate::alternation::Alternation;
use crate::recorder::Recorder;

/// How far a tick may reach across a phase's edge and still count in the
/// phase with the held types it mostly lies in: the clock's lead and a late
/// tick's milliseconds, never a noticeable part of a phase of seconds.
pub const EDGE_SLACK: Duration = Duration::from_millis(50);

/// One phase's numbers.
#[derive(Debug)]
pub struct PhaseTally {
    /// The phase's index from the window's start (0 is the first without).
    pub index: u64,
    /// Whether the held types ran in it.
    pub with_held: bool,
    /// The seconds counted in it.
    pub counted_secs: f64,
    /// The seconds of it left out: ticks across a phase's edge, and ticks
    /// that began with held work still running in a phase without it.
    pub left_out_secs: f64,
    /// What the counted seconds recorded.
    pub recorder: Recorder,
}

/// The phases of a run so far.
#[derive(Debug)]
pub struct PhaseTallies {
    alternation: Alternation,
    phases: Vec<PhaseTally>,
    /// Held transactions sent and not finished at the last tick.
    held_outstanding: u64,
}

impl PhaseTallies {
    /// No phase yet.
    pub fn new(alternation: Alternation) -> PhaseTallies {
        PhaseTallies {
            alternation,
            phases: Vec::new(),
            held_outstanding: 0,
        }
    }

    /// Note the tick at `now` that closed the interval begun at `last_tick`
    /// with `interval`'s numbers; `outstanding` is, per type, what was sent
    /// and not finished at `now`. An interval across the window's start or
    /// end counts its part inside (its measured numbers are that part's).
    pub fn tick(
        &mut self,
        window: Window,
        (last_tick, now): (Instant, Instant),
        interval: &Recorder,
        outstanding: &[u64],
    ) {
        let held_at_start = self.held_outstanding;
        self.held_outstanding =
            (outstanding.get(self.alternation.held.clone())).map_or(0, |held| held.iter().sum());
        let (from, to) = window.span(last_tick, now.min(window.end));
        if to <= from {
            return;
        }
        let length = (to - from).as_secs_f64();
        let index = self.alternation.phase_at(from + (to - from) / 2);
        let edge = |k: u64| self.alternation.phase.saturating_mul(k as u32);
        let across = edge(index).saturating_sub(from) + to.saturating_sub(edge(index + 1));
        let phase = self.phase(index, interval.measured.len());
        let slack = if phase.with_held {
            EDGE_SLACK
        } else {
            Duration::ZERO
        };
        let spill = !phase.with_held && held_at_start > 0;
        if across > slack || spill {
            phase.left_out_secs += length;
            return;
        }
        phase.counted_secs += length;
        phase.recorder.merge(interval);
    }

    /// Phase `index`, and those before it, made if new.
    fn phase(&mut self, index: u64, types: usize) -> &mut PhaseTally {
        while self.phases.len() as u64 <= index {
            let index = self.phases.len() as u64;
            self.phases.push(PhaseTally {
                index,
                with_held: Alternation::is_with(index),
                counted_secs: 0.0,
                left_out_secs: 0.0,
                recorder: Recorder::new(types),
            });
        }
        &mut self.phases[index as usize]
    }

    /// The phases, in order.
    pub fn into_vec(self) -> Vec<PhaseTally> {
        self.phases
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn completed(n: u64) -> Recorder {
        let mut r = Recorder::new(2);
        for _ in 0..n {
            r.measured[0].latency.record(1_000).unwrap();
            r.measured[0].committed += 1;
        }
        r
    }

    #[test]
    fn ticks_across_an_edge_or_under_a_held_spill_are_left_out() {
        let start = Instant::now();
        let window = Window {
            start,
            end: start + Duration::from_secs(40),
            by_due: false,
        };
        let alt = Alternation {
            phase: Duration::from_secs(10),
            held: 1..2,
        };
        let mut t = PhaseTallies::new(alt);
        let at = |s: f64| start + Duration::from_secs_f64(s);
        // Warm-up: outside the window.
        t.tick(
            window,
            (at(0.0) - Duration::from_secs(1), at(0.0)),
            &completed(5),
            &[0, 0],
        );
        // Phase 0, whole seconds.
        t.tick(window, (at(0.0), at(1.0)), &completed(3), &[0, 0]);
        // A tick 20 ms late counts in a phase with the held types, not in
        // one without (a query may have started and ended in those 20 ms).
        t.tick(window, (at(9.0), at(10.02)), &completed(1), &[0, 0]);
        t.tick(window, (at(19.0), at(20.02)), &completed(1), &[0, 0]);
        // Across the edge into phase 1; a query is sent.
        t.tick(window, (at(9.5), at(10.5)), &completed(7), &[0, 1]);
        t.tick(window, (at(10.5), at(11.5)), &completed(2), &[0, 1]);
        // Phase 2 begins with the query still running, then it ends.
        t.tick(window, (at(20.0), at(21.0)), &completed(4), &[0, 0]);
        t.tick(window, (at(21.0), at(22.0)), &completed(6), &[0, 0]);
        let phases = t.into_vec();
        assert_eq!(phases.len(), 3);
        let counted: Vec<(f64, f64)> = phases
            .iter()
            .map(|p| (p.counted_secs, p.left_out_secs))
            .collect();
        assert!((counted[0].0 - 1.0).abs() < 1e-9, "{counted:?}");
        assert!((counted[0].1 - 1.02).abs() < 1e-9, "{counted:?}");
        assert!((counted[1].0 - 2.02).abs() < 1e-9, "{counted:?}");
        assert_eq!(counted[2], (1.0, 1.0));
        let committed: Vec<u64> = phases
            .iter()
            .map(|p| p.recorder.measured[0].committed)
            .collect();
        assert_eq!(committed, [3, 3, 6]);
        assert!(phases[1].with_held && !phases[2].with_held);
    }
}
