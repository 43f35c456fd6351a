//! Match finders, one module per libzstd strategy family.

pub(crate) mod double_fast;
pub(crate) mod fast;
pub(crate) mod lazy;
pub(crate) mod opt;
pub(crate) mod table;

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
