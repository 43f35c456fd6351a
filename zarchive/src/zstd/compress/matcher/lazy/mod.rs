//! The `greedy`, `lazy`, `lazy2` and `btlazy2` strategies (`zstd_lazy.c`,
//! `ZSTD_compressBlock_lazy_generic` at depth 0, 1 and 2, no dictionary), with the match
//! finders libzstd picks between: for greedy..lazy2 the hash chain ([`hash_chain`], windows
//! up to 16 KiB) or the row-based finder ([`row`], larger windows); for btlazy2 the binary
//! tree ([`binary_tree`]).

pub(crate) mod binary_tree;
pub(crate) mod dedicated;
pub(crate) mod hash_chain;
pub(crate) mod row;

use super::source::{Padded, Source};
use super::table::AlignedTable;
use super::{Block, BlockReps, SEARCH_STRENGTH};
use crate::zstd::compress::bits::highbit32;
use crate::zstd::compress::params::{CParams, Strategy};
use crate::zstd::compress::seq_store::{REPCODE1_TO_OFFBASE, SeqStore};
use crate::zstd::compress::window::Window;

use binary_tree::BinaryTree;
pub(crate) use binary_tree::DictTree;
pub(crate) use dedicated::DictDds;
pub(crate) use hash_chain::DictChains;
use hash_chain::HashChain;
pub(crate) use row::DictRows;
use row::{ROW_HASH_CACHE_SIZE, RowFinder};

/// Above this skip step the finders stop inserting every position (`kLazySkippingStep`).
const LAZY_SKIPPING_STEP: usize = 8;
/// Windows larger than `1 << ROW_FINDER_MIN_WINDOW_LOG` bytes use the row finder
/// (`ZSTD_resolveRowMatchFinderMode`: `windowLog > 14`).
const ROW_FINDER_MIN_WINDOW_LOG: u32 = 14;
/// The offBase a search starts from and reports when it finds nothing; its high bit
/// still enters the gain formulas (`999999999` in `ZSTD_compressBlock_lazy_generic`).
const NO_MATCH_OFF_BASE: u32 = 999_999_999;
/// Shortest match the lazy parser accepts.
const MIN_MATCH: usize = 4;
/// The finders hash `minMatch` bytes, clamped to this range (`BOUNDED(4, minMatch, 6)`).
const MLS_MIN: u32 = 4;
const MLS_MAX: u32 = 6;

/// Match-finder tables of the lazy family, kept across blocks and reused across frames
/// (the lazy part of `ZSTD_MatchState_t`). The hash table itself is the frame's.
#[derive(Default)]
pub(crate) struct LazyState {
    /// Hash chain: previous position with the same hash, indexed by `index & chainMask`.
    pub(crate) chain: AlignedTable<u32>,
    /// Row finder: one tag byte per hash-table entry; byte 0 of each row is its head.
    pub(crate) tags: AlignedTable<u8>,
    /// Row finder: hashes of the next [`ROW_HASH_CACHE_SIZE`] positions to insert.
    pub(crate) hash_cache: [u32; ROW_HASH_CACHE_SIZE],
    /// First position not yet inserted (`nextToUpdate`, as a source position).
    pub(crate) next_to_update: usize,
    /// The frame uses the row finder (`useRowMatchFinder`), decided at reset.
    pub(crate) row: bool,
}

/// Whether `cp` selects the row-based finder (`ZSTD_resolveRowMatchFinderMode`, 1.5.7:
/// greedy..lazy2 with `windowLog > 14`, independent of SIMD support).
pub(crate) fn uses_row_finder(cp: &CParams) -> bool {
    matches!(
        cp.strategy,
        Strategy::Greedy | Strategy::Lazy | Strategy::Lazy2
    ) && cp.window_log > ROW_FINDER_MIN_WINDOW_LOG
}

impl LazyState {
    /// Mirrors the lazy part of ZSTD_reset_matchState for a fresh context: `hash` is
    /// cleared by the caller; the chain or tag table is cleared here.
    pub(crate) fn reset(&mut self, cp: &CParams) {
        self.reset_with(cp, uses_row_finder(cp));
    }

