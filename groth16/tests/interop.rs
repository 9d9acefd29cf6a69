//! Interoperability with bellperson 0.26, the prover Filecoin ships:
//! parameters, proofs and verification in both directions, byte for byte.

use bellperson::groth16 as bp;
use blstrs::Bls12;
use cuzk_field::Fr;
use cuzk_groth16::{
    prove, prove_assignment, verify_proof, CheckMode, CpuBackend, Parameters, Proof, ProveOptions,
    ToxicWaste,
};
use cuzk_synth::circuits::{BenchCircuit, TinyCircuit};
use ff::Field;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn bp_params_bytes(p: &bp::Parameters<Bls12>) -> Vec<u8> {
    let mut v = Vec::new();
    p.write(&mut v).unwrap();
    v
}

fn to_bp_proof(p: &Proof) -> bp::Proof<Bls12> {
    bp::Proof::read(&p.to_bytes()[..]).unwrap()
}

fn from_bp_proof(p: &bp::Proof<Bls12>) -> Proof {
    let mut v = Vec::new();
    p.write(&mut v).unwrap();
    Proof::from_bytes(&v).unwrap()
}

/// (a) bellperson makes and writes parameters; we read them byte-exactly,
/// prove, and bellperson's verifier accepts our proof.
#[test]
fn bellperson_params_our_proof() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let bp_params =
        bp::generate_random_parameters::<Bls12, _, _>(BenchCircuit::new(11, 5).unwrap(), &mut rng)
            .unwrap();
    let bytes = bp_params_bytes(&bp_params);
    let ours = Parameters::from_bytes(&bytes, CheckMode::Full).unwrap();
    // Writing back gives the very same bytes.
    let mut again = Vec::new();
    ours.write(&mut again).unwrap();
    assert_eq!(
        again, bytes,
        "round trip of bellperson's .params is not byte-exact"
    );

    let out = prove(
        &ours,
        BenchCircuit::new(11, 77).unwrap(),
        &CpuBackend,
        &mut rng,
        ProveOptions::default(),
    )
    .unwrap();
    let pvk = bp::prepare_verifying_key(&bp_params.vk);
    assert!(bp::verify_proof(&pvk, &to_bp_proof(&out.proof), &out.inputs).unwrap());
    // Wrong inputs are rejected by bellperson too.
    let mut bad = out.inputs.clone();
    bad[0] += Fr::ONE;
    assert!(!bp::verify_proof(&pvk, &to_bp_proof(&out.proof), &bad).unwrap());
}

/// (b) we make and write parameters; bellperson reads them (with its full
/// checks), proves, and our verifier accepts its proof.
#[test]
fn our_params_bellperson_proof() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let ours = cuzk_groth16::generate_parameters(
        BenchCircuit::new(11, 0).unwrap(),
        &ToxicWaste::from_seed(3),
        None,
    )
    .unwrap();
    let mut bytes = Vec::new();
    ours.write(&mut bytes).unwrap();
    let bp_params = bp::Parameters::<Bls12>::read(&bytes[..], true).unwrap();
    assert_eq!(bp_params_bytes(&bp_params), bytes);

    let circuit = BenchCircuit::new(11, 99).unwrap();
    let inputs = circuit.public_inputs();
    let bp_proof = bp::create_random_proof(circuit, &bp_params, &mut rng).unwrap();
    let pvk = ours.vk.prepare();
    assert!(verify_proof(&pvk, &from_bp_proof(&bp_proof), &inputs).unwrap());
    let bp_pvk = bp::prepare_verifying_key(&bp_params.vk);
    assert!(bp::verify_proof(&bp_pvk, &bp_proof, &inputs).unwrap());
}

