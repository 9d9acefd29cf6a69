//! The unix socket answers requests whose HTTP/2 `:authority` is the
//! socket's path, raw or escaped as grpcio sends it (src/uds.rs);
//! without the fix h2 resets each with RST_STREAM PROTOCOL_ERROR. The
//! path cannot be put in an `http::Uri`, so that client writes its frames
//! itself; a stock `h2` client covers odd but valid authorities.

#[allow(unused_imports)] // `common::S`, which these tests do not need
mod common;

use common::Harness;
use cuzk_daemon::pb;
use loona_hpack::encoder::encode_integer_into;
use loona_hpack::Decoder;
use prost::Message;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

type Fields = Vec<(Vec<u8>, Vec<u8>)>;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const GET_STATUS: &str = "/cuzk.v1.ProvingEngine/GetStatus";
/// An empty GetStatusRequest in its gRPC frame (not compressed, length 0).
const EMPTY_MESSAGE: [u8; 5] = [0; 5];
const WAIT: Duration = Duration::from_secs(60);

async fn unix_daemon() -> (Harness, tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("cuzk.sock");
    let s2 = sock.clone();
    let h = Harness::start_with(move |s| {
        s.tcp = false;
        s.unix = Some(s2);
        s.settings.metrics_listen = String::new();
    })
    .await;
    (h, dir, sock)
}

