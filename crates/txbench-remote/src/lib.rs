//! The txbench transaction server's protocol and its client: what a client of
//! `txbench serve` and the server share, depending on txbench-core only, so
//! that a server build needs no database driver it does not use.
//!
//! * [`protocol`]: the messages, their frames and codec (docs/protocol.md
//!   describes them byte by byte, for a server or client in any language).
//! * [`RemoteEngine`]: the `txbench://host:port` engine, whose sessions send
//!   each transaction's input to the server and wait for its outcome.
#![warn(missing_docs)]

mod client;
pub mod protocol;

pub use client::{RemoteEngine, RemoteSession, RemoteTarget, SESSIONS_PER_CONNECTION};
