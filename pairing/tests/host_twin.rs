//! The device's Miller-loop code (host twin) and blst's multi-Miller loop
//! against blstrs' pairing, product by product, over shapes that exercise
//! the task cut and the product tree: empty products, single pairs,
//! points at infinity, several terms, tasks of 1 to 4 pairs.

mod common;

use common::{random_pairs, reference, rng};
use cuzk_field::{G1Affine, G2Affine, Gt};
use cuzk_pairing::{Pairing, PairingError, Term};
use group::Group;

/// Products of lengths `lens` over one pool of random pairs; each product
/// is split into two terms to check that terms concatenate.
fn check(pairing: &Pairing, lens: &[usize], seed: u64) {
    let total: usize = lens.iter().sum();
    let (p, q) = random_pairs(&mut rng(seed), total, 7);
    let mut at = 0;
    let mut products: Vec<Vec<Term<'_>>> = Vec::new();
    let mut want: Vec<Gt> = Vec::new();
    for &n in lens {
        let (ps, qs) = (&p[at..at + n], &q[at..at + n]);
        let h = n / 2;
        products.push(vec![(&ps[..h], &qs[..h]), (&ps[h..], &qs[h..])]);
        want.push(reference(ps, qs));
        at += n;
    }
    let got = pairing.products(&products).expect("products");
    assert_eq!(got.len(), lens.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "product {i} of {lens:?} ({pairing:?})");
    }
}

#[test]
fn host_twin_equals_the_pairing_for_every_task_size() {
    for chunk in [1, 2, 3, 4] {
        check(
            &Pairing::host_twin(chunk),
            &[5, 0, 1, 8, 2],
            10 + chunk as u64,
        );
    }
}

#[test]
fn host_twin_product_trees_of_odd_widths() {
    // 7 and 13 tasks: levels where the last slot has no partner.
    check(&Pairing::host_twin(1), &[7, 13], 21);
}

#[test]
fn cpu_equals_the_pairing() {
    check(&Pairing::cpu(), &[5, 0, 1, 8, 2, 33], 3);
}

#[test]
fn one_changed_point_changes_the_product() {
    let (mut p, q) = random_pairs(&mut rng(5), 6, 0);
    for pairing in [Pairing::host_twin(2), Pairing::cpu()] {
        let before = pairing.product(&[(&p[..], &q[..])]).unwrap();
        assert_eq!(before, reference(&p, &q));
        let saved = p[3];
        p[3] = p[1];
        let after = pairing.product(&[(&p[..], &q[..])]).unwrap();
        assert_ne!(before, after, "{pairing:?}");
        assert_eq!(after, reference(&p, &q));
        p[3] = saved;
    }
}

#[test]
fn all_infinity_and_empty_products_are_one() {
    let p = vec![G1Affine::default(); 3];
    let (_, q) = random_pairs(&mut rng(6), 3, 0);
    for pairing in [Pairing::host_twin(1), Pairing::cpu()] {
        let got = pairing.products(&[vec![(&p[..], &q[..])], vec![]]).unwrap();
        assert_eq!(got, vec![Gt::identity(), Gt::identity()]);
    }
}

#[test]
fn mismatched_terms_are_a_typed_error() {
    let (p, q) = random_pairs(&mut rng(7), 4, 0);
    let terms: Vec<Term<'_>> = vec![(&p[..4], &q[..4]), (&p[..3], &q[..2])];
    for pairing in [Pairing::host_twin(1), Pairing::cpu()] {
        match pairing.product(&terms) {
            Err(PairingError::Length {
                product: 0,
                term: 1,
                g1: 3,
                g2: 2,
            }) => {}
            other => panic!("{other:?}"),
        }
    }
    let _: &[G2Affine] = &q;
}
