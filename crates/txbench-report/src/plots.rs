//! The report's charts as SVG text (plotters' SVG backend; the browser draws the
//! text, so no font library is involved).

use hdrhistogram::Histogram;
use plotters::coord::Shift;
use plotters::prelude::*;
/// A colour of a chart, for the legend beside it.
pub use plotters::style::RGBColor;

/// Size of every chart, in pixels: the page's full width (the page scales it
/// down on a narrower screen).
const SIZE: (u32, u32) = (1060, 420);

/// A named line of (x, y) points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// The points.
    pub points: Vec<(f64, f64)>,
}

type PlotResult = Result<(), Box<dyn std::error::Error>>;

fn svg(draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> PlotResult) -> String {
    svg_sized(SIZE, draw)
}

fn svg_sized(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> PlotResult,
) -> String {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        let drawn = root
            .fill(&WHITE)
            .map_err(Into::into)
            .and_then(|()| draw(&root))
            .and_then(|()| root.present().map_err(Into::into));
        if let Err(e) = drawn {
            // A chart that cannot be drawn says so in place of itself.
            return format!(
                "<p class=\"error\">chart not drawn: {}</p>",
                crate::markup::escape(&e.to_string())
            );
        }
    }
    out
}

/// A chart of the common size and style on `root`, with a title and two axes.
macro_rules! chart {
    ($root:expr, $title:expr, $x:expr, $y:expr) => {
        ChartBuilder::on($root)
            .caption($title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d($x, $y)
    };
}

/// The grid and the axis titles; tick labels as integers, decimals or SI
/// ([`tick`]).
macro_rules! axes {
    ($chart:expr, $x_desc:expr, $y_desc:expr) => {
        $chart
            .configure_mesh()
            .x_desc($x_desc)
            .y_desc($y_desc)
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .draw()
    };
}

/// A tick label: an integer as such ("250", not "250.0"), thousands and up
/// in SI ("1k", "2.5k", "3M", never a cut "1000.("), a fraction with up to
/// three significant digits ("0.25", "0.001").
pub fn tick(v: f64) -> String {
    let a = v.abs();
    let trimmed = |x: f64, decimals: usize| {
        let s = format!("{x:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if a >= 1e9 {
        format!("{}G", trimmed(v / 1e9, 2))
    } else if a >= 1e6 {
        format!("{}M", trimmed(v / 1e6, 2))
    } else if a >= 1e3 {
        format!("{}k", trimmed(v / 1e3, 2))
    } else if a == 0.0 || a >= 1.0 {
        trimmed(v, 2)
    } else {
        // Three significant digits below one.
        let digits = (2 - a.log10().floor() as i32).clamp(0, 12) as usize;
        trimmed(v, digits)
    }
}

/// `points` (in time order) cut where a gap is more than one and a half
/// times the series' usual step: the stretches a line may join.
fn unbroken(points: &[(f64, f64)]) -> Vec<&[(f64, f64)]> {
    let mut gaps: Vec<f64> = points.windows(2).map(|w| w[1].0 - w[0].0).collect();
    if gaps.is_empty() {
        return vec![points];
    }
    gaps.sort_by(f64::total_cmp);
    let usual = gaps[gaps.len() / 2];
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..points.len() {
        if points[i].0 - points[i - 1].0 > 1.5 * usual {
            out.push(&points[start..i]);
            start = i;
        }
    }
    out.push(&points[start..]);
    out
}

/// One coloured line per series (the legend is the page's, [`legend`]).
macro_rules! lines {
    ($chart:expr, $series:expr) => {
        for (i, s) in $series.iter().enumerate() {
            let c = color(i);
            $chart.draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))?;
        }
    };
}

/// The colours of faults and of what undoes them, of an objective and of a
/// capacity, in the charts and their legends.
pub const FAULT: RGBColor = RGBColor(200, 0, 0);
/// See [`FAULT`].
pub const RECOVERY: RGBColor = RGBColor(0, 150, 0);
/// See [`FAULT`].
pub const OBJECTIVE: RGBColor = RGBColor(200, 0, 0);
/// See [`FAULT`].
pub const CAPACITY: RGBColor = RGBColor(0, 140, 60);

