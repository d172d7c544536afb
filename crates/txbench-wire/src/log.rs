//! The stamps of one connection, by byte offset: each send the client made
//! (its bytes' range, and when the kernel sent its last byte) and each read
//! (its bytes' range, and when its last segment arrived). Pure bookkeeping,
//! no system calls: the stream feeds it, the engines ask it.

use std::collections::VecDeque;
use std::time::Duration;

/// The kernel's timestamps of one send or one read: software (the system's
/// real-time clock, taken by the kernel at the network device) and hardware
/// (the network card's own clock), each where there was one; nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stamp {
    /// Software timestamp (ns since the epoch).
    pub software: Option<i64>,
    /// Hardware timestamp (ns on the card's clock).
    pub hardware: Option<i64>,
}

impl Stamp {
    /// Whether the kernel gave any timestamp.
    pub fn is_empty(&self) -> bool {
        self.software.is_none() && self.hardware.is_none()
    }

    /// Both timestamps of `other` where this one has none.
    fn fill(&mut self, other: Stamp) {
        self.software = self.software.or(other.software);
        self.hardware = self.hardware.or(other.hardware);
    }
}

/// Which clock a wire time was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The network card's clock, at the card.
    Hardware,
    /// The system's clock, read by the kernel at the network device.
    Software,
}

impl Kind {
    /// Its name in results: `hardware`, `software`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Hardware => "hardware",
            Kind::Software => "software",
        }
    }
}

/// Time on the wire and the clock it was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wire {
    /// From the request's bytes leaving to the answer's arriving.
    pub time: Duration,
    /// The clock both ends were read from.
    pub kind: Kind,
    /// The round trips it sums: 1 for an exchange, each turn of sends then
    /// their answers for [`WireLog::round_trips`].
    pub round_trips: u32,
}

/// From `from` to `to` on one clock: the card's where both have it, else the
/// system's; `None` when they share none, or the clock went backwards (a
/// real-time clock stepped).
fn between(from: Stamp, to: Stamp) -> Option<Wire> {
    let on = |kind, a: Option<i64>, b: Option<i64>| {
        let ns = b? - a?;
        u64::try_from(ns).ok().map(|ns| Wire {
            time: Duration::from_nanos(ns),
            kind,
            round_trips: 1,
        })
    };
    on(Kind::Hardware, from.hardware, to.hardware)
        .or_else(|| on(Kind::Software, from.software, to.software))
}

/// Bytes written and read on a connection so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offsets {
    /// Bytes the kernel accepted from the client.
    pub written: u64,
    /// Bytes the client read.
    pub read: u64,
}

/// One send or read: its bytes end at `end` (exclusive), and its stamp.
#[derive(Debug, Clone, Copy)]
struct Mark {
    end: u64,
    stamp: Stamp,
}

/// Stamps kept per direction before the oldest are forgotten: a connection
/// holds at most this many sends and as many reads (a few hundred KiB), far
/// more than the transactions it has in flight.
pub const KEEP: usize = 4096;

/// The marks of one direction, oldest first, and where the first one kept
/// begins (the bytes before it were forgotten).
#[derive(Debug, Default)]
struct Marks {
    marks: VecDeque<Mark>,
    from: u64,
}

impl Marks {
    /// Keep a mark, forgetting the oldest beyond [`KEEP`].
    fn push(&mut self, mark: Mark) {
        if self.marks.len() == KEEP {
            self.pop();
        }
        self.marks.push_back(mark);
    }

    fn pop(&mut self) {
        if let Some(m) = self.marks.pop_front() {
            self.from = m.end;
        }
    }

    /// The stamp of the mark holding byte `offset`.
    fn holding(&self, offset: u64) -> Option<Stamp> {
        if offset < self.from {
            return None;
        }
        let i = self.marks.partition_point(|m| m.end <= offset);
        self.marks.get(i).map(|m| m.stamp).filter(|s| !s.is_empty())
    }

    /// The stamps of the marks ending in `(from, to]`, oldest first; `None`
    /// when there are none, or when some were forgotten.
    fn within(&self, from: u64, to: u64) -> Option<impl Iterator<Item = Stamp> + Clone> {
        let first = self.marks.partition_point(|m| m.end <= from);
        let past = self.marks.partition_point(|m| m.end <= to);
        (from >= self.from && first < past).then(|| self.marks.range(first..past).map(|m| m.stamp))
    }

    fn forget_before(&mut self, offset: u64) {
        while self.marks.front().is_some_and(|m| m.end <= offset) {
            self.pop();
        }
    }
}

/// A connection's sends and reads with their stamps.
#[derive(Debug, Default)]
pub struct WireLog {
    offsets: Offsets,
    sends: Marks,
    reads: Marks,
    /// Transmit stamps that matched no send kept (forgotten, or never made).
    unmatched: u64,
}

