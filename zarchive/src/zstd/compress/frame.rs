//! Frame header, block headers and the block loop of a one-shot frame
//! (`ZSTD_writeFrameHeader`, `ZSTD_compress_frameChunk`, `ZSTD_writeEpilogue`).

use super::block::{self, BLOCK_SIZE_MAX, EntropyTables, MIN_COMPRESS_BLOCK_SIZE, RLE_MAX_LENGTH};
use super::dict;
use super::huf::{HufRepeat, HufWorkspace};
use super::ldm;
use super::matcher::fast::AttachedTables;
use super::matcher::lazy::{AttachedLazy, DictChains, DictTree};
use super::matcher::opt::OptDictTree;
use super::matcher::source::{Padded, PaddedBlock, PaddedBuffer, SMALL_MAX};
use super::matcher::{Block, MatchState};
use super::params::{self, CParams, Strategy};
use super::presplit;
use super::seq_store::{REP_NUM, REP_START_VALUE, SeqStore};
use super::split::{self, BlockContext, SplitState};
use super::window::{WINDOW_START_INDEX, Window};
use crate::zstd::error::ZstdError;

use crate::zstd::common::format::{
    BLOCK_COMPRESSED, BLOCK_RAW, BLOCK_RLE, MAGIC_NUMBER, WINDOW_LOG_ABSOLUTE_MIN,
};
/// Sizes from 256 up use a 2-byte FCS field, which stores `size - 256`.
const FCS_2_BYTES_MIN: u64 = 256;
const FCS_4_BYTES_MIN: u64 = 65536 + 256;
/// Pre-splitting needs at least this much saved so far (`savings < 3` means no split).
const PRESPLIT_MIN_SAVINGS: i64 = 3;

/// Mirrors ZSTD_writeFrameHeader (no checksum, content size known): the dictionary ID
/// (none when 0) takes 1, 2 or 4 bytes by its value.
pub(crate) fn write_frame_header(out: &mut Vec<u8>, window_log: u32, src_size: u64, dict_id: u32) {
    write_frame_header_with(out, window_log, Some(src_size), dict_id, false);
}

/// Mirrors ZSTD_writeFrameHeader: a frame of `content_size` bytes (`None`: unknown, the
/// header then names the window and no size), with a content checksum or not.
pub(crate) fn write_frame_header_with(
    out: &mut Vec<u8>,
    window_log: u32,
    content_size: Option<u64>,
    dict_id: u32,
    checksum: bool,
) {
    let single_segment = content_size.is_some_and(|n| (1u64 << window_log) >= n);
    let src_size = content_size.unwrap_or(0);
    let fcs_code = match content_size {
        None => 0,
        Some(n) => {
            (n >= FCS_2_BYTES_MIN) as u8 + (n >= FCS_4_BYTES_MIN) as u8 + (n >= 0xFFFF_FFFF) as u8
        }
    };
    let dict_id_code = (dict_id > 0) as u8 + (dict_id >= 256) as u8 + (dict_id >= 65536) as u8;
    out.extend_from_slice(&MAGIC_NUMBER.to_le_bytes());
    out.push(
        dict_id_code | ((checksum as u8) << 2) | ((single_segment as u8) << 5) | (fcs_code << 6),
    );
    if !single_segment {
        out.push(((window_log - WINDOW_LOG_ABSOLUTE_MIN) << 3) as u8);
    }
    match dict_id_code {
        0 => {}
        1 => out.push(dict_id as u8),
        2 => out.extend_from_slice(&(dict_id as u16).to_le_bytes()),
        _ => out.extend_from_slice(&dict_id.to_le_bytes()),
    }
    match fcs_code {
        0 => {
            if single_segment {
                out.push(src_size as u8);
            }
        }
        1 => out.extend_from_slice(&((src_size - FCS_2_BYTES_MIN) as u16).to_le_bytes()),
        2 => out.extend_from_slice(&(src_size as u32).to_le_bytes()),
        _ => out.extend_from_slice(&src_size.to_le_bytes()),
    }
}

pub(crate) fn write_block_header(out: &mut Vec<u8>, last: bool, block_type: u32, size: usize) {
    let header = last as u32 + (block_type << 1) + ((size as u32) << 3);
    out.extend_from_slice(&header.to_le_bytes()[..3]);
}

/// Mirrors ZSTD_noCompressBlock.
fn write_raw_block(out: &mut Vec<u8>, last: bool, block: &[u8]) {
    write_block_header(out, last, BLOCK_RAW, block.len());
    out.extend_from_slice(block);
}

