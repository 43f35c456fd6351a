//! Compression parameters: libzstd's four `clevels.h` tables as data, and their adjustment
//! to the source size (`ZSTD_getCParams_internal`, `ZSTD_adjustCParams_internal`).

use super::bits::highbit32;

/// Match-finding strategies, numbered as libzstd numbers them (`ZSTD_strategy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Strategy {
    /// `ZSTD_fast`: one hash table, greedy, skipping faster over incompressible data.
    Fast = 1,
    /// `ZSTD_dfast`: two hash tables (long and short matches).
    DFast = 2,
    /// `ZSTD_greedy`: a search per position, the first good match taken.
    Greedy = 3,
    /// `ZSTD_lazy`: one step of lazy evaluation.
    Lazy = 4,
    /// `ZSTD_lazy2`: two steps of lazy evaluation.
    Lazy2 = 5,
    /// `ZSTD_btlazy2`: lazy2 over a binary tree.
    BtLazy2 = 6,
    /// `ZSTD_btopt`: the optimal parser.
    BtOpt = 7,
    /// `ZSTD_btultra`: the optimal parser with finer prices.
    BtUltra = 8,
    /// `ZSTD_btultra2`: btultra with a first pass to seed the statistics.
    BtUltra2 = 9,
}

/// Compression parameters (`ZSTD_compressionParameters`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CParams {
    /// Log2 of the window: the farthest a match may reach back.
    pub window_log: u32,
    /// Log2 of the chain or binary-tree table.
    pub chain_log: u32,
    /// Log2 of the hash table.
    pub hash_log: u32,
    /// Log2 of the number of searches per position.
    pub search_log: u32,
    /// The shortest match looked for.
    pub min_match: u32,
    /// The match length that ends a search early (the optimal parser's `sufficient_len`).
    pub target_length: u32,
    /// The match-finding strategy.
    pub strategy: Strategy,
}

/// The default level (`ZSTD_CLEVEL_DEFAULT`), used for level 0.
pub const DEFAULT_LEVEL: i32 = 3;
/// Highest level with a table row (`ZSTD_MAX_CLEVEL`).
pub const MAX_LEVEL: i32 = 22;
/// Largest `targetLength` a negative level can ask for (`ZSTD_TARGETLENGTH_MAX`).
pub const TARGET_LENGTH_MAX: u32 = 1 << 17;
use crate::zstd::common::format::WINDOW_LOG_ABSOLUTE_MIN;
/// Sources up to this size may shrink the window (`ZSTD_WINDOWLOG_MAX_32`-era limit, 2^30).
const WINDOW_RESIZE_MAX_SOURCE: u64 = 1 << 30;
/// Row-finder hash cap: `hashLog <= ROW_HASH_CAP_BASE + rowLog` (`ZSTD_ROW_HASH_TAG_BITS` + 24-bit limit).
const ROW_HASH_CAP_BASE: u32 = 24;

const fn row(w: u32, c: u32, h: u32, s: u32, l: u32, tl: u32, strategy: Strategy) -> CParams {
    CParams {
        window_log: w,
        chain_log: c,
        hash_log: h,
        search_log: s,
        min_match: l,
        target_length: tl,
        strategy,
    }
}

use Strategy::{
    BtLazy2 as BTL2, BtOpt as BTO, BtUltra as BTU, BtUltra2 as BTU2, DFast as DF, Fast as F,
    Greedy as G, Lazy as LZ, Lazy2 as LZ2,
};

