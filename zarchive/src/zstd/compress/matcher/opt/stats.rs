//! Symbol statistics and prices of the optimal parser (the price functions, `optState_t`
//! statistics, `ZSTD_rescaleFreqs` and `ZSTD_updateStats` of `zstd_opt.c`). Prices are in
//! 1/256 bits.

use crate::zstd::common::seq_codes::{LL_BITS, MAX_LL, MAX_ML, MAX_OFF, ML_BITS};
use crate::zstd::compress::bits::highbit32;
use crate::zstd::compress::block::BLOCK_SIZE_MAX;
use crate::zstd::compress::seq_store::{MINMATCH, ll_code, ml_code};
use crate::zstd::decompress::fse_table::ML_BASE;

/// Fractional bits of a price (`BITCOST_ACCURACY`).
const BITCOST_ACCURACY: u32 = 8;
/// One bit (`BITCOST_MULTIPLIER`).
pub(super) const BITCOST_MULTIPLIER: u32 = 1 << BITCOST_ACCURACY;
/// Blocks up to this size on a first block use fixed prices (`ZSTD_PREDEF_THRESHOLD`).
pub(super) const PREDEF_THRESHOLD: usize = 8;
/// Each literal counts this much in its frequency (`ZSTD_LITFREQ_ADD`).
const LITFREQ_ADD: u32 = 2;
/// Largest literal (`MaxLit`).
const MAX_LIT: usize = 255;
/// First block: the byte histogram is divided by `2^FIRST_BLOCK_LIT_SHIFT`.
const FIRST_BLOCK_LIT_SHIFT: u32 = 8;
/// Later blocks: sums are scaled down towards `2^LIT_SCALE_LOG` (literals) and
/// `2^SEQ_SCALE_LOG` (the sequence codes).
const LIT_SCALE_LOG: u32 = 12;
const SEQ_SCALE_LOG: u32 = 11;
/// Predefined prices: bits per literal, and the emulated base cost of an offset.
const PREDEF_LITERAL_BITS: u32 = 6;
const PREDEF_OFFSET_BITS: u32 = 16;
/// btopt adds a handicap to offset codes from this one on (favours decompression speed).
const LONG_OFFSET_CODE: u32 = 20;
/// Every match costs this much more, to favour fewer sequences (`BITCOST_MULTIPLIER / 5`).
const MATCH_HANDICAP: u32 = BITCOST_MULTIPLIER / 5;

/// Initial literal-length frequencies of a first block (`baseLLfreqs`).
#[rustfmt::skip]
const BASE_LL_FREQS: [u32; MAX_LL + 1] = [
    4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
];
/// Initial offset-code frequencies of a first block (`baseOFCfreqs`).
#[rustfmt::skip]
const BASE_OF_FREQS: [u32; MAX_OFF + 1] = [
    6, 2, 1, 1, 2, 3, 4, 4, 4, 3, 2, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
];

/// `optLevel`: 0 for btopt (whole-bit weights, speed shortcuts), 2 for btultra and btultra2
/// (fractional weights, the "match + 1 literal" check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OptLevel {
    Opt0,
    Opt2,
}

impl OptLevel {
    /// Whether the forward pass checks "replaced match + 1 literal" (`optLevel >= 1`).
    pub(super) fn checks_one_literal(self) -> bool {
        self != OptLevel::Opt0
    }
}

/// Mirrors ZSTD_bitWeight.
#[inline(always)]
fn bit_weight(stat: u32) -> u32 {
    highbit32(stat + 1) * BITCOST_MULTIPLIER
}

/// Mirrors ZSTD_fracWeight: whole bits plus a linear fraction.
#[inline(always)]
fn frac_weight(raw_stat: u32) -> u32 {
    let stat = raw_stat + 1;
    let hb = highbit32(stat);
    hb * BITCOST_MULTIPLIER + ((stat << BITCOST_ACCURACY) >> hb)
}

/// Mirrors the `WEIGHT` macro.
#[inline(always)]
fn weight(stat: u32, level: OptLevel) -> u32 {
    match level {
        OptLevel::Opt0 => bit_weight(stat),
        OptLevel::Opt2 => frac_weight(stat),
    }
}

/// Mirrors ZSTD_downscaleStats: `base1` guarantees every symbol keeps a count of 1 at least.
fn downscale(table: &mut [u32], shift: u32, base1: bool) -> u32 {
    let mut sum = 0;
    for s in table.iter_mut() {
        let base = if base1 { 1 } else { (*s > 0) as u32 };
        *s = base + (*s >> shift);
        sum += *s;
    }
    sum
}

