//! This machine's clock held against the database server's: shards on
//! machines of their own start together only as far as their clocks agree
//! (`--start-at`), and the server's clock is the one they all can read.
//! Each run records its offset; `merge` compares the shards' (docs/distributed.md).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use txbench_core::result::ClockOffset;
use txbench_core::{DbError, Session};

/// Readings taken; the one with the shortest round trip is kept, the others
/// having waited longer somewhere on the way.
const READINGS: usize = 5;

/// The server's clock less this machine's, from the best of a few readings;
/// `None` where the engine cannot read its server's clock.
pub async fn offset<S: Session>(session: &mut S) -> Result<Option<ClockOffset>, DbError> {
    let mut best: Option<ClockOffset> = None;
    for _ in 0..READINGS {
        let Some(read) = session.server_clock().await? else {
            return Ok(None);
        };
        let reading = reading(read.sent, read.round_trip, read.server_us);
        if best.is_none_or(|b| reading.uncertainty_ms < b.uncertainty_ms) {
            best = Some(reading);
        }
    }
    Ok(best)
}

/// One reading: the server read its clock (`server_us`) somewhere within the
/// round trip that began at `sent` and took `round_trip`; taken as its middle.
fn reading(sent: SystemTime, round_trip: Duration, server_us: i64) -> ClockOffset {
    let middle = sent + round_trip / 2;
    let middle_us = match middle.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_micros() as f64,
        Err(e) => -(e.duration().as_micros() as f64),
    };
    ClockOffset {
        offset_ms: (server_us as f64 - middle_us) / 1000.0,
        uncertainty_ms: round_trip.as_secs_f64() * 1000.0 / 2.0,
    }
}

/// What a shard says when its clock and the server's disagree by more than
/// `tolerance` (its `--start-tolerance`): shards on machines whose clocks
/// disagree do not start together, though each starts on time by its own.
pub fn disagreement(offset: &ClockOffset, tolerance: Duration) -> Option<String> {
    let apart_ms = offset.offset_ms.abs() - offset.uncertainty_ms;
    (apart_ms > tolerance.as_secs_f64() * 1000.0).then(|| {
        let side = if offset.offset_ms > 0.0 {
            "behind"
        } else {
            "ahead of"
        };
        format!(
            "warning: this machine's clock is {:.3} s {side} the database server's (± {:.1} ms), \
             more than --start-tolerance: shards whose clocks disagree do not start together; \
             sync the clocks (NTP). merge refuses shards whose windows, by the server's clock, \
             start more than 1 s apart",
            offset.offset_ms.abs() / 1000.0,
            offset.uncertainty_ms
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_is_taken_at_the_middle_of_its_round_trip() {
        let sent = UNIX_EPOCH + Duration::from_secs(1_000);
        // The server read 1,000.504 s; the middle of the round trip was 1,000.002 s.
        let r = reading(sent, Duration::from_millis(4), 1_000_504_000);
        assert!((r.offset_ms - 502.0).abs() < 1e-6, "{r:?}");
        assert!((r.uncertainty_ms - 2.0).abs() < 1e-9);
    }

    #[test]
    fn only_a_disagreement_beyond_the_tolerance_and_the_uncertainty_is_named() {
        let tolerance = Duration::from_secs(1);
        let clock = |offset_ms, uncertainty_ms| ClockOffset {
            offset_ms,
            uncertainty_ms,
        };
        assert!(disagreement(&clock(900.0, 1.0), tolerance).is_none());
        assert!(disagreement(&clock(1_050.0, 100.0), tolerance).is_none());
        let ahead = disagreement(&clock(-3_000.0, 1.0), tolerance).unwrap();
        assert!(
            ahead.contains("3.000 s ahead of the database server's"),
            "{ahead}"
        );
        let behind = disagreement(&clock(2_000.0, 1.0), tolerance).unwrap();
        assert!(behind.contains("2.000 s behind"), "{behind}");
    }
}
