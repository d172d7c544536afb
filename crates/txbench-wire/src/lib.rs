//! Kernel timestamps of a TCP connection's bytes, for latency free of the
//! client's own scheduling: Linux's SO_TIMESTAMPING gives, for each send,
//! when its last byte left through the network device (read back from the
//! socket's error queue, keyed by byte offset), and, for each read, when
//! its last segment arrived (a control message of the read). A request's
//! bytes and its answer's are matched by offset ([`WireLog`]), so the time
//! between is what the network and the server took, whenever the client got
//! round to sending and reading.
//!
//! * [`StampedStream`]: a tokio TCP stream whose reads and writes feed a
//!   [`WireLog`], for any driver that takes a stream of the caller's.
//! * [`WireLog`]: the stamps by offset, and the wire time of an exchange or
//!   of the round trips between two points.
//!
//! Software timestamps are the kernel's; hardware ones come where the
//! network card is set to stamp (the card's clock), and are used where both
//! ends of a measurement have them. Off Linux, [`StampedStream::new`] refuses.
#![warn(missing_docs)]

mod log;
mod socket;
mod stream;

pub use log::{KEEP, Kind, Offsets, Stamp, Wire, WireLog};
pub use stream::StampedStream;
