//! libFuzzer on `cuzk_fuzz_checks::config` (fuzz-checks/src/config.rs says what
//! it checks).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cuzk_fuzz_checks::config::check(data));
