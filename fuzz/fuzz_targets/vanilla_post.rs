//! libFuzzer on `cuzk_fuzz_checks::vanilla_post` (fuzz-checks/src/vanilla_post.rs says what
//! it checks).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cuzk_fuzz_checks::vanilla_post::check(data));