fn frame(ty: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut f = (payload.len() as u32).to_be_bytes()[1..].to_vec();
    f.extend_from_slice(&[ty, flags]);
    f.extend_from_slice(&stream.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

fn get(fields: &Fields, name: &str) -> Option<String> {
    fields
        .iter()
        .find(|(n, _)| n == name.as_bytes())
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
}

/// An HTTP/2 client that writes its own frames, HPACK with the dynamic
/// table as grpc core uses it: a field already sent is a reference to the
/// table, a new one a literal added to it.
struct RawClient {
    io: UnixStream,
    /// The client's dynamic table, newest last.
    table: Vec<(String, String)>,
    dec: Decoder<'static>,
}

/// What a stream got back.
#[derive(Debug)]
enum Answer {
    /// Response headers, body, trailers.
    Ok(Fields, Vec<u8>, Fields),
    Reset(u32),
    /// GOAWAY or the connection closed.
    Closed(String),
}

impl RawClient {
    async fn connect(path: &Path) -> Self {
        let mut io = UnixStream::connect(path).await.unwrap();
        io.write_all(&[PREFACE, &frame(0x4, 0, 0, &[])].concat())
            .await
            .unwrap();
        Self {
            io,
            table: Vec::new(),
            dec: Decoder::new(),
        }
    }

    async fn read_frame(&mut self) -> std::io::Result<(u8, u8, u32, Vec<u8>)> {
        let mut h = [0u8; 9];
        self.io.read_exact(&mut h).await?;
        let len = u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize;
        let mut p = vec![0; len];
        self.io.read_exact(&mut p).await?;
        let stream = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
        Ok((h[3], h[4], stream, p))
    }

    /// GetStatus on `stream` with this `:authority`.
    async fn get_status(&mut self, stream: u32, authority: &str) -> Answer {
        let fields = [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", GET_STATUS),
            (":authority", authority),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
            (
                "user-agent",
                "grpc-python/1.85.0 grpc-c/52.0.0 (linux; chttp2)",
            ),
        ];
        let mut block = Vec::new();
        for (n, v) in fields.map(|(n, v)| (n.to_string(), v.to_string())) {
            let t = &mut self.table;
            match t.iter().position(|e| e.0 == n && e.1 == v) {
                Some(i) => encode_integer_into(62 + t.len() - 1 - i, 7, 0x80, &mut block).unwrap(),
                None => {
                    block.push(0x40);
                    for s in [&n, &v] {
                        encode_integer_into(s.len(), 7, 0, &mut block).unwrap();
                        block.extend_from_slice(s.as_bytes());
                    }
                    t.push((n, v));
                }
            }
        }
        let out = [
            frame(0x1, 0x4, stream, &block),
            frame(0x0, 0x1, stream, &EMPTY_MESSAGE),
        ]
        .concat();
        self.io.write_all(&out).await.unwrap();
        tokio::time::timeout(WAIT, self.answer(stream))
            .await
            .expect("an answer within a minute")
    }

    async fn answer(&mut self, stream: u32) -> Answer {
        let (mut headers, mut body) = (None, Vec::new());
        loop {
            let (ty, flags, s, p) = match self.read_frame().await {
                Ok(f) => f,
                Err(e) => return Answer::Closed(e.to_string()),
            };
            match ty {
                // SETTINGS: acknowledged; PING: answered (a closed
                // connection shows at the next read).
                0x4 if flags & 1 == 0 => {
                    let _ = self.io.write_all(&frame(0x4, 1, 0, &[])).await;
                }
                0x6 if flags & 1 == 0 => {
                    let _ = self.io.write_all(&frame(0x6, 1, 0, &p)).await;
                }
                0x7 => return Answer::Closed(format!("GOAWAY {p:?}")),
                0x3 if s == stream => {
                    return Answer::Reset(u32::from_be_bytes(p[..4].try_into().unwrap()))
                }
                0x0 if s == stream => body.extend_from_slice(&p),
                0x1 if s == stream => {
                    assert!(flags & 0x4 != 0, "small answers come in one frame");
                    let fields = self.dec.decode(&p).expect("the server's HPACK");
                    match (flags & 0x1 != 0, headers.take()) {
                        (false, None) => headers = Some(fields),
                        (true, Some(h)) => return Answer::Ok(h, body, fields),
                        // Trailers-only: an error answer.
                        (true, None) => return Answer::Ok(fields.clone(), body, fields),
                        (false, Some(_)) => panic!("two header blocks without END_STREAM"),
                    }
                }
                _ => {}
            }
        }
    }
}

fn assert_status_answer(a: Answer, what: &str) {
    if let Answer::Reset(code) = a {
        panic!("{what}: RST_STREAM error code {code} (1: PROTOCOL_ERROR, h2 refused the request)");
    }
    let Answer::Ok(headers, body, trailers) = a else {
        panic!("{what}: {a:?}");
    };
    assert_eq!(get(&headers, ":status").as_deref(), Some("200"), "{what}");
    assert_eq!(
        get(&trailers, "grpc-status").as_deref(),
        Some("0"),
        "{what}: {trailers:?}"
    );
    assert!(
        body.len() >= 5 && body[0] == 0,
        "{what}: a gRPC frame: {body:?}"
    );
    let len = u32::from_be_bytes(body[1..5].try_into().unwrap()) as usize;
    assert_eq!(body.len(), 5 + len, "{what}");
    let r = pb::GetStatusResponse::decode(&body[5..]).expect("a GetStatusResponse");
    assert_eq!(r.pinned_memory_limit_bytes, 1 << 30, "{what}: {r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_as_authority_is_answered_over_the_unix_socket() {
    let (mut h, _dir, sock) = unix_daemon().await;
    let path = sock.to_str().unwrap();
    let mut c = RawClient::connect(&sock).await;
    assert_status_answer(c.get_status(1, path).await, "first request, path authority");
    // The same fields again: all dynamic-table references.
    assert_status_answer(
        c.get_status(3, path).await,
        "second request, indexed fields",
    );
    assert_status_answer(c.get_status(5, "localhost").await, "then a valid authority");
    // A fresh connection that starts well-formed, then sends a path.
    let mut c = RawClient::connect(&sock).await;
    assert_status_answer(c.get_status(1, "localhost").await, "valid first");
    // grpcio 1.85.3's form: the path without its first `/`, escaped.
    let escaped = path.trim_start_matches('/').replace('/', "%2F");
    assert_status_answer(c.get_status(3, &escaped).await, "escaped path second");
    // The generated tonic client is unaffected.
    assert_eq!(h.status().await.pinned_memory_limit_bytes, 1 << 30);
    h.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_but_valid_authorities_are_answered_by_a_stock_h2_client() {
    let (mut h, _dir, sock) = unix_daemon().await;
    let io = UnixStream::connect(&sock).await.unwrap();
    let (send, conn) = h2::client::handshake(io).await.unwrap();
    tokio::spawn(conn);
    for authority in ["localhost:0", "x.invalid", "[::1]:1"] {
        let req = http::Request::builder()
            .method("POST")
            .uri(format!("http://{authority}{GET_STATUS}"))
            .header("content-type", "application/grpc")
            .header("te", "trailers")
            .body(())
            .unwrap();
        let mut send = send.clone().ready().await.unwrap();
        let (resp, mut tx) = send.send_request(req, false).unwrap();
        tx.send_data(bytes::Bytes::from_static(&EMPTY_MESSAGE), true)
            .unwrap();
        let resp = tokio::time::timeout(WAIT, resp).await.unwrap().unwrap();
        assert_eq!(resp.status(), 200, "{authority}");
        let mut body = resp.into_body();
        let mut data = Vec::new();
        while let Some(chunk) = body.data().await {
            let chunk = chunk.unwrap();
            let _ = body.flow_control().release_capacity(chunk.len());
            data.extend_from_slice(&chunk);
        }
        let trailers = body.trailers().await.unwrap().expect("trailers");
        assert_eq!(trailers["grpc-status"], "0", "{authority}");
        let r = pb::GetStatusResponse::decode(&data[5..]).unwrap();
        assert_eq!(r.pinned_memory_limit_bytes, 1 << 30);
    }
    h.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_frames_close_the_connection_and_the_daemon_serves_on() {
    let (mut h, _dir, sock) = unix_daemon().await;
    let mut c = RawClient::connect(&sock).await;
    // CONTINUATION with no HEADERS before it.
    c.io.write_all(&frame(0x9, 0x4, 1, &[0x82])).await.unwrap();
    let a = tokio::time::timeout(WAIT, c.answer(1)).await.unwrap();
    let Answer::Closed(why) = a else {
        panic!("the connection stays open: {a:?}");
    };
    assert!(!why.is_empty());
    let mut c = RawClient::connect(&sock).await;
    assert_status_answer(c.get_status(1, "/x.sock").await, "a new connection");
    h.shutdown().await.unwrap();
}
