//! The sequences section of a compressed block (`zstd_compress_sequences.c` and
//! `ZSTD_buildSequencesStatistics`): per-stream mode choice, tables and the bitstream.

use super::bits::{BitWriter, StreamScratch};
use super::fse::{self, FseCTable};
use super::params::Strategy;
use super::seq_store::SeqStore;
use crate::zstd::common::seq_codes::{
    self, LL_BITS, LL_DEFAULT_NORM, LL_DEFAULT_NORM_LOG, LL_FSE_LOG, LONG_NB_SEQ, ML_BITS,
    ML_DEFAULT_NORM, ML_DEFAULT_NORM_LOG, ML_FSE_LOG, OF_DEFAULT_NORM, OF_DEFAULT_NORM_LOG,
    OFF_FSE_LOG,
};

/// Symbol encoding modes (`SymbolEncodingType_e`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EncodingType {
    Basic = 0,
    Rle = 1,
    Compressed = 2,
    Repeat = 3,
}

/// Whether a previous FSE table may be reused (`FSE_repeat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum FseRepeat {
    #[default]
    None,
    Check,
    Valid,
}

/// Largest offset code the default table covers (`DefaultMaxOff`).
const DEFAULT_MAX_OFF: u32 = 28;
/// The largest codes as the `u32` symbol bounds the histogram functions take.
const MAX_LL: u32 = seq_codes::MAX_LL as u32;
const MAX_ML: u32 = seq_codes::MAX_ML as u32;
const MAX_OFF: u32 = seq_codes::MAX_OFF as u32;
/// Low-probability counts are -1 from this many sequences on (`ZSTD_useLowProbCount`).
const LOW_PROB_COUNT_MIN_SEQ: usize = 2048;
/// Fixed-threshold path: `set_repeat` below this many sequences (`staticFse_nbSeq_max`).
const STATIC_FSE_NB_SEQ_MAX: usize = 1000;

/// `kInverseProbabilityLog256[x] = floor(-log2(x / 256) * 256)`.
#[rustfmt::skip]
static INVERSE_PROBABILITY_LOG256: [u32; 256] = [
    0, 2048, 1792, 1642, 1536, 1453, 1386, 1329, 1280, 1236, 1197, 1162, 1130, 1100, 1073, 1047,
    1024, 1001, 980, 960, 941, 923, 906, 889, 874, 859, 844, 830, 817, 804, 791, 779,
    768, 756, 745, 734, 724, 714, 704, 694, 685, 676, 667, 658, 650, 642, 633, 626,
    618, 610, 603, 595, 588, 581, 574, 567, 561, 554, 548, 542, 535, 529, 523, 517,
    512, 506, 500, 495, 489, 484, 478, 473, 468, 463, 458, 453, 448, 443, 438, 434,
    429, 424, 420, 415, 411, 407, 402, 398, 394, 390, 386, 382, 377, 373, 370, 366,
    362, 358, 354, 350, 347, 343, 339, 336, 332, 329, 325, 322, 318, 315, 311, 308,
    305, 302, 298, 295, 292, 289, 286, 282, 279, 276, 273, 270, 267, 264, 261, 258,
    256, 253, 250, 247, 244, 241, 239, 236, 233, 230, 228, 225, 222, 220, 217, 215,
    212, 209, 207, 204, 202, 199, 197, 194, 192, 190, 187, 185, 182, 180, 178, 175,
    173, 171, 168, 166, 164, 162, 159, 157, 155, 153, 151, 149, 146, 144, 142, 140,
    138, 136, 134, 132, 130, 128, 126, 123, 121, 119, 117, 115, 114, 112, 110, 108,
    106, 104, 102, 100, 98, 96, 94, 93, 91, 89, 87, 85, 83, 82, 80, 78,
    76, 74, 73, 71, 69, 67, 66, 64, 62, 61, 59, 57, 55, 54, 52, 50,
    49, 47, 46, 44, 42, 41, 39, 37, 36, 34, 33, 31, 30, 28, 26, 25,
    23, 22, 20, 19, 17, 16, 14, 13, 11, 10, 8, 7, 5, 4, 2, 1,
];

