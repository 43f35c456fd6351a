//! Huffman literal decoding: tree descriptions (`HUF_readStats`), the single-symbol table
//! (`HUF_readDTableX1`), the double-symbol table (`HUF_readDTableX2`), and the 1- and
//! 4-stream decoders (`HUF_decompress1X1`, `HUF_decompress4X1`, `HUF_decompress4X2`).

use super::bits::{BitReader, Reload, SentinelBits};
use super::fse_table::{
    FseTable, Spread, TableError, WEIGHT_FSE_LOG, build_fse_table, read_ncount,
};
use super::{BLOCK_SIZE_MAX, LIT_BUFFER_SIZE};

/// Why a Huffman stream failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamError {
    /// The stream's structure is wrong (sizes, end mark).
    Malformed(&'static str),
    /// The symbols did not use exactly the stream's bits.
    NotConsumed,
}

/// Bits every lookup reads; shorter trees are rescaled (`HUF_DECODER_FAST_TABLELOG`).
const HUF_DECODER_FAST_TABLELOG: u32 = 11;
pub(crate) use crate::zstd::common::format::HUF_TABLELOG_MAX;
const HUF_TABLE_CELLS: usize = 1 << HUF_TABLELOG_MAX;
/// Most weights a description can hold: every byte value but the implied last one.
const MAX_WEIGHTS: usize = 255;

/// A Huffman decoding table: the single-symbol cells, and the double-symbol cells derived
/// from them when a section is worth it.
///
/// Single-symbol cell `bits >> (64 - log)` holds `(symbol << 8) | nbBits` (HUF_DEltX1).
/// Double-symbol cell holds the bytes `[symbol, second symbol, nbBits, length]`: the `log`
/// bits name a first symbol and, when the rest of them hold a whole second code, that
/// symbol too (HUF_DEltX2's `sequence`, `nbBits`, `length`; `length` is 1 or 2, `nbBits`
/// covers every symbol decoded). Each field is read on its own, so the decode step needs
/// no shifts to take the cell apart.
#[derive(Clone, Debug)]
pub(crate) struct HufTable {
    cells: [u16; HUF_TABLE_CELLS],
    pairs: [[u8; 4]; HUF_TABLE_CELLS],
    log: u32,
    /// `pairs` matches `cells` (built for the current tree).
    pairs_ready: bool,
    /// Working memory of the weight table's builds.
    spread: Spread,
}

impl Default for HufTable {
    fn default() -> Self {
        HufTable {
            cells: [0; HUF_TABLE_CELLS],
            pairs: [[0; 4]; HUF_TABLE_CELLS],
            log: 1,
            pairs_ready: false,
            spread: Spread::default(),
        }
    }
}

/// Whether a 4-stream section of `literals` symbols in `compressed` bytes decodes faster
/// with double-symbol cells. Building them costs about 12 k instructions (2,048 cells); on
/// the payloads and real-block sets of `zstd_prof` they win from 2,300 literals at a 0.60
/// ratio to 40,000 at 0.77 (1-4 % of the whole decode), so only literals that barely
/// compress (over 7/8, where a lookup seldom holds two codes) keep single-symbol cells,
/// and so do sections below [`PAIRS_MIN_LITERALS`], where they never won (the literals of
/// small frames: 2 KiB text frames decode in 12 % fewer instructions without them).
///
/// Plays the part of HUF_selectDecoder, with a threshold measured on our own decoder.
pub(crate) fn pairs_pay_off(literals: usize, compressed: usize) -> bool {
    literals >= PAIRS_MIN_LITERALS && compressed * 8 < literals * 7
}

/// Fewest literals for which double-symbol cells can pay for their building.
const PAIRS_MIN_LITERALS: usize = 2300;

