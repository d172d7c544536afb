//! The check of a run that read the kernel's timestamps of the wire: how much
//! of the latency the client measured is the client's own (its queueing,
//! lateness, scheduling and processing), the latency's percentile less the
//! time on the wire at the same percentile.

use super::{Check, Status};
use crate::recorder::TypeStats;
use crate::summary;

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

/// Whether the client machine biases the latency it measured, by the
/// kernel's timestamps of the wire.
pub fn client_bias(stats: &[TypeStats]) -> Check {
    let wire = summary::wire_result(stats);
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
    let latency = summary::total_latency(stats);
    let mut material = Vec::new();
    let mut shares = Vec::new();
    for (p, measured, client) in [
        ("p50", latency.p50, wire.client_p50_ms),
        ("p99", latency.p99, wire.client_p99_ms),
    ] {
        let share = if measured > 0.0 {
            client / measured
        } else {
            0.0
        };
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

/// The verdict's words on the client's bias, when the check found it: its
/// finding's first clause, which says by how much.
pub fn verdict_note(checks: &[Check]) -> Option<String> {
    let c = checks
        .iter()
        .find(|c| c.name == NAME && c.status != Status::Pass)?;
    c.detail.split(';').next().map(str::to_string)
}