/// The FSE part of the entropy state carried between blocks (`ZSTD_fseCTables_t`).
#[derive(Clone, Debug, Default)]
pub(crate) struct FseState {
    pub(crate) ll: FseCTable,
    pub(crate) of: FseCTable,
    pub(crate) ml: FseCTable,
    pub(crate) ll_repeat: FseRepeat,
    pub(crate) of_repeat: FseRepeat,
    pub(crate) ml_repeat: FseRepeat,
}

/// One of the three sequence streams, with its format constants.
struct StreamKind {
    fse_log: u32,
    default_norm: &'static [i16],
    default_norm_log: u32,
    default_max: u32,
}

const LL_KIND: StreamKind = StreamKind {
    fse_log: LL_FSE_LOG,
    default_norm: &LL_DEFAULT_NORM,
    default_norm_log: LL_DEFAULT_NORM_LOG,
    default_max: MAX_LL,
};
const OF_KIND: StreamKind = StreamKind {
    fse_log: OFF_FSE_LOG,
    default_norm: &OF_DEFAULT_NORM,
    default_norm_log: OF_DEFAULT_NORM_LOG,
    default_max: DEFAULT_MAX_OFF,
};
const ML_KIND: StreamKind = StreamKind {
    fse_log: ML_FSE_LOG,
    default_norm: &ML_DEFAULT_NORM,
    default_norm_log: ML_DEFAULT_NORM_LOG,
    default_max: MAX_ML,
};

/// Mirrors ZSTD_entropyCost: bits to code `count` with its own ideal distribution.
fn entropy_cost(count: &[u32], max: u32, total: usize) -> usize {
    let mut cost: u32 = 0;
    for &c in &count[..=max as usize] {
        let mut norm = (256 * c as usize / total) as u32;
        if c != 0 && norm == 0 {
            norm = 1;
        }
        cost = cost.wrapping_add(c.wrapping_mul(INVERSE_PROBABILITY_LOG256[norm as usize]));
    }
    (cost >> 8) as usize
}

/// Mirrors ZSTD_crossEntropyCost: bits to code `count` with the distribution `norm`.
fn cross_entropy_cost(norm: &[i16], accuracy_log: u32, count: &[u32], max: u32) -> usize {
    let shift = 8 - accuracy_log;
    let mut cost = 0usize;
    for s in 0..=max as usize {
        let norm_acc = if norm[s] != -1 { norm[s] as u32 } else { 1 };
        cost +=
            count[s] as usize * INVERSE_PROBABILITY_LOG256[(norm_acc << shift) as usize] as usize;
    }
    cost >> 8
}

/// Mirrors ZSTD_fseBitCost: bits to code `count` with an existing table; `None` if the
/// table cannot code some present symbol.
fn fse_bit_cost(ct: &FseCTable, count: &[u32], max: u32) -> Option<usize> {
    const ACCURACY_LOG: u32 = 8;
    if ct.max_symbol() < max {
        return None;
    }
    let bad_cost = (ct.table_log() + 1) << ACCURACY_LOG;
    let mut cost = 0usize;
    for s in 0..=max {
        if count[s as usize] == 0 {
            continue;
        }
        let bit_cost = ct.bit_cost(s, ACCURACY_LOG);
        if bit_cost >= bad_cost {
            return None;
        }
        cost += count[s as usize] as usize * bit_cost as usize;
    }
    Some(cost >> ACCURACY_LOG)
}

/// Mirrors ZSTD_NCountCost: size of the NCount header a compressed table would need.
fn ncount_cost(count: &[u32], max: u32, nb_seq: usize, fse_log: u32) -> usize {
    let table_log = fse::optimal_table_log(fse_log, nb_seq, max);
    let mut norm = [0i16; fse::MAX_SYMBOL + 1];
    fse::normalize_count(
        &mut norm,
        table_log,
        count,
        nb_seq,
        max,
        nb_seq >= LOW_PROB_COUNT_MIN_SEQ,
    );
    let mut scratch = Vec::with_capacity(64);
    fse::write_ncount(&mut scratch, &norm, max, table_log)
}

