//! The crate's only `unsafe`: mapping a parameter file read-only.

/// Maps `f` read-only.
#[allow(unsafe_code)]
pub(crate) fn map_readonly(f: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: memmap2 marks mapping unsafe because another process may change
    // the file while it is mapped. We only read the bytes and decode them with
    // full validation of the structure (lengths, encodings), so a file changed
    // underneath us gives a decoding error or bad points that the prover's
    // self-check rejects; no reference into the map outlives the decode.
    unsafe { memmap2::Mmap::map(f) }
}
