//! Match finders, one module per libzstd strategy family.

pub(crate) mod double_fast;
pub(crate) mod fast;
pub(crate) mod lazy;
pub(crate) mod opt;
pub(crate) mod source;
pub(crate) mod table;

use super::block::EntropyTables;
use super::ldm::{self, LdmState};
use super::params::{CParams, Strategy};
use super::seq_store::{OFFSET_TO_OFFBASE, REP_NUM, SeqStore};
use super::window::{WINDOW_START_INDEX, Window, index_of};
use fast::AttachedTables;
use lazy::LazyState;
use opt::OptState;
use std::cell::Cell;
use table::AlignedTable;

use crate::zstd::ZstdError;

/// Largest index the frames with an attached CDict reach before the tables are cleared
/// (see [`MatchState::reset_attached`]): far below libzstd's overflow correction
/// ([`CURRENT_MAX`](super::window::CURRENT_MAX)), which these frames never need.
pub(crate) const ATTACHED_INDEX_MAX: u32 = 1 << 30;

/// Largest base index of the plain frames of at most 64 KiB that continue their indices
/// (see [`MatchState::rebase_small`]) before the tables are cleared: far below libzstd's
/// overflow correction ([`CURRENT_MAX`](super::window::CURRENT_MAX)).
pub(crate) const REBASED_INDEX_MAX: u32 = 1 << 30;

/// One block for a match finder: the input as the finders see it (`src`, positions that
/// [`window::index_of`](super::window::index_of) turns into window indices), the block's
/// range in it, the parameters, and where the sequences and repeat offsets go.
pub(crate) struct Block<'a> {
    pub(crate) src: &'a [u8],
    /// The same bytes as `src` in a padded buffer, to read unchecked (see
    /// [`source`]), when the frame's input was copied into one.
    pub(crate) padded: Option<source::Padded<'a>>,
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) cp: &'a CParams,
    pub(crate) seqs: &'a mut SeqStore,
    pub(crate) rep: &'a mut [u32; REP_NUM],
}

/// How a frame's history is reached (`ZSTD_dictMode_e`), the column of
/// [`Finder::select`]. `DictMatchState` (an attached dictionary) joins it with prepared
/// dictionaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DictMode {
    /// The history is the frame's own input (`ZSTD_noDict`).
    NoDict,
    /// A segment before the input, a dictionary's content loaded into the window
    /// (`ZSTD_extDict`).
    ExtDict,
    /// A CDict attached to the context, its tables read in place (`ZSTD_dictMatchState`).
    DictMatchState,
}

impl DictMode {
    /// Mirrors ZSTD_matchState_dictMode: an extDict segment first, else an attached
    /// dictionary while the window still holds it.
    pub(crate) fn of(window: &Window, attached: bool) -> DictMode {
        if window.has_ext_dict() {
            DictMode::ExtDict
        } else if attached && window.dict_loaded() {
            DictMode::DictMatchState
        } else {
            DictMode::NoDict
        }
    }
}

/// The block compressor of a frame, one per strategy family and dictionary mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Finder {
    /// `fast`: one hash table.
    Fast,
    /// `fast` with an extDict segment.
    FastExtDict,
    /// `fast` with an attached dictionary.
    FastDictMatchState,
    /// `dfast`: a long and a short hash table.
    DFast,
    /// `dfast` with an extDict segment.
    DFastExtDict,
    /// `dfast` with an attached dictionary.
    DFastDictMatchState,
    /// `greedy`, `lazy`, `lazy2` (hash chain or row finder) and `btlazy2` (binary tree).
    Lazy,
    /// `btopt`, `btultra`, `btultra2`: the optimal parser over a binary tree.
    Opt,
}

impl Finder {
    /// Mirrors ZSTD_selectBlockCompressor: the row is the strategy, the column the
    /// dictionary mode (the finder picks its own `mls`, row size and search depth).
    pub(crate) fn select(strategy: Strategy, dict: DictMode) -> Finder {
        match (strategy, dict) {
            (Strategy::Fast, DictMode::NoDict) => Finder::Fast,
            (Strategy::Fast, DictMode::ExtDict) => Finder::FastExtDict,
            (Strategy::DFast, DictMode::NoDict) => Finder::DFast,
            (Strategy::DFast, DictMode::ExtDict) => Finder::DFastExtDict,
            (
                Strategy::Greedy | Strategy::Lazy | Strategy::Lazy2 | Strategy::BtLazy2,
                DictMode::NoDict,
            ) => Finder::Lazy,
            // The lazy parser picks its extDict variant itself.
            (
                Strategy::Greedy | Strategy::Lazy | Strategy::Lazy2 | Strategy::BtLazy2,
                DictMode::ExtDict,
            ) => Finder::Lazy,
            (Strategy::Fast, DictMode::DictMatchState) => Finder::FastDictMatchState,
            (Strategy::DFast, DictMode::DictMatchState) => Finder::DFastDictMatchState,
            // The lazy parser takes the attached chains, rows or tree itself.
            (
                Strategy::Greedy | Strategy::Lazy | Strategy::Lazy2 | Strategy::BtLazy2,
                DictMode::DictMatchState,
            ) => Finder::Lazy,
            // Not written yet for the other strategies: their CDicts are copied instead.
            (_, DictMode::DictMatchState) => Finder::select(strategy, DictMode::ExtDict),
            // The optimal parser reads the dictionary mode from the window itself.
            (Strategy::BtOpt | Strategy::BtUltra | Strategy::BtUltra2, _) => Finder::Opt,
        }
    }
}

/// The error of a table of `bytes` that could not be allocated.
fn out_of_memory(bytes: usize) -> ZstdError {
    ZstdError::OutOfMemory {
        what: "match tables",
        bytes,
    }
}

/// The match state of a frame (`ZSTD_matchState_t`): the hash table every strategy uses
/// and the tables of the others, kept allocated across frames.
#[derive(Default)]
pub(crate) struct MatchState {
    finder: Option<Finder>,
    hash_table: AlignedTable<u32>,
    /// The second table of `dfast` (its short hashes, sized by chainLog).
    hash_small: Vec<u32>,
    /// Chain, tag table and hash cache of the lazy strategies.
    lazy: LazyState,
    /// Binary tree, hash-3 table and statistics of the optimal parser.
    opt: OptState,
    /// The parameters of the last plain one-shot frame when the tables hold nothing else
    /// (see [`MatchState::continue_after`]).
    plain: Option<CParams>,
    /// The strategy, the lazy finder's choice and the next free index of the frames with
    /// an attached CDict since the tables were last cleared (see
    /// [`MatchState::reset_attached`]).
    attached: Option<(Strategy, bool, u32)>,
    /// The parameters and the next frame's base index of the plain frames of at most
    /// 64 KiB since the tables were last cleared (see [`MatchState::rebase_small`]).
    rebased: Option<(CParams, u32)>,
    /// The long-distance finder, kept allocated across frames.
    ldm: Option<Box<LdmState>>,
    /// Whether the current frame uses it.
    ldm_on: bool,
}

impl MatchState {
    /// Fresh tables for a frame with `cp` (the prefix-only finder of its strategy decides
    /// which tables exist; the extDict finders use the same ones).
    ///
    /// Mirrors the match-state part of ZSTD_resetCCtx_internal.
    pub(crate) fn reset(&mut self, cp: &CParams) {
        self.plain = None;
        self.attached = None;
        self.rebased = None;
        self.ldm_on = false;
        let finder = Finder::select(cp.strategy, DictMode::NoDict);
        self.finder = Some(finder);
        self.hash_table.reset(1 << cp.hash_log);
        match finder {
            Finder::Fast | Finder::FastExtDict | Finder::FastDictMatchState => {}
            Finder::DFast | Finder::DFastExtDict | Finder::DFastDictMatchState => {
                self.hash_small.clear();
                self.hash_small.resize(1 << cp.chain_log, 0);
            }
            Finder::Lazy => self.lazy.reset(cp),
            Finder::Opt => self.opt.reset(cp),
        }
    }