/// Mirrors ZSTD_selectEncodingType.
#[allow(clippy::too_many_arguments)]
fn select_encoding_type(
    repeat: &mut FseRepeat,
    count: &[u32],
    max: u32,
    most_frequent: usize,
    nb_seq: usize,
    kind: &StreamKind,
    prev: &FseCTable,
    default_allowed: bool,
    strategy: Strategy,
) -> EncodingType {
    if most_frequent == nb_seq {
        *repeat = FseRepeat::None;
        return if default_allowed && nb_seq <= 2 {
            EncodingType::Basic
        } else {
            EncodingType::Rle
        };
    }
    if strategy < Strategy::Lazy {
        if default_allowed {
            let mult = 10 - strategy as usize;
            let dynamic_fse_nb_seq_min = ((1usize << kind.default_norm_log) * mult) >> 3;
            if *repeat == FseRepeat::Valid && nb_seq < STATIC_FSE_NB_SEQ_MAX {
                return EncodingType::Repeat;
            }
            if nb_seq < dynamic_fse_nb_seq_min
                || most_frequent < (nb_seq >> (kind.default_norm_log - 1))
            {
                *repeat = FseRepeat::None;
                return EncodingType::Basic;
            }
        }
    } else {
        let basic_cost = if default_allowed {
            Some(cross_entropy_cost(
                kind.default_norm,
                kind.default_norm_log,
                count,
                max,
            ))
        } else {
            None
        };
        let repeat_cost = if *repeat != FseRepeat::None {
            fse_bit_cost(prev, count, max)
        } else {
            None
        };
        let compressed_cost =
            (ncount_cost(count, max, nb_seq, kind.fse_log) << 3) + entropy_cost(count, max, nb_seq);
        // Errors compare as huge sizes, like libzstd's error codes.
        let basic = basic_cost.unwrap_or(usize::MAX);
        let rep = repeat_cost.unwrap_or(usize::MAX);
        if basic <= rep && basic <= compressed_cost {
            *repeat = FseRepeat::None;
            return EncodingType::Basic;
        }
        if rep <= compressed_cost {
            return EncodingType::Repeat;
        }
    }
    *repeat = FseRepeat::Check;
    EncodingType::Compressed
}

/// Mirrors ZSTD_buildCTable: fills `next` for the chosen mode and appends the table
/// description (RLE byte or NCount). Returns the bytes written.
#[allow(clippy::too_many_arguments)]
fn build_ctable(
    out: &mut Vec<u8>,
    next: &mut FseCTable,
    kind: &StreamKind,
    ty: EncodingType,
    count: &mut [u32],
    max: u32,
    codes: &[u8],
    prev: &FseCTable,
) -> usize {
    match ty {
        EncodingType::Rle => {
            next.build_rle(max as u8);
            out.push(codes[0]);
            1
        }
        EncodingType::Repeat => {
            next.clone_from(prev);
            0
        }
        EncodingType::Basic => {
            next.build(kind.default_norm, kind.default_max, kind.default_norm_log);
            0
        }
        EncodingType::Compressed => {
            let mut nb_seq_1 = codes.len();
            let table_log = fse::optimal_table_log(kind.fse_log, codes.len(), max);
            // The last sequence's symbol is decremented (its state is the initial one).
            let last = codes[codes.len() - 1] as usize;
            if count[last] > 1 {
                count[last] -= 1;
                nb_seq_1 -= 1;
            }
            let mut norm = [0i16; fse::MAX_SYMBOL + 1];
            fse::normalize_count(
                &mut norm,
                table_log,
                count,
                nb_seq_1,
                max,
                nb_seq_1 >= LOW_PROB_COUNT_MIN_SEQ,
            );
            let size = fse::write_ncount(out, &norm, max, table_log);
            next.build(&norm, max, table_log);
            size
        }
    }
}

