#![no_main]
//! See `zarkit_tests::exercise::roundtrip`; crash inputs go to tests/fuzz-regressions/roundtrip/.
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarkit_tests::exercise::roundtrip(data));
