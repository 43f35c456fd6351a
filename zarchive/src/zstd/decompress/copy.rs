//! Copy kernels of sequence execution: wild copies in fixed-size chunks that may write up to
//! [`WILDCOPY_OVERLENGTH`](super::WILDCOPY_OVERLENGTH) bytes past their end (the caller
//! guarantees the room), overlapping match copies, and exact copies for the buffer's end.

use super::{BLOCK_SIZE_MAX, LIT_BUFFER_SIZE};

/// Positions in the hot loop's output are below 2^32 (the caller rebases the output it
/// hands to the wild copies): masking them says so to the compiler, so `i + N` cannot
/// overflow and each chunk access needs one bounds check instead of two.
const IDX: usize = u32::MAX as usize;

/// Positions the fixed window holds.
pub(crate) const FIXED_WINDOW: usize = 1 << 16;
/// The fixed window: 64 KiB of positions and the wild copies' reach past them.
pub(crate) const FIXED_VIEW: usize = FIXED_WINDOW + 2 * super::WILDCOPY_OVERLENGTH;

/// An output the wild copies write into. Positions are masked to what they can be: below
/// 2^32 in a slice (one bounds check per access), below 64 KiB in the fixed window of a
/// ZAR block (no check at all: the mask and the array's length prove every access).
pub(crate) trait WildOut {
    /// Whether a match copy may write its 16-byte chunks in pairs, the second starting
    /// past the match's end. Not in the fixed window: its mask would wrap a start past
    /// 64 KiB to the window's beginning, so every chunk there starts before the end.
    const PAIRED: bool;
    /// Whether a match of at most 16 bytes is copied in one 16-byte chunk before its
    /// offset is looked at (measured with `decode_speed`: in the fixed window, the block
    /// sets at levels 1, 6 and 19 gain up to 13 %, text blocks lose 1-2 %; in a slice,
    /// binary64k at level 6 loses 6-8 %).
    const SHORT_FIRST: bool;
    /// The `N` bytes at `i` (`N <= 32`).
    fn load<const N: usize>(&self, i: usize) -> [u8; N];
    /// Store `v` at `i`.
    fn store<const N: usize>(&mut self, i: usize, v: &[u8; N]);
    /// The 16 bytes at `i`, to change in place.
    fn window16(&mut self, i: usize) -> &mut [u8; 16];
}

impl WildOut for [u8] {
    const PAIRED: bool = true;
    const SHORT_FIRST: bool = false;
    #[inline(always)]
    fn load<const N: usize>(&self, i: usize) -> [u8; N] {
        let i = i & IDX;
        let mut v = [0u8; N];
        v.copy_from_slice(&self[i..i + N]);
        v
    }
    #[inline(always)]
    fn store<const N: usize>(&mut self, i: usize, v: &[u8; N]) {
        let i = i & IDX;
        self[i..i + N].copy_from_slice(v);
    }
    #[inline(always)]
    fn window16(&mut self, i: usize) -> &mut [u8; 16] {
        let i = i & IDX;
        (&mut self[i..i + 16]).try_into().expect("16 bytes")
    }
}

impl WildOut for [u8; FIXED_VIEW] {
    const PAIRED: bool = false;
    const SHORT_FIRST: bool = true;
    #[inline(always)]
    fn load<const N: usize>(&self, i: usize) -> [u8; N] {
        let i = i & (FIXED_WINDOW - 1);
        let mut v = [0u8; N];
        v.copy_from_slice(&self[i..i + N]);
        v
    }
    #[inline(always)]
    fn store<const N: usize>(&mut self, i: usize, v: &[u8; N]) {
        let i = i & (FIXED_WINDOW - 1);
        self[i..i + N].copy_from_slice(v);
    }
    #[inline(always)]
    fn window16(&mut self, i: usize) -> &mut [u8; 16] {
        let i = i & (FIXED_WINDOW - 1);
        (&mut self[i..i + 16]).try_into().expect("16 bytes")
    }
}

