//! Milliseconds, and numbers with thousands separators, as the terminal
//! summary and the HTML report write them: one formatting each, so that a
//! figure reads the same in both.

/// `v` milliseconds with three significant digits from 0.1 ms up (`1234`,
/// `12.3`, `1.23`, `0.123`), and to the microsecond below (`0.043`): a
/// sub-millisecond latency keeps its digits rather than rounding to `0.04`.
pub fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Format a number with thousands separators and `decimals` digits.
pub fn grouped(value: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, value.abs());
    let (int, frac) = text
        .split_once('.')
        .map_or((text.as_str(), ""), |(i, f)| (i, f));
    let mut out = String::new();
    for (i, ch) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if value < 0.0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::ms;

    #[test]
    fn three_significant_digits_down_to_the_microsecond() {
        assert_eq!(ms(1234.4), "1234");
        assert_eq!(ms(12.34), "12.3");
        assert_eq!(ms(1.234), "1.23");
        assert_eq!(ms(0.1234), "0.123");
        assert_eq!(ms(0.0434), "0.043");
    }
}
