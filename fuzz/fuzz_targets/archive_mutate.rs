#![no_main]
//! See `zarkit_tests::exercise::archive_mutate`; crash inputs go to tests/fuzz-regressions/archive_mutate/.
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarkit_tests::exercise::archive_mutate(data));
