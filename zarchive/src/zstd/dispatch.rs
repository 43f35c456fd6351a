//! Runtime choice of code generation for the codec's hottest loops: the decoder's block
//! loop, the encoder's `fast` match finder and its Huffman stream.
//!
//! The portable x86-64 baseline has no three-operand shifts (BMI2 `shlx`/`shrx`/`bzhi`), and
//! the bit readers and writers of the sequence and Huffman loops are made of variable shifts.
//! With the `dispatch` feature (on by default) those loops are compiled a second time with the
//! x86-64-v3 features (AVX2, BMI1/2, LZCNT, MOVBE) and picked once per context when the CPU
//! has them. The target-feature call, the only `unsafe` this needs, lives inside
//! `fearless_simd` (`Simd::vectorize`); this module and everything it runs are safe code.
//!
//! Mirrors libzstd's `DYNAMIC_BMI2` (`ZSTD_DCtx_get_bmi2`, the `_bmi2` / `_default` pairs
//! of `ZSTD_decompressSequences`, the Huffman decoders and `HUF_compress1X_usingCTable`).

use std::cell::Cell;

#[cfg(all(feature = "dispatch", target_arch = "x86_64"))]
use fearless_simd::Simd;

thread_local! {
    /// Set while [`portable_only`] runs: this thread detects no accelerated code.
    static PORTABLE_ONLY: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the accelerated code generation off on this thread: the encoder's loops
/// and the decoders made inside `f` take the portable code, as on a CPU without AVX2.
/// Both must give the same bytes; this lets a test on an AVX2 machine check the portable
/// code (the CI's machines have AVX2). Work handed to other threads is not covered.
#[doc(hidden)]
pub fn portable_only<R>(f: impl FnOnce() -> R) -> R {
    /// Restores the previous setting, also when `f` panics.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            PORTABLE_ONLY.with(|p| p.set(self.0));
        }
    }
    let _restore = Restore(PORTABLE_ONLY.with(|p| p.replace(true)));
    f()
}

/// The code generation chosen for this CPU.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Isa {
    #[cfg(all(feature = "dispatch", target_arch = "x86_64"))]
    avx2: Option<fearless_simd::Avx2>,
}

impl Isa {
    /// Detect what the CPU supports (a cached lookup after the first call), unless
    /// [`portable_only`] is running on this thread.
    pub(crate) fn detect() -> Self {
        if PORTABLE_ONLY.with(Cell::get) {
            return Self::portable();
        }
        Isa {
            #[cfg(all(feature = "dispatch", target_arch = "x86_64"))]
            avx2: fearless_simd::Level::new().as_avx2(),
        }
    }

    /// The portable code only, whatever the CPU has.
    pub(crate) fn portable() -> Self {
        Isa {
            #[cfg(all(feature = "dispatch", target_arch = "x86_64"))]
            avx2: None,
        }
    }

    /// Whether the accelerated code is in use.
    pub(crate) fn accelerated(self) -> bool {
        #[cfg(all(feature = "dispatch", target_arch = "x86_64"))]
        {
            self.avx2.is_some()
        }
        #[cfg(not(all(feature = "dispatch", target_arch = "x86_64")))]
        {
            false
        }
    }

    /// Run `f` compiled for the chosen features. `f` and everything it should cover must
    /// be inlined into it (`#[inline(always)]`); what it calls out of line is compiled for
    /// the baseline.
    #[inline(always)]
    pub(crate) fn run<R>(self, f: impl FnOnce() -> R) -> R {
        #[cfg(all(feature = "dispatch", target_arch = "x86_64"))]
        if let Some(avx2) = self.avx2 {
            return avx2.vectorize(f);
        }
        f()
    }
}

/// The x86-64 baseline's vector unit, SSE2, through `fearless_simd`'s safe types: byte
/// equality masks over groups of 16 bytes (`pcmpeqb` + `pmovmskb`) and cache prefetch hints
/// (`prefetcht0`). Where there is none (other targets, or the `dispatch` feature off) the
/// masks are `None`, for the caller's portable form, and the hints do nothing.
///
/// SSE2 is part of the x86-64 baseline, so the unit is known at compile time (the token
/// comes from `Level::baseline`, a constant: what the target enables): the hot loops test
/// nothing at run time to use it.
///
/// The prefetch goes through `fearless_simd`'s `kernel!` macro: its expansion holds the
/// target-feature call, the only `unsafe`, with the same safety argument as [`Isa::run`]
/// (this crate writes none). A hint never faults and never changes a result: the address
/// is only computed, never dereferenced.
///
/// Mirrors the SSE2 branch of ZSTD_row_getMatchMask and libzstd's `PREFETCH_L1`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sse2Unit;

/// The SSE2 token of the target's baseline (folded to a constant).
#[cfg(all(feature = "dispatch", target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn baseline_sse2() -> Option<fearless_simd::Sse2> {
    fearless_simd::Level::baseline().as_sse2()
}

#[cfg(all(feature = "dispatch", target_arch = "x86_64", target_feature = "sse2"))]
fearless_simd::kernel!(
    #[inline]
    fn prefetch_t0(token: Sse2, p: *const i8) {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p);
    }
);

impl Sse2Unit {
    /// The unit, where the target has it.
    pub(crate) fn detect() -> Self {
        Sse2Unit
    }

    /// Whether the unit is there (else [`Sse2Unit::eq_mask`] is `None` and
    /// [`Sse2Unit::prefetch`] does nothing); a constant.
    #[inline(always)]
    pub(crate) fn available(self) -> bool {
        #[cfg(all(feature = "dispatch", target_arch = "x86_64", target_feature = "sse2"))]
        return baseline_sse2().is_some();
        #[cfg(not(all(feature = "dispatch", target_arch = "x86_64", target_feature = "sse2")))]
        false
    }

