//! Verification: e(A, B) = e(α, β) · e(Σ inputsᵢ·ICᵢ, γ) · e(C, δ), checked
//! as one multi-Miller loop and one final exponentiation.

use crate::error::{Groth16Error, Result};
use crate::proof::Proof;
use crate::vk::PreparedVerifyingKey;
use cuzk_field::{Bls12, Fr, G1Affine, G1Projective, G2Prepared, Gt};
use ff::Field;
use group::{Curve, Group};
use pairing::{MillerLoopResult, MultiMillerLoop};
use rand_core::RngCore;

fn input_accumulator(pvk: &PreparedVerifyingKey, inputs: &[Fr]) -> Result<G1Projective> {
    if inputs.len() + 1 != pvk.ic.len() {
        return Err(Groth16Error::InputCount {
            expected: pvk.ic.len() - 1,
            got: inputs.len(),
        });
    }
    let mut acc = G1Projective::from(pvk.ic[0]);
    for (x, base) in inputs.iter().zip(&pvk.ic[1..]) {
        acc += *base * x;
    }
    Ok(acc)
}

/// Verifies one proof. `Ok(false)` is a proof that does not verify; `Err`
/// means the call itself is wrong (e.g. the number of inputs).
pub fn verify_proof(pvk: &PreparedVerifyingKey, proof: &Proof, inputs: &[Fr]) -> Result<bool> {
    let acc = input_accumulator(pvk, inputs)?.to_affine();
    let b = G2Prepared::from(proof.b);
    let ml = Bls12::multi_miller_loop(&[
        (&proof.a, &b),
        (&acc, &pvk.neg_gamma_g2),
        (&proof.c, &pvk.neg_delta_g2),
    ]);
    Ok(ml.final_exponentiation() == pvk.alpha_g1_beta_g2)
}

/// Verifies many proofs against one key with a random linear combination
/// (one final exponentiation in all). Accepts only if every proof verifies,
/// except with probability ~2⁻¹²⁸ over the verifier's randomness.
pub fn verify_proofs_batch(
    pvk: &PreparedVerifyingKey,
    proofs: &[Proof],
    inputs: &[Vec<Fr>],
    rng: &mut impl RngCore,
) -> Result<bool> {
    if proofs.len() != inputs.len() {
        return Err(Groth16Error::Mismatch(format!(
            "{} proofs but {} input vectors",
            proofs.len(),
            inputs.len()
        )));
    }
    if proofs.is_empty() {
        return Ok(true);
    }
    let mut acc_inputs = G1Projective::identity();
    let mut acc_c = G1Projective::identity();
    let mut scaled_a = Vec::with_capacity(proofs.len());
    let mut preps = Vec::with_capacity(proofs.len());
    let mut sum_r = Fr::ZERO;
    for (proof, inp) in proofs.iter().zip(inputs) {
        let r = Fr::random(&mut *rng);
        sum_r += r;
        acc_inputs += input_accumulator(pvk, inp)? * r;
        acc_c += proof.c * r;
        scaled_a.push((proof.a * r).to_affine());
        preps.push(G2Prepared::from(proof.b));
    }
    let acc_inputs: G1Affine = acc_inputs.to_affine();
    let acc_c: G1Affine = acc_c.to_affine();
    let mut terms: Vec<(&G1Affine, &G2Prepared)> = scaled_a.iter().zip(preps.iter()).collect();
    terms.push((&acc_inputs, &pvk.neg_gamma_g2));
    terms.push((&acc_c, &pvk.neg_delta_g2));
    let lhs = Bls12::multi_miller_loop(&terms).final_exponentiation();
    let rhs: Gt = pvk.alpha_g1_beta_g2 * sum_r;
    Ok(lhs == rhs)
}
