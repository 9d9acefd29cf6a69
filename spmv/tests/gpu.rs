//! The SpMV kernel on the device against synth's classic synthesis: the
//! same a, b, c, bit for bit, zero-padded to the domain; and the kernel's
//! refusals. Needs an NVIDIA GPU: `#[ignore]`d; gpu-bundle/run.sh runs them
//! with `--include-ignored` on the GPU machine.
#![cfg(feature = "cuda")]

use cuzk_field::{Field, Fr};
use cuzk_gpu::{Device, DeviceBuffer, Stream};
use cuzk_spmv::{gpu::DeviceR1cs, SpmvError};
use cuzk_synth::{circuits::BenchCircuit, compiled::CompiledR1cs, synthesize};

/// a, b, c of `seed`'s witness on the device, downloaded, padded to `m`.
fn device_abc(
    stream: &Stream,
    dev: &DeviceR1cs,
    rec: &CompiledR1cs,
    circ: BenchCircuit,
    m: usize,
) -> [Vec<Fr>; 3] {
    let w = rec.witness(circ).unwrap();
    let inputs = DeviceBuffer::from_slice(stream, &w.input_assignment).unwrap();
    let aux = DeviceBuffer::from_slice(stream, &w.aux_assignment).unwrap();
    // Garbage in the outputs first: the kernel must write every element,
    // padding included.
    let junk = vec![Fr::ONE + Fr::ONE; m];
    let mut out = [0, 1, 2].map(|_| DeviceBuffer::from_slice(stream, &junk).unwrap());
    let [a, b, c] = &mut out;
    dev.evaluate(stream, &inputs, &aux, [a, b, c]).unwrap();
    stream.synchronize().unwrap();
    out.map(|o| o.to_vec(stream).unwrap())
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn device_spmv_equals_classic_synthesis_2_10_to_2_20() {
    let device = Device::new(0).unwrap();
    let stream = Stream::new(&device).unwrap();
    // 2^15 and up have SHA-256 (boolean gadgets, ±2^k coefficients).
    for log in [10u32, 12, 15, 17, 20] {
        let rec = CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap();
        let dev = DeviceR1cs::upload(&stream, &rec).unwrap();
        assert_eq!(dev.bytes(), cuzk_spmv::device_bytes(&rec));
        for seed in [1u64, 2] {
            let circ = BenchCircuit::new(log, seed).unwrap();
            let classic = synthesize(circ).unwrap();
            let n = classic.num_constraints();
            let m = n.next_power_of_two();
            let got = device_abc(&stream, &dev, &rec, circ, m);
            for (name, got, want) in [
                ("a", &got[0], &classic.a),
                ("b", &got[1], &classic.b),
                ("c", &got[2], &classic.c),
            ] {
                assert_eq!(got.len(), m);
                if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
                    panic!("2^{log} seed {seed}: {name}[{i}] differs");
                }
                assert!(
                    got[n..].iter().all(|x| *x == Fr::ZERO),
                    "2^{log}: {name} padding not zero"
                );
            }
            eprintln!(
                "2^{log} seed {seed}: device a, b, c == classic ({n} rows, matrices {:.1} MiB)",
                dev.bytes() as f64 / (1 << 20) as f64,
            );
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn device_spmv_refuses_wrong_lengths() {
    let device = Device::new(0).unwrap();
    let stream = Stream::new(&device).unwrap();
    let rec = CompiledR1cs::record(BenchCircuit::new(12, 0).unwrap()).unwrap();
    let dev = DeviceR1cs::upload(&stream, &rec).unwrap();
    let w = rec.witness(BenchCircuit::new(12, 3).unwrap()).unwrap();
    let s = rec.shape();
    let inputs = DeviceBuffer::from_slice(&stream, &w.input_assignment).unwrap();
    let aux = DeviceBuffer::from_slice(&stream, &w.aux_assignment).unwrap();
    let short_aux = DeviceBuffer::from_slice(&stream, &w.aux_assignment[1..]).unwrap();
    let alloc = |len| DeviceBuffer::<Fr>::alloc(&device, len).unwrap();
    let m = s.domain_size();
    let (mut a, mut b, mut c) = (alloc(m), alloc(m), alloc(m));
    let e = dev
        .evaluate(&stream, &inputs, &short_aux, [&mut a, &mut b, &mut c])
        .unwrap_err();
    assert!(matches!(e, SpmvError::Compiled(_)), "short aux: {e:?}");
    let mut short = alloc(s.num_constraints - 1);
    let e = dev
        .evaluate(&stream, &inputs, &aux, [&mut a, &mut short, &mut c])
        .unwrap_err();
    assert!(
        matches!(e, SpmvError::OutputTooShort { .. }),
        "short b: {e:?}"
    );
    // The good call still works after the refusals.
    dev.evaluate(&stream, &inputs, &aux, [&mut a, &mut b, &mut c])
        .unwrap();
    stream.synchronize().unwrap();
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn device_spmv_time_against_the_matrix_read_floor() {
    // Kernel time of the three SpMVs (CUDA events, best of 5) against the
    // floor of reading the matrices once and writing a, b, c once at the
    // H200's 4.3 TB/s device-to-device copy rate (the gpu_ntt bench's
    // memory floor uses the same). Prints; asserts
    // only that the outputs equal the host's.
    let device = Device::new(0).unwrap();
    let stream = Stream::new(&device).unwrap();
    for log in [20u32, 22, 24] {
        let rec = CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap();
        let dev = DeviceR1cs::upload(&stream, &rec).unwrap();
        let w = rec.witness(BenchCircuit::new(log, 1).unwrap()).unwrap();
        let inputs = DeviceBuffer::from_slice(&stream, &w.input_assignment).unwrap();
        let aux = DeviceBuffer::from_slice(&stream, &w.aux_assignment).unwrap();
        let m = rec.shape().domain_size();
        let alloc = || DeviceBuffer::<Fr>::alloc(&device, m).unwrap();
        let (mut a, mut b, mut c) = (alloc(), alloc(), alloc());
        let mut best = f32::MAX;
        for _ in 0..5 {
            let (e0, e1) = (
                cuzk_gpu::Event::new(&device).unwrap(),
                cuzk_gpu::Event::new(&device).unwrap(),
            );
            e0.record(&stream).unwrap();
            dev.evaluate(&stream, &inputs, &aux, [&mut a, &mut b, &mut c])
                .unwrap();
            e1.record(&stream).unwrap();
            e1.synchronize().unwrap();
            best = best.min(e0.elapsed_ms(&e1).unwrap());
        }
        let host = rec.evaluate(w).unwrap();
        let n = host.a.len();
        assert!(a.to_vec(&stream).unwrap()[..n] == host.a[..]);
        assert!(b.to_vec(&stream).unwrap()[..n] == host.b[..]);
        assert!(c.to_vec(&stream).unwrap()[..n] == host.c[..]);
        let bytes = dev.bytes() as f64;
        let moved = bytes + (3 * m * 32) as f64;
        let floor_ms = moved / 4.3e12 * 1e3;
        let nnz: usize = rec.matrices().iter().map(|x| x.nonzeros()).sum();
        eprintln!(
            "2^{log}: SpMV a, b, c {best:.2} ms; {nnz} non-zeros, matrices {:.1} MiB + outputs \
             {:.1} MiB; floor {floor_ms:.2} ms at 4.3 TB/s (x{:.1})",
            bytes / (1 << 20) as f64,
            (3 * m * 32) as f64 / (1 << 20) as f64,
            f64::from(best) / floor_ms,
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn one_matrix_at_a_time_equals_all_three() {
    let device = Device::new(0).unwrap();
    let stream = Stream::new(&device).unwrap();
    let log = 15;
    let rec = CompiledR1cs::record(BenchCircuit::new(log, 0).unwrap()).unwrap();
    let all = DeviceR1cs::upload(&stream, &rec).unwrap();
    let circ = BenchCircuit::new(log, 7).unwrap();
    let m = rec.shape().num_constraints.next_power_of_two();
    let want = device_abc(&stream, &all, &rec, circ, m);
    let w = rec.witness(circ).unwrap();
    let inputs = DeviceBuffer::from_slice(&stream, &w.input_assignment).unwrap();
    let aux = DeviceBuffer::from_slice(&stream, &w.aux_assignment).unwrap();
    let mut largest = 0;
    for (which, want) in want.iter().enumerate() {
        let one = DeviceR1cs::upload_matrix(&stream, &rec, which).unwrap();
        largest = largest.max(one.bytes());
        let mut out = DeviceBuffer::from_slice(&stream, &vec![Fr::ONE; m]).unwrap();
        // The matrices it does not hold are refused, not read.
        let other = (which + 1) % 3;
        assert!(matches!(
            one.evaluate_one(&stream, other, &inputs, &aux, &mut out),
            Err(SpmvError::NoMatrix(o)) if o == other
        ));
        one.evaluate_one(&stream, which, &inputs, &aux, &mut out)
            .unwrap();
        stream.synchronize().unwrap();
        assert_eq!(&out.to_vec(&stream).unwrap(), want, "matrix {which}");
    }
    assert_eq!(largest, cuzk_spmv::matrix_device_bytes(&rec));
    assert!(matches!(
        DeviceR1cs::upload_matrix(&stream, &rec, 3),
        Err(SpmvError::NoMatrix(3))
    ));
}
