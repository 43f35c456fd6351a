//! Match finders, one module per libzstd strategy family.

pub(crate) mod double_fast;
pub(crate) mod fast;
pub(crate) mod lazy;
pub(crate) mod opt;
pub(crate) mod table;

/// How fast the match finders speed up through data without matches: the step grows by
/// one every `2^(SEARCH_STRENGTH - 1)` bytes in `fast`, and is `((ip - anchor) >>
/// SEARCH_STRENGTH) + 1` in the lazy parser (`kSearchStrength`).
pub(crate) const SEARCH_STRENGTH: u32 = 8;

/// A match finder whose insertions lag more than `BLOCK_CATCH_UP_MAX` positions behind the
/// start of a block (after a very long match) resumes at most `BLOCK_CATCH_UP_KEEP`
/// positions back.
const BLOCK_CATCH_UP_MAX: usize = 384;
const BLOCK_CATCH_UP_KEEP: usize = 192;

/// Where insertions resume for a block starting at `curr` when they had reached `next`
/// (positions or indices, the same unit for both).
///
/// Mirrors the "limited update after a very long match" of ZSTD_buildSeqStore.
pub(crate) fn limited_catch_up(curr: usize, next: usize) -> usize {
    if curr > next + BLOCK_CATCH_UP_MAX {
        curr - BLOCK_CATCH_UP_KEEP.min(curr - next - BLOCK_CATCH_UP_MAX)
    } else {
        next
    }
}

/// Prime of the 4-byte hash (`prime4bytes`).
const PRIME_4_BYTES: u32 = 2_654_435_761;
/// Primes of the 5-, 6-, 7- and 8-byte hashes (`prime5bytes` .. `prime8bytes`).
const PRIME_5_BYTES: u64 = 889_523_592_379;
const PRIME_6_BYTES: u64 = 227_718_039_650_203;
const PRIME_7_BYTES: u64 = 58_295_818_150_454_627;
const PRIME_8_BYTES: u64 = 0xCF1B_BCDC_B7A5_6463;

#[inline(always)]
pub(crate) fn read32(src: &[u8], pos: usize) -> u32 {
    u32::from_le_bytes(src[pos..pos + 4].try_into().unwrap())
}

#[inline(always)]
pub(crate) fn read64(src: &[u8], pos: usize) -> u64 {
    u64::from_le_bytes(src[pos..pos + 8].try_into().unwrap())
}

/// Mirrors ZSTD_hashPtr (unsalted): hashes the first `MLS` bytes at `pos` to `h_bits` bits.
#[inline(always)]
pub(crate) fn hash_ptr<const MLS: u32>(src: &[u8], pos: usize, h_bits: u32) -> usize {
    match MLS {
        5 => ((read64(src, pos) << 24).wrapping_mul(PRIME_5_BYTES) >> (64 - h_bits)) as usize,
        6 => ((read64(src, pos) << 16).wrapping_mul(PRIME_6_BYTES) >> (64 - h_bits)) as usize,
        7 => ((read64(src, pos) << 8).wrapping_mul(PRIME_7_BYTES) >> (64 - h_bits)) as usize,
        8 => (read64(src, pos).wrapping_mul(PRIME_8_BYTES) >> (64 - h_bits)) as usize,
        _ => (read32(src, pos).wrapping_mul(PRIME_4_BYTES) >> (32 - h_bits)) as usize,
    }
}

/// Mirrors ZSTD_count: length of the common prefix of `src[a..]` and `src[b..]`, not
/// reading `a` at or past `limit` (`b < a`).
#[inline(always)]
pub(crate) fn count(src: &[u8], mut a: usize, mut b: usize, limit: usize) -> usize {
    let start = a;
    while a + 8 <= limit {
        let diff = read64(src, a) ^ read64(src, b);
        if diff != 0 {
            return a - start + (diff.trailing_zeros() / 8) as usize;
        }
        a += 8;
        b += 8;
    }
    while a < limit && src[a] == src[b] {
        a += 1;
        b += 1;
    }
    a - start
}

/// The repcodes a block starts with, and the ones set aside because they reach back past
/// what the block may reference. Mirrors the `offsetSaved1/2` handling shared by
/// `ZSTD_compressBlock_fast`, `_doubleFast` and `_lazy_generic`.
pub(crate) struct BlockReps {
    saved1: u32,
    saved2: u32,
}

impl BlockReps {
    /// Repcodes larger than `max_rep` (`curr - windowLow` at the first searched position)
    /// are zeroed for this block and remembered. Returns `(offset_1, offset_2, saved)`.
    pub(crate) fn start(rep: &[u32; 3], max_rep: u32) -> (u32, u32, BlockReps) {
        let (mut offset_1, mut offset_2) = (rep[0], rep[1]);
        let mut saved = BlockReps {
            saved1: 0,
            saved2: 0,
        };
        if offset_2 > max_rep {
            saved.saved2 = offset_2;
            offset_2 = 0;
        }
        if offset_1 > max_rep {
            saved.saved1 = offset_1;
            offset_1 = 0;
        }
        (offset_1, offset_2, saved)
    }

    /// Write the block's final repcodes back: a zeroed repcode takes its saved value, and if
    /// `offset_1` started invalid and became valid, the saved ones rotate.
    pub(crate) fn finish(mut self, rep: &mut [u32; 3], offset_1: u32, offset_2: u32) {
        if self.saved1 != 0 && offset_1 != 0 {
            self.saved2 = self.saved1;
        }
        rep[0] = if offset_1 != 0 { offset_1 } else { self.saved1 };
        rep[1] = if offset_2 != 0 { offset_2 } else { self.saved2 };
    }
}
