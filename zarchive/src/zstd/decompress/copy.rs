//! Copy kernels of sequence execution: wild copies in fixed-size chunks that may write up to
//! [`WILDCOPY_OVERLENGTH`](super::WILDCOPY_OVERLENGTH) bytes past their end (the caller
//! guarantees the room), overlapping match copies, and exact copies for the buffer's end.

/// Load 16 bytes at `i`.
#[inline(always)]
fn load16(s: &[u8], i: usize) -> [u8; 16] {
    let mut v = [0u8; 16];
    v.copy_from_slice(&s[i..i + 16]);
    v
}

/// Load 8 bytes at `i`.
#[inline(always)]
fn load8(s: &[u8], i: usize) -> [u8; 8] {
    let mut v = [0u8; 8];
    v.copy_from_slice(&s[i..i + 8]);
    v
}

/// Copy `len` literals from `lits[src..]` to `out[dst..]` in 16-byte chunks: writes up to
/// 15 bytes past `dst + len` (at least 16 bytes), reads as far past `src + len`.
///
/// Mirrors ZSTD_copy16 + ZSTD_wildcopy (no overlap).
#[inline(always)]
pub(crate) fn wild_copy_lits(out: &mut [u8], dst: usize, lits: &[u8], src: usize, len: usize) {
    out[dst..dst + 16].copy_from_slice(&lits[src..src + 16]);
    let mut i = 16;
    while i < len {
        out[dst + i..dst + i + 16].copy_from_slice(&lits[src + i..src + i + 16]);
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
    let mut s = dst - offset;
    let mut d = dst;
    let end = dst + len;
    if offset >= 16 {
        // Chunks never read bytes they have not yet written.
        loop {
            let v = load16(out, s);
            out[d..d + 16].copy_from_slice(&v);
            d += 16;
            s += 16;
            if d >= end {
                return;
            }
        }
    }
    if offset < 8 {
        out[d] = out[s];
        out[d + 1] = out[s + 1];
        out[d + 2] = out[s + 2];
        out[d + 3] = out[s + 3];
        s += SPREAD_ADD[offset];
        let v: [u8; 4] = [out[s], out[s + 1], out[s + 2], out[s + 3]];
        out[d + 4..d + 8].copy_from_slice(&v);
        // Move past the 8 bytes just written, at a distance of at least 8.
        s = s + 8 - SPREAD_SUB[offset];
    } else {
        let v = load8(out, s);
        out[d..d + 8].copy_from_slice(&v);
        s += 8;
    }
    d += 8;
    // The distance is now at least 8: 8-byte chunks are safe. A long run widens the
    // distance to a multiple of the period of at least 16 and copies 16 bytes at a time.
    if end - dst > 64 {
        while d < dst + 24 {
            let v = load8(out, s);
            out[d..d + 8].copy_from_slice(&v);
            d += 8;
            s += 8;
        }
        let dist = offset * 16usize.div_ceil(offset);
        let mut s = d - dist;
        while d < end {
            let v = load16(out, s);
            out[d..d + 16].copy_from_slice(&v);
            d += 16;
            s += 16;
        }
        return;
    }
    while d < end {
        let v = load8(out, s);
        out[d..d + 8].copy_from_slice(&v);
        d += 8;
        s += 8;
    }
}

/// Copy a match of `len` bytes at distance `dst - src` (may overlap) exactly, writing
/// nothing past `dst + len`.
///
/// Mirrors ZSTD_safecopy, with overlapping runs copied by doubling the copied span.
pub(crate) fn exact_copy_match(out: &mut [u8], mut dst: usize, src: usize, mut len: usize) {
    while len > 0 {
        let n = (dst - src).min(len);
        out.copy_within(src..src + n, dst);
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
        let lits = seed(300);
        for len in 0..=250 {
            let mut out = vec![0u8; 300];
            wild_copy_lits(&mut out, 5, &lits, 7, len);
            assert_eq!(out[5..5 + len], lits[7..7 + len]);
            assert!(out[..5].iter().all(|&b| b == 0));
        }
    }
}
