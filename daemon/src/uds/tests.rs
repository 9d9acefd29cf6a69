//! The fix on handcrafted byte sequences: what the server reads is decoded
//! with a decoder that persists across blocks, as h2's does.

use super::*;
use loona_hpack::Encoder;

type Fields = Vec<(Vec<u8>, Vec<u8>)>;

const SETTINGS: u8 = 0x4;
const DATA: u8 = 0x0;

fn frame(ty: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    frame_head(&mut f, payload.len(), ty, flags, stream);
    f.extend_from_slice(payload);
    f
}

fn request(authority: &str) -> Fields {
    [
        (":method", "POST"),
        (":scheme", "http"),
        (":path", "/cuzk.v1.ProvingEngine/GetStatus"),
        (":authority", authority),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    ]
    .iter()
    .map(|(n, v)| (n.as_bytes().to_vec(), v.as_bytes().to_vec()))
    .collect()
}

fn encode(enc: &mut Encoder<'_>, fields: &Fields) -> Vec<u8> {
    enc.encode(fields.iter().map(|(n, v)| (&n[..], &v[..])))
}

/// As grpc core encodes: each field a reference to the dynamic table when
/// it is there, else a literal added to it (`table`: the client's entries,
/// newest last).
fn indexing(table: &mut Fields, fields: &Fields) -> Vec<u8> {
    let mut b = Vec::new();
    for f in fields {
        match table.iter().position(|e| e == f) {
            Some(i) => encode_integer_into(62 + table.len() - 1 - i, 7, 0x80, &mut b).unwrap(),
            None => {
                b.push(0x40);
                for s in [&f.0, &f.1] {
                    encode_integer_into(s.len(), 7, 0, &mut b).unwrap();
                    b.extend_from_slice(s);
                }
                table.push(f.clone());
            }
        }
    }
    b
}

fn with_localhost(mut fields: Fields) -> Fields {
    for (n, v) in &mut fields {
        if bad_authority(n, v) {
            *v = REPLACEMENT.to_vec();
        }
    }
    fields
}

/// Feeds `input` whole and byte by byte; both must give the same bytes.
fn run(input: &[u8]) -> Result<(Vec<u8>, bool), FixError> {
    let (mut whole, mut bytes) = (Fixer::new(), Fixer::new());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let ra = whole.feed(input, &mut a);
    let rb = input.iter().try_for_each(|x| bytes.feed(&[*x], &mut b));
    assert_eq!(ra, rb);
    ra?;
    assert_eq!(a, b, "output depends on how the input was cut");
    assert_eq!(whole.rewriting(), bytes.rewriting());
    Ok((a, whole.rewriting()))
}

fn run_ok(frames: &[Vec<u8>]) -> (Vec<u8>, bool) {
    let input = [&PREFACE[..], &frames.concat()].concat();
    let (out, rewriting) = run(&input).expect("accepted");
    assert_eq!(out[..24], PREFACE[..]);
    (out[24..].to_vec(), rewriting)
}

/// (type, flags, stream, payload) of each frame.
fn split(mut b: &[u8]) -> Vec<(u8, u8, u32, Vec<u8>)> {
    let mut v = Vec::new();
    while !b.is_empty() {
        let len = usize::from(b[0]) << 16 | usize::from(b[1]) << 8 | usize::from(b[2]);
        let stream = u32::from_be_bytes([b[5], b[6], b[7], b[8]]);
        v.push((b[3], b[4], stream, b[9..9 + len].to_vec()));
        b = &b[9 + len..];
    }
    v
}

