//! Huffman literal coding (`huf_compress.c`): libzstd's exact symbol sort, tree, depth
//! limiting, canonical codes, the table header and the 1- and 4-stream encoders.

use super::bits::{StreamScratch, highbit32};
use super::fse::{self, FseCTable};
use super::hist;

pub(crate) use crate::zstd::common::format::HUF_TABLELOG_MAX;
/// Table log asked for literals (`LitHufLog`, `HUF_TABLELOG_DEFAULT`).
pub(crate) const LIT_HUF_LOG: u32 = 11;
/// Largest literal symbol (`HUF_SYMBOLVALUE_MAX`).
pub(crate) const HUF_SYMBOLVALUE_MAX: u32 = 255;
/// Table log limit of the FSE coder that compresses the weights (`MAX_FSE_TABLELOG_FOR_HUFF_HEADER`).
const MAX_FSE_TABLELOG_FOR_HUFF_HEADER: u32 = 6;
/// Number of sort buckets (`RANK_POSITION_TABLE_SIZE`).
const RANK_POSITION_TABLE_SIZE: usize = 192;
/// First log2 bucket (`RANK_POSITION_LOG_BUCKETS_BEGIN`).
const RANK_POSITION_LOG_BUCKETS_BEGIN: u32 = (RANK_POSITION_TABLE_SIZE as u32 - 1) - 32 - 1;
/// Counts below this get a bucket of their own (`RANK_POSITION_DISTINCT_COUNT_CUTOFF` = 166).
const RANK_POSITION_DISTINCT_COUNT_CUTOFF: u32 = RANK_POSITION_LOG_BUCKETS_BEGIN + 7;
/// Below this many elements a bucket is insertion-sorted (`kInsertionSortThreshold`).
const INSERTION_SORT_THRESHOLD: i32 = 8;
/// First internal node of the tree (`STARTNODE`).
const STARTNODE: usize = HUF_SYMBOLVALUE_MAX as usize + 1;
/// Sample size of the "probably incompressible" test (`SUSPECT_INCOMPRESSIBLE_SAMPLE_SIZE`).
const SUSPECT_SAMPLE_SIZE: usize = 4096;
/// The sampling test runs from `SAMPLE_SIZE * RATIO` bytes on (`SUSPECT_INCOMPRESSIBLE_SAMPLE_RATIO`).
const SUSPECT_SAMPLE_RATIO: usize = 10;

/// Whether a previous table may be reused (`HUF_repeat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum HufRepeat {
    /// No usable table.
    #[default]
    None,
    /// A table exists but must be checked against the new symbols.
    Check,
    /// A table exists and can be used as is.
    Valid,
}

/// A Huffman compression table (`HUF_CElt[]` with its header).
#[derive(Clone, Debug)]
pub(crate) struct HufCTable {
    table_log: u32,
    max_symbol: u32,
    nb_bits: [u8; 256],
    code: [u16; 256],
}

impl Default for HufCTable {
    fn default() -> Self {
        HufCTable {
            table_log: 0,
            max_symbol: 0,
            nb_bits: [0; 256],
            code: [0; 256],
        }
    }
}

/// Compression flags of `HUF_compress_internal` (`HUF_flags_*`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HufFlags {
    pub(crate) prefer_repeat: bool,
    pub(crate) optimal_depth: bool,
    pub(crate) suspect_uncompressible: bool,
}

#[derive(Clone, Copy, Default)]
pub(crate) struct Node {
    count: u32,
    parent: u16,
    byte: u8,
    nb_bits: u8,
}

/// Scratch space of the table builder (`HUF_buildCTable_wksp_tables`), kept across calls.
pub(crate) struct HufWorkspace {
    /// `nodes[0]` is the barrier `huffNode0[0]`; `huffNode[i]` is `nodes[i + 1]`.
    nodes: [Node; 2 * STARTNODE + 1],
    count: [u32; 256],
    scratch_ctable: HufCTable,
    header: Vec<u8>,
    /// Room for a bitstream's worst case, zeroed once and kept: a stream is written here
    /// and only its bytes are copied out, instead of zero-filling the worst case in the
    /// output for every stream (see [`StreamScratch`]).
    pub(crate) stream: StreamScratch,
}

impl Default for HufWorkspace {
    fn default() -> Self {
        HufWorkspace {
            nodes: [Node::default(); 2 * STARTNODE + 1],
            count: [0; 256],
            scratch_ctable: HufCTable::default(),
            header: Vec::with_capacity(256),
            stream: StreamScratch::default(),
        }
    }
}

/// Mirrors HUF_getIndex: the sort bucket of a count.
fn bucket_index(count: u32) -> u32 {
    if count < RANK_POSITION_DISTINCT_COUNT_CUTOFF {
        count
    } else {
        highbit32(count) + RANK_POSITION_LOG_BUCKETS_BEGIN
    }
}

