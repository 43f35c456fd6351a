//! The header of a formatted dictionary: magic number, ID, then entropy tables gathered by
//! compressing the samples with the content as a raw dictionary (`ZDICT_finalizeDictionary`,
//! `ZDICT_analyzeEntropy`, `ZDICT_countEStats`).

use super::{Samples, cannot_train};
use crate::zstd::common::format::{DICT_MAGIC, REP_START_VALUE};
use crate::zstd::common::seq_codes::{LL_FSE_LOG, MAX_LL, MAX_ML, ML_FSE_LOG, OFF_FSE_LOG};
use crate::zstd::compress::bits::highbit32;
use crate::zstd::compress::block::BLOCK_SIZE_MAX;
use crate::zstd::compress::dict::PreparedDict;
use crate::zstd::compress::frame::{self, FrameState};
use crate::zstd::compress::huf::{self, HufWorkspace};
use crate::zstd::compress::{fse, params};
use crate::zstd::error::ZstdError;

/// Room for the header (`HBUFFSIZE`): magic, ID and the entropy tables must fit.
const HEADER_ROOM: usize = 256;
/// Highest offset code the dictionary's table describes (`OFFCODE_MAX`).
const OFFCODE_MAX: usize = 30;
/// The Huffman table's depth limit (`huffLog`).
const HUF_LOG: u32 = 11;
/// Content shorter than the largest starting repeat offset is padded (`ZDICT_maxRep`).
const MIN_CONTENT_SIZE: usize = 8;
/// libzstd's default level, used for level 0 (`ZSTD_CLEVEL_DEFAULT`).
const DEFAULT_LEVEL: i32 = 3;

/// Mirrors ZDICT_finalizeDictionary on the first `nb_samples` of `samples`.
pub(super) fn finalize(
    content: &[u8],
    samples: &Samples,
    nb_samples: usize,
    capacity: usize,
    level: i32,
    dict_id: u32,
) -> Result<Vec<u8>, ZstdError> {
    if capacity < content.len() {
        return Err(cannot_train(format!(
            "the content ({} bytes) is larger than the dictionary's capacity ({capacity} bytes)",
            content.len()
        )));
    }
    if capacity < super::MIN_DICTIONARY_SIZE {
        return Err(cannot_train(format!(
            "a dictionary needs at least {} bytes, {capacity} were allowed",
            super::MIN_DICTIONARY_SIZE
        )));
    }
    let level = if level == 0 { DEFAULT_LEVEL } else { level };
    let mut header = Vec::with_capacity(HEADER_ROOM);
    header.extend_from_slice(&DICT_MAGIC.to_le_bytes());
    let id = if dict_id != 0 {
        dict_id
    } else {
        // A "random" ID from the content, kept out of the range reserved for the registry.
        let hash = xxhash_rust::xxh64::xxh64(content, 0);
        (hash % ((1u64 << 31) - 32768)) as u32 + 32768
    };
    header.extend_from_slice(&id.to_le_bytes());
    analyze_entropy(&mut header, level, samples, nb_samples, content)?;

    let h_size = header.len();
    let content_size = content.len().min(capacity - h_size);
    let padding = if content_size < MIN_CONTENT_SIZE {
        if h_size + MIN_CONTENT_SIZE > capacity {
            return Err(cannot_train(format!(
                "{capacity} bytes cannot hold the {h_size}-byte header and 8 bytes of content"
            )));
        }
        MIN_CONTENT_SIZE - content_size
    } else {
        0
    };
    // The content's start is kept when it does not fit (libzstd moves the first
    // `content_size` bytes).
    let mut dict = header;
    dict.resize(h_size + padding, 0);
    dict.extend_from_slice(&content[..content_size]);
    Ok(dict)
}

/// Statistics of the samples' sequences and literals (`ZDICT_countEStats`' counters).
struct Stats {
    literals: [u32; 256],
    offcodes: [u32; OFFCODE_MAX + 1],
    match_lengths: [u32; MAX_ML + 1],
    literal_lengths: [u32; MAX_LL + 1],
}