/// Decode FSE-compressed Huffman weights into `out`; returns how many were decoded.
///
/// Mirrors FSE_decompress_wksp (with maxLog 6, two interleaved states).
fn decode_fse_weights(
    src: &[u8],
    out: &mut [u8; 256],
    sp: &mut Spread,
) -> Result<usize, TableError> {
    let mut norm = [0i16; 256];
    let (max_sv, log, used) = read_ncount(&mut norm, 255, src)?;
    if log > WEIGHT_FSE_LOG {
        return Err("weight table log above 6");
    }
    let table: FseTable = build_fse_table(&norm[..=max_sv], log, sp);
    let stream = src.get(used..).unwrap_or(&[]);
    let mut r = BitReader::new(stream).ok_or("weight bitstream has no end mark")?;
    let mask = (1usize << WEIGHT_FSE_LOG) - 1;
    let mut s1 = r.read(log) as usize & mask;
    r.reload();
    let mut s2 = r.read(log) as usize & mask;
    r.reload();
    let mut n = 0usize;
    let step = |r: &mut BitReader<'_>, s: &mut usize| -> u8 {
        let row = table.rows[*s & mask];
        *s = (row.next as usize + r.read(row.nb as u32) as usize) & mask;
        row.symbol
    };
    // Four symbols per refill while the container holds a whole word (at most 24 bits),
    // then the careful loop, which finds the end; the same symbols either way.
    while n + 4 <= MAX_WEIGHTS - 2 && r.reload_inline() == Reload::Unfinished {
        out[n] = step(&mut r, &mut s1);
        out[n + 1] = step(&mut r, &mut s2);
        out[n + 2] = step(&mut r, &mut s1);
        out[n + 3] = step(&mut r, &mut s2);
        n += 4;
    }
    loop {
        if n > MAX_WEIGHTS - 2 {
            return Err("more than 255 weights");
        }
        out[n] = step(&mut r, &mut s1);
        n += 1;
        if r.reload_inline() == Reload::Overflow {
            out[n] = table.rows[s2 & mask].symbol;
            n += 1;
            break;
        }
        if n > MAX_WEIGHTS - 2 {
            return Err("more than 255 weights");
        }
        out[n] = step(&mut r, &mut s2);
        n += 1;
        if r.reload_inline() == Reload::Overflow {
            out[n] = table.rows[s1 & mask].symbol;
            n += 1;
            break;
        }
    }
    Ok(n)
}

/// The weights of a Huffman tree description (`HUF_readStats`).
pub(crate) struct Weights {
    /// One weight per symbol, the implied last one included; 0 for absent symbols.
    pub(crate) weights: [u8; 256],
    /// Number of symbols (`nbSymbols`, the last one's value plus one).
    pub(crate) symbols: usize,
    /// The tree's depth (`tableLog`).
    pub(crate) log: u32,
    /// Symbols of each weight, the last one included (`rankVal`; `rank[0]` counts the
    /// absent symbols below the last one).
    pub(crate) rank: [u32; HUF_TABLELOG_MAX as usize + 1],
    /// Bytes of the description.
    pub(crate) used: usize,
}

/// Read a Huffman tree description from the start of `src`: direct 4-bit weights or
/// FSE-compressed ones, then the implied last weight, refusing any set that does not form
/// a complete tree of at most 12 bits.
///
/// Mirrors HUF_readStats.
pub(crate) fn read_weights(src: &[u8], sp: &mut Spread) -> Result<Weights, TableError> {
    let &head = src.first().ok_or("empty tree description")?;
    let mut weights = [0u8; 256];
    let (count, used) = if head >= 128 {
        let n = head as usize - 127;
        let bytes = n.div_ceil(2);
        let packed = src
            .get(1..1 + bytes)
            .ok_or("direct weights run past the end")?;
        for i in 0..n {
            let b = packed[i / 2];
            weights[i] = if i % 2 == 0 { b >> 4 } else { b & 15 };
        }
        (n, bytes + 1)
    } else {
        let size = head as usize;
        let body = src
            .get(1..1 + size)
            .ok_or("compressed weights run past the end")?;
        (decode_fse_weights(body, &mut weights, sp)?, size + 1)
    };
    // Rank statistics and the implied last weight.
    let (mut rank, total) = rank_weights(&weights[..count])?;
    if total == 0 {
        return Err("all weights are zero");
    }
    let log = 32 - total.leading_zeros();
    if log > HUF_TABLELOG_MAX {
        return Err("tree deeper than 12 bits");
    }
    let rest = (1u32 << log) - total;
    if !rest.is_power_of_two() {
        return Err("weights do not complete a tree");
    }
    let last = rest.trailing_zeros() + 1;
    weights[count] = last as u8;
    rank[last as usize] += 1;
    if rank[1] < 2 || rank[1] & 1 != 0 {
        return Err("weights do not form a valid tree");
    }
    Ok(Weights {
        weights,
        symbols: count + 1,
        log,
        rank,
        used,
    })
}

/// How many symbols have each weight, and the sum of their `2^(w-1)`; refuses a weight
/// above 12. Four sets of counters, so that runs of one weight do not wait on one
/// counter's store and reload (each weight byte is masked to the counters' 16 slots; the
/// slots above 12 and an OR of every byte find the weights to refuse).
fn rank_weights(weights: &[u8]) -> Result<([u32; HUF_TABLELOG_MAX as usize + 1], u32), TableError> {
    let mut ranks = [[0u32; 16]; 4];
    let mut total = 0u32;
    let mut highest = 0u8;
    let (quads, rest) = weights.as_chunks::<4>();
    for q in quads {
        for (r, &w) in ranks.iter_mut().zip(q) {
            r[w as usize & 15] += 1;
            total += (1u32 << (w & 15)) >> 1;
        }
        highest |= q[0] | q[1] | q[2] | q[3];
    }
    for &w in rest {
        ranks[0][w as usize & 15] += 1;
        total += (1u32 << (w & 15)) >> 1;
        highest |= w;
    }
    let above_12 = (HUF_TABLELOG_MAX as usize + 1..16).any(|w| ranks.iter().any(|r| r[w] != 0));
    if highest >= 16 || above_12 {
        return Err("weight above 12");
    }
    let mut rank = [0u32; HUF_TABLELOG_MAX as usize + 1];
    for (w, slot) in rank.iter_mut().enumerate() {
        *slot = ranks[0][w] + ranks[1][w] + ranks[2][w] + ranks[3][w];
    }
    Ok((rank, total))
}

