//! The unix socket's HTTP/2 `:authority` fix.
//!
//! Why: gRPC clients other than grpc-go (Python grpcio, grpc-java,
//! grpcurl, ...) dialling `unix://PATH` send the socket's path as the
//! `:authority` pseudo-header, raw or escaped (grpcio 1.85.3 sends
//! `tmp%2Fx.sock` for `unix:///tmp/x.sock`, measured). h2, the
//! HTTP/2 server under tonic, parses `:authority` with
//! [`http::uri::Authority`], which takes neither `/` nor `%2F` in a host,
//! and answers each such request RST_STREAM PROTOCOL_ERROR ("malformed
//! authority") before tonic sees it, logging nothing. Measured: grpcio 1.85 over
//! `unix://PATH` fails its first call with `INTERNAL: RST_STREAM with error
//! code 1`, and works with `grpc.default_authority = "localhost"`. The
//! daemon never reads `:authority`; the value only has to parse.
//!
//! How: each accepted unix connection is wrapped in [`AuthorityFix`]. Bytes
//! written to the client go straight to the socket; bytes read from it go
//! through [`Fixer`], a frame parser with no I/O of its own:
//! - a connection that does not open with the 24-byte HTTP/2 preface is
//!   passed through untouched (the server refuses it itself);
//! - every frame but HEADERS/CONTINUATION passes byte for byte, its payload
//!   streamed, not buffered;
//! - a header block (HEADERS and its CONTINUATIONs, at most [`MAX_BLOCK`]
//!   bytes) is collected and HPACK-decoded with `loona-hpack`, which keeps
//!   the client's dynamic table in step. While every `:authority` parses,
//!   blocks go on exactly as received: tonic and grpc-go clients see no
//!   change at all. From the first one that does not parse, the connection
//!   is rewritten: every block from then on is re-encoded from literal
//!   fields without indexing (the bad authority replaced by `localhost`), so
//!   the server's dynamic table is never touched again and there is no
//!   encoder state to keep in step with it. Frames are cut at 16384 bytes,
//!   the smallest SETTINGS_MAX_FRAME_SIZE a peer may advertise; stream id,
//!   END_STREAM and priority are kept, padding (optional) is dropped.
//!
//! A malformed frame sequence, an HPACK error or an oversized block closes
//! the connection with a warning naming the reason. The dynamic table may
//! grow to 4096 bytes, h2's default SETTINGS_HEADER_TABLE_SIZE (tonic does
//! not change it); a client asking for more is refused by the server too.

use loona_hpack::decoder::{Decoder, DecoderError};
use loona_hpack::encoder::encode_integer_into;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// What every HTTP/2 connection opens with.
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;
/// The largest header block accepted, as sent (frame headers included).
/// The server itself takes at most 16 KiB of decoded headers (hyper's
/// default SETTINGS_MAX_HEADER_LIST_SIZE) and answers larger ones.
pub const MAX_BLOCK: usize = 1 << 20;
/// The largest decoded header list (name + value + 32 per field, as
/// RFC 9113 counts): indexed fields make small blocks decode large.
const MAX_LIST: usize = 1 << 20;
/// Frame payload limit for rewritten blocks (RFC 9113's minimum maximum).
const MAX_FRAME: usize = 16_384;
/// h2's SETTINGS_HEADER_TABLE_SIZE.
const TABLE_SIZE: usize = 4096;
/// What an unparsable `:authority` becomes.
pub const REPLACEMENT: &[u8] = b"localhost";

/// Why a connection was closed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FixError(pub String);

fn fail<T>(why: String) -> Result<T, FixError> {
    Err(FixError(why))
}

/// Whether h2 would refuse this field ("malformed authority").
fn bad_authority(name: &[u8], value: &[u8]) -> bool {
    name == b":authority" && http::uri::Authority::try_from(value).is_err()
}

#[derive(Debug, Clone, Copy)]
enum State {
    /// Bytes of the preface seen so far.
    Preface(usize),
    /// Reading a 9-byte frame header.
    Head,
    /// Passing this many more payload bytes through.
    Pass(usize),
    /// Collecting this many more bytes of a HEADERS/CONTINUATION payload.
    Collect(usize),
    /// Not HTTP/2: everything passes.
    Raw,
}

/// A header block being collected.
#[derive(Debug)]
struct Block {
    stream: u32,
    end_stream: bool,
    priority: Option<[u8; 5]>,
    /// The HPACK fragments, padding and priority removed.
    fragment: Vec<u8>,
    /// The frames as received.
    raw: Vec<u8>,
}

/// The client-to-server half of the fix, fed bytes as they arrive (see the
/// module documentation).
pub struct Fixer {
    state: State,
    head: [u8; 9],
    head_len: usize,
    payload: Vec<u8>,
    block: Option<Block>,
    decoder: Decoder<'static>,
    rewriting: bool,
}

impl std::fmt::Debug for Fixer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fixer")
            .field("state", &self.state)
            .field("rewriting", &self.rewriting)
            .finish_non_exhaustive()
    }
}

impl Default for Fixer {
    fn default() -> Self {
        Self::new()
    }
}

