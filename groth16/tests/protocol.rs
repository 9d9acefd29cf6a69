//! Parameter files, bad input and the prover's guarantees, on our own.

use cuzk_field::Fr;
use cuzk_groth16::{
    prove, prove_batch, verify_proof, verify_proofs_batch, CheckMode, CpuBackend, Groth16Error,
    Parameters, Proof, ProveOptions, ToxicWaste, VerifyingKey,
};
use cuzk_synth::circuits::{BenchCircuit, TinyCircuit};
use ff::Field;
use proptest::prelude::*;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::OnceLock;

fn tiny_params() -> &'static (Parameters, Vec<u8>) {
    static P: OnceLock<(Parameters, Vec<u8>)> = OnceLock::new();
    P.get_or_init(|| {
        let p =
            cuzk_groth16::generate_parameters(tiny(0), &ToxicWaste::from_seed(1), None).unwrap();
        let mut b = Vec::new();
        p.write(&mut b).unwrap();
        (p, b)
    })
}

#[test]
fn roundtrip_file_and_inspect() {
    let (p, bytes) = tiny_params();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.params");
    p.save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), *bytes);
    for mode in [CheckMode::Full, CheckMode::Trusted] {
        assert_eq!(Parameters::load(&path, mode).unwrap(), *p);
    }
    let info = Parameters::inspect(&path).unwrap();
    assert_eq!(
        (info.h, info.l, info.a, info.b_g1, info.b_g2),
        (p.h.len(), p.l.len(), p.a.len(), p.b_g1.len(), p.b_g2.len())
    );
    assert_eq!(info.ic, p.vk.ic.len());
    assert_eq!(info.bytes, bytes.len());
    let vk = VerifyingKey::from_bytes(&p.vk.to_bytes(), CheckMode::Full).unwrap();
    assert_eq!(vk, p.vk);
    assert_eq!(p.vk.to_bytes().len(), p.vk.encoded_len());
}

/// The load progress reports every point byte of H, L, A and B exactly
/// once (the bar reaches its end), with the file's length as the total.
#[test]
fn load_progress_counts_every_point_byte() {
    let p = cuzk_groth16::generate_parameters(
        BenchCircuit::new(12, 0).unwrap(),
        &ToxicWaste::from_seed(2),
        None,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k12.params");
    p.save(&path).unwrap();
    let file_len = std::fs::metadata(&path).unwrap().len() as usize;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let loaded = Parameters::load_with_progress(&path, CheckMode::Trusted, &|n, total| {
        assert_eq!(total, file_len);
        done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(loaded, p);
    let points = 96 * (p.h.len() + p.l.len() + p.a.len() + p.b_g1.len()) + 192 * p.b_g2.len();
    assert_eq!(done.into_inner(), points);
    // 1024 points per report: many reports for a 2^12 file, not one.
    assert!(calls.into_inner() >= points / (192 * 1024));
    // The verifying key and the five counts are all that is not reported.
    assert_eq!(file_len - points, p.vk.encoded_len() + 5 * 4);
}

#[test]
fn every_truncation_is_an_error() {
    let (_, bytes) = tiny_params();
    // Every prefix up to the end of the vk, then a spread of later cut points.
    let cuts: Vec<usize> = (0..900)
        .chain((900..bytes.len()).step_by(37))
        .chain([bytes.len() - 1])
        .collect();
    for cut in cuts {
        let e = Parameters::from_bytes(&bytes[..cut], CheckMode::Trusted).unwrap_err();
        assert!(
            matches!(e, Groth16Error::Truncated { .. }),
            "cut {cut}: {e}"
        );
        assert!(
            Parameters::inspect_bytes(&bytes[..cut]).is_err(),
            "inspect at cut {cut}"
        );
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        Parameters::from_bytes(&long, CheckMode::Trusted),
        Err(Groth16Error::TrailingBytes { .. })
    ));
}

#[test]
fn corrupt_points_are_rejected() {
    let (_, bytes) = tiny_params();
    let vk_len = 3 * 96 + 3 * 192;
    let h_start = vk_len + 4 + tiny_params().0.vk.ic.len() * 96 + 4;
    // A flipped bit in a coordinate moves the point off the curve.
    for off in [5usize, 96 + 40, 300, h_start + 50] {
        let mut b = bytes.clone();
        b[off] ^= 0x10;
        let e = Parameters::from_bytes(&b, CheckMode::Full).unwrap_err();
        assert!(
            matches!(e, Groth16Error::BadPoint { .. }),
            "offset {off}: {e}"
        );
    }
    // The infinity flag on an H point is refused even in trusted mode.
    let mut b = bytes.clone();
    b[h_start] = 0x40;
    b[h_start + 1..h_start + 96].fill(0);
    assert!(matches!(
        Parameters::from_bytes(&b, CheckMode::Trusted),
        Err(Groth16Error::BadPoint {
            reason: "point at infinity",
            ..
        })
    ));
    // A count that claims more points than the file holds.
    let mut b = bytes.clone();
    b[h_start - 4..h_start].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(matches!(
        Parameters::from_bytes(&b, CheckMode::Trusted),
        Err(Groth16Error::Truncated { .. })
    ));
}

#[test]
fn trusted_mode_corruption_never_yields_a_proof() {
    // Replace one L point by another valid curve point: decodes fine in either
    // mode, but the proof is wrong, and the self-check must refuse it.
    let (p, _) = tiny_params();
    let mut bad = p.clone();
    bad.l[0] = bad.l[bad.l.len() - 1];
    if bad.l.len() > 1 {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let e = prove(
            &bad,
            tiny(3),
            &CpuBackend,
            &mut rng,
            ProveOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e, Groth16Error::SelfCheck { .. }), "{e}");
    }
}

#[test]
fn circuit_params_mismatch_is_a_clear_error() {
    let (tiny, _) = tiny_params();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let e = prove(
        tiny,
        BenchCircuit::new(10, 1).unwrap(),
        &CpuBackend,
        &mut rng,
        ProveOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, Groth16Error::Mismatch(_)), "{e}");
    assert!(e.to_string().contains("parameters"), "{e}");
}