/// `ZSTD_defaultCParameters[4][23]`: rows for >256K, <=256K, <=128K, <=16K sources.
/// Row 0 of each table is the base for negative levels.
#[rustfmt::skip]
static DEFAULT_CPARAMS: [[CParams; 23]; 4] = [
    [ // "default" - for any srcSize > 256 KB
        row(19, 12, 13, 1, 6, 1, F), row(19, 13, 14, 1, 7, 0, F), row(20, 15, 16, 1, 6, 0, F),
        row(21, 16, 17, 1, 5, 0, DF), row(21, 18, 18, 1, 5, 0, DF), row(21, 18, 19, 3, 5, 2, G),
        row(21, 18, 19, 3, 5, 4, LZ), row(21, 19, 20, 4, 5, 8, LZ), row(21, 19, 20, 4, 5, 16, LZ2),
        row(22, 20, 21, 4, 5, 16, LZ2), row(22, 21, 22, 5, 5, 16, LZ2), row(22, 21, 22, 6, 5, 16, LZ2),
        row(22, 22, 23, 6, 5, 32, LZ2), row(22, 22, 22, 4, 5, 32, BTL2), row(22, 22, 23, 5, 5, 32, BTL2),
        row(22, 23, 23, 6, 5, 32, BTL2), row(22, 22, 22, 5, 5, 48, BTO), row(23, 23, 22, 5, 4, 64, BTO),
        row(23, 23, 22, 6, 3, 64, BTU), row(23, 24, 22, 7, 3, 256, BTU2), row(25, 25, 23, 7, 3, 256, BTU2),
        row(26, 26, 24, 7, 3, 512, BTU2), row(27, 27, 25, 9, 3, 999, BTU2),
    ],
    [ // for srcSize <= 256 KB
        row(18, 12, 13, 1, 5, 1, F), row(18, 13, 14, 1, 6, 0, F), row(18, 14, 14, 1, 5, 0, DF),
        row(18, 16, 16, 1, 4, 0, DF), row(18, 16, 17, 3, 5, 2, G), row(18, 17, 18, 5, 5, 2, G),
        row(18, 18, 19, 3, 5, 4, LZ), row(18, 18, 19, 4, 4, 4, LZ), row(18, 18, 19, 4, 4, 8, LZ2),
        row(18, 18, 19, 5, 4, 8, LZ2), row(18, 18, 19, 6, 4, 8, LZ2), row(18, 18, 19, 5, 4, 12, BTL2),
        row(18, 19, 19, 7, 4, 12, BTL2), row(18, 18, 19, 4, 4, 16, BTO), row(18, 18, 19, 4, 3, 32, BTO),
        row(18, 18, 19, 6, 3, 128, BTO), row(18, 19, 19, 6, 3, 128, BTU), row(18, 19, 19, 8, 3, 256, BTU),
        row(18, 19, 19, 6, 3, 128, BTU2), row(18, 19, 19, 8, 3, 256, BTU2), row(18, 19, 19, 10, 3, 512, BTU2),
        row(18, 19, 19, 12, 3, 512, BTU2), row(18, 19, 19, 13, 3, 999, BTU2),
    ],
    [ // for srcSize <= 128 KB
        row(17, 12, 12, 1, 5, 1, F), row(17, 12, 13, 1, 6, 0, F), row(17, 13, 15, 1, 5, 0, F),
        row(17, 15, 16, 2, 5, 0, DF), row(17, 17, 17, 2, 4, 0, DF), row(17, 16, 17, 3, 4, 2, G),
        row(17, 16, 17, 3, 4, 4, LZ), row(17, 16, 17, 3, 4, 8, LZ2), row(17, 16, 17, 4, 4, 8, LZ2),
        row(17, 16, 17, 5, 4, 8, LZ2), row(17, 16, 17, 6, 4, 8, LZ2), row(17, 17, 17, 5, 4, 8, BTL2),
        row(17, 18, 17, 7, 4, 12, BTL2), row(17, 18, 17, 3, 4, 12, BTO), row(17, 18, 17, 4, 3, 32, BTO),
        row(17, 18, 17, 6, 3, 256, BTO), row(17, 18, 17, 6, 3, 128, BTU), row(17, 18, 17, 8, 3, 256, BTU),
        row(17, 18, 17, 10, 3, 512, BTU), row(17, 18, 17, 5, 3, 256, BTU2), row(17, 18, 17, 7, 3, 512, BTU2),
        row(17, 18, 17, 9, 3, 512, BTU2), row(17, 18, 17, 11, 3, 999, BTU2),
    ],
    [ // for srcSize <= 16 KB
        row(14, 12, 13, 1, 5, 1, F), row(14, 14, 15, 1, 5, 0, F), row(14, 14, 15, 1, 4, 0, F),
        row(14, 14, 15, 2, 4, 0, DF), row(14, 14, 14, 4, 4, 2, G), row(14, 14, 14, 3, 4, 4, LZ),
        row(14, 14, 14, 4, 4, 8, LZ2), row(14, 14, 14, 6, 4, 8, LZ2), row(14, 14, 14, 8, 4, 8, LZ2),
        row(14, 15, 14, 5, 4, 8, BTL2), row(14, 15, 14, 9, 4, 8, BTL2), row(14, 15, 14, 3, 4, 12, BTO),
        row(14, 15, 14, 4, 3, 24, BTO), row(14, 15, 14, 5, 3, 32, BTU), row(14, 15, 15, 6, 3, 64, BTU),
        row(14, 15, 15, 7, 3, 256, BTU), row(14, 15, 15, 5, 3, 48, BTU2), row(14, 15, 15, 6, 3, 128, BTU2),
        row(14, 15, 15, 7, 3, 256, BTU2), row(14, 15, 15, 8, 3, 256, BTU2), row(14, 15, 15, 8, 3, 512, BTU2),
        row(14, 15, 15, 9, 3, 512, BTU2), row(14, 15, 15, 10, 3, 999, BTU2),
    ],
];

