//! One fallback PoSt sector of the 32 GiB tree shape (10 challenges, ten
//! arity-8 levels each), as a WindowPoSt partition holds 2349 of them:
//! witness-only synthesis of storage-proofs-post's `Sector` circuit
//! against `cuzk_filecoin::native::post_sector`, on random values (no
//! constraint is checked by either), best of `REPS`, one thread, the two
//! witnesses checked equal.
//!
//! ```text
//! cargo run --release -p cuzk-filecoin --example native_post
//! ```

use cuzk_filecoin::native;
use cuzk_synth::compiled::{synthesize_witness, Witness};
use ff::Field;
use filecoin_proofs::SectorShape32GiB;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::time::{Duration, Instant};
use storage_proofs_post::fallback::Sector;

type Fr = blstrs::Scalar;

const CHALLENGES: usize = 10;
const LEVELS: usize = 10;
const REPS: usize = 5;

fn best(mut f: impl FnMut()) -> Duration {
    (0..REPS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let (comm_r, comm_c, comm_r_last) = (
        Fr::random(&mut rng),
        Fr::random(&mut rng),
        Fr::random(&mut rng),
    );
    let paths: Vec<(Fr, native::Path)> = (0..CHALLENGES)
        .map(|_| {
            let leaf = Fr::random(&mut rng);
            let path = (0..LEVELS)
                .map(|_| {
                    (
                        (0..7).map(|_| Fr::random(&mut rng)).collect(),
                        rng.gen_range(0..8),
                    )
                })
                .collect();
            (leaf, path)
        })
        .collect();
    let sector = Sector::<SectorShape32GiB> {
        comm_r: Some(comm_r),
        comm_c: Some(comm_c),
        comm_r_last: Some(comm_r_last),
        leafs: paths.iter().map(|(l, _)| Some(*l)).collect(),
        paths: paths
            .iter()
            .map(|(_, p)| {
                p.iter()
                    .map(|(s, i)| (s.iter().map(|x| Some(*x)).collect(), Some(*i)))
                    .collect::<Vec<_>>()
                    .into()
            })
            .collect(),
        id: Some(Fr::ONE),
    };
    let shape = cuzk_synth::count_shape(&sector).expect("count");
    let mut w = Witness::default();
    let generic = best(|| {
        w = synthesize_witness(&sector, Witness::default()).expect("witness");
    });
    let mut aux = Vec::with_capacity(shape.num_aux);
    let nat = best(|| {
        aux.clear();
        native::post_sector(&mut aux, comm_r, comm_c, comm_r_last, &paths);
    });
    assert!(
        aux[..] == w.aux_assignment[..],
        "native and witness-only differ"
    );
    let ns = |d: Duration| d.as_secs_f64() * 1e9 / shape.num_constraints as f64;
    println!(
        "PoSt sector, 32 GiB shape: {} constraints, {} aux; witness-only {:.2} ms ({:.0} ns/constraint), native {:.2} ms ({:.0} ns/constraint), {:.1}x; a 2349-sector partition on one core: {:.1} s against {:.1} s",
        shape.num_constraints,
        shape.num_aux,
        generic.as_secs_f64() * 1e3,
        ns(generic),
        nat.as_secs_f64() * 1e3,
        ns(nat),
        generic.as_secs_f64() / nat.as_secs_f64(),
        nat.as_secs_f64() * 2349.0,
        generic.as_secs_f64() * 2349.0
    );
}