/// Copy `N`-byte chunks from `s` on to `d` on within `out` until `d` reaches `end`, writing
/// up to `N - 1` bytes past it; returns where both got to. A chunk never reads bytes it has
/// not yet written when `d - s >= N`.
#[inline(always)]
fn chunks_until<const N: usize, O: WildOut + ?Sized>(
    out: &mut O,
    mut d: usize,
    mut s: usize,
    end: usize,
) -> (usize, usize) {
    while d < end {
        let v = out.load::<N>(s);
        out.store(d, &v);
        d += N;
        s += N;
    }
    (d, s)
}

/// Copy `len` literals from `lits[src..]` to `out[dst..]`, 32 bytes at a time: writes up to
/// 31 bytes past `dst + len` (at least 32 bytes in all), reads as far past `src + len`. One
/// chunk holds most literal runs, so the test after it is predictable (after 16 bytes, as
/// libzstd tests, it is not: `decode_speed` binary64k L6 0.82-0.83 -> 0.90-0.92 x native).
/// The literal positions are masked to the buffer's 128 KiB (a no-op for the
/// caller's `src + len <= BLOCK_SIZE_MAX`), so reading them needs no bounds check.
///
/// The role of ZSTD_copy16 + ZSTD_wildcopy (no overlap).
#[inline(always)]
pub(crate) fn wild_copy_lits<O: WildOut + ?Sized>(
    out: &mut O,
    dst: usize,
    lits: &[u8; LIT_BUFFER_SIZE],
    src: usize,
    len: usize,
) {
    const MASK: usize = BLOCK_SIZE_MAX - 1;
    debug_assert!(dst + len <= IDX, "wild copies take positions below 2^32");
    fn chunk<const N: usize>(lits: &[u8; LIT_BUFFER_SIZE], at: usize) -> [u8; N] {
        let at = at & MASK;
        let mut v = [0u8; N];
        v.copy_from_slice(&lits[at..at + N]);
        v
    }
    out.store(dst, &chunk::<32>(lits, src));
    let mut i = 32;
    while i < len {
        out.store(dst + i, &chunk::<32>(lits, src + i));
        i += 32;
    }
}

/// Shortest rest of a match, 32 bytes or more back, that [`copy_run`] copies.
const MEMMOVE_MIN: usize = 512;

/// Shortest match [`wild_copy_match`] may copy through `memmove`: hot loops that take
/// longer matches elsewhere call it with `RUNS = false` and so call nothing out of line.
pub(crate) const LONG_RUN: usize = MEMMOVE_MIN + 16;

/// For an offset below 32, the largest multiple of it up to 32: how far each 32-byte
/// store of [`fill_period`] moves on.
const FILL_STEP: [u8; 32] = {
    let mut t = [32; 32];
    let mut o = 1;
    while o < 32 {
        t[o] = (32 / o * o) as u8;
        o += 1;
    }
    t
};
/// For an offset below 32, the smallest multiple of it of at least 32: how far back
/// [`fill_period`] reads its pattern.
const FILL_BACK: [u8; 32] = {
    let mut t = [32; 32];
    let mut o = 1;
    while o < 32 {
        t[o] = (32usize.div_ceil(o) * o) as u8;
        o += 1;
    }
    t
};

/// Continue a match of period `offset < 32` from `d` until `end`, writing up to 31 bytes
/// past it: the bytes from `d - offset` on repeat every `offset`, so one 32-byte load of
/// the same phase, made once, is stored at every multiple of the period. No store then
/// waits on a load of bytes still in flight (a chunk copy reads what the previous chunks
/// just wrote, one store-to-load forward per chunk). The caller has written the 32 bytes
/// before `d` (and the period before them).
#[inline(always)]
fn fill_period<O: WildOut + ?Sized>(out: &mut O, mut d: usize, offset: usize, end: usize) {
    let v = out.load::<32>(d - FILL_BACK[offset & 31] as usize);
    let step = FILL_STEP[offset & 31] as usize;
    while d < end {
        out.store(d, &v);
        d += step;
    }
}