/// Mirrors the table choice of ZSTD_getCParams_internal for a known source size, no dictionary.
fn table_id(src_size: u64) -> usize {
    (src_size <= 256 * 1024) as usize
        + (src_size <= 128 * 1024) as usize
        + (src_size <= 16 * 1024) as usize
}

/// The unadjusted row for `level` and a source of `src_size` bytes.
pub fn table_row(level: i32, src_size: u64) -> CParams {
    let row_index = if level == 0 {
        DEFAULT_LEVEL as usize
    } else if level < 0 {
        0
    } else {
        level.min(MAX_LEVEL) as usize
    };
    let mut cp = DEFAULT_CPARAMS[table_id(src_size)][row_index];
    if level < 0 {
        cp.target_length = level.unsigned_abs().min(TARGET_LENGTH_MAX);
    }
    cp
}

/// The parameters of a stream whose size is not known (`ZSTD_getCParamsFromCCtxParams` with
/// `ZSTD_CONTENTSIZE_UNKNOWN`): the first row of the table, the window never shrunk, and
/// none of the caps that depend on the source's size; only the row finder's hash cap.
pub fn cparams_unknown_size(level: i32) -> CParams {
    let mut cp = table_row(level, u64::MAX);
    cp.window_log = cp.window_log.max(WINDOW_LOG_ABSOLUTE_MIN);
    cap_row_hash_log(&mut cp);
    cp
}

/// Mirrors ZSTD_adjustCParams_internal (no dictionary, known source size, ZSTD_cpm_noAttachDict).
pub fn adjust(cp: CParams, src_size: u64) -> CParams {
    adjust_with_dict(cp, src_size, 0)
}

/// Mirrors ZSTD_adjustCParams_internal for a known source size and a dictionary of
/// `dict_size` bytes loaded into the context (ZSTD_cpm_noAttachDict, the mode of
/// `ZSTD_compress_usingDict`): the window shrinks to what source and dictionary need
/// together, and the hash and chain logs are capped by ZSTD_dictAndWindowLog.
pub fn adjust_with_dict(mut cp: CParams, src_size: u64, dict_size: u64) -> CParams {
    if src_size <= WINDOW_RESIZE_MAX_SOURCE && dict_size <= WINDOW_RESIZE_MAX_SOURCE {
        let total = src_size + dict_size;
        let src_log = if total < 64 {
            6
        } else {
            highbit32((total - 1) as u32) + 1
        };
        cp.window_log = cp.window_log.min(src_log);
    }
    let dict_and_window_log = dict_and_window_log(cp.window_log, src_size, dict_size);
    cp.hash_log = cp.hash_log.min(dict_and_window_log + 1);
    let cycle_log = cp.chain_log - (cp.strategy >= Strategy::BtLazy2) as u32;
    if cycle_log > dict_and_window_log {
        cp.chain_log -= cycle_log - dict_and_window_log;
    }
    cp.window_log = cp.window_log.max(WINDOW_LOG_ABSOLUTE_MIN);
    cap_row_hash_log(&mut cp);
    cp
}