/// Mirrors HUF_insertionSort (descending, stable).
fn insertion_sort(nodes: &mut [Node]) {
    for i in 1..nodes.len() {
        let key = nodes[i];
        let mut j = i;
        while j > 0 && nodes[j - 1].count < key.count {
            nodes[j] = nodes[j - 1];
            j -= 1;
        }
        nodes[j] = key;
    }
}

/// Mirrors HUF_quickSortPartition: Lomuto partition around the rightmost element.
fn partition(arr: &mut [Node], low: i32, high: i32) -> i32 {
    let pivot = arr[high as usize].count;
    let mut i = low - 1;
    for j in low..high {
        if arr[j as usize].count > pivot {
            i += 1;
            arr.swap(i as usize, j as usize);
        }
    }
    arr.swap((i + 1) as usize, high as usize);
    i + 1
}

/// Mirrors HUF_simpleQuickSort (descending, unstable; the exact tie order matters).
fn quick_sort(arr: &mut [Node], mut low: i32, mut high: i32) {
    if high - low < INSERTION_SORT_THRESHOLD {
        if high > low {
            insertion_sort(&mut arr[low as usize..=high as usize]);
        }
        return;
    }
    while low < high {
        let idx = partition(arr, low, high);
        if idx - low < high - idx {
            quick_sort(arr, low, idx - 1);
            low = idx + 1;
        } else {
            quick_sort(arr, idx + 1, high);
            high = idx - 1;
        }
    }
}

/// Mirrors HUF_sort: symbols by decreasing count into `huff[..=max_symbol]`.
fn sort(huff: &mut [Node], count: &[u32], max_symbol: u32) {
    let mut base = [0u32; RANK_POSITION_TABLE_SIZE];
    let mut curr = [0u32; RANK_POSITION_TABLE_SIZE];
    for &c in &count[..=max_symbol as usize] {
        base[bucket_index(c) as usize] += 1;
    }
    for n in (1..RANK_POSITION_TABLE_SIZE).rev() {
        base[n - 1] += base[n];
        curr[n - 1] = base[n - 1];
    }
    for (n, &c) in count[..=max_symbol as usize].iter().enumerate() {
        let r = bucket_index(c) as usize + 1;
        let pos = curr[r] as usize;
        curr[r] += 1;
        huff[pos].count = c;
        huff[pos].byte = n as u8;
    }
    for n in RANK_POSITION_DISTINCT_COUNT_CUTOFF as usize..RANK_POSITION_TABLE_SIZE - 1 {
        let size = curr[n] as i32 - base[n] as i32;
        let start = base[n] as usize;
        if size > 1 {
            quick_sort(&mut huff[start..], 0, size - 1);
        }
    }
}

/// Mirrors HUF_buildTree: builds an unlimited-depth tree over the sorted nodes and returns
/// the rank of the last non-zero symbol.
fn build_tree(nodes: &mut [Node; 2 * STARTNODE + 1], max_symbol: u32) -> usize {
    // huffNode[i] == nodes[i + 1]; index -1 is the barrier.
    let at = |i: isize| (i + 1) as usize;
    let mut non_null_rank = max_symbol as isize;
    while nodes[at(non_null_rank)].count == 0 {
        non_null_rank -= 1;
    }
    let mut low_s = non_null_rank;
    let node_root = STARTNODE as isize + low_s - 1;
    let mut low_n = STARTNODE as isize;
    let mut node_nb = STARTNODE as isize;
    nodes[at(node_nb)].count = nodes[at(low_s)].count + nodes[at(low_s - 1)].count;
    nodes[at(low_s)].parent = node_nb as u16;
    nodes[at(low_s - 1)].parent = node_nb as u16;
    node_nb += 1;
    low_s -= 2;
    for n in node_nb..=node_root {
        nodes[at(n)].count = 1 << 30;
    }
    nodes[0].count = 1 << 31; // barrier

    while node_nb <= node_root {
        // Strict `<`: ties go to the internal node (deliberate, output-affecting).
        let n1 = if nodes[at(low_s)].count < nodes[at(low_n)].count {
            low_s -= 1;
            low_s + 1
        } else {
            low_n += 1;
            low_n - 1
        };
        let n2 = if nodes[at(low_s)].count < nodes[at(low_n)].count {
            low_s -= 1;
            low_s + 1
        } else {
            low_n += 1;
            low_n - 1
        };
        nodes[at(node_nb)].count = nodes[at(n1)].count + nodes[at(n2)].count;
        nodes[at(n1)].parent = node_nb as u16;
        nodes[at(n2)].parent = node_nb as u16;
        node_nb += 1;
    }

    nodes[at(node_root)].nb_bits = 0;
    for n in (STARTNODE as isize..node_root).rev() {
        let p = nodes[at(n)].parent as isize;
        nodes[at(n)].nb_bits = nodes[at(p)].nb_bits + 1;
    }
    for n in 0..=non_null_rank {
        let p = nodes[at(n)].parent as isize;
        nodes[at(n)].nb_bits = nodes[at(p)].nb_bits + 1;
    }
    non_null_rank as usize
}

