//! libFuzzer on `cuzk_fuzz_checks::r1cs` (fuzz-checks/src/r1cs.rs says what
//! it checks).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cuzk_fuzz_checks::r1cs::check(data));