    /// Bit `i` of the result is set iff `bytes[i] == b`, for the `N` bytes (a multiple of
    /// 16, at most 64); `None` without the unit.
    #[inline(always)]
    pub(crate) fn eq_mask<const N: usize>(self, bytes: &[u8; N], b: u8) -> Option<u64> {
        #[cfg(all(feature = "dispatch", target_arch = "x86_64", target_feature = "sse2"))]
        if let Some(sse2) = baseline_sse2() {
            use fearless_simd::prelude::*;
            use fearless_simd::u8x16;
            let splat = u8x16::splat(sse2, b);
            let mut mask = 0u64;
            for (i, group) in bytes.chunks_exact(16).enumerate() {
                let v = u8x16::from_slice(sse2, group);
                mask |= v.simd_eq(splat).to_bitmask() << (16 * i);
            }
            return Some(mask);
        }
        let _ = (self, bytes, b);
        None
    }

    /// Bit `i` of the result is set iff `x[i] != y[i]`, for the 32 bytes; `None` without the
    /// unit.
    #[inline(always)]
    pub(crate) fn ne_mask32(self, x: &[u8; 32], y: &[u8; 32]) -> Option<u32> {
        #[cfg(all(feature = "dispatch", target_arch = "x86_64", target_feature = "sse2"))]
        if let Some(sse2) = baseline_sse2() {
            use fearless_simd::prelude::*;
            use fearless_simd::u8x16;
            let half = |at: usize| {
                let (a, b) = (
                    u8x16::from_slice(sse2, &x[at..at + 16]),
                    u8x16::from_slice(sse2, &y[at..at + 16]),
                );
                a.simd_eq(b).to_bitmask() as u32
            };
            return Some(!(half(0) | half(16) << 16));
        }
        let _ = (self, x, y);
        None
    }

    /// Hint that `slice[index]` (any index: past the end is harmless) is read soon.
    #[inline(always)]
    pub(crate) fn prefetch<T>(self, slice: &[T], index: usize) {
        #[cfg(all(feature = "dispatch", target_arch = "x86_64", target_feature = "sse2"))]
        if let Some(sse2) = baseline_sse2() {
            prefetch_t0(sse2, slice.as_ptr().wrapping_add(index).cast());
        }
        let _ = (self, slice, index);
    }
}

#[cfg(test)]
mod tests {
    use super::Isa;
    use crate::zstd::compress;
    use crate::zstd::decode::MAX_WINDOW_SIZE;
    use crate::zstd::decompress::{DCtx, frame};

    /// Text-like and binary-like bytes with repeats at many distances.
    fn sample(n: usize, seed: u32) -> Vec<u8> {
        let words: [&[u8]; 6] = [
            b"archive ",
            b"block ",
            b"zstd ",
            b"\x00\x00\x00\x01",
            b"\n",
            b"frame ",
        ];
        let mut x = seed;
        let mut out = Vec::with_capacity(n + 16);
        while out.len() < n {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let k = (x >> 16) as usize;
            if k.is_multiple_of(7) && out.len() > 64 {
                let back = 1 + k % out.len().min(4000);
                let start = out.len() - back;
                for i in 0..(4 + k % 40) {
                    let b = out[start + i];
                    out.push(b);
                }
            } else {
                out.extend_from_slice(words[k % words.len()]);
                out.push((x >> 24) as u8);
            }
        }
        out.truncate(n);
        out
    }

    fn decode_with(isa: Isa, frame_bytes: &[u8], len: usize) -> Vec<u8> {
        let mut ctx = DCtx::new(MAX_WINDOW_SIZE);
        ctx.isa = isa;
        let mut out = vec![0u8; len];
        let got = frame::decompress_frames(&mut ctx, frame_bytes, &mut out).expect("decodes");
        assert_eq!(got, len);
        out
    }

    /// [`portable_only`] turns detection off on its thread for its duration only, also
    /// when its closure panics.
    #[test]
    fn portable_only_is_scoped() {
        let outside = Isa::detect().accelerated();
        super::portable_only(|| {
            assert!(!Isa::detect().accelerated());
            assert!(!DCtx::new(MAX_WINDOW_SIZE).isa.accelerated());
            // Nested: still portable after the inner scope ends.
            super::portable_only(|| ());
            assert!(!Isa::detect().accelerated());
        });
        assert_eq!(Isa::detect().accelerated(), outside);
        let caught = std::panic::catch_unwind(|| super::portable_only(|| panic!("inside")));
        assert!(caught.is_err());
        assert_eq!(Isa::detect().accelerated(), outside);
        // Another thread is not affected.
        super::portable_only(|| {
            let there = std::thread::spawn(|| Isa::detect().accelerated()).join();
            assert_eq!(there.expect("thread"), outside);
        });
    }

    /// The accelerated and the portable build of the block loop decode the same frames to
    /// the same bytes (on a CPU without AVX2 both runs take the portable path).
    #[test]
    fn accelerated_and_portable_builds_agree() {
        for (i, &len) in [1usize, 100, 5_000, 65_536, 300_000].iter().enumerate() {
            let src = sample(len, i as u32 + 1);
            for level in [1, 3, 6, 12, 19] {
                let z = compress(&src, level).expect("compresses");
                assert_eq!(
                    decode_with(Isa::portable(), &z, len),
                    src,
                    "portable L{level} {len}"
                );
                assert_eq!(
                    decode_with(Isa::detect(), &z, len),
                    src,
                    "detected L{level} {len}"
                );
            }
        }
    }
}