impl WireLog {
    /// The bytes written and read so far.
    pub fn offsets(&self) -> Offsets {
        self.offsets
    }

    /// Transmit timestamps that matched no send this log keeps.
    pub fn unmatched(&self) -> u64 {
        self.unmatched
    }

    /// A send of `n` bytes the kernel accepted; its stamp comes later
    /// through [`WireLog::sent`].
    pub fn wrote(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        self.offsets.written += n as u64;
        self.sends.push(Mark {
            end: self.offsets.written,
            stamp: Stamp::default(),
        });
    }

    /// The transmit stamp the kernel gave the send whose last byte has
    /// `key` (the byte's offset, modulo 2^32, as SOF_TIMESTAMPING_OPT_ID
    /// counts for TCP).
    pub fn sent(&mut self, key: u32, stamp: Stamp) {
        let Some(last) = self.offsets.written.checked_sub(1) else {
            self.unmatched += 1;
            return;
        };
        // The newest offset at or before the last byte written whose low 32
        // bits are the key: the counter wraps every 4 GiB.
        let mut offset = (last & !u64::from(u32::MAX)) | u64::from(key);
        if offset > last {
            offset = offset.wrapping_sub(1 << 32);
        }
        let end = offset.wrapping_add(1);
        match self.sends.marks.binary_search_by_key(&end, |m| m.end) {
            Ok(i) => self.sends.marks[i].stamp.fill(stamp),
            Err(_) => self.unmatched += 1,
        }
    }

    /// A read of `n` bytes whose last segment arrived at `stamp` (empty when
    /// the kernel gave none).
    pub fn read(&mut self, n: usize, stamp: Stamp) {
        if n == 0 {
            return;
        }
        self.offsets.read += n as u64;
        self.reads.push(Mark {
            end: self.offsets.read,
            stamp,
        });
    }

    /// When the send holding byte `offset` (of those written) left.
    pub fn left_at(&self, offset: u64) -> Option<Stamp> {
        self.sends.holding(offset)
    }

    /// When the read holding byte `offset` (of those read) arrived.
    pub fn arrived_at(&self, offset: u64) -> Option<Stamp> {
        self.reads.holding(offset)
    }

    /// The wire time of a request whose last byte is byte `request_last`
    /// written and of its answer, whose last byte is byte `answer_last` read.
    pub fn exchange(&self, request_last: u64, answer_last: u64) -> Option<Wire> {
        between(self.left_at(request_last)?, self.arrived_at(answer_last)?)
    }

    /// The time on the wire of the round trips between two points of the
    /// connection (sends in one direction, then the reads of their answers,
    /// in turn): from each first send of a turn to the last read before the
    /// next send, summed. The client's own time, between an answer's arrival
    /// and its next send, is left out. `None` when a send or read between
    /// them has no stamp, or none was made.
    pub fn round_trips(&self, from: Offsets, to: Offsets) -> Option<Wire> {
        let sends = self.sends.within(from.written, to.written)?;
        let reads = self.reads.within(from.read, to.read)?;
        // A stamp without the clock makes the stretch unknown, not shorter.
        let kind = common_kind(sends.clone().chain(reads.clone()))?;
        let at = |s: Stamp| match kind {
            Kind::Hardware => s.hardware,
            Kind::Software => s.software,
        };
        // Each direction's stamps come in time order: merge them.
        let (mut sends, mut reads) = (
            sends.filter_map(at).peekable(),
            reads.filter_map(at).peekable(),
        );
        let (mut total, mut turns) = (0i64, 0u32);
        let (mut turn_start, mut last_read) = (None::<i64>, None::<i64>);
        loop {
            // A send and the read it crossed at the same nanosecond: the send first.
            let next = match (sends.peek(), reads.peek()) {
                (Some(s), r) if r.is_none_or(|r| s <= r) => sends.next().map(|t| (t, true)),
                _ => reads.next().map(|t| (t, false)),
            };
            let Some((t, sent)) = next else { break };
            match (sent, turn_start, last_read) {
                (true, None, _) => turn_start = Some(t),
                (true, Some(start), Some(read)) => {
                    total += read - start;
                    turns += 1;
                    (turn_start, last_read) = (Some(t), None);
                }
                (true, Some(_), None) => {}
                (false, Some(_), _) => last_read = Some(t),
                // An answer before any send: not this stretch's.
                (false, None, _) => {}
            }
        }
        if let (Some(start), Some(read)) = (turn_start, last_read) {
            total += read - start;
            turns += 1;
        }
        let ns = u64::try_from(total).ok()?;
        (ns > 0).then(|| Wire {
            time: Duration::from_nanos(ns),
            kind,
            round_trips: turns,
        })
    }

    /// Forget the stamps of bytes before `offsets`: nothing asks for them
    /// again (a session that has measured its transaction).
    pub fn forget_before(&mut self, offsets: Offsets) {
        self.sends.forget_before(offsets.written);
        self.reads.forget_before(offsets.read);
    }
}