/// Mirrors HUF_setMaxHeight: limits code lengths to `target` bits with libzstd's repay loop.
fn set_max_height(huff: &mut [Node], last_non_null: usize, target: u32) -> u32 {
    let largest_bits = huff[last_non_null].nb_bits as u32;
    if largest_bits <= target {
        return largest_bits;
    }
    const NO_SYMBOL: u32 = 0xF0F0_F0F0;
    let mut total_cost: i32 = 0;
    let base_cost = 1i32 << (largest_bits - target);
    let mut n = last_non_null as i32;
    while huff[n as usize].nb_bits as u32 > target {
        total_cost += base_cost - (1 << (largest_bits - huff[n as usize].nb_bits as u32));
        huff[n as usize].nb_bits = target as u8;
        n -= 1;
    }
    while huff[n as usize].nb_bits as u32 == target {
        n -= 1;
    }
    total_cost >>= largest_bits - target;

    let mut rank_last = [NO_SYMBOL; HUF_TABLELOG_MAX as usize + 2];
    {
        let mut current_nb_bits = target;
        for pos in (0..=n).rev() {
            let bits = huff[pos as usize].nb_bits as u32;
            if bits >= current_nb_bits {
                continue;
            }
            current_nb_bits = bits;
            rank_last[(target - current_nb_bits) as usize] = pos as u32;
        }
    }

    while total_cost > 0 {
        let mut n_bits_to_decrease = highbit32(total_cost as u32) + 1;
        while n_bits_to_decrease > 1 {
            let high_pos = rank_last[n_bits_to_decrease as usize];
            let low_pos = rank_last[n_bits_to_decrease as usize - 1];
            if high_pos != NO_SYMBOL {
                if low_pos == NO_SYMBOL {
                    break;
                }
                let high_total = huff[high_pos as usize].count;
                let low_total = 2 * huff[low_pos as usize].count;
                if high_total <= low_total {
                    break;
                }
            }
            n_bits_to_decrease -= 1;
        }
        while n_bits_to_decrease <= HUF_TABLELOG_MAX
            && rank_last[n_bits_to_decrease as usize] == NO_SYMBOL
        {
            n_bits_to_decrease += 1;
        }
        let nb = n_bits_to_decrease as usize;
        total_cost -= 1 << (n_bits_to_decrease - 1);
        huff[rank_last[nb] as usize].nb_bits += 1;
        if rank_last[nb - 1] == NO_SYMBOL {
            rank_last[nb - 1] = rank_last[nb];
        }
        if rank_last[nb] == 0 {
            rank_last[nb] = NO_SYMBOL;
        } else {
            rank_last[nb] -= 1;
            if huff[rank_last[nb] as usize].nb_bits as u32 != target - n_bits_to_decrease {
                rank_last[nb] = NO_SYMBOL;
            }
        }
    }

    while total_cost < 0 {
        if rank_last[1] == NO_SYMBOL {
            while huff[n as usize].nb_bits as u32 == target {
                n -= 1;
            }
            huff[(n + 1) as usize].nb_bits -= 1;
            rank_last[1] = (n + 1) as u32;
            total_cost += 1;
            continue;
        }
        huff[rank_last[1] as usize + 1].nb_bits -= 1;
        rank_last[1] += 1;
        total_cost += 1;
    }
    target
}

impl HufCTable {
    /// Mirrors HUF_buildCTable_wksp (sort, tree, HUF_setMaxHeight, HUF_buildCTableFromTree).
    /// Returns the table's actual maximum code length.
    pub(crate) fn build(
        &mut self,
        nodes: &mut [Node; 2 * STARTNODE + 1],
        count: &[u32],
        max_symbol: u32,
        max_nb_bits: u32,
    ) -> u32 {
        *nodes = [Node::default(); 2 * STARTNODE + 1];
        sort(&mut nodes[1..], count, max_symbol);
        let non_null_rank = build_tree(nodes, max_symbol);
        let huff = &mut nodes[1..];
        let max_nb_bits = set_max_height(huff, non_null_rank, max_nb_bits);

        let mut nb_per_rank = [0u16; HUF_TABLELOG_MAX as usize + 1];
        let mut val_per_rank = [0u16; HUF_TABLELOG_MAX as usize + 1];
        for node in &huff[..=non_null_rank] {
            nb_per_rank[node.nb_bits as usize] += 1;
        }
        let mut min = 0u16;
        for n in (1..=max_nb_bits as usize).rev() {
            val_per_rank[n] = min;
            min += nb_per_rank[n];
            min >>= 1;
        }
        let alphabet = max_symbol as usize + 1;
        for node in &huff[..alphabet] {
            self.nb_bits[node.byte as usize] = node.nb_bits;
        }
        for s in 0..alphabet {
            let bits = self.nb_bits[s] as usize;
            self.code[s] = val_per_rank[bits];
            val_per_rank[bits] = val_per_rank[bits].wrapping_add(1);
        }
        self.table_log = max_nb_bits;
        self.max_symbol = max_symbol;
        max_nb_bits
    }

