//! Formatted (zstd-format) dictionaries on the encoder's side: the entropy tables and
//! repeat offsets a frame starts from, read from the dictionary's header
//! (`ZSTD_loadCEntropy`, `ZSTD_loadZstdDictionary`).

use super::block::EntropyTables;
use super::huf::{HufCTable, HufRepeat};
use super::matcher::MatchState;
use super::matcher::lazy::dedicated::DdsTables;
use super::params::{self, CParams};
use super::sequences::FseRepeat;
use crate::zstd::common::format::DICT_MAGIC;
use crate::zstd::common::seq_codes::{
    LL_FSE_LOG, MAX_LL, MAX_ML, MAX_OFF, ML_FSE_LOG, OFF_FSE_LOG,
};
use crate::zstd::decompress::fse_table::{Spread, read_ncount};
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

    let w = read_weights(&dict[pos..], &mut Spread::default())
        .map_err(|_| bad("its Huffman table is invalid"))?;
    entropy.huf.table = HufCTable::from_weights(&w.weights[..w.symbols], w.log);
    entropy.huf.repeat = if w.rank[0] == 0 && w.symbols == 256 {
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

/// A number no other prepared dictionary has (see [`PreparedDict::uid`]).
fn next_uid() -> u64 {
    static NEXT_UID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT_UID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A dictionary prepared for one level, as `ZSTD_createCDict(dict, size, level)` prepares
/// it: its parameters, its entropy start (formatted) and its content loaded into
/// match-finder tables once (`ZSTD_dtlm_full`), to be copied into each frame's context.
pub(crate) struct PreparedDict {
    /// Tells prepared dictionaries apart, so that a context can keep a copy of one's
    /// content between frames (never reused, unlike an address).
    pub(crate) uid: u64,
    pub(crate) level: i32,
    /// The whole dictionary (`dictContent`, header included when formatted).
    pub(crate) bytes: Vec<u8>,
    pub(crate) start: Option<DictStart>,
    /// The CDict's parameters (`ZSTD_cpm_createCDict`).
    pub(crate) cp: CParams,
    /// The content's tables for `cp`.
    pub(crate) tables: MatchState,
    /// The hash table in the CDict's own (tagged) form, read in place when the dictionary
    /// is attached (fast, and dfast's long table).
    pub(crate) tagged: Option<Vec<u32>>,
    /// dfast's short table, tagged.
    pub(crate) tagged_small: Option<Vec<u32>>,
    /// The tables of a dedicated-search CDict (then `tables` is unused and `cp` has the
    /// dedicated search's hash log).
    pub(crate) dds: Option<DdsTables>,
}

impl PreparedDict {
    /// Mirrors ZSTD_createCDict (ZSTD_initCDict_internal): a formatted dictionary's header is
    /// checked here, once.
    pub(crate) fn new(dict: &[u8], level: i32) -> Result<PreparedDict, ZstdError> {
        let cp = params::cdict_cparams(level, dict.len() as u64);
        let start = if is_formatted(dict) {
            Some(read_start(dict)?)
        } else {
            None
        };
        Ok(PreparedDict::load(dict, level, start, cp))
    }

    /// `content` as raw content (whatever its first bytes) with parameters given by the
    /// caller, which the CDict still adjusts for itself (see
    /// [`params::cdict_cparams_from`]); level 0: frames always use these parameters.
    ///
    /// Mirrors ZSTD_createCDict_advanced(content, size, ZSTD_dlm_byRef,
    /// ZSTD_dct_rawContent, cParams, ...), as ZDICT_analyzeEntropy prepares it.
    pub(crate) fn raw_with_cparams(content: &[u8], cp: CParams) -> PreparedDict {
        let cp = params::cdict_cparams_from(cp, content.len() as u64);
        PreparedDict::load(content, 0, None, cp)
    }

    /// The same dictionary prepared with parameters `cp` instead of its own (its level,
    /// header and content kept): a local CDict made with other parameters.
    pub(crate) fn with_cparams(&self, cp: CParams) -> PreparedDict {
        PreparedDict::load(&self.bytes, self.level, self.start.clone(), cp)
    }

    /// The same dictionary prepared for the dedicated dictionary search with the
    /// parameters `cp` (from [`params::dds_cdict_cparams`]): a local CDict of a context
    /// with `ZSTD_c_enableDedicatedDictSearch`.
    ///
    /// Mirrors ZSTD_createCDict_advanced2 with the dedicated search supported; fails with
    /// [`ZstdError::OutOfMemory`] when its tables cannot be allocated.
    pub(crate) fn with_dds(&self, cp: CParams) -> Result<PreparedDict, ZstdError> {
        let mut pd = PreparedDict {
            uid: next_uid(),
            level: self.level,
            bytes: self.bytes.clone(),
            start: self.start.clone(),
            cp,
            tables: MatchState::default(),
            tagged: None,
            tagged_small: None,
            dds: None,
        };
        let content = pd.content();
        // ZSTD_loadDictionaryContent: only the suffix the tables can index.
        let indexed_max = 1usize << (cp.hash_log + 3).max(cp.chain_log + 1).min(31);
        let start = content.len().saturating_sub(indexed_max);
        pd.dds = Some(DdsTables::build(content, start, &cp)?);
        Ok(pd)
    }

    /// Whether the lazy strategies' finder of a context this dictionary is attached to is
    /// the row finder: the CDict's choice, made for its own parameters
    /// (`cdict->useRowMatchFinder`).
    pub(crate) fn lazy_row(&self) -> bool {
        match self.dds {
            Some(_) => super::matcher::lazy::uses_row_finder(&self.cp),
            None => self.tables.lazy_row(),
        }
    }

    /// Fill the tables of a dictionary whose header (if any) was read into `start`.
    fn load(dict: &[u8], level: i32, start: Option<DictStart>, cp: CParams) -> PreparedDict {
        let mut pd = PreparedDict {
            uid: next_uid(),
            level,
            bytes: dict.to_vec(),
            start,
            cp,
            tables: MatchState::default(),
            tagged: None,
            tagged_small: None,
            dds: None,
        };
        pd.tables.reset(&cp);
        let content = pd.content();
        if !content.is_empty() {
            let len = content.len();
            let content = content.to_vec();
            pd.tables.load_dict(&content, len, &cp, true);
            // The fast and dfast tables come tagged (the CDict's own form, which the
            // attached finders read); the context's form, copied into contexts for
            // larger sources, strips the tags.
            match cp.strategy {
                params::Strategy::Fast => {
                    pd.tagged = Some(pd.tables.hash_table().to_vec());
                    pd.tables.strip_tags();
                }
                params::Strategy::DFast => {
                    pd.tagged = Some(pd.tables.hash_table().to_vec());
                    pd.tagged_small = Some(pd.tables.hash_small().to_vec());
                    pd.tables.strip_tags();
                }
                _ => {}
            }
        }
        pd
    }

    /// The history part: after a formatted dictionary's header, the whole of any other
    /// dictionary of at least 8 bytes, else nothing.
    pub(crate) fn content(&self) -> &[u8] {
        match &self.start {
            Some(start) => &self.bytes[start.content_start..],
            None if self.bytes.len() < super::frame::DICT_MIN_LOADED => &[],
            None => &self.bytes,
        }
    }
}
