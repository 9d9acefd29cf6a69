//! filecoin-hashers' SHA-256 circuit functions against the native
//! generators (`cuzk_filecoin::native`): witness-only synthesis of a
//! circuit that calls the gadget and the generator must append the same
//! auxiliary values in the same order, and the packed digest must be the
//! one the gadget allocated, seeded inputs.

use bellpepper_core::boolean::{AllocatedBit, Boolean};
use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use cuzk_filecoin::native;
use cuzk_synth::compiled::{synthesize_witness, Witness};
use cuzk_synth::native::{Aux, Bit};
use ff::Field;
use filecoin_hashers::{sha256::Sha256Function, HashFunction};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

type Fr = blstrs::Scalar;

/// `Sha256Function::hash_circuit` of `bits` allocated bits.
#[derive(Clone)]
struct Hash {
    bits: Vec<bool>,
}

impl Circuit<Fr> for Hash {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let bits = self
            .bits
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(v)).map(Boolean::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Sha256Function::hash_circuit(cs.namespace(|| "hash"), &bits)?;
        Ok(())
    }
}

/// A chain of `Sha256Function::hash2_circuit` nodes: each node hashes the
/// previous one with the next allocated leaf, as a Merkle path does.
#[derive(Clone)]
struct Path {
    leaves: Vec<Fr>,
}

impl Circuit<Fr> for Path {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut cur = AllocatedNum::alloc(cs.namespace(|| "leaf 0"), || Ok(self.leaves[0]))?;
        for (i, l) in self.leaves.iter().enumerate().skip(1) {
            let sib = AllocatedNum::alloc(cs.namespace(|| format!("leaf {i}")), || Ok(*l))?;
            cur = Sha256Function::hash2_circuit(cs.namespace(|| format!("node {i}")), &cur, &sib)?;
        }
        Ok(())
    }
}

fn same(what: &str, native: &[Fr], w: &Witness) {
    assert_eq!(
        native.len(),
        w.aux_assignment.len(),
        "{what}: allocation count"
    );
    if let Some(i) = native
        .iter()
        .zip(w.aux_assignment.iter())
        .position(|(a, b)| a != b)
    {
        panic!("{what}: aux value {i} differs");
    }
}

#[test]
fn hash_circuit_of_allocated_bits_equals_the_gadget() {
    let mut rng = ChaCha20Rng::seed_from_u64(35);
    // Lengths in bytes: PoRep's labels hash 32-byte words; across the
    // one-block padding boundary; several blocks.
    for n in [32usize, 55, 64, 96, 200] {
        let bits: Vec<bool> = (0..8 * n).map(|_| rng.gen()).collect();
        let c = Hash { bits: bits.clone() };
        let w = synthesize_witness(c, Witness::default()).unwrap();
        let mut aux = Vec::new();
        let input: Vec<Bit> = bits.iter().map(|&b| aux.bit(b)).collect();
        let digest = native::sha256_hash(&mut aux, &input);
        same(&format!("hash_circuit of {n} bytes"), &aux, &w);
        assert_eq!(
            Some(&digest),
            w.aux_assignment.last(),
            "the packed digest is the last allocation"
        );
    }
}

#[test]
fn hash2_chain_equals_the_gadget() {
    let mut rng = ChaCha20Rng::seed_from_u64(36);
    let leaves: Vec<Fr> = (0..6).map(|_| Fr::random(&mut rng)).collect();
    let w = synthesize_witness(
        Path {
            leaves: leaves.clone(),
        },
        Witness::default(),
    )
    .unwrap();
    let mut aux = Vec::new();
    aux.push_fr(leaves[0]);
    let mut cur = leaves[0];
    for l in &leaves[1..] {
        aux.push_fr(*l);
        cur = native::sha256_hash2(&mut aux, &cur, l);
    }
    same("hash2 chain", &aux, &w);
    // And a flipped leaf is seen.
    let mut other = Vec::new();
    other.push_fr(leaves[0]);
    let mut c2 = leaves[0];
    for (i, l) in leaves[1..].iter().enumerate() {
        let l = if i == 2 { *l + Fr::ONE } else { *l };
        other.push_fr(l);
        c2 = native::sha256_hash2(&mut other, &c2, &l);
    }
    assert_ne!(c2, cur);
    assert!(other
        .iter()
        .zip(w.aux_assignment.iter())
        .any(|(a, b)| a != b));
}

/// `PoseidonFunction::hash_multi_leaf_circuit::<A>` of allocated leaves.
#[derive(Clone)]
struct Poseidon {
    leaves: Vec<Fr>,
    arity: usize,
}