    /// The table a description's `weights` (one per symbol, the last one included) and
    /// depth `log` give: code lengths `log + 1 - weight`, codes assigned per length in
    /// symbol order, as [`HufCTable::build`] assigns them.
    ///
    /// Mirrors HUF_readCTable (after HUF_readStats).
    pub(crate) fn from_weights(weights: &[u8], log: u32) -> HufCTable {
        let mut t = HufCTable {
            table_log: log,
            max_symbol: weights.len() as u32 - 1,
            ..HufCTable::default()
        };
        // Absent symbols (weight 0) have no code; they are counted in rank 0.
        let mut nb_per_rank = [0u16; HUF_TABLELOG_MAX as usize + 2];
        let mut val_per_rank = [0u16; HUF_TABLELOG_MAX as usize + 2];
        for (bits, &w) in t.nb_bits.iter_mut().zip(weights) {
            *bits = if w == 0 {
                0
            } else {
                (log + 1 - w as u32) as u8
            };
            nb_per_rank[*bits as usize] += 1;
        }
        let mut min = 0u16;
        for n in (1..=log as usize).rev() {
            val_per_rank[n] = min;
            min += nb_per_rank[n];
            min >>= 1;
        }
        for s in 0..weights.len() {
            let bits = t.nb_bits[s] as usize;
            t.code[s] = val_per_rank[bits];
            val_per_rank[bits] = val_per_rank[bits].wrapping_add(1);
        }
        t
    }

    /// Code length of `symbol` (0: no code; `HUF_getNbBitsFromCTable`).
    pub(crate) fn nb_bits(&self, symbol: usize) -> u32 {
        if symbol > self.max_symbol as usize {
            return 0;
        }
        self.nb_bits[symbol] as u32
    }

    /// Mirrors HUF_writeCTable_wksp: appends the table description; `None` when the table
    /// cannot be described (more than 128 symbols and weights not FSE-compressible).
    pub(crate) fn write(&self, out: &mut Vec<u8>) -> Option<usize> {
        let max_symbol = self.max_symbol as usize;
        let mut weights = [0u8; 256];
        for (w, &bits) in weights.iter_mut().zip(&self.nb_bits[..max_symbol]) {
            *w = if bits == 0 {
                0
            } else {
                (self.table_log + 1 - bits as u32) as u8
            };
        }
        let start = out.len();
        out.push(0);
        let h_size = compress_weights(out, &weights[..max_symbol]);
        if h_size > 1 && h_size < max_symbol / 2 {
            out[start] = h_size as u8;
            return Some(h_size + 1);
        }
        out.truncate(start);
        if max_symbol > 128 {
            return None;
        }
        out.push((128 + (max_symbol - 1)) as u8);
        for pair in (0..max_symbol).step_by(2) {
            out.push((weights[pair] << 4) + weights[pair + 1]);
        }
        Some(max_symbol.div_ceil(2) + 1)
    }

    /// Mirrors HUF_estimateCompressedSize.
    pub(crate) fn estimate_compressed_size(&self, count: &[u32], max_symbol: u32) -> usize {
        let bits: usize = (0..=max_symbol as usize)
            .map(|s| self.nb_bits[s] as usize * count[s] as usize)
            .sum();
        bits >> 3
    }

    /// Mirrors HUF_validateCTable: whether every present symbol has a code.
    pub(crate) fn validate(&self, count: &[u32], max_symbol: u32) -> bool {
        if self.max_symbol < max_symbol {
            return false;
        }
        (0..=max_symbol as usize).all(|s| count[s] == 0 || self.nb_bits[s] != 0)
    }

    /// Each symbol's code as libzstd's `HUF_CElt`: the code left-aligned in the top bits,
    /// its length in the low byte (0 for a symbol without a code).
    fn elements(&self) -> [u64; 256] {
        let mut elts = [0u64; 256];
        for ((e, &c), &n) in elts.iter_mut().zip(&self.code).zip(&self.nb_bits) {
            if n > 0 {
                *e = (c as u64) << (64 - n as u32) | n as u64;
            }
        }
        elts
    }

