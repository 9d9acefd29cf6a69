//! GIPA for TIPP and MIPP together: log₂ n rounds, each committing to the
//! cross terms of the two halves, drawing a challenge from them and folding
//! every vector (proof elements, r, both commitment keys) to half its size.

use bellperson::groth16::aggregate::{AggregateVersion, GipaProof};
use cuzk_field::{Bls12, Curve, Field, Fr, G1Affine, G1Projective, G2Affine, Gt, PrimeCurveAffine};
use rayon::prelude::*;

use crate::transcript::Transcript;
use crate::SnarkpackError;
use cuzk_pairing::{Pairing, Term};

/// GIPA's output: the proof part and the round challenges (in round
/// order), plus the challenge that links the rounds to the KZG openings.
pub(crate) struct Gipa {
    pub proof: GipaProof<Bls12>,
    pub challenges: Vec<Fr>,
    pub challenges_inv: Vec<Fr>,
    pub extra: Fr,
}

/// The inputs of the recursion: A, B·r, C, r and the keys v and w·r⁻¹.
pub(crate) struct Inputs<'a> {
    pub a: &'a [G1Affine],
    pub b: Vec<G2Affine>,
    pub c: &'a [G1Affine],
    pub r: Vec<Fr>,
    pub v: (Vec<G2Affine>, Vec<G2Affine>),
    pub w: (Vec<G1Affine>, Vec<G1Affine>),
    pub ip_ab: Gt,
    pub agg_c: G1Projective,
    pub hcom: Fr,
}

/// v ← v_left + v_right·s, halving v.
fn fold<C>(v: &mut Vec<C>, s: &Fr)
where
    C: PrimeCurveAffine<Scalar = Fr> + Send + Sync,
    C::Curve: Send + Sync,
{
    let half = v.len() / 2;
    let (l, r) = v.split_at(half);
    let sums: Vec<C::Curve> = l
        .par_iter()
        .zip(r.par_iter())
        .map(|(l, r)| r.to_curve() * s + l)
        .collect();
    let mut out = vec![C::identity(); half];
    C::Curve::batch_normalize(&sums, &mut out);
    *v = out;
}

fn fold_fr(v: &mut Vec<Fr>, s: &Fr) {
    let half = v.len() / 2;
    let (l, r) = v.split_at_mut(half);
    l.par_iter_mut()
        .zip(r.par_iter())
        .for_each(|(l, r)| *l += *r * s);
    v.truncate(half);
}