    /// Room for the tables of a frame with `cp`, failing instead of aborting when the memory
    /// cannot be had; the resets that follow then allocate nothing. Tables that have the
    /// room already keep their entries (a frame that continues after the last one uses the
    /// same parameters, so its tables have the room).
    ///
    /// Mirrors the allocation check of ZSTD_resetCCtx_internal (`memory_allocation`).
    ///
    /// A table given a new buffer has lost its entries: the tables are then never continued
    /// in (nor after any failure), so the next frame resets them. (A failure after the hash
    /// table was replaced left the context meaning to continue in an empty table, and the
    /// next frame with the earlier parameters panicked: the review of the fiftieth session.)
    pub(crate) fn try_room(&mut self, cp: &CParams) -> Result<(), ZstdError> {
        let mut replaced = false;
        let room = self.try_room_in(cp, &mut replaced);
        if replaced || room.is_err() {
            self.plain = None;
            self.rebased = None;
            self.attached = None;
        }
        room
    }

    /// [`MatchState::try_room`]'s allocations; `replaced` tells whether a table lost its
    /// entries.
    fn try_room_in(&mut self, cp: &CParams, replaced: &mut bool) -> Result<(), ZstdError> {
        let hashes = 1usize << cp.hash_log;
        let chain = 1usize << cp.chain_log;
        *replaced |= self
            .hash_table
            .try_room(hashes)
            .map_err(|_| out_of_memory(AlignedTable::<u32>::bytes(hashes)))?;
        match Finder::select(cp.strategy, DictMode::NoDict) {
            Finder::DFast => table::try_room(&mut self.hash_small, chain)
                .map_err(|_| out_of_memory(chain * 4))?,
            Finder::Lazy if lazy::uses_row_finder(cp) => {
                *replaced |= self
                    .lazy
                    .tags
                    .try_room(hashes)
                    .map_err(|_| out_of_memory(AlignedTable::<u8>::bytes(hashes)))?;
            }
            Finder::Lazy => {
                *replaced |= self
                    .lazy
                    .chain
                    .try_room(chain)
                    .map_err(|_| out_of_memory(AlignedTable::<u32>::bytes(chain)))?;
            }
            Finder::Opt => self.opt.try_room(cp).map_err(out_of_memory)?,
            _ => {}
        }
        Ok(())
    }

    /// Room for the long-distance finder's tables of a frame with `cp` (see
    /// [`MatchState::try_room`]); [`MatchState::enable_ldm`] then allocates nothing.
    pub(crate) fn try_ldm_room(&mut self, cp: &CParams) -> Result<(), ZstdError> {
        let ldm = self
            .ldm
            .get_or_insert_with(|| Box::new(LdmState::empty(cp)));
        ldm.try_room(cp).map_err(out_of_memory)
    }

    /// Turn long-distance matching on for the frame just reset with `cp`, whose window is
    /// `window` (fresh tables).
    ///
    /// Mirrors the LDM part of ZSTD_resetCCtx_internal.
    pub(crate) fn enable_ldm(&mut self, cp: &CParams, window: &Window) {
        match &mut self.ldm {
            Some(l) => l.reset(cp, window),
            None => self.ldm = Some(Box::new(LdmState::new(cp, window))),
        }
        self.ldm_on = true;
    }

    /// Load the dictionary content at finder positions `0..dict_len` of `src` into the
    /// long-distance finder just turned on with [`MatchState::enable_ldm`] (see
    /// [`LdmState::load_dict`]).
    pub(crate) fn load_ldm_dict(&mut self, src: &[u8], dict_len: usize, window: &Window) {
        if let Some(l) = self.ldm.as_mut().filter(|_| self.ldm_on) {
            l.load_dict(src, dict_len, window);
        }
    }

    /// Prepare for a plain one-shot frame with `cp` whose bytes follow, at finder position
    /// `start`, those of the plain frames since the tables were last cleared: when the
    /// tables were last used for such a frame with the same parameters, and the strategy's
    /// finder reads every stale entry as it reads an empty one (below the low limit: fast,
    /// dfast, greedy to btlazy2), nothing is cleared and insertion resumes at `start`; the
    /// window then starts there too ([`Window::continuing`]), so the frame's bytes are a
    /// fresh context's. Returns whether the tables continue; otherwise they were cleared
    /// and the frame must start at position 0.
    ///
    /// libzstd's reused contexts skip the clearing too (`ZSTDirp_continue`), with other
    /// bytes (a salted row hash); this keeps a fresh context's.
    pub(crate) fn continue_after(&mut self, cp: &CParams, start: usize) -> bool {
        // Checking the index correction (`CORRECT_OFTEN`) needs libzstd's fresh indices:
        // continued ones lie above them.
        let continues = start > 0
            && !super::window::CORRECT_OFTEN
            && self.plain == Some(*cp)
            && matches!(
                self.finder,
                Some(Finder::Fast | Finder::DFast | Finder::Lazy)
            );
        if continues {
            self.lazy.next_to_update = start;
            return true;
        }
        self.reset(cp);
        self.plain = Some(*cp);
        false
    }

    /// Prepare for a plain one-shot frame of at most [`SMALL_MAX`](source::SMALL_MAX) bytes
    /// with `cp`, read from finder position 0; returns the index of that position.
    ///
    /// libzstd's reused context does not clear its tables between frames: its indices go
    /// on past the previous frame's end (ZSTD_resetCCtx_internal with `ZSTDirp_continue`,
    /// then ZSTD_window_clear), so every entry an earlier frame left lies below the new
    /// frame's low limit and reads as an empty one. So do the finders here whose every
    /// test of a candidate is against the low limit (the row finder) when the last
    /// frame was such a frame with the same parameters: the frame's window starts at a
    /// base index past everything in the tables ([`Window::rebased`]), `2^16` further on
    /// per frame, and the tables are cleared once per [`REBASED_INDEX_MAX`] of indices.
    /// The frame's bytes are a fresh context's. Anything else clears the tables and starts
    /// at [`WINDOW_START_INDEX`].
    pub(crate) fn rebase_small(&mut self, cp: &CParams) -> u32 {
        // Checking the index correction (`CORRECT_OFTEN`) needs libzstd's fresh indices.
        let rebasable = !super::window::CORRECT_OFTEN
            && Finder::select(cp.strategy, DictMode::NoDict) == Finder::Lazy
            && lazy::uses_row_finder(cp);
        let base = match self.rebased {
            Some((last, next)) if rebasable && last == *cp && next <= REBASED_INDEX_MAX => {
                // Every other use of the tables resets them, which forgets `rebased`.
                debug_assert!(self.plain.is_none() && self.attached.is_none() && !self.ldm_on);
                self.lazy.next_to_update = 0;
                self.lazy.hash_cache = [0; lazy::row::ROW_HASH_CACHE_SIZE];
                next
            }
            _ => {
                self.reset(cp);
                WINDOW_START_INDEX
            }
        };
        self.rebased = rebasable.then_some((*cp, base + source::SMALL_MAX as u32));
        base
    }