    /// Mirrors HUF_compress1X_usingCTable: one stream, symbols encoded last to first.
    pub(crate) fn compress_1x(
        &self,
        out: &mut Vec<u8>,
        src: &[u8],
        scratch: &mut StreamScratch,
    ) -> usize {
        compress_1x_with(&self.elements(), self.table_log, out, src, scratch)
    }

    /// Mirrors HUF_compress4X_usingCTable_internal: four streams behind a 6-byte jump table.
    /// Returns 0 when a stream would not fit its 16-bit size.
    pub(crate) fn compress_4x(
        &self,
        out: &mut Vec<u8>,
        src: &[u8],
        scratch: &mut StreamScratch,
    ) -> usize {
        if src.len() < 12 {
            return 0;
        }
        let start = out.len();
        let segment = src.len().div_ceil(4);
        out.extend_from_slice(&[0; 6]);
        let elts = self.elements();
        for (i, chunk) in src.chunks(segment).enumerate() {
            let size = compress_1x_with(&elts, self.table_log, out, chunk, scratch);
            if size == 0 || size > 65535 {
                out.truncate(start);
                return 0;
            }
            if i < 3 {
                out[start + 2 * i..start + 2 * i + 2].copy_from_slice(&(size as u16).to_le_bytes());
            }
        }
        out.len() - start
    }
}

/// One Huffman stream of `src`, symbols encoded last to first, appended to `out`; returns
/// its length.
///
/// Mirrors HUF_compress1X_usingCTable_internal_body with its `HUF_CStream_t`: the container
/// holds the pending bits at its top, each symbol shifts it right by its length and ORs in
/// its element (code on top, length in the low byte, below any pending bit), so adding a
/// symbol is a shift and an OR; a flush writes the pending bits' whole bytes.
fn compress_1x_with(
    elts: &[u64; 256],
    table_log: u32,
    out: &mut Vec<u8>,
    src: &[u8],
    scratch: &mut StreamScratch,
) -> usize {
    // Every symbol takes at most `table_log` bits; 8 bytes of slack for the last store.
    let buf = scratch.room((src.len() * table_log as usize) / 8 + 16);
    let len = crate::zstd::dispatch::Isa::detect().run(
        #[inline(always)]
        || compress_1x_body(elts, table_log, buf, src),
    );
    out.extend_from_slice(&buf[..len]);
    len
}

/// Writes the stream into `buf` (room for its worst case); returns its length.
///
/// Mirrors HUF_compress1X_usingCTable_internal_body's choice of unrolling by table log:
/// the more symbols fit between two flushes, the fewer flushes.
#[inline(always)]
fn compress_1x_body(elts: &[u64; 256], table_log: u32, buf: &mut [u8], src: &[u8]) -> usize {
    match table_log {
        11 => compress_1x_unrolled::<5, 11>(elts, buf, src),
        10 => compress_1x_unrolled::<5, 10>(elts, buf, src),
        9 => compress_1x_unrolled::<6, 9>(elts, buf, src),
        8 => compress_1x_unrolled::<7, 8>(elts, buf, src),
        7 => compress_1x_unrolled::<8, 7>(elts, buf, src),
        0..=6 => compress_1x_unrolled::<9, 6>(elts, buf, src),
        _ => compress_1x_unrolled::<4, 12>(elts, buf, src),
    }
}

