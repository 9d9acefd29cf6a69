//! The CUDA NTT ON THE GPU against the CPU NTT: every mode and order pair on
//! random inputs at 2^1..2^24, spot sizes 2^26 and 2^27, round trips, two
//! streams at once, the H step against `Domain::h_step_full` at
//! 2^10..2^24 (padded and full lengths) with poisoned device buffers.
//!
//! Needs an NVIDIA GPU: `#[ignore]`d; gpu-bundle/run.sh runs them with
//! `--include-ignored`. Built only with the `cuda` feature.
#![cfg(feature = "cuda")]

mod common;

use common::*;
use cuzk_field::{Field, Fr};
use cuzk_gpu::{Device, DeviceBuffer, Stream};
use cuzk_ntt::gpu::GpuNtt;
use cuzk_ntt::twin::{Kind, Order};
use cuzk_ntt::Domain;
use rayon::prelude::*;
use std::sync::Arc;

fn setup() -> (Arc<GpuNtt>, Stream) {
    let dev = Device::new(0).expect("a CUDA device");
    (
        GpuNtt::for_device(&dev).unwrap(),
        Stream::new(&dev).unwrap(),
    )
}

/// Random field elements generated in parallel (fixed seeds per chunk).
fn par_random(n: usize, seed: u64) -> Vec<Fr> {
    (0..n.div_ceil(1 << 14))
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut r = rng(seed ^ ((c as u64) << 24));
            let len = (1usize << 14).min(n - c * (1 << 14));
            (0..len)
                .map(move |_| Fr::random(&mut r))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Uploads into a buffer poisoned with 0xA5 first, so a kernel that skips an
/// element shows garbage rather than a stale correct value.
fn poisoned_upload(s: &Stream, v: &[Fr]) -> DeviceBuffer<Fr> {
    let mut b = DeviceBuffer::<Fr>::alloc(&s.device(), v.len()).unwrap();
    b.memset(s, 0xA5).unwrap();
    b.upload(s, v).unwrap();
    b
}

fn gpu_mode(g: &GpuNtt, s: &Stream, x: &[Fr], kind: Kind, i: Order, o: Order) -> Vec<Fr> {
    let mut b = poisoned_upload(s, x);
    g.transform(s, &mut b, kind, i, o).unwrap();
    b.to_vec(s).unwrap()
}

fn check_size(g: &GpuNtt, s: &Stream, log_n: u32, all_orders: bool) {
    let d = Domain::new(log_n).unwrap();
    let x = par_random(1 << log_n, 1000 + u64::from(log_n));
    for kind in kinds(u64::from(log_n)) {
        let want = cpu_natural(&d, kind, &x);
        let orders: &[(Order, Order)] = if all_orders { &ORDERS } else { &ORDERS[..2] };
        for &(i, o) in orders {
            let (xi, wo) = arrange(&x, &want, i, o);
            let got = gpu_mode(g, s, &xi, kind, i, o);
            if let Some((p, a, b)) = first_diff(&got, &wo) {
                panic!("2^{log_n} {kind:?} {i:?}→{o:?}: position {p} got {a:?} want {b:?}");
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn every_mode_2_1_to_2_24() {
    let (g, s) = setup();
    for log_n in 1..=24 {
        check_size(&g, &s, log_n, true);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn spot_sizes_2_26_2_27() {
    let (g, s) = setup();
    // One kind per size: the CPU reference dominates (two kinds per size
    // take > 80 s on the H200 host).
    for (log_n, kind) in [(26, Kind::icoset()), (27, Kind::Fft)] {
        let d = Domain::new(log_n).unwrap();
        let x = par_random(1 << log_n, 77 + u64::from(log_n));
        {
            let want = cpu_natural(&d, kind, &x);
            let got = gpu_mode(&g, &s, &x, kind, Order::Natural, Order::Natural);
            if let Some((p, a, b)) = first_diff(&got, &want) {
                panic!("2^{log_n} {kind:?}: position {p} got {a:?} want {b:?}");
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn round_trips_and_host_api() {
    let (g, s) = setup();
    for log_n in [1u32, 9, 10, 11, 20, 21, 22] {
        let x = par_random(1 << log_n, u64::from(log_n));
        for (f, i) in [(Kind::Fft, Kind::Ifft), (Kind::coset(), Kind::icoset())] {
            let mut v = x.clone();
            g.transform_host(&s, &mut v, f, Order::Natural, Order::BitReversed)
                .unwrap();
            assert_ne!(v, x);
            g.transform_host(&s, &mut v, i, Order::BitReversed, Order::Natural)
                .unwrap();
            assert_eq!(v, x, "2^{log_n} {f:?}");
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn two_streams_overlap() {
    let (g, s1) = setup();
    let s2 = Stream::new(&s1.device()).unwrap();
    let log_n = 20;
    let d = Domain::new(log_n).unwrap();
    let x = par_random(1 << log_n, 5);
    let y = par_random(1 << log_n, 6);
    let mut bx = poisoned_upload(&s1, &x);
    let mut by = poisoned_upload(&s2, &y);
    g.transform(&s1, &mut bx, Kind::coset(), Order::Natural, Order::Natural)
        .unwrap();
    g.transform(&s2, &mut by, Kind::Ifft, Order::Natural, Order::Natural)
        .unwrap();
    assert_eq!(bx.to_vec(&s1).unwrap(), cpu_natural(&d, Kind::coset(), &x));
    assert_eq!(by.to_vec(&s2).unwrap(), cpu_natural(&d, Kind::Ifft, &y));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn h_step_2_10_to_2_24() {
    let (g, s) = setup();
    for log_n in 10..=24u32 {
        let n = 1usize << log_n;
        for len in [n, n - 3] {
            let a = par_random(len, 3 * u64::from(log_n));
            let b = par_random(len, 3 * u64::from(log_n) + 1);
            // Satisfied at even sizes (top coefficient must be 0), random c at odd.
            let c: Vec<Fr> = if log_n % 2 == 0 {
                a.par_iter().zip(&b).map(|(x, y)| *x * y).collect()
            } else {
                par_random(len, 3 * u64::from(log_n) + 2)
            };
            let d = Domain::for_len(len).unwrap();
            let want = d.h_step_full(a.clone(), b.clone(), c.clone()).unwrap();

            // Host inputs, h left on the device.
            let h = g.h_step(&s, &a, &b, &c).unwrap();
            let got = h.to_vec(&s).unwrap();
            if let Some((p, x, y)) = first_diff(&got, &want) {
                panic!("h_step len {len}: coefficient {p} got {x:?} want {y:?}");
            }
            if log_n % 2 == 0 {
                assert_eq!(got[n - 1], Fr::ZERO);
            }

            // The profiled step computes the same thing and splits its time.
            let (hp, prof) = g.h_step_profiled(&s, &a, &b, &c).unwrap();
            assert!(
                first_diff(&hp.to_vec(&s).unwrap(), &want).is_none(),
                "profiled len {len}"
            );
            assert!(
                !prof.upload.is_zero() && !prof.transforms.is_zero(),
                "{prof:?}"
            );

            // Device inputs in poisoned buffers, padded on the device.
            let mut bufs: Vec<DeviceBuffer<Fr>> = [&a, &b, &c]
                .iter()
                .map(|v| {
                    let mut buf = DeviceBuffer::<Fr>::alloc(&s.device(), n).unwrap();
                    buf.memset(&s, 0xA5).unwrap();
                    g.upload_padded(&s, &mut buf, v).unwrap();
                    buf
                })
                .collect();
            let (ba, rest) = bufs.split_at_mut(1);
            let (bb, bc) = rest.split_at_mut(1);
            g.h_step_device(&s, &mut ba[0], &mut bb[0], &mut bc[0])
                .unwrap();
            let got = ba[0].to_vec(&s).unwrap();
            assert!(first_diff(&got, &want).is_none(), "h_step_device len {len}");
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn bad_arguments() {
    let (g, s) = setup();
    let mut b = DeviceBuffer::<Fr>::alloc(&s.device(), 3).unwrap();
    assert!(g
        .transform(&s, &mut b, Kind::Fft, Order::Natural, Order::Natural)
        .is_err());
    let mut z = DeviceBuffer::<Fr>::alloc(&s.device(), 4).unwrap();
    assert!(g
        .transform(
            &s,
            &mut z,
            Kind::ICosetFft(Fr::ZERO),
            Order::Natural,
            Order::Natural
        )
        .is_err());
    assert!(g
        .h_step(&s, &[Fr::ONE; 3], &[Fr::ONE; 2], &[Fr::ONE; 3])
        .is_err());
}