    /// Load a raw-content dictionary, the first `dict_len` bytes of `src`, into the tables:
    /// its last `2^max(hashLog + 3, chainLog + 1)` bytes at most are indexed.
    ///
    /// Mirrors the table part of ZSTD_loadDictionaryContent for a context
    /// (`ZSTD_dtlm_fast`, `ZSTD_tfp_forCCtx`).
    pub(crate) fn load_dict(&mut self, src: &[u8], dict_len: usize, cp: &CParams, full: bool) {
        let indexed_max = 1usize << (cp.hash_log + 3).max(cp.chain_log + 1).min(31);
        let start = dict_len.saturating_sub(indexed_max);
        // The source's window update finds it apart from the dictionary and resumes
        // insertion at its start (ZSTD_compressContinue_internal: `nextToUpdate =
        // dictLimit`), also when the dictionary was too short to index (8 bytes).
        self.lazy.next_to_update = dict_len;
        self.opt.next_to_update = index_of(dict_len);
        if dict_len - start <= super::window::HASH_READ_SIZE {
            return;
        }
        let window = Window::with_dict(cp.window_log, dict_len);
        match cp.strategy {
            Strategy::Fast => fast::fill_hash_table(
                self.hash_table.as_mut_slice(),
                src,
                start,
                dict_len,
                cp,
                full,
                window.base(),
            ),
            Strategy::DFast => double_fast::fill_hash_tables(
                self.hash_table.as_mut_slice(),
                &mut self.hash_small,
                src,
                start..dict_len,
                cp,
                full,
                window.base(),
            ),
            Strategy::Greedy | Strategy::Lazy | Strategy::Lazy2 | Strategy::BtLazy2 => {
                let hash = self.hash_table.as_mut_slice();
                lazy::load_dict(hash, &mut self.lazy, cp, &window, src, start, dict_len);
            }
            Strategy::BtOpt | Strategy::BtUltra | Strategy::BtUltra2 => {
                let hash = self.hash_table.as_mut_slice();
                opt::fill_tree(hash, &mut self.opt.bt, cp, &window, src, start, dict_len);
            }
        }
    }

    /// Make the tables a copy of `other`'s, a CDict's loaded with the same `cp` (the
    /// prefix-only finder's tables of its strategy; the hash-3 table stays empty, as a
    /// CDict never fills it). Insertion resumes at `dict_len`, the start of the source.
    ///
    /// Mirrors the table part of ZSTD_resetCCtx_byCopyingCDict.
    pub(crate) fn copy_tables_from(&mut self, other: &MatchState, cp: &CParams, dict_len: usize) {
        let finder = Finder::select(cp.strategy, DictMode::NoDict);
        if finder == Finder::Opt {
            // The tree's companions (hash-3 table, statistics) start afresh.
            self.reset(cp);
            self.opt.bt.copy_from_slice(&other.opt.bt);
        } else {
            // The tables copied are not cleared first (ZSTD_resetCCtx_byCopyingCDict resets
            // with ZSTDcrp_leaveDirty): what `reset` does besides.
            self.plain = None;
            self.attached = None;
            self.rebased = None;
            self.ldm_on = false;
            self.finder = Some(finder);
        }
        self.hash_table.copy_from_slice(other.hash_table.as_slice());
        match finder {
            Finder::DFast | Finder::DFastExtDict | Finder::DFastDictMatchState => {
                self.hash_small.clear();
                self.hash_small.extend_from_slice(&other.hash_small);
            }
            Finder::Lazy => {
                // The CDict's finder choice, made for its own window.
                self.lazy.row = other.lazy.row;
                if other.lazy.row {
                    self.lazy.tags.copy_from_slice(other.lazy.tags.as_slice());
                } else {
                    self.lazy.chain.copy_from_slice(other.lazy.chain.as_slice());
                }
                self.lazy.hash_cache = [0; lazy::row::ROW_HASH_CACHE_SIZE];
            }
            Finder::Opt | Finder::Fast | Finder::FastExtDict | Finder::FastDictMatchState => {}
        }
        self.lazy.next_to_update = dict_len;
        self.opt.next_to_update = index_of(dict_len);
    }

    /// Strip the tags off the fast and dfast tables a CDict's load filled tagged
    /// ([`fast::fill_hash_table`] with `full`): the tables a context copies
    /// (ZSTD_copyCDictTableIntoCCtx).
    pub(crate) fn strip_tags(&mut self) {
        fast::strip_tags(self.hash_table.as_mut_slice());
        fast::strip_tags(&mut self.hash_small);
    }

    /// The hash table (`ms->hashTable`).
    pub(crate) fn hash_table(&self) -> &[u32] {
        self.hash_table.as_slice()
    }

    /// dfast's short table (`ms->chainTable` of dfast).
    pub(crate) fn hash_small(&self) -> &[u32] {
        &self.hash_small
    }

