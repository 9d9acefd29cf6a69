//! Hostile files: encodings that must not load, files that must not be
//! read whole, paths that are not files, and parallel writers of one
//! output. Each case here was once accepted or crashed.

use cuzk_field::Fr;
use cuzk_groth16::{CheckMode, Groth16Error, Parameters, ToxicWaste, VerifyingKey};
use cuzk_synth::circuits::TinyCircuit;
use ff::Field;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::OnceLock;

fn tiny_params() -> &'static (Parameters, Vec<u8>) {
    static P: OnceLock<(Parameters, Vec<u8>)> = OnceLock::new();
    P.get_or_init(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let c = TinyCircuit {
            x: Fr::random(&mut rng),
            y: Fr::random(&mut rng),
            chain: 6,
        };
        let p = cuzk_groth16::generate_parameters(c, &ToxicWaste::from_seed(1), None).unwrap();
        let mut b = Vec::new();
        p.write(&mut b).unwrap();
        (p, b)
    })
}

/// Offset of the first H point (after the vk and the H count).
fn first_h_point(p: &Parameters) -> usize {
    p.vk.encoded_len() + 4
}

/// Setting the compression bit of an uncompressed slot made blst decode
/// the slot's first half as a compressed point and ignore the rest: the
/// file loaded although 48 of its bytes were anything at all.
#[test]
fn compression_flag_in_an_uncompressed_slot_is_refused() {
    let (p, bytes) = tiny_params();
    // A valid compressed encoding of the same point, padded with junk, is
    // exactly what blst would have accepted.
    let at = first_h_point(p);
    let mut b = bytes.clone();
    b[at..at + 48].copy_from_slice(&p.h[0].to_compressed());
    b[at + 48..at + 96].fill(0xa5);
    for mode in [CheckMode::Full, CheckMode::Trusted] {
        let e = Parameters::from_bytes(&b, mode).unwrap_err();
        assert!(
            matches!(
                e,
                Groth16Error::BadPoint {
                    what: "H query",
                    index: 0,
                    ..
                }
            ),
            "{mode:?}: {e}"
        );
    }
    // In the verifying key too (alpha_g1 is its first slot; beta_g2 a G2 one).
    let vk = p.vk.to_bytes();
    let mut v = vk.clone();
    v[..48].copy_from_slice(&p.vk.alpha_g1.to_compressed());
    v[48..96].fill(0);
    let mut w = vk.clone();
    w[192..288].copy_from_slice(&p.vk.beta_g2.to_compressed());
    w[288..384].fill(0);
    for bad in [v, w] {
        for mode in [CheckMode::Full, CheckMode::Trusted] {
            assert!(matches!(
                VerifyingKey::from_bytes(&bad, mode),
                Err(Groth16Error::BadPoint { .. })
            ));
        }
    }
}

/// Every point of a loaded file re-encodes to the bytes it came from: no
/// slot accepts two encodings.
#[test]
fn loaded_points_reencode_to_the_file() {
    let (_, bytes) = tiny_params();
    let p = Parameters::from_bytes(bytes, CheckMode::Trusted).unwrap();
    let mut again = Vec::new();
    p.write(&mut again).unwrap();
    assert_eq!(&again, bytes);
}

#[test]
fn a_directory_as_params_names_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let e = Parameters::load(dir.path(), CheckMode::Trusted).unwrap_err();
    assert!(
        matches!(
            e,
            Groth16Error::NotAFile {
                kind: "a directory",
                ..
            }
        ),
        "{e}"
    );
    assert!(matches!(
        Parameters::inspect(dir.path()),
        Err(Groth16Error::NotAFile { .. })
    ));
}

#[test]
fn vk_files_are_read_with_a_cap() {
    // /dev/zero as a .vk used to grow until the process was killed.
    let e = VerifyingKey::load(std::path::Path::new("/dev/zero"), CheckMode::Full).unwrap_err();
    assert!(matches!(e, Groth16Error::TooLarge { .. }), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.vk");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(cuzk_groth16::file::VK_LIMIT + 1).unwrap();
    let e = VerifyingKey::load(&big, CheckMode::Full).unwrap_err();
    assert!(matches!(e, Groth16Error::TooLarge { .. }), "{e}");
    // A bad key in a file names the file.
    std::fs::write(&big, [1u8; 10]).unwrap();
    let e = VerifyingKey::load(&big, CheckMode::Full).unwrap_err();
    assert!(
        matches!(e, Groth16Error::InFile { .. }) && e.to_string().contains("big.vk"),
        "{e}"
    );
}

/// Two writers of one output used to share `<out>.tmp`: one could rename
/// the other's half-written bytes into place and report success. With a
/// temporary file per writer, the file left is exactly one writer's.
#[test]
fn concurrent_saves_to_one_path_leave_one_whole_file() {
    let (p, bytes) = tiny_params();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("same.params");
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..5 {
                    p.save(&out).unwrap();
                }
            });
        }
    });
    assert_eq!(&std::fs::read(&out).unwrap(), bytes);
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "temporary files left behind: {left:?}");
    let a = cuzk_groth16::params::unique_tmp(&out);
    let b = cuzk_groth16::params::unique_tmp(&out);
    assert_ne!(a, b);
    assert_eq!(a.parent(), out.parent());
}