    /// [`LazyState::reset`] with the finder decided elsewhere: a copied CDict keeps the
    /// choice made for its own parameters (ZSTD_resetCCtx_byCopyingCDict,
    /// `useRowMatchFinder = cdict->useRowMatchFinder`).
    pub(crate) fn reset_with(&mut self, cp: &CParams, row: bool) {
        self.row = row;
        if row {
            self.tags.reset(1 << cp.hash_log);
        } else {
            self.chain.reset(1 << cp.chain_log);
        }
        self.hash_cache = [0; ROW_HASH_CACHE_SIZE];
        self.next_to_update = 0;
    }

    /// Mirrors the lazy part of ZSTD_reduceIndex and ZSTD_overflowCorrectIfNeeded: the chain
    /// (or btlazy2's tree, keeping its unsorted marks) loses `correction` from every index,
    /// and `nextToUpdate` follows the finder positions, which moved by `moved`. The row
    /// finder has no chain, and its tags and hash cache hold no indices.
    pub(crate) fn reduce_index(&mut self, cp: &CParams, correction: u32, moved: usize) {
        if !self.row {
            super::table::reduce_table(
                self.chain.as_mut_slice(),
                correction,
                cp.strategy == Strategy::BtLazy2,
            );
        }
        self.next_to_update = self.next_to_update.saturating_sub(moved);
    }

    /// Mirrors, before the block at `block_start`, the clamp of `nextToUpdate` to the
    /// window's low limit in ZSTD_compress_frameChunk, then the limited catch-up of
    /// ZSTD_buildSeqStore.
    pub(crate) fn limit_catch_up(&mut self, block_start: usize, window: &Window) {
        self.next_to_update = self.next_to_update.max(window.low_limit_pos());
        self.next_to_update = super::limited_catch_up(block_start, self.next_to_update);
    }
}

/// What the lazy parser needs from a match finder (`ZSTD_searchMax` and the finder hooks
/// of `ZSTD_compressBlock_lazy_generic`).
pub(crate) trait SearchMax {
    /// How far from the block end the parser stops searching (`ilimit = iend - MARGIN`).
    const MARGIN: usize;
    /// The finder only runs at depth 2 (btlazy2's tree): the parser is not built for the
    /// other depths.
    const LAZY2_ONLY: bool = false;
    /// The finder may have a dictionary attached (`ZSTD_dictMatchState`); if not, the
    /// parser is not built for one.
    const ATTACHABLE: bool = true;
    /// Called once before the match loop of a block (the row finder fills its hash cache).
    fn start_block<'a, S: Source<'a>>(&mut self, src: S, ilimit: Option<usize>);
    /// Longest match at `ip` (reading no further than `iend`) as `(length, offBase)`; a
    /// length below 4 means none was found. Inserts positions up to `ip` first (only one
    /// per call in lazy-skipping mode).
    fn search<'a, S: Source<'a>>(
        &mut self,
        src: S,
        ip: usize,
        iend: usize,
        lazy_skipping: bool,
    ) -> (usize, u32);
    /// Called after a match ends lazy-skipping mode (the row finder refills its cache).
    fn end_skipping<'a, S: Source<'a>>(&mut self, src: S, ilimit: Option<usize>);
}