/// Mirrors ZSTD_scaleStats.
fn scale(table: &mut [u32], log_target: u32) -> u32 {
    let prev_sum: u32 = table.iter().sum();
    let factor = prev_sum >> log_target;
    if factor <= 1 {
        return prev_sum;
    }
    downscale(table, highbit32(factor), true)
}

/// Statistics a frame's first block starts from when the entropy tables it inherits code
/// every byte value (`HUF_repeat_valid`, only after a formatted dictionary): each symbol's
/// frequency is `2^(scale - bits)` for its code length, or 1 without a code.
#[derive(Clone, Debug)]
pub(crate) struct DictSeed {
    lit: [u32; MAX_LIT + 1],
    lit_length: [u32; MAX_LL + 1],
    match_length: [u32; MAX_ML + 1],
    off_code: [u32; MAX_OFF + 1],
}

/// Literal frequencies from code lengths are scaled to 2 K, the others to 1 K.
const DICT_LIT_SCALE_LOG: u32 = 11;
const DICT_SEQ_SCALE_LOG: u32 = 10;

impl DictSeed {
    /// From the code length of every literal and the most bits of every literal-length,
    /// match-length and offset code.
    ///
    /// Mirrors the dictionary branch of ZSTD_rescaleFreqs.
    pub(crate) fn new(
        lit_bits: impl Fn(usize) -> u32,
        ll_bits: impl Fn(usize) -> u32,
        ml_bits: impl Fn(usize) -> u32,
        of_bits: impl Fn(usize) -> u32,
    ) -> DictSeed {
        fn fill<const N: usize>(bits: impl Fn(usize) -> u32, scale: u32) -> [u32; N] {
            // A hostile dictionary's 12-bit literal codes exceed the scale: the shift
            // wraps as libzstd's does on x86-64 (by 31), and so do the sums.
            std::array::from_fn(|s| match bits(s) {
                0 => 1,
                b => 1u32.wrapping_shl(scale.wrapping_sub(b)),
            })
        }
        DictSeed {
            lit: fill(lit_bits, DICT_LIT_SCALE_LOG),
            lit_length: fill(ll_bits, DICT_SEQ_SCALE_LOG),
            match_length: fill(ml_bits, DICT_SEQ_SCALE_LOG),
            off_code: fill(of_bits, DICT_SEQ_SCALE_LOG),
        }
    }
}

/// The statistics of `optState_t`, with each symbol's cost kept beside its frequency.
///
/// libzstd computes `WEIGHT(freq)` at every price request; here every frequency change
/// (block start, each stored sequence) refreshes the symbol's cost, so a price is a table
/// read plus the table's sum price. The sums are the same wrapping `u32` arithmetic,
/// regrouped, so every price equals libzstd's.
#[derive(Clone, Debug)]
pub(super) struct Stats {
    lit_freq: [u32; MAX_LIT + 1],
    lit_length_freq: [u32; MAX_LL + 1],
    match_length_freq: [u32; MAX_ML + 1],
    off_code_freq: [u32; MAX_OFF + 1],
    lit_sum: u32,
    lit_length_sum: u32,
    match_length_sum: u32,
    off_code_sum: u32,
    lit_sum_base_price: u32,
    lit_length_sum_base_price: u32,
    match_length_sum_base_price: u32,
    off_code_sum_base_price: u32,
    /// `WEIGHT(litFreq[s])`.
    lit_weight: [u32; MAX_LIT + 1],
    /// `LL_bits[c] * BITCOST_MULTIPLIER - WEIGHT(litLengthFreq[c])`, wrapping.
    ll_cost: [u32; MAX_LL + 1],
    /// `ML_bits[c] * BITCOST_MULTIPLIER - WEIGHT(matchLengthFreq[c])` plus the match
    /// handicap, wrapping; padded to 64 entries so that a code masked to 6 bits (a no-op)
    /// needs no bounds check in the parser's pricing loop.
    ml_cost: [u32; ML_COST_SLOTS],
    /// `c * BITCOST_MULTIPLIER - WEIGHT(offCodeFreq[c])` plus btopt's long-offset
    /// handicap, wrapping.
    of_cost: [u32; MAX_OFF + 1],
    /// The weights above are libzstd's `optLevel` 0 ones (whole bits) or 2 (fractional).
    level: OptLevel,
    /// `priceType == zop_predef`.
    predef: bool,
    /// The match-length cost of every length the parser prices: `ml_cost` of the length's
    /// code, or with predefined prices the length's weight. The pricing loops read it in
    /// place of computing the code (a branch and a table) and testing `predef`. Allocated
    /// once per context (see [`Stats::reset`]), filled per block.
    ml_cost_by_len: Vec<u32>,
    /// What [`Stats::ml_price`] adds to `ml_cost_by_len`: the match-length sum's base
    /// price, or 0 with predefined prices.
    ml_price_base: u32,
}

