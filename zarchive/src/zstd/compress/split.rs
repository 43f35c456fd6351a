//! The post-block splitter of the optimal-parser strategies (`ZSTD_compressBlock_splitBlock`):
//! a block's sequences are cut where estimated entropy-coded sizes say two blocks beat one,
//! and each part is emitted as its own block, with repeat offsets reconciled across parts.

use super::block::{self, EntropyTables, RLE_MAX_LENGTH};
use super::huf::HufWorkspace;
use super::literals;
use super::matcher::opt::new_rep;
use super::params::{CParams, Strategy};
use super::seq_store::{MINMATCH, REP_NUM, SeqStore, Sequence};
use super::sequences;

/// Halves with fewer sequences than this are not split further (`MIN_SEQUENCES_BLOCK_SPLITTING`).
const MIN_SEQUENCES_BLOCK_SPLITTING: usize = 300;
/// At most this many splits per block (`ZSTD_MAX_NB_BLOCK_SPLITS`).
const MAX_NB_BLOCK_SPLITS: usize = 196;
/// Blocks with at most this many sequences are never split.
const MAX_SEQUENCES_UNSPLIT: usize = 4;
use crate::zstd::common::format::{BLOCK_COMPRESSED, BLOCK_HEADER_SIZE, BLOCK_RAW, BLOCK_RLE};
/// Smallest window log at which the splitter is on (`ZSTD_resolveBlockSplitterMode`).
const SPLITTER_MIN_WINDOW_LOG: u32 = 17;

/// Mirrors ZSTD_resolveBlockSplitterMode for default parameters: on for btopt and up with
/// `windowLog >= 17`.
pub(crate) fn enabled(cp: &CParams) -> bool {
    cp.strategy >= Strategy::BtOpt && cp.window_log >= SPLITTER_MIN_WINDOW_LOG
}

/// The sequences of one block with what the size estimates need.
struct Estimator<'a> {
    seqs: &'a [Sequence],
    lits: &'a [u8],
    /// `lit_starts[i]`: literal bytes before sequence `i` (one more entry than `seqs`).
    lit_starts: &'a [usize],
    ll_codes: &'a [u8],
    of_codes: &'a [u8],
    ml_codes: &'a [u8],
    prev: &'a EntropyTables,
    next: &'a mut EntropyTables,
    ws: &'a mut HufWorkspace,
    cp: &'a CParams,
    scratch: Vec<u8>,
}

impl Estimator<'_> {
    /// Mirrors ZSTD_buildEntropyStatisticsAndEstimateSubBlockSize for sequences
    /// `start..end`; `None` is libzstd's error.
    fn estimate(&mut self, start: usize, end: usize) -> Option<usize> {
        let lit_end = if end == self.seqs.len() {
            self.lits.len()
        } else {
            self.lit_starts[end]
        };
        let lits = &self.lits[self.lit_starts[start]..lit_end];
        let optimal_depth = self.cp.strategy >= Strategy::BtUltra;
        let disabled = block::literals_compression_disabled(self.cp);
        let lit_stats = literals::build_stats(
            lits,
            &self.prev.huf,
            &mut self.next.huf,
            self.ws,
            disabled,
            optimal_depth,
        );
        let (ll, of, ml) = (
            &self.ll_codes[start..end],
            &self.of_codes[start..end],
            &self.ml_codes[start..end],
        );
        self.scratch.clear();
        let seq_stats = sequences::build_statistics(
            &mut self.scratch,
            ll,
            of,
            ml,
            &self.prev.fse,
            &mut self.next.fse,
            self.cp.strategy,
        );
        let (mode, des_size) = lit_stats?;
        let lit_size = literals::estimate_size(lits, mode, des_size, &self.next.huf.table);
        let seq_size = sequences::estimate_size(ll, of, ml, &self.next.fse, &seq_stats);
        Some(lit_size + seq_size + BLOCK_HEADER_SIZE)
    }

    /// Mirrors ZSTD_deriveBlockSplitsHelper: appends the split points of `start..end`
    /// in increasing order.
    fn derive_splits(&mut self, splits: &mut Vec<usize>, start: usize, end: usize) {
        if end - start < MIN_SEQUENCES_BLOCK_SPLITTING || splits.len() >= MAX_NB_BLOCK_SPLITS {
            return;
        }
        let mid = (start + end) / 2;
        let whole = self.estimate(start, end);
        let first = self.estimate(start, mid);
        let second = self.estimate(mid, end);
        let (Some(whole), Some(first), Some(second)) = (whole, first, second) else {
            return;
        };
        if first + second < whole {
            self.derive_splits(splits, start, mid);
            splits.push(mid);
            self.derive_splits(splits, mid, end);
        }
    }
}