/// Mirrors ZSTD_compressBlock_{greedy,lazy,lazy2}[_row] and ZSTD_compressBlock_btlazy2:
/// picks the finder (hash chain, row or binary tree), its `mls` (minMatch clamped to
/// 4..=6) and row size, and the search depth.
/// `hash` is the frame's hash table (`1 << hashLog` entries). Returns the number of
/// trailing literals.
pub(crate) fn compress_block(
    hash: &mut [u32],
    state: &mut LazyState,
    b: Block<'_>,
    window: &Window,
    dms: Option<AttachedLazy<'_>>,
) -> usize {
    let Block {
        src,
        padded,
        start: block_start,
        end: block_end,
        cp,
        seqs,
        rep,
    } = b;
    let depth = match cp.strategy {
        Strategy::Greedy => 0,
        Strategy::Lazy => 1,
        _ => 2,
    };
    let mls = cp.min_match.clamp(MLS_MIN, MLS_MAX);
    let args = BlockArgs {
        seqs,
        rep,
        window,
        src,
        padded,
        block_start,
        block_end,
        depth,
        ext_dict: window.has_ext_dict() || dms.is_some(),
        dms: dms.is_some(),
    };
    if cp.strategy == Strategy::BtLazy2 {
        macro_rules! tree {
            ($mls:literal) => {{
                let finder = BinaryTree::<$mls>::new(hash, state, cp, window, block_end);
                match dms {
                    Some(AttachedLazy::Tree(d)) => args.run(finder.with_dict(d)),
                    _ => args.run(finder),
                }
            }};
        }
        match mls {
            4 => tree!(4),
            5 => tree!(5),
            _ => tree!(6),
        }
    } else if state.row {
        macro_rules! rows {
            ($mls:literal, $row:literal) => {{
                let finder = RowFinder::<$mls, $row>::new(hash, state, cp, window, block_end);
                match dms {
                    Some(AttachedLazy::Rows(d)) => args.run(finder.with_dict(d)),
                    Some(AttachedLazy::Dds(d)) => args.run(finder.with_dds(d, cp)),
                    _ => args.run(finder),
                }
            }};
        }
        // The row count compiled in, without a dictionary, for levels 5 to 9 on a 64 KiB
        // block (ZAR's level 6 among them; 16- and 32-entry rows, hash log 17): no bounds
        // check on a row (−2 to −3 % instructions, +3 % speed at level 6, +1-2 % at
        // level 9 on the 64 KiB block sets; level 10's 64-entry rows measured 1-3 %
        // slower). Not for the large inputs' shape (levels 5 and 6 past 256 KiB, 2^15
        // rows): no gain there, where the rows' cache misses are the cost.
        macro_rules! fixed_rows {
            ($mls:literal, $row:literal, $hash_log:literal) => {{
                const NROWS: usize = (1 << $hash_log) / $row;
                args.run(RowFinder::<$mls, $row, NROWS>::new(
                    hash, state, cp, window, block_end,
                ))
            }};
        }
        match (mls, row::row_log(cp)) {
            (4, 4) if cp.hash_log == 17 && dms.is_none() => fixed_rows!(4, 16, 17),
            (4, 5) if cp.hash_log == 17 && dms.is_none() => fixed_rows!(4, 32, 17),
            (4, 4) => rows!(4, 16),
            (4, 5) => rows!(4, 32),
            (4, _) => rows!(4, 64),
            (5, 4) => rows!(5, 16),
            (5, 5) => rows!(5, 32),
            (5, _) => rows!(5, 64),
            (_, 4) => rows!(6, 16),
            (_, 5) => rows!(6, 32),
            (_, _) => rows!(6, 64),
        }
    } else {
        macro_rules! chain {
            ($mls:literal) => {{
                let finder = HashChain::<$mls>::new(hash, state, cp, window, block_end);
                match dms {
                    Some(AttachedLazy::Chains(d)) => args.run(finder.with_dict(d)),
                    Some(AttachedLazy::Dds(d)) => args.run(finder.with_dds(d)),
                    _ => args.run(finder),
                }
            }};
        }
        match mls {
            4 => chain!(4),
            5 => chain!(5),
            _ => chain!(6),
        }
    }
}

/// Load the raw-content dictionary `src[..end]` (its suffix from `start`) into the hash
/// chains or rows of greedy..lazy2, or btlazy2's tree (sorted as the optimal parser sorts
/// its own). Insertion resumes at `end`: the dictionary's last 8 positions are never
/// inserted.
///
/// Mirrors the greedy..lazy2 case of ZSTD_loadDictionaryContent.
pub(crate) fn load_dict(
    hash: &mut [u32],
    state: &mut LazyState,
    cp: &CParams,
    window: &Window,
    src: &[u8],
    start: usize,
    end: usize,
) {
    if cp.strategy == Strategy::BtLazy2 {
        let bt = &mut state.chain.as_mut_slice()[..1 << cp.chain_log];
        super::opt::fill_tree(hash, bt, cp, window, src, start, end);
    } else if state.row {
        let mls = cp.min_match.clamp(MLS_MIN, MLS_MAX);
        macro_rules! fill {
            ($mls:literal, $row:literal) => {
                RowFinder::<$mls, $row>::new(hash, state, cp, window, end)
                    .fill_dict(src, start, end)
            };
        }
        match (mls, row::row_log(cp)) {
            (4, 4) => fill!(4, 16),
            (4, 5) => fill!(4, 32),
            (4, _) => fill!(4, 64),
            (5, 4) => fill!(5, 16),
            (5, 5) => fill!(5, 32),
            (5, _) => fill!(5, 64),
            (_, 4) => fill!(6, 16),
            (_, 5) => fill!(6, 32),
            (_, _) => fill!(6, 64),
        }
    } else {
        hash_chain::fill_dict(hash, state, cp, src, start, end);
    }
    state.next_to_update = end;
}