/// Everything one frame needs besides its parameters; reused across frames.
#[derive(Default)]
pub(crate) struct FrameState {
    /// The match finder's tables.
    pub(crate) ms: MatchState,
    pub(crate) seqs: SeqStore,
    /// The entropy tables of the last block and those the current block builds, boxed
    /// so that confirming a block swaps two pointers, not some 5 KB of tables twice.
    pub(crate) prev: Box<EntropyTables>,
    pub(crate) next: Box<EntropyTables>,
    pub(crate) huf_ws: HufWorkspace,
    /// Scratch of the post-block splitter.
    pub(crate) split: SplitState,
    /// A dictionary's content followed by the source, the one input the finders see
    /// (read unchecked while it fits the padded buffer).
    joined: PaddedBuffer,
    /// The prepared dictionary whose content `joined` starts with (kept between frames).
    joined_dict: Option<u64>,
    /// Frames with a dictionary made by this context (counted up to [`GROW_AFTER`]).
    joined_frames: u32,
    /// The bytes of the plain frames the tables continue after (see [`compress_frame`]),
    /// then the current frame's.
    continued: PaddedBuffer,
    /// Plain frames made by this context (counted up to [`GROW_AFTER`]).
    plain_frames: u32,
}

impl FrameState {
    /// `content` then `src` in one buffer, taken out of the context (give it back with
    /// [`FrameState::put_joined`]). The content of the prepared dictionary `dict` is
    /// copied only when the buffer does not start with it already.
    ///
    /// Past the small buffer (a dictionary of more than about 56 KiB with its source: the
    /// trainer's default is 112 KiB), a context's first frames with a dictionary hold the
    /// two in a buffer of their size, read checked, rather than take the full one: a new
    /// context per file then costs what its source does (an 8 KiB file with a 112 KiB
    /// dictionary at level 3 took 97.5 us instead of 46.9, when growing still zeroed the
    /// full buffer's 4 MiB). From the ninth such frame, the context grows the padded buffer
    /// once.
    fn take_joined(&mut self, dict: Option<u64>, content: &[u8], src: &[u8]) -> PaddedBuffer {
        let mut joined = std::mem::take(&mut self.joined);
        let young = self.joined_frames < GROW_AFTER;
        self.joined_frames = (self.joined_frames + 1).min(GROW_AFTER);
        let unpadded = young && joined.grows_full(content.len() + src.len());
        let append = |joined: &mut PaddedBuffer, bytes: &[u8]| {
            if unpadded {
                joined.append_unpadded(bytes);
            } else {
                joined.append(bytes);
            }
        };
        if dict.is_none() || self.joined_dict != dict || joined.len() < content.len() {
            joined.clear();
            append(&mut joined, content);
        }
        joined.truncate(content.len());
        append(&mut joined, src);
        self.joined_dict = None;
        joined
    }

    /// Forget the plain frames made so far: the next one starts afresh instead of
    /// continuing after their bytes (see [`compress_frame`]), and the bytes are not kept.
    pub(crate) fn forget_frames(&mut self) {
        self.continued.clear();
        self.plain_frames = 0;
    }

    /// Give back the buffer of [`FrameState::take_joined`], which starts with the content
    /// of `dict`.
    fn put_joined(&mut self, joined: PaddedBuffer, dict: Option<u64>) {
        self.joined = joined;
        self.joined_dict = dict;
    }

    /// Mirrors the window upkeep of ZSTD_compress_frameChunk before each block: index
    /// overflow correction with its table reduction (ZSTD_overflowCorrectIfNeeded),
    /// ZSTD_checkDictValidity and
    /// ZSTD_window_enforceMaxDist. `pos..pos + block_size` is the block in frame positions;
    /// returns its start as a finder position (an offset into `src[window.origin()..]`).
    pub(crate) fn prepare_block(
        &mut self,
        window: &mut Window,
        cp: &CParams,
        pos: usize,
        block_size: usize,
    ) -> usize {
        let cycle_log = cycle_log(cp);
        let (start, end) = (pos - window.origin(), pos + block_size - window.origin());
        if let Some((correction, moved)) = window.correct_overflow_if_needed(start, end, cycle_log)
        {
            self.ms.reduce_index(cp, correction, moved);
        }
        let fpos = pos - window.origin();
        window.check_dict_validity(fpos + block_size);
        window.enforce_max_dist(fpos);
        fpos
    }
}

