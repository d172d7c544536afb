//! The txbench transaction server's wire protocol, version 1.
//!
//! Every message is one frame: a 4-byte big-endian length, then that many bytes
//! of a [postcard]-encoded message. Frames longer than [`MAX_FRAME`] are refused.
//!
//! 1. The client opens with [`ClientMessage::Hello`] (magic `TXBN`, protocol
//!    version, workload, optional token). The server answers
//!    [`ServerMessage::Welcome`] (its version, workload and its parameters) or
//!    [`ServerMessage::Refused`] with the reason, then closes.
//! 2. The client sends [`ClientMessage::Request`]s: a request id of its choosing,
//!    the transaction type (an index into the workload's types) and the input,
//!    the workload's own input struct encoded with postcard. Any number may be
//!    in flight on one connection.
//! 3. The server answers each with [`ServerMessage::Response`] (same id), in the
//!    order transactions finish, not the order they were sent: the status
//!    (committed, expected rollback, or an error with its kind and message) and
//!    the server's execution time in microseconds, and the fields the terminal
//!    displays.
//!
//! A frame that does not decode, or a request before the handshake, gets a
//! `Refused` answer and the connection is closed; nothing a client sends can
//! stop the server or a worker.

use bytes::{Bytes, BytesMut};
use futures_util::{Sink, SinkExt};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::codec::LengthDelimitedCodec;

/// The protocol version this build speaks.
pub const VERSION: u16 = 1;
/// The first four bytes of a Hello.
pub const MAGIC: [u8; 4] = *b"TXBN";
/// The bytes of a frame's length prefix.
pub const FRAME_HEADER: usize = 4;
/// The longest frame either side accepts (a TPC-C input is under 1 KiB).
pub const MAX_FRAME: usize = 1 << 20;

/// What a client sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ClientMessage {
    /// The handshake: the first frame of every connection.
    Hello {
        /// [`MAGIC`].
        magic: [u8; 4],
        /// The client's protocol version.
        version: u16,
        /// The workload the client drives ("tpcc"), when it insists on one; the
        /// server refuses another. `None`: whatever the server serves.
        workload: Option<String>,
        /// The server's token, when it asks for one.
        token: Option<String>,
    },
    /// Execute one transaction.
    Request {
        /// Chosen by the client; the response carries it back.
        id: u64,
        /// The transaction type.
        txn_type: u16,
        /// The workload's input, postcard-encoded.
        input: Vec<u8>,
    },
}

/// How a transaction ended on the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Status {
    /// Committed.
    Committed,
    /// Rolled back as the specification expects.
    ExpectedRollback,
    /// Failed (after the server's own retries of conflicts).
    Error {
        /// The error kind's name ("conflict", "connection", ...).
        kind: String,
        /// The engine's message.
        message: String,
    },
}

/// What a server sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ServerMessage {
    /// The handshake succeeded.
    Welcome {
        /// The server's protocol version.
        version: u16,
        /// The workload it serves.
        workload: String,
        /// What the workload needs to know to draw inputs: `workload`, its scale
        /// (`warehouses`, `subscribers`), constants (TPC-C's C-Load), and the
        /// server's `engine` and `server_version`.
        parameters: Vec<(String, String)>,
    },
    /// The server will not go on with this connection; it closes after this.
    Refused {
        /// Why, for the client to show.
        reason: String,
    },
    /// The outcome of one request.
    Response {
        /// The request's id.
        id: u64,
        /// How the transaction ended.
        status: Status,
        /// Microseconds the server spent executing it.
        server_us: u64,
        /// What the specification says the terminal displays, as name/value
        /// pairs (TPC-C New-Order: `o_id`, `total`, `brand_generic`); empty on errors.
        output: Vec<(String, String)>,
    },
}

/// The frame codec both sides use: 4-byte big-endian length, at most [`MAX_FRAME`].
pub fn codec() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .length_field_length(FRAME_HEADER)
        .max_frame_length(MAX_FRAME)
        .new_codec()
}

/// A message as a frame body.
pub fn encode<T: Serialize>(message: &T) -> Bytes {
    Bytes::from(postcard::to_stdvec(message).expect("protocol messages always serialize"))
}

