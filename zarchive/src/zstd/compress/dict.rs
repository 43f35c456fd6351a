//! Formatted (zstd-format) dictionaries on the encoder's side: the entropy tables and
//! repeat offsets a frame starts from, read from the dictionary's header
//! (`ZSTD_loadCEntropy`, `ZSTD_loadZstdDictionary`).

use super::block::EntropyTables;
use super::huf::{HufCTable, HufRepeat};
use super::sequences::FseRepeat;
use crate::zstd::common::format::DICT_MAGIC;
use crate::zstd::common::seq_codes::{
    LL_FSE_LOG, MAX_LL, MAX_ML, MAX_OFF, ML_FSE_LOG, OFF_FSE_LOG,
};
use crate::zstd::decompress::fse_table::read_ncount;
use crate::zstd::decompress::huf::read_weights;
use crate::zstd::error::ZstdError;

/// Largest offset a frame after a dictionary must be able to code beyond the dictionary's
/// content: one block.
const BLOCK_REACH: usize = 128 * 1024;

/// What a formatted dictionary seeds a frame with.
#[derive(Clone, Debug)]
pub(crate) struct DictStart {
    /// The ID the frame header names (0: none).
    pub(crate) id: u32,
    /// The entropy tables of the "previous block", with their repeat modes.
    pub(crate) entropy: EntropyTables,
    /// The repeat offsets the first block starts from.
    pub(crate) reps: [u32; 3],
    /// Where the content (the history) starts in the dictionary.
    pub(crate) content_start: usize,
}

/// Whether `dict` is a formatted dictionary for `ZSTD_dct_auto`: at least 8 bytes,
/// starting with the dictionary magic number.
pub(crate) fn is_formatted(dict: &[u8]) -> bool {
    dict.len() >= 8 && dict[..4] == DICT_MAGIC.to_le_bytes()
}

/// Whether a table whose description covers symbols up to `dict_max` with counts `norm`
/// may be reused as is for symbols up to `max` (`valid`), or must be checked first.
///
/// Mirrors ZSTD_dictNCountRepeat.
fn ncount_repeat(norm: &[i16], dict_max: usize, max: usize) -> FseRepeat {
    if dict_max < max || norm[..=max].contains(&0) {
        FseRepeat::Check
    } else {
        FseRepeat::Valid
    }
}

/// Read the header of the formatted dictionary `dict` (magic checked by the caller).
///
/// Mirrors ZSTD_loadZstdDictionary + ZSTD_loadCEntropy: a Huffman table (`valid` only when
/// it codes all 256 byte values), the offset, match-length and literal-length tables
/// (`valid` when every symbol the frame may need has a nonzero count; an offset table must
/// reach the content plus one block), three nonzero repeat offsets within the content.
pub(crate) fn read_start(dict: &[u8]) -> Result<DictStart, ZstdError> {
    let bad = |reason| ZstdError::BadDictionary { reason };
    let id = u32::from_le_bytes([dict[4], dict[5], dict[6], dict[7]]);
    let mut pos = 8;
    let mut entropy = EntropyTables::default();

    let w = read_weights(&dict[pos..]).map_err(|_| bad("its Huffman table is invalid"))?;
    entropy.huf.table = HufCTable::from_weights(&w.weights[..w.symbols], w.log);
    entropy.huf.repeat = if w.zero_weights == 0 && w.symbols == 256 {
        HufRepeat::Valid
    } else {
        HufRepeat::Check
    };
    pos += w.used;

    let table = |max_symbol: usize, max_log: u32, pos: &mut usize| {
        let mut norm = [0i16; 256];
        let (dict_max, log, used) = read_ncount(&mut norm, max_symbol, &dict[*pos..])
            .map_err(|_| bad("one of its sequence tables is invalid"))?;
        if log > max_log {
            return Err(bad(
                "one of its sequence tables is deeper than the format allows",
            ));
        }
        *pos += used;
        Ok((norm, dict_max, log))
    };
    let (of_norm, of_max, of_log) = table(MAX_OFF, OFF_FSE_LOG, &mut pos)?;
    // Offsets are built over the whole alphabet (`MaxOff`), the others over what was read.
    entropy
        .fse
        .of
        .build(&of_norm[..=MAX_OFF], MAX_OFF as u32, of_log);
    let (ml_norm, ml_max, ml_log) = table(MAX_ML, ML_FSE_LOG, &mut pos)?;
    entropy
        .fse
        .ml
        .build(&ml_norm[..=ml_max], ml_max as u32, ml_log);
    entropy.fse.ml_repeat = ncount_repeat(&ml_norm, ml_max, MAX_ML);
    let (ll_norm, ll_max, ll_log) = table(MAX_LL, LL_FSE_LOG, &mut pos)?;
    entropy
        .fse
        .ll
        .build(&ll_norm[..=ll_max], ll_max as u32, ll_log);
    entropy.fse.ll_repeat = ncount_repeat(&ll_norm, ll_max, MAX_LL);

    let r = dict
        .get(pos..pos + 12)
        .ok_or(bad("it ends before its repeat offsets"))?;
    let rep = |i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
    let reps = [rep(0), rep(4), rep(8)];
    pos += 12;

    let content = dict.len() - pos;
    // Every offset up to the content plus one block must be codable for `valid`.
    let of_needed = match u32::try_from(content + BLOCK_REACH) {
        Ok(reach) => (31 - reach.leading_zeros()) as usize,
        Err(_) => MAX_OFF,
    };
    entropy.fse.of_repeat = ncount_repeat(&of_norm, of_max, of_needed.min(MAX_OFF));
    if reps.iter().any(|&r| r == 0 || r as usize > content) {
        return Err(bad(
            "a repeat offset is zero or larger than the dictionary's content",
        ));
    }
    Ok(DictStart {
        id,
        entropy,
        reps,
        content_start: pos,
    })
}