/// Copy the bytes from `s` on to `d` on within `out` until `d` reaches `end` exactly, as a
/// match copy must (`s < d`, each byte from `d - s` before it), through `memmove` in
/// pieces of at most the distance, so that no piece reads bytes it writes. `end` is within
/// `out` (the wild copies' room guarantees more).
#[inline(always)]
fn copy_run(out: &mut [u8], mut d: usize, mut s: usize, end: usize) {
    let dist = d - s;
    while d < end {
        let piece = dist.min(end - d);
        out.copy_within(s..s + piece, d);
        d += piece;
        s += piece;
    }
}

/// Increments and decrements that turn an offset below 8 into a distance of at least 8
/// after the first 8 bytes (`dec32table`, `dec64table`).
const SPREAD_ADD: [usize; 8] = [0, 1, 2, 1, 4, 4, 4, 4];
const SPREAD_SUB: [usize; 8] = [8, 8, 8, 7, 8, 9, 10, 11];

/// Copy a match of `len >= 1` bytes at `offset >= 1` behind `dst` within `out`, writing up
/// to 31 bytes past `dst + len` (the caller guarantees `dst + len + 32 <= out.len()`).
///
/// Mirrors ZSTD_overlapCopy8 + ZSTD_wildcopy (the fast path of ZSTD_execSequence).
#[inline(always)]
pub(crate) fn wild_copy_match<const RUNS: bool, O: WildOut + AsMut<[u8]> + ?Sized>(
    out: &mut O,
    dst: usize,
    offset: usize,
    len: usize,
) {
    debug_assert!(dst + len <= IDX, "wild copies take positions below 2^32");
    let mut s = dst - offset;
    let mut d = dst;
    let end = dst + len;
    if offset >= 16 {
        // Chunks never read bytes they have not yet written. In the fixed window, a
        // match of at most 16 bytes (most of a ZAR block's) is one chunk, its offset not
        // tested. Otherwise a first chunk of 32 bytes where the offset allows (most
        // matches end in it: the test after it is predictable where one after 16 bytes
        // is not), else of 16; then two 16-byte copies per step, as ZSTD_wildcopy; a
        // long match far enough back moves 32 bytes at a time (measured: 16-byte steps
        // are faster on text, 32-byte moves on long runs). The first chunk starts at
        // `dst`, within the fixed window.
        if O::SHORT_FIRST && len <= 16 {
            let v = out.load::<16>(s);
            out.store(d, &v);
            return;
        }
        if offset >= 32 {
            let v = out.load::<32>(s);
            out.store(d, &v);
            d += 32;
            s += 32;
            if d >= end {
                return;
            }
        } else {
            let v = out.load::<16>(s);
            out.store(d, &v);
            d += 16;
            s += 16;
            if d >= end {
                return;
            }
        }
        if offset < 32 && end - dst > 64 {
            // A long match of a short period: 16 bytes more, then a fill.
            let v = out.load::<16>(s);
            out.store(d, &v);
            fill_period(out, d + 16, offset, end);
            return;
        }
        if offset >= 32 && end - d > 80 {
            if RUNS && end - d >= MEMMOVE_MIN {
                // Long runs far enough back (long repeats, tiled data) go through
                // `memmove`, which outruns any loop of ours or libzstd's 32-byte steps.
                copy_run(out.as_mut(), d, s, end);
            } else {
                chunks_until::<32, O>(out, d, s, end);
            }
            return;
        }
        if O::PAIRED {
            while d < end {
                let v = out.load::<16>(s);
                out.store(d, &v);
                let v = out.load::<16>(s + 16);
                out.store(d + 16, &v);
                d += 32;
                s += 32;
            }
        } else {
            chunks_until::<16, O>(out, d, s, end);
        }
        return;
    }
    if offset < 8 {
        // The 16 bytes from the source hold the 8 to write (`d = s + offset`): one
        // window, then constant-range indices.
        let w = out.window16(s);
        w[offset] = w[0];
        w[offset + 1] = w[1];
        w[offset + 2] = w[2];
        w[offset + 3] = w[3];
        let a = SPREAD_ADD[offset];
        let v: [u8; 4] = [w[a], w[a + 1], w[a + 2], w[a + 3]];
        w[offset + 4..offset + 8].copy_from_slice(&v);
        // Move past the 8 bytes just written, at a distance of at least 8.
        s = s + a + 8 - SPREAD_SUB[offset];
    } else {
        let v = out.load::<8>(s);
        out.store(d, &v);
        s += 8;
    }
    d += 8;
    // The distance is now at least 8: 8-byte chunks are safe. A long run goes on as a
    // fill once 32 bytes are written.
    if end - dst > 64 {
        let (d, _) = chunks_until::<8, O>(out, d, s, dst + 32);
        fill_period(out, d, offset, end);
        return;
    }
    chunks_until::<8, O>(out, d, s, end);
}