    /// The tables an attached CDict of the lazy strategies is searched through (its chains,
    /// its rows, or btlazy2's tree), else `None` (another strategy).
    pub(crate) fn attached_lazy(&self, cp: &CParams) -> Option<lazy::AttachedLazy<'_>> {
        if self.finder != Some(Finder::Lazy) {
            return None;
        }
        Some(if cp.strategy == Strategy::BtLazy2 {
            lazy::AttachedLazy::Tree(lazy::DictTree {
                hash: self.hash_table.as_slice(),
                bt: self.lazy.chain.as_slice(),
                hash_log: cp.hash_log,
                chain_log: cp.chain_log,
                content_len: 0,
            })
        } else if self.lazy.row {
            let row_log = lazy::row::row_log(cp);
            lazy::AttachedLazy::Rows(lazy::DictRows {
                rows: self.hash_table.as_slice(),
                tags: self.lazy.tags.as_slice(),
                hash_bits: cp.hash_log - row_log + 8,
            })
        } else {
            lazy::AttachedLazy::Chains(lazy::DictChains {
                hash: self.hash_table.as_slice(),
                chain: self.lazy.chain.as_slice(),
                hash_log: cp.hash_log,
                chain_log: cp.chain_log,
                content_len: 0,
            })
        })
    }

    /// Whether the lazy strategies use the row finder in these tables.
    pub(crate) fn lazy_row(&self) -> bool {
        self.lazy.row
    }

    /// Fresh tables for `cp`, the lazy finder (row or chain) chosen by the caller: an
    /// attached CDict imposes its own choice (ZSTD_resetCCtx_byAttachingCDict).
    pub(crate) fn reset_with_row(&mut self, cp: &CParams, row: bool) {
        self.reset(cp);
        if self.finder == Some(Finder::Lazy) {
            self.lazy.reset_with(cp, row);
        }
    }

    /// The own tables for a frame of `frame_len` finder positions (the CDict's content,
    /// then the source of `src_len` bytes) with a CDict attached, the own tables' parameters
    /// `cp` and the lazy finder's choice `row`; returns the index of finder position 0.
    ///
    /// libzstd does not clear the tables between such frames: the context's indices go on
    /// from the previous frame's end (ZSTD_resetCCtx_internal with `ZSTDirp_continue`,
    /// then ZSTD_window_clear), so every stale entry lies below the new prefix and reads as
    /// an empty one. So do the `fast` and `dfast` finders here, whose attached forms take
    /// the base from the window ([`Window::attached`]), and the row finder of greedy, lazy
    /// and lazy2 (its own rows stop at the first entry below the low limit, as after
    /// [`MatchState::rebase_small`], and the CDict's indices are moved by the base), when
    /// the previous frame had the same strategy and finder and the dictionary stays
    /// attached to the end of the frame (the source within the window). The tables then
    /// take the sizes of `cp` (which follow the source's size) keeping their entries: all
    /// stale ones, as libzstd's are whatever their size. Anything else, and
    /// indices past [`ATTACHED_INDEX_MAX`], clears the tables and starts at
    /// [`WINDOW_START_INDEX`] again. Each base lies a multiple of [`source::SMALL_MAX`]
    /// above [`WINDOW_START_INDEX`], as the small padded buffer's reads need.
    pub(crate) fn reset_attached(
        &mut self,
        cp: &CParams,
        row: bool,
        frame_len: usize,
        src_len: usize,
    ) -> u32 {
        // Checking the index correction (`CORRECT_OFTEN`) needs libzstd's fresh indices.
        let row_lazy = row
            && !super::window::CORRECT_OFTEN
            && matches!(
                cp.strategy,
                Strategy::Greedy | Strategy::Lazy | Strategy::Lazy2
            );
        let continuable = (row_lazy || matches!(cp.strategy, Strategy::Fast | Strategy::DFast))
            && src_len <= 1usize << cp.window_log;
        let base = match self.attached {
            Some((last, last_row, next))
                if continuable
                    && last == cp.strategy
                    && last_row == row
                    && next as u64 + frame_len as u64 <= ATTACHED_INDEX_MAX as u64 =>
            {
                // Every other use of the tables resets them, which forgets `attached`.
                debug_assert!(self.plain.is_none() && self.rebased.is_none() && !self.ldm_on);
                // The tables' sizes follow the source's (ZSTD_adjustCParams): every entry
                // they keep is a stale one, the new ones are empty.
                self.hash_table.resize_keeping(1 << cp.hash_log);
                match self.finder {
                    Some(Finder::DFastDictMatchState | Finder::DFast | Finder::DFastExtDict) => {
                        self.hash_small.resize(1 << cp.chain_log, 0);
                    }
                    Some(Finder::Lazy) => self.lazy.tags.resize_keeping(1 << cp.hash_log),
                    _ => {}
                }
                if row_lazy {
                    // The hash cache holds the last frame's hashes; insertion starts anew.
                    self.lazy.next_to_update = 0;
                    self.lazy.hash_cache = [0; lazy::row::ROW_HASH_CACHE_SIZE];
                }
                next
            }
            _ => {
                self.reset_with_row(cp, row);
                WINDOW_START_INDEX
            }
        };
        // At most ATTACHED_INDEX_MAX when continued; after a reset, a dictionary beyond it
        // saturates, and the next frame starts afresh.
        let step = source::SMALL_MAX as u64;
        let next = (base as u64 - WINDOW_START_INDEX as u64 + frame_len as u64).div_ceil(step)
            * step
            + WINDOW_START_INDEX as u64;
        let next = u32::try_from(next).unwrap_or(u32::MAX);
        self.attached = continuable.then_some((cp.strategy, row, next));
        base
    }

    /// The tree an attached CDict of the optimal parser's strategies is searched through.
    pub(crate) fn attached_opt(&self, cp: &CParams) -> Option<opt::OptDictTree<'_>> {
        (self.finder == Some(Finder::Opt)).then(|| opt::OptDictTree {
            hash: self.hash_table.as_slice(),
            bt: &self.opt.bt,
            hash_log: cp.hash_log,
            chain_log: cp.chain_log,
            content_len: 0,
        })
    }

    /// Seed the optimal parser's first statistics from the entropy tables a formatted
    /// dictionary loaded, when they code every byte value (`HUF_repeat_valid`).
    ///
    /// Mirrors the dictionary branch of ZSTD_rescaleFreqs.
    pub(crate) fn seed_from_dict(&mut self, entropy: &EntropyTables) {
        let fse = &entropy.fse;
        self.opt.dict_seed = Some(Box::new(opt::DictSeed::new(
            |lit| entropy.huf.table.nb_bits(lit),
            |ll| fse.ll.max_nb_bits(ll),
            |ml| fse.ml.max_nb_bits(ml),
            |of| fse.of.max_nb_bits(of),
        )));
    }

    /// Insertion resumes at the prefix start after a new segment begins
    /// (ZSTD_compressContinue_internal: `nextToUpdate = window.dictLimit` when the input is
    /// not contiguous with the last).
    pub(crate) fn resume_at_prefix(&mut self, window: &Window) {
        self.lazy.next_to_update = window.pos_of(window.dict_limit());
        self.opt.next_to_update = window.dict_limit();
        if let Some(l) = self.ldm.as_mut().filter(|_| self.ldm_on) {
            l.start_segment(window.dict_limit(), window);
        }
    }

    /// New input wrote over the extDict segment up to index `overwritten_end`: the
    /// long-distance finder's window drops those bytes too (ZSTD_window_update on
    /// `ldmState.window`).
    pub(crate) fn drop_overwritten(&mut self, overwritten_end: u32) {
        if let Some(l) = self.ldm.as_mut().filter(|_| self.ldm_on) {
            l.drop_overwritten(overwritten_end);
        }
    }

    /// Mirrors ZSTD_reduceIndex and the `nextToUpdate` update of
    /// ZSTD_overflowCorrectIfNeeded: every stored index loses `correction`; finder
    /// positions moved by `moved`.
    pub(crate) fn reduce_index(&mut self, cp: &CParams, correction: u32, moved: usize) {
        table::reduce_table(self.hash_table.as_mut_slice(), correction, false);
        match self.finder {
            Some(Finder::DFast | Finder::DFastExtDict | Finder::DFastDictMatchState) => {
                table::reduce_table(&mut self.hash_small, correction, false)
            }
            Some(Finder::Lazy) => self.lazy.reduce_index(cp, correction, moved),
            Some(Finder::Opt) => self.opt.reduce_index(correction),
            Some(Finder::Fast | Finder::FastExtDict | Finder::FastDictMatchState) | None => {}
        }
        if let Some(l) = self.ldm.as_mut().filter(|_| self.ldm_on) {
            l.reduce_index(correction, moved);
        }
    }

    /// Find the sequences of `b` with the frame's block compressor (after the limited
    /// catch-up of the finders that insert lazily); returns the number of trailing literals.
    ///
    /// Mirrors the call through ZSTD_selectBlockCompressor in ZSTD_buildSeqStore.
    pub(crate) fn compress_block(
        &mut self,
        b: Block<'_>,
        window: &mut Window,
        attached: Option<&fast::AttachedTables<'_>>,
    ) -> usize {
        if self.ldm_on {
            return self.compress_block_ldm(b, window, attached);
        }
        let mode = DictMode::of(window, attached.is_some());
        match Finder::select(b.cp.strategy, mode) {
            Finder::Lazy => self.lazy.limit_catch_up(b.start, window),
            Finder::Opt => self.opt.limit_catch_up(b.start, window),
            _ => {}
        }
        self.run_finder(b, window, attached, &[])
    }

    /// The block compressor alone on `b`, a block or (with long-distance matching) the
    /// literals between two long matches; `ldm_seqs` are the long matches the optimal
    /// parser weighs as candidates.
    fn run_finder(
        &mut self,
        b: Block<'_>,
        window: &mut Window,
        attached: Option<&fast::AttachedTables<'_>>,
        ldm_seqs: &[ldm::RawSeq],
    ) -> usize {
        let hash = self.hash_table.as_mut_slice();
        let mode = DictMode::of(window, attached.is_some());
        let finder = Finder::select(b.cp.strategy, mode);
        match finder {
            Finder::Fast => fast::compress_block(hash, b, window),
            Finder::FastDictMatchState => match attached {
                Some(dms) => fast::compress_block_dict_match_state(hash, b, window, dms),
                None => fast::compress_block(hash, b, window),
            },
            Finder::FastExtDict => fast::compress_block_ext_dict(hash, b, window),
            Finder::DFast => double_fast::compress_block(hash, &mut self.hash_small, b, window),
            Finder::DFastExtDict => {
                double_fast::compress_block_ext_dict(hash, &mut self.hash_small, b, window)
            }
            Finder::DFastDictMatchState => match attached {
                Some(dms) => double_fast::compress_block_dict_match_state(
                    hash,
                    &mut self.hash_small,
                    b,
                    window,
                    dms,
                ),
                None => double_fast::compress_block(hash, &mut self.hash_small, b, window),
            },
            Finder::Lazy => {
                let dms = match attached {
                    Some(AttachedTables { lazy: Some(l), .. })
                        if DictMode::of(window, true) == DictMode::DictMatchState =>
                    {
                        Some(*l)
                    }
                    _ => None,
                };
                lazy::compress_block(hash, &mut self.lazy, b, window, dms)
            }
            Finder::Opt => {
                let dms = match attached {
                    Some(AttachedTables { opt: Some(t), .. })
                        if mode == DictMode::DictMatchState =>
                    {
                        Some(*t)
                    }
                    _ => None,
                };
                opt::compress_block(hash, &mut self.opt, b, window, dms, ldm_seqs)
            }
        }
    }

    /// [`MatchState::compress_block`] with long-distance matching: the long matches of the
    /// block first; the optimal parser weighs them as candidates, the other strategies
    /// take them and parse only the literals between them (the hash tables of fast and
    /// dfast filled up to each stretch first, the insertion of the lazy ones limited after
    /// each long match).
    ///
    /// Mirrors the LDM branch of ZSTD_buildSeqStore with ZSTD_ldm_blockCompress.
    fn compress_block_ldm(
        &mut self,
        b: Block<'_>,
        window: &mut Window,
        attached: Option<&fast::AttachedTables<'_>>,
    ) -> usize {
        let Some(mut l) = self.ldm.take() else {
            unreachable!("long-distance matching is on only with its state")
        };
        l.generate(b.src, b.start, b.end, window);
        let cp = b.cp;
        // The clamp to the low limit (ZSTD_compress_frameChunk) and the limited catch-up
        // (ZSTD_buildSeqStore), once per block.
        match cp.strategy {
            Strategy::Fast | Strategy::DFast => {
                let next = l.fast_next.max(window.low_limit_pos());
                l.fast_next = limited_catch_up(b.start, next);
            }
            Strategy::BtOpt | Strategy::BtUltra | Strategy::BtUltra2 => {
                self.opt.limit_catch_up(b.start, window);
                let (start, before) = (b.start, window.index(b.start));
                let last = self.run_finder(b, window, attached, &l.seqs);
                let after = window.index(start);
                if after != before {
                    l.shift_up(after - before);
                }
                self.ldm = Some(l);
                return last;
            }
            _ => self.lazy.limit_catch_up(b.start, window),
        }
        let Block {
            src,
            padded,
            start,
            end,
            cp,
            seqs,
            rep,
        } = b;
        let mut ip = start;
        while ip < end {
            let Some(seq) = l.next_for_block((end - ip) as u32, cp.min_match) else {
                break;
            };
            if seq.offset == 0 {
                break;
            }
            self.ldm_prepare_stretch(&mut l, src, ip, window, cp);
            let lit_end = ip + seq.lit_len as usize;
            let job = Block {
                src,
                padded,
                start: ip,
                end: lit_end,
                cp,
                seqs: &mut *seqs,
                rep: &mut *rep,
            };
            // The block compressor stored the stretch's trailing literals already: they
            // are the long match's.
            let trailing = self.run_finder(job, window, attached, &[]);
            *rep = [seq.offset, rep[0], rep[1]];
            seqs.push_after_literals(
                trailing as u32,
                seq.offset + OFFSET_TO_OFFBASE,
                seq.match_len as usize,
            );
            ip = lit_end + seq.match_len as usize;
        }
        self.ldm_prepare_stretch(&mut l, src, ip, window, cp);
        let job = Block {
            src,
            padded,
            start: ip,
            end,
            cp,
            seqs,
            rep,
        };
        let last = self.run_finder(job, window, attached, &[]);
        self.ldm = Some(l);
        last
    }

    /// Before a stretch of literals at `ip`: limit the insertion lag (lazy strategies) or
    /// fill the hash tables up to `ip` (fast, dfast).
    ///
    /// Mirrors ZSTD_ldm_limitTableUpdate + ZSTD_ldm_fillFastTables.
    fn ldm_prepare_stretch(
        &mut self,
        l: &mut LdmState,
        src: &[u8],
        ip: usize,
        window: &Window,
        cp: &CParams,
    ) {
        match cp.strategy {
            Strategy::Fast => {
                l.fast_next = ldm::limit_table_update(ip, l.fast_next);
                fast::fill_hash_table(
                    self.hash_table.as_mut_slice(),
                    src,
                    l.fast_next,
                    ip,
                    cp,
                    false,
                    window.base(),
                );
            }
            Strategy::DFast => {
                l.fast_next = ldm::limit_table_update(ip, l.fast_next);
                double_fast::fill_hash_tables(
                    self.hash_table.as_mut_slice(),
                    &mut self.hash_small,
                    src,
                    l.fast_next..ip,
                    cp,
                    false,
                    window.base(),
                );
            }
            _ => {
                self.lazy.next_to_update = ldm::limit_table_update(ip, self.lazy.next_to_update);
            }
        }
    }
}