/// [`Stats::ml_price`] over a borrowed copy of its table (see [`Stats::ml_prices`]).
#[derive(Clone, Copy)]
pub(super) struct MlPrices<'s> {
    by_len: &'s [u32],
    base: u32,
    stats: &'s Stats,
}

impl<'s> MlPrices<'s> {
    /// The table's costs of the lengths `lo..=hi`, where it has them all; a length's
    /// price is its cost plus [`MlPrices::base`].
    #[inline(always)]
    pub(super) fn costs(self, lo: usize, hi: usize) -> Option<&'s [u32]> {
        self.by_len.get(lo..=hi)
    }

    /// What a length's price adds to its cost in [`MlPrices::costs`].
    #[inline(always)]
    pub(super) fn base(self) -> u32 {
        self.base
    }

    /// [`Stats::ml_price`]: the table's cost where it has the length, else computed from
    /// the length's code.
    #[inline(always)]
    pub(super) fn price(self, match_length: u32) -> u32 {
        match self.by_len.get(match_length as usize) {
            Some(&cost) => {
                debug_assert_eq!(
                    cost.wrapping_add(self.base),
                    self.stats.ml_price_slow(match_length)
                );
                cost.wrapping_add(self.base)
            }
            None => self.stats.ml_price_slow(match_length),
        }
    }
}

/// Lengths below this have their match-length cost in [`Stats`]'s `ml_cost_by_len`: every
/// length the parser prices is shorter than `ZSTD_OPT_NUM`.
const ML_PRICED_LENS: usize = 1 << 12;

impl Default for Stats {
    fn default() -> Self {
        Stats {
            lit_freq: [0; MAX_LIT + 1],
            lit_length_freq: [0; MAX_LL + 1],
            match_length_freq: [0; MAX_ML + 1],
            off_code_freq: [0; MAX_OFF + 1],
            lit_sum: 0,
            lit_length_sum: 0,
            match_length_sum: 0,
            off_code_sum: 0,
            lit_sum_base_price: 0,
            lit_length_sum_base_price: 0,
            match_length_sum_base_price: 0,
            off_code_sum_base_price: 0,
            lit_weight: [0; MAX_LIT + 1],
            ll_cost: [0; MAX_LL + 1],
            ml_cost: [0; ML_COST_SLOTS],
            of_cost: [0; MAX_OFF + 1],
            level: OptLevel::Opt2,
            predef: false,
            ml_cost_by_len: Vec::new(),
            ml_price_base: 0,
        }
    }
}

/// Entries of [`Stats`]'s match-length costs: the codes' count rounded up to a power of two.
const ML_COST_SLOTS: usize = (MAX_ML + 1).next_power_of_two();
// Offset codes are masked with `MAX_OFF` ([`Stats::off_price`]).
const _: () = assert!((MAX_OFF + 1).is_power_of_two());

/// The cost of literal-length code `c` at frequency `freq`.
#[inline(always)]
fn ll_cost(c: usize, freq: u32, level: OptLevel) -> u32 {
    (LL_BITS[c] as u32 * BITCOST_MULTIPLIER).wrapping_sub(weight(freq, level))
}

/// The cost of match-length code `c` at frequency `freq`, the match handicap included.
#[inline(always)]
fn ml_cost(c: usize, freq: u32, level: OptLevel) -> u32 {
    (ML_BITS[c] as u32 * BITCOST_MULTIPLIER)
        .wrapping_sub(weight(freq, level))
        .wrapping_add(MATCH_HANDICAP)
}

/// The cost of offset code `c` at frequency `freq`, btopt's long-offset handicap included.
#[inline(always)]
fn of_cost(c: usize, freq: u32, level: OptLevel) -> u32 {
    let c = c as u32;
    let mut cost = (c * BITCOST_MULTIPLIER).wrapping_sub(weight(freq, level));
    if level == OptLevel::Opt0 && c >= LONG_OFFSET_CODE {
        cost = cost.wrapping_add((c - (LONG_OFFSET_CODE - 1)) * 2 * BITCOST_MULTIPLIER);
    }
    cost
}

impl Stats {
    /// A new frame's statistics, keeping the length table's allocation.
    pub(super) fn reset(&mut self) {
        let table = std::mem::take(&mut self.ml_cost_by_len);
        *self = Stats {
            ml_cost_by_len: table,
            ..Stats::default()
        };
    }