/// Counts codes; returns `(largest count, highest code)` (`HIST_countFast_wksp`).
fn count_codes(count: &mut [u32; fse::MAX_SYMBOL + 1], codes: &[u8], max: u32) -> (usize, u32) {
    // Eight interleaved tables break the increment dependency chains on frequent codes
    // (with four, a run of one code held the loop to a store-and-reload per round).
    let mut tables = [[0u32; 64]; 8];
    let chunks = codes.chunks_exact(8);
    for &c in chunks.remainder() {
        tables[0][c as usize & 63] += 1;
    }
    for c in chunks {
        for (t, &c) in tables.iter_mut().zip(c) {
            t[c as usize & 63] += 1;
        }
    }
    for (s, slot) in count.iter_mut().enumerate() {
        *slot = tables.iter().map(|t| t[s]).sum();
    }
    let (largest, max_symbol) = super::hist::summarize(&count[..=max as usize]);
    (largest as usize, max_symbol)
}

/// Modes of the three streams and the size of their table descriptions
/// (`ZSTD_symbolEncodingTypeStats_t`).
pub(crate) struct SeqStats {
    pub(crate) ll: EncodingType,
    pub(crate) of: EncodingType,
    pub(crate) ml: EncodingType,
    /// Bytes of table descriptions appended.
    pub(crate) size: usize,
    /// Size of the last NCount written (0 if none).
    last_count_size: usize,
}

/// Mirrors ZSTD_buildSequencesStatistics (the codes are already computed): chooses each
/// stream's mode, fills `next` and appends the table descriptions to `out`.
pub(crate) fn build_statistics(
    out: &mut Vec<u8>,
    ll_codes: &[u8],
    of_codes: &[u8],
    ml_codes: &[u8],
    prev: &FseState,
    next: &mut FseState,
    strategy: Strategy,
) -> SeqStats {
    let start = out.len();
    let nb_seq = ll_codes.len();
    let mut count = [0u32; fse::MAX_SYMBOL + 1];
    let mut last_count_size = 0;

    // Literal lengths.
    let (most, max) = count_codes(&mut count, ll_codes, MAX_LL);
    next.ll_repeat = prev.ll_repeat;
    let ll = select_encoding_type(
        &mut next.ll_repeat,
        &count,
        max,
        most,
        nb_seq,
        &LL_KIND,
        &prev.ll,
        true,
        strategy,
    );
    let size = build_ctable(
        out,
        &mut next.ll,
        &LL_KIND,
        ll,
        &mut count,
        max,
        ll_codes,
        &prev.ll,
    );
    if ll == EncodingType::Compressed {
        last_count_size = size;
    }
    // Offsets: the default table only covers codes up to 28.
    let (most, max) = count_codes(&mut count, of_codes, MAX_OFF);
    let of_default_allowed = max <= DEFAULT_MAX_OFF;
    next.of_repeat = prev.of_repeat;
    let of = select_encoding_type(
        &mut next.of_repeat,
        &count,
        max,
        most,
        nb_seq,
        &OF_KIND,
        &prev.of,
        of_default_allowed,
        strategy,
    );
    let size = build_ctable(
        out,
        &mut next.of,
        &OF_KIND,
        of,
        &mut count,
        max,
        of_codes,
        &prev.of,
    );
    if of == EncodingType::Compressed {
        last_count_size = size;
    }
    // Match lengths.
    let (most, max) = count_codes(&mut count, ml_codes, MAX_ML);
    next.ml_repeat = prev.ml_repeat;
    let ml = select_encoding_type(
        &mut next.ml_repeat,
        &count,
        max,
        most,
        nb_seq,
        &ML_KIND,
        &prev.ml,
        true,
        strategy,
    );
    let size = build_ctable(
        out,
        &mut next.ml,
        &ML_KIND,
        ml,
        &mut count,
        max,
        ml_codes,
        &prev.ml,
    );
    if ml == EncodingType::Compressed {
        last_count_size = size;
    }
    SeqStats {
        ll,
        of,
        ml,
        size: out.len() - start,
        last_count_size,
    }
}

