//! The sequence store one block's match finder fills (`SeqStore_t`), and sequence codes.

use super::bits::highbit32;
use super::matcher::source::Source;

/// Smallest match length the format encodes (`MINMATCH`).
pub(crate) const MINMATCH: u32 = 3;
pub(crate) use crate::zstd::common::format::{REP_NUM, REP_START_VALUE};
/// An offset is stored as `offset + OFFSET_TO_OFFBASE`, above the repeat codes
/// (`OFFSET_TO_OFFBASE`).
pub(crate) const OFFSET_TO_OFFBASE: u32 = REP_NUM as u32;
/// `offBase` of "repeat offset 1" (`REPCODE1_TO_OFFBASE`).
pub(crate) const REPCODE1_TO_OFFBASE: u32 = 1;

/// Slack of the literals buffer, and the length of short literal copies.
const WILDCOPY_LENGTH: usize = 16;

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
    /// Literal bytes in `lit_buf[..lit_len]`; the buffer has [`WILDCOPY_LENGTH`] bytes of slack.
    lit_buf: Vec<u8>,
    lit_len: usize,
    pub(crate) ll_codes: Vec<u8>,
    pub(crate) of_codes: Vec<u8>,
    pub(crate) ml_codes: Vec<u8>,
}

impl SeqStore {
    /// Mirrors ZSTD_resetSeqStore, for a block of `block_size` bytes.
    pub(crate) fn reset(&mut self, block_size: usize) {
        self.sequences.clear();
        self.lit_len = 0;
        if self.lit_buf.len() < block_size + WILDCOPY_LENGTH {
            self.lit_buf.resize(block_size + WILDCOPY_LENGTH, 0);
        }
    }

    /// The block's literals.
    pub(crate) fn literals(&self) -> &[u8] {
        &self.lit_buf[..self.lit_len]
    }

    /// Copies `src[start..end]` to the literals, 16 bytes at a time for short runs
    /// (`ZSTD_wildcopy`; the bytes past the end are scratch).
    #[inline(always)]
    fn copy_literals<'a, S: Source<'a>>(&mut self, src: S, start: usize, end: usize) {
        let n = end - start;
        let dst = self.lit_len;
        if n <= WILDCOPY_LENGTH {
            // The buffer holds the block and 16 bytes more, so the literals so far end at
            // or before `last`: clamped to it, the store needs no bounds check.
            let last = self.lit_buf.len().checked_sub(WILDCOPY_LENGTH);
            if let (Some(last), Some(bytes)) = (last, src.read16_wild(start)) {
                debug_assert!(dst <= last, "literal buffer smaller than its block");
                let at = dst.min(last);
                self.lit_buf[at..at + WILDCOPY_LENGTH].copy_from_slice(&bytes);
                self.lit_len += n;
                return;
            }
        }
        self.lit_buf[dst..dst + n].copy_from_slice(&src.as_slice()[start..end]);
        self.lit_len += n;
    }

    /// Mirrors ZSTD_storeSeq: literals `src[lit_start..lit_end]` precede a match of
    /// `match_len` bytes.
    #[inline(always)]
    pub(crate) fn store<'a, S: Source<'a>>(
        &mut self,
        src: S,
        lit_start: usize,
        lit_end: usize,
        off_base: u32,
        match_len: usize,
    ) {
        self.copy_literals(src, lit_start, lit_end);
        self.sequences.push(Sequence {
            lit_len: (lit_end - lit_start) as u32,
            off_base,
            ml_base: match_len as u32 - MINMATCH,
        });
    }

    /// A match of `match_len` bytes after the last `lit_len` literals stored, which are
    /// already in the literal buffer (a block compressor's trailing literals, stored by
    /// it before long-distance matching adds its match).
    ///
    /// Mirrors the ZSTD_storeSeq of ZSTD_ldm_blockCompress.
    pub(crate) fn push_after_literals(&mut self, lit_len: u32, off_base: u32, match_len: usize) {
        self.sequences.push(Sequence {
            lit_len,
            off_base,
            ml_base: match_len as u32 - MINMATCH,
        });
    }

    /// Mirrors ZSTD_storeLastLiterals.
    pub(crate) fn store_last_literals<'a, S: Source<'a>>(
        &mut self,
        src: S,
        start: usize,
        end: usize,
    ) {
        self.copy_literals(src, start, end);
    }

    /// Makes this store a copy of `sequences` with `literals` (a chunk of another block's
    /// store, as `ZSTD_deriveSeqStoreChunk` points into it).
    pub(crate) fn assign(&mut self, sequences: &[Sequence], literals: &[u8]) {
        self.sequences.clear();
        self.sequences.extend_from_slice(sequences);
        self.reset_literals(literals);
    }

    fn reset_literals(&mut self, literals: &[u8]) {
        if self.lit_buf.len() < literals.len() + WILDCOPY_LENGTH {
            self.lit_buf.resize(literals.len() + WILDCOPY_LENGTH, 0);
        }
        self.lit_buf[..literals.len()].copy_from_slice(literals);
        self.lit_len = literals.len();
    }

    /// Mirrors ZSTD_seqToCodes (lengths of 65536 and more map to codes 35 / 52 by formula).
    pub(crate) fn compute_codes(&mut self) {
        let n = self.sequences.len();
        self.ll_codes.resize(n, 0);
        self.of_codes.resize(n, 0);
        self.ml_codes.resize(n, 0);
        let codes = self
            .ll_codes
            .iter_mut()
            .zip(self.of_codes.iter_mut())
            .zip(self.ml_codes.iter_mut());
        for (s, ((ll, of), ml)) in self.sequences.iter().zip(codes) {
            *ll = ll_code(s.lit_len);
            *of = highbit32(s.off_base) as u8;
            *ml = ml_code(s.ml_base);
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
    if lit_len > 63 {
        (highbit32(lit_len) + LL_DELTA_CODE) as u8
    } else {
        LL_CODE[lit_len as usize]
    }
}

/// Mirrors ZSTD_MLcode.
#[inline]
pub(crate) fn ml_code(ml_base: u32) -> u8 {
    if ml_base > 127 {
        (highbit32(ml_base) + ML_DELTA_CODE) as u8
    } else {
        ML_CODE[ml_base as usize]
    }
}
