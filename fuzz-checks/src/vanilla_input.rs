//! The input form the `vanilla_post` and `vanilla_snap` checks share: the
//! first byte picks the registered proof type (its low 7 bits) and the form
//! of the rest (its top bit): length-prefixed raw proofs (u32 little-endian
//! lengths; a short tail ends the list), or Curio's JSON array of base64
//! strings through `post::parse_vanilla_json`.

/// The proof-type selector and the vanilla proofs of `data`; `None` for
/// an empty input or JSON that does not parse.
pub fn decode(data: &[u8]) -> Option<(u64, Vec<Vec<u8>>)> {
    let (sel, body) = data.split_first()?;
    let proofs = if sel & 0x80 != 0 {
        cuzk_filecoin::post::parse_vanilla_json(body).ok()?
    } else {
        split(body)
    };
    Some((u64::from(sel & 0x7f), proofs))
}

fn split(mut b: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while b.len() >= 4 {
        let n = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        b = &b[4..];
        let n = n.min(b.len());
        out.push(b[..n].to_vec());
        b = &b[n..];
    }
    out
}

/// 64 hex digits as 32 bytes.
pub fn hex32(s: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, r) in out.iter_mut().enumerate() {
        *r = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}