/// An attached CDict's tables for the lazy strategies, by finder.
#[derive(Clone, Copy)]
pub(crate) enum AttachedLazy<'t> {
    Chains(DictChains<'t>),
    Rows(DictRows<'t>),
    Tree(DictTree<'t>),
    /// A dedicated-search CDict (greedy..lazy2), searched after either finder
    /// (`ZSTD_dedicatedDictSearch`).
    Dds(DictDds<'t>),
}

/// The parser's inputs besides the finder.
struct BlockArgs<'a> {
    seqs: &'a mut SeqStore,
    rep: &'a mut [u32; 3],
    window: &'a Window,
    src: &'a [u8],
    /// `src` in a padded buffer (see [`Source`]), read unchecked where there is one.
    padded: Option<Padded<'a>>,
    block_start: usize,
    block_end: usize,
    depth: u32,
    /// The history has an extDict segment (a dictionary's content), or (with `dms`) an
    /// attached dictionary before the prefix.
    ext_dict: bool,
    dms: bool,
}

impl BlockArgs<'_> {
    /// Runs the parse on the padded copy where there is one, else on the slice.
    fn run<F: SearchMax>(self, finder: F) -> usize {
        match self.padded {
            Some(Padded::Small(p)) => self.run_on(finder, p),
            Some(Padded::Full(p)) => self.run_on(finder, p),
            None => {
                let src = self.src;
                self.run_on(finder, src)
            }
        }
    }

    /// Picks the parse for the depth and the history's shape, reading `src`.
    fn run_on<'s, F: SearchMax, S: Source<'s>>(self, mut finder: F, src: S) -> usize {
        let BlockArgs {
            seqs,
            rep,
            window,
            block_start,
            block_end,
            depth,
            ext_dict,
            dms,
            ..
        } = self;
        let f = &mut finder;
        let (start, end) = (block_start, block_end);
        // Only the parses a finder can meet are compiled for it (a quarter of the
        // library's code was copies of the dictionary parse no finder could run).
        macro_rules! parse {
            ($depth:literal) => {
                match (ext_dict, dms) {
                    (false, _) => {
                        lazy_generic::<F, _, $depth>(f, seqs, rep, window, src, start, end)
                    }
                    // An attached dictionary, its content and the source in one buffer.
                    (true, true) if F::ATTACHABLE => lazy_ext_dict_generic::<F, _, $depth, true>(
                        f, seqs, rep, window, src, start, end,
                    ),
                    // A loaded dictionary, or a stream past its window.
                    (true, _) => lazy_ext_dict_generic::<F, _, $depth, false>(
                        f, seqs, rep, window, src, start, end,
                    ),
                }
            };
        }
        // btlazy2's tree is only searched at depth 2.
        if F::LAZY2_ONLY {
            return parse!(2);
        }
        match depth {
            0 => parse!(0),
            1 => parse!(1),
            _ => parse!(2),
        }
    }
}

/// A repcode-1 match at `ip` (offset `offset_1 > 0`) of at least 4 bytes: its length.
#[inline(always)]
fn rep_match_len<'a, S: Source<'a>>(
    src: S,
    ip: usize,
    offset_1: u32,
    iend: usize,
) -> Option<usize> {
    let off = offset_1 as usize;
    (off > 0 && src.read32(ip - off) == src.read32(ip))
        .then(|| src.count(ip + 4, ip + 4 - off, iend) + 4)
}

/// Mirrors ZSTD_compressBlock_lazy_generic (noDict) at `DEPTH` 0 (greedy), 1 (lazy) or
/// 2 (lazy2, btlazy2). Positions are offsets into `src` (the whole frame input); the block is
/// `src[block_start..block_end]`. Returns the number of trailing literals.
fn lazy_generic<'a, F: SearchMax, S: Source<'a>, const DEPTH: u32>(
    finder: &mut F,
    seqs: &mut SeqStore,
    rep: &mut [u32; 3],
    window: &Window,
    src: S,
    block_start: usize,
    block_end: usize,
) -> usize {
    let iend = block_end;
    // `None` when the block is too short to search at all (`ilimit` before the source).
    let ilimit = iend.checked_sub(F::MARGIN);
    let search_end = ilimit.unwrap_or(0);
    // `prefixLowest` is the window's `dictLimit` as the block starts (unlike fast and
    // dfast, which derive it from the block end).
    let prefix_lowest = window.low_limit_pos();
    let mut ip = block_start;
    let mut anchor = block_start;
    // The very first position of the frame is never searched.
    ip += (ip == prefix_lowest) as usize;
    let curr = window.index(ip);
    let (mut offset_1, mut offset_2, saved_reps) =
        BlockReps::start(rep, curr - window.lowest_prefix_index(curr));
    let mut lazy_skipping = false;
    finder.start_block(src, ilimit);

    while ip < search_end {
        let mut match_length = 0;
        let mut off_base = REPCODE1_TO_OFFBASE;
        let mut start = ip + 1;

        // Repcode at ip + 1; greedy takes it without searching.
        let mut take_rep = false;
        if let Some(len) = rep_match_len(src, ip + 1, offset_1, iend) {
            match_length = len;
            take_rep = DEPTH == 0;
        }

        if !take_rep {
            let (ml2, found) = finder.search(src, ip, iend, lazy_skipping);
            if ml2 > match_length {
                match_length = ml2;
                start = ip;
                off_base = found;
            }
            if match_length < MIN_MATCH {
                // Jump faster over incompressible sections.
                let step = ((ip - anchor) >> SEARCH_STRENGTH) + 1;
                ip += step;
                lazy_skipping = step > LAZY_SKIPPING_STEP;
                continue;
            }

            // Look for a better match at the next positions.
            if DEPTH >= 1 {
                while ip < search_end {
                    ip += 1;
                    if let Some(ml_rep) = rep_match_len(src, ip, offset_1, iend) {
                        let gain2 = ml_rep as i64 * 3;
                        let gain1 = match_length as i64 * 3 - highbit32(off_base) as i64 + 1;
                        if ml_rep >= MIN_MATCH && gain2 > gain1 {
                            match_length = ml_rep;
                            off_base = REPCODE1_TO_OFFBASE;
                            start = ip;
                        }
                    }
                    let (ml2, found) = finder.search(src, ip, iend, lazy_skipping);
                    let gain2 = ml2 as i64 * 4 - highbit32(found) as i64;
                    let gain1 = match_length as i64 * 4 - highbit32(off_base) as i64 + 4;
                    if ml2 >= MIN_MATCH && gain2 > gain1 {
                        match_length = ml2;
                        off_base = found;
                        start = ip;
                        continue;
                    }

                    if DEPTH == 2 && ip < search_end {
                        ip += 1;
                        if let Some(ml_rep) = rep_match_len(src, ip, offset_1, iend) {
                            let gain2 = ml_rep as i64 * 4;
                            let gain1 = match_length as i64 * 4 - highbit32(off_base) as i64 + 1;
                            if ml_rep >= MIN_MATCH && gain2 > gain1 {
                                match_length = ml_rep;
                                off_base = REPCODE1_TO_OFFBASE;
                                start = ip;
                            }
                        }
                        let (ml2, found) = finder.search(src, ip, iend, lazy_skipping);
                        let gain2 = ml2 as i64 * 4 - highbit32(found) as i64;
                        let gain1 = match_length as i64 * 4 - highbit32(off_base) as i64 + 7;
                        if ml2 >= MIN_MATCH && gain2 > gain1 {
                            match_length = ml2;
                            off_base = found;
                            start = ip;
                            continue;
                        }
                    }
                    break;
                }
            }

            // Catch up backwards (only within the prefix: the match must stay above its start).
            if off_base > REP_NUM_OFFBASE_MAX {
                let offset = (off_base - REP_NUM_OFFBASE_MAX) as usize;
                while start > anchor
                    && start - offset > prefix_lowest
                    && src.byte(start - 1) == src.byte(start - offset - 1)
                {
                    start -= 1;
                    match_length += 1;
                }
                offset_2 = offset_1;
                offset_1 = offset as u32;
            }
        }

        // Store the sequence.
        seqs.store(src, anchor, start, off_base, match_length);
        ip = start + match_length;
        anchor = ip;
        if lazy_skipping {
            finder.end_skipping(src, ilimit);
            lazy_skipping = false;
        }

        // Immediate repcode-2 matches, with no literals.
        while ilimit.is_some_and(|l| ip <= l)
            && offset_2 > 0
            && src.read32(ip) == src.read32(ip - offset_2 as usize)
        {
            let len = src.count(ip + 4, ip + 4 - offset_2 as usize, iend) + 4;
            std::mem::swap(&mut offset_1, &mut offset_2);
            seqs.store(src, ip, ip, REPCODE1_TO_OFFBASE, len);
            ip += len;
            anchor = ip;
        }
    }

    saved_reps.finish(rep, offset_1, offset_2);
    seqs.store_last_literals(src, anchor, iend);
    iend - anchor
}

/// A repcode `offset` tried at index `curr` of an extDict (or attached dictionary) parse:
/// the length of its match at `ip`, if it lies within the window, does not straddle the
/// prefix start (ZSTD_index_overlap_check) and agrees on 4 bytes. Called at every searched
/// position, so kept in line (as a closure it was called: 53 instructions a call).
#[inline(always)]
fn ext_rep_len<'a, S: Source<'a>, const DMS: bool>(
    window: &Window,
    src: S,
    iend: usize,
    ip: usize,
    curr: u32,
    offset: u32,
) -> Option<usize> {
    let rep_index = curr.wrapping_sub(offset);
    // An attached dictionary's repcodes are not checked against the window (they
    // cannot reach past the dictionary); `rep_index` stays in the slice either way.
    if (window.dict_limit() - 1).wrapping_sub(rep_index) < 3
        || (!DMS && offset > curr - window.lowest_match_index(curr))
        || rep_index < window.base()
    {
        return None;
    }
    let m = window.pos_of(rep_index);
    (src.read32(ip) == src.read32(m)).then(|| src.count(ip + 4, m + 4, iend) + 4)
}

/// Mirrors ZSTD_compressBlock_lazy_extDict_generic at `DEPTH` 0, 1 or 2 (and with `DMS`,
/// ZSTD_compressBlock_lazy_generic with an attached dictionary, `ZSTD_dictMatchState`:
/// repcodes unchecked against the window, catch-up down to the dictionary's start), on the joined
/// slice of [`Window`] (one `count` serves `ZSTD_count_2segments`; the finders need no
/// change, their candidate tests only filter before the count). Unlike the prefix-only
/// parser it keeps no repcodes aside: each repcode is checked against the lowest match
/// index where it is tried, and must not straddle the prefix start.
fn lazy_ext_dict_generic<'a, F: SearchMax, S: Source<'a>, const DEPTH: u32, const DMS: bool>(
    finder: &mut F,
    seqs: &mut SeqStore,
    rep: &mut [u32; 3],
    window: &Window,
    src: S,
    block_start: usize,
    block_end: usize,
) -> usize {
    let iend = block_end;
    let ilimit = iend.checked_sub(F::MARGIN);
    let search_end = ilimit.unwrap_or(0);
    let dict_limit = window.dict_limit();
    let prefix_start = window.pos_of(dict_limit);
    // An attached dictionary's content starts the slice; a loaded one starts at the low limit.
    let dict_start = if DMS { 0 } else { window.low_limit_pos() };
    // A repcode `offset` tried at index `curr`: the length of its match at `ip`.
    let rep_len = |ip: usize, curr: u32, offset: u32| {
        ext_rep_len::<S, DMS>(window, src, iend, ip, curr, offset)
    };
    let (mut offset_1, mut offset_2) = (rep[0], rep[1]);
    let mut ip = block_start;
    let mut anchor = block_start;
    if DMS {
        // `dictAndPrefixLength == 0`: the prefix so far plus the dictionary's content (which
        // starts the slice) is `block_start`.
        ip += (block_start == 0) as usize;
    } else {
        ip += (ip == prefix_start) as usize;
    }
    let mut lazy_skipping = false;
    finder.start_block(src, ilimit);

    while ip < search_end {
        let mut match_length = 0;
        let mut off_base = REPCODE1_TO_OFFBASE;
        let mut start = ip + 1;
        let mut curr = window.index(ip);

        // Repcode at ip + 1; greedy takes it without searching.
        let mut take_rep = false;
        if let Some(len) = rep_len(ip + 1, curr + 1, offset_1) {
            match_length = len;
            take_rep = DEPTH == 0;
        }

        if !take_rep {
            let (ml2, found) = finder.search(src, ip, iend, lazy_skipping);
            if ml2 > match_length {
                match_length = ml2;
                start = ip;
                off_base = found;
            }
            if match_length < MIN_MATCH {
                // The extDict parser's skipping test leaves out the `+ 1`.
                let step = (ip - anchor) >> SEARCH_STRENGTH;
                ip += step + 1;
                lazy_skipping = step + DMS as usize > LAZY_SKIPPING_STEP;
                continue;
            }

            if DEPTH >= 1 {
                while ip < search_end {
                    ip += 1;
                    curr += 1;
                    if let Some(ml_rep) = rep_len(ip, curr, offset_1) {
                        let gain2 = ml_rep as i64 * 3;
                        let gain1 = match_length as i64 * 3 - highbit32(off_base) as i64 + 1;
                        if gain2 > gain1 {
                            match_length = ml_rep;
                            off_base = REPCODE1_TO_OFFBASE;
                            start = ip;
                        }
                    }
                    let (ml2, found) = finder.search(src, ip, iend, lazy_skipping);
                    let gain2 = ml2 as i64 * 4 - highbit32(found) as i64;
                    let gain1 = match_length as i64 * 4 - highbit32(off_base) as i64 + 4;
                    if ml2 >= MIN_MATCH && gain2 > gain1 {
                        match_length = ml2;
                        off_base = found;
                        start = ip;
                        continue;
                    }

                    if DEPTH == 2 && ip < search_end {
                        ip += 1;
                        curr += 1;
                        if let Some(ml_rep) = rep_len(ip, curr, offset_1) {
                            let gain2 = ml_rep as i64 * 4;
                            let gain1 = match_length as i64 * 4 - highbit32(off_base) as i64 + 1;
                            if gain2 > gain1 {
                                match_length = ml_rep;
                                off_base = REPCODE1_TO_OFFBASE;
                                start = ip;
                            }
                        }
                        let (ml2, found) = finder.search(src, ip, iend, lazy_skipping);
                        let gain2 = ml2 as i64 * 4 - highbit32(found) as i64;
                        let gain1 = match_length as i64 * 4 - highbit32(off_base) as i64 + 7;
                        if ml2 >= MIN_MATCH && gain2 > gain1 {
                            match_length = ml2;
                            off_base = found;
                            start = ip;
                            continue;
                        }
                    }
                    break;
                }
            }

            // Catch up backwards: a match in the dictionary down to the window's low
            // limit, one in the prefix down to the prefix start.
            if off_base > REP_NUM_OFFBASE_MAX {
                let offset = (off_base - REP_NUM_OFFBASE_MAX) as usize;
                let low = if window.index(start - offset) < dict_limit {
                    dict_start
                } else {
                    prefix_start
                };
                while start > anchor
                    && start - offset > low
                    && src.byte(start - 1) == src.byte(start - offset - 1)
                {
                    start -= 1;
                    match_length += 1;
                }
                offset_2 = offset_1;
                offset_1 = offset as u32;
            }
        }

        seqs.store(src, anchor, start, off_base, match_length);
        ip = start + match_length;
        anchor = ip;
        if lazy_skipping {
            finder.end_skipping(src, ilimit);
            lazy_skipping = false;
        }

        // Immediate repcode-2 matches, with no literals.
        while ilimit.is_some_and(|l| ip <= l) {
            let Some(len) = rep_len(ip, window.index(ip), offset_2) else {
                break;
            };
            std::mem::swap(&mut offset_1, &mut offset_2);
            seqs.store(src, ip, ip, REPCODE1_TO_OFFBASE, len);
            ip += len;
            anchor = ip;
        }
    }

    rep[0] = offset_1;
    rep[1] = offset_2;
    seqs.store_last_literals(src, anchor, iend);
    iend - anchor
}

/// offBase values up to this are repcodes; above it, `offBase - 3` is the offset.
const REP_NUM_OFFBASE_MAX: u32 = 3;
