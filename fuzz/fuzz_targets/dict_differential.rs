#![no_main]
//! Differential with a dictionary: our frame equals libzstd 1.5.7's for the entry point the
//! input picks, `ZSTD_compress_usingDict`, `ZSTD_compress_usingCDict` with
//! `ZSTD_createCDict(dict, level)`, or `ZSTD_CCtx_loadDictionary` + `ZSTD_compress2` (see
//! `zarkit_tests::exercise::dict_compress_input`), and
//! decodes back with the dictionary; a dictionary we refuse, libzstd refuses too.

use std::ffi::c_void;

/// libzstd's frame for the entry point (0 usingDict, 1 usingCDict, 2 loadDictionary +
/// compress2), or `None` when it refuses the dictionary.
fn oracle(src: &[u8], dict: &[u8], level: i32, entry: u8) -> Option<Vec<u8>> {
    // SAFETY: the buffers are valid for the lengths passed; ZSTD_compressBound is the
    // documented worst case; the context and CDict are created and freed here.
    unsafe {
        let cap = zstd_sys::ZSTD_compressBound(src.len());
        let mut out = vec![0u8; cap];
        let cctx = zstd_sys::ZSTD_createCCtx();
        let n = if entry == 2 {
            zstd_sys::ZSTD_CCtx_setParameter(
                cctx,
                zstd_sys::ZSTD_cParameter::ZSTD_c_compressionLevel,
                level,
            );
            let r = zstd_sys::ZSTD_CCtx_loadDictionary(
                cctx,
                dict.as_ptr() as *const c_void,
                dict.len(),
            );
            if zstd_sys::ZSTD_isError(r) != 0 {
                zstd_sys::ZSTD_freeCCtx(cctx);
                return None;
            }
            zstd_sys::ZSTD_compress2(
                cctx,
                out.as_mut_ptr() as *mut c_void,
                cap,
                src.as_ptr() as *const c_void,
                src.len(),
            )
        } else if entry == 1 {
            let cdict =
                zstd_sys::ZSTD_createCDict(dict.as_ptr() as *const c_void, dict.len(), level);
            if cdict.is_null() {
                zstd_sys::ZSTD_freeCCtx(cctx);
                return None;
            }
            let n = zstd_sys::ZSTD_compress_usingCDict(
                cctx,
                out.as_mut_ptr() as *mut c_void,
                cap,
                src.as_ptr() as *const c_void,
                src.len(),
                cdict,
            );
            zstd_sys::ZSTD_freeCDict(cdict);
            n
        } else {
            zstd_sys::ZSTD_compress_usingDict(
                cctx,
                out.as_mut_ptr() as *mut c_void,
                cap,
                src.as_ptr() as *const c_void,
                src.len(),
                dict.as_ptr() as *const c_void,
                dict.len(),
                level,
            )
        };
        zstd_sys::ZSTD_freeCCtx(cctx);
        if zstd_sys::ZSTD_isError(n) != 0 {
            return None;
        }
        out.truncate(n);
        Some(out)
    }
}

libfuzzer_sys::fuzz_target!(|input: &[u8]| {
    // SAFETY: a plain query without arguments.
    assert_eq!(
        unsafe { zstd_sys::ZSTD_versionNumber() },
        10507,
        "the oracle must be libzstd 1.5.7"
    );
    let Some((level, entry, dict, src)) = zarkit_tests::exercise::dict_compress_input(input) else {
        return;
    };
    let ours = zarkit_tests::exercise::compress_with_dict_ours(level, entry, dict, src);
    // Separate buffers: libzstd treats a source that directly follows the dictionary in
    // memory as continuing it (one segment, not a dictionary), which the input's slices
    // would do.
    let (dict, src) = (dict.to_vec(), src.to_vec());
    let theirs = oracle(&src, &dict, level, entry);
    let (ours, theirs) = match (ours, theirs) {
        (Some(o), Some(t)) => (o, t),
        (None, t) => {
            // We refuse only what libzstd refuses (or sizes we do not encode yet).
            assert!(
                t.is_none() || src.len() > 64 * 1024,
                "level {level}: we refused a dictionary libzstd took"
            );
            return;
        }
        (Some(_), None) => panic!("level {level}: libzstd refused a dictionary we took"),
    };
    if ours != theirs {
        let at = ours
            .iter()
            .zip(&theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(ours.len().min(theirs.len()));
        panic!(
            "level {level} ({}), {} bytes, {}-byte dictionary: frames differ at byte {at} (ours {} bytes, oracle {})",
            ["usingDict", "usingCDict", "loadDictionary + compress2"][entry as usize],
            src.len(),
            dict.len(),
            ours.len(),
            theirs.len()
        );
    }
});
