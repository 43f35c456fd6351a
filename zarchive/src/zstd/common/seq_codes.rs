//! Sequence codes: the largest code of each stream, their extra bits, the table-log limits
//! and the predefined distributions (`zstd_internal.h`, `zstd_decompress_block.c`).

/// Largest literal-length code (`MaxLL`).
pub(crate) const MAX_LL: usize = 35;
/// Largest match-length code (`MaxML`).
pub(crate) const MAX_ML: usize = 52;
/// Largest offset code (`MaxOff`).
pub(crate) const MAX_OFF: usize = 31;
/// Table-log limits (`LLFSELog`, `MLFSELog`, `OffFSELog`).
pub(crate) const LL_FSE_LOG: u32 = 9;
pub(crate) const ML_FSE_LOG: u32 = 9;
pub(crate) const OFF_FSE_LOG: u32 = 8;
/// Sequence count from which the count takes three bytes (`LONGNBSEQ`).
pub(crate) const LONG_NB_SEQ: usize = 0x7F00;

/// Extra bits per literal-length code (`LL_bits`).
#[rustfmt::skip]
pub(crate) const LL_BITS: [u8; 36] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12,
    13, 14, 15, 16,
];
/// Extra bits per match-length code (`ML_bits`).
#[rustfmt::skip]
pub(crate) const ML_BITS: [u8; 53] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11,
    12, 13, 14, 15, 16,
];
/// Predefined distributions (`LL_defaultNorm`, `ML_defaultNorm`, `OF_defaultNorm`).
#[rustfmt::skip]
pub(crate) const LL_DEFAULT_NORM: [i16; 36] = [
    4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
    -1, -1, -1, -1,
];
#[rustfmt::skip]
pub(crate) const ML_DEFAULT_NORM: [i16; 53] = [
    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
    -1, -1, -1, -1, -1,
];
#[rustfmt::skip]
pub(crate) const OF_DEFAULT_NORM: [i16; 29] = [
    1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1,
];
pub(crate) const LL_DEFAULT_NORM_LOG: u32 = 6;
pub(crate) const ML_DEFAULT_NORM_LOG: u32 = 6;
pub(crate) const OF_DEFAULT_NORM_LOG: u32 = 5;