impl Fixer {
    /// A fixer at the start of a connection.
    pub fn new() -> Self {
        let mut decoder = Decoder::new();
        decoder.set_max_allowed_table_size(TABLE_SIZE);
        Self {
            state: State::Preface(0),
            head: [0; 9],
            head_len: 0,
            payload: Vec::new(),
            block: None,
            decoder,
            rewriting: false,
        }
    }

    /// Whether header blocks are being re-encoded (an authority was bad).
    pub fn rewriting(&self) -> bool {
        self.rewriting
    }

    /// Takes the next client bytes and appends what the server should read
    /// to `out`; an error means the connection must be closed.
    pub fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) -> Result<(), FixError> {
        while !input.is_empty() {
            match self.state {
                State::Raw => {
                    out.extend_from_slice(input);
                    return Ok(());
                }
                State::Preface(seen) => {
                    let n = (PREFACE.len() - seen).min(input.len());
                    let ok = input[..n] == PREFACE[seen..seen + n];
                    out.extend_from_slice(&input[..n]);
                    input = &input[n..];
                    self.state = match (ok, seen + n) {
                        (false, _) => State::Raw,
                        (true, 24) => State::Head,
                        (true, s) => State::Preface(s),
                    };
                }
                State::Head => {
                    let n = (9 - self.head_len).min(input.len());
                    self.head[self.head_len..self.head_len + n].copy_from_slice(&input[..n]);
                    self.head_len += n;
                    input = &input[n..];
                    if self.head_len == 9 {
                        self.head_len = 0;
                        self.on_head(out)?;
                    }
                }
                State::Pass(left) => {
                    let n = left.min(input.len());
                    out.extend_from_slice(&input[..n]);
                    input = &input[n..];
                    self.state = if n == left {
                        State::Head
                    } else {
                        State::Pass(left - n)
                    };
                }
                State::Collect(left) => {
                    let n = left.min(input.len());
                    self.payload.extend_from_slice(&input[..n]);
                    input = &input[n..];
                    if n == left {
                        self.state = State::Head;
                        self.on_payload(out)?;
                    } else {
                        self.state = State::Collect(left - n);
                    }
                }
            }
        }
        Ok(())
    }

    /// A frame header is complete.
    fn on_head(&mut self, out: &mut Vec<u8>) -> Result<(), FixError> {
        let h = self.head;
        let len = usize::from(h[0]) << 16 | usize::from(h[1]) << 8 | usize::from(h[2]);
        let (ty, stream) = (h[3], stream_id(&h));
        match (&self.block, ty) {
            (Some(b), CONTINUATION) if b.stream == stream => {}
            (Some(b), _) => {
                return fail(format!(
                    "frame type {ty} on stream {stream} inside the header block of stream {}",
                    b.stream
                ))
            }
            (None, CONTINUATION) => {
                return fail(format!("CONTINUATION without HEADERS on stream {stream}"))
            }
            (None, HEADERS) if stream == 0 => return fail("HEADERS on stream 0".into()),
            (None, HEADERS) => {}
            (None, _) => {
                out.extend_from_slice(&h);
                self.state = if len == 0 {
                    State::Head
                } else {
                    State::Pass(len)
                };
                return Ok(());
            }
        }
        let so_far = self.block.as_ref().map_or(0, |b| b.raw.len());
        if so_far + 9 + len > MAX_BLOCK {
            return fail(format!(
                "header block of stream {stream} over {MAX_BLOCK} bytes"
            ));
        }
        self.payload.clear();
        if len == 0 {
            self.on_payload(out)
        } else {
            self.state = State::Collect(len);
            Ok(())
        }
    }

    /// A HEADERS or CONTINUATION payload is complete.
    fn on_payload(&mut self, out: &mut Vec<u8>) -> Result<(), FixError> {
        let flags = self.head[4];
        let block = match &mut self.block {
            Some(b) => {
                b.fragment.extend_from_slice(&self.payload);
                b
            }
            None => {
                let stream = stream_id(&self.head);
                let short = || FixError(format!("HEADERS frame on stream {stream} too short"));
                let (mut p, mut pad, mut priority) = (&self.payload[..], 0, None);
                if flags & PADDED != 0 {
                    let (&n, rest) = p.split_first().ok_or_else(short)?;
                    (pad, p) = (usize::from(n), rest);
                }
                if flags & PRIORITY != 0 {
                    let (pri, rest) = p.split_first_chunk::<5>().ok_or_else(short)?;
                    (priority, p) = (Some(*pri), rest);
                }
                if pad > p.len() {
                    return Err(short());
                }
                self.block.insert(Block {
                    stream,
                    end_stream: flags & END_STREAM != 0,
                    priority,
                    fragment: p[..p.len() - pad].to_vec(),
                    raw: Vec::new(),
                })
            }
        };
        block.raw.extend_from_slice(&self.head);
        block.raw.extend_from_slice(&self.payload);
        match (flags & END_HEADERS != 0, self.block.take()) {
            (true, Some(b)) => self.finish(b, out),
            (_, b) => {
                self.block = b;
                Ok(())
            }
        }
    }

    /// A whole header block: on as received, or re-encoded.
    fn finish(&mut self, b: Block, out: &mut Vec<u8>) -> Result<(), FixError> {
        let (mut fields, mut size) = (Vec::new(), 0usize);
        let decoded = self.decoder.decode_with_cb(&b.fragment, |n, v| {
            size = size.saturating_add(n.len() + v.len() + 32);
            if size <= MAX_LIST {
                fields.push((n.into_owned(), v.into_owned()));
            }
        });
        match decoded {
            // h2 accepts a block that ends with a table size update.
            Ok(()) | Err(DecoderError::SizeUpdateAtEnd) => {}
            Err(e) => {
                return fail(format!(
                    "HPACK error in the headers of stream {}: {e}",
                    b.stream
                ))
            }
        }
        if size > MAX_LIST {
            return fail(format!(
                "headers of stream {} decode to over {MAX_LIST} bytes",
                b.stream
            ));
        }
        if !self.rewriting {
            if let Some((_, v)) = fields.iter().find(|(n, v)| bad_authority(n, v)) {
                tracing::debug!(
                    authority = %String::from_utf8_lossy(v),
                    "unix socket: the client's :authority is not a valid authority; \
                     rewriting it to localhost on this connection"
                );
                self.rewriting = true;
            }
        }
        if !self.rewriting {
            out.extend_from_slice(&b.raw);
            return Ok(());
        }
        let mut hpack = Vec::with_capacity(b.fragment.len() + 64);
        for (n, v) in &fields {
            let v = if bad_authority(n, v) { REPLACEMENT } else { v };
            // Literal field without indexing, new name (RFC 7541 6.2.2),
            // strings not Huffman-coded.
            hpack.push(0);
            for s in [&n[..], v] {
                let _ = encode_integer_into(s.len(), 7, 0, &mut hpack);
                hpack.extend_from_slice(s);
            }
        }
        write_block(&b, &hpack, out);
        Ok(())
    }
}

