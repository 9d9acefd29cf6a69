//! libFuzzer on `cuzk_fuzz_checks::c1` (fuzz-checks/src/c1.rs says what
//! it checks).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cuzk_fuzz_checks::c1::check(data));