impl HufTable {
    /// Read a Huffman tree description from the start of `src` and build the table; returns
    /// the bytes read.
    ///
    /// Mirrors HUF_readStats + HUF_readDTableX1_wksp.
    pub(crate) fn read(&mut self, src: &[u8]) -> Result<usize, TableError> {
        let Weights {
            weights,
            symbols,
            log,
            used,
            rank,
            ..
        } = read_weights(src, &mut self.spread)?;
        // Lookups always read HUF_DECODER_FAST_TABLELOG bits (more for a 12-bit tree): a
        // shorter tree is rescaled, each code filling 2^(lookup - nbBits) cells.
        let lookup = log.max(HUF_DECODER_FAST_TABLELOG);
        let scale = lookup - log;
        // The symbols grouped by weight, in symbol order within a group (a counting sort):
        // the cells are laid out lowest weight first, symbols in order, so walking the
        // groups fills them front to back with one length per group, as
        // HUF_readDTableX1_wksp does, instead of a length changing from symbol to symbol.
        // Absent symbols (weight 0) are sorted too, after every group, where no cell reads
        // them: a test of the weight mispredicted about once per two symbols.
        let mut group_start = [0usize; 16];
        for w in 1..=log as usize {
            group_start[w + 1] = group_start[w] + rank[w] as usize;
        }
        let mut by_weight = [0u8; 256];
        let mut fill_at = group_start;
        fill_at[0] = group_start[log as usize + 1];
        for (s, &w) in weights[..symbols].iter().enumerate() {
            // Weights are at most `log` (12): `& 15` only spares the bounds check.
            let at = &mut fill_at[w as usize & 15];
            by_weight[*at & 255] = s as u8;
            *at += 1;
        }
        let mut first = 0usize;
        for w in 1..=log as usize {
            let len = 1usize << (w - 1 + scale as usize);
            let nb_bits = (log + 1 - w as u32) as u16;
            let group = &by_weight[group_start[w]..group_start[w + 1]];
            let end = (first + len * group.len()).min(HUF_TABLE_CELLS);
            for (dst, &s) in self.cells[first..end].chunks_exact_mut(len).zip(group) {
                dst.fill(((s as u16) << 8) | nb_bits);
            }
            first = end;
        }
        self.log = lookup;
        self.pairs_ready = false;
        Ok(used)
    }

    /// Derive the double-symbol cells from the single-symbol ones (once per tree): a cell's
    /// bits after the first code, looked up again, give the second symbol when its code fits
    /// in what is left.
    ///
    /// Mirrors HUF_readDTableX2_wksp (HUF_fillDTableX2), built from the X1 table instead of
    /// from the weights.
    #[inline(always)]
    pub(crate) fn prepare_pairs(&mut self) {
        if self.pairs_ready {
            return;
        }
        if self.log == HUF_DECODER_FAST_TABLELOG {
            fill_pairs::<HUF_DECODER_FAST_TABLELOG>(&self.cells, &mut self.pairs);
        } else {
            fill_pairs::<HUF_TABLELOG_MAX>(&self.cells, &mut self.pairs);
        }
        self.pairs_ready = true;
    }

    /// Whether the double-symbol cells are built for the current tree.
    pub(crate) fn pairs_ready(&self) -> bool {
        self.pairs_ready
    }

    /// Decode exactly `out.len()` symbols from one stream, reloading as needed; the caller
    /// checks that the stream ends exactly.
    ///
    /// Mirrors HUF_decodeStreamX1.
    #[inline(always)]
    fn decode_stream(&self, r: &mut BitReader<'_>, out: &mut [u8]) {
        if self.log == HUF_DECODER_FAST_TABLELOG {
            decode_stream::<HUF_DECODER_FAST_TABLELOG>(&self.cells, r, out)
        } else {
            decode_stream::<HUF_TABLELOG_MAX>(&self.cells, r, out)
        }
    }

