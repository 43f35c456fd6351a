#![no_main]
//! Differential: for every level our encoder implements, our frame equals libzstd 1.5.7's
//! `ZSTD_compress` (the pinned zstd-sys 2.1.3 build) byte for byte. Byte 0 picks the level.
//! For one input in eight (the first data byte a multiple of 8), a 64 KiB block made of the
//! data's copies, each one XORed with its copy number, is compressed in place too
//! (`Compressor::compress_block_into`, the ZAR writer's path) and compared the same way.

use std::ffi::c_void;

fn oracle(src: &[u8], level: i32) -> Vec<u8> {
    // SAFETY: the buffers are valid for the lengths passed; ZSTD_compressBound is the
    // documented worst case for ZSTD_compress's output.
    unsafe {
        let cap = zstd_sys::ZSTD_compressBound(src.len());
        let mut out = vec![0u8; cap];
        let n = zstd_sys::ZSTD_compress(
            out.as_mut_ptr() as *mut c_void,
            cap,
            src.as_ptr() as *const c_void,
            src.len(),
            level,
        );
        assert_eq!(zstd_sys::ZSTD_isError(n), 0, "oracle failed");
        out.truncate(n);
        out
    }
}

libfuzzer_sys::fuzz_target!(|input: &[u8]| {
    // SAFETY: a plain query without arguments.
    assert_eq!(
        unsafe { zstd_sys::ZSTD_versionNumber() },
        10507,
        "the oracle must be libzstd 1.5.7"
    );
    let Some((&sel, data)) = input.split_first() else {
        return;
    };
    let levels = zarkit_tests::exercise::supported_levels();
    if levels.is_empty() {
        return;
    }
    let level = levels[sel as usize % levels.len()];
    let ours = match zarkit::zstd::compress(data, level) {
        Ok(f) => f,
        Err(e) => panic!("level {level}, {} bytes: {e}", data.len()),
    };
    let theirs = oracle(data, level);
    compare(&ours, &theirs, level, data.len());
    if data.first().is_some_and(|b| b % 8 == 0) {
        let mut block = zarkit::zstd::PaddedBlock::new();
        for (i, b) in block.iter_mut().enumerate() {
            *b = data[i % data.len()] ^ (i / data.len()) as u8;
        }
        let mut ours = Vec::new();
        zarkit::zstd::Compressor::new(level)
            .expect("a supported level")
            .compress_block_into(&block, &mut ours)
            .expect("a block compresses");
        compare(&ours, &oracle(&block[..], level), level, block.len());
    }
});

/// Panics, naming the first differing byte, unless the two frames are equal.
fn compare(ours: &[u8], theirs: &[u8], level: i32, len: usize) {
    if ours != theirs {
        let at = ours
            .iter()
            .zip(theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(ours.len().min(theirs.len()));
        panic!(
            "level {level}, {len} bytes: frames differ at byte {at} (ours {} bytes, oracle {})",
            ours.len(),
            theirs.len()
        );
    }
}
