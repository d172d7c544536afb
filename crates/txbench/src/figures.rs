//! The run's own figures of each interval, kept in `timeline.csv` beside the
//! recorder's counts: the rate the open loop offered (which a schedule
//! varies) and the workload's headline (tpmC, MQTh, committed/s), so that a
//! report draws them second by second.

use std::time::Duration;

use txbench_core::TxnTypeInfo;
use txbench_core::driver::RateSchedule;
use txbench_core::recorder::Recorder;
use txbench_core::summary;
use txbench_report::results::{HEADLINE_PREFIX, OFFERED_COLUMN};

use txbench_core::driver::{Phase, Tick};
use txbench_core::result::Metric;

use crate::progress::Headline;

/// How each interval's figures are computed.
pub struct Figures {
    offered: Option<RateSchedule>,
    headline: Headline,
    /// The headline figure's name, when the workload has one.
    headline_name: Option<String>,
    types: &'static [TxnTypeInfo],
}

impl Figures {
    /// The figures of a run offering `offered` (none: a closed loop), with
    /// the workload's `headline` over its `types`.
    pub fn new(
        offered: Option<RateSchedule>,
        headline: Headline,
        types: &'static [TxnTypeInfo],
    ) -> Figures {
        let nothing = summary::type_results(types, &Recorder::new(types.len()).measured);
        let headline_name = headline(&nothing, 1.0).into_iter().next().map(|m| m.name);
        Figures {
            offered,
            headline,
            headline_name,
            types,
        }
    }

    /// The timeline's columns, in the order [`Figures::of`] gives them.
    pub fn names(&self) -> Vec<String> {
        self.offered
            .as_ref()
            .map(|_| OFFERED_COLUMN.to_string())
            .into_iter()
            .chain(
                self.headline_name
                    .as_ref()
                    .map(|n| format!("{HEADLINE_PREFIX}{n}")),
            )
            .collect()
    }

    /// The workload's headline figures over the tick `t` measured (none
    /// during the warm-up): computed once a second for every watcher.
    pub fn headline_of(&self, t: &Tick<'_>) -> Option<Vec<Metric>> {
        (t.phase != Phase::WarmUp).then(|| {
            let secs = crate::progress::measured_part(t).as_secs_f64().max(1e-3);
            self.headline_over(&t.interval, secs)
        })
    }

    /// The workload's headline figures over `secs` seconds whose numbers
    /// are `interval`.
    pub fn headline_over(&self, interval: &Recorder, secs: f64) -> Vec<Metric> {
        (self.headline)(&summary::type_results(self.types, &interval.measured), secs)
    }

    /// The figures of the interval `from..to` (from the window's start) whose
    /// headline figures are `headline` ([`Figures::headline_of`]): the
    /// arrivals due per second, and the headline.
    pub fn of(&self, (from, to): (Duration, Duration), headline: Option<&[Metric]>) -> Vec<f64> {
        let secs = (to - from).as_secs_f64().max(1e-9);
        let offered = self
            .offered
            .as_ref()
            .map(|r| r.arrivals_between(from.as_secs_f64(), to.as_secs_f64()) / secs);
        let headline = self.headline_name.as_ref().map(|_| {
            headline
                .and_then(|h| h.first())
                .map_or(f64::NAN, |m| m.value)
        });
        offered.into_iter().chain(headline).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use txbench_core::result::Metric;

    use super::*;

    static TYPES: [TxnTypeInfo; 1] = [TxnTypeInfo::back_to_back("Read", "read", 1.0, None)];

    fn per_second() -> Headline {
        Arc::new(|types, secs| {
            vec![Metric {
                name: "reads/s".into(),
                value: types.iter().map(|t| t.committed as f64).sum::<f64>() / secs,
                unit: "1/s".into(),
                counts: None,
                interval: None,
            }]
        })
    }

    #[test]
    fn an_interval_gets_what_was_due_and_its_headline() {
        let ramp = RateSchedule::new(vec![txbench_core::driver::Segment {
            from: 100.0,
            to: 300.0,
            secs: 2.0,
        }])
        .unwrap();
        let f = Figures::new(Some(ramp), per_second(), &TYPES);
        assert_eq!(f.names(), ["offered_per_s", "headline:reads/s"]);
        let mut interval = Recorder::new(1);
        interval.measured[0].committed = 90;
        let ms = Duration::from_millis;
        let headline = f.headline_over(&interval, 0.5);
        let figures = f.of((ms(1000), ms(1500)), Some(&headline));
        // 0.5 s from 200/s to 250/s: 112.5 due, 225/s; 90 done in 0.5 s.
        assert_eq!(figures, [225.0, 180.0]);
    }

    #[test]
    fn a_closed_loop_has_only_its_headline() {
        let f = Figures::new(None, per_second(), &TYPES);
        assert_eq!(f.names(), ["headline:reads/s"]);
        let headline = f.headline_over(&Recorder::new(1), 1.0);
        assert_eq!(
            f.of((Duration::ZERO, Duration::from_secs(1)), Some(&headline)),
            [0.0]
        );
    }
}