/// Mirrors ZSTD_cycleLog: tree strategies keep two chain entries per position.
pub(crate) fn cycle_log(cp: &CParams) -> u32 {
    cp.chain_log - (cp.strategy >= Strategy::BtLazy2) as u32
}

/// Mirrors ZSTD_compress_frameChunk + ZSTD_writeEpilogue for a whole one-shot source.
/// Appends the frame (header included) to `out`.
///
/// The tables of the last plain frame are reused without clearing when they can be (see
/// [`MatchState::continue_after`]) and the source is above 64 KiB (see [`continue_pays`]):
/// the source is copied after that frame's bytes instead. A source of at most 64 KiB is
/// read from position 0 of the small buffer, its indices past the last such frame's where
/// the finder allows (see [`MatchState::rebase_small`]).
///
/// Fails only when the memory the frame needs cannot be had ([`ZstdError::OutOfMemory`]).
pub(crate) fn compress_frame(
    st: &mut FrameState,
    cp: &CParams,
    src: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), ZstdError> {
    st.ms.try_room(cp)?;
    if ldm::auto_enabled(cp) {
        st.ms.try_ldm_room(cp)?;
    }
    let mut held = std::mem::take(&mut st.continued);
    let total = held.len() + src.len();
    // Outgrowing the small buffer maps the full one (a page fault for every page its bytes
    // reach), the table clearing of several frames: a new context starts afresh instead
    // until it has made a few.
    let young = st.plain_frames < GROW_AFTER && !held.fits(total);
    st.plain_frames = (st.plain_frames + 1).min(GROW_AFTER);
    if total > CONTINUE_MAX || !continue_pays(cp, src.len()) || young {
        held.clear();
    }
    // A source of at most 64 KiB is read from position 0 of the small buffer (`held` was
    // cleared: see `continue_pays`), in a window that may go on past the earlier small
    // frames' indices; a larger one may continue after the earlier frames' bytes.
    let (continues, base) = if src.len() <= SMALL_MAX {
        debug_assert_eq!(held.len(), 0);
        (false, st.ms.rebase_small(cp))
    } else {
        (st.ms.continue_after(cp, held.len()), WINDOW_START_INDEX)
    };
    if !continues {
        held.clear();
    }
    let start = held.len();
    // The frame's input is read from the padded copy where it fits (all but sources
    // above 4 MiB): the finders then read it without bounds checks.
    if start + src.len() <= COPY_MAX {
        if held.try_reserve(start + src.len()).is_err() {
            // The tables continue after nothing now: the next frame starts afresh.
            held.clear();
            st.continued = held;
            return Err(ZstdError::OutOfMemory {
                what: "input buffer",
                bytes: start + src.len(),
            });
        }
        held.append(src);
        let dict = FrameDict {
            len: start,
            continued: continues,
            base,
            ..FrameDict::default()
        };
        let split_enabled = split::enabled(cp);
        compress_frame_after(
            st,
            cp,
            split_enabled,
            held.as_slice(),
            held.view(),
            dict,
            out,
        );
        if !continue_pays(cp, src.len()) {
            held.clear();
        }
    } else {
        compress_frame_after(
            st,
            cp,
            split::enabled(cp),
            src,
            None,
            FrameDict::default(),
            out,
        );
    }
    st.continued = held;
    Ok(())
}

/// [`compress_frame`] for a 64 KiB source the caller holds in a [`PaddedBlock`]: the same
/// frame (a source of that size never continues after earlier frames' bytes, see
/// [`continue_pays`], only after their indices), read where it lies instead of from a
/// copy in `st`.
pub(crate) fn compress_padded_frame(
    st: &mut FrameState,
    cp: &CParams,
    block: &PaddedBlock,
    out: &mut Vec<u8>,
) -> Result<(), ZstdError> {
    debug_assert!(!continue_pays(cp, PaddedBlock::LEN));
    st.ms.try_room(cp)?;
    st.continued.clear();
    st.plain_frames = (st.plain_frames + 1).min(GROW_AFTER);
    let base = st.ms.rebase_small(cp);
    let src: &[u8] = &block[..];
    let dict = FrameDict {
        base,
        ..FrameDict::default()
    };
    compress_frame_after(
        st,
        cp,
        split::enabled(cp),
        src,
        Some(block.view()),
        dict,
        out,
    );
    Ok(())
}

