//! `Content-Length` framing, read robustly from any byte stream.
//!
//! A frame is a header block (`Name: value` lines, each ended by `\r\n` or
//! `\n`, closed by an empty line) and a body of exactly `Content-Length`
//! bytes. Any other header is ignored. Whatever cannot be a header — a line
//! without a colon, a missing, non-numeric or duplicated `Content-Length`, a
//! header block longer than [`Limits::header`], a body longer than
//! [`Limits::message`] — is reported once as [`Frame::Malformed`], and the
//! reader resynchronizes on the next `Content-Length` it finds in the
//! stream (the garbage, and the body of an oversized message, are skipped
//! without being kept in memory).
//!
//! End of input in the middle of a frame ends the stream: the client is
//! gone, nobody is left to answer.

use memchr::memmem;
use tokio::io::{AsyncRead, AsyncReadExt};

/// How much a frame may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of one header block, terminating empty line included.
    pub header: usize,
    /// Bytes of one body.
    pub message: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header: 8 * 1024,
            message: 128 * 1024 * 1024,
        }
    }
}

/// What the reader found next.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A body, exactly `Content-Length` bytes (not checked in any way).
    Message(Vec<u8>),
    /// A header that cannot start a message, and why.
    Malformed(String),
}

/// Where a resynchronization looks for the next message.
const MARKER: &[u8] = b"Content-Length";
/// Bytes read at a time.
const READ_CHUNK: usize = 64 * 1024;
/// A buffer grown past this by a large message is shrunk back after it, so
/// one large `didOpen` does not keep its size resident.
const KEEP_CAPACITY: usize = 1024 * 1024;

/// Reads frames from `R`.
pub struct FrameReader<R> {
    inner: R,
    buf: Vec<u8>,
    limits: Limits,
    /// Skipping bytes up to the next [`MARKER`].
    resyncing: bool,
}

/// A header block, parsed.
enum Header {
    /// No empty line yet.
    Incomplete,
    /// The block is not a valid header: why, and how many bytes to drop
    /// before looking for the next marker.
    Malformed(String, usize),
    /// `len` header bytes announce a body of `body` bytes.
    Complete { len: usize, body: usize },
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    /// Frames from `inner`, within `limits`.
    pub fn new(inner: R, limits: Limits) -> FrameReader<R> {
        FrameReader {
            inner,
            buf: Vec::new(),
            limits,
            resyncing: false,
        }
    }

    /// The next frame; `None` at the end of the input (or on a read error).
    pub async fn next(&mut self) -> Option<Frame> {
        loop {
            if self.resyncing {
                if let Some(at) = memmem::find(&self.buf, MARKER) {
                    self.buf.drain(..at);
                    self.resyncing = false;
                } else {
                    // Keep what could be the start of a marker cut in two.
                    let keep = self.buf.len().min(MARKER.len() - 1);
                    self.buf.drain(..self.buf.len() - keep);
                    if !self.fill().await {
                        return None;
                    }
                }
                continue;
            }
            let blank = self.buf.iter().take_while(|&&b| b == b'\r' || b == b'\n');
            let blank = blank.count();
            self.buf.drain(..blank);
            match parse_header(&self.buf[..self.buf.len().min(self.limits.header)]) {
                Header::Incomplete if self.buf.len() >= self.limits.header => {
                    return Some(self.resync(
                        1,
                        format!("header longer than {} bytes", self.limits.header),
                    ));
                }
                Header::Incomplete => {
                    if !self.fill().await {
                        return None;
                    }
                }
                Header::Malformed(why, skip) => return Some(self.resync(skip, why)),
                Header::Complete { len, body } if body > self.limits.message => {
                    let why = format!(
                        "message of {body} bytes, more than the limit of {} bytes",
                        self.limits.message
                    );
                    return Some(self.resync(len, why));
                }
                Header::Complete { len, body } => {
                    while self.buf.len() < len + body {
                        if !self.fill().await {
                            return None;
                        }
                    }
                    let message = self.buf[len..len + body].to_vec();
                    self.buf.drain(..len + body);
                    if self.buf.capacity() > KEEP_CAPACITY {
                        self.buf.shrink_to(self.buf.len().max(READ_CHUNK));
                    }
                    return Some(Frame::Message(message));
                }
            }
        }
    }

    /// Drops `skip` bytes and looks for the next marker from there.
    fn resync(&mut self, skip: usize, why: String) -> Frame {
        self.buf.drain(..skip.min(self.buf.len()));
        self.resyncing = true;
        Frame::Malformed(why)
    }

    /// Reads more input; `false` at its end.
    async fn fill(&mut self) -> bool {
        self.buf.reserve(READ_CHUNK);
        match self.inner.read_buf(&mut self.buf).await {
            Ok(n) => n > 0,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the client's messages");
                false
            }
        }
    }
}