pub(crate) fn prove(
    pairing: &Pairing,
    inp: Inputs<'_>,
    version: AggregateVersion,
) -> Result<Gipa, SnarkpackError> {
    let nproofs = u32::try_from(inp.a.len()).map_err(|_| SnarkpackError::Count(inp.a.len()))?;
    let Inputs {
        a,
        mut b,
        c,
        mut r,
        mut v,
        mut w,
        ip_ab,
        agg_c,
        hcom,
    } = inp;
    let (mut a, mut c) = (a.to_vec(), c.to_vec());

    let mut comms_ab = Vec::new();
    let mut comms_c = Vec::new();
    let mut z_ab = Vec::new();
    let mut z_c = Vec::new();
    let mut challenges = Vec::new();
    let mut challenges_inv = Vec::new();

    // Version 1 uses this challenge in round 0 as it is; version 2 hashes
    // round 0's commitments into it first.
    let mut c_inv = Transcript::new("gipa-0")
        .write(&hcom)
        .write(&ip_ab)
        .write(&agg_c)
        .write(&r[1])
        .challenge();

    let mut round = 0usize;
    while a.len() > 1 {
        let s = a.len() / 2;
        let (al, ar) = a.split_at(s);
        let (bl, br) = b.split_at(s);
        let (cl, cr) = c.split_at(s);
        let (rl, rr) = r.split_at(s);
        let (val, var) = v.0.split_at(s);
        let (vbl, vbr) = v.1.split_at(s);
        let (wal, war) = w.0.split_at(s);
        let (wbl, wbr) = w.1.split_at(s);
        let terms: [Vec<Term<'_>>; 10] = [
            // TIPP: the left and right key commitments of the cross terms
            vec![(ar, val), (war, bl)],
            vec![(ar, vbl), (wbr, bl)],
            vec![(al, var), (wal, br)],
            vec![(al, vbr), (wbl, br)],
            // TIPP: the cross inner pairing products
            vec![(ar, bl)],
            vec![(al, br)],
            // MIPP: C's cross terms under v
            vec![(cr, val)],
            vec![(cr, vbl)],
            vec![(cl, var)],
            vec![(cl, vbr)],
        ];
        let (gt, (zc_l, zc_r)) = rayon::join(
            || pairing.products(&terms),
            || rayon::join(|| cuzk_msm::msm(cr, rl), || cuzk_msm::msm(cl, rr)),
        );
        let (gt, zc_l, zc_r) = (gt?, zc_l?, zc_r?);
        let tab_l = (gt[0], gt[1]);
        let tab_r = (gt[2], gt[3]);
        let (zab_l, zab_r) = (gt[4], gt[5]);
        let tuc_l = (gt[6], gt[7]);
        let tuc_r = (gt[8], gt[9]);

        if round > 0 || version == AggregateVersion::V2 {
            c_inv = Transcript::new(&format!("gipa-{round}"))
                .write(&c_inv)
                .write(&zab_l)
                .write(&zab_r)
                .write(&zc_l)
                .write(&zc_r)
                .write(&tab_l.0)
                .write(&tab_l.1)
                .write(&tab_r.0)
                .write(&tab_r.1)
                .write(&tuc_l.0)
                .write(&tuc_l.1)
                .write(&tuc_r.0)
                .write(&tuc_r.1)
                .challenge();
        }
        // a transcript challenge is never 0
        let x = c_inv.invert().unwrap_or(Fr::ZERO);

        // A, C and w take x; B, r and v take x⁻¹.
        rayon::join(
            || rayon::join(|| fold(&mut a, &x), || fold(&mut c, &x)),
            || {
                rayon::join(
                    || rayon::join(|| fold(&mut b, &c_inv), || fold_fr(&mut r, &c_inv)),
                    || {
                        rayon::join(
                            || rayon::join(|| fold(&mut v.0, &c_inv), || fold(&mut v.1, &c_inv)),
                            || rayon::join(|| fold(&mut w.0, &x), || fold(&mut w.1, &x)),
                        )
                    },
                )
            },
        );

        comms_ab.push((tab_l, tab_r));
        comms_c.push((tuc_l, tuc_r));
        z_ab.push((zab_l, zab_r));
        z_c.push((zc_l, zc_r));
        challenges.push(x);
        challenges_inv.push(c_inv);
        round += 1;
    }

    let proof = GipaProof {
        nproofs,
        comms_ab,
        comms_c,
        z_ab,
        z_c,
        final_a: a[0],
        final_b: b[0],
        final_c: c[0],
        final_vkey: (v.0[0], v.1[0]),
        final_wkey: (w.0[0], w.1[0]),
    };
    let (zab, zc) = (proof.z_ab[round - 1], proof.z_c[round - 1]);
    let (tab, tuc) = (proof.comms_ab[round - 1], proof.comms_c[round - 1]);
    let extra = Transcript::new("gipa-extra-link")
        .write(&challenges[round - 1])
        .write(&proof.final_a)
        .write(&proof.final_b)
        .write(&proof.final_c)
        .write(&zab.0)
        .write(&zab.1)
        .write(&zc.0)
        .write(&zc.1)
        .write(&tab.0 .0)
        .write(&tab.0 .1)
        .write(&tab.1 .0)
        .write(&tab.1 .1)
        .write(&tuc.0 .0)
        .write(&tuc.0 .1)
        .write(&tuc.1 .0)
        .write(&tuc.1 .1)
        .challenge();
    Ok(Gipa {
        proof,
        challenges,
        challenges_inv,
        extra,
    })
}