/// Whether the next frame of this shape had better continue after this one's bytes than
/// clear its tables. A source the small padded buffer holds (a ZAR block, and anything up
/// to 64 KiB) starts at position 0 (at most its indices go on, see
/// [`MatchState::rebase_small`]): read there, its positions are masked to 16 bits (one
/// instruction a read, in a buffer that stays in cache), where continuing would move it
/// into the full buffer (a two-instruction mask, and a new place each frame). Measured
/// against continuing, 64 KiB blocks of a reused context (`compress_speed`, two alternating
/// runs): level 3 0.90-0.97 -> 0.96-1.03 x native, level 6 0.99-1.05 -> 1.04-1.12, the
/// tables' clearing included. Larger sources continue, except past the `fast` strategy's
/// single table (level 1: the copy would cost more than the clearing).
fn continue_pays(cp: &CParams, src_len: usize) -> bool {
    src_len > SMALL_MAX && (cp.strategy != Strategy::Fast || 4usize << cp.hash_log > src_len)
}

/// The most bytes of earlier plain frames kept for [`compress_frame`] to continue after
/// (32 blocks of 64 KiB): then the tables are cleared once and the count starts again.
const CONTINUE_MAX: usize = 2 << 20;
/// Plain frames a context makes before it continues past its small input buffer (see
/// [`compress_frame`]): a few frames above 64 KiB then clear their tables rather than map
/// the full buffer once.
const GROW_AFTER: u32 = 8;

/// The most bytes (earlier frames' and the source) a one-shot frame copies into the padded
/// buffer to read them unchecked: a larger source is read where it lies rather than
/// doubled in memory.
const COPY_MAX: usize = 4 << 20;

/// A raw-content dictionary below this size is not loaded (ZSTD_compress_insertDictionary).
pub(crate) const DICT_MIN_LOADED: usize = 8;

/// [`compress_frame`] after loading a dictionary, as `ZSTD_compress_usingDict` does
/// (`ZSTD_dct_auto`): a formatted dictionary seeds the first block's entropy tables and
/// repeat offsets and names its ID in the frame header; its content, or the whole of any
/// other dictionary of at least 8 bytes, becomes the window's extDict segment (see
/// [`MatchState::load_dict`]). `cp` must be the parameters chosen with the dictionary's
/// size. A formatted dictionary whose header is damaged is refused before anything is
/// written.
pub(crate) fn compress_frame_with_dict(
    st: &mut FrameState,
    cp: &CParams,
    dict: &[u8],
    src: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), ZstdError> {
    compress_frame_with_dict_split(st, cp, split::enabled(cp), dict, src, out)
}

/// [`compress_frame_with_dict`] with the post-block splitter decided by the caller.
fn compress_frame_with_dict_split(
    st: &mut FrameState,
    cp: &CParams,
    split_enabled: bool,
    dict: &[u8],
    src: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), ZstdError> {
    let start = if dict::is_formatted(dict) {
        Some(dict::read_start(dict)?)
    } else {
        None
    };
    let content = match &start {
        Some(start) => &dict[start.content_start..],
        None if dict.len() < DICT_MIN_LOADED => &[][..],
        None => dict,
    };
    st.ms.reset(cp);
    if let Some(start) = &start
        && start.entropy.huf.repeat == HufRepeat::Valid
    {
        st.ms.seed_from_dict(&start.entropy);
    }
    // The finders see one slice, the content first (see `Window`).
    let joined = st.take_joined(None, content, src);
    if !src.is_empty() {
        st.ms.load_dict(joined.as_slice(), content.len(), cp, false);
    }
    let dict = FrameDict {
        len: content.len(),
        start: start.as_ref(),
        attached: None,
        base: WINDOW_START_INDEX,
        continued: false,
        // A raw dictionary below 8 bytes is not loaded at all (its content is empty here).
        loaded: start.is_some() || !content.is_empty(),
    };
    let (buf, padded) = (joined.as_slice(), joined.view());
    compress_frame_after(st, cp, split_enabled, buf, padded, dict, out);
    st.put_joined(joined, None);
    Ok(())
}

