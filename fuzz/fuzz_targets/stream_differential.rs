#![no_main]
//! Differential streaming: our `StreamEncoder` against libzstd 1.5.7's
//! `ZSTD_compressStream2` (one thread), driven by the same calls as the `zstd` tool drives
//! it (a fresh `ZSTD_CStreamOutSize()` buffer per call), with or without a dictionary,
//! with or without long-distance matching, with or without the dedicated dictionary
//! search:
//! the same bytes, or both refuse (see `zarkit_tests::exercise::stream_input`).

use std::ffi::c_void;
use zarkit_tests::exercise::{
    StreamCall, stream_calls, stream_dds, stream_input, stream_long, stream_ours,
};

fn oracle(
    level: i32,
    flags: u16,
    dict: Option<&[u8]>,
    size: usize,
    calls: &[StreamCall<'_>],
) -> Option<Vec<u8>> {
    use zstd_sys::ZSTD_EndDirective as E;
    // SAFETY: every pointer handed over describes a live buffer of the stated size; the
    // context is freed once, at the end.
    unsafe {
        let cctx = zstd_sys::ZSTD_createCCtx();
        assert!(!cctx.is_null());
        let set = |p, v| zstd_sys::ZSTD_CCtx_setParameter(cctx, p, v);
        set(zstd_sys::ZSTD_cParameter::ZSTD_c_compressionLevel, level);
        set(
            zstd_sys::ZSTD_cParameter::ZSTD_c_checksumFlag,
            (flags & 1) as i32,
        );
        if flags & 2 != 0 {
            zstd_sys::ZSTD_CCtx_setPledgedSrcSize(cctx, size as u64);
        }
        if let Some(window_log) = stream_long(flags) {
            set(
                zstd_sys::ZSTD_cParameter::ZSTD_c_enableLongDistanceMatching,
                1,
            );
            set(
                zstd_sys::ZSTD_cParameter::ZSTD_c_windowLog,
                window_log as i32,
            );
        }
        if stream_dds(flags) {
            // ZSTD_c_enableDedicatedDictSearch.
            set(zstd_sys::ZSTD_cParameter::ZSTD_c_experimentalParam8, 1);
        }
        let mut ok = true;
        if let Some(d) = dict
            && zstd_sys::ZSTD_isError(zstd_sys::ZSTD_CCtx_loadDictionary(
                cctx,
                d.as_ptr() as *const c_void,
                d.len(),
            )) != 0
        {
            ok = false;
        }
        let cap = zstd_sys::ZSTD_CStreamOutSize();
        let mut buf = vec![0u8; cap];
        let mut frame = Vec::new();
        'calls: for call in calls {
            if !ok {
                break;
            }
            let (data, op): (&[u8], E) = match *call {
                StreamCall::Continue(d) => (d, E::ZSTD_e_continue),
                StreamCall::Flush => (&[], E::ZSTD_e_flush),
                StreamCall::End(d) => (d, E::ZSTD_e_end),
            };
            let mut input = zstd_sys::ZSTD_inBuffer {
                src: data.as_ptr() as *const c_void,
                size: data.len(),
                pos: 0,
            };
            loop {
                let mut output = zstd_sys::ZSTD_outBuffer {
                    dst: buf.as_mut_ptr() as *mut c_void,
                    size: cap,
                    pos: 0,
                };
                let r = zstd_sys::ZSTD_compressStream2(cctx, &mut output, &mut input, op);
                if zstd_sys::ZSTD_isError(r) != 0 {
                    ok = false;
                    break 'calls;
                }
                frame.extend_from_slice(&buf[..output.pos]);
                let taken = input.pos == input.size;
                if taken && (matches!(op, E::ZSTD_e_continue) || r == 0) {
                    break;
                }
            }
        }
        zstd_sys::ZSTD_freeCCtx(cctx);
        ok.then_some(frame)
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((level, flags, dict, src, cuts)) = stream_input(data) else {
        return;
    };
    let calls = stream_calls(flags, &src, &cuts);
    let ours = stream_ours(level, flags, dict, &src, &calls);
    let theirs = oracle(level, flags, dict, src.len(), &calls);
    match (ours, theirs) {
        (Some(a), Some(b)) => assert!(a == b, "level {level}, flags {flags}: frames differ"),
        (None, _) => {}
        (Some(_), None) => panic!("level {level}: libzstd refused what we compressed"),
    }
});
