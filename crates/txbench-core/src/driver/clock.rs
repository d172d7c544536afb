//! The run's clock: a tick a second that collects what the workers recorded
//! into the second's interval and the totals, until the window is over (or
//! the grace after it), and the last interval at the cut with what was
//! given up.

use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

use super::Ended;
use super::budget::Budget;
use super::phase_tally::PhaseTallies;
use super::seconds::Seconds;
use super::segments::Segments;
use super::stripe::{Collector, InFlight, SharedStripe};
use super::worker::{Job, Window};
use super::{Phase, Tick};
use crate::alternation::Alternation;
use crate::recorder::Recorder;

/// After the window, how often the run looks whether what was due in it is done.
const FINISH_POLL: Duration = Duration::from_millis(5);
/// Once a transaction count is spent, how often the run looks whether the
/// last of them ended: the window ends there, and its length is the run's
/// time (YCSB's RunTime), so the look is finer than after a window.
const COUNT_POLL: Duration = Duration::from_millis(1);

/// What sends the run's transactions, as the clock watches it: the task,
/// the queues to the sessions, and the transaction count's budget.
pub(super) struct Feed<'a, I, T> {
    pub(super) sender: &'a tokio::task::JoinHandle<T>,
    pub(super) queues: &'a [async_channel::Receiver<Job<I>>],
    pub(super) budget: &'a Budget,
}

impl<I, T> Feed<'_, I, T> {
    /// Nothing is left to send or waiting for a session.
    fn is_over(&self) -> bool {
        self.sender.is_finished() && self.queues.iter().all(|q| q.is_empty())
    }

    fn queued(&self) -> u64 {
        self.queues.iter().map(|q| q.len() as u64).sum()
    }
}

/// The run's clock: ticks once a second, collecting the stripes into the
/// interval and the totals.
pub(super) struct Clock {
    pub(super) collector: Collector,
    pub(super) total: Recorder,
    interval: Recorder,
    started: Instant,
    last_tick: Instant,
    pub(super) window: Window,
    pub(super) window_start: SystemTime,
    pub(super) seconds: Seconds,
    pub(super) segments: Segments,
    /// Each phase's numbers, in a run that alternates.
    pub(super) phases: Option<PhaseTallies>,
}

impl Clock {
    /// A clock of a run anchored at `started` (`window_start` by the wall
    /// clock), collecting `stripes` of `types` transaction types, and
    /// tallying each phase of `alternation` if the run alternates.
    pub(super) fn new(
        stripes: Vec<SharedStripe>,
        types: usize,
        (started, window, window_start): (Instant, Window, SystemTime),
        alternation: Option<Alternation>,
    ) -> Clock {
        Clock {
            collector: Collector::new(stripes, types),
            total: Recorder::new(types),
            interval: Recorder::new(types),
            started,
            last_tick: Instant::now(),
            window,
            window_start,
            seconds: Seconds::default(),
            segments: Segments::default(),
            phases: alternation.map(PhaseTallies::new),
        }
    }