/// [`compress_frame`] with a prepared dictionary, as `ZSTD_compress_usingCDict`: small
/// sources (see [`params::uses_cdict_params`]) take the dictionary's parameters and a copy
/// of its tables; larger ones load the dictionary as [`compress_frame_with_dict`] does.
/// Either way the window may grow to fit the source.
///
/// Sources up to [`params::attach_dict_cutoff`] read the CDict's tables in place
/// (ZSTD_resetCCtx_byAttachingCDict, the dictMatchState finders of every strategy).
pub(crate) fn compress_frame_prepared(
    st: &mut FrameState,
    pd: &dict::PreparedDict,
    src: &[u8],
    out: &mut Vec<u8>,
) {
    let dict_size = pd.bytes.len() as u64;
    let src_size = src.len() as u64;
    let chosen = params::using_cdict_cparams(&pd.cp, pd.level, src_size, dict_size);
    let cp = params::raise_window_for_source(chosen, src_size);
    // The post-block splitter is decided on the parameters before the window grows
    // (ZSTD_CCtxParams_init_internal runs first).
    let split_enabled = split::enabled(&chosen);
    if dict_size == 0 || !params::uses_cdict_params(src_size, dict_size) {
        // The bytes are a checked dictionary: loading them again cannot fail.
        let _ = compress_frame_with_dict_split(st, &cp, split_enabled, &pd.bytes, src, out);
        return;
    }
    compress_frame_cdict(st, pd, src, cp.window_log, split_enabled, out);
}

/// [`compress_frame`] after `ZSTD_CCtx_loadDictionary(dict)` on a context at the
/// dictionary's level, then `ZSTD_compress2` (one call of `ZSTD_compressStream2` with the
/// whole source, the `zstd` tool's path): the parameters are chosen for the source (alone
/// when the dictionary is attached, with the dictionary otherwise), and the context's
/// local CDict (the same tables as `pd`'s) is always attached or copied, whatever the
/// source's size.
///
/// Mirrors ZSTD_CCtx_init_compressStream2 + ZSTD_compressBegin_internal with a local dict.
pub(crate) fn compress_frame_loaded(
    st: &mut FrameState,
    pd: &dict::PreparedDict,
    src: &[u8],
    out: &mut Vec<u8>,
) {
    let dict_size = pd.bytes.len() as u64;
    let src_size = src.len() as u64;
    let chosen = params::loaded_dict_cparams(&pd.cp, pd.level, src_size, dict_size);
    let split_enabled = split::enabled(&chosen);
    if dict_size == 0 {
        st.ms.reset(&chosen);
        compress_frame_after(
            st,
            &chosen,
            split_enabled,
            src,
            None,
            FrameDict::default(),
            out,
        );
        return;
    }
    compress_frame_cdict(st, pd, src, chosen.window_log, split_enabled, out);
}

/// Compress `src` with the CDict `pd` attached (small sources, where the attached finder
/// is written) or its tables copied: the CDict's parameters with `window_log`.
///
/// Mirrors ZSTD_resetCCtx_usingCDict (ZSTD_resetCCtx_byAttachingCDict /
/// ZSTD_resetCCtx_byCopyingCDict).
fn compress_frame_cdict(
    st: &mut FrameState,
    pd: &dict::PreparedDict,
    src: &[u8],
    window_log: u32,
    split_enabled: bool,
    out: &mut Vec<u8>,
) {
    let src_size = src.len() as u64;
    let cp = CParams {
        window_log,
        ..pd.cp
    };
    let content = pd.content();
    let joined = st.take_joined(Some(pd.uid), content, src);
    // ZSTD_shouldAttachDict: small sources read the CDict's tables in place, the others
    // get a copy of them.
    let attach = src_size <= params::attach_dict_cutoff(pd.cp.strategy);
    // ZSTD_resetCCtx_byAttachingCDict: the context's own tables sized for the source
    // alone, the window kept, the CDict's finder choice.
    let own = CParams {
        window_log: cp.window_log,
        ..params::adjust(pd.cp, src_size)
    };
    // A dictionary with no content is not attached (its parameters still apply).
    let attached = (attach && !content.is_empty()).then(|| attached_tables(pd));
    let mut base = WINDOW_START_INDEX;
    if attached.is_some() {
        let frame_len = content.len() + src.len();
        base = st
            .ms
            .reset_attached(&own, pd.lazy_row(), frame_len, src.len());
    } else if attach {
        st.ms.reset_with_row(&own, pd.lazy_row());
    } else {
        st.ms.copy_tables_from(&pd.tables, &cp, content.len());
    }
    if let Some(start) = &pd.start
        && start.entropy.huf.repeat == HufRepeat::Valid
    {
        st.ms.seed_from_dict(&start.entropy);
    }
    let own_cp = if attach { own } else { cp };
    let dict = FrameDict {
        len: content.len(),
        start: pd.start.as_ref(),
        attached,
        base,
        continued: false,
        loaded: false,
    };
    let (buf, padded) = (joined.as_slice(), joined.view());
    compress_frame_after(st, &own_cp, split_enabled, buf, padded, dict, out);
    st.put_joined(joined, Some(pd.uid));
}

