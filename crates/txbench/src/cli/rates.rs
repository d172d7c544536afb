//! Rates as flags take them: one rate (`3000/s`, `180000/min`), a range of
//! them for a sweep (`500..8000`), or a schedule of holds and ramps for a run
//! (`1000/s for 1m, ramp 1000..4000/s over 2m`).

use txbench_core::driver::{RateSchedule, Segment};

use super::{MAX_DURATION, parse_duration};

/// The highest rate any flag takes, far beyond what one client can offer
/// (its schedule would otherwise overflow or never end).
const MAX_RATE_PER_S: f64 = 1e9;

/// A positive rate, per second.
pub(super) fn parse_rate(s: &str) -> Result<f64, String> {
    match rate_value(s)? {
        v if v > 0.0 => Ok(v),
        _ => Err(format!(
            "invalid rate '{s}': expected a positive number such as 3000/s"
        )),
    }
}

/// A rate of zero or more, per second: `N`, `N/s` or `N/min`.
fn rate_value(s: &str) -> Result<f64, String> {
    let (number, per) = match s.trim().split_once('/') {
        Some((n, unit)) => (n, unit.trim()),
        None => (s.trim(), "s"),
    };
    let seconds = match per {
        "s" | "sec" | "second" => 1.0,
        "m" | "min" | "minute" => 60.0,
        other => {
            return Err(format!(
                "invalid rate '{s}': unknown unit '/{other}' (use /s or /min)"
            ));
        }
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v / seconds > MAX_RATE_PER_S => Err(format!(
            "invalid rate '{s}': above the limit of {MAX_RATE_PER_S:e}/s"
        )),
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(v / seconds),
        _ => Err(format!(
            "invalid rate '{s}': expected a positive number such as 3000/s"
        )),
    }
}

/// A range of positive rates, `FROM..TO`.
pub(super) fn parse_rate_range(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("invalid rate range '{s}': expected FROM..TO such as 500..8000"))?;
    let (a, b) = (parse_rate(a)?, parse_rate(b)?);
    if a > b {
        return Err(format!("invalid rate range '{s}': {a} is above {b}"));
    }
    Ok((a, b))
}

/// One rate for the whole run, or a schedule: pieces separated by commas,
/// each `RATE for DURATION` or `ramp FROM..TO over DURATION` (a ramp's unit
/// may be given once, after TO). A rate of 0 in a piece is a pause.
pub(super) fn parse_rate_schedule(s: &str) -> Result<RateSchedule, String> {
    if !s.contains(" for ") && !s.trim_start().starts_with("ramp") && !s.contains(',') {
        return parse_rate(s).map(RateSchedule::constant);
    }
    let segments = s
        .split(',')
        .map(|piece| segment(piece.trim()).map_err(|e| format!("invalid rate schedule '{s}': {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if segments.iter().map(|p| p.secs).sum::<f64>() > MAX_DURATION.as_secs_f64() {
        return Err(format!(
            "invalid rate schedule '{s}': longer than the limit of {}",
            humantime::format_duration(MAX_DURATION)
        ));
    }
    RateSchedule::new(segments).map_err(|e| format!("invalid rate schedule '{s}': {e}"))
}

/// One piece of a schedule.
fn segment(piece: &str) -> Result<Segment, String> {
    let expected =
        || format!("'{piece}' is not 'RATE for DURATION' or 'ramp FROM..TO over DURATION'");
    if let Some(ramp) = piece.strip_prefix("ramp ") {
        let (range, length) = ramp.split_once(" over ").ok_or_else(expected)?;
        let (from, to) = range
            .split_once("..")
            .or_else(|| range.split_once(" to "))
            .ok_or_else(expected)?;
        // "2000..4000/s": the unit after TO is FROM's too.
        let unit = to.trim().split_once('/').map(|(_, u)| u);
        let from = match (from.contains('/'), unit) {
            (false, Some(unit)) => format!("{}/{unit}", from.trim()),
            _ => from.to_string(),
        };
        return Ok(Segment {
            from: rate_value(&from).map_err(|e| error_text(&e))?,
            to: rate_value(to).map_err(|e| error_text(&e))?,
            secs: piece_length(length)?,
        });
    }
    let (rate, length) = piece.split_once(" for ").ok_or_else(expected)?;
    Ok(Segment::hold(
        rate_value(rate).map_err(|e| error_text(&e))?,
        piece_length(length)?,
    ))
}

/// A piece's length: a positive duration.
fn piece_length(text: &str) -> Result<f64, String> {
    let d = parse_duration(text.trim()).map_err(|e| error_text(&e))?;
    if d.is_zero() {
        return Err(format!("a piece of '{}' has no length", text.trim()));
    }
    Ok(d.as_secs_f64())
}

/// An inner parser's message without its "invalid ...:" lead, which the
/// schedule's own message gives.
fn error_text(e: &str) -> String {
    e.strip_prefix("invalid ").unwrap_or(e).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rate_is_constant_in_either_unit() {
        assert_eq!(
            parse_rate_schedule("3000/s").unwrap(),
            RateSchedule::constant(3000.0)
        );
        assert_eq!(
            parse_rate_schedule("180000/min").unwrap(),
            RateSchedule::constant(3000.0)
        );
        assert!(parse_rate_schedule("0/s").is_err());
    }

    #[test]
    fn holds_and_ramps_read_as_written() {
        let s =
            parse_rate_schedule("1000/s for 1m, 2000/s for 1m, ramp 2000..4000/s over 2m").unwrap();
        assert_eq!(
            s.segments(),
            [
                Segment::hold(1000.0, 60.0),
                Segment::hold(2000.0, 60.0),
                Segment {
                    from: 2000.0,
                    to: 4000.0,
                    secs: 120.0
                }
            ]
        );
        // Its text reads back as itself (config.toml keeps it so).
        assert_eq!(parse_rate_schedule(&s.to_string()).unwrap(), s);
        let pause =
            parse_rate_schedule("ramp 60/min to 0/s over 1500ms, 0/s for 1s, 5/s for 2s").unwrap();
        assert_eq!(pause.segments()[0].from, 1.0);
        assert_eq!(pause.length_secs(), Some(4.5));
        assert_eq!(parse_rate_schedule(&pause.to_string()).unwrap(), pause);
    }

    #[test]
    fn a_bad_piece_is_named() {
        for (bad, named) in [
            ("1000/s for 1m, 2000/s", "'2000/s' is not"),
            ("1000/s for 1m, ramp 10..20/h over 1m", "unknown unit '/h'"),
            ("1000/s for 0s", "no length"),
            ("1000/s for soon", "duration 'soon'"),
            ("0/s for 1m", "offers nothing"),
            ("1000/s for 40days", "longer than the limit"),
        ] {
            let e = parse_rate_schedule(bad).unwrap_err();
            assert!(e.contains(named), "{bad}: {e}");
            assert!(
                e.starts_with(&format!("invalid rate schedule '{bad}'")),
                "{e}"
            );
        }
    }
}
