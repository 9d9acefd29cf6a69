//! libFuzzer on `cuzk_fuzz_checks::proof` (fuzz-checks/src/proof.rs says what
//! it checks).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cuzk_fuzz_checks::proof::check(data));
