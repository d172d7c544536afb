//! The run's own figures of each interval, read back from `timeline.csv`
//! (written by [`crate::intervals`]): the rate offered and the workload's
//! headline, second by second, for the report's throughput chart.

use std::io;
use std::path::Path;

use crate::intervals::{HEADLINE_PREFIX, OFFERED_COLUMN};
use crate::merge::read::invalid;
use crate::plots::Series;

/// A run's figures over time; empty for results written before they were kept.
#[derive(Debug, Default, PartialEq)]
pub struct TimelineFigures {
    /// The rate offered per second (an open loop), at each interval's end.
    pub offered: Option<Series>,
    /// The headline figure (named as the workload names it, "tpmC").
    pub headline: Option<Series>,
}

/// The figures of the timeline at `path`; a missing file has none.
pub fn read(path: &Path) -> io::Result<TimelineFigures> {
    if !path.exists() {
        return Ok(TimelineFigures::default());
    }
    let mut reader = csv::Reader::from_path(path).map_err(|e| invalid(path, e))?;
    let headers = reader.headers().map_err(|e| invalid(path, e))?.clone();
    let find = |name: &str| headers.iter().position(|h| h == name);
    let (Some(start), Some(length)) = (find("start_s"), find("length_s")) else {
        return Err(invalid(path, "no start_s or length_s column"));
    };
    let offered = find(OFFERED_COLUMN).map(|c| (c, "offered".to_string()));
    let headline = headers
        .iter()
        .position(|h| h.starts_with(HEADLINE_PREFIX))
        .map(|c| (c, headers[c][HEADLINE_PREFIX.len()..].to_string()));
    let mut figures = TimelineFigures {
        offered: offered.as_ref().map(|(_, n)| series(n)),
        headline: headline.as_ref().map(|(_, n)| series(n)),
    };
    for record in reader.records() {
        // A torn or damaged line ends what is drawn; the timeline's own
        // check refuses damage before a report is written.
        let Ok(record) = record else { break };
        let number = |c: usize| record.get(c).and_then(|v| v.parse::<f64>().ok());
        let (Some(s), Some(l)) = (number(start), number(length)) else {
            break;
        };
        for (column, line) in [
            (&offered, &mut figures.offered),
            (&headline, &mut figures.headline),
        ] {
            if let (Some((c, _)), Some(line)) = (column, line.as_mut())
                && let Some(v) = number(*c)
            {
                line.points.push((s + l, v));
            }
        }
    }
    Ok(figures)
}

fn series(name: &str) -> Series {
    Series {
        name: name.to_string(),
        points: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offered_rate_and_the_headline_are_read_by_their_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timeline.csv");
        std::fs::write(
            &path,
            "start_s,length_s,txn_per_s,offered_per_s,headline:tpmC\n\
             0.000,1.000,10.0,12.5,600.0\n\
             1.000,0.500,11.0,,660.0\n",
        )
        .unwrap();
        let f = read(&path).unwrap();
        let offered = f.offered.unwrap();
        assert_eq!(offered.name, "offered");
        assert_eq!(offered.points, [(1.0, 12.5)]);
        let headline = f.headline.unwrap();
        assert_eq!(headline.name, "tpmC");
        assert_eq!(headline.points, [(1.0, 600.0), (1.5, 660.0)]);
    }

    #[test]
    fn an_older_timeline_has_no_figures() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timeline.csv");
        std::fs::write(&path, "start_s,length_s,txn_per_s\n0.000,1.000,10.0\n").unwrap();
        assert_eq!(read(&path).unwrap(), TimelineFigures::default());
        assert_eq!(
            read(&dir.path().join("none.csv")).unwrap(),
            TimelineFigures::default()
        );
    }
}
