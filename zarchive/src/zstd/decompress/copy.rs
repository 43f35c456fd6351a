//! Copy kernels of sequence execution: wild copies in fixed-size chunks that may write up to
//! [`WILDCOPY_OVERLENGTH`](super::WILDCOPY_OVERLENGTH) bytes past their end (the caller
//! guarantees the room), overlapping match copies, and exact copies for the buffer's end.

use super::{BLOCK_SIZE_MAX, LIT_BUFFER_SIZE};

/// Positions in the hot loop's output are below 2^32 (the caller rebases the output it
/// hands to the wild copies): masking them says so to the compiler, so `i + N` cannot
/// overflow and each chunk access needs one bounds check instead of two.
const IDX: usize = u32::MAX as usize;

/// Load 16 bytes at `i`.
#[inline(always)]
fn load16(s: &[u8], i: usize) -> [u8; 16] {
    let i = i & IDX;
    let mut v = [0u8; 16];
    v.copy_from_slice(&s[i..i + 16]);
    v
}

/// Copy `N`-byte chunks from `s` on to `d` on within `out` until `d` reaches `end`, writing
/// up to `N - 1` bytes past it; returns where both got to. A chunk never reads bytes it has
/// not yet written when `d - s >= N`.
#[inline(always)]
fn chunks_until<const N: usize>(
    out: &mut [u8],
    mut d: usize,
    mut s: usize,
    end: usize,
) -> (usize, usize) {
    while d < end {
        let i = s & IDX;
        let mut v = [0u8; N];
        v.copy_from_slice(&out[i..i + N]);
        store(out, d, &v);
        d += N;
        s += N;
    }
    (d, s)
}

/// Load 8 bytes at `i`.
#[inline(always)]
fn load8(s: &[u8], i: usize) -> [u8; 8] {
    let i = i & IDX;
    let mut v = [0u8; 8];
    v.copy_from_slice(&s[i..i + 8]);
    v
}

/// Store `v` at `i`.
#[inline(always)]
fn store<const N: usize>(s: &mut [u8], i: usize, v: &[u8; N]) {
    let i = i & IDX;
    s[i..i + N].copy_from_slice(v);
}

/// Copy `len` literals from `lits[src..]` to `out[dst..]` in 16-byte chunks: writes up to
/// 15 bytes past `dst + len` (at least 16 bytes), reads as far past `src + len`. The
/// literal positions are masked to the buffer's 128 KiB (a no-op for the caller's
/// `src + len <= BLOCK_SIZE_MAX`), so reading them needs no bounds check.
///
/// Mirrors ZSTD_copy16 + ZSTD_wildcopy (no overlap).
#[inline(always)]
pub(crate) fn wild_copy_lits(
    out: &mut [u8],
    dst: usize,
    lits: &[u8; LIT_BUFFER_SIZE],
    src: usize,
    len: usize,
) {
    const MASK: usize = BLOCK_SIZE_MAX - 1;
    debug_assert!(dst + len <= IDX, "wild copies take positions below 2^32");
    let chunk = |i: usize| -> [u8; 16] {
        let at = (src + i) & MASK;
        let mut v = [0u8; 16];
        v.copy_from_slice(&lits[at..at + 16]);
        v
    };
    store(out, dst, &chunk(0));
    let mut i = 16;
    while i < len {
        store(out, dst + i, &chunk(i));
        i += 16;
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
pub(crate) fn wild_copy_match(out: &mut [u8], dst: usize, offset: usize, len: usize) {
    debug_assert!(dst + len <= IDX, "wild copies take positions below 2^32");
    let mut s = dst - offset;
    let mut d = dst;
    let end = dst + len;
    if offset >= 16 {
        // Chunks never read bytes they have not yet written. One 16-byte copy, then two
        // per step, as ZSTD_wildcopy; a long match far enough back moves 32 bytes at a
        // time (measured: 16-byte steps are faster on text, 32-byte moves on long runs).
        let v = load16(out, s);
        store(out, d, &v);
        d += 16;
        s += 16;
        if d >= end {
            return;
        }
        if offset >= 32 && end - d > 96 {
            chunks_until::<32>(out, d, s, end);
            return;
        }
        while d < end {
            let v = load16(out, s);
            store(out, d, &v);
            let v = load16(out, s + 16);
            store(out, d + 16, &v);
            d += 32;
            s += 32;
        }
        return;
    }
    if offset < 8 {
        // The 16 bytes from the source hold the 8 to write (`d = s + offset`): one bounds
        // check, then constant-range indices.
        let s0 = s & IDX;
        let w = &mut out[s0..s0 + 16];
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
        let v = load8(out, s);
        store(out, d, &v);
        s += 8;
    }
    d += 8;
    // The distance is now at least 8: 8-byte chunks are safe. A long run widens the
    // distance to a multiple of the period of at least 16 and copies 16 bytes at a time.
    if end - dst > 64 {
        let (d, _) = chunks_until::<8>(out, d, s, dst + 24);
        let dist = offset * 16usize.div_ceil(offset);
        chunks_until::<16>(out, d, d - dist, end);
        return;
    }
    chunks_until::<8>(out, d, s, end);
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
    fn wild_match_copy_equals_a_byte_loop_for_every_short_offset() {
        let lengths: Vec<usize> = (1..=100).chain([127, 128, 129, 1000, 40_000]).collect();
        for offset in 1..=64 {
            for &len in &lengths {
                // Matches that start right at the history's first bytes, and further in.
                for start in [offset, offset + 1, offset + 7, 100] {
                    let mut a = seed(start + len + 64);
                    let mut b = a.clone();
                    wild_copy_match(&mut a, start, offset, len);
                    naive(&mut b, start, offset, len);
                    assert_eq!(
                        a[..start + len],
                        b[..start + len],
                        "offset {offset} len {len} at {start}"
                    );
                }
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
            wild_copy_lits(&mut out, 5, &lits, 7, len);
            assert_eq!(out[5..5 + len], lits[7..7 + len]);
            assert!(out[..5].iter().all(|&b| b == 0));
        }
    }
}