/// The row finder's cap on the hash log (`hashLog - rowLog + 8 <= 32`), applied as if the
/// row finder were on.
fn cap_row_hash_log(cp: &mut CParams) {
    if matches!(
        cp.strategy,
        Strategy::Greedy | Strategy::Lazy | Strategy::Lazy2
    ) {
        let row_log = cp.search_log.clamp(4, 6);
        cp.hash_log = cp.hash_log.min(ROW_HASH_CAP_BASE + row_log);
    }
}

/// The log of the span the tables must index: the window when it holds source and
/// dictionary together, else the dictionary plus the window (at most 31).
///
/// Mirrors ZSTD_dictAndWindowLog.
fn dict_and_window_log(window_log: u32, src_size: u64, dict_size: u64) -> u32 {
    const WINDOW_LOG_MAX: u32 = 31;
    if dict_size == 0 {
        return window_log;
    }
    let window = 1u64 << window_log;
    if window >= dict_size.saturating_add(src_size) {
        window_log
    } else if dict_size + window >= 1 << WINDOW_LOG_MAX {
        WINDOW_LOG_MAX
    } else {
        highbit32((dict_size + window - 1) as u32) + 1
    }
}

/// The parameters of `ZSTD_compress_usingDict(src, dict, level)` with a dictionary of
/// `dict_size` bytes (its whole buffer, header included): the table row is the one of a
/// source of `src_size + dict_size` bytes, then [`adjust_with_dict`].
///
/// Mirrors ZSTD_getCParams_internal (ZSTD_getCParamRowSize, ZSTD_cpm_noAttachDict).
pub fn cparams_with_dict(level: i32, src_size: u64, dict_size: u64) -> CParams {
    adjust_with_dict(table_row(level, src_size + dict_size), src_size, dict_size)
}

/// A CDict's hash and chain logs are capped so that an index and its 8-bit tag fit in 32
/// bits, for the strategies whose CDict tables carry tags (`ZSTD_CDictIndicesAreTagged`:
/// fast and dfast).
const SHORT_CACHE_MAX_LOG: u32 = 32 - 8;
/// The source size a CDict's parameters assume (`minSrcSize` of ZSTD_adjustCParams_internal).
const CDICT_ASSUMED_SOURCE: u64 = 513;

/// The parameters of `ZSTD_createCDict(dict, dict_size, level)`: the row of a
/// `dict_size + 499`-byte input (libzstd's unknown size plus the dictionary plus 500,
/// wrapping), adjusted for a 513-byte source with the dictionary; with an empty dictionary,
/// the row of an unknown size, not resized. Fast and dfast keep their logs to 24.
///
/// Mirrors ZSTD_getCParams_internal with ZSTD_cpm_createCDict.
pub fn cdict_cparams(level: i32, dict_size: u64) -> CParams {
    let cp = if dict_size == 0 {
        let mut cp = table_row(level, u64::MAX);
        cp.window_log = cp.window_log.max(WINDOW_LOG_ABSOLUTE_MIN);
        if matches!(
            cp.strategy,
            Strategy::Greedy | Strategy::Lazy | Strategy::Lazy2
        ) {
            let row_log = cp.search_log.clamp(4, 6);
            cp.hash_log = cp.hash_log.min(ROW_HASH_CAP_BASE + row_log);
        }
        cp
    } else {
        let row = table_row(level, dict_size.wrapping_add(499));
        adjust_with_dict(row, CDICT_ASSUMED_SOURCE, dict_size)
    };
    cap_tagged_logs(cp)
}