/// Header blocks as the server reads them (one decoder for the connection),
/// checking that each rewritten block also decodes on its own (no
/// dynamic-table references).
fn server_blocks(frames: &[(u8, u8, u32, Vec<u8>)], rewritten: bool) -> Vec<(u32, Fields)> {
    let mut dec = Decoder::new();
    let (mut blocks, mut cur) = (Vec::new(), None::<(u32, Vec<u8>)>);
    for (ty, flags, stream, p) in frames {
        let frag = match *ty {
            HEADERS => {
                assert!(cur.is_none());
                assert_eq!(flags & PADDED, 0, "padding is dropped");
                cur = Some((*stream, Vec::new()));
                &p[if flags & PRIORITY != 0 { 5 } else { 0 }..]
            }
            CONTINUATION => &p[..],
            _ => continue,
        };
        assert!(p.len() <= MAX_FRAME);
        let (s, block) = cur.as_mut().expect("CONTINUATION after HEADERS");
        assert_eq!(s, stream);
        block.extend_from_slice(frag);
        if flags & END_HEADERS != 0 {
            let (s, block) = cur.take().unwrap();
            let fields = dec.decode(&block).expect("the server decodes it");
            if rewritten {
                assert_eq!(Decoder::new().decode(&block).unwrap(), fields);
            }
            blocks.push((s, fields));
        }
    }
    blocks
}

#[test]
fn path_authority_becomes_localhost_and_later_blocks_stay_decodable() {
    let mut table = Vec::new();
    let (bad, good) = (request("/run/x.sock"), request("localhost:1"));
    // The second block is all dynamic-table references to the first, the
    // third all but its authority.
    let b1 = indexing(&mut table, &bad);
    let b2 = indexing(&mut table, &bad);
    let b3 = indexing(&mut table, &good);
    assert_eq!(b2, [0xc3, 0xc2, 0xc1, 0xc0, 0xbf, 0xbe]);
    let settings = frame(SETTINGS, 0, 0, &[0, 4, 0, 0, 0xff, 0xff]);
    let data = frame(DATA, END_STREAM, 1, &[0, 0, 0, 0, 0]);
    let (out, rewriting) = run_ok(&[
        settings.clone(),
        frame(HEADERS, END_HEADERS, 1, &b1),
        data.clone(),
        frame(HEADERS, END_HEADERS | END_STREAM, 3, &b2),
        frame(HEADERS, END_HEADERS, 5, &b3),
    ]);
    assert!(rewriting);
    assert_eq!(
        out[..settings.len()],
        settings[..],
        "SETTINGS byte for byte"
    );
    let frames = split(&out);
    assert_eq!(frames.len(), 5);
    assert_eq!(
        frame(frames[2].0, frames[2].1, frames[2].2, &frames[2].3),
        data
    );
    assert_eq!(
        (frames[1].1, frames[3].1),
        (END_HEADERS, END_HEADERS | END_STREAM)
    );
    let blocks = server_blocks(&frames, true);
    let localhost = with_localhost(bad.clone());
    assert_eq!(localhost[3].1, b"localhost");
    assert_eq!(
        blocks,
        vec![(1, localhost.clone()), (3, localhost), (5, good)]
    );
}

#[test]
fn valid_authorities_pass_byte_for_byte() {
    for a in [
        "localhost",
        "localhost:0",
        "x.invalid",
        "[::1]:50051",
        "127.0.0.1:9820",
    ] {
        let mut enc = Encoder::new();
        let block = encode(&mut enc, &request(a));
        let frames = [frame(HEADERS, END_HEADERS, 1, &block)];
        assert_eq!(run_ok(&frames), (frames.concat(), false), "{a}");
    }
    // RFC 7541 C.4.1: Huffman-coded `:authority: www.example.com`.
    let rfc = [
        0x82, 0x86, 0x84, 0x41, 0x8c, 0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90,
        0xf4, 0xff,
    ];
    let frames = [frame(HEADERS, END_HEADERS | END_STREAM, 1, &rfc)];
    let (out, rewriting) = run_ok(&frames);
    assert_eq!((out, rewriting), (frames.concat(), false));
}

