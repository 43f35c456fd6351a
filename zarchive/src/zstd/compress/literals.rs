//! The literals section of a compressed block (`zstd_compress_literals.c`).

use super::hist;
use super::huf::{self, HufCTable, HufFlags, HufRepeat, HufWorkspace};
use super::params::Strategy;

/// Literals block types (`SymbolEncodingType_e` as used by literals), as the `u32` the
/// section header is assembled in.
const SET_BASIC: u32 = format::SET_BASIC as u32;
const SET_RLE: u32 = format::SET_RLE as u32;
const SET_COMPRESSED: u32 = format::SET_COMPRESSED as u32;
const SET_REPEAT: u32 = format::SET_REPEAT as u32;
use crate::zstd::common::format;
/// Below this many literals a single Huffman stream is used (`MIN_LITERALS_FOR_4_STREAMS`).
const MIN_LITERALS_FOR_4_STREAMS: usize = 256;
/// Literal count above which `preferRepeat` no longer applies.
const PREFER_REPEAT_MAX_LITERALS: usize = 1024;

/// The Huffman part of the entropy state carried between blocks (`ZSTD_hufCTables_t`).
#[derive(Clone, Debug, Default)]
pub(crate) struct HufState {
    pub(crate) table: HufCTable,
    pub(crate) repeat: HufRepeat,
}

/// Mirrors ZSTD_minGain: the least a block or literals section must save.
pub(crate) fn min_gain(src_size: usize, strategy: Strategy) -> usize {
    let s = strategy as u32;
    let min_log = if strategy >= Strategy::BtUltra {
        s - 1
    } else {
        6
    };
    (src_size >> min_log) + 2
}

/// Mirrors ZSTD_minLiteralsToCompress.
fn min_literals_to_compress(strategy: Strategy, repeat: HufRepeat) -> usize {
    let shift = (9 - strategy as u32).min(3);
    if repeat == HufRepeat::Valid {
        6
    } else {
        8 << shift
    }
}

/// Writes a raw or RLE literals header (`ZSTD_noCompressLiterals` / `ZSTD_compressRleLiteralsBlock`).
fn write_plain_header(out: &mut Vec<u8>, block_type: u32, size: usize) {
    let size = size as u32;
    if size <= 31 {
        out.push((block_type + (size << 3)) as u8);
    } else if size <= 4095 {
        out.extend_from_slice(&((block_type + (1 << 2) + (size << 4)) as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(block_type + (3 << 2) + (size << 4)).to_le_bytes()[..3]);
    }
}

/// Mirrors ZSTD_noCompressLiterals.
pub(crate) fn write_raw(out: &mut Vec<u8>, lits: &[u8]) -> usize {
    let start = out.len();
    write_plain_header(out, SET_BASIC, lits.len());
    out.extend_from_slice(lits);
    out.len() - start
}

/// Mirrors ZSTD_compressRleLiteralsBlock.
fn write_rle(out: &mut Vec<u8>, lits: &[u8]) -> usize {
    let start = out.len();
    write_plain_header(out, SET_RLE, lits.len());
    out.push(lits[0]);
    out.len() - start
}

/// Mirrors ZSTD_compressLiterals. `next` starts as a copy of `prev` and receives the new
/// Huffman state. Returns the section size.
#[allow(clippy::too_many_arguments)]
pub(crate) fn compress_literals(
    out: &mut Vec<u8>,
    lits: &[u8],
    prev: &HufState,
    next: &mut HufState,
    ws: &mut HufWorkspace,
    strategy: Strategy,
    disable_compression: bool,
    suspect_uncompressible: bool,
) -> usize {
    let n = lits.len();
    next.clone_from(prev);
    if disable_compression || n < min_literals_to_compress(strategy, prev.repeat) {
        return write_raw(out, lits);
    }
    let lh_size = 3 + (n >= 1024) as usize + (n >= 16 * 1024) as usize;
    let mut single_stream = n < MIN_LITERALS_FOR_4_STREAMS;
    let mut repeat = prev.repeat;
    let flags = HufFlags {
        prefer_repeat: strategy < Strategy::Lazy && n <= PREFER_REPEAT_MAX_LITERALS,
        optimal_depth: strategy >= Strategy::BtUltra,
        suspect_uncompressible,
    };
    if repeat == HufRepeat::Valid && lh_size == 3 {
        single_stream = true;
    }
    let start = out.len();
    out.extend_from_slice(&[0; 5][..lh_size]);
    let c_lit = huf::compress(
        out,
        lits,
        !single_stream,
        ws,
        &mut next.table,
        &mut repeat,
        flags,
    );
    let h_type = if repeat != HufRepeat::None {
        SET_REPEAT
    } else {
        SET_COMPRESSED
    };

    if c_lit == 0 || c_lit >= n - min_gain(n, strategy) {
        out.truncate(start);
        next.clone_from(prev);
        return write_raw(out, lits);
    }
    if c_lit == 1 && (n >= 8 || lits.iter().all(|&b| b == lits[0])) {
        out.truncate(start);
        next.clone_from(prev);
        return write_rle(out, lits);
    }
    if h_type == SET_COMPRESSED {
        next.repeat = HufRepeat::Check;
    }
    let (n32, c32) = (n as u32, c_lit as u32);
    let header = &mut out[start..start + lh_size];
    match lh_size {
        3 => {
            let lhc = h_type + ((!single_stream as u32) << 2) + (n32 << 4) + (c32 << 14);
            header.copy_from_slice(&lhc.to_le_bytes()[..3]);
        }
        4 => {
            let lhc = h_type + (2 << 2) + (n32 << 4) + (c32 << 18);
            header.copy_from_slice(&lhc.to_le_bytes());
        }
        _ => {
            let lhc = h_type + (3 << 2) + (n32 << 4) + (c32 << 22);
            header[..4].copy_from_slice(&lhc.to_le_bytes());
            header[4] = (c_lit >> 10) as u8;
        }
    }
    lh_size + c_lit
}

/// Literals mode chosen by the block splitter's statistics (`hufMetadata->hType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LitMode {
    Basic,
    Rle,
    Compressed,
    Repeat,
}