/// A chart's legend as HTML beside it, outside the data: a swatch of each
/// series' colour (in order, as the chart drew them) and its name, then the
/// chart's marks.
pub fn legend<S: AsRef<str>>(names: &[S], marks: &[(String, RGBColor)]) -> String {
    let entry = |name: &str, c: RGBColor| {
        format!(
            "<span class=\"key\"><span class=\"swatch\" style=\"background:#{:02x}{:02x}{:02x}\"></span>{}</span>",
            c.0,
            c.1,
            c.2,
            crate::markup::escape(name)
        )
    };
    let mut out = String::from("<div class=\"legend\">");
    for (i, name) in names.iter().enumerate() {
        out += &entry(name.as_ref(), color(i));
    }
    for (name, c) in marks {
        out += &entry(name, *c);
    }
    out += "</div>";
    out
}

fn color(i: usize) -> RGBColor {
    // Colour-blind-safe (Okabe-Ito).
    const PALETTE: [(u8, u8, u8); 7] = [
        (0, 114, 178),
        (230, 159, 0),
        (0, 158, 115),
        (204, 121, 167),
        (213, 94, 0),
        (86, 180, 233),
        (0, 0, 0),
    ];
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// Bounds of a log axis holding `values` (all > 0), widened to decades.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return (0.001, 1.0);
    }
    // Strictly outside the values: a value on a decade (an objective of
    // 10 ms) would otherwise lie on the axis itself.
    let below = lo.log10().ceil() - 1.0;
    (
        10f64.powf(below),
        10f64.powf((hi.log10().floor() + 1.0).max(below + 1.0)),
    )
}

/// The points of a latency CCDF: (latency in ms, share of transactions slower).
pub fn ccdf_points(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    let total = h.len() as f64;
    let mut below = 0u64;
    let mut points = Vec::new();
    for v in h.iter_recorded() {
        below += v.count_since_last_iteration();
        let slower = (total - below as f64) / total;
        let ms = h.highest_equivalent(v.value_iterated_to()) as f64 / 1000.0;
        // The last point (nothing slower) cannot sit on a log axis: end at 1/n.
        points.push((ms, slower.max(1.0 / total)));
    }
    points
}