impl Circuit<Fr> for Poseidon {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        use filecoin_hashers::poseidon::PoseidonFunction;
        use typenum::{U11, U2, U4, U8};
        let leaves = self
            .leaves
            .iter()
            .enumerate()
            .map(|(i, l)| AllocatedNum::alloc(cs.namespace(|| format!("leaf {i}")), || Ok(*l)))
            .collect::<Result<Vec<_>, _>>()?;
        let cs = cs.namespace(|| "poseidon");
        match self.arity {
            2 => PoseidonFunction::hash_multi_leaf_circuit::<U2, _>(cs, &leaves, 0)?,
            4 => PoseidonFunction::hash_multi_leaf_circuit::<U4, _>(cs, &leaves, 0)?,
            8 => PoseidonFunction::hash_multi_leaf_circuit::<U8, _>(cs, &leaves, 0)?,
            _ => PoseidonFunction::hash_multi_leaf_circuit::<U11, _>(cs, &leaves, 0)?,
        };
        Ok(())
    }
}

#[test]
fn poseidon_of_every_filecoin_arity_equals_the_gadget() {
    use typenum::{U11, U2, U4, U8};
    let mut rng = ChaCha20Rng::seed_from_u64(37);
    // 2 and 8: tree-r and tree-c paths; 4: the 8 MiB/512 MiB tree shapes;
    // 11: the column hash.
    for arity in [2usize, 4, 8, 11] {
        let leaves: Vec<Fr> = (0..arity).map(|_| Fr::random(&mut rng)).collect();
        let w = synthesize_witness(
            Poseidon {
                leaves: leaves.clone(),
                arity,
            },
            Witness::default(),
        )
        .unwrap();
        let mut aux = Vec::new();
        for l in &leaves {
            aux.push_fr(*l);
        }
        let h = match arity {
            2 => native::poseidon_hash::<U2>(&mut aux, &leaves),
            4 => native::poseidon_hash::<U4>(&mut aux, &leaves),
            8 => native::poseidon_hash::<U8>(&mut aux, &leaves),
            _ => native::poseidon_hash::<U11>(&mut aux, &leaves),
        };
        same(&format!("poseidon arity {arity}"), &aux, &w);
        assert_eq!(
            Some(&h),
            w.aux_assignment.last(),
            "the hash is the last allocation"
        );
    }
}

/// storage-proofs' `insertion::insert` of an allocated element among
/// `elements` at the index of `bits` allocated bits.
#[derive(Clone)]
struct Insert {
    element: Fr,
    elements: Vec<Fr>,
    index: usize,
}

impl Insert {
    fn bits(&self) -> Vec<bool> {
        let n = (self.elements.len() + 1).trailing_zeros() as usize;
        (0..n).map(|i| (self.index >> i) & 1 == 1).collect()
    }
}

impl Circuit<Fr> for Insert {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let el = AllocatedNum::alloc(cs.namespace(|| "element"), || Ok(self.element))?;
        let bits = self
            .bits()
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(b)).map(Boolean::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let others = self
            .elements
            .iter()
            .enumerate()
            .map(|(i, e)| AllocatedNum::alloc(cs.namespace(|| format!("sibling {i}")), || Ok(*e)))
            .collect::<Result<Vec<_>, _>>()?;
        storage_proofs_core::gadgets::insertion::insert(cs, &el, &bits, &others)?;
        Ok(())
    }
}

#[test]
fn insert_at_every_index_of_every_size_equals_the_gadget() {
    let mut rng = ChaCha20Rng::seed_from_u64(38);
    // 2, 4, 8: Filecoin's tree arities (their hand-made pick sequences);
    // 16: the generic select path.
    for size in [2usize, 4, 8, 16] {
        for index in 0..size {
            let c = Insert {
                element: Fr::random(&mut rng),
                elements: (0..size - 1).map(|_| Fr::random(&mut rng)).collect(),
                index,
            };
            let w = synthesize_witness(c.clone(), Witness::default()).unwrap();
            let mut aux = Vec::new();
            aux.push_fr(c.element);
            let bits: Vec<Bit> = c.bits().iter().map(|&b| aux.bit(b)).collect();
            for e in &c.elements {
                aux.push_fr(*e);
            }
            let row = native::insert(&mut aux, c.element, &bits, &c.elements);
            same(&format!("insert into {size} at {index}"), &aux, &w);
            // The row is the siblings with the element at its index.
            let mut want = c.elements.clone();
            want.insert(index, c.element);
            assert_eq!(row, want, "insert into {size} at {index}");
        }
    }
}

/// Levels of storage-proofs' PoR circuit, as `SubPath::synthesize` builds
/// them: index bits, siblings, `insert`, the tree's hash.
#[derive(Clone)]
struct Levels {
    leaf: Fr,
    levels: Vec<(usize, Vec<Fr>)>,
    sha: bool,
}