/// Mirrors ZSTD_seqStore_resolveOffCodes: rewrites as raw offsets the repeat codes whose
/// meaning differs between the compressor's history `c_rep` (which follows the sequences)
/// and the decoder's `d_rep` (which skipped raw and RLE parts), and advances both.
fn resolve_off_codes(
    d_rep: &mut [u32; REP_NUM],
    c_rep: &mut [u32; REP_NUM],
    seqs: &mut [Sequence],
) {
    for seq in seqs {
        let ll0 = seq.lit_len == 0;
        let off_base = seq.off_base;
        if off_base <= REP_NUM as u32 {
            let d_raw = repcode_to_raw_offset(d_rep, off_base, ll0);
            let c_raw = repcode_to_raw_offset(c_rep, off_base, ll0);
            if d_raw != c_raw {
                seq.off_base = c_raw.wrapping_add(REP_NUM as u32);
            }
        }
        *d_rep = new_rep(*d_rep, seq.off_base, ll0);
        *c_rep = new_rep(*c_rep, off_base, ll0);
    }
}

/// Mirrors ZSTD_resolveRepcodeToRawOffset (repeat code 3 after no literals is `rep0 - 1`).
fn repcode_to_raw_offset(rep: &[u32; REP_NUM], off_base: u32, ll0: bool) -> u32 {
    let adjusted = (off_base - 1 + ll0 as u32) as usize;
    if adjusted == REP_NUM {
        rep[0].wrapping_sub(1)
    } else {
        rep[adjusted]
    }
}

/// Writes a 3-byte block header (`last | type << 1 | size << 3`).
fn block_header(last: bool, block_type: u32, size: usize) -> [u8; 3] {
    let h = (last as u32 + (block_type << 1) + ((size as u32) << 3)).to_le_bytes();
    [h[0], h[1], h[2]]
}

/// Working state of the splitter, kept across blocks.
#[derive(Default)]
pub(crate) struct SplitState {
    part: SeqStore,
    seqs: Vec<Sequence>,
    lits: Vec<u8>,
    lit_starts: Vec<usize>,
    splits: Vec<usize>,
    estimate_tables: EntropyTables,
}

/// Everything one block's emission reads and updates.
pub(crate) struct BlockContext<'a> {
    pub(crate) seqs: &'a mut SeqStore,
    /// Boxed as the frame keeps them: confirming a block swaps the pointers.
    pub(crate) prev: &'a mut Box<EntropyTables>,
    pub(crate) next: &'a mut Box<EntropyTables>,
    pub(crate) ws: &'a mut HufWorkspace,
    pub(crate) split: &'a mut SplitState,
    pub(crate) cp: &'a CParams,
    pub(crate) first_block: bool,
}