/// Mirrors ZSTD_estimateBlockSize_symbolType: estimated bytes of one stream coded in mode
/// `ty` with `table` (or the default distribution), extra bits included.
fn estimate_symbol_type(
    ty: EncodingType,
    codes: &[u8],
    max_code: u32,
    table: &FseCTable,
    extra_bits: Option<&[u8]>,
    kind: &StreamKind,
) -> usize {
    let mut count = [0u32; fse::MAX_SYMBOL + 1];
    let (_, max) = count_codes(&mut count, codes, max_code);
    let cost = match ty {
        EncodingType::Basic => Some(cross_entropy_cost(
            kind.default_norm,
            kind.default_norm_log,
            &count,
            max,
        )),
        EncodingType::Rle => Some(0),
        EncodingType::Compressed | EncodingType::Repeat => fse_bit_cost(table, &count, max),
    };
    // An unusable table is an error code there, estimated as 10 bytes per sequence.
    let Some(mut bits) = cost else {
        return codes.len() * 10;
    };
    bits += match extra_bits {
        Some(extra) => codes
            .iter()
            .map(|&c| extra[c as usize] as usize)
            .sum::<usize>(),
        // An offset code is also its number of extra bits.
        None => codes.iter().map(|&c| c as usize).sum::<usize>(),
    };
    bits >> 3
}

/// Mirrors ZSTD_estimateBlockSize_sequences (with the table descriptions counted): the
/// estimated sequences section of a chunk whose statistics are `stats` and tables `tables`.
pub(crate) fn estimate_size(
    ll_codes: &[u8],
    of_codes: &[u8],
    ml_codes: &[u8],
    tables: &FseState,
    stats: &SeqStats,
) -> usize {
    let nb_seq = ll_codes.len();
    let header = 2 + (nb_seq >= 128) as usize + (nb_seq >= LONG_NB_SEQ) as usize;
    estimate_symbol_type(stats.of, of_codes, MAX_OFF, &tables.of, None, &OF_KIND)
        + estimate_symbol_type(
            stats.ll,
            ll_codes,
            MAX_LL,
            &tables.ll,
            Some(&LL_BITS),
            &LL_KIND,
        )
        + estimate_symbol_type(
            stats.ml,
            ml_codes,
            MAX_ML,
            &tables.ml,
            Some(&ML_BITS),
            &ML_KIND,
        )
        + stats.size
        + header
}

/// Mirrors the sequences part of ZSTD_entropyCompressSeqStore_internal: appends the
/// sequence count, the modes byte, the tables and the bitstream. Returns `None` when
/// libzstd would emit a raw block instead (the "≤ 1.3.4 decoder" guard).
pub(crate) fn compress_sequences(
    out: &mut Vec<u8>,
    seqs: &SeqStore,
    prev: &FseState,
    next: &mut FseState,
    strategy: Strategy,
    scratch: &mut StreamScratch,
) -> Option<()> {
    let nb_seq = seqs.sequences.len();
    if nb_seq < 128 {
        out.push(nb_seq as u8);
    } else if nb_seq < LONG_NB_SEQ {
        out.push(((nb_seq >> 8) + 0x80) as u8);
        out.push(nb_seq as u8);
    } else {
        out.push(0xFF);
        out.extend_from_slice(&((nb_seq - LONG_NB_SEQ) as u16).to_le_bytes());
    }
    if nb_seq == 0 {
        next.clone_from(prev);
        return Some(());
    }
    let seq_head = out.len();
    out.push(0);
    let stats = build_statistics(
        out,
        &seqs.ll_codes,
        &seqs.of_codes,
        &seqs.ml_codes,
        prev,
        next,
        strategy,
    );
    out[seq_head] = ((stats.ll as u8) << 6) + ((stats.of as u8) << 4) + ((stats.ml as u8) << 2);
    let last_count_size = stats.last_count_size;

    let bitstream_size = encode_sequences(out, seqs, next, scratch);
    if last_count_size != 0 && last_count_size + bitstream_size < 4 {
        return None;
    }
    Some(())
}

