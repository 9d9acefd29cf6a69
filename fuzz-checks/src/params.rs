//! `.params` bytes: header, counts and the five point sections, in both
//! check modes. Invariants: no panic, no allocation beyond what the input's
//! length allows (the counts are checked against the bytes first), and a
//! file that loads re-encodes to exactly its bytes (one encoding per point)
//! and agrees with the header-only `inspect_bytes`.
use cuzk_groth16::{CheckMode, Parameters};

/// The target's invariants on one input; panics where one fails.
pub fn check(data: &[u8]) {
    let info = Parameters::inspect_bytes(data);
    // The full check costs a subgroup check per point: keep it to inputs a
    // few hundred points long so the fuzzer stays fast.
    let modes: &[CheckMode] = if data.len() <= 64 << 10 {
        &[CheckMode::Trusted, CheckMode::Full]
    } else {
        &[CheckMode::Trusted]
    };
    for &mode in modes {
        if let Ok(p) = Parameters::from_bytes(data, mode) {
            let mut again = Vec::new();
            p.write(&mut again).expect("write to a Vec");
            assert_eq!(
                again, data,
                "{mode:?}: loaded parameters re-encode differently"
            );
            let info = info.as_ref().expect("loads but inspect fails");
            assert_eq!(
                (info.ic, info.h, info.l, info.a, info.b_g1, info.b_g2),
                (
                    p.vk.ic.len(),
                    p.h.len(),
                    p.l.len(),
                    p.a.len(),
                    p.b_g1.len(),
                    p.b_g2.len()
                )
            );
        }
    }
}
