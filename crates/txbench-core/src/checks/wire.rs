//! The check of a run that read the kernel's timestamps of the wire: how much
//! of the latency the client measured is the client's own (its queueing,
//! lateness, scheduling and processing), the latency's percentile less the
//! time on the wire at the same percentile.

use super::{Check, Status};
use crate::result::WireResult;
use crate::summary::client_share;

/// Share of a latency percentile above which the client's own part of it
/// biases the figure.
pub const CLIENT_SHARE: f64 = 0.10;
/// The client's part that always passes (µs): the loopback hop and the
/// client's own processing of a quiet machine stay under it, and no figure a
/// user compares moves by less.
pub const CLIENT_FLOOR_US: f64 = 250.0;
/// Share of completed transactions without a time on the wire above which
/// the wire's figures may not stand for the rest.
const UNSTAMPED_SHARE: f64 = 0.01;

/// The name of the check, which the verdict quotes with its figures.
pub const NAME: &str = "client bias";

/// Whether the client machine biases the latency it measured, by what the
/// kernel's timestamps of the wire said ([`crate::summary::wire_result`]).
pub fn client_bias(wire: &WireResult) -> Check {
    let completed = wire.stamped + wire.unstamped;
    if wire.stamped == 0 {
        return Check {
            name: NAME.into(),
            statistic: format!("0 of {completed} transactions with kernel timestamps"),
            status: Status::Warn,
            detail: "no kernel timestamps came back (the socket or the network device did not \
                     stamp): only the client's own latency was measured"
                .into(),
        };
    }
    let mut material = Vec::new();
    let mut shares = Vec::new();
    for (p, client, on_wire) in [
        ("p50", wire.client_p50_ms, wire.total_wire_ms.p50),
        ("p99", wire.client_p99_ms, wire.total_wire_ms.p99),
    ] {
        let measured = client + on_wire;
        let (client, share) = client_share(measured, on_wire);
        let said = format!(
            "{p} {client:.3} of {measured:.3} ms ({:.0}%)",
            100.0 * share
        );
        if share > CLIENT_SHARE && client * 1000.0 > CLIENT_FLOOR_US {
            material.push(said.clone());
        }
        shares.push(said);
    }
    let statistic = format!(
        "client's share {}; {} stamped ({} clock), {} without; WARN above {:.0}% and {CLIENT_FLOOR_US:.0} us",
        shares.join(", "),
        wire.stamped,
        wire.clock,
        wire.unstamped,
        100.0 * CLIENT_SHARE
    );
    let unstamped = wire.unstamped as f64 > UNSTAMPED_SHARE * completed as f64;
    let (status, detail) = match (material.is_empty(), unstamped) {
        (true, false) => (
            Status::Pass,
            "the latency measured is the wire's but for a small share".to_string(),
        ),
        (false, _) => (
            Status::Warn,
            format!(
                "the client machine biases the latency: its own share is {}; the time on the \
                 wire (wire_ms) is the figure without it; quiet the client machine or give it \
                 more cores",
                material.join(" and ")
            ),
        ),
        (true, true) => (
            Status::Warn,
            format!(
                "{} of {completed} transactions had no kernel timestamps: the time on the wire \
                 stands for the others only",
                wire.unstamped
            ),
        ),
    };
    Check {
        name: NAME.into(),
        statistic,
        status,
        detail,
    }
}

/// The verdict's words on a check that found the client's bias: its
/// finding's first clause, which says by how much; `None` for any other.
pub fn verdict_note(c: &Check) -> Option<&str> {
    (c.name == NAME && c.status != Status::Pass).then(|| c.detail.split(';').next())?
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::recorder::{TypeStats, record};

    fn client_bias(stats: &[TypeStats]) -> Check {
        super::client_bias(&crate::summary::wire_result(stats))
    }

    /// A type with `n` latencies of `latency_us`, `stamped` of them with a
    /// time on the wire of `wire_us`.
    fn stats(n: u64, latency_us: u64, stamped: u64, wire_us: u64) -> TypeStats {
        let mut s = TypeStats::default();
        for i in 0..n {
            record(&mut s.latency, Duration::from_micros(latency_us));
            if i < stamped {
                record(&mut s.wire, Duration::from_micros(wire_us));
            }
        }
        s.committed = n;
        s
    }

    #[test]
    fn the_client_share_is_judged_against_the_latency_and_a_floor() {
        let fine = client_bias(&[stats(1000, 1_000, 1000, 950)]);
        assert_eq!(fine.status, Status::Pass, "{fine:?}");
        // 40% but 40 us: under the floor.
        let fast = client_bias(&[stats(1000, 100, 1000, 60)]);
        assert_eq!(fast.status, Status::Pass, "{fast:?}");
        // Under 2,048 us the histograms hold values exactly.
        let biased = client_bias(&[stats(1000, 2_000, 1000, 1_000)]);
        assert_eq!(biased.status, Status::Warn);
        assert!(
            biased.detail.contains("p50 1.000 of 2.000 ms (50%)"),
            "{}",
            biased.detail
        );
        let verdict = crate::checks::verdict(std::slice::from_ref(&biased));
        assert_eq!(
            verdict,
            "USABLE WITH CARE: warnings on client bias (the client machine biases the latency: \
             its own share is p50 1.000 of 2.000 ms (50%) and p99 1.000 of 2.000 ms (50%))"
        );
    }

    #[test]
    fn missing_timestamps_are_reported_not_taken_for_none() {
        let none = client_bias(&[stats(100, 1_000, 0, 0)]);
        assert_eq!(none.status, Status::Warn);
        assert!(
            none.detail.starts_with("no kernel timestamps came back"),
            "{none:?}"
        );
        let some = client_bias(&[stats(1000, 1_000, 900, 990)]);
        assert_eq!(some.status, Status::Warn);
        assert!(
            some.detail
                .starts_with("100 of 1000 transactions had no kernel timestamps"),
            "{some:?}"
        );
    }
}