/// How fast the match finders speed up through data without matches: the step grows by
/// one every `2^(SEARCH_STRENGTH - 1)` bytes in `fast`, and is `((ip - anchor) >>
/// SEARCH_STRENGTH) + 1` in the lazy parser (`kSearchStrength`).
pub(crate) const SEARCH_STRENGTH: u32 = 8;

/// A match finder whose insertions lag more than `BLOCK_CATCH_UP_MAX` positions behind the
/// start of a block (after a very long match) resumes at most `BLOCK_CATCH_UP_KEEP`
/// positions back.
const BLOCK_CATCH_UP_MAX: usize = 384;
const BLOCK_CATCH_UP_KEEP: usize = 192;

/// Where insertions resume for a block starting at `curr` when they had reached `next`
/// (positions or indices, the same unit for both).
///
/// Mirrors the "limited update after a very long match" of ZSTD_buildSeqStore.
pub(crate) fn limited_catch_up(curr: usize, next: usize) -> usize {
    if curr > next + BLOCK_CATCH_UP_MAX {
        curr - BLOCK_CATCH_UP_KEEP.min(curr - next - BLOCK_CATCH_UP_MAX)
    } else {
        next
    }
}

/// Prime of the 4-byte hash (`prime4bytes`).
const PRIME_4_BYTES: u32 = 2_654_435_761;
/// Primes of the 5-, 6-, 7- and 8-byte hashes (`prime5bytes` .. `prime8bytes`).
const PRIME_5_BYTES: u64 = 889_523_592_379;
const PRIME_6_BYTES: u64 = 227_718_039_650_203;
const PRIME_7_BYTES: u64 = 58_295_818_150_454_627;
const PRIME_8_BYTES: u64 = 0xCF1B_BCDC_B7A5_6463;

/// No slice holds more than `isize::MAX` bytes, so masking a position with this changes
/// nothing, but tells the compiler that `pos + 8` cannot overflow: each read then needs one
/// bounds check instead of two.
const POS_MASK: usize = isize::MAX as usize;

#[inline(always)]
pub(crate) fn read32(src: &[u8], pos: usize) -> u32 {
    let pos = pos & POS_MASK;
    u32::from_le_bytes(src[pos..pos + 4].try_into().unwrap())
}