/// The CDict's tables as the dictMatchState finders read them in place.
pub(crate) fn attached_tables(pd: &dict::PreparedDict) -> AttachedTables<'_> {
    let content_len = pd.content().len();
    let lazy = match &pd.dds {
        Some(dds) => Some(AttachedLazy::Dds(dds.attached())),
        None => pd.tables.attached_lazy(&pd.cp).map(|l| match l {
            AttachedLazy::Chains(c) => AttachedLazy::Chains(DictChains { content_len, ..c }),
            AttachedLazy::Tree(t) => AttachedLazy::Tree(DictTree { content_len, ..t }),
            other => other,
        }),
    };
    let opt = pd
        .tables
        .attached_opt(&pd.cp)
        .map(|t| OptDictTree { content_len, ..t });
    AttachedTables {
        content_len,
        hash_log: pd.cp.hash_log,
        chain_log: pd.cp.chain_log,
        tagged: pd.tagged.as_deref().unwrap_or(&[]),
        tagged_small: pd.tagged_small.as_deref().unwrap_or(&[]),
        lazy,
        opt,
    }
}

/// Compress `src` (at most one block of the CDict's window) as one block without a frame,
/// after `ZSTD_compressBegin_usingCDict` with an unknown source size: the CDict's
/// parameters and window, its tables attached (the context's own tables not shrunk for
/// the source), fresh entropy tables and repeat offsets. The block's sequences and
/// literals stay in `st.seqs`; returns the size of the compressed block body, 0 when the
/// block would be stored raw (too small, or not compressible).
///
/// Mirrors ZSTD_compressBegin_usingCDict_deprecated + ZSTD_compressBlock_deprecated (the
/// statistics pass of ZDICT_analyzeEntropy).
pub(crate) fn compress_block_with_cdict(
    st: &mut FrameState,
    pd: &dict::PreparedDict,
    src: &[u8],
    scratch: &mut Vec<u8>,
) -> usize {
    let content = pd.content();
    debug_assert!(src.len() <= BLOCK_SIZE_MAX.min(1 << pd.cp.window_log));
    st.seqs.reset(src.len());
    if src.len() < MIN_COMPRESS_BLOCK_SIZE {
        return 0;
    }
    let joined = st.take_joined(Some(pd.uid), content, src);
    // A CDict with content is always attached when the size is unknown; one without is
    // not used at all, its parameters are (ZSTD_compressBegin_internal).
    let (cp, mut window, attached) = if content.is_empty() {
        st.ms.reset(&pd.cp);
        (pd.cp, Window::new(pd.cp.window_log), None)
    } else {
        let own = CParams {
            window_log: pd.cp.window_log,
            ..params::adjust(pd.cp, u64::MAX)
        };
        let frame_len = content.len() + src.len();
        let base = st
            .ms
            .reset_attached(&own, pd.lazy_row(), frame_len, src.len());
        let window = Window::attached(own.window_log, content.len(), base);
        (own, window, Some(attached_tables(pd)))
    };
    *st.prev = EntropyTables::default();
    let fpos = st.prepare_block(&mut window, &cp, content.len(), src.len());
    let mut rep = REP_START_VALUE;
    let job = Block {
        src: &joined.as_slice()[window.origin()..],
        // The padded copy holds the frame from position 0.
        padded: joined.view().filter(|_| window.origin() == 0),
        start: fpos,
        end: fpos + src.len(),
        cp: &cp,
        seqs: &mut st.seqs,
        rep: &mut rep,
    };
    st.ms.compress_block(job, &mut window, attached.as_ref());
    st.put_joined(joined, Some(pd.uid));
    scratch.clear();
    block::entropy_compress(
        scratch,
        &mut st.seqs,
        &st.prev,
        &mut st.next,
        &mut st.huf_ws,
        &cp,
        src.len(),
    )
}

/// The dictionary a frame is compressed after.
#[derive(Default)]
struct FrameDict<'a> {
    /// Bytes of content before the source in the finders' slice.
    len: usize,
    /// What a formatted dictionary seeds.
    start: Option<&'a dict::DictStart>,
    /// The CDict's tables when it is attached rather than loaded or copied.
    attached: Option<AttachedTables<'a>>,
    /// With `attached`, the index of the dictionary's first byte ([`Window::attached`]);
    /// without a dictionary, of the source's first byte when it is above
    /// [`WINDOW_START_INDEX`] ([`Window::rebased`]).
    base: u32,
    /// `len` bytes of earlier frames, not a dictionary: the frame starts afresh after them
    /// ([`Window::continuing`]).
    continued: bool,
    /// The dictionary was loaded into the context for this frame (ZSTD_compress_usingDict,
    /// not a CDict attached or copied): the long-distance finder, where it is on, loads it
    /// too.
    loaded: bool,
}