/// Copy `src` into `dst` (the same length) exactly. Short copies, the common case of the
/// exact path (sequences reaching into a dictionary, the end of the output), take two
/// overlapping fixed-size moves instead of a call to `memcpy`.
#[inline]
pub(crate) fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = dst.len();
    debug_assert_eq!(n, src.len());
    match n {
        0 => {}
        1..=3 => {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = *s;
            }
        }
        4..=7 => {
            let (a, b) = (load::<4>(src, 0), load::<4>(src, n - 4));
            dst[..4].copy_from_slice(&a);
            dst[n - 4..].copy_from_slice(&b);
        }
        8..=16 => {
            let (a, b) = (load::<8>(src, 0), load::<8>(src, n - 8));
            dst[..8].copy_from_slice(&a);
            dst[n - 8..].copy_from_slice(&b);
        }
        17..=32 => {
            let (a, b) = (load::<16>(src, 0), load::<16>(src, n - 16));
            dst[..16].copy_from_slice(&a);
            dst[n - 16..].copy_from_slice(&b);
        }
        _ => dst.copy_from_slice(src),
    }
}

/// `N` bytes of `s` at `i`.
#[inline(always)]
fn load<const N: usize>(s: &[u8], i: usize) -> [u8; N] {
    let mut v = [0u8; N];
    v.copy_from_slice(&s[i..i + N]);
    v
}

/// Copy `len` bytes within `out` from `src` to `dst`, ranges that do not overlap (in
/// either order: a ring buffer's previous lap lies after the write position).
#[inline]
pub(crate) fn copy_apart(out: &mut [u8], src: usize, dst: usize, len: usize) {
    if src < dst {
        let (head, tail) = out.split_at_mut(dst);
        copy_short(&mut tail[..len], &head[src..src + len]);
    } else {
        let (head, tail) = out.split_at_mut(src);
        copy_short(&mut head[dst..dst + len], &tail[..len]);
    }
}