    /// No statistics collected yet: this is the frame's first block (`litLengthSum == 0`).
    pub(super) fn first_block(&self) -> bool {
        self.lit_length_sum == 0
    }

    /// Mirrors ZSTD_setBasePrices (literals are always compressed here).
    pub(super) fn set_base_prices(&mut self) {
        let level = self.level;
        self.lit_sum_base_price = weight(self.lit_sum, level);
        self.lit_length_sum_base_price = weight(self.lit_length_sum, level);
        self.match_length_sum_base_price = weight(self.match_length_sum, level);
        self.off_code_sum_base_price = weight(self.off_code_sum, level);
        self.ml_price_base = if self.predef {
            0
        } else {
            self.match_length_sum_base_price
        };
    }

    /// Rewrites the match-length costs of the lengths up to `longest` from `ml_cost` (or
    /// the predefined weights): no match of the block is longer.
    fn fill_ml_cost_by_len(&mut self, longest: usize) {
        self.ml_cost_by_len.resize(ML_PRICED_LENS, 0);
        let end = (longest + 1).min(ML_PRICED_LENS);
        if self.predef {
            for len in MINMATCH as usize..end {
                self.ml_cost_by_len[len] = weight(len as u32 - MINMATCH, self.level);
            }
            return;
        }
        // Code by code: each covers a run of lengths.
        for (c, &cost) in self.ml_cost.iter().enumerate().take(MAX_ML + 1) {
            let first = ML_BASE[c] as usize;
            if first >= end {
                break;
            }
            let last = (first + (1 << ML_BITS[c])).min(end);
            self.ml_cost_by_len[first..last].fill(cost);
        }
    }

    /// Mirrors ZSTD_rescaleFreqs: a first block seeds the statistics from the dictionary's
    /// tables (`seed`), or else the literal statistics from its own bytes and the others
    /// from fixed tables; later blocks scale the accumulated statistics down.
    pub(super) fn rescale(&mut self, block: &[u8], level: OptLevel, seed: Option<&DictSeed>) {
        self.predef = false;
        if let (true, Some(seed)) = (self.first_block(), seed) {
            let sum = |t: &[u32]| t.iter().fold(0u32, |a, &f| a.wrapping_add(f));
            self.lit_freq = seed.lit;
            self.lit_sum = sum(&seed.lit);
            self.lit_length_freq = seed.lit_length;
            self.lit_length_sum = sum(&seed.lit_length);
            self.match_length_freq = seed.match_length;
            self.match_length_sum = sum(&seed.match_length);
            self.off_code_freq = seed.off_code;
            self.off_code_sum = sum(&seed.off_code);
        } else if self.first_block() {
            self.predef = block.len() <= PREDEF_THRESHOLD;
            self.lit_freq = [0; MAX_LIT + 1];
            for &b in block {
                self.lit_freq[b as usize] += 1;
            }
            self.lit_sum = downscale(&mut self.lit_freq, FIRST_BLOCK_LIT_SHIFT, false);
            self.lit_length_freq = BASE_LL_FREQS;
            self.lit_length_sum = BASE_LL_FREQS.iter().sum();
            self.match_length_freq = [1; MAX_ML + 1];
            self.match_length_sum = (MAX_ML + 1) as u32;
            self.off_code_freq = BASE_OF_FREQS;
            self.off_code_sum = BASE_OF_FREQS.iter().sum();
        } else {
            self.lit_sum = scale(&mut self.lit_freq, LIT_SCALE_LOG);
            self.lit_length_sum = scale(&mut self.lit_length_freq, SEQ_SCALE_LOG);
            self.match_length_sum = scale(&mut self.match_length_freq, SEQ_SCALE_LOG);
            self.off_code_sum = scale(&mut self.off_code_freq, SEQ_SCALE_LOG);
        }
        self.level = level;
        for (w, &f) in self.lit_weight.iter_mut().zip(&self.lit_freq) {
            *w = weight(f, level);
        }
        for (c, (cost, &f)) in self
            .ll_cost
            .iter_mut()
            .zip(&self.lit_length_freq)
            .enumerate()
        {
            *cost = ll_cost(c, f, level);
        }
        for (c, (cost, &f)) in self
            .ml_cost
            .iter_mut()
            .zip(&self.match_length_freq)
            .enumerate()
        {
            *cost = ml_cost(c, f, level);
        }
        for (c, (cost, &f)) in self.of_cost.iter_mut().zip(&self.off_code_freq).enumerate() {
            *cost = of_cost(c, f, level);
        }
        self.fill_ml_cost_by_len(block.len());
        self.set_base_prices();
    }

