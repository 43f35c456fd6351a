#![no_main]
//! See `zarkit_tests::exercise::decode`; crash inputs go to tests/fuzz-regressions/decode/.
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarkit_tests::exercise::decode(data));