/// [`compress_1x_body`] with `N` symbols of at most `LOG` bits between flushes
/// (`7 + N * LOG <= 64`).
///
/// The container holds the pending bits at its top; each symbol shifts it right by its
/// length and ORs in its element (code on top, length in the low 4 bits), so adding a
/// symbol is a shift and an OR, and the length's bits stay below the pending ones while at
/// most 60 are pending. A flush writes the pending bits' whole bytes. Symbols go in `2 N`
/// at a time, the second `N` into a container of their own that starts empty, merged into
/// the first after its flush (libzstd's `HUF_mergeIndex1`): two dependency chains of
/// shifts instead of one.
#[inline(always)]
fn compress_1x_unrolled<const N: usize, const LOG: usize>(
    elts: &[u64; 256],
    buf: &mut [u8],
    src: &[u8],
) -> usize {
    const { assert!(7 + N * LOG <= 64) };
    // Whether the last symbol of a group must leave its length out: with more than 60
    // bits pending, its 4 low bits would land among the pending ones. (Those of the
    // symbols before it are shifted out of the way by the ones after.)
    let last_clean = 7 + N * LOG > 60;
    // `last`: the group's last symbol, which leaves its length out where it must.
    let add = |acc: &mut u64, bits: &mut u32, symbol: u8, last: bool| {
        let e = elts[symbol as usize];
        *acc = acc.wrapping_shr(e as u32) | if last && last_clean { e & !0xF } else { e };
        *bits += e as u32;
    };
    let mut acc = 0u64;
    let mut bits = 0u32;
    let mut pos = 0usize;
    // The room holds the stream's worst case and 8 bytes more, so a store's position
    // never passes `last`: clamped to it, the store needs no bounds check (a compare and
    // a move instead of two tests and branches).
    let Some(last) = buf.len().checked_sub(8) else {
        return 0;
    };
    let mut flush = |acc: u64, bits: &mut u32, pos: &mut usize| {
        debug_assert!(*bits <= 64);
        debug_assert!(*pos <= last, "Huffman stream room reserved too small");
        // With nothing pending the shift is by 64 and wraps: the store writes bytes the
        // position does not pass, which later stores overwrite.
        let word = acc.wrapping_shr(64 - *bits);
        let at = (*pos).min(last);
        buf[at..at + 8].copy_from_slice(&word.to_le_bytes());
        *pos += (*bits >> 3) as usize;
        *bits &= 7;
    };
    // Walking from the end leaves the first `len % 2N` symbols, encoded last, one flush
    // each.
    let chunks = src.rchunks_exact(2 * N);
    let head = chunks.remainder();
    for c in chunks {
        let (low, high) = c.split_at(N);
        for &b in high[1..].iter().rev() {
            add(&mut acc, &mut bits, b, false);
        }
        add(&mut acc, &mut bits, high[0], true);
        flush(acc, &mut bits, &mut pos);
        let (mut acc1, mut bits1) = (0u64, 0u32);
        for &b in low[1..].iter().rev() {
            add(&mut acc1, &mut bits1, b, false);
        }
        add(&mut acc1, &mut bits1, low[0], true);
        acc = acc.wrapping_shr(bits1) | acc1;
        bits += bits1;
        flush(acc, &mut bits, &mut pos);
    }
    for &b in head.iter().rev() {
        add(&mut acc, &mut bits, b, false);
        flush(acc, &mut bits, &mut pos);
    }
    // The end mark: one 1 bit (HUF_closeCStream).
    acc = (acc >> 1) | 1 << 63;
    bits += 1;
    flush(acc, &mut bits, &mut pos);
    pos + (bits > 0) as usize
}

/// Mirrors HUF_compressWeights: FSE-compresses the weight list. Returns the size written,
/// 0 if not compressible, 1 if all weights are equal (the caller then writes raw weights).
fn compress_weights(out: &mut Vec<u8>, weights: &[u8]) -> usize {
    if weights.len() <= 1 {
        return 0;
    }
    let mut count = [0u32; HUF_TABLELOG_MAX as usize + 1];
    for &w in weights {
        count[w as usize] += 1;
    }
    let (max_count, max_symbol) = hist::summarize(&count);
    if max_count as usize == weights.len() {
        return 1;
    }
    if max_count == 1 {
        return 0;
    }
    let table_log =
        fse::optimal_table_log(MAX_FSE_TABLELOG_FOR_HUFF_HEADER, weights.len(), max_symbol);
    let mut norm = [0i16; HUF_TABLELOG_MAX as usize + 1];
    fse::normalize_count(
        &mut norm,
        table_log,
        &count,
        weights.len(),
        max_symbol,
        false,
    );
    let start = out.len();
    fse::write_ncount(out, &norm, max_symbol, table_log);
    let mut ct = FseCTable::default();
    ct.build(&norm, max_symbol, table_log);
    if fse::compress_using_ctable(out, weights, &ct) == 0 {
        out.truncate(start);
        return 0;
    }
    out.len() - start
}

/// Mirrors HUF_cardinality.
fn cardinality(count: &[u32], max_symbol: u32) -> u32 {
    count[..=max_symbol as usize]
        .iter()
        .filter(|&&c| c != 0)
        .count() as u32
}

/// Mirrors HUF_optimalTableLog, both the FSE-based guess and the `optimalDepth` search.
fn optimal_table_log(
    ws: &mut HufWorkspace,
    max_table_log: u32,
    src_size: usize,
    max_symbol: u32,
    optimal_depth: bool,
) -> u32 {
    if !optimal_depth {
        return fse::optimal_table_log_internal(max_table_log, src_size, max_symbol, 1);
    }
    let count = ws.count;
    let min_table_log = highbit32(cardinality(&count, max_symbol)) + 1;
    let mut opt_size = usize::MAX - 1;
    let mut opt_log = max_table_log;
    for guess in min_table_log..=max_table_log {
        let max_bits = ws
            .scratch_ctable
            .build(&mut ws.nodes, &count, max_symbol, guess);
        if max_bits < guess && guess > min_table_log {
            break;
        }
        ws.header.clear();
        let Some(h_size) = ws.scratch_ctable.write(&mut ws.header) else {
            continue;
        };
        let new_size = ws
            .scratch_ctable
            .estimate_compressed_size(&count, max_symbol)
            + h_size;
        if new_size > opt_size + 1 {
            break;
        }
        if new_size < opt_size {
            opt_size = new_size;
            opt_log = guess;
        }
    }
    opt_log
}

