//! libFuzzer on `cuzk_fuzz_checks::params` (fuzz-checks/src/params.rs says what
//! it checks).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cuzk_fuzz_checks::params::check(data));
