//! The system calls: turning timestamps on for a socket, a read with its
//! receive timestamp, and the transmit timestamps waiting on the socket's
//! error queue. Linux only; elsewhere they refuse.

#[cfg(target_os = "linux")]
pub use linux::{CONTROL_SPACE, drain_error_queue, enable, read_stamped};

#[cfg(not(target_os = "linux"))]
pub use other::{CONTROL_SPACE, drain_error_queue, enable, read_stamped};

#[cfg(target_os = "linux")]
mod linux {
    use std::io::{self, IoSliceMut};
    use std::os::fd::{AsFd, AsRawFd};

    use nix::errno::Errno;
    use nix::sys::socket::{
        ControlMessageOwned, MsgFlags, SockaddrIn6, TimestampingFlag, Timestamps, recvmsg,
        setsockopt, sockopt,
    };
    use nix::sys::time::TimeSpec;

    use crate::log::{Stamp, WireLog};

    /// Room for the control messages of one read or one error-queue entry:
    /// the three timestamps, and the extended error that carries a transmit
    /// timestamp's key with the address it may name.
    pub const CONTROL_SPACE: usize = nix::sys::socket::cmsg_space::<Timestamps>()
        + nix::sys::socket::cmsg_space::<libc::sock_extended_err>()
        + std::mem::size_of::<SockaddrIn6>();

    /// Ask the kernel to stamp this socket's sends and reads, in software and
    /// where the card is set to, in hardware; transmit stamps keyed by byte
    /// offset (OPT_ID), without the payload looped back (OPT_TSONLY). Done
    /// before the first byte is sent, so the offsets count from it.
    pub fn enable(socket: &impl AsFd) -> io::Result<()> {
        let flags = TimestampingFlag::SOF_TIMESTAMPING_SOFTWARE
            | TimestampingFlag::SOF_TIMESTAMPING_TX_SOFTWARE
            | TimestampingFlag::SOF_TIMESTAMPING_RX_SOFTWARE
            | TimestampingFlag::SOF_TIMESTAMPING_RAW_HARDWARE
            | TimestampingFlag::SOF_TIMESTAMPING_TX_HARDWARE
            | TimestampingFlag::SOF_TIMESTAMPING_RX_HARDWARE
            | TimestampingFlag::SOF_TIMESTAMPING_OPT_ID
            | TimestampingFlag::SOF_TIMESTAMPING_OPT_TSONLY;
        setsockopt(socket, sockopt::Timestamping, &flags).map_err(io::Error::from)
    }

    /// A timestamp the kernel filled, in nanoseconds; `None` when zero (not
    /// taken).
    fn nanos(t: TimeSpec) -> Option<i64> {
        let ns = t.tv_sec() * 1_000_000_000 + t.tv_nsec();
        (ns != 0).then_some(ns)
    }

    fn stamp(t: &Timestamps) -> Stamp {
        Stamp {
            software: nanos(t.system),
            hardware: nanos(t.hw_raw),
        }
    }

    /// Read into `buf` with the stamp of the last segment read (empty when
    /// the kernel gave none); `WouldBlock` when nothing waits.
    pub fn read_stamped(
        socket: &impl AsRawFd,
        buf: &mut [u8],
        control: &mut [u8],
    ) -> io::Result<(usize, Stamp)> {
        let mut iov = [IoSliceMut::new(buf)];
        let msg = recvmsg::<()>(
            socket.as_raw_fd(),
            &mut iov,
            Some(control),
            MsgFlags::empty(),
        )?;
        let mut got = Stamp::default();
        // A truncated control area (it cannot be, at this size) leaves the
        // read unstamped rather than failed.
        if let Ok(cmsgs) = msg.cmsgs() {
            for c in cmsgs {
                if let ControlMessageOwned::ScmTimestampsns(t) = c {
                    got = stamp(&t);
                }
            }
        }
        Ok((msg.bytes, got))
    }

    /// Hand every transmit timestamp waiting on the error queue to `log`.
    pub fn drain_error_queue(
        socket: &impl AsRawFd,
        control: &mut [u8],
        log: &mut WireLog,
    ) -> io::Result<()> {
        loop {
            let mut nothing = [0u8; 0];
            let mut iov = [IoSliceMut::new(&mut nothing)];
            let msg = match recvmsg::<()>(
                socket.as_raw_fd(),
                &mut iov,
                Some(&mut *control),
                MsgFlags::MSG_ERRQUEUE | MsgFlags::MSG_DONTWAIT,
            ) {
                Ok(msg) => msg,
                Err(Errno::EAGAIN) => return Ok(()),
                Err(e) => return Err(e.into()),
            };
            let (mut key, mut got) = (None, Stamp::default());
            let Ok(cmsgs) = msg.cmsgs() else { continue };
            for c in cmsgs {
                match c {
                    ControlMessageOwned::ScmTimestampsns(t) => got = stamp(&t),
                    ControlMessageOwned::Ipv4RecvErr(e, _)
                    | ControlMessageOwned::Ipv6RecvErr(e, _)
                        if e.ee_origin == libc::SO_EE_ORIGIN_TIMESTAMPING =>
                    {
                        key = Some(e.ee_data);
                    }
                    _ => {}
                }
            }
            if let Some(key) = key {
                log.sent(key, got);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod other {
    use std::io;

    use crate::log::{Stamp, WireLog};

    /// No control messages off Linux.
    pub const CONTROL_SPACE: usize = 0;

    fn unsupported() -> io::Error {
        io::Error::new(
            io::ErrorKind::Unsupported,
            "kernel timestamps (SO_TIMESTAMPING) need Linux",
        )
    }

    /// Refuses: kernel timestamps need Linux.
    pub fn enable<S>(_: &S) -> io::Result<()> {
        Err(unsupported())
    }

    /// Refuses: kernel timestamps need Linux.
    pub fn read_stamped<S>(_: &S, _: &mut [u8], _: &mut [u8]) -> io::Result<(usize, Stamp)> {
        Err(unsupported())
    }

    /// Refuses: kernel timestamps need Linux.
    pub fn drain_error_queue<S>(_: &S, _: &mut [u8], _: &mut WireLog) -> io::Result<()> {
        Err(unsupported())
    }
}