#[inline(always)]
pub(crate) fn read64(src: &[u8], pos: usize) -> u64 {
    let pos = pos & POS_MASK;
    u64::from_le_bytes(src[pos..pos + 8].try_into().unwrap())
}

/// Mirrors ZSTD_hashPtr (unsalted): hashes the first `MLS` bytes at `pos` to `h_bits` bits.
#[inline(always)]
pub(crate) fn hash_ptr<const MLS: u32>(src: &[u8], pos: usize, h_bits: u32) -> usize {
    match MLS {
        5..=8 => hash_word::<MLS>(read64(src, pos), h_bits),
        _ => (read32(src, pos).wrapping_mul(PRIME_4_BYTES) >> (32 - h_bits)) as usize,
    }
}

/// [`hash_ptr`] of the 8 bytes at a position already read as a little-endian `word`.
#[inline(always)]
pub(crate) fn hash_word<const MLS: u32>(word: u64, h_bits: u32) -> usize {
    match MLS {
        5 => ((word << 24).wrapping_mul(PRIME_5_BYTES) >> (64 - h_bits)) as usize,
        6 => ((word << 16).wrapping_mul(PRIME_6_BYTES) >> (64 - h_bits)) as usize,
        7 => ((word << 8).wrapping_mul(PRIME_7_BYTES) >> (64 - h_bits)) as usize,
        8 => (word.wrapping_mul(PRIME_8_BYTES) >> (64 - h_bits)) as usize,
        _ => ((word as u32).wrapping_mul(PRIME_4_BYTES) >> (32 - h_bits)) as usize,
    }
}

/// Mirrors ZSTD_count: length of the common prefix of `src[a..]` and `src[b..]`, not
/// reading `a` at or past `limit` (`b < a`).
///
/// The first word is compared here, the rest of a longer match in [`count_long`].
#[inline(always)]
pub(crate) fn count(src: &[u8], a: usize, b: usize, limit: usize) -> usize {
    if a + 8 > limit {
        return count_tail(src, a, b, limit);
    }
    let diff = read64(src, a) ^ read64(src, b);
    if diff != 0 {
        return (diff.trailing_zeros() / 8) as usize;
    }
    8 + count_long(src, a + 8, b + 8, limit)
}

/// [`count`] past its first word: both sides cut to one length, so the loop compares
/// 16 bytes per round with no bounds check on the words. (Against the plain word loop:
/// instructions −32 % on the tiled `hetero1m` stream at level 6, where every candidate
/// runs to the block's end; +1-3 % on the real block sets, time unchanged there.)
#[inline(always)]
fn count_long(src: &[u8], a: usize, b: usize, limit: usize) -> usize {
    let x = &src[a..limit];
    let y = &src[b..b + x.len()];
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap());
    let mut len = 0;
    for (xs, ys) in x.chunks_exact(16).zip(y.chunks_exact(16)) {
        let lo = word(xs, 0) ^ word(ys, 0);
        let hi = word(xs, 8) ^ word(ys, 8);
        if lo | hi != 0 {
            let bits = if lo != 0 {
                lo.trailing_zeros()
            } else {
                64 + hi.trailing_zeros()
            };
            return len + (bits / 8) as usize;
        }
        len += 16;
    }
    len + count_tail(src, a + len, b + len, limit)
}

/// [`count`] over the last bytes before `limit`: a word while one fits, then bytes.
#[inline(always)]
fn count_tail(src: &[u8], mut a: usize, mut b: usize, limit: usize) -> usize {
    let start = a;
    if a + 8 <= limit {
        let diff = read64(src, a) ^ read64(src, b);
        if diff != 0 {
            return (diff.trailing_zeros() / 8) as usize;
        }
        a += 8;
        b += 8;
    }
    while a < limit && src[a] == src[b] {
        a += 1;
        b += 1;
    }
    a - start
}

/// Whether the table's candidate `idx` is at or above `low` (the index of position
/// `low_pos`) and its first 4 bytes equal `word`, without a branch on the window test: a
/// table kept across frames holds many stale candidates, and that test mispredicts. A
/// stale index wraps to a position past the end of `src`; the read is clamped into `src`
/// and the clamp itself marks no match, in one or-fold (written as two tests, the compiler
/// makes the branch again).
///
/// The role of libzstd's ZSTD_match4Found_cmov.
#[inline(always)]
pub(crate) fn candidate_matches4(
    src: &[u8],
    word: u32,
    idx: u32,
    low: u32,
    low_pos: usize,
) -> bool {
    let (at, clamped) = clamp_candidate(src, idx, low, low_pos, 4);
    ((read32(src, clamped) ^ word) as usize | (at ^ clamped)) == 0
}

/// [`candidate_matches4`] on 8 bytes. Here the compiler splits the or-fold back into two
/// branches unless the folded word is opaque to it ([`std::hint::black_box`]: measured at
/// level 3 on game blocks, 1.06 s without, 0.90 s with; the same on the 4-byte form costs
/// 10 % at level 1).
#[inline(always)]
pub(crate) fn candidate_matches8(
    src: &[u8],
    word: u64,
    idx: u32,
    low: u32,
    low_pos: usize,
) -> bool {
    let (at, clamped) = clamp_candidate(src, idx, low, low_pos, 8);
    std::hint::black_box((read64(src, clamped) ^ word) as usize | (at ^ clamped)) == 0
}

/// The position of candidate `idx` (past the end of `src` when it is below `low`) and
/// the same clamped to where `n` bytes can be read.
#[inline(always)]
fn clamp_candidate(src: &[u8], idx: u32, low: u32, low_pos: usize, n: usize) -> (usize, usize) {
    // Indices are `u32` positions plus 2, so `src` is shorter than 2^32 - 2 and a wrapped
    // (stale) candidate always lands past its end.
    debug_assert!(src.len() < (u32::MAX - 2) as usize);
    let at = (idx.wrapping_sub(low) as usize).wrapping_add(low_pos);
    (at, at.min(src.len().saturating_sub(n)))
}

/// A binary tree's links (the chain table: two per node, the roots of the candidates
/// sorting below and above it) as cells, so that a walk holds the two links it writes next
/// (libzstd's `smallerPtr` and `largerPtr`) while it reads others: writing one needs no
/// bounds check, and a walk that stops early points one at a spare link (`dummy32`).
pub(crate) struct Links<'a> {
    nodes: &'a [[Cell<u32>; 2]],
    /// Masks an index to its node (`btMask`).
    mask: u32,
    spare: Cell<u32>,
}

impl<'a> Links<'a> {
    /// The links of the table `bt` (a power of two entries, at least 2).
    pub(crate) fn new(bt: &'a mut [u32]) -> Self {
        debug_assert!(bt.len().is_power_of_two() && bt.len() >= 2);
        let nodes = Cell::from_mut(bt).as_slice_of_cells().as_chunks::<2>().0;
        Links {
            nodes,
            mask: (nodes.len() - 1) as u32,
            spare: Cell::new(0),
        }
    }

    /// The two links of the node of index `idx`: below, above.
    #[inline(always)]
    pub(crate) fn node(&self, idx: u32) -> (&Cell<u32>, &Cell<u32>) {
        let [below, above] = &self.nodes[(idx & self.mask) as usize];
        (below, above)
    }

    /// A link nothing reads.
    #[inline(always)]
    pub(crate) fn nowhere(&self) -> &Cell<u32> {
        &self.spare
    }
}