    /// Tick until the window is over and what was due in it is done, or the
    /// grace after it ran out, or the transaction count was reached and all
    /// of them ended; or until `stop` ended the run first.
    pub(super) async fn wait_for_window<I, T>(
        &mut self,
        feed: &Feed<'_, I, T>,
        grace: Duration,
        mut stop: watch::Receiver<bool>,
        on_tick: &mut impl FnMut(Tick<'_>),
    ) -> Ended {
        // Ticks just before the window's whole seconds, so that a second of
        // the window is a tick and a phase's edge falls between two (a late
        // tick is followed by the next on time, not by a second later).
        let aim = (self.window.start.checked_sub(TICK_LEAD)).unwrap_or(self.window.start);
        let first = on_the_second(Instant::now(), aim, TICK);
        let mut ticker = tokio::time::interval_at(first.into(), TICK);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        self.last_tick = Instant::now();
        let give_up = self.window.end + grace;
        loop {
            let now = Instant::now();
            let (past_end, counted) = (now >= self.window.end, feed.budget.is_spent());
            // The window is waited out even when the senders have no more
            // to send (a rate schedule ending in a pause, or too low a rate
            // for another arrival): the run lasts the seconds it reports,
            // and the commands scheduled in them run.
            let done = (past_end || counted) && feed.is_over() && self.collector.all_finished();
            if done || now >= give_up {
                return if counted && !past_end {
                    Ended::Counted
                } else {
                    Ended::Window
                };
            }
            let poll = if counted { COUNT_POLL } else { FINISH_POLL };
            tokio::select! {
                biased;
                _ = stop.wait_for(|s| *s) => return Ended::Stopped,
                _ = ticker.tick() => self.tick(feed.queued(), on_tick).await,
                _ = tokio::time::sleep_until(self.window.end.into()), if !past_end && !counted => {}
                () = feed.budget.wait_spent(), if !counted => {}
                _ = tokio::time::sleep(poll), if past_end || counted => {}
            }
        }
    }

    /// Collect the last second and hand it on.
    async fn tick(&mut self, queued: u64, on_tick: &mut impl FnMut(Tick<'_>)) {
        let now = Instant::now();
        let by_type = self.collector.outstanding();
        let outstanding = by_type.iter().sum();
        self.collector
            .collect(&mut self.interval, &mut self.total)
            .await;
        self.seconds.tick(
            self.window,
            self.last_tick,
            now,
            &self.interval,
            outstanding,
        );
        if self.window.overlaps(self.last_tick, now) {
            self.segments.add(&self.interval);
        }
        if let Some(phases) = &mut self.phases {
            phases.tick(self.window, (self.last_tick, now), &self.interval, &by_type);
        }
        let types = self.interval.measured.len();
        // A fresh recorder for the next interval (its histograms start small
        // and grow to what is recorded); the receiver keeps these.
        let interval = std::mem::replace(&mut self.interval, Recorder::new(types));
        self.emit(now, interval, (&by_type, queued), on_tick);
    }

    /// Hand on an interval ending `now`, with what was outstanding (per
    /// type, and of it queued) then.
    fn emit(
        &mut self,
        now: Instant,
        interval: Recorder,
        (outstanding, queued): (&[u64], u64),
        on_tick: &mut impl FnMut(Tick<'_>),
    ) {
        let phase = if now < self.window.start {
            Phase::WarmUp
        } else if now <= self.window.end {
            Phase::Measure
        } else {
            Phase::Finishing
        };
        on_tick(Tick {
            elapsed: now - self.started,
            phase,
            interval,
            interval_length: now - self.last_tick,
            window_span: self.window.span(self.last_tick, now),
            window_start: self.window_start,
            total: &self.total,
            outstanding,
            queued,
        });
        self.last_tick = now;
    }

    /// The interval from the last tick to the cut, with the transactions given
    /// up at the cut counted in it, so the intervals add up to the totals
    /// exactly.
    pub(super) async fn last_interval(
        &mut self,
        given_up: GivenUp,
        cut_at: Instant,
        on_tick: &mut impl FnMut(Tick<'_>),
    ) {
        let mut interval = std::mem::replace(&mut self.interval, Recorder::new(0));
        self.collector.collect_interval(&mut interval).await;
        // The window's last completions, when it ended between two ticks:
        // its last (part) second too, which a run that finished before the
        // next tick would otherwise leave out of the seconds.
        if self.window.overlaps(self.last_tick, cut_at) {
            self.segments.add(&interval);
        }
        self.seconds
            .tick(self.window, self.last_tick, cut_at, &interval, 0);
        if cut_at > self.window.start {
            given_up.record(&mut interval, self.window, cut_at);
        }
        self.total.merge(&interval);
        let empty = interval
            .measured
            .iter()
            .all(|t| t.latency.is_empty() && t.failed() == 0 && t.given_up() == 0)
            && interval.lateness.is_empty();
        if !empty {
            // After the cut nothing is outstanding: what was is given up.
            self.emit(Instant::now().max(cut_at), interval, (&[], 0), on_tick);
        }
    }
}

/// The clock's period.
const TICK: Duration = Duration::from_secs(1);

/// How long before each of the window's whole seconds the clock aims its
/// tick. A tick wakes a little late: one aimed at the window's start would
/// close the warm-up just after it, leaving the window a first interval of
/// a fraction of a millisecond, a spike in any rate over it (a rounded
/// length of 0 in the timeline). Aimed this early, it closes the warm-up
/// before the window unless it wakes later than this.
const TICK_LEAD: Duration = Duration::from_millis(25);

/// The first instant after `now` that is a whole number of `period`s from
/// `anchor`, before or after it.
fn on_the_second(now: Instant, anchor: Instant, period: Duration) -> Instant {
    let p = period.as_nanos().max(1);
    if now < anchor {
        let whole = (anchor - now).as_nanos() / p;
        let at = anchor - period.saturating_mul(whole as u32);
        if at > now { at } else { at + period }
    } else {
        let whole = (now - anchor).as_nanos() / p + 1;
        anchor + period.saturating_mul(whole as u32)
    }
}

/// The transactions still unfinished when the run stopped waiting (all due
/// before the window's end).
pub(super) struct GivenUp {
    /// Per type, how many were sent to the pool and not finished.
    pub(super) outstanding: Vec<u64>,
    /// Of those, the ones found (queued, or executing) with their intended starts.
    pub(super) found: Vec<InFlight>,
    /// Due and never sent (the sender was behind).
    pub(super) unsent: Vec<InFlight>,
}

impl GivenUp {
    /// Count each in `interval` as unfinished, with the time it had waited by
    /// the cut as the lower bound of its latency. For the few a worker took
    /// from the queue in the instant of the cut, which are counted but not
    /// found, that is the time since the window's end, which none of them can
    /// have waited less than.
    fn record(&self, interval: &mut Recorder, window: Window, cut_at: Instant) {
        let types = interval.measured.len();
        let waited = |j: &InFlight| cut_at.saturating_duration_since(j.intended);
        let least = cut_at.saturating_duration_since(window.end.min(cut_at));
        for t in 0..types.min(self.outstanding.len()) {
            let mut found = self.found.iter().filter(|j| j.txn_type == t).map(waited);
            for _ in 0..self.outstanding[t] {
                let w = found.next().unwrap_or(least);
                interval.measured[t].record_given_up(w, false);
            }
        }
        for j in self.unsent.iter().filter(|j| j.txn_type < types) {
            interval.measured[j.txn_type].record_given_up(waited(j), false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_fall_on_the_window_s_whole_seconds() {
        let anchor = Instant::now() + Duration::from_secs(100);
        let ms = Duration::from_millis;
        let s = Duration::from_secs(1);
        assert_eq!(
            on_the_second(anchor - ms(2_300), anchor, s),
            anchor - ms(2_000)
        );
        assert_eq!(
            on_the_second(anchor - ms(2_000), anchor, s),
            anchor - ms(1_000)
        );
        assert_eq!(on_the_second(anchor - ms(1), anchor, s), anchor);
        assert_eq!(on_the_second(anchor, anchor, s), anchor + s);
        assert_eq!(
            on_the_second(anchor + ms(3_400), anchor, s),
            anchor + ms(4_000)
        );
    }
}