#[test]
fn batch_prove_and_batch_verify() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let params = cuzk_groth16::generate_parameters(
        BenchCircuit::new(10, 0).unwrap(),
        &ToxicWaste::from_seed(2),
        None,
    )
    .unwrap();
    let circuits: Vec<_> = (0..3)
        .map(|i| BenchCircuit::new(10, 100 + i).unwrap())
        .collect();
    let outs = prove_batch(
        &params,
        circuits,
        &CpuBackend,
        &mut rng,
        ProveOptions::default(),
    )
    .unwrap();
    let pvk = params.vk.prepare();
    let proofs: Vec<Proof> = outs.iter().map(|o| o.proof).collect();
    let inputs: Vec<Vec<Fr>> = outs.iter().map(|o| o.inputs.clone()).collect();
    for (i, o) in outs.iter().enumerate() {
        assert_eq!(
            o.inputs,
            BenchCircuit::new(10, 100 + i as u64)
                .unwrap()
                .public_inputs()
        );
        assert!(verify_proof(&pvk, &o.proof, &o.inputs).unwrap());
    }
    assert!(verify_proofs_batch(&pvk, &proofs, &inputs, &mut rng).unwrap());
    // One bad proof in the batch spoils it.
    let mut swapped = proofs.clone();
    swapped.swap(0, 1);
    assert!(!verify_proofs_batch(&pvk, &swapped, &inputs, &mut rng).unwrap());
    // Serialization of many.
    let bytes = Proof::many_to_bytes(&proofs);
    assert_eq!(Proof::many_from_bytes(&bytes).unwrap(), proofs);
    assert!(Proof::many_from_bytes(&bytes[..bytes.len() - 1]).is_err());
    assert!(Proof::many_from_bytes(&[]).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]
    /// Random witnesses of the tiny circuit always give verifying proofs, and
    /// proofs are randomised (two proofs of one witness differ).
    #[test]
    fn random_witnesses_verify(seed in any::<u64>()) {
        let (p, _) = tiny_params();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let a = prove(p, tiny(seed), &CpuBackend, &mut rng, ProveOptions::default()).unwrap();
        let b = prove(p, tiny(seed), &CpuBackend, &mut rng, ProveOptions::default()).unwrap();
        prop_assert_eq!(&a.inputs, &b.inputs);
        prop_assert_ne!(a.proof, b.proof);
        prop_assert!(verify_proof(&p.vk.prepare(), &a.proof, &a.inputs).unwrap());
    }
}

/// The tiny circuit with a witness drawn from `seed` (chain of 6 products).
fn tiny(seed: u64) -> TinyCircuit {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    TinyCircuit {
        x: Fr::random(&mut rng),
        y: Fr::random(&mut rng),
        chain: 6,
    }
}