/// A walk down a binary tree inserting one position: where it links the next candidate
/// sorting below the position and the next sorting above (libzstd's `smallerPtr` and
/// `largerPtr`), and how many bytes the candidates on each side are known to share with
/// it (`commonLengthSmaller`, `commonLengthLarger`).
pub(crate) struct TreeWalk<'l> {
    smaller: &'l Cell<u32>,
    larger: &'l Cell<u32>,
    common_smaller: usize,
    common_larger: usize,
}

impl<'l> TreeWalk<'l> {
    /// A walk inserting the position of index `curr`.
    #[inline(always)]
    pub(crate) fn new(links: &'l Links<'_>, curr: u32) -> Self {
        let (below, above) = links.node(curr);
        TreeWalk {
            smaller: below,
            larger: above,
            common_smaller: 0,
            common_larger: 0,
        }
    }

    /// Bytes the next candidate shares with the position at least.
    #[inline(always)]
    pub(crate) fn common(&self) -> usize {
        self.common_smaller.min(self.common_larger)
    }

    /// Link candidate `match_index`, which shares `len` bytes with the position and sorts
    /// below it when `smaller_here`, on its side, and go on into its subtree towards the
    /// position. Returns the next candidate, or `None` when `match_index` is at or below
    /// `bt_low`, the tree's oldest node (that side then links nowhere).
    #[inline(always)]
    pub(crate) fn descend(
        &mut self,
        links: &'l Links<'_>,
        match_index: u32,
        len: usize,
        smaller_here: bool,
        bt_low: u32,
    ) -> Option<u32> {
        let (below, above) = links.node(match_index);
        // Two mirrored branches on purpose: choosing the side's fields by reference
        // instead would keep the walk's state in memory, and selects measured slower.
        if smaller_here {
            self.smaller.set(match_index);
            self.common_smaller = len;
            if match_index <= bt_low {
                self.smaller = links.nowhere();
                return None;
            }
            self.smaller = above;
            Some(above.get())
        } else {
            self.larger.set(match_index);
            self.common_larger = len;
            if match_index <= bt_low {
                self.larger = links.nowhere();
                return None;
            }
            self.larger = below;
            Some(below.get())
        }
    }

    /// End the walk: the two open links lead nowhere (0).
    #[inline(always)]
    pub(crate) fn finish(self) {
        self.smaller.set(0);
        self.larger.set(0);
    }
}

/// One step of a tree walk: how many bytes candidate `src[m..]` shares with `run` (the
/// bytes from the sorted or searched position to the walk's limit), knowing they share
/// the first `from`, and whether the candidate sorts below the run (`false` when the run
/// was exhausted). The first word is compared here, and most steps end in it: the order
/// then comes from the same two words (the first difference, read big-endian).
#[inline(always)]
pub(crate) fn tree_step(run: &[u8], src: &[u8], m: usize, from: usize) -> (usize, bool) {
    // Positions and lengths fit in 32 bits (window indices are `u32`): masked so, the
    // ranges below need no overflow checks.
    let (m, from) = (m & u32::MAX as usize, from & u32::MAX as usize);
    if let (Some(x), Some(y)) = (run.get(from..from + 8), src.get(m + from..m + from + 8)) {
        let x = u64::from_le_bytes(x.try_into().unwrap());
        let y = u64::from_le_bytes(y.try_into().unwrap());
        let diff = x ^ y;
        if diff != 0 {
            let len = from + (diff.trailing_zeros() / 8) as usize;
            return (len, y.swap_bytes() < x.swap_bytes());
        }
    }
    tree_step_long(run, src, m, from)
}

/// [`tree_step`] past a first word that matched (or did not fit): the rest of the run a
/// word at a time, then bytes, and the order from the first differing byte.
#[inline(never)]
fn tree_step_long(run: &[u8], src: &[u8], m: usize, from: usize) -> (usize, bool) {
    // `src` from `m` on is cut to the run's length: `m` is below the run's start.
    let Some(cand) = src.get(m..m + run.len()) else {
        return (from, false);
    };
    let mut n = from;
    while let (Some(x), Some(y)) = (run.get(n..n + 8), cand.get(n..n + 8)) {
        let diff =
            u64::from_le_bytes(x.try_into().unwrap()) ^ u64::from_le_bytes(y.try_into().unwrap());
        if diff != 0 {
            n += (diff.trailing_zeros() / 8) as usize;
            return (n, cand[n] < run[n]);
        }
        n += 8;
    }
    while n < run.len() && run[n] == cand[n] {
        n += 1;
    }
    (n, n < run.len() && cand[n] < run[n])
}

/// The repcodes a block starts with, and the ones set aside because they reach back past
/// what the block may reference. Mirrors the `offsetSaved1/2` handling shared by
/// `ZSTD_compressBlock_fast`, `_doubleFast` and `_lazy_generic`.
pub(crate) struct BlockReps {
    saved1: u32,
    saved2: u32,
}

impl BlockReps {
    /// Repcodes larger than `max_rep` (`curr - windowLow` at the first searched position)
    /// are zeroed for this block and remembered. Returns `(offset_1, offset_2, saved)`.
    pub(crate) fn start(rep: &[u32; 3], max_rep: u32) -> (u32, u32, BlockReps) {
        let (mut offset_1, mut offset_2) = (rep[0], rep[1]);
        let mut saved = BlockReps {
            saved1: 0,
            saved2: 0,
        };
        if offset_2 > max_rep {
            saved.saved2 = offset_2;
            offset_2 = 0;
        }
        if offset_1 > max_rep {
            saved.saved1 = offset_1;
            offset_1 = 0;
        }
        (offset_1, offset_2, saved)
    }

    /// Write the block's final repcodes back: a zeroed repcode takes its saved value, and if
    /// `offset_1` started invalid and became valid, the saved ones rotate.
    pub(crate) fn finish(mut self, rep: &mut [u32; 3], offset_1: u32, offset_2: u32) {
        if self.saved1 != 0 && offset_1 != 0 {
            self.saved2 = self.saved1;
        }
        rep[0] = if offset_1 != 0 { offset_1 } else { self.saved1 };
        rep[1] = if offset_2 != 0 { offset_2 } else { self.saved2 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zstd::compress::window::WINDOW_START_INDEX;
    use source::Source;

    /// Bytes with repeats at many distances, so that equal words occur.
    fn sample(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i % 7 + (i / 97) % 3) as u8).collect()
    }

    #[test]
    fn small_frames_go_on_past_each_other_until_the_index_limit() {
        let row = super::super::params::adjust(super::super::params::table_row(6, 65536), 65536);
        let fast = super::super::params::adjust(super::super::params::table_row(1, 65536), 65536);
        let mut ms = MatchState::default();
        let frames = (REBASED_INDEX_MAX - WINDOW_START_INDEX) / source::SMALL_MAX as u32;
        if crate::zstd::compress::window::CORRECT_OFTEN {
            // Never continued: the correction's check needs libzstd's fresh indices.
            assert_eq!(ms.rebase_small(&row), WINDOW_START_INDEX);
            assert_eq!(ms.rebase_small(&row), WINDOW_START_INDEX);
            return;
        }
        for k in 0..=frames {
            assert_eq!(ms.rebase_small(&row), WINDOW_START_INDEX + k * (1 << 16));
        }
        // Past the limit, the tables are cleared and the indices start again.
        assert_eq!(ms.rebase_small(&row), WINDOW_START_INDEX);
        assert_eq!(ms.rebase_small(&row), WINDOW_START_INDEX + (1 << 16));
        // Other parameters, another strategy, any other use of the tables: afresh.
        assert_eq!(ms.rebase_small(&fast), WINDOW_START_INDEX);
        assert_eq!(ms.rebase_small(&fast), WINDOW_START_INDEX);
        assert_eq!(ms.rebase_small(&row), WINDOW_START_INDEX);
        assert_eq!(ms.rebase_small(&row), WINDOW_START_INDEX + (1 << 16));
        ms.reset(&row);
        assert_eq!(ms.rebase_small(&row), WINDOW_START_INDEX);
    }