/// Write the frames queued on `frames` to `sink` until the queue closes, then
/// shut the sink down. Whatever is queued goes out with one flush, so a burst of
/// requests or responses costs one write.
pub async fn write_frames<S>(mut sink: S, mut frames: impl Frames)
where
    S: Sink<Bytes> + Unpin,
{
    while let Some(frame) = frames.recv().await {
        if sink.feed(frame).await.is_err() {
            return;
        }
        while let Some(frame) = frames.try_recv() {
            if sink.feed(frame).await.is_err() {
                return;
            }
        }
        if sink.flush().await.is_err() {
            return;
        }
    }
    let _ = sink.close().await;
}

/// A queue of frames to write: the client's unbounded one, or the server's
/// bounded one (a connection's unanswered requests are capped).
pub trait Frames: Send {
    /// The next frame, waiting for it; `None` once the queue closed.
    fn recv(&mut self) -> impl std::future::Future<Output = Option<Bytes>> + Send;
    /// The next frame if one is queued.
    fn try_recv(&mut self) -> Option<Bytes>;
}

impl Frames for mpsc::UnboundedReceiver<Bytes> {
    fn recv(&mut self) -> impl std::future::Future<Output = Option<Bytes>> + Send {
        mpsc::UnboundedReceiver::recv(self)
    }
    fn try_recv(&mut self) -> Option<Bytes> {
        mpsc::UnboundedReceiver::try_recv(self).ok()
    }
}

impl Frames for mpsc::Receiver<Bytes> {
    fn recv(&mut self) -> impl std::future::Future<Output = Option<Bytes>> + Send {
        mpsc::Receiver::recv(self)
    }
    fn try_recv(&mut self) -> Option<Bytes> {
        mpsc::Receiver::try_recv(self).ok()
    }
}

/// A frame that is not a message of the protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("undecodable frame ({bytes} bytes): {why}")]
pub struct DecodeError {
    /// The frame's length.
    pub bytes: usize,
    /// What did not decode.
    pub why: String,
}

/// A frame body as a message; an error names what did not decode.
pub fn decode<'a, T: Deserialize<'a>>(frame: &'a BytesMut) -> Result<T, DecodeError> {
    postcard::from_bytes(frame).map_err(|e| DecodeError {
        bytes: frame.len(),
        why: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::BufMut;
    use proptest::prelude::*;
    use tokio_util::codec::{Decoder, Encoder};

    #[test]
    fn messages_round_trip_through_frames() {
        let messages = vec![
            ClientMessage::Hello {
                magic: MAGIC,
                version: VERSION,
                workload: Some("tpcc".into()),
                token: Some("secret".into()),
            },
            ClientMessage::Request {
                id: u64::MAX,
                txn_type: 4,
                input: vec![1, 2, 3],
            },
        ];
        let mut codec = codec();
        let mut wire = BytesMut::new();
        for m in &messages {
            codec.encode(encode(m), &mut wire).unwrap();
        }
        for m in &messages {
            let frame = codec.decode(&mut wire).unwrap().unwrap();
            assert_eq!(&decode::<ClientMessage>(&frame).unwrap(), m);
        }
        assert!(codec.decode(&mut wire).unwrap().is_none());
    }

    #[test]
    fn oversized_and_truncated_frames_are_refused_or_awaited() {
        let mut codec = codec();
        let mut wire = BytesMut::new();
        wire.put_u32(MAX_FRAME as u32 + 1);
        wire.put_slice(&[0; 16]);
        assert!(
            codec.decode(&mut wire).is_err(),
            "a frame over the limit is an error"
        );
        let mut codec = super::codec();
        let mut wire = BytesMut::new();
        wire.put_u32(10);
        wire.put_slice(&[1, 2, 3]);
        assert!(
            codec.decode(&mut wire).unwrap().is_none(),
            "a short frame waits for more"
        );
    }

    proptest! {
        /// Any bytes at all: the frame decoder and the message decoder return a
        /// frame, "need more", or an error; they never panic.
        #[test]
        fn random_bytes_never_panic_the_decoders(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
            let mut codec = codec();
            let mut wire = BytesMut::from(&bytes[..]);
            while let Ok(Some(frame)) = codec.decode(&mut wire) {
                let _ = decode::<ClientMessage>(&frame);
                let _ = decode::<ServerMessage>(&frame);
            }
        }

        /// Random frame bodies behind a valid length prefix reach the message decoder.
        #[test]
        fn random_frame_bodies_decode_or_fail_cleanly(body in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let frame = BytesMut::from(&body[..]);
            let _ = decode::<ClientMessage>(&frame);
            let _ = decode::<ServerMessage>(&frame);
        }
    }
}