/// Mirrors ZSTD_compressBlock_splitBlock_internal after ZSTD_buildSeqStore filled
/// `ctx.seqs` for `block` (`next_rep`: the repeat offsets after its sequences). Appends one
/// or more blocks (headers included) to `out`; returns the repeat offsets for the next
/// block (the decoder-side history `dRep` when the block was split).
pub(crate) fn compress_block(
    out: &mut Vec<u8>,
    ctx: BlockContext<'_>,
    block: &[u8],
    last: bool,
    prev_rep: [u32; REP_NUM],
    next_rep: [u32; REP_NUM],
) -> [u32; REP_NUM] {
    let BlockContext {
        seqs,
        prev,
        next,
        ws,
        split,
        cp,
        first_block,
    } = ctx;
    let nb_seq = seqs.sequences.len();
    seqs.compute_codes();
    split.splits.clear();
    if nb_seq > MAX_SEQUENCES_UNSPLIT {
        split.lit_starts.clear();
        let mut acc = 0;
        for s in &seqs.sequences {
            split.lit_starts.push(acc);
            acc += s.lit_len as usize;
        }
        split.lit_starts.push(acc);
        let mut est = Estimator {
            seqs: &seqs.sequences,
            lits: seqs.literals(),
            lit_starts: &split.lit_starts,
            ll_codes: &seqs.ll_codes,
            of_codes: &seqs.of_codes,
            ml_codes: &seqs.ml_codes,
            prev,
            next: &mut split.estimate_tables,
            ws,
            cp,
            scratch: Vec::new(),
        };
        let mut splits = std::mem::take(&mut split.splits);
        est.derive_splits(&mut splits, 0, nb_seq);
        split.splits = splits;
    }

    if split.splits.is_empty() {
        // ZSTD_compressSeqStore_singleBlock on the whole block (not a partition).
        let (c_size, _) = emit_part(out, seqs, prev, next, ws, cp, block, last, first_block);
        return if c_size > 1 { next_rep } else { prev_rep };
    }

    split.seqs.clear();
    split.seqs.extend_from_slice(&seqs.sequences);
    split.lits.clear();
    split.lits.extend_from_slice(seqs.literals());
    split.splits.push(nb_seq);
    let mut d_rep = prev_rep;
    let mut c_rep = prev_rep;
    let (mut seq_start, mut src_pos) = (0, 0);
    for i in 0..split.splits.len() {
        let seq_end = split.splits[i];
        let last_part = i + 1 == split.splits.len();
        let part_seqs = &mut split.seqs[seq_start..seq_end];
        let lit_start = split.lit_starts[seq_start];
        let (lit_end, src_bytes) = if last_part {
            (split.lits.len(), block.len() - src_pos)
        } else {
            let lit_end = split.lit_starts[seq_end];
            let match_bytes: usize = part_seqs
                .iter()
                .map(|s| (s.ml_base + MINMATCH) as usize)
                .sum();
            (lit_end, lit_end - lit_start + match_bytes)
        };
        let d_rep_original = d_rep;
        resolve_off_codes(&mut d_rep, &mut c_rep, part_seqs);
        split
            .part
            .assign(part_seqs, &split.lits[lit_start..lit_end]);
        let part_block = &block[src_pos..src_pos + src_bytes];
        let (c_size, _) = emit_part(
            out,
            &mut split.part,
            prev,
            next,
            ws,
            cp,
            part_block,
            last && last_part,
            first_block,
        );
        if c_size <= 1 {
            // A raw or RLE part: the decoder's history does not move.
            d_rep = d_rep_original;
        }
        seq_start = seq_end;
        src_pos += src_bytes;
    }
    d_rep
}

/// Mirrors ZSTD_compressSeqStore_singleBlock (without the repeat-offset bookkeeping):
/// emits `seqs` as one block for `src`, raw, RLE or compressed. Returns the body size
/// code (0 raw, 1 RLE, otherwise compressed) and the bytes appended.
#[allow(clippy::too_many_arguments)]
fn emit_part(
    out: &mut Vec<u8>,
    seqs: &mut SeqStore,
    prev: &mut Box<EntropyTables>,
    next: &mut Box<EntropyTables>,
    ws: &mut HufWorkspace,
    cp: &CParams,
    src: &[u8],
    last: bool,
    first_block: bool,
) -> (usize, usize) {
    let out_start = out.len();
    out.extend_from_slice(&[0; BLOCK_HEADER_SIZE]);
    let mut c_size = block::entropy_compress(out, seqs, prev, next, ws, cp, src.len());
    if !first_block && c_size < RLE_MAX_LENGTH && block::is_rle(src) {
        c_size = 1;
    }
    out.truncate(
        out_start
            + if c_size > 1 {
                BLOCK_HEADER_SIZE + c_size
            } else {
                0
            },
    );
    match c_size {
        0 => {
            out.extend_from_slice(&block_header(last, BLOCK_RAW, src.len()));
            out.extend_from_slice(src);
        }
        1 => {
            out.extend_from_slice(&block_header(last, BLOCK_RLE, src.len()));
            out.push(src[0]);
        }
        _ => {
            out[out_start..out_start + BLOCK_HEADER_SIZE].copy_from_slice(&block_header(
                last,
                BLOCK_COMPRESSED,
                c_size,
            ));
            // ZSTD_blockState_confirmRepcodesAndEntropyTables.
            std::mem::swap(prev, next);
        }
    }
    block::demote_offcode_repeat(prev);
    (c_size, out.len() - out_start)
}