    /// Mirrors ZSTD_rawLiteralsCost for one literal (`LIT_PRICE`).
    #[inline(always)]
    pub(super) fn lit_price(&self, lit: u8) -> i32 {
        if self.predef {
            return (PREDEF_LITERAL_BITS * BITCOST_MULTIPLIER) as i32;
        }
        let max = self.lit_sum_base_price - BITCOST_MULTIPLIER;
        let price = self.lit_weight[lit as usize].min(max);
        (self.lit_sum_base_price - price) as i32
    }

    /// Mirrors ZSTD_litLengthPrice (`LL_PRICE`).
    #[inline(always)]
    pub(super) fn ll_price(&self, lit_length: u32) -> i32 {
        if self.predef {
            return weight(lit_length, self.level) as i32;
        }
        if lit_length as usize == BLOCK_SIZE_MAX {
            // Not representable: one bit more than the longest representable length.
            return BITCOST_MULTIPLIER as i32 + self.ll_price(lit_length - 1);
        }
        let code = ll_code(lit_length) as usize;
        self.ll_cost[code].wrapping_add(self.lit_length_sum_base_price) as i32
    }

    /// `LL_INCPRICE`: the price change of one more literal.
    #[inline(always)]
    pub(super) fn ll_inc_price(&self, lit_length: u32) -> i32 {
        self.ll_price(lit_length) - self.ll_price(lit_length - 1)
    }

    /// The offset part of ZSTD_getMatchPrice for `off_base`: the price of a match is this
    /// plus [`Stats::ml_price`] of its length, wrapping, as an `i32`. Callers pricing many
    /// lengths of one offset compute this part once.
    #[inline(always)]
    pub(super) fn off_price(&self, off_base: u32) -> u32 {
        let off_code = highbit32(off_base);
        if self.predef {
            return (PREDEF_OFFSET_BITS + off_code) * BITCOST_MULTIPLIER;
        }
        // Codes are below 32 (the mask is a no-op that spares a bounds check).
        self.of_cost[off_code as usize & MAX_OFF].wrapping_add(self.off_code_sum_base_price)
    }

    /// The match-length part of ZSTD_getMatchPrice (with the match handicap).
    #[inline(always)]
    pub(super) fn ml_price(&self, match_length: u32) -> u32 {
        self.ml_prices().price(match_length)
    }

    /// [`Stats::ml_price`] as a value the pricing loop keeps in registers: read through
    /// `self`, the table's address and length were reloaded after every store to the
    /// price table (the compiler cannot tell the two apart).
    #[inline(always)]
    pub(super) fn ml_prices(&self) -> MlPrices<'_> {
        MlPrices {
            by_len: &self.ml_cost_by_len,
            base: self.ml_price_base,
            stats: self,
        }
    }

    /// [`Stats::ml_price`] computed from the code.
    fn ml_price_slow(&self, match_length: u32) -> u32 {
        let ml_base = match_length - MINMATCH;
        if self.predef {
            return weight(ml_base, self.level);
        }
        let ml = ml_code(ml_base) as usize & (ML_COST_SLOTS - 1);
        self.ml_cost[ml].wrapping_add(self.match_length_sum_base_price)
    }

    /// The costs of the symbols whose frequencies change follow them.
    pub(super) fn update(&mut self, literals: &[u8], off_base: u32, match_length: u32) {
        let level = self.level;
        for &b in literals {
            let f = &mut self.lit_freq[b as usize];
            *f += LITFREQ_ADD;
            self.lit_weight[b as usize] = weight(*f, level);
        }
        self.lit_sum += literals.len() as u32 * LITFREQ_ADD;
        let c = ll_code(literals.len() as u32) as usize;
        self.lit_length_freq[c] += 1;
        self.ll_cost[c] = ll_cost(c, self.lit_length_freq[c], level);
        self.lit_length_sum += 1;
        let c = highbit32(off_base) as usize;
        self.off_code_freq[c] += 1;
        self.of_cost[c] = of_cost(c, self.off_code_freq[c], level);
        self.off_code_sum += 1;
        let c = ml_code(match_length - MINMATCH) as usize;
        self.match_length_freq[c] += 1;
        self.ml_cost[c] = ml_cost(c, self.match_length_freq[c], level);
        if !self.predef {
            // The lengths of code `c` follow its cost.
            let first = ML_BASE[c] as usize;
            let end = (first + (1 << ML_BITS[c])).min(ML_PRICED_LENS);
            if let Some(lens) = self.ml_cost_by_len.get_mut(first..end) {
                lens.fill(self.ml_cost[c]);
            }
        }
        self.match_length_sum += 1;
    }
}
