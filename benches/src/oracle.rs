//! The native oracle: libzstd 1.5.7, vendored and statically built by `zstd-sys =2.1.3`.
//!
//! This is the only module of the workspace that calls C. Every call is wrapped in a safe
//! function; the buffers passed are always valid Rust slices of the stated lengths.
#![allow(unsafe_code)]

use std::ffi::c_void;

/// `ZSTD_versionNumber()` of the library we must link: 1.5.7.
pub const EXPECTED_VERSION: u32 = 10507;

/// `ZSTD_versionNumber()` of the linked library.
pub fn version_number() -> u32 {
    // SAFETY: no arguments, returns a constant.
    unsafe { zstd_sys::ZSTD_versionNumber() }
}

/// Panics unless the linked library is libzstd 1.5.7 (never the system 1.5.4).
pub fn assert_version() {
    let v = version_number();
    assert_eq!(
        v, EXPECTED_VERSION,
        "oracle is libzstd {v}, expected {EXPECTED_VERSION} (1.5.7)"
    );
}

/// `ZSTD_compressBound(n)`.
pub fn compress_bound(n: usize) -> usize {
    // SAFETY: pure arithmetic on its argument.
    unsafe { zstd_sys::ZSTD_compressBound(n) }
}

fn error_name(code: usize) -> String {
    // SAFETY: ZSTD_getErrorName returns a pointer to a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(zstd_sys::ZSTD_getErrorName(code)) }
        .to_string_lossy()
        .into_owned()
}

fn is_error(code: usize) -> bool {
    // SAFETY: pure function of its argument.
    unsafe { zstd_sys::ZSTD_isError(code) != 0 }
}

/// `ZSTD_compress(dst, ZSTD_compressBound(n), src, n, level)`, appending to `dst`.
pub fn compress_into(src: &[u8], level: i32, dst: &mut Vec<u8>) -> usize {
    let cap = compress_bound(src.len());
    let start = dst.len();
    dst.reserve(cap);
    let spare = dst.spare_capacity_mut();
    // SAFETY: `spare` has at least `cap` writable bytes; `src` is a valid slice. libzstd
    // writes at most `cap` bytes and returns how many it wrote (or an error code).
    let n = unsafe {
        zstd_sys::ZSTD_compress(
            spare.as_mut_ptr() as *mut c_void,
            cap,
            src.as_ptr() as *const c_void,
            src.len(),
            level,
        )
    };
    assert!(!is_error(n), "ZSTD_compress failed: {}", error_name(n));
    // SAFETY: libzstd initialised the first `n <= cap` bytes of the spare capacity.
    unsafe { dst.set_len(start + n) };
    n
}

/// `ZSTD_compress` into a fresh vector.
pub fn compress(src: &[u8], level: i32) -> Vec<u8> {
    let mut out = Vec::new();
    compress_into(src, level, &mut out);
    out
}

