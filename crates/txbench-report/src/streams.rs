//! A run's analytical streams, as the terminal summary and the HTML report
//! show them: each stream's queries completed and an hour, each query's
//! figures per stream, and each execution as a mark on the charts over time.

use std::fmt::Write;

use txbench_core::result::{StreamResult, StreamsResult};

use crate::markup::escape;
use crate::millis::{grouped, ms};
use crate::plots::{Lane, Span};

/// One stream's line: what it completed, an hour, and its slowest query.
fn line(s: &StreamResult) -> String {
    let slowest = (s.types.iter())
        .max_by(|a, b| a.mean_ms.total_cmp(&b.mean_ms))
        .map_or(String::new(), |t| {
            format!("; slowest {} (mean {} ms)", t.name, ms(t.mean_ms))
        });
    format!(
        "stream {}: {} queries, {} an hour{slowest}",
        s.stream + 1,
        grouped(s.completed as f64, 0),
        grouped(s.per_hour, 0)
    )
}

/// The streams for the terminal summary; empty for a run without them.
pub fn text(r: Option<&StreamsResult>) -> String {
    let Some(r) = r else {
        return String::new();
    };
    let mut out = String::from(
        "Each stream (its queries timed from begin to commit; each query per stream in \
         summary.json, streams):\n",
    );
    for s in &r.streams {
        let _ = writeln!(out, "  {}", line(s));
    }
    out.push('\n');
    out
}

/// The streams as a section of the HTML report: a query a row, a stream a
/// column pair (count, mean ms); empty for a run without them.
pub fn html(r: Option<&StreamsResult>) -> String {
    let Some(r) = r else {
        return String::new();
    };
    let mut b = String::from(
        "<h2>Streams</h2><p class=\"muted\">Each analytical stream's queries, timed from begin \
         to commit (median and longest in summary.json), and the rows of each one's last \
         answer; the charts over time mark each execution in a lane per stream along their \
         top.</p><ul>",
    );
    for s in &r.streams {
        let _ = write!(b, "<li>{}</li>", escape(&line(s)));
    }
    b.push_str("</ul><table><tr><th>query</th>");
    for s in &r.streams {
        let _ = write!(
            b,
            "<th>stream {} count</th><th>mean ms</th><th>rows</th>",
            s.stream + 1
        );
    }
    b.push_str("</tr>");
    for name in query_names(r) {
        let _ = write!(b, "<tr><td>{}</td>", escape(name));
        for s in &r.streams {
            match s.types.iter().find(|t| t.name == name) {
                Some(t) => {
                    let (count, mean) = (t.count, ms(t.mean_ms));
                    let _ = write!(
                        b,
                        "<td>{count}</td><td>{mean}</td><td>{}</td>",
                        t.answer_rows
                    );
                }
                None => b.push_str("<td>0</td><td>-</td><td>-</td>"),
            }
        }
        b.push_str("</tr>");
    }
    b.push_str("</table>\n");
    b
}

/// Every query any stream completed, in the order the first stream that
/// has each gives them.
fn query_names(r: &StreamsResult) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for t in r.streams.iter().flat_map(|s| &s.types) {
        if !names.contains(&t.name.as_str()) {
            names.push(&t.name);
        }
    }
    names
}

/// Each execution as a span in its stream's lane of the charts over time.
pub fn lanes(r: Option<&StreamsResult>) -> Vec<Lane> {
    let Some(r) = r else {
        return Vec::new();
    };
    let mut lanes: Vec<Lane> = Vec::new();
    for e in &r.executions {
        let name = format!("stream {}", e.stream + 1);
        let span = Span {
            from: e.from_s,
            to: e.to_s,
            first: e.name == "Q1",
        };
        match lanes.iter_mut().find(|l| l.name == name) {
            Some(lane) => lane.spans.push(span),
            None => lanes.push(Lane {
                name,
                spans: vec![span],
            }),
        }
    }
    lanes
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_core::result::{Execution, StreamType};

    fn streams() -> StreamsResult {
        let q = |name: &str, count, mean_ms| StreamType {
            name: name.into(),
            count,
            mean_ms,
            p50_ms: mean_ms,
            max_ms: mean_ms,
            answer_rows: count,
        };
        let run = |stream, name: &str, from_s| Execution {
            stream,
            name: name.into(),
            from_s,
            to_s: from_s + 1.0,
        };
        StreamsResult {
            streams: vec![
                StreamResult {
                    stream: 0,
                    completed: 3,
                    per_hour: 1080.0,
                    types: vec![q("Q1", 2, 10.0), q("Q2", 1, 900.0)],
                },
                StreamResult {
                    stream: 1,
                    completed: 1,
                    per_hour: 360.0,
                    types: vec![q("Q2", 1, 800.0)],
                },
            ],
            executions: vec![run(0, "Q1", 0.0), run(1, "Q2", 0.5), run(0, "Q2", 1.0)],
        }
    }

    #[test]
    fn each_stream_has_its_line_and_column_and_each_execution_its_lane() {
        let out = text(Some(&streams()));
        assert!(out.contains("stream 1: 3 queries, 1,080 an hour; slowest Q2 (mean 900 ms)"));
        assert!(out.contains("stream 2: 1 queries, 360 an hour"), "{out}");
        let page = html(Some(&streams()));
        assert!(page.contains(
            "<tr><td>Q1</td><td>2</td><td>10.0</td><td>2</td><td>0</td><td>-</td><td>-</td></tr>"
        ));
        let lanes = lanes(Some(&streams()));
        let spans: Vec<(&str, usize)> = lanes
            .iter()
            .map(|l| (l.name.as_str(), l.spans.len()))
            .collect();
        assert_eq!(spans, [("stream 1", 2), ("stream 2", 1)]);
        assert!(lanes[0].spans[0].first && !lanes[0].spans[1].first);
        assert_eq!((text(None), html(None)), (String::new(), String::new()));
    }
}