/// The parameters of a CDict created with explicit parameters `cp`
/// (`ZSTD_createCDict_advanced`): they are adjusted as [`cdict_cparams`] adjusts a row, for
/// a 513-byte source with the dictionary (with no dictionary, for an unknown size).
///
/// Mirrors ZSTD_getCParamsFromCCtxParams with every parameter overridden,
/// ZSTD_cpm_createCDict.
pub fn cdict_cparams_from(cp: CParams, dict_size: u64) -> CParams {
    let cp = if dict_size == 0 {
        adjust(cp, u64::MAX)
    } else {
        adjust_with_dict(cp, CDICT_ASSUMED_SOURCE, dict_size)
    };
    cap_tagged_logs(cp)
}

/// The parameters of a dedicated-search CDict (`ZSTD_c_enableDedicatedDictSearch`) of
/// `dict_size` bytes at `level`, the window log `window_log` when the context sets one
/// (`--long`), or `None` when the dedicated search does not apply and the CDict is an
/// ordinary one ([`cdict_cparams`]).
///
/// The row is the dictionary's size alone, adjusted for a source of 0 bytes (not the
/// 513 bytes of an ordinary CDict); greedy, lazy and lazy2 then get four hash entries per
/// bucket (`hashLog + 2`). The window asked for replaces the CDict's without a new
/// adjustment. Only greedy..lazy2 with a hash log above the chain log, and a chain log of
/// at most 24, keep the dedicated search.
///
/// Mirrors ZSTD_createCDict_advanced2 (ZSTD_dedicatedDictSearch_getCParams,
/// ZSTD_overrideCParams, ZSTD_dedicatedDictSearch_isSupported).
pub fn dds_cdict_cparams(level: i32, dict_size: u64, window_log: Option<u32>) -> Option<CParams> {
    let mut cp = adjust_with_dict(table_row(level, dict_size), 0, dict_size);
    if !matches!(
        cp.strategy,
        Strategy::Greedy | Strategy::Lazy | Strategy::Lazy2
    ) {
        return None;
    }
    cp.hash_log += DDS_BUCKET_LOG;
    if let Some(w) = window_log {
        cp.window_log = w;
    }
    (cp.hash_log > cp.chain_log && cp.chain_log <= 24).then_some(cp)
}

/// The hash log a dedicated-search CDict adds (`ZSTD_LAZY_DDSS_BUCKET_LOG`): buckets of
/// four entries.
pub(crate) const DDS_BUCKET_LOG: u32 = 2;
/// The smallest hash log (`ZSTD_HASHLOG_MIN`).
const HASH_LOG_MIN: u32 = 6;

/// The parameters of a dedicated-search CDict `cp` as the context it is attached to sizes
/// its own tables: the hash log without the buckets, at least 6.
///
/// Mirrors ZSTD_dedicatedDictSearch_revertCParams.
pub fn dds_revert(cp: CParams) -> CParams {
    CParams {
        hash_log: cp.hash_log.saturating_sub(DDS_BUCKET_LOG).max(HASH_LOG_MIN),
        ..cp
    }
}

/// Fast and dfast CDicts keep their logs to 24 (their table entries carry an 8-bit tag).
fn cap_tagged_logs(mut cp: CParams) -> CParams {
    if matches!(cp.strategy, Strategy::Fast | Strategy::DFast) {
        cp.hash_log = cp.hash_log.min(SHORT_CACHE_MAX_LOG);
        cp.chain_log = cp.chain_log.min(SHORT_CACHE_MAX_LOG);
    }
    cp
}

/// Sources below this use a CDict's own parameters (`ZSTD_USE_CDICT_PARAMS_SRCSIZE_CUTOFF`),
/// as do sources below `6 ×` the dictionary (`ZSTD_USE_CDICT_PARAMS_DICTSIZE_MULTIPLIER`).
const CDICT_PARAMS_SOURCE_CUTOFF: u64 = 128 * 1024;
const CDICT_PARAMS_DICT_MULTIPLIER: u64 = 6;

