//! libFuzzer on `cuzk_fuzz_checks::vk` (fuzz-checks/src/vk.rs says what
//! it checks).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cuzk_fuzz_checks::vk::check(data));