/// Compress `buf[dict.len..]` as one frame; `buf[..dict.len]` is a dictionary's content,
/// already loaded into `st.ms` (reset by the caller) unless it is attached.
fn compress_frame_after(
    st: &mut FrameState,
    cp: &CParams,
    split_enabled: bool,
    buf: &[u8],
    padded: Option<Padded<'_>>,
    dict: FrameDict<'_>,
    out: &mut Vec<u8>,
) {
    let FrameDict {
        len: dict_len,
        start,
        attached,
        base,
        continued,
        loaded,
    } = dict;
    let src = &buf[dict_len..];
    write_frame_header(
        out,
        cp.window_log,
        src.len() as u64,
        start.map_or(0, |s| s.id),
    );
    if src.is_empty() {
        // Epilogue: an empty raw last block when no block was written.
        write_block_header(out, true, BLOCK_RAW, 0);
        return;
    }

    // Fresh context state (ZSTD_resetCCtx_internal / ZSTD_reset_compressedBlockState), or
    // the dictionary's (ZSTD_loadCEntropy).
    let mut window = if continued {
        Window::continuing(cp.window_log, dict_len)
    } else if attached.is_some() {
        Window::attached(cp.window_log, dict_len, base)
    } else if dict_len == 0 {
        Window::rebased(cp.window_log, base.max(WINDOW_START_INDEX))
    } else {
        Window::with_dict(cp.window_log, dict_len)
    };
    // ZSTD_resolveEnableLdm: level 22 on a source above 64 MiB (with its dictionary).
    if ldm::auto_enabled(cp) {
        debug_assert!(!continued, "sources past the window never continue");
        st.ms.enable_ldm(cp, &window);
        if loaded {
            st.ms.load_ldm_dict(buf, dict_len, &window);
        }
    }
    let mut chunk = ChunkState::default();
    match start {
        Some(start) => {
            (*st.prev).clone_from(&start.entropy);
            chunk.prev_rep = start.reps;
        }
        None => *st.prev = EntropyTables::default(),
    }
    let window_size = (1usize << cp.window_log).min(src.len()).max(1);
    let job = FrameChunk {
        buf,
        padded,
        range: dict_len..buf.len(),
        last: true,
        savings: 0,
        block_size_max: BLOCK_SIZE_MAX.min(window_size),
        split_enabled,
    };
    compress_frame_chunk(st, cp, job, &mut window, attached.as_ref(), &mut chunk, out);
}

/// What ZSTD_compressContinue keeps from one chunk of a frame to the next: the repeat
/// offsets of the last compressed block and whether a block was written yet
/// (`isFirstBlock`: the first block is never RLE).
pub(crate) struct ChunkState {
    pub(crate) prev_rep: [u32; REP_NUM],
    pub(crate) first_block: bool,
}

impl Default for ChunkState {
    fn default() -> Self {
        ChunkState {
            prev_rep: REP_START_VALUE,
            first_block: true,
        }
    }
}

/// One call of ZSTD_compress_frameChunk: `buf[range]` cut into blocks.
pub(crate) struct FrameChunk<'a> {
    /// Frame positions up to the chunk's end; the finders see `buf[window.origin()..]`.
    pub(crate) buf: &'a [u8],
    /// The same bytes as `buf` in a padded buffer (see [`matcher::source`]), if they are.
    pub(crate) padded: Option<Padded<'a>>,
    pub(crate) range: std::ops::Range<usize>,
    /// The frame's last chunk: its last block is marked last.
    pub(crate) last: bool,
    /// Bytes saved so far (`consumedSrcSize - producedCSize`): pre-splitting needs some.
    pub(crate) savings: i64,
    /// `blockSizeMax`: 128 KiB, or the window when it is smaller.
    pub(crate) block_size_max: usize,
    /// Whether the post-block splitter runs (decided with the frame's parameters).
    pub(crate) split_enabled: bool,
}

