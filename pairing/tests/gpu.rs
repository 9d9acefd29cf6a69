//! The device Miller loops against blst's, on the GPU machine
//! (`cargo xtask gpu-bundle`): seeded pairs, products of several sizes in
//! one call, every value compared after the final exponentiation.
#![cfg(feature = "cuda")]

mod common;

use common::{random_pairs, rng};
use cuzk_gpu::Device;
use cuzk_pairing::{Pairing, Term, GPU_MIN_PAIRS};

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_products_equal_blst() {
    let device = Device::new(0).expect("a GPU");
    let gpu = Pairing::gpu(&device).unwrap();
    let cpu = Pairing::cpu();
    // One call above the CPU cut-off; the 0- and 1-pair products and the
    // uneven sizes exercise empty groups and odd product trees.
    let lens = [GPU_MIN_PAIRS, 0, 1, 3, 1000, 77];
    let total: usize = lens.iter().sum();
    let (p, q) = random_pairs(&mut rng(40), total, 11);
    let mut at = 0;
    let products: Vec<Vec<Term<'_>>> = lens
        .iter()
        .map(|&n| {
            at += n;
            vec![(&p[at - n..at], &q[at - n..at])]
        })
        .collect();
    let want = cpu.products(&products).unwrap();
    let got = gpu.products(&products).unwrap();
    assert_eq!(got, want);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_products_of_many_pairs_per_thread_equal_blst() {
    // More pairs than the device keeps threads: tasks of several pairs.
    let device = Device::new(0).expect("a GPU");
    let gpu = Pairing::gpu(&device).unwrap();
    let (p, q) = random_pairs(&mut rng(41), 40_000, 0);
    let terms: Vec<Term<'_>> = vec![(&p[..], &q[..])];
    let want = Pairing::cpu().product(&terms).unwrap();
    assert_eq!(gpu.product(&terms).unwrap(), want);
    // and one changed pair changes it
    let mut p2 = p.clone();
    p2.swap(0, 1);
    assert_ne!(gpu.product(&[(&p2[..], &q[..])]).unwrap(), want);
}