/// Copy a match of `len` bytes at distance `dst - src` (may overlap) exactly, writing
/// nothing past `dst + len`.
///
/// Mirrors ZSTD_safecopy, with overlapping runs copied by doubling the copied span.
pub(crate) fn exact_copy_match(out: &mut [u8], mut dst: usize, src: usize, mut len: usize) {
    debug_assert!(dst > src || len == 0, "offset 0 is refused before a copy");
    while len > 0 {
        let n = (dst - src).min(len);
        copy_apart(out, src, dst, n);
        dst += n;
        len -= n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(out: &mut [u8], dst: usize, offset: usize, len: usize) {
        for i in 0..len {
            out[dst + i] = out[dst + i - offset];
        }
    }

    fn seed(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| (i as u32).wrapping_mul(2654435761).to_le_bytes()[3])
            .collect()
    }

    #[test]
    fn wild_match_copy_equals_a_byte_loop_for_every_short_offset_and_long_ones() {
        let lengths: Vec<usize> = (1..=100).chain([127, 128, 129, 1000, 40_000]).collect();
        // Long offsets too: a long match copies in pieces of at most the offset.
        for offset in (1..=64).chain([511, 512, 20_000]) {
            for &len in &lengths {
                // Matches that start right at the history's first bytes, and further in.
                for start in [offset, offset + 1, offset + 7, 100] {
                    if start < offset {
                        continue;
                    }
                    let mut a = seed(start + len + 64);
                    let mut b = a.clone();
                    naive(&mut b, start, offset, len);
                    // With and without `memmove` for long runs (the hot loops' form).
                    let mut c = a.clone();
                    wild_copy_match::<true, _>(a.as_mut_slice(), start, offset, len);
                    wild_copy_match::<false, _>(c.as_mut_slice(), start, offset, len);
                    for (got, runs) in [(&a, true), (&c, false)] {
                        assert_eq!(
                            got[..start + len],
                            b[..start + len],
                            "offset {offset} len {len} at {start}, runs {runs}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn fixed_window_copies_equal_a_byte_loop_up_to_the_window_end() {
        // The same copies in the fixed 64 KiB window, with matches ending at its very end
        // (their wild chunks then run into the slack).
        let lengths: Vec<usize> = (1..=70).chain([127, 129, 1000, 40_000]).collect();
        let mut lits = [0u8; LIT_BUFFER_SIZE];
        lits[..300].copy_from_slice(&seed(300));
        for offset in [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 1000] {
            for &len in &lengths {
                for start in [offset, offset + 7, FIXED_WINDOW - len] {
                    if start < offset || start + len > FIXED_WINDOW {
                        continue;
                    }
                    let mut a: Box<[u8; FIXED_VIEW]> =
                        seed(FIXED_VIEW).into_boxed_slice().try_into().unwrap();
                    let mut b = a.to_vec();
                    let mut c = a.clone();
                    wild_copy_match::<true, _>(&mut *a, start, offset, len);
                    wild_copy_match::<false, _>(&mut *c, start, offset, len);
                    naive(&mut b, start, offset, len);
                    for (got, runs) in [(&a, true), (&c, false)] {
                        assert_eq!(
                            got[..start + len],
                            b[..start + len],
                            "offset {offset} len {len}, runs {runs}"
                        );
                    }
                }
            }
        }
        for len in [0, 1, 16, 17, 250] {
            let mut out: Box<[u8; FIXED_VIEW]> = vec![0u8; FIXED_VIEW].try_into().unwrap();
            let dst = FIXED_WINDOW - len.max(1);
            wild_copy_lits(&mut *out, dst, &lits, 7, len);
            assert_eq!(out[dst..dst + len], lits[7..7 + len]);
        }
    }

    #[test]
    fn copies_from_another_slice_equal_a_plain_copy_up_to_its_end() {
        let src: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in 1..=70 {
            // Sources far from the end and ending at its very end.
            for from in [
                0,
                5,
                src.len() - len - 40,
                src.len() - len - 1,
                src.len() - len,
            ] {
                let mut out = [0xAAu8; 200];
                copy_short(&mut out[9..9 + len], &src[from..from + len]);
                assert_eq!(
                    out[9..9 + len],
                    src[from..from + len],
                    "len {len} from {from}"
                );
                assert!(
                    out[..9].iter().all(|&b| b == 0xAA),
                    "nothing before the start"
                );
            }
        }
    }

    #[test]
    fn exact_match_copy_equals_a_byte_loop_and_writes_nothing_past_the_end() {
        for offset in 1..=64 {
            for len in (1..=100).chain([1000, 40_000]) {
                let start = 64;
                let mut a = seed(start + len);
                let mut b = a.clone();
                exact_copy_match(&mut a, start, start - offset.min(start), len);
                naive(&mut b, start, offset.min(start), len);
                assert_eq!(a, b, "offset {offset} len {len}");
            }
        }
    }

    #[test]
    fn wild_literal_copy_copies_the_literals() {
        let mut lits = [0u8; LIT_BUFFER_SIZE];
        lits[..300].copy_from_slice(&seed(300));
        for len in 0..=250 {
            let mut out = vec![0u8; 300];
            wild_copy_lits(out.as_mut_slice(), 5, &lits, 7, len);
            assert_eq!(out[5..5 + len], lits[7..7 + len]);
            assert!(out[..5].iter().all(|&b| b == 0));
        }
    }
}