/// [`LL_BITS`] and [`ML_BITS`] padded to 64 entries, so that the sequence loop indexes
/// them with a code masked to 6 bits (every code is below 53) and no bounds check.
const LL_BITS_SLOTS: [u8; 64] = padded_bits(&LL_BITS);
const ML_BITS_SLOTS: [u8; 64] = padded_bits(&ML_BITS);

const fn padded_bits(bits: &[u8]) -> [u8; 64] {
    let mut out = [0; 64];
    let mut i = 0;
    while i < bits.len() {
        out[i] = bits[i];
        i += 1;
    }
    out
}

/// Mirrors ZSTD_encodeSequences: sequences are encoded last to first.
fn encode_sequences(
    out: &mut Vec<u8>,
    seqs: &SeqStore,
    tables: &FseState,
    scratch: &mut StreamScratch,
) -> usize {
    let n = seqs.sequences.len();
    let (ll_codes, of_codes, ml_codes) = (
        &seqs.ll_codes[..n],
        &seqs.of_codes[..n],
        &seqs.ml_codes[..n],
    );
    // Compiled for the CPU's three-operand shifts where it has them (the writer's shifts
    // are by variable amounts).
    // Written in the scratch room (worst case: 12 bytes a sequence), then copied out.
    let buf = scratch.room(n * 12 + 16);
    let len = crate::zstd::dispatch::Isa::detect().run(
        #[inline(always)]
        || {
            let mut bw = BitWriter::new(&mut *buf);
            write_sequences(&mut bw, seqs, ll_codes, of_codes, ml_codes, tables);
            bw.close()
        },
    );
    out.extend_from_slice(&buf[..len]);
    len
}

/// The body of [`encode_sequences`]: the sequences' bitstream, last to first.
#[inline(always)]
fn write_sequences(
    bw: &mut BitWriter<'_>,
    seqs: &SeqStore,
    ll_codes: &[u8],
    of_codes: &[u8],
    ml_codes: &[u8],
    tables: &FseState,
) {
    // One reference for the three tables: the hot loop has few registers to spare.
    let (ll, of, ml) = (&tables.ll, &tables.of, &tables.ml);
    let n = ll_codes.len();
    let last = seqs.sequences[n - 1];
    let mut ml_state = ml.init_state(ml_codes[n - 1]);
    let mut of_state = of.init_state(of_codes[n - 1]);
    let mut ll_state = ll.init_state(ll_codes[n - 1]);
    bw.add_bits(
        last.lit_len as u64,
        LL_BITS[ll_codes[n - 1] as usize] as u32,
    );
    bw.add_bits(
        last.ml_base as u64,
        ML_BITS[ml_codes[n - 1] as usize] as u32,
    );
    bw.flush();
    bw.add_bits(last.off_base as u64, of_codes[n - 1] as u32);
    bw.flush();
    for i in (0..n - 1).rev() {
        let s = seqs.sequences[i];
        let (llc, ofc, mlc) = (ll_codes[i], of_codes[i], ml_codes[i]);
        let ll_bits = LL_BITS_SLOTS[llc as usize & 63] as u32;
        let ml_bits = ML_BITS_SLOTS[mlc as usize & 63] as u32;
        let of_bits = ofc as u32;
        // States take at most 8 + 9 + 9 bits; flush like libzstd's 64-bit schedule.
        of.encode(bw, &mut of_state, ofc);
        ml.encode(bw, &mut ml_state, mlc);
        ll.encode(bw, &mut ll_state, llc);
        if ll_bits + ml_bits + of_bits >= 31 {
            bw.flush();
        }
        bw.add_bits(s.lit_len as u64, ll_bits);
        bw.add_bits(s.ml_base as u64, ml_bits);
        if ll_bits + ml_bits + of_bits > 56 {
            bw.flush();
        }
        bw.add_bits(s.off_base as u64, of_bits);
        bw.flush();
    }
    ml.flush(bw, ml_state);
    of.flush(bw, of_state);
    ll.flush(bw, ll_state);
}
