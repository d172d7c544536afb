//! A run's alternating phases, as the terminal summary and the HTML report
//! show them: each phase's headline figures, then what the held types cost
//! the rest, as ratios with their intervals.

use std::fmt::Write;

use txbench_core::result::{AlternationResult, Contrast, PhaseResult};

use crate::markup::escape;
use crate::millis::{grouped, ms};
use crate::plots::{self, Band};

/// The held types' names: the first to the last.
fn held_names(a: &AlternationResult) -> String {
    match (a.held.first(), a.held.last()) {
        (Some(first), Some(last)) if a.held.len() > 1 => format!("{first} to {last}"),
        (Some(only), _) => only.clone(),
        _ => "nothing".into(),
    }
}

/// What the phases are, in a sentence.
fn title(a: &AlternationResult) -> String {
    let held = held_names(a);
    format!(
        "Phases of {} s from the window's start, alternately without and with {held}",
        grouped(a.phase_secs, 0)
    )
}

/// A figure as its unit wants it.
fn figure(value: f64, unit: &str) -> String {
    if unit == "ms" {
        format!("{} ms", ms(value))
    } else {
        grouped(value, if value < 100.0 { 2 } else { 0 })
    }
}

/// The ratio and its interval, in words.
fn ratio(c: &Contrast) -> String {
    let interval = match c.interval {
        Some([low, high]) => format!("95% interval {low:.2}..{high:.2}, "),
        None => "no interval: ".into(),
    };
    let phases = if c.phases == 1 { "phase" } else { "phases" };
    format!("{:.2}  ({interval}{} {phases} with)", c.ratio, c.phases)
}

/// The phases for the terminal summary; empty for a run without them.
pub fn text(a: Option<&AlternationResult>) -> String {
    let Some(a) = a else {
        return String::new();
    };
    let mut out = format!("{}:\n", title(a));
    let names: Vec<&str> = first_metrics(a);
    let mut head = format!("  {:<6} {:<8} {:>9}", "phase", "held", "counted");
    for n in &names {
        let _ = write!(head, " {n:>12}");
    }
    let _ = writeln!(out, "{head}");
    for p in &a.phases {
        let mut line = format!(
            "  {:<6} {:<8} {:>7.1} s",
            p.index + 1,
            if p.with_held { "with" } else { "without" },
            p.counted_secs
        );
        for n in &names {
            let v = p.metric(n);
            let _ = write!(line, " {:>12}", v.map_or("-".into(), |v| grouped(v, 0)));
        }
        let _ = writeln!(out, "{line}");
    }
    if a.contrasts.is_empty() {
        let _ = writeln!(
            out,
            "  no phase with and without to compare (too short a window)"
        );
    }
    for c in &a.contrasts {
        let _ = writeln!(
            out,
            "  {:<18} {:>12} without, {:>12} with: ratio {}",
            c.name,
            figure(c.without, &c.unit),
            figure(c.with, &c.unit),
            ratio(c)
        );
    }
    let _ = writeln!(out);
    out
}

/// The headline figures' names, as the first phase that has any gives them.
fn first_metrics(a: &AlternationResult) -> Vec<&str> {
    (a.phases.iter().find(|p| !p.metrics.is_empty()))
        .map(|p| p.metrics.iter().map(|m| m.name.as_str()).collect())
        .unwrap_or_default()
}

/// The phases with the held types, as bands of the charts over time.
pub fn bands(a: Option<&AlternationResult>) -> Vec<Band> {
    let Some(a) = a else {
        return Vec::new();
    };
    let name = format!("phases with {}", held_names(a));
    (a.phases.iter().filter(|p| p.with_held))
        .map(|p| Band {
            name: name.clone(),
            from: p.index as f64 * a.phase_secs,
            to: (p.index + 1) as f64 * a.phase_secs,
            colour: plots::HELD,
        })
        .collect()
}