/// The clock every stamp has: the card's, else the system's; `None` when
/// some stamp has neither.
fn common_kind(stamps: impl Iterator<Item = Stamp> + Clone) -> Option<Kind> {
    if stamps.clone().all(|s| s.hardware.is_some()) {
        Some(Kind::Hardware)
    } else if stamps.clone().all(|s| s.software.is_some()) {
        Some(Kind::Software)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sw(ns: i64) -> Stamp {
        Stamp {
            software: Some(ns),
            hardware: None,
        }
    }

    #[test]
    fn a_request_and_its_answer_are_matched_by_offset() {
        let mut log = WireLog::default();
        log.wrote(10); // bytes 0..10: one request
        log.wrote(20); // bytes 10..30: two requests, one send
        log.sent(9, sw(1_000));
        log.sent(29, sw(2_000));
        log.read(5, sw(4_000));
        log.read(15, sw(9_000));
        // The second request ends at byte 19, in the send stamped 2,000; its
        // answer ends at byte 12 read, in the read stamped 9,000.
        assert_eq!(
            log.exchange(19, 12),
            Some(Wire {
                time: Duration::from_nanos(7_000),
                kind: Kind::Software,
                round_trips: 1,
            })
        );
        assert_eq!(log.exchange(0, 4).unwrap().time.as_nanos(), 3_000);
        assert_eq!(log.exchange(30, 4), None, "not written yet");
        assert_eq!(log.unmatched(), 0);
    }

    #[test]
    fn a_stamp_for_no_send_is_counted_not_guessed() {
        let mut log = WireLog::default();
        log.sent(0, sw(1));
        log.wrote(10);
        log.sent(4, sw(1));
        assert_eq!(log.unmatched(), 2);
        assert_eq!(log.left_at(9), None, "the send has no stamp");
    }

    #[test]
    fn the_32_bit_key_wraps_with_the_bytes() {
        let mut log = WireLog::default();
        log.wrote(u32::MAX as usize);
        log.wrote(100); // ends at 2^32 + 99: last byte 2^32 + 98
        log.sent(98, sw(5));
        assert_eq!(log.left_at((1 << 32) + 50), Some(sw(5)));
        log.sent(u32::MAX - 1, sw(3)); // the first send's last byte
        assert_eq!(log.left_at(0), Some(sw(3)));
    }

    #[test]
    fn hardware_is_used_where_both_ends_have_it() {
        let both = |s, h| Stamp {
            software: Some(s),
            hardware: Some(h),
        };
        let mut log = WireLog::default();
        log.wrote(4);
        log.sent(3, both(100, 10));
        log.read(4, both(900, 50));
        let w = log.exchange(3, 3).unwrap();
        assert_eq!((w.time.as_nanos(), w.kind), (40, Kind::Hardware));
        log.wrote(4);
        log.sent(7, sw(1_000));
        let w = log.exchange(7, 3);
        assert_eq!(w, None, "the answer came before the request");
    }

    #[test]
    fn round_trips_leave_out_the_client_between_them() {
        let mut log = WireLog::default();
        let start = log.offsets();
        // BEGIN+SELECT out at 0, answer in two reads at 100 and 150; the
        // client thinks until 1,000; UPDATE+COMMIT out at 1,000 and 1,010,
        // answer at 1,300.
        log.wrote(50);
        log.sent(49, sw(0));
        log.read(30, sw(100));
        log.read(30, sw(150));
        log.wrote(40);
        log.sent(89, sw(1_000));
        log.wrote(10);
        log.sent(99, sw(1_010));
        log.read(20, sw(1_300));
        let w = log.round_trips(start, log.offsets()).unwrap();
        assert_eq!(w.time.as_nanos(), 150 + 300);
        // Two turns of sends then answers; UPDATE and COMMIT went in one.
        assert_eq!(w.round_trips, 2);
        // A read without a stamp makes the stretch unknown, not shorter.
        log.wrote(5);
        log.sent(104, sw(2_000));
        log.read(5, Stamp::default());
        assert_eq!(log.round_trips(start, log.offsets()), None);
        let before = Offsets {
            written: 100,
            read: 80,
        };
        log.forget_before(before);
        assert_eq!(log.round_trips(start, before), None, "forgotten");
    }

    #[test]
    fn memory_is_bounded() {
        let mut log = WireLog::default();
        for i in 0..(3 * KEEP) {
            log.wrote(1);
            log.sent(i as u32, sw(i as i64));
            log.read(1, sw(i as i64 + 1));
        }
        assert_eq!((log.sends.marks.len(), log.reads.marks.len()), (KEEP, KEEP));
        assert_eq!(log.left_at(0), None, "forgotten");
        assert!(
            log.exchange(3 * KEEP as u64 - 1, 3 * KEEP as u64 - 1)
                .is_some()
        );
    }
}