    #[test]
    fn candidate_tests_equal_the_branchy_window_test() {
        let src = sample(4096);
        for (low_pos, ip) in [(0usize, 200usize), (100, 300), (1000, 4000), (0, 4088)] {
            let low = index_of(low_pos);
            // The words at ip, and the source's last words: a stale candidate's read is
            // clamped there, so only the clamp's own test keeps it from matching those.
            let words = [
                (
                    read32(&src, ip.min(src.len() - 4)),
                    read64(&src, ip.min(src.len() - 8)),
                ),
                (read32(&src, src.len() - 4), read64(&src, src.len() - 8)),
            ];
            // Valid candidates below ip, stale ones below the window, and the wrap-around.
            let idxs = (0..low + 64).chain(index_of(ip.saturating_sub(64))..index_of(ip));
            for (idx, (w4, w8)) in idxs
                .chain([0, 1, u32::MAX, u32::MAX - 3])
                .flat_map(|idx| words.map(|w| (idx, w)))
            {
                let valid = idx >= low && idx >= WINDOW_START_INDEX;
                let pos = idx.wrapping_sub(WINDOW_START_INDEX) as usize;
                let want4 = valid && pos + 4 <= src.len() && read32(&src, pos) == w4;
                let want8 = valid && pos + 8 <= src.len() && read64(&src, pos) == w8;
                assert_eq!(
                    candidate_matches4(&src, w4, idx, low, low_pos),
                    want4,
                    "4 bytes, idx {idx}, low {low}"
                );
                assert_eq!(
                    candidate_matches8(&src, w8, idx, low, low_pos),
                    want8,
                    "8 bytes, idx {idx}, low {low}"
                );
            }
        }
    }

    /// `count` against a byte loop, for matches ending at every offset around the first
    /// word and the 16-byte rounds, and limits cutting them anywhere.
    #[test]
    fn count_equals_a_byte_by_byte_count() {
        let by_bytes = |src: &[u8], a: usize, b: usize, limit: usize| {
            (0..limit.saturating_sub(a))
                .take_while(|&i| src[a + i] == src[b + i])
                .count()
        };
        for len in 0..80 {
            for dist in [1, 3, 8, 16, 40] {
                // A run of period `dist` that stops matching after `len` bytes at position a.
                let a = 100;
                let mut src: Vec<u8> = (0..300).map(|i| (i % dist) as u8 + 1).collect();
                src[a + len] = 0;
                for limit in [a, a + 1, a + 7, a + 8, a + 9, a + 16, a + 24, a + 33, 300] {
                    let b = a - dist;
                    assert_eq!(
                        count(&src, a, b, limit),
                        by_bytes(&src, a, b, limit),
                        "len {len} dist {dist} limit {limit}"
                    );
                }
            }
        }
    }

    /// The common length and order a tree step must give: [`count`] from `from`, then the
    /// first differing byte (no order when the run is exhausted).
    fn reference_step(src: &[u8], ip: usize, iend: usize, m: usize, from: usize) -> (usize, bool) {
        let len = from + count(src, ip + from, m + from, iend);
        (len, ip + len < iend && src[m + len] < src[ip + len])
    }

    #[test]
    fn tree_steps_give_counts_length_and_the_first_differing_byte_order() {
        let mut rng = crate::zstd::test_rng(0x7E57_B17E);
        let mut padded = source::PaddedBuffer::default();
        for case in 0..20_000 {
            // Few distinct bytes, so that runs share long prefixes; sometimes one byte.
            let alphabet = 1 + rng() % 4;
            let n = 2 + (rng() % 200) as usize;
            let src: Vec<u8> = (0..n).map(|_| (rng() % alphabet) as u8).collect();
            let ip = 1 + (rng() as usize) % (n - 1);
            let iend = ip + 1 + (rng() as usize) % (n - ip);
            let m = (rng() as usize) % ip;
            // A prefix both are known to share, as a walk passes down.
            let shared = count(&src, ip, m, iend);
            let from = if shared == 0 {
                0
            } else {
                (rng() as usize) % (shared + 1)
            };
            let run = &src[ip..iend];
            let want = reference_step(&src, ip, iend, m, from);
            let at = format!("case {case}: ip {ip}, iend {iend}, m {m}, from {from}");
            assert_eq!(tree_step(run, &src, m, from), want, "{at}");
            // The padded copy (bytes past `iend` are the source's own or an earlier
            // case's): the same step, and an open step that may run past the run's end.
            padded.clear();
            padded.append(&src);
            let Some(source::Padded::Small(view)) = padded.view() else {
                panic!("{at}: no small view");
            };
            let view = view.cut(iend);
            assert_eq!(view.tree_step(ip, iend, m, from), want, "{at}");
            let open = view.tree_step_open(ip, iend, m, from);
            if want.0 < iend - ip {
                assert_eq!(open, want, "{at}");
            } else {
                assert!(open.0 >= iend - ip, "{at}: open step {open:?}");
            }
        }
    }

    /// Text-like bytes from `seed`: words of a small vocabulary, so that matches of every
    /// length occur.
    fn words(n: usize, seed: u64) -> Vec<u8> {
        let vocabulary = [
            "block", "frame", "window", "table ", "entry\n", "match", "zar ",
        ];
        let mut x = seed | 1;
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.extend_from_slice(vocabulary[(x % 7) as usize].as_bytes());
            out.push(b'a' + (x >> 8) as u8 % 26);
        }
        out.truncate(n);
        out
    }

    /// A context whose tables could not grow goes on as a fresh one would: a failure after
    /// the hash table had a new buffer left the context meaning to continue in that empty
    /// table (after small frames, or after the bytes of larger ones), and its next frame
    /// with the earlier parameters panicked (the review of the fiftieth session).
    #[test]
    fn a_context_whose_tables_could_not_grow_goes_on_as_a_fresh_one() {
        use super::table::ALLOCATIONS_BEFORE_FAILURE;
        use crate::zstd::{Compressor, ZstdError};
        let small = words(60_000, 1);
        let medium = words(100_000, 2);
        let large = words(600_000, 3);
        let one_shot = |level, src: &[u8]| {
            let mut out = Vec::new();
            Compressor::new(level)
                .unwrap()
                .compress_into(src, &mut out)
                .unwrap();
            out
        };
        // fast, dfast, the row finder, the hash chain, the optimal parser.
        for level in [1, 3, 6, 13, 16] {
            for before in [&small, &medium] {
                let want = one_shot(level, before);
                for allowed in 0..3 {
                    let mut c = Compressor::new(level).unwrap();
                    let mut out = Vec::new();
                    // Twice: the tables are then continued in.
                    c.compress_into(before, &mut out).unwrap();
                    c.compress_into(before, &mut out).unwrap();
                    ALLOCATIONS_BEFORE_FAILURE.set(Some(allowed));
                    let grown = c.compress_into(&large, &mut Vec::new());
                    ALLOCATIONS_BEFORE_FAILURE.set(None);
                    assert!(
                        matches!(grown, Ok(_) | Err(ZstdError::OutOfMemory { .. })),
                        "{grown:?}"
                    );
                    let mut again = Vec::new();
                    c.compress_into(before, &mut again).unwrap();
                    assert!(
                        again == want,
                        "level {level}, {} bytes, {allowed} allocations allowed",
                        before.len()
                    );
                }
            }
        }
    }
}
