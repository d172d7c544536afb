//! The report of a frontier (`sweep --frontier`): the chart of one side's
//! figure against the other's, a line per terminal count through the
//! values of the option varied, and the steps' table.

use std::fmt::Write;

use txbench_core::result::FrontierResult;

use crate::html::page;
use crate::markup::escape;
use crate::millis::{grouped, ms};
use crate::plots::{self, Series};

/// The frontier's page.
pub fn report(f: &FrontierResult) -> String {
    let title = format!("Frontier: {} against {}", f.y, f.x);
    let mut b = format!(
        "<h1>{}</h1><p class=\"muted\">Closed-loop steps of {} s each, with each value of \
         --{} beside each terminal count; a line joins the steps of one terminal count.</p>",
        escape(&title),
        grouped(f.step_secs, 0),
        escape(&f.option)
    );
    let series = series(f);
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    let _ = write!(
        b,
        "<div class=\"chart\">{}</div>{}",
        plots::frontier(&series, (&f.x, &f.y)),
        plots::legend(&names, &[])
    );
    let _ = write!(
        b,
        "<table><tr><th>terminals</th><th>{}</th><th>{}</th><th>{}</th><th>first type p99 ms</th>\
         <th>verdict</th></tr>",
        escape(&f.option),
        escape(&f.y),
        escape(&f.x)
    );
    for p in &f.points {
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            p.terminals,
            p.added,
            grouped(p.y, 0),
            grouped(p.x, 0),
            ms(p.first_type_p99_ms),
            escape(&p.verdict)
        );
    }
    let _ = writeln!(b, "</table>");
    page(&title, &b)
}

/// A series per terminal count, its points in the order run.
fn series(f: &FrontierResult) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for p in &f.points {
        let name = format!("{} terminals", p.terminals);
        match out.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((p.x, p.y)),
            None => out.push(Series {
                name,
                points: vec![(p.x, p.y)],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_core::result::FrontierPoint;

    #[test]
    fn a_line_per_terminal_count_and_a_row_per_step() {
        let point = |terminals, added, x, y| FrontierPoint {
            terminals,
            added,
            x,
            y,
            first_type_p99_ms: 5.0,
            verdict: "SOUND".into(),
            results: String::new(),
        };
        let f = FrontierResult {
            schema_version: 1,
            option: "analytic-streams".into(),
            x: "QphH".into(),
            y: "tpmC".into(),
            step_secs: 30.0,
            points: vec![
                point(4, 0, 0.0, 40_000.0),
                point(4, 1, 9_000.0, 20_000.0),
                point(8, 0, 0.0, 50_000.0),
            ],
        };
        let s = series(&f);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].points, [(0.0, 40_000.0), (9_000.0, 20_000.0)]);
        let page = report(&f);
        assert!(page.contains("<svg"), "no chart");
        assert!(
            page.contains("<tr><td>4</td><td>1</td><td>20,000</td><td>9,000</td>"),
            "{page}"
        );
    }
}