fn stream_id(head: &[u8; 9]) -> u32 {
    u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff
}

fn frame_head(out: &mut Vec<u8>, len: usize, ty: u8, flags: u8, stream: u32) {
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.extend_from_slice(&[ty, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
}

/// `hpack` as HEADERS (+ CONTINUATION) frames of at most [`MAX_FRAME`].
fn write_block(b: &Block, hpack: &[u8], out: &mut Vec<u8>) {
    let pri: &[u8] = b.priority.as_ref().map_or(&[], |p| &p[..]);
    let (first, mut rest) = hpack.split_at(hpack.len().min(MAX_FRAME - pri.len()));
    let mut flags = if b.end_stream { END_STREAM } else { 0 };
    if !pri.is_empty() {
        flags |= PRIORITY;
    }
    if rest.is_empty() {
        flags |= END_HEADERS;
    }
    frame_head(out, pri.len() + first.len(), HEADERS, flags, b.stream);
    out.extend_from_slice(pri);
    out.extend_from_slice(first);
    while !rest.is_empty() {
        let (c, r) = rest.split_at(rest.len().min(MAX_FRAME));
        rest = r;
        let flags = if rest.is_empty() { END_HEADERS } else { 0 };
        frame_head(out, c.len(), CONTINUATION, flags, b.stream);
        out.extend_from_slice(c);
    }
}

/// A unix connection whose client-to-server bytes pass through a [`Fixer`];
/// what the server writes goes to the socket unchanged.
#[derive(Debug)]
pub struct AuthorityFix<S> {
    io: S,
    fixer: Fixer,
    /// Fixed bytes not yet read by the server, from `pos` on.
    out: Vec<u8>,
    pos: usize,
    scratch: Box<[u8]>,
    failed: Option<FixError>,
}

impl<S> AuthorityFix<S> {
    /// Wraps a freshly accepted connection.
    pub fn new(io: S) -> Self {
        Self {
            io,
            fixer: Fixer::new(),
            out: Vec::new(),
            pos: 0,
            scratch: vec![0; 32 << 10].into_boxed_slice(),
            failed: None,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for AuthorityFix<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.pos < this.out.len() {
                let n = buf.remaining().min(this.out.len() - this.pos);
                buf.put_slice(&this.out[this.pos..this.pos + n]);
                this.pos += n;
                if this.pos == this.out.len() {
                    this.out.clear();
                    this.pos = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if let Some(e) = &this.failed {
                return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, e.clone())));
            }
            let mut rb = ReadBuf::new(&mut this.scratch);
            ready!(Pin::new(&mut this.io).poll_read(cx, &mut rb))?;
            if rb.filled().is_empty() {
                return Poll::Ready(Ok(()));
            }
            // What was fixed before an error is still read, then the error.
            if let Err(e) = this.fixer.feed(rb.filled(), &mut this.out) {
                tracing::warn!(reason = %e, "unix socket: closing a gRPC connection");
                this.failed = Some(e);
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for AuthorityFix<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// The peer address and credentials are the socket's own.
impl<S: tonic::transport::server::Connected> tonic::transport::server::Connected
    for AuthorityFix<S>
{
    type ConnectInfo = S::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.io.connect_info()
    }
}

#[cfg(test)]
mod tests;
