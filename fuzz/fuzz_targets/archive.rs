#![no_main]
//! See `zarkit_tests::exercise::archive`; crash inputs go to tests/fuzz-regressions/archive/.
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarkit_tests::exercise::archive(data));
