#![no_main]
//! Decode-differential: arbitrary bytes through our decoder and through libzstd 1.5.7's
//! `ZSTD_decompress` (the pinned zstd-sys 2.1.3 build), both limited to the same output size.
//! Either both give the same bytes, or both refuse. Documented exceptions, where only ours
//! refuses:
//! * a frame window above our one-shot limit (8 MiB): `ZSTD_decompress` applies no window
//!   limit to one-shot decoding, ours refuses before allocating (`WindowTooLarge`);
//! * an empty input: `ZSTD_decompress` returns 0 bytes, ours says there is no frame
//!   (deliberate, `decompress/frame.rs`);
//! * a Huffman literal stream without its end mark, or not consumed exactly: libzstd's fast
//!   4-stream loop checks neither (`HUF_decompress4X1_usingDTable_internal_fast` only checks
//!   that each quarter is filled), ours refuses (`BitstreamNotConsumed` / `Malformed`). In
//!   400,000 mutated frames every such frame libzstd "decoded" gave bytes that were not the
//!   original: refusing is the strict choice (documented in `zstd/decode.rs`);
//! * a raw or RLE block above min(window, 128 KiB): libzstd's one-shot decoder lets it
//!   through, its streaming decoder and ours refuse (`BlockTooLarge`);
//! * a legacy (pre-1.0, v0.1-v0.7) frame: zstd-sys builds libzstd with
//!   `ZSTD_LEGACY_SUPPORT`, ours decodes only the RFC 8878 format (`UnknownFrame`).
//! Every other disagreement is a bug (crash inputs go to tests/fuzz-regressions/decode/).

use std::ffi::c_void;

/// Output limit for both sides.
const LIMIT: usize = 1 << 20;

/// libzstd's one-shot decode into a `LIMIT`-byte buffer: `None` when it refuses.
fn native(src: &[u8]) -> Option<Vec<u8>> {
    let mut out = vec![0u8; LIMIT];
    // SAFETY: both buffers are valid for the lengths passed.
    let n = unsafe {
        zstd_sys::ZSTD_decompress(
            out.as_mut_ptr() as *mut c_void,
            out.len(),
            src.as_ptr() as *const c_void,
            src.len(),
        )
    };
    // SAFETY: a plain query on a return code.
    if unsafe { zstd_sys::ZSTD_isError(n) } != 0 {
        return None;
    }
    out.truncate(n);
    Some(out)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // SAFETY: a plain query without arguments.
    assert_eq!(
        unsafe { zstd_sys::ZSTD_versionNumber() },
        10507,
        "the oracle must be libzstd 1.5.7"
    );
    let ours = zarkit::zstd::decompress(data, LIMIT);
    let theirs = native(data);
    match (&ours, &theirs) {
        (Ok(a), Some(b)) => assert!(
            a == b,
            "both decode, to different bytes ({} vs {})",
            a.len(),
            b.len()
        ),
        (Err(_), None) => {}
        (Err(zarkit::zstd::ZstdError::WindowTooLarge { .. }), Some(_)) => {}
        (Err(_), Some(b)) if data.is_empty() && b.is_empty() => {}
        (Err(zarkit::zstd::ZstdError::BlockTooLarge { .. }), Some(_)) => {}
        (Err(zarkit::zstd::ZstdError::UnknownFrame { magic, .. }), Some(_))
            if *magic == 0x1EB5_2FFD || (0xFD2F_B522..=0xFD2F_B527).contains(magic) => {}
        (Err(zarkit::zstd::ZstdError::BitstreamNotConsumed { stream, .. }), Some(_))
            if stream.contains("Huffman") => {}
        (Err(zarkit::zstd::ZstdError::Malformed { reason, .. }), Some(_))
            if reason.contains("Huffman") && reason.contains("end mark") => {}
        (Err(e), Some(b)) => panic!(
            "ours refuses ({e}) what libzstd decodes to {} bytes",
            b.len()
        ),
        (Ok(a), None) => panic!("ours decodes to {} bytes what libzstd refuses", a.len()),
    }
});