#[test]
fn continuation_frames_are_reassembled() {
    for (authority, rewritten) in [
        ("/run/curio/cuzk.sock", true),
        // What grpcio 1.85.3 sends for unix:///run/curio/cuzk.sock.
        ("run%2Fcurio%2Fcuzk.sock", true),
        ("localhost", false),
    ] {
        let block = encode(&mut Encoder::new(), &request(authority));
        let (a, rest) = block.split_at(10);
        let (b, c) = rest.split_at(20);
        let ping = frame(0x6, 0, 0, b"12345678");
        let sent = [
            frame(HEADERS, END_STREAM, 7, a),
            frame(CONTINUATION, 0, 7, b),
            frame(CONTINUATION, END_HEADERS, 7, c),
            ping.clone(),
        ];
        let (out, rewriting) = run_ok(&sent);
        assert_eq!(rewriting, rewritten);
        if !rewritten {
            assert_eq!(out, sent.concat(), "frames as received");
            continue;
        }
        let frames = split(&out);
        assert_eq!(frames.len(), 2, "one HEADERS, then the PING");
        assert_eq!(
            (frames[0].0, frames[0].1),
            (HEADERS, END_STREAM | END_HEADERS)
        );
        assert!(out.ends_with(&ping));
        let want = with_localhost(request(authority));
        assert_eq!(server_blocks(&frames, true), vec![(7, want)]);
    }
}

#[test]
fn padding_is_dropped_and_priority_kept() {
    let block = encode(&mut Encoder::new(), &request("/tmp/s"));
    let pri = [0x80, 0, 0, 3, 15];
    let payload = [&[7u8][..], &pri, &block, &[0; 7]].concat();
    let flags = PADDED | PRIORITY | END_HEADERS | END_STREAM;
    let (out, _) = run_ok(&[frame(HEADERS, flags, 5, &payload)]);
    let frames = split(&out);
    assert_eq!(frames[0].1, PRIORITY | END_HEADERS | END_STREAM);
    assert_eq!(frames[0].3[..5], pri);
    let want = with_localhost(request("/tmp/s"));
    assert_eq!(server_blocks(&frames, true), vec![(5, want)]);
}

#[test]
fn other_frames_pass_byte_for_byte() {
    let big: Vec<u8> = (0..40_000u32).map(|i| i as u8).collect();
    let frames = [
        frame(SETTINGS, 0, 0, &[0, 2, 0, 0, 0, 0]),
        frame(SETTINGS, 1, 0, &[]),
        frame(0x8, 0, 0, &[0, 1, 0, 0]),
        frame(0x6, 0, 0, b"pingping"),
        frame(DATA, 0, 1, &big),
        frame(DATA, PADDED | END_STREAM, 1, &[3, 1, 2, 0, 0, 0]),
        frame(0x3, 0, 1, &[0, 0, 0, 8]),
        frame(0xfa, 0xff, 9, b"unknown"),
        frame(0x7, 0, 0, &[0, 0, 0, 0, 0, 0, 0, 0]),
    ];
    assert_eq!(run_ok(&frames), (frames.concat(), false));
}

#[test]
fn large_rewritten_blocks_are_cut_into_continuations() {
    let mut fields = request("/run/x.sock");
    fields.push((b"x-big".to_vec(), vec![b'v'; 40_000]));
    let block = encode(&mut Encoder::new(), &fields);
    let sent: Vec<_> = block
        .chunks(10_000)
        .enumerate()
        .map(|(i, c)| {
            let last = (i + 1) * 10_000 >= block.len();
            let (ty, flags) = if i == 0 {
                (HEADERS, 0)
            } else {
                (CONTINUATION, 0)
            };
            frame(ty, flags | if last { END_HEADERS } else { 0 }, 1, c)
        })
        .collect();
    let (out, rewriting) = run_ok(&sent);
    assert!(rewriting);
    let frames = split(&out);
    assert_eq!(frames.len(), 3);
    assert_eq!(frames[0].3.len(), MAX_FRAME);
    assert_eq!([frames[1].1, frames[2].1], [0, END_HEADERS]);
    assert_eq!(
        server_blocks(&frames, true),
        vec![(1, with_localhost(fields))]
    );
}