/// Whether `ZSTD_compress_usingCDict` compresses a `src_size`-byte source with the CDict's
/// parameters and tables (else with parameters for the source and the dictionary loaded
/// as `ZSTD_compress_usingDict` loads it).
pub fn uses_cdict_params(src_size: u64, dict_size: u64) -> bool {
    src_size < CDICT_PARAMS_SOURCE_CUTOFF
        || src_size < dict_size.saturating_mul(CDICT_PARAMS_DICT_MULTIPLIER)
}

/// The parameters `ZSTD_compress_usingCDict` chooses for a `src_size`-byte source: the
/// CDict's (`cdict`) or those of the source and the dictionary (see [`uses_cdict_params`]).
/// The frame then uses them with [`raise_window_for_source`]; what is resolved from the
/// parameters (the post-block splitter, long-distance matching) is resolved before.
///
/// Mirrors ZSTD_compressBegin_usingCDict_internal.
pub fn using_cdict_cparams(cdict: &CParams, level: i32, src_size: u64, dict_size: u64) -> CParams {
    if uses_cdict_params(src_size, dict_size) {
        *cdict
    } else {
        cparams_with_dict(level, src_size, dict_size)
    }
}

/// The parameters `ZSTD_CCtx_loadDictionary` + `ZSTD_compress2` choose for a `src_size`-byte
/// source at `level`: for the source alone when the dictionary will be attached (see
/// [`attach_dict_cutoff`], by the CDict's strategy `cdict`), else for the source with the
/// dictionary (`ZSTD_getCParamMode`, ZSTD_getCParamsFromCCtxParams). The frame then takes
/// only the window from them; the rest is the CDict's.
pub fn loaded_dict_cparams(cdict: &CParams, level: i32, src_size: u64, dict_size: u64) -> CParams {
    if dict_size > 0 && src_size <= attach_dict_cutoff(cdict.strategy) {
        cparams(level, src_size)
    } else {
        cparams_with_dict(level, src_size, dict_size)
    }
}

/// [`loaded_dict_cparams`] with long-distance matching asked for with window log
/// `window_log`: that window, adjusted again for the source (and the dictionary, when it
/// is not attached).
///
/// Mirrors ZSTD_getCParamsFromCCtxParams with LDM enabled and a dictionary.
pub fn loaded_dict_long_cparams(
    cdict: &CParams,
    level: i32,
    src_size: u64,
    dict_size: u64,
    window_log: u32,
) -> CParams {
    if dict_size > 0 && src_size <= attach_dict_cutoff(cdict.strategy) {
        long_cparams(level, Some(src_size), window_log)
    } else {
        adjust_with_dict(
            CParams {
                window_log,
                ..cparams_with_dict(level, src_size, dict_size)
            },
            src_size,
            dict_size,
        )
    }
}

/// The window raised to fit a `src_size`-byte source up to 512 KiB (the end of
/// ZSTD_compressBegin_usingCDict_internal).
pub fn raise_window_for_source(mut cp: CParams, src_size: u64) -> CParams {
    let limited = src_size.min(1 << 19) as u32;
    let limited_log = if limited > 1 {
        highbit32(limited - 1) + 1
    } else {
        1
    };
    cp.window_log = cp.window_log.max(limited_log);
    cp
}

/// Sources up to this size (by the CDict's strategy) are compressed with the CDict attached
/// rather than copied (`attachDictSizeCutoffs`, ZSTD_shouldAttachDict).
pub fn attach_dict_cutoff(strategy: Strategy) -> u64 {
    match strategy {
        Strategy::DFast => 16 * 1024,
        Strategy::Greedy
        | Strategy::Lazy
        | Strategy::Lazy2
        | Strategy::BtLazy2
        | Strategy::BtOpt => 32 * 1024,
        Strategy::Fast | Strategy::BtUltra | Strategy::BtUltra2 => 8 * 1024,
    }
}

