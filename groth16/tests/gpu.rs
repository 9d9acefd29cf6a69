//! The GPU backend against the CPU backend and bellperson's verifier.
//!
//! Needs an NVIDIA GPU: `#[ignore]`d; gpu-bundle/run.sh runs them with
//! `--include-ignored` on the GPU machine. Sizes above 2^18 take their
//! parameters from the GPU setup when `CUZK_TEST_BIG=1` (minutes).
#![cfg(feature = "cuda")]

use std::sync::Arc;

use bellperson::groth16 as bp;
use blstrs::Bls12;
use cuzk_field::Fr;
use cuzk_groth16::gpu::{GpuBackend, Residency};
use cuzk_groth16::{
    prove_assignment, verify_proof, Backend, CpuBackend, Parameters, Proof, Timings, ToxicWaste,
};
use cuzk_synth::circuits::{BenchCircuit, TinyCircuit};
use ff::Field;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn bp_verify(params: &Parameters, proof: &Proof, inputs: &[Fr]) -> bool {
    let mut bytes = Vec::new();
    params.vk.write(&mut bytes).unwrap();
    let vk = bp::VerifyingKey::<Bls12>::read(&bytes[..]).unwrap();
    let pvk = bp::prepare_verifying_key(&vk);
    let p = bp::Proof::<Bls12>::read(&proof.to_bytes()[..]).unwrap();
    bp::verify_proof(&pvk, &p, inputs).unwrap()
}

fn params_for(log: u32) -> Arc<Parameters> {
    let c = BenchCircuit::new(log, 0).unwrap();
    Arc::new(
        cuzk_groth16::generate_parameters(c, &ToxicWaste::from_seed(u64::from(log)), None).unwrap(),
    )
}