/// The phases as a section of the HTML report; empty for a run without them.
pub fn html(a: Option<&AlternationResult>) -> String {
    let Some(a) = a else {
        return String::new();
    };
    let mut b = format!(
        "<h2>Phases</h2><p class=\"muted\">{}. Each phase with them is set against the mean \
         of the phases without on either side of it, so a steady drift over the run cancels; \
         seconds across a phase's edge, and those of a phase without while a held transaction \
         of the phase before still ran, are left out.</p>",
        escape(&title(a))
    );
    let _ = write!(
        b,
        "<table><tr><th>figure</th><th>without</th><th>with</th><th>ratio</th>\
         <th>95% interval</th><th>phases with</th></tr>"
    );
    for c in &a.contrasts {
        let interval = c
            .interval
            .map_or("-".into(), |[low, high]| format!("{low:.2}..{high:.2}"));
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{interval}</td><td>{}</td></tr>",
            escape(&c.name),
            figure(c.without, &c.unit),
            figure(c.with, &c.unit),
            c.ratio,
            c.phases
        );
    }
    let _ = writeln!(b, "</table>");
    phase_table(&mut b, a);
    b
}

fn phase_table(b: &mut String, a: &AlternationResult) {
    let names = first_metrics(a);
    let _ = write!(
        b,
        "<table><tr><th>phase</th><th>held</th><th>counted s</th><th>left out s</th>"
    );
    for n in &names {
        let _ = write!(b, "<th>{}</th>", escape(n));
    }
    let _ = write!(b, "</tr>");
    for p in &a.phases {
        phase_row(b, p, &names);
    }
    let _ = writeln!(b, "</table>");
}

fn phase_row(b: &mut String, p: &PhaseResult, names: &[&str]) {
    let _ = write!(
        b,
        "<tr><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.1}</td>",
        p.index + 1,
        if p.with_held { "with" } else { "without" },
        p.counted_secs,
        p.left_out_secs
    );
    for n in names {
        let v = p.metric(n);
        let _ = write!(b, "<td>{}</td>", v.map_or("-".into(), |v| grouped(v, 0)));
    }
    let _ = write!(b, "</tr>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_core::result::Metric;

    fn phase(index: u64, tpmc: f64) -> PhaseResult {
        PhaseResult {
            index,
            with_held: index % 2 == 1,
            counted_secs: 29.0,
            left_out_secs: 1.0,
            metrics: vec![Metric {
                name: "tpmC".into(),
                value: tpmc,
                unit: "txn/min".into(),
                counts: None,
                interval: None,
            }],
            transactions: Vec::new(),
        }
    }

    #[test]
    fn the_phases_and_the_ratio_with_its_interval_are_shown() {
        let a = AlternationResult {
            phase_secs: 30.0,
            held: (1..=22).map(|q| format!("Q{q}")).collect(),
            phases: (0..5)
                .map(|k| phase(k, if k % 2 == 1 { 24_000.0 } else { 53_000.0 }))
                .collect(),
            contrasts: vec![Contrast {
                name: "tpmC".into(),
                unit: "txn/min".into(),
                without: 53_000.0,
                with: 24_000.0,
                ratio: 0.45,
                interval: Some([0.41, 0.49]),
                phases: 2,
            }],
        };
        let text = text(Some(&a));
        assert!(
            text.starts_with(
                "Phases of 30 s from the window's start, alternately without and with Q1 to Q22:"
            ),
            "{text}"
        );
        assert!(
            text.contains("ratio 0.45  (95% interval 0.41..0.49, 2 phases with)"),
            "{text}"
        );
        assert!(text.contains("53,000 without,       24,000 with"), "{text}");
        let without = |l: &&str| l.contains(" without ") && l.ends_with("53,000");
        assert_eq!(text.lines().filter(without).count(), 3, "{text}");
        let bands = bands(Some(&a));
        assert_eq!(bands.len(), 2);
        assert_eq!((bands[1].from, bands[1].to), (90.0, 120.0));
        assert_eq!(bands[0].name, "phases with Q1 to Q22");
        let html = html(Some(&a));
        assert!(
            html.contains(
                "<td>tpmC</td><td>53,000</td><td>24,000</td><td>0.45</td><td>0.41..0.49</td>"
            ),
            "{html}"
        );
        assert!(super::text(None).is_empty() && super::html(None).is_empty());
    }
}
