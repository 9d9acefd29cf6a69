//! libFuzzer on `cuzk_fuzz_checks::vanilla_snap` (fuzz-checks/src/vanilla_snap.rs says what
//! it checks).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cuzk_fuzz_checks::vanilla_snap::check(data));
