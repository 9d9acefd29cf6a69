//! GPU tests of [`Stager`] (run on the device machine: `--ignored`):
//! staged uploads land byte for byte where they should, across ring
//! wrap-arounds without waiting in between, and bad arguments are errors.

use cuzk_gpu::{Device, DeviceBuffer, Stream};
use cuzk_pinned_mem::Stager;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

fn random(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn staged_uploads_land_exactly() {
    let dev = Device::new(0).unwrap();
    let s = Stream::new(&dev).unwrap();
    let chunk = 1000;
    let mut st = Stager::<u64>::new(&dev, 3, chunk).unwrap();
    assert!(st.is_pinned());
    assert_eq!(st.bytes(), 3 * chunk * 8);
    let total = 20 * chunk + 17;
    let mut buf = DeviceBuffer::<u64>::alloc(&dev, total).unwrap();
    buf.memset(&s, 0xA5).unwrap();
    let mut want = vec![0xA5A5_A5A5_A5A5_A5A5u64; total];
    // Awkward lengths and offsets, back to back with no synchronisation:
    // later uploads reuse slots of earlier ones (3 slots, up to 12 chunks).
    let mut at = 0;
    for (k, len) in [
        0usize,
        1,
        chunk - 1,
        chunk,
        chunk + 1,
        3 * chunk + 5,
        12 * chunk,
    ]
    .into_iter()
    .enumerate()
    {
        let mut src = random(len, k as u64);
        st.upload(&s, &mut buf, at, &src).unwrap();
        want[at..at + len].copy_from_slice(&src);
        // The source is free as soon as upload returns.
        src.iter_mut().for_each(|x| *x = !*x);
        at += len + 3;
    }
    assert!(at <= total + 3);
    // Overwrite a range already written, again without waiting.
    let again = random(2 * chunk + 7, 99);
    st.upload(&s, &mut buf, 5, &again).unwrap();
    want[5..5 + again.len()].copy_from_slice(&again);
    s.synchronize().unwrap();
    assert_eq!(buf.to_vec(&s).unwrap(), want);

    // Out of range: an error, nothing written.
    let before = buf.to_vec(&s).unwrap();
    assert!(st.upload(&s, &mut buf, total - 2, &[1, 2, 3]).is_err());
    assert!(st.upload(&s, &mut buf, usize::MAX, &[1]).is_err());
    st.synchronize().unwrap();
    assert_eq!(buf.to_vec(&s).unwrap(), before);
    assert!(Stager::<u64>::new(&dev, 1, 10).is_err());
    assert!(Stager::<u64>::new(&dev, 2, 0).is_err());
}