/// Latency CCDF per transaction type: log-log, the tail made visible.
pub fn latency_ccdf(series: &[Series]) -> String {
    svg(|root| {
        let (x0, x1) = decades(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
        let (y0, _) = decades(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
        let mut chart = chart!(
            root,
            "Latency CCDF (share of transactions slower than x)",
            (x0..x1).log_scale(),
            (y0..1.0).log_scale()
        )?;
        axes!(
            chart,
            "latency (ms, log scale)",
            "P(latency > x) (log scale)"
        )?;
        lines!(chart, series);
        Ok(())
    })
}

/// One type's latency for a box plot (ms): whiskers from the least to p99,
/// the box from p25 to p75 with the median across it, the maximum a dot.
pub struct LatencyBox {
    /// The type's name.
    pub name: String,
    /// min, p25, p50, p75, p99, max.
    pub figures: [f64; 6],
}

/// A box per transaction type on a log latency axis, one a row, so that
/// their spreads and tails read side by side.
pub fn latency_boxes(boxes: &[LatencyBox]) -> String {
    let rows = boxes.len().max(1);
    let height = (90 + 46 * rows as u32).min(SIZE.1 * 2);
    svg_sized((SIZE.0, height), |root| {
        let (x0, x1) = decades(boxes.iter().flat_map(|b| b.figures));
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Latency by type: min, p25, median, p75, p99, max",
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(170)
            .build_cartesian_2d((x0..x1).log_scale(), -0.5..(rows as f64 - 0.5))?;
        let names: Vec<&str> = boxes.iter().map(|b| b.name.as_str()).collect();
        chart
            .configure_mesh()
            .x_desc("latency (ms, log scale)")
            .x_label_formatter(&|v| tick(*v))
            .y_labels(rows)
            .y_label_formatter(&|y| {
                let i = y.round();
                if (y - i).abs() < 1e-6 && i >= 0.0 {
                    names
                        .get(i as usize)
                        .map_or(String::new(), |n| n.to_string())
                } else {
                    String::new()
                }
            })
            .disable_y_mesh()
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .draw()?;
        for (i, b) in boxes.iter().enumerate() {
            let y = i as f64;
            let c = color(i);
            // A figure of 0 (an empty type) has no place on a log axis.
            let [min, p25, p50, p75, p99, max] = b.figures.map(|v| v.max(x0));
            chart.draw_series([
                PathElement::new(vec![(min, y), (p99, y)], c.stroke_width(2)),
                PathElement::new(vec![(min, y - 0.15), (min, y + 0.15)], c.stroke_width(2)),
                PathElement::new(vec![(p99, y - 0.15), (p99, y + 0.15)], c.stroke_width(2)),
            ])?;
            chart.draw_series([Rectangle::new(
                [(p25, y - 0.3), (p75, y + 0.3)],
                c.mix(0.35).filled(),
            )])?;
            chart.draw_series([Rectangle::new(
                [(p25, y - 0.3), (p75, y + 0.3)],
                c.stroke_width(2),
            )])?;
            chart.draw_series([PathElement::new(
                vec![(p50, y - 0.3), (p50, y + 0.3)],
                BLACK.stroke_width(3),
            )])?;
            chart.draw_series([Circle::new((max, y), 4, c.filled())])?;
        }
        Ok(())
    })
}

/// A moment marked on a chart over time (a fault injected): a vertical line.
pub struct Mark {
    /// Its legend ("fault 1").
    pub name: String,
    /// Seconds from the start of measurement.
    pub x: f64,
    /// A fault (red) or what undoes one (green).
    pub fault: bool,
}

/// A stretch of a chart over time shaded (the warm-up, a fault's outage).
pub struct Band {
    /// Its legend ("warm-up (not measured)").
    pub name: String,
    /// Where it starts and ends, seconds from the start of measurement.
    pub from: f64,
    /// See `from`.
    pub to: f64,
    /// Its colour (drawn faint).
    pub colour: RGBColor,
}

/// One execution in a lane (an analytical stream's query).
pub struct Span {
    /// When it began and ended, seconds from the start of measurement.
    pub from: f64,
    /// See `from`.
    pub to: f64,
    /// Whether it starts a round (Q1): drawn darker.
    pub first: bool,
}

/// A strip along a chart's top, its executions marked in it one after
/// another (a stream's queries).
pub struct Lane {
    /// Whose executions ("stream 1").
    pub name: String,
    /// Its executions, in order.
    pub spans: Vec<Span>,
}

/// The colour of the lanes' executions.
pub const LANE: RGBColor = RGBColor(150, 60, 160);

/// The share of a chart's height each lane takes, from the top.
const LANE_HEIGHT: f64 = 0.035;

/// The colour of the phases with the held types of an alternating run.
pub const HELD: RGBColor = RGBColor(40, 90, 200);

/// The colour of the warm-up's band.
pub const WARMUP: RGBColor = RGBColor(120, 120, 120);

/// What a chart over time shows besides its lines: the moments marked and
/// the stretches shaded.
#[derive(Default)]
pub struct Timing {
    /// Vertical lines.
    pub marks: Vec<Mark>,
    /// Shaded stretches; the x axis starts at the earliest (a warm-up before 0).
    pub bands: Vec<Band>,
    /// Strips along the top, each execution marked in its own.
    pub lanes: Vec<Lane>,
}

impl Timing {
    /// The legend entries of the marks and bands, after the lines'; bands
    /// of one name (the phases of an alternating run) have one entry.
    pub fn keys(&self) -> Vec<(String, RGBColor)> {
        let bands = self.bands.iter().map(|b| (b.name.clone(), b.colour));
        let marks = self.marks.iter().map(|m| (m.name.clone(), m.colour()));
        let lanes = (!self.lanes.is_empty()).then(|| {
            let n = self.lanes.len();
            let name = format!("queries of {n} stream(s), a lane each at the top; Q1 darker");
            (name, LANE)
        });
        let mut keys: Vec<(String, RGBColor)> = Vec::new();
        for key in bands.chain(marks).chain(lanes) {
            if !keys.iter().any(|k| k.0 == key.0) {
                keys.push(key);
            }
        }
        keys
    }
}

impl Mark {
    fn colour(&self) -> RGBColor {
        if self.fault { FAULT } else { RECOVERY }
    }
}

/// A line on a chart's right-hand axis, in a unit of its own (tpmC beside
/// transactions per second).
pub struct RightAxis<'a> {
    /// The axis's title.
    pub desc: &'a str,
    /// The line; drawn in the colour after the left-hand lines'.
    pub series: &'a Series,
}

/// Lines over the run's time (x in seconds from the start of measurement),
/// with `timing`'s marks as vertical lines and its bands shaded; a log y axis
/// with `log_y` (latency, whose tail spans decades).
pub fn over_time(
    title: &str,
    y_desc: &str,
    series: &[Series],
    timing: &Timing,
    log_y: bool,
) -> String {
    svg(|root| {
        let (x0, x1) = time_span(series, timing);
        let ys = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
        if log_y {
            let (y0, y1) = decades(ys());
            let mut chart = chart!(root, title, x0..x1, (y0..y1).log_scale())?;
            axes!(chart, "time since the start of measurement (s)", y_desc)?;
            draw_timed(&mut chart, series, timing, (x0, x1), (y0, y1))?;
        } else {
            let y1 = ys().fold(0.0f64, f64::max).max(1e-3) * 1.1;
            let mut chart = chart!(root, title, x0..x1, 0.0..y1)?;
            axes!(chart, "time since the start of measurement (s)", y_desc)?;
            draw_timed(&mut chart, series, timing, (x0, x1), (0.0, y1))?;
        }
        Ok(())
    })
}

/// [`over_time`] on a linear axis, with one more line on a right-hand axis of
/// its own.
pub fn over_time_with_right(
    title: &str,
    y_desc: &str,
    series: &[Series],
    right: &RightAxis<'_>,
    timing: &Timing,
) -> String {
    svg(|root| {
        let (x0, x1) = time_span(series, timing);
        let top = |s: &mut dyn Iterator<Item = f64>| s.fold(0.0f64, f64::max).max(1e-3) * 1.1;
        let y1 = top(&mut series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
        let r1 = top(&mut right.series.points.iter().map(|p| p.1));
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .right_y_label_area_size(70)
            .build_cartesian_2d(x0..x1, 0.0..y1)?
            .set_secondary_coord(x0..x1, 0.0..r1);
        axes!(chart, "time since the start of measurement (s)", y_desc)?;
        chart
            .configure_secondary_axes()
            .y_desc(right.desc)
            .y_label_formatter(&|v| tick(*v))
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .draw()?;
        draw_timed(&mut chart, series, timing, (x0, x1), (0.0, y1))?;
        let c = color(series.len());
        chart.draw_secondary_series(LineSeries::new(
            right.series.points.iter().copied(),
            c.stroke_width(2),
        ))?;
        Ok(())
    })
}

/// The x span of a chart over time: from its earliest band or 0 to its last
/// point.
fn time_span(series: &[Series], timing: &Timing) -> (f64, f64) {
    let x0 = timing.bands.iter().map(|b| b.from).fold(0.0f64, f64::min);
    let x1 = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(x0 + 1.0, f64::max);
    (x0, x1)
}

/// A band as a faint rectangle the height of the chart.
fn band(b: &Band, (y0, y1): (f64, f64)) -> Rectangle<(f64, f64)> {
    Rectangle::new([(b.from, y0), (b.to, y1)], b.colour.mix(0.15).filled())
}

/// Bands, lines and marks on a chart over time whose y axis runs from `y0`
/// to `y1`. On a log axis (`y0` above 0) a point at 0 is left out: a second
/// with nothing measured has no place there.
fn draw_timed<DB: DrawingBackend, CT>(
    chart: &mut ChartContext<'_, DB, CT>,
    series: &[Series],
    timing: &Timing,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> PlotResult
where
    CT: CoordTranslate<From = (f64, f64)>,
    DB::ErrorType: 'static,
{
    for b in &timing.bands {
        chart.draw_series([band(b, (y0, y1))])?;
    }
    for (i, s) in series.iter().enumerate() {
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|p| y0 <= 0.0 || p.1 > 0.0)
            .collect();
        // A line through the seconds that have no point (a pause of 0/s has
        // no p99) would draw a latency nobody measured: it breaks there.
        for segment in unbroken(&points) {
            chart.draw_series(LineSeries::new(
                segment.iter().copied(),
                color(i).stroke_width(2),
            ))?;
        }
    }
    for m in timing.marks.iter().filter(|m| (x0..=x1).contains(&m.x)) {
        let line = [(m.x, y0), (m.x, y1)];
        chart.draw_series(LineSeries::new(line, m.colour().stroke_width(2)))?;
    }
    for (k, lane) in timing.lanes.iter().enumerate() {
        let height = |f: f64| at_height(1.0 - f, (y0, y1));
        let (top, bottom) = (
            height(k as f64 * LANE_HEIGHT),
            height((k as f64 + 0.8) * LANE_HEIGHT),
        );
        chart.draw_series(lane.spans.iter().enumerate().map(|(i, span)| {
            let shade = match (span.first, i % 2) {
                (true, _) => 1.0,
                (false, 0) => 0.55,
                (false, _) => 0.3,
            };
            let (from, to) = (span.from.max(x0), span.to.min(x1));
            Rectangle::new([(from, bottom), (to, top)], LANE.mix(shade).filled())
        }))?;
    }
    Ok(())
}

/// The y value a share `f` of the way up a y axis from `y0` to `y1`: on a
/// log axis (`y0` above 0), a share of its decades.
fn at_height(f: f64, (y0, y1): (f64, f64)) -> f64 {
    if y0 > 0.0 {
        y0 * (y1 / y0).powf(f)
    } else {
        y0 + (y1 - y0) * f
    }
}

/// The colour that marks a sweep's step that is not sound, or that
/// measured the client's limit rather than the database's.
pub const UNSOUND: RGBColor = RGBColor(120, 120, 120);

/// A sweep: latency against achieved throughput, with the objective as a
/// horizontal line and the capacity as a vertical one; `latency` says whose
/// latency the y axis holds ("latency of the slowest type"); the points in
/// `flagged` (steps not sound, or at the client's limit) are crossed out.
pub fn sweep(
    series: &[Series],
    objective: (&str, f64),
    capacity: Option<f64>,
    latency: &str,
    flagged: &[(f64, f64)],
) -> String {
    svg(|root| {
        let x1 = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .chain(capacity)
            .fold(1.0f64, f64::max)
            * 1.05;
        let (y0, y1) = decades(
            series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .chain([objective.1]),
        );
        let mut chart = chart!(
            root,
            "Latency against throughput",
            0.0..x1,
            (y0..y1).log_scale()
        )?;
        axes!(
            chart,
            "achieved throughput (transactions/s)",
            &format!("{latency} (ms, log scale)")
        )?;
        lines!(chart, series);
        for (i, s) in series.iter().enumerate() {
            let c = color(i);
            chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
        }
        chart.draw_series(
            flagged
                .iter()
                .map(|&p| Cross::new(p, 7, UNSOUND.stroke_width(2))),
        )?;
        chart.draw_series(LineSeries::new(
            [(0.0, objective.1), (x1, objective.1)],
            OBJECTIVE.stroke_width(2),
        ))?;
        if let Some(cap) = capacity {
            chart.draw_series(LineSeries::new(
                [(cap, y0), (cap, y1)],
                CAPACITY.stroke_width(2),
            ))?;
        }
        Ok(())
    })
}

/// A frontier: one side's throughput up, the other's across, a line per
/// series through its points in order, each point marked.
pub fn frontier(series: &[Series], (x_desc, y_desc): (&str, &str)) -> String {
    svg(|root| {
        let top = |f: fn(&(f64, f64)) -> f64| {
            (series.iter().flat_map(|s| s.points.iter().map(f))).fold(1.0f64, f64::max) * 1.08
        };
        let (x1, y1) = (top(|p| p.0), top(|p| p.1));
        let mut chart = chart!(root, "The frontier", 0.0..x1, 0.0..y1)?;
        axes!(chart, x_desc, y_desc)?;
        lines!(chart, series);
        for (i, s) in series.iter().enumerate() {
            let c = color(i);
            chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 5, c.filled())))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_breaks_where_seconds_have_no_point() {
        let points = [(1.0, 5.0), (2.0, 6.0), (3.0, 5.5), (7.0, 9.0), (8.0, 9.5)];
        let parts = unbroken(&points);
        assert_eq!(parts, [&points[..3], &points[3..]]);
        assert_eq!(unbroken(&points[..1]), [&points[..1]]);
    }
    use txbench_core::recorder::new_histogram;

    #[test]
    fn ccdf_falls_from_one_to_the_last_sample() {
        let mut h = new_histogram();
        for us in 1..=1000u64 {
            h.record(us * 10).unwrap();
        }
        let p = ccdf_points(&h);
        assert!(p.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 >= w[1].1));
        assert!((p[0].1 - 0.999).abs() < 1e-9, "{:?}", p[0]);
        assert!((p.last().unwrap().1 - 0.001).abs() < 1e-9);
        assert!((p.last().unwrap().0 - 10.0).abs() < 0.01);
    }

    #[test]
    fn charts_are_svg_with_labelled_axes() {
        let s = [Series {
            name: "New-Order".into(),
            points: vec![(0.1, 1.0), (1.0, 0.1), (10.0, 0.001)],
        }];
        let text = latency_ccdf(&s);
        assert!(text.starts_with("<svg"), "{text}");
        assert!(text.contains("latency (ms, log scale)"), "{text}");
        let text = sweep(
            &s,
            ("p99<=5ms", 5.0),
            Some(1.0),
            "latency of the slowest type",
            &[(1.0, 0.1)],
        );
        assert!(text.starts_with("<svg"), "{text}");
        let over = over_time("p99", "ms", &s, &Timing::default(), true);
        assert!(
            over.contains("p99") && !over.contains("chart not drawn"),
            "{over}"
        );
        // A warm-up band before 0 and a line on the right-hand axis.
        let timing = Timing {
            bands: vec![Band {
                name: "warm-up".into(),
                from: -5.0,
                to: 0.0,
                colour: WARMUP,
            }],
            marks: vec![Mark {
                name: "fault 1".into(),
                x: 2.0,
                fault: true,
            }],
            lanes: vec![Lane {
                name: "stream 1".into(),
                spans: vec![Span {
                    from: -1.0,
                    to: 1.5,
                    first: true,
                }],
            }],
        };
        let headline = Series {
            name: "tpmC".into(),
            points: vec![(1.0, 30_000.0), (2.0, 42_000.0)],
        };
        let right = RightAxis {
            desc: "tpmC",
            series: &headline,
        };
        let both = over_time_with_right("Throughput", "transactions/s", &s, &right, &timing);
        assert!(
            both.starts_with("<svg") && !both.contains("chart not drawn"),
            "{both}"
        );
        assert!(both.contains("tpmC") && both.contains("40k"), "{both}");
        let labels: String = both.split_whitespace().collect();
        assert!(
            labels.contains(">-4<"),
            "the axis starts in the warm-up: {both}"
        );
        let boxes = latency_boxes(&[LatencyBox {
            name: "Payment".into(),
            figures: [0.2, 0.6, 0.8, 1.2, 6.0, 9.8],
        }]);
        assert!(
            boxes.starts_with("<svg") && boxes.contains("Payment"),
            "{boxes}"
        );
        assert!(!boxes.contains("chart not drawn"), "{boxes}");
    }

    #[test]
    fn legends_name_each_series_in_its_colour_and_escape_it() {
        let html = legend(&["New-Order", "a<b"], &[("fault 1".into(), FAULT)]);
        assert!(
            html.contains("New-Order") && html.contains("a&lt;b"),
            "{html}"
        );
        assert!(
            html.contains("background:#0072b2"),
            "the first series' colour: {html}"
        );
        assert!(
            html.contains("background:#c80000\"></span>fault 1"),
            "{html}"
        );
    }

    #[test]
    fn ticks_are_integers_decimals_or_si() {
        assert_eq!(tick(250.0), "250");
        assert_eq!(tick(1000.0), "1k");
        assert_eq!(tick(2500.0), "2.5k");
        assert_eq!(tick(3_000_000.0), "3M");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(0.001), "0.001");
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(12.5), "12.5");
    }
}