/// Parses the header block at the start of `buf`.
fn parse_header(buf: &[u8]) -> Header {
    let mut at = 0;
    let mut length: Option<usize> = None;
    while let Some(end) = memchr::memchr(b'\n', &buf[at..]).map(|i| at + i) {
        let start = at;
        let line = &buf[at..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        at = end + 1;
        if line.is_empty() {
            return match length {
                Some(body) => Header::Complete { len: at, body },
                None => Header::Malformed("a header without Content-Length".into(), 1),
            };
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            let why = format!("a header line without a colon: {}", shown(line));
            return Header::Malformed(why, 1);
        };
        let (name, value) = (line[..colon].trim_ascii(), line[colon + 1..].trim_ascii());
        if !name.eq_ignore_ascii_case(MARKER) {
            continue;
        }
        let parsed = std::str::from_utf8(value)
            .ok()
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|v| v.parse::<usize>().ok());
        match (parsed, length) {
            (None, _) => {
                return Header::Malformed(format!("a bad Content-Length: {}", shown(value)), 1);
            }
            (Some(new), Some(old)) if new != old => {
                // Not the second header either: look past it.
                let why = format!("two Content-Length headers: {old} and {new}");
                return Header::Malformed(why, start + 1);
            }
            (Some(new), _) => length = Some(new),
        }
    }
    Header::Incomplete
}

/// At most 40 bytes of `bytes`, for a message.
fn shown(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(40)];
    let more = if cut.len() < bytes.len() { "…" } else { "" };
    format!("`{}{more}`", String::from_utf8_lossy(cut).escape_debug())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], limits: Limits) -> Vec<Frame> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut reader = FrameReader::new(input, limits);
            let mut all = Vec::new();
            while let Some(frame) = reader.next().await {
                all.push(frame);
            }
            all
        })
    }

    fn message(body: &str) -> Frame {
        Frame::Message(body.as_bytes().to_vec())
    }

    fn malformed(frame: &Frame) -> &str {
        match frame {
            Frame::Malformed(why) => why,
            Frame::Message(body) => panic!("a message: {}", String::from_utf8_lossy(body)),
        }
    }

    #[test]
    fn reads_frames_with_any_header_order_and_line_ending() {
        let input = b"Content-Length: 2\r\n\r\n{}\
            Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:3\r\n\r\n[1]\
            \r\nContent-Length: 1\n\n7";
        assert_eq!(
            frames(input, Limits::default()),
            [message("{}"), message("[1]"), message("7")]
        );
    }

    #[test]
    fn reports_a_bad_header_once_and_finds_the_next_message() {
        let cases: [(&[u8], &str); 5] = [
            (
                b"garbage\r\nmore garbage\r\n\r\n{}",
                "without a colon: `garbage`",
            ),
            (
                b"Content-Length: abc\r\n\r\n{}",
                "a bad Content-Length: `abc`",
            ),
            (
                b"Content-Length: -5\r\n\r\n{}",
                "a bad Content-Length: `-5`",
            ),
            (b"X-Other: 1\r\n\r\n{}", "a header without Content-Length"),
            (
                b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
                "two Content-Length headers: 2 and 3",
            ),
        ];
        for (bad, why) in cases {
            let mut input = bad.to_vec();
            input.extend_from_slice(b"Content-Length: 4\r\n\r\nnext");
            let got = frames(&input, Limits::default());
            assert!(malformed(&got[0]).contains(why), "{got:?}");
            assert_eq!(got.last(), Some(&message("next")), "{got:?}");
        }
    }

    #[test]
    fn a_short_content_length_resynchronizes_on_the_next_header() {
        let input = b"Content-Length: 3\r\n\r\n{\"a\":1}Content-Length: 4\r\n\r\nnext";
        let got = frames(input, Limits::default());
        assert_eq!(got[0], message("{\"a"));
        assert_eq!(malformed(&got[1]), "a header without Content-Length");
        assert_eq!(got[2..], [message("next")]);
    }

    #[test]
    fn a_huge_header_or_body_is_skipped_without_keeping_it() {
        let limits = Limits {
            header: 64,
            message: 100,
        };
        let mut input = b"Content-Length: 2\r\nX-Junk: ".to_vec();
        input.extend(std::iter::repeat_n(b'a', 1 << 20));
        input.extend_from_slice(b"\r\n\r\n{}Content-Length: 4\r\n\r\nnext");
        input.extend_from_slice(b"Content-Length: 1000\r\n\r\n");
        input.extend(std::iter::repeat_n(b'b', 1000));
        input.extend_from_slice(b"Content-Length: 4\r\n\r\nlast");
        let got = frames(&input, limits);
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(malformed(&got[0]), "header longer than 64 bytes");
        assert_eq!(got[1], message("next"));
        assert_eq!(
            malformed(&got[2]),
            "message of 1000 bytes, more than the limit of 100 bytes"
        );
        assert_eq!(got[3], message("last"));
    }

    #[test]
    fn end_of_input_inside_a_frame_ends_the_stream() {
        assert_eq!(
            frames(b"Content-Length: 10\r\n\r\n{}", Limits::default()),
            []
        );
        assert_eq!(frames(b"Content-Len", Limits::default()), []);
        assert_eq!(frames(b"", Limits::default()), []);
    }
}
