#![no_main]
//! Decode-differential with dictionaries: our decoder against libzstd 1.5.7's
//! `ZSTD_decompress_usingDict` (the pinned zstd-sys 2.1.3 build), both limited to the same
//! output size. The first byte picks the dictionary: one of the goldens of
//! `corpus/goldens/dict/` (trained, raw content, trained with other repeat offsets), or, with
//! bit 7 set, a dictionary taken from the input (`u16` length, then its bytes) so that
//! dictionary parsing is compared too. The rest is the frame. Either both give the same bytes
//! or both refuse, with the exceptions of `decode_differential` (where only ours refuses);
//! a dictionary ours refuses (`BadDictionary`) must be one libzstd refuses as well. Where
//! our one-shot decode succeeds, our streaming decode must give the same bytes or refuse.

use std::ffi::c_void;
use zarkit::zstd::ZstdError;
use zarkit_tests::exercise;

/// Output limit for both sides (ours: `zarkit_tests::exercise::decode_with_dict_ours`).
const LIMIT: usize = 1 << 20;

/// libzstd's one-shot decode with `dict` into a `LIMIT`-byte buffer: `None` when it refuses.
fn native(src: &[u8], dict: &[u8]) -> Option<Vec<u8>> {
    let mut out = vec![0u8; LIMIT];
    // SAFETY: a plain constructor; checked for null below.
    let dctx = unsafe { zstd_sys::ZSTD_createDCtx() };
    assert!(!dctx.is_null());
    // SAFETY: `dctx` is live; the three buffers are valid for the lengths passed.
    let n = unsafe {
        zstd_sys::ZSTD_decompress_usingDict(
            dctx,
            out.as_mut_ptr() as *mut c_void,
            out.len(),
            src.as_ptr() as *const c_void,
            src.len(),
            dict.as_ptr() as *const c_void,
            dict.len(),
        )
    };
    // SAFETY: `dctx` was created above and is freed once.
    unsafe { zstd_sys::ZSTD_freeDCtx(dctx) };
    // SAFETY: a plain query on a return code.
    if unsafe { zstd_sys::ZSTD_isError(n) } != 0 {
        return None;
    }
    out.truncate(n);
    Some(out)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((dict, frame)) = exercise::dict_input(data) else {
        return;
    };
    let theirs = native(frame, dict);
    let ours = match exercise::decode_with_dict_ours(dict, frame) {
        Ok(one_shot) => one_shot,
        Err(e) => {
            assert!(
                theirs.is_none() || frame.is_empty(),
                "ours refuses the dictionary ({e}), libzstd decodes with it"
            );
            return;
        }
    };
    match (&ours, &theirs) {
        (Ok(a), Some(b)) => assert!(
            a == b,
            "both decode, to different bytes ({} vs {})",
            a.len(),
            b.len()
        ),
        (Err(_), None) => {}
        (Err(ZstdError::WindowTooLarge { .. }), Some(_)) => {}
        (Err(_), Some(b)) if frame.is_empty() && b.is_empty() => {}
        (Err(ZstdError::BlockTooLarge { .. }), Some(_)) => {}
        (Err(ZstdError::UnknownFrame { magic, .. }), Some(_))
            if *magic == 0x1EB5_2FFD || (0xFD2F_B522..=0xFD2F_B527).contains(magic) => {}
        (Err(ZstdError::BitstreamNotConsumed { stream, .. }), Some(_))
            if stream.contains("Huffman") => {}
        (Err(ZstdError::Malformed { reason, .. }), Some(_))
            if reason.contains("Huffman") && reason.contains("end mark") => {}
        (Err(e), Some(b)) => panic!(
            "ours refuses ({e}) what libzstd decodes to {} bytes",
            b.len()
        ),
        (Ok(a), None) => panic!("ours decodes to {} bytes what libzstd refuses", a.len()),
    }
});