    /// Decode a 1-stream Huffman literal section into `out`.
    ///
    /// Mirrors HUF_decompress1X1_usingDTable_internal.
    #[inline(always)]
    pub(crate) fn decode_1x(&self, src: &[u8], out: &mut [u8]) -> Result<(), StreamError> {
        let mut r =
            BitReader::new(src).ok_or(StreamError::Malformed("Huffman stream has no end mark"))?;
        self.decode_stream(&mut r, out);
        if !r.finished() {
            return Err(StreamError::NotConsumed);
        }
        Ok(())
    }

    /// Decode a 4-stream Huffman literal section (6-byte jump table, then the streams) into
    /// `out`, the four streams interleaved.
    ///
    /// Mirrors HUF_decompress4X1_usingDTable_internal_body.
    #[inline(always)]
    pub(crate) fn decode_4x(&self, src: &[u8], out: &mut [u8]) -> Result<(), StreamError> {
        if out.len() < 6 {
            return Err(StreamError::Malformed("4-stream Huffman section too short"));
        }
        let mut rs = split_streams(src)?;
        if self.log == HUF_DECODER_FAST_TABLELOG {
            decode_4_streams::<HUF_DECODER_FAST_TABLELOG, 5>(&self.cells, &mut rs, out);
        } else {
            decode_4_streams::<HUF_TABLELOG_MAX, 4>(&self.cells, &mut rs, out);
        }
        if rs.finished() {
            Ok(())
        } else {
            Err(StreamError::NotConsumed)
        }
    }

    /// [`HufTable::decode_4x`] with the double-symbol cells (built by
    /// [`HufTable::prepare_pairs`]), into the first `n` bytes of `lit`.
    ///
    /// Mirrors HUF_decompress4X2_usingDTable_internal_body.
    #[inline(always)]
    pub(crate) fn decode_4x_pairs(
        &self,
        src: &[u8],
        lit: &mut [u8; LIT_BUFFER_SIZE],
        n: usize,
    ) -> Result<(), StreamError> {
        debug_assert!(self.pairs_ready);
        if !(6..=BLOCK_SIZE_MAX).contains(&n) {
            return Err(StreamError::Malformed("4-stream Huffman section too short"));
        }
        let mut rs = split_streams(src)?;
        if self.log == HUF_DECODER_FAST_TABLELOG {
            decode_4_streams_pairs::<HUF_DECODER_FAST_TABLELOG, 5>(self, &mut rs, lit, n);
        } else {
            decode_4_streams_pairs::<HUF_TABLELOG_MAX, 4>(self, &mut rs, lit, n);
        }
        if rs.finished() {
            Ok(())
        } else {
            Err(StreamError::NotConsumed)
        }
    }
}

/// The four streams of a 4-stream section, each with a reader of its own bytes, and where
/// each starts within the streams' part of the section (`body`).
struct Streams<'a> {
    readers: [BitReader<'a>; 4],
    slices: [&'a [u8]; 4],
    starts: [usize; 4],
    body: &'a [u8],
}

impl<'a> Streams<'a> {
    /// Whether the fast loops may take the streams: each has a whole word before its
    /// container, so its sentinel form is exact.
    fn fast(&self) -> bool {
        self.readers.iter().all(|r| r.has_words(1))
    }

    /// The streams as sentinel readers over the whole body, for the fast loops.
    fn sentinels(&self) -> [SentinelBits; 4] {
        std::array::from_fn(|k| self.readers[k].to_sentinel_in(self.starts[k]))
    }

    /// Take back the sentinel readers of the fast loops.
    fn resume(&mut self, st: [SentinelBits; 4]) {
        for (k, s) in st.into_iter().enumerate() {
            self.readers[k] = s.to_reader_of(self.slices[k], self.starts[k]);
        }
    }

    /// Whether every stream ended exactly where its bits do.
    fn finished(&self) -> bool {
        self.readers.iter().all(|r| r.finished())
    }
}

/// The four streams of a 4-stream section: a 6-byte jump table with the sizes of the first
/// three, then the streams.
///
/// Mirrors HUF_DecompressFastArgs_init's and the 4X bodies' stream split.
#[inline(always)]
fn split_streams(src: &[u8]) -> Result<Streams<'_>, StreamError> {
    if src.len() < 10 {
        return Err(StreamError::Malformed("4-stream Huffman section too short"));
    }
    let l1 = u16::from_le_bytes([src[0], src[1]]) as usize;
    let l2 = u16::from_le_bytes([src[2], src[3]]) as usize;
    let l3 = u16::from_le_bytes([src[4], src[5]]) as usize;
    let body = &src[6..];
    if l1 + l2 + l3 > body.len() {
        return Err(StreamError::Malformed(
            "Huffman jump table points past the section",
        ));
    }
    let (s1, rest) = body.split_at(l1);
    let (s2, rest) = rest.split_at(l2);
    let (s3, s4) = rest.split_at(l3);
    let no_mark = StreamError::Malformed("Huffman stream has no end mark");
    Ok(Streams {
        readers: [
            BitReader::new(s1).ok_or(no_mark)?,
            BitReader::new(s2).ok_or(no_mark)?,
            BitReader::new(s3).ok_or(no_mark)?,
            BitReader::new(s4).ok_or(no_mark)?,
        ],
        slices: [s1, s2, s3, s4],
        starts: [0, l1, l1 + l2, l1 + l2 + l3],
        body,
    })
}