fn levels_circuit<A: filecoin_hashers::PoseidonArity, CS: ConstraintSystem<Fr>>(
    c: &Levels,
    cs: &mut CS,
) -> Result<(), SynthesisError> {
    let mut cur = AllocatedNum::alloc(cs.namespace(|| "leaf"), || Ok(c.leaf))?;
    for (l, (index, sibs)) in c.levels.iter().enumerate() {
        let cs = &mut cs.namespace(|| format!("level {l}"));
        let n = (sibs.len() + 1).trailing_zeros() as usize;
        let bits = (0..n)
            .map(|i| {
                AllocatedBit::alloc(
                    cs.namespace(|| format!("index bit {i}")),
                    Some((index >> i) & 1 == 1),
                )
                .map(Boolean::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let nums = sibs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                AllocatedNum::alloc(cs.namespace(|| format!("path element {i}")), || Ok(*s))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let row = storage_proofs_core::gadgets::insertion::insert(cs, &cur, &bits, &nums)?;
        cur = if c.sha {
            Sha256Function::hash_multi_leaf_circuit::<A, _>(cs.namespace(|| "hash"), &row, l)?
        } else {
            filecoin_hashers::poseidon::PoseidonFunction::hash_multi_leaf_circuit::<A, _>(
                cs.namespace(|| "hash"),
                &row,
                l,
            )?
        };
    }
    Ok(())
}

struct LevelsOf<A>(Levels, std::marker::PhantomData<A>);

impl<A: filecoin_hashers::PoseidonArity> Circuit<Fr> for LevelsOf<A> {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        levels_circuit::<A, CS>(&self.0, cs)
    }
}

fn check_levels<A: filecoin_hashers::PoseidonArity>(sha: bool, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let arity = A::to_usize();
    let c = Levels {
        leaf: Fr::random(&mut rng),
        levels: (0..3)
            .map(|_| {
                (
                    rng.gen_range(0..arity),
                    (0..arity - 1).map(|_| Fr::random(&mut rng)).collect(),
                )
            })
            .collect(),
        sha,
    };
    let w = synthesize_witness(
        LevelsOf::<A>(c.clone(), std::marker::PhantomData),
        Witness::default(),
    )
    .unwrap();
    let mut aux = Vec::new();
    aux.push_fr(c.leaf);
    let hash = if sha {
        native::TreeHash::Sha256
    } else {
        native::TreeHash::Poseidon
    };
    let mut cur = c.leaf;
    for (index, sibs) in &c.levels {
        cur = native::merkle_level(&mut aux, hash, cur, *index, sibs);
    }
    same(&format!("{hash:?} levels of arity {arity}"), &aux, &w);
    assert_eq!(Some(&cur), w.aux_assignment.last());
}

#[test]
fn merkle_levels_equal_the_por_circuits_levels() {
    use typenum::{U2, U8};
    // comm_d: SHA-256, binary; tree-c and tree-r-last: Poseidon, arity 8
    // (2 for the small test trees).
    check_levels::<U2>(true, 40);
    check_levels::<U2>(false, 41);
    check_levels::<U8>(false, 42);
}

/// A fallback PoSt sector of tree shape `Tree` on random values (witness
/// generation checks no constraint, so any values compare): the circuit's
/// witness against `native::post_sector`.
fn check_post_sector<Tree: 'static + storage_proofs_core::merkle::MerkleTreeTrait>(
    arities: &[usize],
    challenges: usize,
    seed: u64,
) {
    let r =
        cuzk_filecoin_tools::bench_vanilla::random_post_sector::<Tree>(arities, challenges, seed);
    let w = synthesize_witness(&r.sector, Witness::default()).unwrap();
    let mut aux = Vec::new();
    let [comm_r, comm_c, comm_r_last] = r.comms;
    native::post_sector(&mut aux, comm_r, comm_c, comm_r_last, &r.challenges);
    same(&format!("PoSt sector, arities {arities:?}"), &aux, &w);
}

#[test]
fn post_sectors_of_2kib_and_32gib_shape_equal_the_circuit() {
    // 2 KiB: 64 leaves, two arity-8 levels. 32 GiB: 2^30 leaves, nine
    // arity-8 base levels and one arity-8 sub level. 64 GiB adds an
    // arity-2 top level.
    check_post_sector::<filecoin_proofs::SectorShape2KiB>(&[8, 8], 2, 50);
    check_post_sector::<filecoin_proofs::SectorShape32GiB>(&[8; 10], 3, 51);
    check_post_sector::<filecoin_proofs::SectorShape64GiB>(
        &[8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 2],
        2,
        52,
    );
}