/// Mirrors ZSTD_compress_frameChunk: cut the chunk into blocks (ZSTD_optimalBlockSize), keep
/// the window up before each, find its sequences and write it compressed, RLE or raw.
/// Appends the blocks to `out`.
pub(crate) fn compress_frame_chunk(
    st: &mut FrameState,
    cp: &CParams,
    job: FrameChunk<'_>,
    window: &mut Window,
    attached: Option<&AttachedTables<'_>>,
    chunk: &mut ChunkState,
    out: &mut Vec<u8>,
) {
    let FrameChunk {
        buf,
        padded,
        range,
        last: last_chunk,
        mut savings,
        block_size_max,
        split_enabled,
    } = job;
    let mut pos = range.start;
    while pos < range.end {
        let remaining = range.end - pos;
        let block_size =
            optimal_block_size(&buf[pos..], remaining, block_size_max, savings, cp.strategy);
        let last = last_chunk && block_size == remaining;
        let block = &buf[pos..pos + block_size];
        let out_start = out.len();

        // The finders see `buf[origin..]`: an overflow correction moves the origin.
        let fpos = st.prepare_block(window, cp, pos, block_size);
        let fsrc = &buf[window.origin()..];

        let mut c_size = 0;
        if block_size >= MIN_COMPRESS_BLOCK_SIZE {
            st.seqs.reset(block_size);
            let mut next_rep = chunk.prev_rep;
            let job = Block {
                src: fsrc,
                // The padded copy holds the frame from position 0.
                padded: padded.filter(|_| window.origin() == 0),
                start: fpos,
                end: fpos + block_size,
                cp,
                seqs: &mut st.seqs,
                rep: &mut next_rep,
            };
            st.ms.compress_block(job, window, attached);
            if split_enabled {
                let ctx = BlockContext {
                    seqs: &mut st.seqs,
                    prev: &mut st.prev,
                    next: &mut st.next,
                    ws: &mut st.huf_ws,
                    split: &mut st.split,
                    cp,
                    first_block: chunk.first_block,
                };
                chunk.prev_rep =
                    split::compress_block(out, ctx, block, last, chunk.prev_rep, next_rep);
                savings += block_size as i64 - (out.len() - out_start) as i64;
                pos += block_size;
                chunk.first_block = false;
                continue;
            }
            out.extend_from_slice(&[0; 3]);
            c_size = block::entropy_compress(
                out,
                &mut st.seqs,
                &st.prev,
                &mut st.next,
                &mut st.huf_ws,
                cp,
                block_size,
            );
            if !chunk.first_block && c_size < RLE_MAX_LENGTH && block::is_rle(block) {
                out.truncate(out_start + 3);
                out.push(block[0]);
                c_size = 1;
            }
            if c_size > 1 {
                // ZSTD_blockState_confirmRepcodesAndEntropyTables.
                std::mem::swap(&mut st.prev, &mut st.next);
                chunk.prev_rep = next_rep;
            }
        }
        // ZSTD_compressBlock_internal's exit, for compressed, stored and too-small blocks
        // alike (a too-small one precedes another only after a stream's flush): a
        // dictionary's offset table no longer counts as valid for the next block.
        block::demote_offcode_repeat(&mut st.prev);
        match c_size {
            0 => {
                out.truncate(out_start);
                write_raw_block(out, last, block);
            }
            1 => {
                out.truncate(out_start);
                write_block_header(out, last, BLOCK_RLE, block_size);
                out.push(block[0]);
            }
            _ => {
                // The body already follows the 3-byte hole left for its header.
                let header = last as u32 + (BLOCK_COMPRESSED << 1) + ((c_size as u32) << 3);
                out[out_start..out_start + 3].copy_from_slice(&header.to_le_bytes()[..3]);
            }
        }
        savings += block_size as i64 - (out.len() - out_start) as i64;
        pos += block_size;
        chunk.first_block = false;
    }
}

/// Mirrors ZSTD_optimalBlockSize with the default split level of each strategy.
fn optimal_block_size(
    rest: &[u8],
    remaining: usize,
    block_size_max: usize,
    savings: i64,
    strategy: Strategy,
) -> usize {
    if remaining < BLOCK_SIZE_MAX || block_size_max < BLOCK_SIZE_MAX {
        return remaining.min(block_size_max);
    }
    if savings < PRESPLIT_MIN_SAVINGS {
        return BLOCK_SIZE_MAX;
    }
    let block = &rest[..block_size_max];
    // `splitLevels`: fast uses fromBorders, the others byChunks at a level by strategy.
    match strategy {
        Strategy::Fast => presplit::split_from_borders(block),
        Strategy::DFast => presplit::split_by_chunks(block, 0),
        Strategy::Greedy | Strategy::Lazy => presplit::split_by_chunks(block, 1),
        Strategy::Lazy2 | Strategy::BtLazy2 => presplit::split_by_chunks(block, 2),
        _ => presplit::split_by_chunks(block, 3),
    }
}