/// `ZSTD_decompress` of a frame that decodes to at most `capacity` bytes.
pub fn decompress(frame: &[u8], capacity: usize) -> Result<Vec<u8>, String> {
    let mut out: Vec<u8> = Vec::with_capacity(capacity.max(1));
    // SAFETY: `out` has `capacity` writable bytes; `frame` is a valid slice.
    let n = unsafe {
        zstd_sys::ZSTD_decompress(
            out.as_mut_ptr() as *mut c_void,
            capacity,
            frame.as_ptr() as *const c_void,
            frame.len(),
        )
    };
    if is_error(n) {
        return Err(error_name(n));
    }
    // SAFETY: libzstd initialised the first `n <= capacity` bytes.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// `ZSTD_compress_usingDict(cctx, dst, bound, src, n, dict, dict_len, level)` on a fresh
/// context: `dict` is a zstd-format dictionary when it starts with the dictionary magic
/// number, raw content otherwise.
pub fn compress_using_dict(src: &[u8], dict: &[u8], level: i32) -> Vec<u8> {
    let cap = compress_bound(src.len());
    let mut out: Vec<u8> = Vec::with_capacity(cap);
    // SAFETY: no arguments; a null result is checked.
    let cctx = unsafe { zstd_sys::ZSTD_createCCtx() };
    assert!(!cctx.is_null(), "ZSTD_createCCtx failed");
    // SAFETY: `cctx` is live; `out` has `cap` writable bytes; `src` and `dict` are valid
    // slices of the stated lengths.
    let n = unsafe {
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
    // SAFETY: `cctx` was created above and is freed once.
    unsafe { zstd_sys::ZSTD_freeCCtx(cctx) };
    assert!(
        !is_error(n),
        "ZSTD_compress_usingDict failed: {}",
        error_name(n)
    );
    // SAFETY: libzstd initialised the first `n <= cap` bytes.
    unsafe { out.set_len(n) };
    out
}

/// `ZSTD_compress_usingCDict(cctx, dst, bound, src, n, cdict)` on a fresh context with
/// `cdict = ZSTD_createCDict(dict, dict_len, level)`.
pub fn compress_using_cdict(src: &[u8], dict: &[u8], level: i32) -> Vec<u8> {
    let cap = compress_bound(src.len());
    let mut out: Vec<u8> = Vec::with_capacity(cap);
    // SAFETY: `dict` is a valid slice of the stated length (copied by libzstd); a null
    // result is checked.
    let cdict =
        unsafe { zstd_sys::ZSTD_createCDict(dict.as_ptr() as *const c_void, dict.len(), level) };
    assert!(!cdict.is_null(), "ZSTD_createCDict failed");
    // SAFETY: no arguments; a null result is checked.
    let cctx = unsafe { zstd_sys::ZSTD_createCCtx() };
    assert!(!cctx.is_null(), "ZSTD_createCCtx failed");
    // SAFETY: `cctx` and `cdict` are live; `out` has `cap` writable bytes; `src` is a valid
    // slice of the stated length.
    let n = unsafe {
        zstd_sys::ZSTD_compress_usingCDict(
            cctx,
            out.as_mut_ptr() as *mut c_void,
            cap,
            src.as_ptr() as *const c_void,
            src.len(),
            cdict,
        )
    };
    // SAFETY: both were created above and are freed once.
    unsafe {
        zstd_sys::ZSTD_freeCCtx(cctx);
        zstd_sys::ZSTD_freeCDict(cdict);
    }
    assert!(
        !is_error(n),
        "ZSTD_compress_usingCDict failed: {}",
        error_name(n)
    );
    // SAFETY: libzstd initialised the first `n <= cap` bytes.
    unsafe { out.set_len(n) };
    out
}

/// `ZSTD_compress2` on a fresh context with `ZSTD_c_compressionLevel = level` and
/// `ZSTD_CCtx_loadDictionary(dict)` (the `zstd` tool's `-D` path, without its checksum).
pub fn compress_loaded_dict(src: &[u8], dict: &[u8], level: i32) -> Vec<u8> {
    let cap = compress_bound(src.len());
    let mut out: Vec<u8> = Vec::with_capacity(cap);
    // SAFETY: no arguments; a null result is checked.
    let cctx = unsafe { zstd_sys::ZSTD_createCCtx() };
    assert!(!cctx.is_null(), "ZSTD_createCCtx failed");
    // SAFETY: `cctx` is live; `dict` is a valid slice (libzstd copies it); `out` has `cap`
    // writable bytes; `src` is a valid slice.
    let n = unsafe {
        let r = zstd_sys::ZSTD_CCtx_setParameter(
            cctx,
            zstd_sys::ZSTD_cParameter::ZSTD_c_compressionLevel,
            level,
        );
        assert!(!is_error(r), "ZSTD_CCtx_setParameter: {}", error_name(r));
        let r =
            zstd_sys::ZSTD_CCtx_loadDictionary(cctx, dict.as_ptr() as *const c_void, dict.len());
        assert!(!is_error(r), "ZSTD_CCtx_loadDictionary: {}", error_name(r));
        zstd_sys::ZSTD_compress2(
            cctx,
            out.as_mut_ptr() as *mut c_void,
            cap,
            src.as_ptr() as *const c_void,
            src.len(),
        )
    };
    // SAFETY: `cctx` was created above and is freed once.
    unsafe { zstd_sys::ZSTD_freeCCtx(cctx) };
    assert!(!is_error(n), "ZSTD_compress2 failed: {}", error_name(n));
    // SAFETY: libzstd initialised the first `n <= cap` bytes.
    unsafe { out.set_len(n) };
    out
}

/// `ZSTD_compress2` on a fresh context with `ZSTD_c_compressionLevel = level`,
/// `ZSTD_c_windowLog = window_log` and `ZSTD_CCtx_loadDictionary(dict)`: a frame with a small
/// window, whose streaming decode wraps its ring buffer many times.
pub fn compress_with_dict_and_window(
    src: &[u8],
    dict: &[u8],
    level: i32,
    window_log: i32,
) -> Vec<u8> {
    let cap = compress_bound(src.len());
    let mut out: Vec<u8> = Vec::with_capacity(cap);
    // SAFETY: no arguments; a null result is checked.
    let cctx = unsafe { zstd_sys::ZSTD_createCCtx() };
    assert!(!cctx.is_null(), "ZSTD_createCCtx failed");
    // SAFETY: `cctx` is live; `dict` is a valid slice (libzstd copies it); `out` has `cap`
    // writable bytes; `src` is a valid slice.
    let n = unsafe {
        for (p, v) in [
            (zstd_sys::ZSTD_cParameter::ZSTD_c_compressionLevel, level),
            (zstd_sys::ZSTD_cParameter::ZSTD_c_windowLog, window_log),
        ] {
            let r = zstd_sys::ZSTD_CCtx_setParameter(cctx, p, v);
            assert!(!is_error(r), "ZSTD_CCtx_setParameter: {}", error_name(r));
        }
        let r =
            zstd_sys::ZSTD_CCtx_loadDictionary(cctx, dict.as_ptr() as *const c_void, dict.len());
        assert!(!is_error(r), "ZSTD_CCtx_loadDictionary: {}", error_name(r));
        zstd_sys::ZSTD_compress2(
            cctx,
            out.as_mut_ptr() as *mut c_void,
            cap,
            src.as_ptr() as *const c_void,
            src.len(),
        )
    };
    // SAFETY: `cctx` was created above and is freed once.
    unsafe { zstd_sys::ZSTD_freeCCtx(cctx) };
    assert!(!is_error(n), "ZSTD_compress2 failed: {}", error_name(n));
    // SAFETY: libzstd initialised the first `n <= cap` bytes.
    unsafe { out.set_len(n) };
    out
}

/// `ZSTD_decompress_usingDict` of a frame that decodes to at most `capacity` bytes.
pub fn decompress_using_dict(
    frame: &[u8],
    dict: &[u8],
    capacity: usize,
) -> Result<Vec<u8>, String> {
    let dec = NativeDecoder::new();
    let mut out: Vec<u8> = Vec::with_capacity(capacity.max(1));
    // SAFETY: `dec.dctx` is live; `out` has `capacity` writable bytes; `frame` and `dict`
    // are valid slices of the stated lengths.
    let n = unsafe {
        zstd_sys::ZSTD_decompress_usingDict(
            dec.dctx,
            out.as_mut_ptr() as *mut c_void,
            capacity,
            frame.as_ptr() as *const c_void,
            frame.len(),
            dict.as_ptr() as *const c_void,
            dict.len(),
        )
    };
    if is_error(n) {
        return Err(error_name(n));
    }
    // SAFETY: libzstd initialised the first `n <= capacity` bytes.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// `ZDICT_trainFromBuffer(dict, capacity, samples, sizes, n)`: a zstd-format dictionary of
/// at most `capacity` bytes trained on `samples`.
pub fn train_dictionary(samples: &[Vec<u8>], capacity: usize) -> Vec<u8> {
    try_train_dictionary(samples, capacity).expect("ZDICT_trainFromBuffer failed")
}

/// [`train_dictionary`], or the reason libzstd gives when it cannot train (too few or too
/// uniform samples).
pub fn try_train_dictionary(samples: &[Vec<u8>], capacity: usize) -> Result<Vec<u8>, String> {
    let flat: Vec<u8> = samples.concat();
    let sizes: Vec<usize> = samples.iter().map(Vec::len).collect();
    let mut dict: Vec<u8> = Vec::with_capacity(capacity);
    // SAFETY: `dict` has `capacity` writable bytes; `flat` holds the samples whose sizes
    // `sizes` lists (`sizes.len()` of them).
    let n = unsafe {
        zstd_sys::ZDICT_trainFromBuffer(
            dict.as_mut_ptr() as *mut c_void,
            capacity,
            flat.as_ptr() as *const c_void,
            sizes.as_ptr(),
            sizes.len() as u32,
        )
    };
    // SAFETY: pure function of its argument.
    if unsafe { zstd_sys::ZDICT_isError(n) } != 0 {
        // SAFETY: ZDICT_getErrorName returns a static C string for any code.
        let name = unsafe { std::ffi::CStr::from_ptr(zstd_sys::ZDICT_getErrorName(n)) };
        return Err(name.to_string_lossy().into_owned());
    }
    // SAFETY: libzstd initialised the first `n <= capacity` bytes.
    unsafe { dict.set_len(n) };
    Ok(dict)
}

/// libzstd's `ZDICT_finalizeDictionary(dict, capacity, content, len, samples, sizes, n,
/// {level, 0, dict_id})`, or its error name.
pub fn try_finalize_dictionary(
    content: &[u8],
    samples: &[Vec<u8>],
    capacity: usize,
    level: i32,
    dict_id: u32,
) -> Result<Vec<u8>, String> {
    let flat: Vec<u8> = samples.concat();
    let sizes: Vec<usize> = samples.iter().map(Vec::len).collect();
    let mut dict: Vec<u8> = Vec::with_capacity(capacity);
    let params = zstd_sys::ZDICT_params_t {
        compressionLevel: level,
        notificationLevel: 0,
        dictID: dict_id,
    };
    // SAFETY: `dict` has `capacity` writable bytes, `content` is readable for its length
    // and does not overlap `dict`; `flat` holds the samples whose sizes `sizes` lists.
    let n = unsafe {
        zstd_sys::ZDICT_finalizeDictionary(
            dict.as_mut_ptr() as *mut c_void,
            capacity,
            content.as_ptr() as *const c_void,
            content.len(),
            flat.as_ptr() as *const c_void,
            sizes.as_ptr(),
            sizes.len() as u32,
            params,
        )
    };
    // SAFETY: pure function of its argument.
    if unsafe { zstd_sys::ZDICT_isError(n) } != 0 {
        // SAFETY: ZDICT_getErrorName returns a static C string for any code.
        let name = unsafe { std::ffi::CStr::from_ptr(zstd_sys::ZDICT_getErrorName(n)) };
        return Err(name.to_string_lossy().into_owned());
    }
    // SAFETY: libzstd initialised the first `n <= capacity` bytes.
    unsafe { dict.set_len(n) };
    Ok(dict)
}

/// A reused native decompression context (`ZSTD_createDCtx` once, `ZSTD_decompressDCtx` per
/// call), the fair counterpart of a reused [`zarkit::zstd::Decoder`]: `ZSTD_decompress`
/// creates and frees a context on every call.
pub struct NativeDecoder {
    dctx: *mut zstd_sys::ZSTD_DCtx,
}

impl NativeDecoder {
    /// A fresh context.
    pub fn new() -> Self {
        // SAFETY: no arguments; a null result is checked below.
        let dctx = unsafe { zstd_sys::ZSTD_createDCtx() };
        assert!(!dctx.is_null(), "ZSTD_createDCtx failed");
        NativeDecoder { dctx }
    }

    /// Decode every frame of `frame` into `dst`; returns the bytes written.
    pub fn decompress_into(&mut self, frame: &[u8], dst: &mut [u8]) -> Result<usize, String> {
        // SAFETY: `self.dctx` is a live context owned by `self`; `dst` and `frame` are valid
        // slices of the stated lengths.
        let n = unsafe {
            zstd_sys::ZSTD_decompressDCtx(
                self.dctx,
                dst.as_mut_ptr() as *mut c_void,
                dst.len(),
                frame.as_ptr() as *const c_void,
                frame.len(),
            )
        };
        if is_error(n) {
            Err(error_name(n))
        } else {
            Ok(n)
        }
    }
}

/// A native prepared dictionary (`ZSTD_createDDict`), for [`NativeDecoder::decompress_with`].
pub struct NativeDDict {
    ddict: *mut zstd_sys::ZSTD_DDict,
}

impl NativeDDict {
    /// `ZSTD_createDDict(dict)`: zstd-format when it starts with the magic number, else raw.
    pub fn new(dict: &[u8]) -> Self {
        // SAFETY: `dict` is a valid slice; libzstd copies it; a null result is checked.
        let ddict =
            unsafe { zstd_sys::ZSTD_createDDict(dict.as_ptr() as *const c_void, dict.len()) };
        assert!(!ddict.is_null(), "ZSTD_createDDict failed");
        NativeDDict { ddict }
    }
}

impl Drop for NativeDDict {
    fn drop(&mut self) {
        // SAFETY: created by ZSTD_createDDict and freed exactly once.
        unsafe { zstd_sys::ZSTD_freeDDict(self.ddict) };
    }
}

impl NativeDecoder {
    /// `ZSTD_decompress_usingDDict` into `dst`; returns the bytes written.
    pub fn decompress_with(
        &mut self,
        frame: &[u8],
        dst: &mut [u8],
        dict: &NativeDDict,
    ) -> Result<usize, String> {
        // SAFETY: `self.dctx` and `dict.ddict` are live; `dst` and `frame` are valid slices
        // of the stated lengths.
        let n = unsafe {
            zstd_sys::ZSTD_decompress_usingDDict(
                self.dctx,
                dst.as_mut_ptr() as *mut c_void,
                dst.len(),
                frame.as_ptr() as *const c_void,
                frame.len(),
                dict.ddict,
            )
        };
        if is_error(n) {
            Err(error_name(n))
        } else {
            Ok(n)
        }
    }
}

// SAFETY: a ZSTD_DCtx holds no thread-affine state; `NativeDecoder` owns its context
// exclusively (no `Clone`, no shared references handed out), so moving it to another thread
// moves sole ownership with it.
unsafe impl Send for NativeDecoder {}

impl Default for NativeDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for NativeDecoder {
    fn drop(&mut self) {
        // SAFETY: `self.dctx` was created by ZSTD_createDCtx and is freed exactly once.
        unsafe { zstd_sys::ZSTD_freeDCtx(self.dctx) };
    }
}

/// A native context and prepared dictionary reused across calls (`ZSTD_createCCtx` and
/// `ZSTD_createCDict(dict, level)` once, `ZSTD_compress_usingCDict` per call), or without a
/// dictionary (`ZSTD_compressCCtx` at `level`): the fair counterpart of a reused
/// [`zarkit::zstd::Compressor`] with an `EncoderDictionary`.
pub struct NativeCompressor {
    cctx: *mut zstd_sys::ZSTD_CCtx,
    cdict: *mut zstd_sys::ZSTD_CDict,
    level: i32,
}

impl NativeCompressor {
    /// A context for `level`, with `dict` prepared when given.
    pub fn new(dict: Option<&[u8]>, level: i32) -> Self {
        // SAFETY: no arguments; a null result is checked.
        let cctx = unsafe { zstd_sys::ZSTD_createCCtx() };
        assert!(!cctx.is_null(), "ZSTD_createCCtx failed");
        let cdict = match dict {
            Some(d) => {
                // SAFETY: `d` is a valid slice (copied by libzstd); a null result is checked.
                let c = unsafe {
                    zstd_sys::ZSTD_createCDict(d.as_ptr() as *const c_void, d.len(), level)
                };
                assert!(!c.is_null(), "ZSTD_createCDict failed");
                c
            }
            None => std::ptr::null_mut(),
        };
        NativeCompressor { cctx, cdict, level }
    }

    /// Compress `src` into `dst` (cleared first, sized to the bound); returns the frame size.
    pub fn compress(&mut self, src: &[u8], dst: &mut Vec<u8>) -> usize {
        let cap = compress_bound(src.len());
        dst.clear();
        dst.reserve(cap);
        // SAFETY: `self.cctx` (and `self.cdict` when not null) are live; `dst` has `cap`
        // writable bytes; `src` is a valid slice of the stated length.
        let n = unsafe {
            if self.cdict.is_null() {
                zstd_sys::ZSTD_compressCCtx(
                    self.cctx,
                    dst.as_mut_ptr() as *mut c_void,
                    cap,
                    src.as_ptr() as *const c_void,
                    src.len(),
                    self.level,
                )
            } else {
                zstd_sys::ZSTD_compress_usingCDict(
                    self.cctx,
                    dst.as_mut_ptr() as *mut c_void,
                    cap,
                    src.as_ptr() as *const c_void,
                    src.len(),
                    self.cdict,
                )
            }
        };
        assert!(!is_error(n), "native compression failed: {}", error_name(n));
        // SAFETY: libzstd initialised the first `n <= cap` bytes.
        unsafe { dst.set_len(n) };
        n
    }
}

impl Drop for NativeCompressor {
    fn drop(&mut self) {
        // SAFETY: created in `new` and freed exactly once (a null CDict is not freed).
        unsafe {
            zstd_sys::ZSTD_freeCCtx(self.cctx);
            if !self.cdict.is_null() {
                zstd_sys::ZSTD_freeCDict(self.cdict);
            }
        }
    }
}

/// One call of the streaming driver ([`compress_stream`]).
#[derive(Clone, Copy, Debug)]
pub enum StreamCall<'a> {
    /// `ZSTD_e_continue` with these bytes, repeated until they are taken.
    Continue(&'a [u8]),
    /// `ZSTD_e_flush` without input, repeated until nothing is left to flush.
    Flush,
    /// `ZSTD_e_end` with these bytes, repeated until the frame is complete.
    End(&'a [u8]),
}

/// `ZSTD_compressStream2` on a fresh context (`ZSTD_c_compressionLevel = level`,
/// `ZSTD_c_checksumFlag`, `ZSTD_CCtx_setPledgedSrcSize` when `pledged` is given, one
/// thread) driven as the `zstd` tool drives it: every call gets a fresh output buffer of
/// `ZSTD_CStreamOutSize()` bytes, and is repeated as [`StreamCall`] says. The calls should
/// end with [`StreamCall::End`].
pub fn compress_stream(
    level: i32,
    checksum: bool,
    pledged: Option<u64>,
    calls: &[StreamCall<'_>],
) -> Result<Vec<u8>, String> {
    compress_stream_with_dict(level, checksum, pledged, None, calls)
}

/// [`compress_stream`] after `ZSTD_CCtx_loadDictionary(dict)` (the `zstd` tool's `-D`).
pub fn compress_stream_with_dict(
    level: i32,
    checksum: bool,
    pledged: Option<u64>,
    dict: Option<&[u8]>,
    calls: &[StreamCall<'_>],
) -> Result<Vec<u8>, String> {
    compress_stream_with(level, checksum, pledged, dict, None, calls)
}

/// [`compress_stream_with_dict`] with long-distance matching on and this window log when
/// `long` is given (`ZSTD_c_enableLongDistanceMatching`, `ZSTD_c_windowLog`: the `zstd`
/// tool's `--long=W`).
pub fn compress_stream_with(
    level: i32,
    checksum: bool,
    pledged: Option<u64>,
    dict: Option<&[u8]>,
    long: Option<u32>,
    calls: &[StreamCall<'_>],
) -> Result<Vec<u8>, String> {
    compress_stream_headed(
        level,
        checksum,
        pledged,
        dict,
        long,
        HeaderFlags::default(),
        false,
        calls,
    )
}

/// What a frame header may leave out: the known content size (`ZSTD_c_contentSizeFlag`,
/// the `zstd` tool's `--no-content-size`) and a dictionary's ID (`ZSTD_c_dictIDFlag`,
/// `--no-dictID`). Both on by default, as in libzstd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderFlags {
    /// A known size is written in the header (`ZSTD_c_contentSizeFlag`).
    pub content_size: bool,
    /// A zstd-format dictionary's ID is written in the header (`ZSTD_c_dictIDFlag`).
    pub dict_id: bool,
}

impl Default for HeaderFlags {
    fn default() -> Self {
        HeaderFlags {
            content_size: true,
            dict_id: true,
        }
    }
}

/// [`compress_stream_with`] with the header flags `header`, and the dedicated dictionary
/// search on when `dds` (`ZSTD_c_enableDedicatedDictSearch`, as the `zstd` tool sets it).
#[allow(clippy::too_many_arguments)]
pub fn compress_stream_headed(
    level: i32,
    checksum: bool,
    pledged: Option<u64>,
    dict: Option<&[u8]>,
    long: Option<u32>,
    header: HeaderFlags,
    dds: bool,
    calls: &[StreamCall<'_>],
) -> Result<Vec<u8>, String> {
    let mut s = NativeStream::new(level, checksum);
    s.set_header_flags(header)?;
    if dds {
        s.set_dedicated_dict_search()?;
    }
    if let Some(window_log) = long {
        s.set_long(window_log)?;
    }
    if let Some(dict) = dict {
        // SAFETY: `s.cctx` is live; `dict` is a valid slice (libzstd copies it).
        let r = unsafe {
            zstd_sys::ZSTD_CCtx_loadDictionary(s.cctx, dict.as_ptr() as *const c_void, dict.len())
        };
        if is_error(r) {
            return Err(error_name(r));
        }
    }
    let mut frame = Vec::new();
    s.compress(pledged, calls, &mut frame)?;
    Ok(frame)
}

/// A native streaming compression context, reused across frames (`ZSTD_CCtx_reset` of the
/// session between them). A reused context continues its indices and salts its row hashes
/// differently, so its frames after the first may differ from a fresh context's: use
/// [`compress_stream`] for bytes, this for time.
pub struct NativeStream {
    cctx: *mut zstd_sys::ZSTD_CCtx,
    buf: Vec<u8>,
}

impl NativeStream {
    /// A context at `level` with the checksum flag.
    pub fn new(level: i32, checksum: bool) -> Self {
        // SAFETY: no arguments; a null result is checked.
        let cctx = unsafe { zstd_sys::ZSTD_createCCtx() };
        assert!(!cctx.is_null(), "ZSTD_createCCtx failed");
        // SAFETY: `cctx` is live; setting parameters cannot fail for valid values.
        unsafe {
            let r = zstd_sys::ZSTD_CCtx_setParameter(
                cctx,
                zstd_sys::ZSTD_cParameter::ZSTD_c_compressionLevel,
                level,
            );
            assert!(!is_error(r), "level: {}", error_name(r));
            let r = zstd_sys::ZSTD_CCtx_setParameter(
                cctx,
                zstd_sys::ZSTD_cParameter::ZSTD_c_checksumFlag,
                checksum as i32,
            );
            assert!(!is_error(r), "checksum: {}", error_name(r));
        }
        // SAFETY: no arguments.
        let out_cap = unsafe { zstd_sys::ZSTD_CStreamOutSize() };
        NativeStream {
            cctx,
            buf: vec![0u8; out_cap],
        }
    }

    /// The header flags of the next frames.
    pub fn set_header_flags(&mut self, header: HeaderFlags) -> Result<(), String> {
        let params = [
            (
                zstd_sys::ZSTD_cParameter::ZSTD_c_contentSizeFlag,
                header.content_size as i32,
            ),
            (
                zstd_sys::ZSTD_cParameter::ZSTD_c_dictIDFlag,
                header.dict_id as i32,
            ),
        ];
        for (param, value) in params {
            // SAFETY: `self.cctx` is live.
            let r = unsafe { zstd_sys::ZSTD_CCtx_setParameter(self.cctx, param, value) };
            if is_error(r) {
                return Err(error_name(r));
            }
        }
        Ok(())
    }

    /// The dedicated dictionary search on (`ZSTD_c_enableDedicatedDictSearch`, an
    /// experimental parameter: `ZSTD_c_experimentalParam8`), as the `zstd` tool sets it
    /// before it loads a dictionary.
    pub fn set_dedicated_dict_search(&mut self) -> Result<(), String> {
        // SAFETY: `self.cctx` is live.
        let r = unsafe {
            zstd_sys::ZSTD_CCtx_setParameter(
                self.cctx,
                zstd_sys::ZSTD_cParameter::ZSTD_c_experimentalParam8,
                1,
            )
        };
        if is_error(r) {
            return Err(error_name(r));
        }
        Ok(())
    }

    /// Long-distance matching on, with this window log, for the next frames.
    pub fn set_long(&mut self, window_log: u32) -> Result<(), String> {
        let params = [
            (
                zstd_sys::ZSTD_cParameter::ZSTD_c_enableLongDistanceMatching,
                1,
            ),
            (
                zstd_sys::ZSTD_cParameter::ZSTD_c_windowLog,
                window_log as i32,
            ),
        ];
        for (param, value) in params {
            // SAFETY: `self.cctx` is live.
            let r = unsafe { zstd_sys::ZSTD_CCtx_setParameter(self.cctx, param, value) };
            if is_error(r) {
                return Err(error_name(r));
            }
        }
        Ok(())
    }

    /// One frame through `calls`, appended to `frame`.
    pub fn compress(
        &mut self,
        pledged: Option<u64>,
        calls: &[StreamCall<'_>],
        frame: &mut Vec<u8>,
    ) -> Result<(), String> {
        self.begin(pledged)?;
        for call in calls {
            self.call(*call, frame)?;
        }
        Ok(())
    }

    /// Start a frame (`ZSTD_CCtx_reset` of the session, the pledged size).
    pub fn begin(&mut self, pledged: Option<u64>) -> Result<(), String> {
        let cctx = self.cctx;
        // SAFETY: `cctx` is live.
        unsafe {
            let r = zstd_sys::ZSTD_CCtx_reset(
                cctx,
                zstd_sys::ZSTD_ResetDirective::ZSTD_reset_session_only,
            );
            if is_error(r) {
                return Err(error_name(r));
            }
            if let Some(size) = pledged {
                let r = zstd_sys::ZSTD_CCtx_setPledgedSrcSize(cctx, size);
                if is_error(r) {
                    return Err(error_name(r));
                }
            }
        }
        Ok(())
    }

    /// One call, driven as the `zstd` tool drives it, its output appended to `frame`.
    pub fn call(&mut self, call: StreamCall<'_>, frame: &mut Vec<u8>) -> Result<(), String> {
        use zstd_sys::ZSTD_EndDirective as E;
        let cctx = self.cctx;
        {
            let (data, op): (&[u8], E) = match call {
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
                    dst: self.buf.as_mut_ptr() as *mut c_void,
                    size: self.buf.len(),
                    pos: 0,
                };
                // SAFETY: `cctx` is live; `input` describes `data`, `output` describes
                // `self.buf`, both valid for their stated sizes.
                let r =
                    unsafe { zstd_sys::ZSTD_compressStream2(cctx, &mut output, &mut input, op) };
                if is_error(r) {
                    // SAFETY: `cctx` is live; a reset ends the failed frame.
                    unsafe {
                        zstd_sys::ZSTD_CCtx_reset(
                            cctx,
                            zstd_sys::ZSTD_ResetDirective::ZSTD_reset_session_only,
                        )
                    };
                    return Err(error_name(r));
                }
                frame.extend_from_slice(&self.buf[..output.pos]);
                let taken = input.pos == input.size;
                let done = match op {
                    E::ZSTD_e_continue => taken,
                    _ => taken && r == 0,
                };
                if done {
                    break;
                }
            }
        }
        Ok(())
    }
}

impl Drop for NativeStream {
    fn drop(&mut self) {
        // SAFETY: `cctx` was created in `new` and is freed once.
        unsafe { zstd_sys::ZSTD_freeCCtx(self.cctx) };
    }
}

/// A native streaming decompression context (`ZSTD_decompressStream`), reused.
pub struct NativeStreamDecoder {
    dctx: *mut zstd_sys::ZSTD_DCtx,
}

impl Default for NativeStreamDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl NativeStreamDecoder {
    pub fn new() -> Self {
        // SAFETY: no arguments; a null result is checked.
        let dctx = unsafe { zstd_sys::ZSTD_createDCtx() };
        assert!(!dctx.is_null(), "ZSTD_createDCtx failed");
        NativeStreamDecoder { dctx }
    }

    /// Decode `frames` fed whole, taking the output `out.len()` bytes at a time (each piece
    /// handed to `sink`); returns the bytes decoded.
    pub fn decompress(
        &mut self,
        frames: &[u8],
        out: &mut [u8],
        sink: &mut dyn FnMut(&[u8]),
    ) -> u64 {
        // SAFETY: `dctx` is live.
        unsafe {
            zstd_sys::ZSTD_DCtx_reset(
                self.dctx,
                zstd_sys::ZSTD_ResetDirective::ZSTD_reset_session_only,
            )
        };
        let mut input = zstd_sys::ZSTD_inBuffer {
            src: frames.as_ptr() as *const c_void,
            size: frames.len(),
            pos: 0,
        };
        let mut total = 0u64;
        loop {
            let mut output = zstd_sys::ZSTD_outBuffer {
                dst: out.as_mut_ptr() as *mut c_void,
                size: out.len(),
                pos: 0,
            };
            // SAFETY: `dctx` is live; `input` describes `frames`, `output` describes `out`.
            let r = unsafe { zstd_sys::ZSTD_decompressStream(self.dctx, &mut output, &mut input) };
            assert!(!is_error(r), "ZSTD_decompressStream: {}", error_name(r));
            sink(&out[..output.pos]);
            total += output.pos as u64;
            // 0: a frame is decoded and flushed whole.
            if r == 0 && input.pos == input.size {
                return total;
            }
        }
    }
}

impl Drop for NativeStreamDecoder {
    fn drop(&mut self) {
        // SAFETY: `dctx` was created in `new` and is freed once.
        unsafe { zstd_sys::ZSTD_freeDCtx(self.dctx) };
    }
}
