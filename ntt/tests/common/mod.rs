//! Shared by the host-twin (gpu_twin.rs) and device (gpu.rs) tests: the CPU
//! NTT's answer for every mode and order pair, and input vectors.
#![allow(dead_code)]

use cuzk_field::{random_vec, Field, Fr};
use cuzk_ntt::twin::{Kind, Order};
use cuzk_ntt::{bit_reverse_permute, coset_generator, Domain};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub fn permuted(v: &[Fr]) -> Vec<Fr> {
    let mut p = v.to_vec();
    bit_reverse_permute(&mut p).unwrap();
    p
}

/// Every kind the device offers: plain, bellperson's coset, a random shift.
pub fn kinds(seed: u64) -> Vec<Kind> {
    let s = Fr::random(&mut rng(seed));
    vec![
        Kind::Fft,
        Kind::Ifft,
        Kind::coset(),
        Kind::icoset(),
        Kind::CosetFft(s),
        Kind::ICosetFft(s),
    ]
}

pub const ORDERS: [(Order, Order); 4] = [
    (Order::Natural, Order::Natural),
    (Order::Natural, Order::BitReversed),
    (Order::BitReversed, Order::Natural),
    (Order::BitReversed, Order::BitReversed),
];

/// The CPU NTT applied to `x` (natural order), natural-order result.
pub fn cpu_natural(d: &Domain, kind: Kind, x: &[Fr]) -> Vec<Fr> {
    let mut v = x.to_vec();
    match kind {
        Kind::Fft => d.fft(&mut v),
        Kind::Ifft => d.ifft(&mut v),
        Kind::CosetFft(s) if s == coset_generator() => d.coset_fft(&mut v),
        Kind::ICosetFft(s) if s == coset_generator() => d.icoset_fft(&mut v),
        Kind::CosetFft(s) => d.coset_fft_with(&mut v, s),
        Kind::ICosetFft(s) => d.icoset_fft_with(&mut v, s),
    }
    .unwrap();
    v
}

/// `x` and the expected output arranged for one order pair: the input as
/// the transform receives it and the output it must produce.
pub fn arrange(x: &[Fr], y: &[Fr], input: Order, output: Order) -> (Vec<Fr>, Vec<Fr>) {
    let xi = if input == Order::Natural {
        x.to_vec()
    } else {
        permuted(x)
    };
    let yo = if output == Order::Natural {
        y.to_vec()
    } else {
        permuted(y)
    };
    (xi, yo)
}

/// Random vector plus edge vectors (all r − 1, a unit vector at the end,
/// an alternating pattern); never only zeros.
pub fn inputs(n: usize, seed: u64) -> Vec<Vec<Fr>> {
    let m1 = -Fr::ONE;
    let mut unit = vec![Fr::ZERO; n];
    unit[n - 1] = Fr::ONE;
    vec![
        random_vec(n, &mut rng(seed)),
        vec![m1; n],
        unit,
        (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    m1
                } else {
                    Fr::from(i as u64 + 1)
                }
            })
            .collect(),
    ]
}

/// Index and values of the first difference, for readable failures.
pub fn first_diff(got: &[Fr], want: &[Fr]) -> Option<(usize, Fr, Fr)> {
    assert_eq!(got.len(), want.len(), "lengths differ");
    got.iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .map(|i| (i, got[i], want[i]))
}