#[test]
fn malformed_input_closes_the_connection_with_a_reason() {
    let block = encode(&mut Encoder::new(), &request("/run/x.sock"));
    let filler = vec![0u8; MAX_FRAME];
    let mut oversized = vec![frame(HEADERS, 0, 1, &filler)];
    oversized.extend((0..64).map(|_| frame(CONTINUATION, 0, 1, &filler)));
    // A 4000-byte entry, then 300 references to it: 1.2 MB decoded.
    let mut bomb = vec![0x40, 1, b'x', 0x7f, 0xa1, 0x1e];
    bomb.extend(vec![b'v'; 4000]);
    let cases: [(&str, Vec<Vec<u8>>); 9] = [
        ("over 1048576 bytes", oversized),
        (
            "CONTINUATION without HEADERS",
            vec![frame(CONTINUATION, END_HEADERS, 1, &block)],
        ),
        (
            "inside the header block",
            vec![frame(HEADERS, 0, 1, &block), frame(DATA, 0, 1, b"x")],
        ),
        (
            "inside the header block",
            vec![
                frame(HEADERS, 0, 1, &block),
                frame(CONTINUATION, END_HEADERS, 3, &[]),
            ],
        ),
        (
            "HPACK error",
            vec![frame(HEADERS, END_HEADERS, 1, &[0xff, 0x7f])],
        ),
        (
            "HEADERS on stream 0",
            vec![frame(HEADERS, END_HEADERS, 0, &block)],
        ),
        (
            "too short",
            vec![frame(HEADERS, END_HEADERS | PADDED, 1, &[9, 0x82])],
        ),
        // A dynamic table larger than the server allows (65535 > 4096).
        (
            "HPACK error",
            vec![frame(
                HEADERS,
                END_HEADERS,
                1,
                &[0x3f, 0xe0, 0xff, 0x03, 0x82],
            )],
        ),
        (
            "decode to over",
            vec![
                frame(HEADERS, END_HEADERS, 1, &bomb),
                frame(HEADERS, END_HEADERS, 3, &[0xbe; 300]),
            ],
        ),
    ];
    for (why, frames) in cases {
        let input = [&PREFACE[..], &frames.concat()].concat();
        let e = run(&input).expect_err(why);
        assert!(e.0.contains(why), "{why}: {e}");
    }
}

#[test]
fn a_connection_that_is_not_http2_passes_untouched() {
    let input = b"GET / HTTP/1.1\r\nHost: /run/x.sock\r\n\r\n";
    assert_eq!(run(input).unwrap(), (input.to_vec(), false));
}

#[tokio::test]
async fn the_stream_wrapper_fixes_reads_and_passes_writes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let block = encode(&mut Encoder::new(), &request("/run/x.sock"));
    let input = [&PREFACE[..], &frame(HEADERS, END_HEADERS, 1, &block)].concat();
    let mut want = Vec::new();
    Fixer::new().feed(&input, &mut want).unwrap();
    let (mut client, server) = tokio::io::duplex(7);
    let mut fixed = AuthorityFix::new(server);
    let writer = tokio::spawn(async move {
        client.write_all(&input).await.unwrap();
        client.shutdown().await.unwrap();
        let mut back = [0u8; 5];
        client.read_exact(&mut back).await.unwrap();
        back
    });
    let mut got = Vec::new();
    fixed.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, want);
    fixed.write_all(b"hello").await.unwrap();
    assert_eq!(&writer.await.unwrap(), b"hello");

    let (mut client, server) = tokio::io::duplex(64);
    let mut fixed = AuthorityFix::new(server);
    client.write_all(PREFACE).await.unwrap();
    client
        .write_all(&frame(CONTINUATION, 0, 1, &[]))
        .await
        .unwrap();
    let mut got = Vec::new();
    let e = fixed.read_to_end(&mut got).await.unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    assert_eq!(got, PREFACE, "what was fixed before the error");
}
