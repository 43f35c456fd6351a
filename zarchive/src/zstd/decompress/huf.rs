//! Huffman literal decoding: tree descriptions (`HUF_readStats`), the single-symbol table
//! (`HUF_readDTableX1`), and the 1- and 4-stream decoders (`HUF_decompress1X1`,
//! `HUF_decompress4X1`).

use super::bits::{BitReader, Reload, SentinelBits};
use super::fse_table::{FseTable, TableError, WEIGHT_FSE_LOG, build_fse_table, read_ncount};

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
/// Largest Huffman table log (`HUF_TABLELOG_MAX`).
pub(crate) const HUF_TABLELOG_MAX: u32 = 12;
const HUF_TABLE_CELLS: usize = 1 << HUF_TABLELOG_MAX;
/// Most weights a description can hold: every byte value but the implied last one.
const MAX_WEIGHTS: usize = 255;

/// A single-symbol decoding table: cell `bits >> (64 - log)` holds `(symbol << 8) | nbBits`.
///
/// Mirrors HUF_DEltX1 tables.
#[derive(Clone, Debug)]
pub(crate) struct HufTable {
    cells: [u16; HUF_TABLE_CELLS],
    log: u32,
}

impl Default for HufTable {
    fn default() -> Self {
        HufTable {
            cells: [0; HUF_TABLE_CELLS],
            log: 1,
        }
    }
}

/// Decode FSE-compressed Huffman weights into `out`; returns how many were decoded.
///
/// Mirrors FSE_decompress_wksp (with maxLog 6, two interleaved states).
fn decode_fse_weights(src: &[u8], out: &mut [u8; 256]) -> Result<usize, TableError> {
    let mut norm = [0i16; 256];
    let (max_sv, log, used) = read_ncount(&mut norm, 255, src)?;
    if log > WEIGHT_FSE_LOG {
        return Err("weight table log above 6");
    }
    let table: FseTable = build_fse_table(&norm[..=max_sv], log);
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
    loop {
        if n > MAX_WEIGHTS - 2 {
            return Err("more than 255 weights");
        }
        out[n] = step(&mut r, &mut s1);
        n += 1;
        if r.reload() == Reload::Overflow {
            out[n] = table.rows[s2 & mask].symbol;
            n += 1;
            break;
        }
        if n > MAX_WEIGHTS - 2 {
            return Err("more than 255 weights");
        }
        out[n] = step(&mut r, &mut s2);
        n += 1;
        if r.reload() == Reload::Overflow {
            out[n] = table.rows[s1 & mask].symbol;
            n += 1;
            break;
        }
    }
    Ok(n)
}

impl HufTable {
    /// Read a Huffman tree description from the start of `src` and build the table; returns
    /// the bytes read.
    ///
    /// Mirrors HUF_readStats + HUF_readDTableX1_wksp.
    pub(crate) fn read(&mut self, src: &[u8]) -> Result<usize, TableError> {
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
            (decode_fse_weights(body, &mut weights)?, size + 1)
        };
        // Rank statistics and the implied last weight.
        let mut rank = [0u32; HUF_TABLELOG_MAX as usize + 1];
        let mut total = 0u32;
        for &w in &weights[..count] {
            if w as u32 > HUF_TABLELOG_MAX {
                return Err("weight above 12");
            }
            rank[w as usize] += 1;
            total += (1u32 << w) >> 1;
        }
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
        let symbols = count + 1;
        // Lookups always read HUF_DECODER_FAST_TABLELOG bits (more for a 12-bit tree): a
        // shorter tree is rescaled, each code filling 2^(lookup - nbBits) cells.
        let lookup = log.max(HUF_DECODER_FAST_TABLELOG);
        let scale = lookup - log;
        // Each weight's first cell, lowest weights first.
        let mut start = [0u32; HUF_TABLELOG_MAX as usize + 2];
        let mut next = 0u32;
        for w in 1..=log as usize {
            start[w] = next;
            next += rank[w] << (w - 1 + scale as usize);
        }
        for (s, &w) in weights[..symbols].iter().enumerate() {
            if w == 0 {
                continue;
            }
            let w = w as usize;
            let len = 1usize << (w - 1 + scale as usize);
            let first = start[w] as usize;
            start[w] += len as u32;
            let cell = ((s as u16) << 8) | (log + 1 - w as u32) as u16;
            if let Some(dst) = self.cells.get_mut(first..first + len) {
                dst.fill(cell);
            }
        }
        self.log = lookup;
        Ok(used)
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
        if src.len() < 10 || out.len() < 6 {
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
        let mut rs = [
            BitReader::new(s1).ok_or(no_mark)?,
            BitReader::new(s2).ok_or(no_mark)?,
            BitReader::new(s3).ok_or(no_mark)?,
            BitReader::new(s4).ok_or(no_mark)?,
        ];
        if self.log == HUF_DECODER_FAST_TABLELOG {
            decode_4_streams::<HUF_DECODER_FAST_TABLELOG, 5>(&self.cells, &mut rs, out);
        } else {
            decode_4_streams::<HUF_TABLELOG_MAX, 4>(&self.cells, &mut rs, out);
        }
        if rs.iter().all(|r| r.finished()) {
            Ok(())
        } else {
            Err(StreamError::NotConsumed)
        }
    }
}