/// Decode one or two symbols with a `LOG`-bit lookup from a sentinel container into `lit`
/// at `*at`, moving `*at` past them. Writes 2 bytes either way: the caller leaves room.
///
/// Mirrors the symbol step of HUF_decompress4X2_usingDTable_internal_fast_c_loop.
#[inline(always)]
fn decode_pair<const LOG: u32>(
    pairs: &[[u8; 4]; HUF_TABLE_CELLS],
    bits: &mut u64,
    lit: &mut [u8; LIT_BUFFER_SIZE],
    at: &mut usize,
) {
    let cell = &pairs[(*bits >> (64 - LOG)) as usize & (HUF_TABLE_CELLS - 1)];
    *bits <<= cell[2] & 0x3F;
    // Positions stay below BLOCK_SIZE_MAX, so the mask changes nothing and the 2-byte
    // store needs no bounds check.
    let p = *at & (BLOCK_SIZE_MAX - 1);
    lit[p..p + 2].copy_from_slice(&cell[..2]);
    *at += cell[3] as usize;
}

/// Decode one symbol with a `LOG`-bit lookup from a sentinel container.
///
/// Mirrors the symbol step of HUF_decompress4X1_usingDTable_internal_fast_c_loop.
#[inline(always)]
fn decode_sentinel<const LOG: u32>(cells: &[u16; HUF_TABLE_CELLS], bits: &mut u64) -> u8 {
    let cell = cells[(*bits >> (64 - LOG)) as usize & (HUF_TABLE_CELLS - 1)];
    *bits <<= cell & 0x3F;
    (cell >> 8) as u8
}

/// Fill the first `2^LOG` double-symbol cells from the single-symbol ones.
#[inline(always)]
fn fill_pairs<const LOG: u32>(
    cells: &[u16; HUF_TABLE_CELLS],
    pairs: &mut [[u8; 4]; HUF_TABLE_CELLS],
) {
    let mask = (1usize << LOG) - 1;
    for (c, pair) in pairs[..=mask].iter_mut().enumerate() {
        let [n1, s1] = cells[c].to_le_bytes();
        let [n2, s2] = cells[(c << n1) & mask].to_le_bytes();
        *pair = if (n1 + n2) as u32 <= LOG {
            [s1, s2, n1 + n2, 2]
        } else {
            [s1, 0, n1, 1]
        };
    }
}

/// Decode one symbol with a `LOG`-bit lookup.
///
/// Mirrors HUF_decodeSymbolX1.
#[inline(always)]
fn decode_symbol<const LOG: u32>(cells: &[u16; HUF_TABLE_CELLS], r: &mut BitReader<'_>) -> u8 {
    let cell = cells[r.peek_fast(LOG) as usize & (HUF_TABLE_CELLS - 1)];
    r.skip((cell & 0xFF) as u32);
    (cell >> 8) as u8
}

/// Decode exactly `out.len()` symbols from one stream, 4 per reload.
///
/// Mirrors HUF_decodeStreamX1.
#[inline(always)]
fn decode_stream<const LOG: u32>(
    cells: &[u16; HUF_TABLE_CELLS],
    r: &mut BitReader<'_>,
    out: &mut [u8],
) {
    // A local copy, so that the reader stays in registers: through `r` (an element of
    // the caller's array) every symbol stored and reloaded its bit count.
    let mut rr = *r;
    let mut chunks = out.chunks_exact_mut(4);
    for c in &mut chunks {
        rr.reload_inline();
        c[0] = decode_symbol::<LOG>(cells, &mut rr);
        c[1] = decode_symbol::<LOG>(cells, &mut rr);
        c[2] = decode_symbol::<LOG>(cells, &mut rr);
        c[3] = decode_symbol::<LOG>(cells, &mut rr);
    }
    rr.reload_inline();
    for b in chunks.into_remainder() {
        *b = decode_symbol::<LOG>(cells, &mut rr);
    }
    *r = rr;
}