/// A table built for a histogram the caller made (`count`, symbols `0..=max_symbol`), its
/// code lengths limited to `max_nb_bits`; the table's log is its actual longest code.
///
/// Mirrors HUF_buildCTable_wksp.
pub(crate) fn build_ctable(
    ws: &mut HufWorkspace,
    count: &[u32],
    max_symbol: u32,
    max_nb_bits: u32,
) -> HufCTable {
    let mut table = HufCTable::default();
    table.build(&mut ws.nodes, count, max_symbol, max_nb_bits);
    table
}

impl HufCTable {
    /// The longest code length (the table's log).
    pub(crate) fn table_log(&self) -> u32 {
        self.table_log
    }
}

/// Counts `src` into the workspace histogram; returns `(largest count, highest symbol)`.
pub(crate) fn count_symbols(ws: &mut HufWorkspace, src: &[u8]) -> (u32, u32) {
    hist::count(&mut ws.count, src)
}

/// The histogram of the last [`count_symbols`].
pub(crate) fn counted(ws: &HufWorkspace) -> &[u32; 256] {
    &ws.count
}

/// `HUF_writeCTable` failing with `ERROR(GENERIC)`, as the `size_t` libzstd computes with.
pub(crate) const WRITE_CTABLE_ERROR: usize = usize::MAX;

/// The table part of ZSTD_buildBlockEntropyStats_literals: builds into `table` a new table
/// for the histogram of the last [`count_symbols`] (of `src_len` bytes). Returns
/// `(estimated payload bytes, description bytes)`, the latter [`WRITE_CTABLE_ERROR`] when
/// the table cannot be described.
pub(crate) fn build_table_for_stats(
    ws: &mut HufWorkspace,
    src_len: usize,
    max_symbol: u32,
    optimal_depth: bool,
    table: &mut HufCTable,
) -> (usize, usize) {
    let huff_log = optimal_table_log(ws, LIT_HUF_LOG, src_len, max_symbol, optimal_depth);
    let count = ws.count;
    table.build(&mut ws.nodes, &count, max_symbol, huff_log);
    ws.header.clear();
    let h_size = table.write(&mut ws.header).unwrap_or(WRITE_CTABLE_ERROR);
    (table.estimate_compressed_size(&count, max_symbol), h_size)
}

/// Mirrors HUF_compressCTable_internal: encodes with `table` after `out[start..]` (which may
/// already hold the table header); 0 when the result is not smaller than `src.len() - 1`.
fn compress_with_table(
    out: &mut Vec<u8>,
    start: usize,
    src: &[u8],
    four_streams: bool,
    table: &HufCTable,
    scratch: &mut StreamScratch,
) -> usize {
    let c_size = if four_streams {
        table.compress_4x(out, src, scratch)
    } else {
        table.compress_1x(out, src, scratch)
    };
    if c_size == 0 || out.len() - start >= src.len() - 1 {
        out.truncate(start);
        return 0;
    }
    out.len() - start
}