impl SentinelBits<'_> {
    /// Decode one symbol with a `LOG`-bit lookup.
    ///
    /// Mirrors the symbol step of HUF_decompress4X1_usingDTable_internal_fast_c_loop.
    #[inline(always)]
    fn decode<const LOG: u32>(&mut self, cells: &[u16; HUF_TABLE_CELLS]) -> u8 {
        let cell = cells[(self.bits >> (64 - LOG)) as usize & (HUF_TABLE_CELLS - 1)];
        self.bits <<= cell & 0x3F;
        (cell >> 8) as u8
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
    let mut chunks = out.chunks_exact_mut(4);
    for c in &mut chunks {
        r.reload();
        c[0] = decode_symbol::<LOG>(cells, r);
        c[1] = decode_symbol::<LOG>(cells, r);
        c[2] = decode_symbol::<LOG>(cells, r);
        c[3] = decode_symbol::<LOG>(cells, r);
    }
    r.reload();
    for b in chunks.into_remainder() {
        *b = decode_symbol::<LOG>(cells, r);
    }
}

/// Decode the four streams into the four quarters of `out`: interleaved rounds of `ROUND`
/// symbols per stream (5 with 11-bit lookups, 4 with 12-bit ones: at most 55 or 48 bits of
/// the 57 a reload guarantees), then each stream's tail.
///
/// Mirrors HUF_decompress4X1_usingDTable_internal_body.
#[inline(always)]
fn decode_4_streams<const LOG: u32, const ROUND: usize>(
    cells: &[u16; HUF_TABLE_CELLS],
    rs: &mut [BitReader<'_>; 4],
    out: &mut [u8],
) {
    {
        let n = out.len();
        let seg = n.div_ceil(4);
        let (o1, rest) = out.split_at_mut(seg);
        let (o2, rest) = rest.split_at_mut(seg);
        let (o3, o4) = rest.split_at_mut(seg);
        let mut done = 0usize;
        let quads = o1
            .chunks_exact_mut(ROUND)
            .zip(o2.chunks_exact_mut(ROUND))
            .zip(o3.chunks_exact_mut(ROUND))
            .zip(o4.chunks_exact_mut(ROUND));
        // Sentinel containers: the unread bits sit at the top, and a 1 bit below them marks
        // how many were consumed since the last load (its trailing zeros).
        let mut st = rs.map(|r| r.to_sentinel());
        for (((c1, c2), c3), c4) in quads {
            if st.iter().any(|s| s.ip < 8) {
                break;
            }
            for s in st.iter_mut() {
                s.reload();
            }
            let [s1, s2, s3, s4] = &mut st;
            for k in 0..ROUND {
                c1[k] = s1.decode::<LOG>(cells);
                c2[k] = s2.decode::<LOG>(cells);
                c3[k] = s3.decode::<LOG>(cells);
                c4[k] = s4.decode::<LOG>(cells);
            }
            done += 1;
        }
        // Streams under 8 bytes never enter the loop; their readers stay as they were.
        if done > 0 {
            for (r, s) in rs.iter_mut().zip(st) {
                *r = s.to_reader();
            }
        }
        let at = done * ROUND;
        let [r1, r2, r3, r4] = rs;
        decode_stream::<LOG>(cells, r1, &mut o1[at..]);
        decode_stream::<LOG>(cells, r2, &mut o2[at..]);
        decode_stream::<LOG>(cells, r3, &mut o3[at..]);
        decode_stream::<LOG>(cells, r4, &mut o4[at..]);
    }
}
