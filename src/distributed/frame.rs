//! Frames: every message on a controller/worker connection is `len:u64` (little-endian)
//! followed by `len` bytes. The reader checks `len` against a limit before it allocates, so
//! a peer can make a worker hold no more than the limit; the first frame of a connection
//! (the handshake) has its own small limit, so nobody without the token can make a
//! worker allocate more than [`HELLO_LIMIT`] bytes.

use std::fmt;
use std::io::{self, Read, Write};

/// The most bytes the first message of a connection may have (a hello and its token).
pub const HELLO_LIMIT: u64 = 4096;

/// The default limit on one message after the handshake (`xlac serve --max-message-bytes`).
pub const DEFAULT_MESSAGE_LIMIT: u64 = 1 << 30;

/// The largest limit `--max-message-bytes` accepts (64 GiB): a message is held whole in
/// memory, and larger arrays than this are not sent as one message.
pub const MAX_MESSAGE_LIMIT: u64 = 1 << 36;

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The peer closed the connection before the first byte of a frame.
    Closed,
    /// The peer closed the connection inside a frame (after `got` of `expected` bytes).
    Truncated {
        /// Bytes read.
        got: u64,
        /// Bytes the frame needed (its header, then its body).
        expected: u64,
    },
    /// The frame announced more bytes than allowed.
    TooLarge {
        /// Its announced length.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// The process could not allocate the frame's body.
    OutOfMemory {
        /// Its announced length.
        len: u64,
    },
    /// The connection failed.
    Io(io::Error),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Closed => write!(f, "the connection closed"),
            FrameError::Truncated { got, expected } => write!(
                f,
                "the connection closed inside a message ({got} of {expected} bytes)"
            ),
            FrameError::TooLarge { len, limit } => write!(
                f,
                "a message of {len} bytes is over the limit of {limit} bytes"
            ),
            FrameError::OutOfMemory { len } => {
                write!(f, "no memory for a message of {len} bytes")
            }
            FrameError::Io(e) => write!(f, "{}", crate::io::io_error_text(e)),
        }
    }
}

impl std::error::Error for FrameError {}

/// Reads into `buf` until it is full; `Ok(n)` with `n < buf.len()` at end of stream.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads one frame of at most `limit` bytes.
pub fn read_frame(r: &mut impl Read, limit: u64) -> Result<Vec<u8>, FrameError> {
    let mut header = [0u8; 8];
    let n = read_full(r, &mut header).map_err(FrameError::Io)?;
    if n == 0 {
        return Err(FrameError::Closed);
    }
    if n < 8 {
        return Err(FrameError::Truncated {
            got: n as u64,
            expected: 8,
        });
    }
    let len = u64::from_le_bytes(header);
    if len > limit {
        return Err(FrameError::TooLarge { len, limit });
    }
    // The body grows as its bytes arrive, a chunk at a time and fallibly: a header alone
    // costs nothing, and a body the process cannot hold is an error, not an abort.
    let mut body: Vec<u8> = Vec::new();
    while (body.len() as u64) < len {
        let chunk = (len - body.len() as u64).min(READ_CHUNK as u64) as usize;
        let at = body.len();
        body.try_reserve(chunk)
            .map_err(|_| FrameError::OutOfMemory { len })?;
        body.resize(at + chunk, 0);
        let got = read_full(r, &mut body[at..]).map_err(FrameError::Io)?;
        if got < chunk {
            return Err(FrameError::Truncated {
                got: 8 + (at + got) as u64,
                expected: 8 + len,
            });
        }
    }
    Ok(body)
}

/// How many bytes of a body are read (and allocated) at a time.
const READ_CHUNK: usize = 1 << 20;

/// Writes one frame.
pub fn write_frame(w: &mut impl Write, body: &[u8]) -> io::Result<()> {
    w.write_all(&(body.len() as u64).to_le_bytes())?;
    w.write_all(body)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_limits_hold() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"hello").unwrap();
        write_frame(&mut buf, b"").unwrap();
        let mut r = &buf[..];
        assert_eq!(read_frame(&mut r, 5).unwrap(), b"hello");
        assert_eq!(read_frame(&mut r, 5).unwrap(), b"");
        assert!(matches!(read_frame(&mut r, 5), Err(FrameError::Closed)));
        let mut r = &buf[..];
        assert!(matches!(
            read_frame(&mut r, 4),
            Err(FrameError::TooLarge { len: 5, limit: 4 })
        ));
        for cut in 1..buf.len().min(13) {
            let mut r = &buf[..cut];
            assert!(
                matches!(read_frame(&mut r, 5), Err(FrameError::Truncated { .. })),
                "cut at {cut}"
            );
        }
        // A header within a huge limit, with no body behind it, costs one chunk: the body
        // is allocated as it arrives (an allocation of the announced 2^62 bytes aborted).
        let header = (1u64 << 62).to_le_bytes();
        assert!(matches!(
            read_frame(&mut &header[..], u64::MAX),
            Err(FrameError::Truncated { got: 8, .. })
        ));
        // A body longer than one chunk arrives whole.
        let long = vec![7u8; READ_CHUNK * 2 + 3];
        let mut buf = Vec::new();
        write_frame(&mut buf, &long).unwrap();
        assert_eq!(read_frame(&mut &buf[..], u64::MAX).unwrap(), long);
        // A header announcing 2^63 bytes is refused before anything is allocated.
        let huge = (1u64 << 63).to_le_bytes();
        assert!(matches!(
            read_frame(&mut &huge[..], DEFAULT_MESSAGE_LIMIT),
            Err(FrameError::TooLarge { .. })
        ));
    }
}
