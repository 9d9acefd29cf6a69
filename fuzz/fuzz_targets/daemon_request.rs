//! libFuzzer on `cuzk_fuzz_checks::daemon_request` (fuzz-checks/src/daemon_request.rs says what
//! it checks).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cuzk_fuzz_checks::daemon_request::check(data));