/// Appends the entropy tables to `header`: a Huffman table for the literals, FSE tables for
/// offset, match-length and literal-length codes, and the three starting repeat offsets.
///
/// Mirrors ZDICT_analyzeEntropy. Its "most common first offsets" are not written by
/// libzstd (the default repeat offsets are), so they are not gathered here.
fn analyze_entropy(
    header: &mut Vec<u8>,
    level: i32,
    samples: &Samples,
    nb_samples: usize,
    content: &[u8],
) -> Result<(), ZstdError> {
    let room = HEADER_ROOM - header.len();
    let start = header.len();
    // The offset codes a block after the content can need (libzstd computes in 32 bits;
    // content this large is refused before the sum could wrap).
    let reach = content.len() as u64 + BLOCK_SIZE_MAX as u64;
    let offcode_max = if reach >= 1 << 31 {
        usize::MAX
    } else {
        highbit32(reach as u32) as usize
    };
    if offcode_max > OFFCODE_MAX {
        return Err(cannot_train(format!(
            "the content ({} bytes) is too large for a dictionary",
            content.len()
        )));
    }
    // Every symbol starts at 1: any symbol must be describable.
    let mut stats = Stats {
        literals: [1; 256],
        offcodes: [0; OFFCODE_MAX + 1],
        match_lengths: [1; MAX_ML + 1],
        literal_lengths: [1; MAX_LL + 1],
    };
    stats.offcodes[..=offcode_max].fill(1);

    let total = samples.size_of_first(nb_samples);
    let average = total / nb_samples.max(1);
    // ZSTD_getParams(level, average, content): an average of 0 means "unknown", and then
    // no sample has a byte to compress, so the parameters decide nothing.
    let cp = if average == 0 {
        params::cdict_cparams(level, content.len() as u64)
    } else {
        params::cparams_with_dict(level, average as u64, content.len() as u64)
    };
    let pd = PreparedDict::raw_with_cparams(content, cp);
    // Samples are cut to one block of the chosen window; a cut sample the CDict's own
    // (possibly smaller) window cannot take as one block is refused by
    // ZSTD_compressBlock, and libzstd skips it.
    let cut = BLOCK_SIZE_MAX.min(1 << cp.window_log);
    let cdict_block = BLOCK_SIZE_MAX.min(1 << pd.cp.window_log);
    let mut st = FrameState::default();
    let mut scratch = Vec::new();
    for i in 0..nb_samples {
        let sample = samples.get(i);
        let src = &sample[..sample.len().min(cut)];
        if src.len() > cdict_block {
            continue;
        }
        if frame::compress_block_with_cdict(&mut st, &pd, src, &mut scratch) == 0 {
            continue;
        }
        count_block(&st, &mut stats);
    }

    let mut ws = HufWorkspace::default();
    let mut table = huf::build_ctable(&mut ws, &stats.literals, 255, HUF_LOG);
    if table.table_log() == 8 {
        // Incompressible literals: HUF_writeCTable could not describe the table, so a
        // mostly flat but still compressible distribution replaces them (ZDICT_flatLit).
        stats.literals = [2; 256];
        stats.literals[0] = 4;
        stats.literals[253] = 1;
        stats.literals[254] = 1;
        table = huf::build_ctable(&mut ws, &stats.literals, 255, HUF_LOG);
    }

    let mut of_norm = [0i16; OFFCODE_MAX + 1];
    let mut ml_norm = [0i16; MAX_ML + 1];
    let mut ll_norm = [0i16; MAX_LL + 1];
    normalize(&mut of_norm, OFF_FSE_LOG, &stats.offcodes, offcode_max);
    normalize(&mut ml_norm, ML_FSE_LOG, &stats.match_lengths, MAX_ML);
    normalize(&mut ll_norm, LL_FSE_LOG, &stats.literal_lengths, MAX_LL);

    if table.write(header).is_none() {
        return Err(cannot_train(
            "the literals' Huffman table cannot be described".to_string(),
        ));
    }
    fse::write_ncount(header, &of_norm, offcode_max as u32, OFF_FSE_LOG);
    fse::write_ncount(header, &ml_norm, MAX_ML as u32, ML_FSE_LOG);
    fse::write_ncount(header, &ll_norm, MAX_LL as u32, LL_FSE_LOG);
    // libzstd bounds each table by the room left; the repeat offsets need 12 bytes.
    if header.len() - start + 12 > room {
        return Err(cannot_train(
            "the entropy tables do not fit in a dictionary header".to_string(),
        ));
    }
    for rep in REP_START_VALUE {
        header.extend_from_slice(&rep.to_le_bytes());
    }
    Ok(())
}

/// Adds one block's literals and sequence codes to `stats`.
fn count_block(st: &FrameState, stats: &mut Stats) {
    for &b in st.seqs.literals() {
        stats.literals[b as usize] += 1;
    }
    let n = st.seqs.sequences.len();
    for &c in &st.seqs.of_codes[..n] {
        // Codes above the counted range are dropped, as libzstd's array holds them unread.
        if let Some(slot) = stats.offcodes.get_mut(c as usize) {
            *slot += 1;
        }
    }
    for &c in &st.seqs.ml_codes[..n] {
        stats.match_lengths[c as usize] += 1;
    }
    for &c in &st.seqs.ll_codes[..n] {
        stats.literal_lengths[c as usize] += 1;
    }
}

/// FSE_normalizeCount with libzstd's low-probability marks, over `count[..=max_symbol]`.
fn normalize(norm: &mut [i16], table_log: u32, count: &[u32], max_symbol: usize) {
    let total: usize = count[..=max_symbol].iter().map(|&c| c as usize).sum();
    fse::normalize_count(norm, table_log, count, total, max_symbol as u32, true);
}
