//! The streamed path's chunked accumulation (`cuzk_msm::chunks`) through
//! the host twin of the GPU pipeline, against the CPU MSM: every op of a
//! partition's shape (dense, bitmap, gathered tails with repeats and any
//! order) at several chunk sizes, G1 and G2. Fixed seeds.

mod gpu_common;

use cuzk_field::{Bitmap, Fr, G1Affine, G2Affine, Group};
use cuzk_msm::chunks::{plan, run_host, StreamOp};
use cuzk_msm::gpu::{stream_window, GpuPoint};
use cuzk_msm::{bitmap_sum, msm, msm_gather};
use gpu_common::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

fn check<C: GpuPoint + Pool>(n: usize, seed: u64) {
    let bases: Vec<C> = bases_of(n);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let dense = random_scalars(n / 3, seed);
    let ones = Bitmap::from_bools((0..n / 2).map(|_| rng.next_u32() % 3 == 0));
    let mut idx: Vec<u32> = (0..n / 4)
        .map(|_| rng.next_u32() % (n as u32 - 7))
        .collect();
    idx.push(idx[0]); // a repeat
    idx.reverse(); // not sorted
    let isc = random_scalars(idx.len(), seed + 1);
    // Ascending with its repeat: a proof's tails, cut without a copy.
    let mut asc = idx.clone();
    asc.sort_unstable();
    let ops = [
        StreamOp::Dense {
            start: 5,
            scalars: &dense,
        },
        StreamOp::Bitmap {
            start: n / 2 - 3,
            ones: &ones,
        },
        StreamOp::Gather {
            start: 7,
            indices: &idx,
            scalars: &isc,
        },
        StreamOp::Gather {
            start: 6,
            indices: &asc,
            scalars: &isc,
        },
    ];
    let want = [
        msm(&bases[5..5 + dense.len()], &dense).unwrap(),
        bitmap_sum(&bases[n / 2 - 3..], &ones).unwrap(),
        msm_gather(&bases[7..], &idx, &isc).unwrap(),
        msm_gather(&bases[6..], &asc, &isc).unwrap(),
    ];
    let all = want.iter().fold(C::Curve::identity(), |a, w| a + w);
    for chunk in [n, n / 2 + 1, 333, 64, 100] {
        // Each op alone, then all of them sharing the pass's buckets; at
        // the pass's own window and at a narrow one (more windows).
        for window in [stream_window(chunk), 3] {
            for (o, w) in want.iter().enumerate() {
                let p = plan(&ops[o..=o], n, chunk).unwrap();
                let got = run_host(&bases, &ops[o..=o], &p, window).unwrap();
                assert!(
                    same::<C>(got, *w),
                    "n {n}, chunk {chunk}, window {window}, op {o}"
                );
            }
            let p = plan(&ops, n, chunk).unwrap();
            let got = run_host(&bases, &ops, &p, window).unwrap();
            assert!(
                same::<C>(got, all),
                "n {n}, chunk {chunk}, window {window}, all ops"
            );
            assert!(p.bases_streamed() <= n);
        }
    }
}

#[test]
fn streamed_g1_equals_the_cpu_msm() {
    check::<G1Affine>(1500, 11);
}

#[test]
fn streamed_g2_equals_the_cpu_msm() {
    check::<G2Affine>(700, 12);
}

#[test]
fn an_empty_op_touches_no_chunk() {
    let none: [Fr; 0] = [];
    let ops = [StreamOp::Dense {
        start: 10,
        scalars: &none,
    }];
    assert!(plan(&ops, 100, 16).unwrap().parts.is_empty());
}