/// Mirrors HUF_compress_internal (via HUF_compress1X_repeat / HUF_compress4X_repeat).
///
/// `table` holds the previous table on entry and receives a newly built one; `repeat` is
/// set to `None` when a new table is used. Returns the size appended to `out`: 0 means
/// "store raw", 1 means "one symbol" (the byte is written).
pub(crate) fn compress(
    out: &mut Vec<u8>,
    src: &[u8],
    four_streams: bool,
    ws: &mut HufWorkspace,
    table: &mut HufCTable,
    repeat: &mut HufRepeat,
    flags: HufFlags,
) -> usize {
    let start = out.len();
    if src.is_empty() {
        return 0;
    }
    if flags.prefer_repeat && *repeat == HufRepeat::Valid {
        return compress_with_table(out, start, src, four_streams, table, &mut ws.stream);
    }
    if flags.suspect_uncompressible && src.len() >= SUSPECT_SAMPLE_SIZE * SUSPECT_SAMPLE_RATIO {
        let mut sample = [0u32; 256];
        let (begin, _) = hist::count(&mut sample, &src[..SUSPECT_SAMPLE_SIZE]);
        let (end, _) = hist::count(&mut sample, &src[src.len() - SUSPECT_SAMPLE_SIZE..]);
        if (begin + end) as usize <= ((2 * SUSPECT_SAMPLE_SIZE) >> 7) + 4 {
            return 0;
        }
    }
    let (largest, max_symbol) = hist::count(&mut ws.count, src);
    if largest as usize == src.len() {
        out.push(src[0]);
        return 1;
    }
    if largest as usize <= (src.len() >> 7) + 4 {
        return 0;
    }
    if *repeat == HufRepeat::Check && !table.validate(&ws.count, max_symbol) {
        *repeat = HufRepeat::None;
    }
    if flags.prefer_repeat && *repeat != HufRepeat::None {
        return compress_with_table(out, start, src, four_streams, table, &mut ws.stream);
    }

    let huff_log = optimal_table_log(ws, LIT_HUF_LOG, src.len(), max_symbol, flags.optimal_depth);
    let count = ws.count;
    let mut new_table = std::mem::take(&mut ws.scratch_ctable);
    new_table.build(&mut ws.nodes, &count, max_symbol, huff_log);
    let h_size = new_table.write(out);
    let result = match h_size {
        None => {
            // HUF_writeCTable fails (> 128 symbols, weights not compressible): give up.
            out.truncate(start);
            0
        }
        Some(h_size) => {
            if *repeat != HufRepeat::None {
                let old_size = table.estimate_compressed_size(&count, max_symbol);
                let new_size = new_table.estimate_compressed_size(&count, max_symbol);
                if old_size <= h_size + new_size || h_size + 12 >= src.len() {
                    out.truncate(start);
                    ws.scratch_ctable = new_table;
                    return compress_with_table(
                        out,
                        start,
                        src,
                        four_streams,
                        table,
                        &mut ws.stream,
                    );
                }
            }
            if h_size + 12 >= src.len() {
                out.truncate(start);
                ws.scratch_ctable = new_table;
                return 0;
            }
            *repeat = HufRepeat::None;
            std::mem::swap(table, &mut new_table);
            compress_with_table(out, start, src, four_streams, table, &mut ws.stream)
        }
    };
    ws.scratch_ctable = new_table;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream one symbol at a time into one container, flushing after each: the
    /// plainest form of the bit layout [`compress_1x_unrolled`] must produce.
    fn compress_1x_plain(elts: &[u64; 256], src: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; src.len() * 2 + 16];
        let (mut acc, mut bits, mut pos) = (0u64, 0u32, 0usize);
        let mut push = |acc: &mut u64, bits: &mut u32, e: u64| {
            *acc = (*acc >> (e & 0xFF)) | (e & !0xFF);
            *bits += (e & 0xFF) as u32;
            let word = acc.checked_shr(64 - *bits).unwrap_or(0);
            out[pos..pos + 8].copy_from_slice(&word.to_le_bytes());
            pos += (*bits >> 3) as usize;
            *bits &= 7;
        };
        for &b in src.iter().rev() {
            push(&mut acc, &mut bits, elts[b as usize]);
        }
        push(&mut acc, &mut bits, 1 << 63 | 1);
        out.truncate(pos + (bits > 0) as usize);
        out
    }

    #[test]
    fn unrolled_streams_equal_the_plain_one_at_every_table_log() {
        let mut scratch = StreamScratch::default();
        let mut ws = HufWorkspace::default();
        for max_log in 5..=12u32 {
            // Skewed counts so that codes of every length up to the maximum occur.
            let max_symbol = 255.min((1 << max_log) / 2 + 3);
            let mut count = [0u32; 256];
            for (i, c) in count[..=max_symbol].iter_mut().enumerate() {
                *c = (1u32 << (i % 17)) / 3 + 1;
            }
            let mut t = HufCTable::default();
            let log = t.build(&mut ws.nodes, &count, max_symbol as u32, max_log);
            assert!(log <= max_log);
            let elts = t.elements();
            let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ max_log as u64;
            for len in (0..200).chain([1000, 4099]) {
                let src: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Mostly the longest codes, where the container fills the most.
                        let symbol = if seed.is_multiple_of(4) {
                            seed >> 56
                        } else {
                            (seed >> 40) % 17 * 15
                        };
                        (symbol as usize % (max_symbol + 1)) as u8
                    })
                    .collect();
                let mut out = Vec::new();
                let n = compress_1x_with(&elts, log, &mut out, &src, &mut scratch);
                assert_eq!(n, out.len());
                assert_eq!(
                    out,
                    compress_1x_plain(&elts, &src),
                    "log {log}, {len} symbols"
                );
            }
        }
    }

    #[test]
    fn built_codes_are_prefix_free_and_respect_max_height() {
        let mut count = [0u32; 256];
        for (i, c) in count.iter_mut().enumerate() {
            *c = ((i * 7919) % 1000) as u32 + if i < 3 { 50000 } else { 0 };
        }
        let mut ws = HufWorkspace::default();
        let mut t = HufCTable::default();
        let bits = t.build(&mut ws.nodes, &count, 255, 11);
        assert!(bits <= 11);
        let kraft: u64 = (0..256)
            .filter(|&s| t.nb_bits[s] > 0)
            .map(|s| 1u64 << (bits - t.nb_bits[s] as u32))
            .sum();
        assert_eq!(kraft, 1u64 << bits);
    }
}