/// The statistics pass does not try to compress this many literals or fewer
/// (`COMPRESS_LITERALS_SIZE_MIN`), or 6 with a valid previous table.
const STATS_MIN_LITERALS: usize = 63;
const STATS_MIN_LITERALS_VALID_TABLE: usize = 6;
/// Bytes of the jump table of 4-stream Huffman literals.
const JUMP_TABLE_SIZE: usize = 6;

/// Mirrors ZSTD_buildBlockEntropyStats_literals: the mode and the size of the table
/// description; `next` receives the table the mode implies. `None` is libzstd's error
/// (a new table that cannot be described), which stops the split search there.
pub(crate) fn build_stats(
    lits: &[u8],
    prev: &HufState,
    next: &mut HufState,
    ws: &mut HufWorkspace,
    disable_compression: bool,
    optimal_depth: bool,
) -> Option<(LitMode, usize)> {
    let n = lits.len();
    next.clone_from(prev);
    if disable_compression {
        return Some((LitMode::Basic, 0));
    }
    let min_size = if prev.repeat == HufRepeat::Valid {
        STATS_MIN_LITERALS_VALID_TABLE
    } else {
        STATS_MIN_LITERALS
    };
    if n <= min_size {
        return Some((LitMode::Basic, 0));
    }
    let (largest, max_symbol) = huf::count_symbols(ws, lits);
    if largest as usize == n {
        return Some((LitMode::Rle, 0));
    }
    if largest as usize <= (n >> 7) + 4 {
        return Some((LitMode::Basic, 0));
    }
    let mut repeat = prev.repeat;
    if repeat == HufRepeat::Check && !prev.table.validate(huf::counted(ws), max_symbol) {
        repeat = HufRepeat::None;
    }
    let (new_size, h_size) =
        huf::build_table_for_stats(ws, n, max_symbol, optimal_depth, &mut next.table);
    // Quirk: a failed description is the error code `(size_t)-1`, and these sums wrap.
    if repeat != HufRepeat::None {
        let old_size = prev
            .table
            .estimate_compressed_size(huf::counted(ws), max_symbol);
        if old_size < n
            && (old_size <= h_size.wrapping_add(new_size) || h_size.wrapping_add(12) >= n)
        {
            next.clone_from(prev);
            return Some((LitMode::Repeat, 0));
        }
    }
    if new_size.wrapping_add(h_size) >= n {
        next.clone_from(prev);
        return Some((LitMode::Basic, 0));
    }
    if h_size == huf::WRITE_CTABLE_ERROR {
        return None;
    }
    next.repeat = HufRepeat::Check;
    Some((LitMode::Compressed, h_size))
}

/// Mirrors ZSTD_estimateBlockSize_literal: the estimated literals section (header
/// included) of `lits` in `mode` with `table`; `des_size` bytes of table description are
/// added when the mode writes a new table.
pub(crate) fn estimate_size(
    lits: &[u8],
    mode: LitMode,
    des_size: usize,
    table: &HufCTable,
) -> usize {
    let n = lits.len();
    match mode {
        LitMode::Basic => n,
        LitMode::Rle => 1,
        LitMode::Compressed | LitMode::Repeat => {
            let mut count = [0u32; 256];
            let (_, max_symbol) = hist::count(&mut count, lits);
            let header = 3 + (n >= 1024) as usize + (n >= 16 * 1024) as usize;
            let mut size = table.estimate_compressed_size(&count, max_symbol);
            if mode == LitMode::Compressed {
                size += des_size;
            }
            if n >= MIN_LITERALS_FOR_4_STREAMS {
                size += JUMP_TABLE_SIZE;
            }
            size + header
        }
    }
}