/// Decode the four streams into the four quarters of `out`: interleaved rounds of `ROUND`
/// symbols per stream (5 with 11-bit lookups, 4 with 12-bit ones: at most 55 or 48 bits of
/// the 57 a reload guarantees) while every stream has input (read within the whole
/// section), then each stream's tail one symbol at a time.
///
/// Mirrors HUF_decompress4X1_usingDTable_internal_body.
#[inline(always)]
fn decode_4_streams<const LOG: u32, const ROUND: usize>(
    cells: &[u16; HUF_TABLE_CELLS],
    rs: &mut Streams<'_>,
    out: &mut [u8],
) {
    let n = out.len();
    let seg = n.div_ceil(4);
    let (o1, rest) = out.split_at_mut(seg);
    let (o2, rest) = rest.split_at_mut(seg);
    let (o3, o4) = rest.split_at_mut(seg);
    let mut outs = [o1, o2, o3, o4];
    let mut from = 0;
    if rs.fast() {
        // Sentinel containers: the unread bits sit at the top, and a 1 bit below them
        // marks how many were consumed since the last load (its trailing zeros). Their
        // positions are within the whole body, so that only the first stream's start
        // bounds the loop.
        let body = rs.body;
        // The four readers as locals reloading within the one section, so that the loop
        // keeps them, the table and the outputs in registers.
        let [mut s1, mut s2, mut s3, mut s4] = rs.sentinels();
        let [o1, o2, o3, o4] = &mut outs;
        // Rounds as fixed-size chunks of each quarter: constant indices, no bounds checks.
        let quads = o1
            .as_chunks_mut::<ROUND>()
            .0
            .iter_mut()
            .zip(o2.as_chunks_mut::<ROUND>().0)
            .zip(o3.as_chunks_mut::<ROUND>().0)
            .zip(o4.as_chunks_mut::<ROUND>().0);
        let mut done = 0usize;
        for (((c1, c2), c3), c4) in quads {
            if s1.ip < 8 || s2.ip < 8 || s3.ip < 8 || s4.ip < 8 {
                break;
            }
            for s in [&mut s1, &mut s2, &mut s3, &mut s4] {
                s.reload(body);
            }
            for k in 0..ROUND {
                c1[k] = decode_sentinel::<LOG>(cells, &mut s1.bits);
                c2[k] = decode_sentinel::<LOG>(cells, &mut s2.bits);
                c3[k] = decode_sentinel::<LOG>(cells, &mut s3.bits);
                c4[k] = decode_sentinel::<LOG>(cells, &mut s4.bits);
            }
            done += 1;
        }
        // Every stream decodes the same number of symbols per round, so when the first
        // stream runs out of input (the only one that can: the others read on into the
        // stream before them) the others are as near their ends: the tails finish them.
        from = done * ROUND;
        rs.resume([s1, s2, s3, s4]);
    }
    // Each stream's last symbols one at a time, so that it ends exactly where its bits do.
    for (r, o) in rs.readers.iter_mut().zip(outs) {
        decode_stream::<LOG>(cells, r, &mut o[from..]);
    }
}

/// Decode the four streams into the four quarters of `lit[..n]` with double-symbol cells:
/// as many rounds of `ROUND` lookups per stream as every stream has input for (read within
/// the whole section) and room for (2 bytes per lookup) without a check, then each stream
/// alone while it has both, then its tail one symbol at a time with the single-symbol
/// cells, so a stream ends exactly where its bits do.
///
/// Mirrors HUF_decompress4X2_usingDTable_internal_fast_c_loop and
/// HUF_decompress4X2_usingDTable_internal_body.
#[inline(always)]
fn decode_4_streams_pairs<const LOG: u32, const ROUND: usize>(
    table: &HufTable,
    rs: &mut Streams<'_>,
    lit: &mut [u8; LIT_BUFFER_SIZE],
    n: usize,
) {
    let seg = n.div_ceil(4);
    let ends = [seg, 2 * seg, 3 * seg, n];
    let mut at = [0, seg, 2 * seg, 3 * seg];
    let pairs = &table.pairs;
    if rs.fast() {
        // Positions within the whole body, so that only the first stream's start bounds
        // the input (see `decode_4_streams`).
        let body = rs.body;
        let mut st = rs.sentinels();
        {
            // Copies that only constant indices touch, so that they live in registers.
            let (mut st4, mut at4) = (st, at);
            pair_rounds::<4, LOG, ROUND>(&mut st4, &mut at4, &ends, pairs, lit, rs.body);
            (st, at) = (st4, at4);
        }
        // That stops for all four when one stream is near the end of its output (the
        // streams decode one or two symbols per lookup, each at its own pace; about 7 %
        // of a game block's lookups were left); the others go on, still interleaved.
        loop {
            let mut live = [0usize; 4];
            let mut m = 0;
            for k in 0..4 {
                if st[k].ip >= 8 && ends[k].saturating_sub(at[k]) >= 2 * ROUND {
                    live[m] = k;
                    m += 1;
                }
            }
            let [a, b, c, _] = live;
            macro_rules! on {
                ($m:literal, $idx:expr) => {
                    pair_rounds_on::<$m, LOG, ROUND>(
                        $idx, &mut st, &mut at, &ends, pairs, lit, body,
                    )
                };
            }
            match m {
                0 => break,
                1 => on!(1, [a]),
                2 => on!(2, [a, b]),
                _ => on!(3, [a, b, c]),
            }
        }
        rs.resume(st);
    }
    // Each stream's last symbols one at a time with the single-symbol cells, so that it
    // ends exactly where its bits do.
    for ((r, &from), &to) in rs.readers.iter_mut().zip(&at).zip(&ends) {
        if let Some(out) = lit.get_mut(from..to) {
            decode_stream::<LOG>(&table.cells, r, out);
        }
    }
}

