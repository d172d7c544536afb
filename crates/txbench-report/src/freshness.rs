//! How fresh the data a run's readers saw was, as the terminal summary and
//! the HTML report show it: the figures over every look, then each look.

use std::fmt::Write;

use txbench_core::result::{FreshnessResult, Look};

use crate::markup::escape;
use crate::millis::{grouped, ms};

/// The looks the terminal lists one by one; past them, summary.json has all.
const LISTED: usize = 12;

/// What the looks compared, in a sentence.
fn title(f: &FreshnessResult) -> String {
    let looks = if f.rounds == 1 { "look" } else { "looks" };
    format!(
        "Freshness: each stream's look, as its round starts, for the {}s this process had \
         acknowledged ({} {looks} in the window)",
        f.of, f.rounds
    )
}

/// The figures over every look, in a line.
fn figures(f: &FreshnessResult) -> String {
    format!(
        "age mean {} ms, max {} ms; unseen {}s mean {}, max {}; {} of {} looks saw less than \
         was acknowledged",
        ms(f.age_mean_ms),
        ms(f.age_max_ms),
        f.of,
        grouped(f.unseen_mean, 1),
        grouped(f.unseen_max as f64, 0),
        f.stale_rounds,
        f.rounds
    )
}

/// One look's cells: stream and round from 1, when, unseen, age.
fn cells(l: &Look) -> [String; 5] {
    [
        (l.stream + 1).to_string(),
        (l.round + 1).to_string(),
        format!("{:.1}", l.at_s),
        grouped(l.unseen as f64, 0),
        ms(l.age_ms),
    ]
}

const HEADS: [&str; 5] = ["stream", "round", "at s", "unseen", "age ms"];

/// The freshness for the terminal summary; empty for a run without looks.
pub fn text(f: Option<&FreshnessResult>) -> String {
    let Some(f) = f else {
        return String::new();
    };
    let mut out = format!("{}:\n  {}\n", title(f), figures(f));
    let _ = writeln!(
        out,
        "  {:>6} {:>6} {:>8} {:>8} {:>10}",
        HEADS[0], HEADS[1], HEADS[2], HEADS[3], HEADS[4]
    );
    for l in f.looks.iter().take(LISTED) {
        let [s, r, at, unseen, age] = cells(l);
        let _ = writeln!(out, "  {s:>6} {r:>6} {at:>8} {unseen:>8} {age:>10}");
    }
    if f.looks.len() > LISTED {
        let more = f.looks.len() - LISTED;
        let _ = writeln!(out, "  ... {more} more in summary.json (freshness)");
    }
    out.push('\n');
    out
}

/// The freshness as a section of the HTML report; empty for a run without
/// looks.
pub fn html(f: Option<&FreshnessResult>) -> String {
    let Some(f) = f else {
        return String::new();
    };
    let mut b = format!(
        "<h2>Freshness</h2><p class=\"muted\">{}. A look's age is how long before it the oldest \
         acknowledged {} it could not see was acknowledged (0: it saw every one).</p><p>{}</p>",
        escape(&title(f)),
        escape(&f.of),
        escape(&figures(f))
    );
    b.push_str("<table><tr>");
    for h in HEADS {
        let _ = write!(b, "<th>{h}</th>");
    }
    b.push_str("</tr>");
    for l in &f.looks {
        b.push_str("<tr>");
        for c in cells(l) {
            let _ = write!(b, "<td>{c}</td>");
        }
        b.push_str("</tr>");
    }
    b.push_str("</table>\n");
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn looks(n: u32) -> FreshnessResult {
        let looks = (0..n)
            .map(|i| Look {
                at_s: f64::from(i),
                stream: i % 2,
                round: i / 2,
                unseen: u64::from(i % 3),
                age_ms: f64::from(i % 3) * 12.5,
            })
            .collect();
        FreshnessResult::of("New-Order", looks).unwrap()
    }

    #[test]
    fn the_terminal_gives_the_figures_then_each_look_up_to_a_dozen() {
        let out = text(Some(&looks(3)));
        assert!(out.contains("(3 looks in the window)"), "{out}");
        assert!(out.contains("age mean 12.5 ms, max 25.0 ms"), "{out}");
        assert!(out.contains("unseen New-Orders mean 1.0, max 2"), "{out}");
        assert!(out.contains("2 of 3 looks saw less"), "{out}");
        assert_eq!(out.lines().count(), 2 + 1 + 3 + 1, "{out}");
        let long = text(Some(&looks(20)));
        assert!(long.contains("... 8 more in summary.json"), "{long}");
        assert_eq!(text(None), "");
    }

    #[test]
    fn the_report_has_a_row_per_look() {
        let page = html(Some(&looks(20)));
        assert_eq!(page.matches("<tr>").count(), 21, "{page}");
        assert!(page.contains("<h2>Freshness</h2>"));
        assert_eq!(html(None), "");
    }
}