/// The parameters with long-distance matching asked for (`ZSTD_c_enableLongDistanceMatching`)
/// and window log `window_log` (libzstd's default with it is 27, `ZSTD_LDM_DEFAULT_WINDOW_LOG`):
/// the level's parameters for the size, that window, adjusted again for the size (a known
/// size shrinks the window back to what the source needs and caps the hash and chain logs
/// by it; an unknown size leaves them as they are, even above the window).
///
/// Mirrors ZSTD_getCParamsFromCCtxParams with LDM enabled.
pub fn long_cparams(level: i32, src_size: Option<u64>, window_log: u32) -> CParams {
    match src_size {
        Some(n) => adjust(
            CParams {
                window_log,
                ..cparams(level, n)
            },
            n,
        ),
        // An unknown size caps nothing by the window (ZSTD_adjustCParams_internal).
        None => CParams {
            window_log: window_log.max(WINDOW_LOG_ABSOLUTE_MIN),
            ..cparams_unknown_size(level)
        },
    }
}

/// Mirrors ZSTD_getCParams_internal + ZSTD_adjustCParams_internal as used by `ZSTD_compress`.
pub fn cparams(level: i32, src_size: u64) -> CParams {
    adjust(table_row(level, src_size), src_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(c: CParams) -> (u32, u32, u32, u32, u32, u32, Strategy) {
        (
            c.window_log,
            c.chain_log,
            c.hash_log,
            c.search_log,
            c.min_match,
            c.target_length,
            c.strategy,
        )
    }

    #[test]
    fn a_dictionary_moves_the_row_and_the_caps_as_libzstd_measured() {
        // ZSTD_getCParams(6, src, dict) as measured with libzstd 1.5.7 (shared
        // dictionaries document, section 1.2).
        assert_eq!(
            shape(cparams_with_dict(6, 65536, 0)),
            (16, 16, 17, 3, 4, 4, Strategy::Lazy)
        );
        assert_eq!(
            shape(cparams_with_dict(6, 65536, 32 << 10)),
            (17, 16, 17, 3, 4, 4, Strategy::Lazy)
        );
        assert_eq!(
            shape(cparams_with_dict(6, 65536, 112 << 10)),
            (18, 18, 19, 3, 5, 4, Strategy::Lazy)
        );
        assert_eq!(
            shape(cparams_with_dict(6, 4096, 8192)),
            (14, 14, 14, 4, 4, 8, Strategy::Lazy2)
        );
    }

    #[test]
    fn without_a_dictionary_the_dictionary_path_is_the_plain_one() {
        for level in [-5, -1, 1, 2, 3, 6, 9, 13, 19, 22] {
            for size in [
                0u64,
                1,
                63,
                64,
                1000,
                16384,
                16385,
                65536,
                131073,
                1 << 20,
                1 << 31,
            ] {
                assert_eq!(
                    shape(cparams_with_dict(level, size, 0)),
                    shape(cparams(level, size)),
                    "level {level}, {size} bytes"
                );
            }
        }
    }

    #[test]
    fn cparams_for_64k_match_the_parity_map() {
        let c = cparams(1, 65536);
        assert_eq!(
            (
                c.window_log,
                c.chain_log,
                c.hash_log,
                c.search_log,
                c.min_match,
                c.target_length
            ),
            (16, 12, 13, 1, 6, 0)
        );
        let c = cparams(-5, 65536);
        assert_eq!(
            (
                c.window_log,
                c.chain_log,
                c.hash_log,
                c.min_match,
                c.target_length
            ),
            (16, 12, 12, 5, 5)
        );
        let c = cparams(12, 65536);
        assert_eq!(
            (
                c.window_log,
                c.chain_log,
                c.hash_log,
                c.search_log,
                c.strategy
            ),
            (16, 17, 17, 7, Strategy::BtLazy2)
        );
        let c = cparams(1, 1000);
        assert_eq!((c.window_log, c.chain_log, c.hash_log), (10, 10, 11));
        let c = cparams(4, 131072);
        assert_eq!(
            (c.window_log, c.chain_log, c.hash_log, c.strategy),
            (17, 17, 17, Strategy::DFast)
        );
    }

    #[test]
    fn negative_levels_clamp_target_length() {
        assert_eq!(cparams(-200000, 100).target_length, TARGET_LENGTH_MAX);
        assert_eq!(cparams(0, 100), cparams(3, 100));
        assert_eq!(cparams(99, 100), cparams(22, 100));
    }
}