/// Interleaved rounds of `ROUND` double-symbol lookups on `N` streams, as many as every
/// one of them has input for and room for (2 bytes per lookup) without a check.
///
/// Mirrors HUF_decompress4X2_usingDTable_internal_fast_c_loop.
#[inline(always)]
fn pair_rounds<const N: usize, const LOG: u32, const ROUND: usize>(
    st: &mut [SentinelBits; N],
    at: &mut [usize; N],
    ends: &[usize; N],
    pairs: &[[u8; 4]; HUF_TABLE_CELLS],
    lit: &mut [u8; LIT_BUFFER_SIZE],
    body: &[u8],
) {
    loop {
        // A round reads at most 7 bytes back per stream and writes at most 2 * ROUND bytes.
        let mut rounds = usize::MAX;
        for k in 0..N {
            let by_input = if st[k].ip >= 8 {
                (st[k].ip - 8) / 7 + 1
            } else {
                0
            };
            let by_output = ends[k].saturating_sub(at[k]) / (2 * ROUND);
            rounds = rounds.min(by_input).min(by_output);
        }
        if rounds == 0 {
            break;
        }
        for _ in 0..rounds {
            // The readers reload within the one section (see `decode_4_streams`).
            for s in st.iter_mut() {
                s.reload(body);
            }
            for _ in 0..ROUND {
                for k in 0..N {
                    decode_pair::<LOG>(pairs, &mut st[k].bits, lit, &mut at[k]);
                }
            }
        }
        debug_assert!(at.iter().zip(ends).all(|(a, e)| a <= e));
    }
}