/// Same circuit, same parameters, same r and s: bellperson and cuzk must
/// produce the very same proof bytes. This pins synthesis (a, b, c, the
/// densities, the input constraints), the H step and every MSM.
#[test]
fn identical_proofs_for_fixed_randomness() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for (k, seed) in [(10u32, 1u64), (12, 2)] {
        let params = cuzk_groth16::generate_parameters(
            BenchCircuit::new(k, 0).unwrap(),
            &ToxicWaste::from_seed(k as u64),
            None,
        )
        .unwrap();
        let mut bytes = Vec::new();
        params.write(&mut bytes).unwrap();
        let bp_params = bp::Parameters::<Bls12>::read(&bytes[..], false).unwrap();
        let (r, s) = (Fr::random(&mut rng), Fr::random(&mut rng));
        let bp_proof =
            bp::create_proof(BenchCircuit::new(k, seed).unwrap(), &bp_params, r, s).unwrap();
        let pa = cuzk_synth::synthesize(BenchCircuit::new(k, seed).unwrap()).unwrap();
        let ours =
            prove_assignment(&params, Some(&params.vk.prepare()), pa, r, s, &CpuBackend).unwrap();
        assert_eq!(from_bp_proof(&bp_proof), ours.proof, "k = {k}");
        let mut bp_bytes = Vec::new();
        bp_proof.write(&mut bp_bytes).unwrap();
        assert_eq!(bp_bytes, ours.proof.to_bytes().to_vec());
    }
    // The tiny circuit too (few inputs, a variable only in C, etc.).
    let params =
        cuzk_groth16::generate_parameters(tiny(0), &ToxicWaste::from_seed(9), None).unwrap();
    let mut bytes = Vec::new();
    params.write(&mut bytes).unwrap();
    let bp_params = bp::Parameters::<Bls12>::read(&bytes[..], true).unwrap();
    let (r, s) = (Fr::random(&mut rng), Fr::random(&mut rng));
    let bp_proof = bp::create_proof(tiny(4), &bp_params, r, s).unwrap();
    let pa = cuzk_synth::synthesize(tiny(4)).unwrap();
    let ours = prove_assignment(&params, None, pa, r, s, &CpuBackend).unwrap();
    assert_eq!(from_bp_proof(&bp_proof), ours.proof);
}

/// (c) tampered proofs and wrong inputs are rejected by both verifiers.
#[test]
fn tampering_is_rejected_by_both() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let params =
        cuzk_groth16::generate_parameters(tiny(0), &ToxicWaste::from_seed(5), None).unwrap();
    let out = prove(
        &params,
        tiny(8),
        &CpuBackend,
        &mut rng,
        ProveOptions::default(),
    )
    .unwrap();
    let pvk = params.vk.prepare();
    let mut bytes = Vec::new();
    params.vk.write(&mut bytes).unwrap();
    let bp_vk = bp::VerifyingKey::<Bls12>::read(&bytes[..]).unwrap();
    let bp_pvk = bp::prepare_verifying_key(&bp_vk);
    assert!(verify_proof(&pvk, &out.proof, &out.inputs).unwrap());
    assert!(bp::verify_proof(&bp_pvk, &to_bp_proof(&out.proof), &out.inputs).unwrap());

    // Swap in another valid point for each of A, B, C.
    let other = prove(
        &params,
        tiny(9),
        &CpuBackend,
        &mut rng,
        ProveOptions::default(),
    )
    .unwrap();
    for which in 0..3 {
        let mut p = out.proof;
        match which {
            0 => p.a = other.proof.a,
            1 => p.b = other.proof.b,
            _ => p.c = other.proof.c,
        }
        assert!(
            !verify_proof(&pvk, &p, &out.inputs).unwrap(),
            "tampered part {which}"
        );
        assert!(!bp::verify_proof(&bp_pvk, &to_bp_proof(&p), &out.inputs).unwrap());
    }
    // Wrong public inputs.
    let mut x = out.inputs.clone();
    *x.last_mut().unwrap() += Fr::ONE;
    assert!(!verify_proof(&pvk, &out.proof, &x).unwrap());
    assert!(!bp::verify_proof(&bp_pvk, &to_bp_proof(&out.proof), &x).unwrap());
    // Wrong number of inputs is an error, not a "false".
    assert!(verify_proof(&pvk, &out.proof, &x[1..]).is_err());
    // Flipped bytes: either undecodable or not verifying — never accepted.
    let good = out.proof.to_bytes();
    for pos in [0usize, 10, 47, 48, 100, 143, 144, 191] {
        let mut b = good;
        b[pos] ^= 0x04;
        if let Ok(p) = Proof::from_bytes(&b) {
            assert!(
                !verify_proof(&pvk, &p, &out.inputs).unwrap(),
                "flip at {pos} accepted"
            );
        }
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
