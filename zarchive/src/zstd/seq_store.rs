//! The sequence store one block's match finder fills (`SeqStore_t`), and sequence codes.

use super::bits::highbit32;

/// Smallest match length the format encodes (`MINMATCH`).
pub(crate) const MINMATCH: u32 = 3;
/// Number of repeat offsets (`ZSTD_REP_NUM`).
pub(crate) const REP_NUM: usize = 3;
/// Repeat offsets of a fresh frame (`repStartValue`).
pub(crate) const REP_START_VALUE: [u32; REP_NUM] = [1, 4, 8];
/// `offBase` of "repeat offset 1" (`REPCODE1_TO_OFFBASE`).
pub(crate) const REPCODE1_TO_OFFBASE: u32 = 1;

/// One sequence: literals, then a match (`SeqDef`, with full-width lengths).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sequence {
    pub(crate) lit_len: u32,
    /// 1..=3 are repeat codes, otherwise `offset + 3` (`OFFSET_TO_OFFBASE`).
    pub(crate) off_base: u32,
    /// Match length minus [`MINMATCH`].
    pub(crate) ml_base: u32,
}

/// Sequences and literals of one block.
#[derive(Debug, Default)]
pub(crate) struct SeqStore {
    pub(crate) sequences: Vec<Sequence>,
    pub(crate) literals: Vec<u8>,
    pub(crate) ll_codes: Vec<u8>,
    pub(crate) of_codes: Vec<u8>,
    pub(crate) ml_codes: Vec<u8>,
}

impl SeqStore {
    /// Mirrors ZSTD_resetSeqStore.
    pub(crate) fn reset(&mut self) {
        self.sequences.clear();
        self.literals.clear();
    }

    /// Mirrors ZSTD_storeSeq: `lits` precede a match of `match_len` bytes.
    #[inline(always)]
    pub(crate) fn store(&mut self, lits: &[u8], off_base: u32, match_len: usize) {
        self.literals.extend_from_slice(lits);
        self.sequences.push(Sequence { lit_len: lits.len() as u32, off_base, ml_base: match_len as u32 - MINMATCH });
    }

    /// Mirrors ZSTD_storeLastLiterals.
    pub(crate) fn store_last_literals(&mut self, lits: &[u8]) {
        self.literals.extend_from_slice(lits);
    }

    /// Mirrors ZSTD_seqToCodes (lengths of 65536 and more map to codes 35 / 52 by formula).
    pub(crate) fn compute_codes(&mut self) {
        self.ll_codes.clear();
        self.of_codes.clear();
        self.ml_codes.clear();
        for s in &self.sequences {
            self.ll_codes.push(ll_code(s.lit_len));
            self.of_codes.push(highbit32(s.off_base) as u8);
            self.ml_codes.push(ml_code(s.ml_base));
        }
    }
}

/// Literal-length codes for lengths below 64 (`LL_Code`).
#[rustfmt::skip]
const LL_CODE: [u8; 64] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 20, 20, 21, 21, 21, 21,
    22, 22, 22, 22, 22, 22, 22, 22, 23, 23, 23, 23, 23, 23, 23, 23,
    24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
];
/// `LL_deltaCode`.
const LL_DELTA_CODE: u32 = 19;
/// Match-length codes for `mlBase` below 128 (`ML_Code`).
#[rustfmt::skip]
const ML_CODE: [u8; 128] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    32, 32, 33, 33, 34, 34, 35, 35, 36, 36, 36, 36, 37, 37, 37, 37,
    38, 38, 38, 38, 38, 38, 38, 38, 39, 39, 39, 39, 39, 39, 39, 39,
    40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40,
    41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41, 41,
    42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42,
    42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42,
];
/// `ML_deltaCode`.
const ML_DELTA_CODE: u32 = 36;

/// Mirrors ZSTD_LLcode.
#[inline]
pub(crate) fn ll_code(lit_len: u32) -> u8 {
    if lit_len > 63 { (highbit32(lit_len) + LL_DELTA_CODE) as u8 } else { LL_CODE[lit_len as usize] }
}

/// Mirrors ZSTD_MLcode.
#[inline]
pub(crate) fn ml_code(ml_base: u32) -> u8 {
    if ml_base > 127 { (highbit32(ml_base) + ML_DELTA_CODE) as u8 } else { ML_CODE[ml_base as usize] }
}