/// [`pair_rounds`] on the `M` streams `idx` of four.
#[inline(always)]
fn pair_rounds_on<const M: usize, const LOG: u32, const ROUND: usize>(
    idx: [usize; M],
    st: &mut [SentinelBits; 4],
    at: &mut [usize; 4],
    ends: &[usize; 4],
    pairs: &[[u8; 4]; HUF_TABLE_CELLS],
    lit: &mut [u8; LIT_BUFFER_SIZE],
    body: &[u8],
) {
    let mut s = idx.map(|k| st[k]);
    let mut a = idx.map(|k| at[k]);
    let e = idx.map(|k| ends[k]);
    pair_rounds::<M, LOG, ROUND>(&mut s, &mut a, &e, pairs, lit, body);
    for (j, &k) in idx.iter().enumerate() {
        st[k] = s[j];
        at[k] = a[j];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zstd::compress::huf as enc;

    /// A 4-stream section (tree description, jump table, streams) for `src`, written by our
    /// encoder; `None` when it stores the literals raw or as one byte.
    fn section(src: &[u8]) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut ws = enc::HufWorkspace::default();
        let mut table = enc::HufCTable::default();
        let mut repeat = enc::HufRepeat::None;
        let flags = enc::HufFlags::default();
        let size = enc::compress(&mut out, src, true, &mut ws, &mut table, &mut repeat, flags);
        (size > 1).then_some(out)
    }

    /// Decode `body` (description + streams) of `n` literals with single- and with
    /// double-symbol cells; both results.
    fn both_ways(body: &[u8], n: usize) -> Option<[Result<Vec<u8>, StreamError>; 2]> {
        let mut t = HufTable::default();
        let used = t.read(body).ok()?;
        let streams = body.get(used..)?;
        let mut single = vec![0u8; n];
        let one = t.decode_4x(streams, &mut single).map(|()| single);
        t.prepare_pairs();
        let mut lit = vec![0u8; LIT_BUFFER_SIZE];
        let lit: &mut [u8; LIT_BUFFER_SIZE] = lit.as_mut_slice().try_into().unwrap();
        let two = t
            .decode_4x_pairs(streams, lit, n)
            .map(|()| lit[..n].to_vec());
        Some([one, two])
    }

    /// Decode the four streams of `streams` (jump table and streams) stream after stream
    /// with plain readers of each stream's own bytes: no fast loop, nothing read outside a
    /// stream. What the fast loops must agree with.
    fn exact_4x(t: &HufTable, streams: &[u8], n: usize) -> Result<Vec<u8>, StreamError> {
        let mut rs = split_streams(streams)?;
        let mut out = vec![0u8; n];
        let seg = n.div_ceil(4);
        for (k, r) in rs.readers.iter_mut().enumerate() {
            let part = out
                .get_mut((k * seg).min(n)..((k + 1) * seg).min(n))
                .unwrap();
            t.decode_stream(r, part);
        }
        if rs.finished() {
            Ok(out)
        } else {
            Err(StreamError::NotConsumed)
        }
    }

    /// Deterministic bytes drawn from `alphabet` symbols, the first ones `skew` times likelier.
    fn sample(len: usize, alphabet: u32, skew: u32, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let r = (x >> 32) as u32;
                if !r.is_multiple_of(skew + 1) {
                    (r >> 8) as u8 % 4
                } else {
                    ((r >> 8) % alphabet) as u8
                }
            })
            .collect()
    }

    #[test]
    fn weight_ranks_equal_a_plain_count_and_refuse_weights_above_12() {
        let mut next = crate::zstd::test_rng(0x2545_F491_4F6C_DD1Du64);
        for len in 0..=255usize {
            let mut w: Vec<u8> = (0..len).map(|_| (next() % 13) as u8).collect();
            let mut rank = [0u32; HUF_TABLELOG_MAX as usize + 1];
            let mut total = 0u32;
            for &x in &w {
                rank[x as usize] += 1;
                total += (1u32 << x) >> 1;
            }
            assert_eq!(rank_weights(&w), Ok((rank, total)), "{len} weights");
            if len > 0 {
                // Any one weight above 12, wherever it sits, is refused.
                let at = (next() as usize) % len;
                for bad in [13u8, 15, 16, 17, 200, 255] {
                    let keep = w[at];
                    w[at] = bad;
                    assert_eq!(rank_weights(&w), Err("weight above 12"), "{bad} at {at}");
                    w[at] = keep;
                }
            }
        }
    }

    #[test]
    fn double_symbol_cells_decode_what_single_symbol_cells_do() {
        let mut checked = 0;
        for (i, &len) in [6usize, 7, 13, 40, 255, 1000, 4099, 20_000, 131_072]
            .iter()
            .enumerate()
        {
            for (alphabet, skew) in [(2, 0), (5, 0), (30, 3), (200, 0), (256, 1), (256, 12)] {
                let src = sample(len, alphabet, skew, 7 + i as u64);
                let Some(body) = section(&src) else { continue };
                let [one, two] = both_ways(&body, len).expect("our own description reads");
                assert_eq!(one.as_deref(), Ok(&src[..]), "single, {len} x {alphabet}");
                assert_eq!(two.as_deref(), Ok(&src[..]), "double, {len} x {alphabet}");
                checked += 1;
            }
        }
        assert!(checked >= 28, "only {checked} sections were Huffman-coded");
    }

    #[test]
    fn double_symbol_cells_refuse_what_single_symbol_cells_refuse() {
        // Damaged streams: each decoder must accept exactly the same inputs, with the same
        // bytes, so the choice between them never changes what a frame decodes to.
        let mut refused = 0;
        for (len, alphabet, skew) in [(3000usize, 40u32, 2u32), (700, 256, 3), (9000, 9, 0)] {
            let src = sample(len, alphabet, skew, len as u64);
            let body = section(&src).expect("compressible");
            let mut t = HufTable::default();
            let tree = t.read(&body).expect("reads");
            for k in 0..600usize {
                let mut bad = body.clone();
                let at = tree + (k * 7919) % (body.len() - tree);
                match k % 3 {
                    0 => bad[at] ^= 1 << (k % 8),
                    1 => bad.truncate(at.max(tree + 1)),
                    _ => bad[at] = bad[at].wrapping_add(k as u8 | 1),
                }
                for n in [len, len - 1, len + 1] {
                    let Some([one, two]) = both_ways(&bad, n) else {
                        continue;
                    };
                    assert_eq!(one, two, "{len} literals as {n}, change {k} at {at}");
                    // The fast loops read each stream within the whole section; they
                    // accept exactly what a reader confined to each stream accepts.
                    let mut t = HufTable::default();
                    let used = t.read(&bad).expect("reads");
                    let exact = exact_4x(&t, &bad[used..], n);
                    assert_eq!(
                        one.is_ok(),
                        exact.is_ok(),
                        "{len} literals as {n}, change {k} at {at}"
                    );
                    if let Ok(bytes) = &one {
                        assert_eq!(Ok(bytes), exact.as_ref());
                    }
                    refused += usize::from(one.is_err());
                }
            }
        }
        assert!(
            refused > 500,
            "only {refused} damaged sections were refused"
        );
    }
}
