//! The run's own figures over time, from its timeline (written by
//! [`crate::intervals`], read by [`crate::merge::read_timeline`]): the rate
//! offered and the workload's headline, second by second, for the report's
//! throughput chart.

use crate::merge::Timeline;
use crate::plots::Series;

/// A run's figures over time; empty for results written before they were kept.
#[derive(Debug, Default, PartialEq)]
pub struct TimelineFigures {
    /// The rate offered per second (an open loop), at each interval's end.
    pub offered: Option<Series>,
    /// The headline figure (named as the workload names it, "tpmC").
    pub headline: Option<Series>,
}

impl TimelineFigures {
    /// The figures `timeline`'s rows keep, each at its row's end.
    pub fn of(timeline: &Timeline) -> TimelineFigures {
        let series = |name: &str, value: fn(&crate::merge::TimelineRow) -> Option<f64>| {
            let points: Vec<(f64, f64)> = timeline
                .rows
                .iter()
                // A sliver of a second (the window's first milliseconds)
                // gives a rate of noise, drawn as if it were a second's.
                .filter(|r| r.length_s >= 0.25)
                .filter_map(|r| Some((r.start_s + r.length_s, value(r)?)))
                .collect();
            (!points.is_empty()).then(|| Series {
                name: name.to_string(),
                points,
            })
        };
        TimelineFigures {
            offered: series("offered", |r| r.offered_per_s),
            headline: timeline
                .headline
                .as_deref()
                .and_then(|name| series(name, |r| r.headline)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::read_timeline;

    #[test]
    fn the_offered_rate_and_the_headline_are_read_by_their_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timeline.csv");
        std::fs::write(
            &path,
            "start_s,length_s,a_committed,a_rollbacks,a_errors,a_retries,offered_per_s,headline:tpmC\n\
             0.000,1.000,10,0,0,0,12.5,600.0\n\
             1.000,0.500,11,0,0,0,,660.0\n\
             1.500,0.010,1,0,0,0,,6000.0\n",
        )
        .unwrap();
        let f = TimelineFigures::of(&read_timeline(&path, &["a"]).unwrap());
        let offered = f.offered.unwrap();
        assert_eq!(offered.name, "offered");
        assert_eq!(offered.points, [(1.0, 12.5)]);
        let headline = f.headline.unwrap();
        assert_eq!(headline.name, "tpmC");
        // The last row is a sliver of 10 ms: left out, not drawn as a second.
        assert_eq!(headline.points, [(1.0, 600.0), (1.5, 660.0)]);
    }

    #[test]
    fn an_older_timeline_has_no_figures() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timeline.csv");
        std::fs::write(
            &path,
            "start_s,length_s,a_committed,a_rollbacks,a_errors,a_retries\n0.000,1.000,10,0,0,0\n",
        )
        .unwrap();
        let timeline = read_timeline(&path, &["a"]).unwrap();
        assert_eq!(TimelineFigures::of(&timeline), TimelineFigures::default());
        assert_eq!(
            TimelineFigures::of(&Timeline::default()),
            TimelineFigures::default()
        );
    }
}