/// GPU and CPU give the same MSM results (hence, for fixed r and s, the same
/// proof bytes); the proof verifies with ours and bellperson's verifiers;
/// resident and transient residency agree.
fn check(
    params: &Arc<Parameters>,
    gpu: &GpuBackend,
    circuit: impl bellpepper_core::Circuit<Fr> + Clone + Send,
    seed: u64,
) {
    let pa = cuzk_synth::synthesize(circuit.clone()).unwrap();
    let pa2 = cuzk_synth::synthesize(circuit).unwrap();
    let mut t = Timings::default();
    let cpu = CpuBackend.evaluate(params, pa.clone(), &mut t).unwrap();
    let mut tg = Timings::default();
    let got = gpu.evaluate(params, pa, &mut tg).unwrap();
    assert_eq!(got, cpu, "GPU and CPU backends disagree");
    // `--timings` shows each GPU stage on its own line: resident sets the
    // split MSMs' halves, streamed sets one pass per base set.
    let names: Vec<&str> = tg.stages().iter().map(|(s, _)| *s).collect();
    let resident = gpu.is_resident(params);
    let register = (!resident || !gpu.h_upload_staged()).then_some("register");
    let msms: &[&str] = if resident {
        &["bitmap_sums", "tails", "g2_bitmap_sums", "g2_tails"]
    } else {
        &["msm_l", "msm_a", "msm_b_g1", "msm_b_g2"]
    };
    for want in register
        .into_iter()
        .chain(["upload_abc", "ntt_h", "msm_h"])
        .chain(msms.iter().copied())
    {
        assert!(names.contains(&want), "stage {want} missing from {names:?}");
    }
    let streamed: u64 = tg
        .counts()
        .iter()
        .filter(|(w, _)| *w == "stream_bytes")
        .map(|(_, n)| *n)
        .sum();
    if resident {
        assert_eq!(streamed, 0, "a resident set streams nothing");
    } else {
        // Every base set passes at most once, and H at least once.
        assert!(
            streamed <= cuzk_groth16::gpu::bases_bytes(params),
            "{streamed}"
        );
        assert!(streamed >= (params.h.len() * 96) as u64, "{streamed}");
    }

    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (r, s) = (Fr::random(&mut rng), Fr::random(&mut rng));
    let pvk = params.vk.prepare();
    let out_gpu = prove_assignment(params, Some(&pvk), pa2.clone(), r, s, gpu).unwrap();
    let out_cpu = prove_assignment(params, None, pa2, r, s, &CpuBackend).unwrap();
    assert_eq!(out_gpu.proof.to_bytes(), out_cpu.proof.to_bytes());
    assert!(verify_proof(&pvk, &out_gpu.proof, &out_gpu.inputs).unwrap());
    assert!(bp_verify(params, &out_gpu.proof, &out_gpu.inputs));
    let mut bad = out_gpu.inputs.clone();
    if let Some(x) = bad.first_mut() {
        *x += Fr::ONE;
        assert!(!bp_verify(params, &out_gpu.proof, &bad));
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_matches_cpu_2_10_to_2_18() {
    let gpu = GpuBackend::new(0).unwrap();
    for log in [10u32, 11, 12, 14, 16, 18] {
        let params = params_for(log);
        // not preloaded: streamed from the host copy
        check(
            &params,
            &gpu,
            BenchCircuit::new(log, 100 + u64::from(log)).unwrap(),
            1,
        );
        // transient, preloaded: the host queries are page-locked once and
        // every MSM streams from them; same results
        assert_eq!(
            gpu.preload(&params, Residency::Transient).unwrap(),
            Residency::Transient
        );
        assert!(!gpu.is_resident(&params));
        assert_eq!(
            gpu.pinned_bytes() as u64,
            cuzk_groth16::gpu::bases_bytes(&params),
            "2^{log}: every query pinned"
        );
        check(
            &params,
            &gpu,
            BenchCircuit::new(log, 150 + u64::from(log)).unwrap(),
            1,
        );
        assert_eq!(
            gpu.preload(&params, Residency::Resident).unwrap(),
            Residency::Resident
        );
        assert!(gpu.is_resident(&params));
        assert_eq!(gpu.pinned_bytes(), 0, "a resident set is not pinned");
        for w in 0..2u64 {
            check(&params, &gpu, BenchCircuit::new(log, 200 + w).unwrap(), w);
        }
        eprintln!("2^{log}: GPU == CPU, proofs verify (ours and bellperson)");
    }
    gpu.unload();
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_place_resident_hollow_key_and_depth() {
    // The engine's way in: `place` keeps the bases resident, keyed by the
    // hollow set (no host queries), with room for two partitions.
    let gpu = GpuBackend::new(0).unwrap();
    let params = params_for(12);
    let hollow = Arc::new(params.without_queries());
    let got = gpu.place(&params, &hollow, true).unwrap();
    assert_eq!(got, cuzk_groth16::Placement::Resident);
    assert_eq!(gpu.pipeline_depth(&hollow), 2);
    // The placement ran a partition's device work once (the warm-up).
    let note = gpu.describe(&hollow);
    assert!(note.contains("; warmed up in "), "{note}");
    // The set with its queries is not the resident one: it would stream,
    // one partition classifying while another has the device.
    assert!(!gpu.is_resident(&params), "keyed by the hollow set");
    assert_eq!(gpu.pipeline_depth(&params), 2);
    let pvk = params.vk.prepare();
    let pa = cuzk_synth::synthesize(BenchCircuit::new(12, 5).unwrap()).unwrap();
    let (r, s) = (Fr::from(3u64), Fr::from(4u64));
    let g = prove_assignment(&hollow, Some(&pvk), pa.clone(), r, s, &gpu).unwrap();
    let c = prove_assignment(&params, None, pa.clone(), r, s, &CpuBackend).unwrap();
    assert_eq!(g.proof.to_bytes(), c.proof.to_bytes());
    // Another device's set may not be evicted: this one stays, the new one
    // is proved from (pinned) host memory.
    let other = params_for(12);
    let other_hollow = Arc::new(other.without_queries());
    assert_eq!(
        gpu.place(&other, &other_hollow, false).unwrap(),
        cuzk_groth16::Placement::Host
    );
    let note = gpu.describe(&other);
    assert!(
        note.contains("another set is resident") && note.contains("; warmed up in "),
        "{note}"
    );
    assert!(gpu.is_resident(&hollow));
    // Evicted: the hollow key can no longer be proved on this device.
    gpu.evict(&hollow);
    assert!(!gpu.is_resident(&hollow));
    assert!(prove_assignment(&hollow, None, pa, r, s, &gpu).is_err());
    // Placed again: the kernels are loaded, so no second warm-up.
    assert_eq!(
        gpu.place(&params, &hollow, true).unwrap(),
        cuzk_groth16::Placement::Resident
    );
    let note = gpu.describe(&hollow);
    assert!(
        note.starts_with("resident") && !note.contains("warmed up"),
        "{note}"
    );
    gpu.unload();
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_tiny_circuits() {
    // Odd shapes: a handful of constraints, inputs without B density, etc.
    let gpu = GpuBackend::new(0).unwrap();
    for chain in [0usize, 1, 2, 5, 31, 100] {
        let c = TinyCircuit {
            x: Fr::from(3),
            y: Fr::from(5),
            chain,
        };
        let params = Arc::new(
            cuzk_groth16::generate_parameters(c, &ToxicWaste::from_seed(9), None).unwrap(),
        );
        gpu.preload(&params, Residency::Auto).unwrap();
        check(&params, &gpu, c, chain as u64);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_rejects_mismatch_and_impossible_allocations() {
    let gpu = GpuBackend::new(0).unwrap();
    let params = params_for(10);
    let pa = cuzk_synth::synthesize(BenchCircuit::new(12, 1).unwrap()).unwrap();
    let mut t = Timings::default();
    let e = gpu.evaluate(&params, pa, &mut t).unwrap_err();
    assert!(e.to_string().contains("do not match"), "{e}");
    // Auto residency picks resident for a set that fits.
    let (free, _) = gpu.mem_info().unwrap();
    let need =
        cuzk_groth16::gpu::bases_bytes(&params) + cuzk_groth16::gpu::working_bytes(&params, 1);
    assert!(need < free);
    assert_eq!(
        gpu.preload(&params, Residency::Auto).unwrap(),
        Residency::Resident
    );
    // Device memory exhaustion is an error value, not a crash: 1 TiB.
    let e = cuzk_gpu::DeviceBuffer::<u8>::alloc(gpu.device(), 1 << 40).unwrap_err();
    assert!(!e.to_string().is_empty());
    // and the backend still works afterwards
    check(&params, &gpu, BenchCircuit::new(10, 3).unwrap(), 3);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_deferred_abc_on_device_equals_classic() {
    // A deferred assignment (witness only, a recorded circuit attached):
    // the GPU computes a, b, c from the record's device-resident matrices.
    // Same proof bytes as the CPU backend on the classic assignment for
    // fixed r, s; bellperson verifies; transient and resident bases agree.
    use cuzk_synth::compiled::CompiledR1cs;
    let gpu = GpuBackend::new(0).unwrap();
    for log in [10u32, 12, 15, 17] {
        let params = params_for(log);
        let rec = Arc::new(CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap());
        let pvk = params.vk.prepare();
        for (k, mode) in [Residency::Transient, Residency::Resident]
            .into_iter()
            .enumerate()
        {
            gpu.preload(&params, mode).unwrap();
            if mode == Residency::Resident {
                // Transient stays unadmitted: a, b, c on the CPU.
                assert!(gpu.abc_on_device(&rec));
            }
            let seed = 300 + u64::from(log) + k as u64;
            let circ = BenchCircuit::new(log, seed).unwrap();
            let classic = cuzk_synth::synthesize(circ).unwrap();
            let deferred = rec.synthesize_deferred(circ).unwrap();
            assert!(deferred.a.is_empty() && deferred.deferred.is_some());
            let mut t = Timings::default();
            let got = gpu.evaluate(&params, deferred.clone(), &mut t).unwrap();
            let mut tc = Timings::default();
            let want = CpuBackend
                .evaluate(&params, classic.clone(), &mut tc)
                .unwrap();
            assert_eq!(got, want, "2^{log} {mode:?}: GPU deferred != CPU classic");
            // Resident: a, b, c computed on the device from the record;
            // streamed (transient): on the CPU, then uploaded.
            let names: Vec<&str> = t.stages().iter().map(|(s, _)| *s).collect();
            let (want, not) = match mode {
                Residency::Resident => (["upload_z", "spmv", "ntt_h", "msm_h"], "upload_abc"),
                _ => (["spmv", "upload_abc", "ntt_h", "msm_h"], "upload_z"),
            };
            for stage in want {
                assert!(
                    names.contains(&stage),
                    "stage {stage} missing from {names:?}"
                );
            }
            assert!(!names.contains(&not), "{mode:?}: {names:?}");
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (r, s) = (Fr::random(&mut rng), Fr::random(&mut rng));
            let g = prove_assignment(&params, Some(&pvk), deferred, r, s, &gpu).unwrap();
            let c = prove_assignment(&params, None, classic, r, s, &CpuBackend).unwrap();
            assert_eq!(g.proof.to_bytes(), c.proof.to_bytes(), "2^{log} {mode:?}");
            assert!(bp_verify(&params, &g.proof, &g.inputs));
            eprintln!("2^{log} {mode:?}: deferred on the GPU == classic on the CPU, verifies");
        }
        gpu.unload();
    }
    // A deferred assignment whose record is another circuit's is refused
    // before any device work.
    let params = params_for(12);
    let other = Arc::new(CompiledR1cs::record(BenchCircuit::new(10, 0).unwrap()).unwrap());
    let w = other
        .synthesize_deferred(BenchCircuit::new(10, 1).unwrap())
        .unwrap();
    let mut t = Timings::default();
    assert!(gpu.evaluate(&params, w, &mut t).is_err());
}

/// A device memory limit far below the bases: the set streams from host
/// memory in chunks the limit allows, and every result (hence the proof
/// bytes for fixed r, s) is the resident placement's. A limit below what
/// even streaming needs is refused at placement with the typed error.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_memory_limit_streams_with_the_same_results() {
    use cuzk_groth16::Groth16Error;
    let log = 18u32;
    let params = params_for(log);
    let resident = GpuBackend::new(0).unwrap();
    assert_eq!(
        resident.preload(&params, Residency::Auto).unwrap(),
        Residency::Resident
    );
    // Room for the lean H step and chunks of about 2^16 bases, less than
    // the bases themselves.
    let lean = cuzk_groth16::gpu::streamed_bytes(&params);
    let limit = lean + (24 << 20);
    assert!(limit < cuzk_groth16::gpu::bases_bytes(&params) + lean);
    let small = GpuBackend::with_memory_limit(0, Some(limit)).unwrap();
    assert_eq!(small.budget().limit, limit);
    assert_eq!(
        small.preload(&params, Residency::Auto).unwrap(),
        Residency::Transient,
        "Auto streams what the limit cannot hold"
    );
    assert!(small.stream_plan().is_some(), "streamed: a plan");
    let note = small.describe(&params);
    assert!(note.contains("; warmed up in "), "{note}");
    for seed in [1u64, 2] {
        let circ = BenchCircuit::new(log, 500 + seed).unwrap();
        let pa = cuzk_synth::synthesize(circ).unwrap();
        let (r, s) = (Fr::from(11 + seed), Fr::from(13 + seed));
        let a = prove_assignment(&params, None, pa.clone(), r, s, &resident).unwrap();
        let mut t = Timings::default();
        let parts = small.evaluate(&params, pa.clone(), &mut t).unwrap();
        let want = resident
            .evaluate(&params, pa.clone(), &mut Timings::default())
            .unwrap();
        assert_eq!(parts, want, "streamed != resident");
        let b = prove_assignment(&params, None, pa, r, s, &small).unwrap();
        assert_eq!(a.proof.to_bytes(), b.proof.to_bytes());
        assert!(bp_verify(&params, &b.proof, &b.inputs));
        let moved: u64 = t.counts().iter().map(|(_, n)| *n).sum();
        eprintln!(
            "2^{log} limit {} MiB: streamed {} MiB, same bytes as resident",
            limit >> 20,
            moved >> 20
        );
    }
    // A deferred partition on the streamed set: a, b, c on the CPU.
    let rec = Arc::new(
        cuzk_synth::compiled::CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap(),
    );
    let circ = BenchCircuit::new(log, 777).unwrap();
    let d = rec.synthesize_deferred(circ).unwrap();
    let got = small.evaluate(&params, d, &mut Timings::default()).unwrap();
    let want = CpuBackend
        .evaluate(
            &params,
            cuzk_synth::synthesize(circ).unwrap(),
            &mut Timings::default(),
        )
        .unwrap();
    assert_eq!(got, want, "deferred, streamed");
    // Too small for anything: refused at placement, typed.
    let tiny = GpuBackend::with_memory_limit(0, Some(lean / 2)).unwrap();
    match tiny.preload(&params, Residency::Auto) {
        Err(Groth16Error::DeviceTooSmall {
            need, available, ..
        }) => {
            assert_eq!(need, lean);
            assert!(available <= lean / 2);
        }
        other => panic!("expected DeviceTooSmall, got {other:?}"),
    }
    // Resident forced beyond the limit: refused the same way.
    assert!(matches!(
        small.preload(&params, Residency::Resident),
        Err(Groth16Error::DeviceTooSmall { .. })
    ));
}

/// A streamed placement computes a recorded circuit's a, b, c on the
/// device when its plan admits the circuit: with its three matrices kept
/// on the device, or one matrix at a time from page-locked host memory,
/// or (not admitted) on the CPU. All three give the CPU backend's results
/// and proof bytes for fixed r, s. (At 2^18 the MSM phase, the
/// coefficients beside the smallest chunks, is the larger one: a room that
/// holds it holds the H step with the witness and one matrix, so "no room
/// for even one matrix" is the budget's unit test's case, not this one's.)
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_streamed_record_whole_per_matrix_or_cpu_gives_the_same_bytes() {
    use cuzk_groth16::gpu::{streamed_bytes, RecordMode};
    use cuzk_synth::compiled::CompiledR1cs;
    let log = 18u32;
    let params = params_for(log);
    let rec = Arc::new(CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap());
    let shape = rec.shape();
    let witness = ((shape.num_aux + shape.num_inputs) * 32) as u64;
    let whole = cuzk_spmv::device_bytes(&rec) as u64;
    let largest = cuzk_spmv::matrix_device_bytes(&rec) as u64;
    assert!(
        whole >= largest + (4 << 20),
        "the modes need distinct rooms"
    );
    // What a backend holds of its own (twiddles): a probe's limit less the
    // room its plan got.
    let used = {
        let probe = GpuBackend::with_memory_limit(0, Some(4 << 30)).unwrap();
        probe.preload(&params, Residency::Transient).unwrap();
        (4u64 << 30) - probe.stream_plan().unwrap().room()
    };
    let least = streamed_bytes(&params);
    let slack = 1u64 << 20;
    let pvk = params.vk.prepare();
    assert!(least > cuzk_groth16::gpu::lean_h_bytes(&params) + witness + largest);
    for (k, (room, admit, want)) in [
        (least + whole + slack, true, Some(RecordMode::Resident)),
        (least + slack, true, Some(RecordMode::PerMatrix)),
        (least + slack, false, None),
    ]
    .into_iter()
    .enumerate()
    {
        let gpu = GpuBackend::with_memory_limit(0, Some(used + room)).unwrap();
        assert_eq!(
            gpu.preload(&params, Residency::Transient).unwrap(),
            Residency::Transient
        );
        let plan = gpu.stream_plan().unwrap();
        assert!(
            plan.room().abs_diff(room) <= slack / 2,
            "room {} vs {room}",
            plan.room()
        );
        if admit {
            assert_eq!(gpu.abc_on_device(&rec), want.is_some());
        }
        assert_eq!(gpu.stream_plan().unwrap().mode(&rec.key()), want);
        for seed in [1u64, 2] {
            let seed = 900 + 10 * k as u64 + seed;
            let circ = BenchCircuit::new(log, seed).unwrap();
            let classic = cuzk_synth::synthesize(circ).unwrap();
            let deferred = rec.synthesize_deferred(circ).unwrap();
            let mut t = Timings::default();
            let got = gpu.evaluate(&params, deferred.clone(), &mut t).unwrap();
            let cpu = CpuBackend
                .evaluate(&params, classic.clone(), &mut Timings::default())
                .unwrap();
            assert_eq!(got, cpu, "{want:?}: GPU streamed != CPU classic");
            let names: Vec<&str> = t.stages().iter().map(|(s, _)| *s).collect();
            let (has, not): (&[&str], &str) = match want {
                Some(_) => (&["upload_z", "spmv", "ntt_h"], "upload_abc"),
                None => (&["spmv", "upload_abc", "ntt_h"], "upload_z"),
            };
            for stage in has {
                assert!(names.contains(stage), "{want:?}: {stage} not in {names:?}");
            }
            assert!(!names.contains(&not), "{want:?}: {names:?}");
            if want == Some(RecordMode::PerMatrix) {
                assert!(names.contains(&"upload_r1cs"), "{names:?}");
            }
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (r, s) = (Fr::random(&mut rng), Fr::random(&mut rng));
            let g = prove_assignment(&params, Some(&pvk), deferred, r, s, &gpu).unwrap();
            let c = prove_assignment(&params, None, classic, r, s, &CpuBackend).unwrap();
            assert_eq!(g.proof.to_bytes(), c.proof.to_bytes(), "{want:?}");
            assert!(bp_verify(&params, &g.proof, &g.inputs));
        }
        eprintln!(
            "2^{log} streamed, room {} MiB, record {want:?}: same bytes as the CPU, verifies",
            room >> 20
        );
    }
}
