//! FSE decoding tables: table descriptions (`FSE_readNCount`), the sequence tables with
//! 8-byte rows (`ZSTD_seqSymbol`, `ZSTD_buildFSETable`), the predefined tables, and the
//! small table that decodes Huffman weights (`FSE_buildDTable`).

use super::bits::ForwardBits;
use crate::zstd::common::format::FSE_MIN_TABLELOG;
use crate::zstd::common::seq_codes::{
    LL_BITS, LL_DEFAULT_NORM, LL_DEFAULT_NORM_LOG, LL_FSE_LOG, MAX_LL, MAX_ML, MAX_OFF, ML_BITS,
    ML_DEFAULT_NORM, ML_DEFAULT_NORM_LOG, ML_FSE_LOG, OF_DEFAULT_NORM, OF_DEFAULT_NORM_LOG,
    OFF_FSE_LOG,
};
use std::sync::LazyLock;

/// Largest table log a table description may declare (`FSE_TABLELOG_ABSOLUTE_MAX`).
const FSE_TABLELOG_ABSOLUTE_MAX: u32 = 15;
/// Rows of the largest sequence table (log 9).
pub(crate) const SEQ_TABLE_ROWS: usize = 512;

/// Base value of each code, from its extra-bit counts: code `c + 1` starts where code `c`'s
/// range ends (this reproduces `LL_base` and `ML_base`).
const fn bases<const N: usize>(first: u32, bits: &[u8; N]) -> [u32; N] {
    let mut out = [0u32; N];
    out[0] = first;
    let mut c = 1;
    while c < N {
        out[c] = out[c - 1] + (1 << bits[c - 1]);
        c += 1;
    }
    out
}

/// Literal-length base values (`LL_base`).
pub(crate) const LL_BASE: [u32; MAX_LL + 1] = bases(0, &LL_BITS);
/// Match-length base values (`ML_base`).
pub(crate) const ML_BASE: [u32; MAX_ML + 1] = bases(3, &ML_BITS);
/// Offset base values (`OF_base`): code 0 is 0, code 1 is 1, code `c >= 2` is `2^c - 3`.
pub(crate) const OF_BASE: [u32; MAX_OFF + 1] = {
    let mut out = [0u32; MAX_OFF + 1];
    out[1] = 1;
    let mut c = 2;
    while c <= MAX_OFF {
        out[c] = (1u32 << c) - 3;
        c += 1;
    }
    out
};
/// Offset extra bits (`OF_bits`): code `c` has `c` extra bits.
pub(crate) const OF_BITS: [u8; MAX_OFF + 1] = {
    let mut out = [0u8; MAX_OFF + 1];
    let mut c = 0;
    while c <= MAX_OFF {
        out[c] = c as u8;
        c += 1;
    }
    out
};

/// One decoding state of a sequence table: everything a state needs in one 8-byte load.
///
/// Mirrors ZSTD_seqSymbol: the symbol's base value (length or offset base, 4 bytes), the
/// base of the next state before the `nb` low bits are added (2 bytes), the extra bits of
/// the symbol's value and the bits read to move to the next state (a byte each),
/// little-endian in 8 bytes: a table build writes each row in one store (four field stores
/// held it to two cycles a row), and each accessor is one narrow load, as a field's was.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(align(8))]
pub(crate) struct SeqRow([u8; 8]);

impl SeqRow {
    pub(crate) const fn new(base: u32, next: u16, extra: u8, nb: u8) -> Self {
        let packed = base as u64 | (next as u64) << 32 | (extra as u64) << 48 | (nb as u64) << 56;
        SeqRow(packed.to_le_bytes())
    }

    /// This row with the next-state base and state bits set (they were 0).
    #[inline(always)]
    fn with_state(self, next: u16, nb: u8) -> Self {
        let packed = u64::from_le_bytes(self.0) | (next as u64) << 32 | (nb as u64) << 56;
        SeqRow(packed.to_le_bytes())
    }

    /// Base value of the symbol.
    #[inline(always)]
    pub(crate) fn base(&self) -> u32 {
        let [a, b, c, d, ..] = self.0;
        u32::from_le_bytes([a, b, c, d])
    }

    /// Base of the next state.
    #[inline(always)]
    pub(crate) fn next(&self) -> u16 {
        u16::from_le_bytes([self.0[4], self.0[5]])
    }

    /// Extra bits of the symbol's value.
    #[inline(always)]
    pub(crate) fn extra(&self) -> u8 {
        self.0[6]
    }

    /// Bits read to move to the next state.
    #[inline(always)]
    pub(crate) fn nb(&self) -> u8 {
        self.0[7]
    }
}

impl std::fmt::Debug for SeqRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeqRow")
            .field("base", &self.base())
            .field("next", &self.next())
            .field("extra", &self.extra())
            .field("nb", &self.nb())
            .finish()
    }
}

/// A sequence decoding table of up to 512 states, indexed by `state & 511`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeqTable {
    pub(crate) rows: [SeqRow; SEQ_TABLE_ROWS],
    pub(crate) log: u32,
}

impl Default for SeqTable {
    fn default() -> Self {
        SeqTable::EMPTY
    }
}

impl SeqTable {
    /// A table of zero rows and log 0 (what [`SeqTable::default`] gives).
    pub(crate) const EMPTY: SeqTable = SeqTable {
        rows: [SeqRow([0; 8]); SEQ_TABLE_ROWS],
        log: 0,
    };
}

impl SeqTable {
    /// Make this table a copy of `other` (only the rows its log uses).
    pub(crate) fn copy_from(&mut self, other: &SeqTable) {
        let n = 1usize << other.log;
        self.rows[..n].copy_from_slice(&other.rows[..n]);
        self.log = other.log;
    }

    /// The row of `state`; the mask keeps any state in the table, so no bounds check.
    #[inline(always)]
    pub(crate) fn row(&self, state: usize) -> &SeqRow {
        &self.rows[state & (SEQ_TABLE_ROWS - 1)]
    }
}

/// The literal-length, offset and match-length tables of a context, side by side, so the
/// sequence loop reaches all three from one address.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SeqTables {
    pub(crate) ll: SeqTable,
    pub(crate) of: SeqTable,
    pub(crate) ml: SeqTable,
}

/// The three kinds of sequence tables, with their format constants.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SeqKind {
    pub(crate) name: &'static str,
    pub(crate) max_symbol: usize,
    pub(crate) max_log: u32,
    /// Each symbol's base and extra bits already in their places of a row (the state
    /// fields 0), so that a table build looks a symbol up instead of assembling it.
    pub(crate) rows: &'static [SeqRow; SEQ_SYMBOLS],
    /// The kind's predefined table.
    pub(crate) predefined: &'static LazyLock<SeqTable>,
}

/// Symbols of the largest sequence alphabet (match lengths, 53), rounded up to a power of
/// two so that a masked symbol needs no bounds check.
pub(crate) const SEQ_SYMBOLS: usize = 64;

/// The rows of [`SeqKind::rows`] for a kind's base values and extra bits.
const fn symbol_rows<const N: usize>(base: &[u32; N], bits: &[u8; N]) -> [SeqRow; SEQ_SYMBOLS] {
    let mut out = [SeqRow::new(0, 0, 0, 0); SEQ_SYMBOLS];
    let mut s = 0;
    while s < N {
        out[s] = SeqRow::new(base[s], 0, bits[s], 0);
        s += 1;
    }
    out
}
const LL_ROWS: [SeqRow; SEQ_SYMBOLS] = symbol_rows(&LL_BASE, &LL_BITS);
const OF_ROWS: [SeqRow; SEQ_SYMBOLS] = symbol_rows(&OF_BASE, &OF_BITS);
const ML_ROWS: [SeqRow; SEQ_SYMBOLS] = symbol_rows(&ML_BASE, &ML_BITS);

pub(crate) const LL_KIND: SeqKind = SeqKind {
    name: "literal-length",
    max_symbol: MAX_LL,
    max_log: LL_FSE_LOG,
    rows: &LL_ROWS,
    predefined: &LL_PREDEFINED,
};
pub(crate) const OF_KIND: SeqKind = SeqKind {
    name: "offset",
    max_symbol: MAX_OFF,
    max_log: OFF_FSE_LOG,
    rows: &OF_ROWS,
    predefined: &OF_PREDEFINED,
};
pub(crate) const ML_KIND: SeqKind = SeqKind {
    name: "match-length",
    max_symbol: MAX_ML,
    max_log: ML_FSE_LOG,
    rows: &ML_ROWS,
    predefined: &ML_PREDEFINED,
};

/// Predefined literal-length table (`LL_defaultDTable`).
pub(crate) static LL_PREDEFINED: LazyLock<SeqTable> =
    LazyLock::new(|| predefined(&LL_DEFAULT_NORM, LL_DEFAULT_NORM_LOG, &LL_KIND));
/// Predefined offset table (`OF_defaultDTable`).
pub(crate) static OF_PREDEFINED: LazyLock<SeqTable> =
    LazyLock::new(|| predefined(&OF_DEFAULT_NORM, OF_DEFAULT_NORM_LOG, &OF_KIND));
/// Predefined match-length table (`ML_defaultDTable`).
pub(crate) static ML_PREDEFINED: LazyLock<SeqTable> =
    LazyLock::new(|| predefined(&ML_DEFAULT_NORM, ML_DEFAULT_NORM_LOG, &ML_KIND));

fn predefined(norm: &[i16], log: u32, kind: &SeqKind) -> SeqTable {
    let mut t = SeqTable::default();
    build_seq_table(&mut t, norm, log, kind, &mut Spread::default());
    t
}

/// Working memory of a table build, kept by the caller between builds: every cell a
/// build reads it has written first, so nothing is cleared per table (a small block's
/// three tables cleared some 2 KB each, more than their building took).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spread {
    /// Each table cell's symbol.
    cells: [u8; SEQ_TABLE_ROWS],
    /// The symbols laid down in order, each repeated by its count (8 bytes of slack).
    in_order: [u8; SEQ_TABLE_ROWS + 8],
    /// Each symbol's next-state counter.
    next: [u16; 256],
}

impl Default for Spread {
    fn default() -> Self {
        Spread::EMPTY
    }
}

impl Spread {
    /// All zero (what [`Spread::default`] gives).
    pub(crate) const EMPTY: Spread = Spread {
        cells: [0; SEQ_TABLE_ROWS],
        in_order: [0; SEQ_TABLE_ROWS + 8],
        next: [0; 256],
    };
}

/// Lay the symbols of a normalised distribution over a table of `1 << log` cells, in the
/// order FSE requires, and return each cell's symbol; low-probability (-1) symbols take the
/// last cells. `next` receives each symbol's first next-state counter.
///
/// Mirrors the spreading part of ZSTD_buildFSETable / FSE_buildDTable_internal.
fn spread(norm: &[i16], log: u32, sp: &mut Spread) {
    let Spread {
        cells,
        in_order,
        next,
    } = sp;
    let size = 1usize << log;
    let mask = size - 1;
    let mut high = size - 1;
    for (s, &n) in norm.iter().enumerate() {
        if n == -1 {
            cells[high & (SEQ_TABLE_ROWS - 1)] = s as u8;
            high = high.wrapping_sub(1);
            next[s] = 1;
        } else {
            next[s] = n.max(0) as u16;
        }
    }
    let step = (size >> 1) + (size >> 3) + 3;
    // As libzstd does, first lay the symbols down in order, 8 bytes at a time (most counts
    // are at most 8), then walk the table: no loop whose length depends on a count, so no
    // mispredicted exits. The counts of the others sum to the `high + 1` cells left.
    let mut at = 0usize;
    for (s, &n) in norm.iter().enumerate() {
        let n = n.max(0) as usize;
        let word = [s as u8; 8];
        let mut i = 0;
        loop {
            // Counts sum to at most `size`, so `at + i` stays within the table but for a
            // zero count after the last symbol (`at == size`), which writes the slack.
            let w = (at + i).min(SEQ_TABLE_ROWS);
            in_order[w..w + 8].copy_from_slice(&word);
            i += 8;
            if i >= n {
                break;
            }
        }
        at += n;
    }
    let mut pos = 0usize;
    if high == size - 1 {
        // No low-probability symbol: every position is free, the walk never skips; two
        // cells per step. `size` is even (the smallest table log is 5).
        for pair in in_order[..size].chunks_exact(2) {
            cells[pos & (SEQ_TABLE_ROWS - 1)] = pair[0];
            cells[(pos + step) & mask & (SEQ_TABLE_ROWS - 1)] = pair[1];
            pos = (pos + 2 * step) & mask;
        }
        return;
    }
    // The last cells hold the low-probability symbols: the walk skips them (`high` wraps
    // when every symbol is one, and no cell is left).
    for &sym in &in_order[..high.wrapping_add(1).min(SEQ_TABLE_ROWS)] {
        cells[pos & (SEQ_TABLE_ROWS - 1)] = sym;
        pos = (pos + step) & mask;
        while pos > high {
            pos = (pos + step) & mask;
        }
    }
}

/// The bits a state reads to reach its successor: `log - highbit(n)` for its symbol's
/// running counter `n` (in `count..2 * count`, so at most `log` bits), 0 at the least.
#[inline(always)]
fn state_bits(log: u32, n: u16) -> u32 {
    let high = 31 - (n as u32 | 1).leading_zeros();
    log.saturating_sub(high)
}

/// Build a sequence table from a validated distribution (sum `1 << log`, `log <= 9`).
///
/// Mirrors ZSTD_buildFSETable.
pub(crate) fn build_seq_table(
    t: &mut SeqTable,
    norm: &[i16],
    log: u32,
    kind: &SeqKind,
    sp: &mut Spread,
) {
    debug_assert!(norm.len() <= SEQ_SYMBOLS);
    spread(norm, log, sp);
    let size = 1usize << log;
    let next = &mut sp.next;
    for (row, &cell) in t.rows.iter_mut().zip(&sp.cells[..size]) {
        let s = cell as usize;
        let n = next[s];
        next[s] = n.wrapping_add(1);
        let nb = state_bits(log, n);
        let next = ((n as u32) << nb).wrapping_sub(size as u32) as u16;
        *row = kind.rows[s & (SEQ_SYMBOLS - 1)].with_state(next, nb as u8);
    }
    t.log = log;
}

/// Build a one-state table that always yields `symbol` and reads no state bits.
///
/// Mirrors ZSTD_buildSeqTable_rle.
pub(crate) fn build_rle_table(t: &mut SeqTable, symbol: usize, kind: &SeqKind) {
    t.rows[0] = kind.rows[symbol & (SEQ_SYMBOLS - 1)];
    t.log = 0;
}

/// Why a table description was refused.
pub(crate) type TableError = &'static str;

/// Read a normalised distribution from the start of `src` into `norm`, allowing symbols up
/// to `max_symbol`; returns `(highest symbol, table log, bytes read)`.
///
/// Mirrors FSE_readNCount.
pub(crate) fn read_ncount<const N: usize>(
    norm: &mut [i16; N],
    max_symbol: usize,
    src: &[u8],
) -> Result<(usize, u32, usize), TableError> {
    debug_assert!(max_symbol < N);
    norm.fill(0);
    let mut r = ForwardBits::new(src);
    let log = (r.peek32() & 0xF) + FSE_MIN_TABLELOG;
    if log > FSE_TABLELOG_ABSOLUTE_MAX {
        return Err("table log above 15");
    }
    r.skip(4);
    let mut remaining: i32 = (1 << log) + 1;
    let mut threshold: i32 = 1 << log;
    let mut nb_bits = log + 1;
    let mut symbol = 0usize;
    let mut previous0 = false;
    let limit = max_symbol + 1;
    loop {
        if previous0 {
            // Runs of zero-probability symbols: 2-bit repeat codes, 3 means "and more".
            loop {
                let code = (r.peek32() & 3) as usize;
                r.skip(2);
                symbol += code;
                if code != 3 {
                    break;
                }
                if symbol >= limit {
                    break;
                }
            }
            if symbol >= limit {
                break;
            }
        }
        let bits = r.peek32() as i32;
        let max = (2 * threshold - 1) - remaining;
        let mut count;
        if (bits & (threshold - 1)) < max {
            count = bits & (threshold - 1);
            r.skip(nb_bits - 1);
        } else {
            count = bits & (2 * threshold - 1);
            if count >= threshold {
                count -= max;
            }
            r.skip(nb_bits);
        }
        count -= 1;
        remaining -= count.abs();
        norm[symbol] = count as i16;
        symbol += 1;
        previous0 = count == 0;
        if remaining < threshold {
            if remaining <= 1 {
                break;
            }
            nb_bits = 32 - (remaining as u32).leading_zeros();
            threshold = 1 << (nb_bits - 1);
        }
        if symbol >= limit {
            break;
        }
    }
    if remaining != 1 {
        return Err("probabilities do not add up to the table size");
    }
    if symbol > limit {
        return Err("more symbols than the alphabet holds");
    }
    let used = r.bytes_used();
    if used > src.len() {
        return Err("description runs past the end of its section");
    }
    Ok((symbol - 1, log, used))
}

/// Read a sequence table description from `src` and build it; returns the bytes read.
///
/// Mirrors ZSTD_buildSeqTable (set_compressed).
pub(crate) fn read_seq_table(
    t: &mut SeqTable,
    kind: &SeqKind,
    src: &[u8],
    sp: &mut Spread,
) -> Result<usize, TableError> {
    let mut norm = [0i16; SEQ_SYMBOLS];
    let (max_sv, log, used) = read_ncount(&mut norm, kind.max_symbol, src)?;
    if log > kind.max_log {
        return Err("table log above the format's maximum");
    }
    build_seq_table(t, &norm[..=max_sv], log, kind, sp);
    Ok(used)
}

/// One state of the table that decodes Huffman weights.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct FseRow {
    pub(crate) symbol: u8,
    pub(crate) nb: u8,
    pub(crate) next: u16,
}

/// Largest table log of the Huffman-weight FSE table.
pub(crate) const WEIGHT_FSE_LOG: u32 = 6;

/// A small FSE table (log <= 6) for Huffman weights.
#[derive(Clone, Debug)]
pub(crate) struct FseTable {
    pub(crate) rows: [FseRow; 1 << WEIGHT_FSE_LOG],
}

/// Build the weight table from a validated distribution.
///
/// Mirrors FSE_buildDTable_internal.
pub(crate) fn build_fse_table(norm: &[i16], log: u32, sp: &mut Spread) -> FseTable {
    spread(norm, log, sp);
    let (cells, next) = (&sp.cells, &mut sp.next);
    let mut t = FseTable {
        rows: [FseRow::default(); 1 << WEIGHT_FSE_LOG],
    };
    let size = 1usize << log;
    for (u, row) in t.rows.iter_mut().take(size).enumerate() {
        let s = cells[u] as usize;
        let n = next[s];
        next[s] = n.wrapping_add(1);
        let nb = state_bits(log, n);
        *row = FseRow {
            symbol: s as u8,
            nb: nb as u8,
            next: ((n as u32) << nb).wrapping_sub(size as u32) as u16,
        };
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_tables_match_the_format() {
        assert_eq!(
            &LL_BASE[..],
            &[
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 28, 32,
                40, 48, 64, 0x80, 0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000, 0x4000, 0x8000,
                0x10000
            ][..]
        );
        assert_eq!(
            &ML_BASE[..],
            &[
                3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
                25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99,
                0x83, 0x103, 0x203, 0x403, 0x803, 0x1003, 0x2003, 0x4003, 0x8003, 0x10003
            ][..]
        );
        assert_eq!(OF_BASE[..6], [0, 1, 1, 5, 0xD, 0x1D]);
        assert_eq!(OF_BASE[31], 0x7FFF_FFFD);
    }

    /// Rows of libzstd's `LL/OF/ML_defaultDTable` (RFC 8878 Appendix A), transcribed as
    /// (row, nextState, nbAddBits, nbBits, baseVal).
    #[test]
    fn predefined_tables_match_libzstd_default_tables() {
        let check = |t: &SeqTable, log: u32, rows: &[(usize, u16, u8, u8, u32)]| {
            assert_eq!(t.log, log);
            for &(i, next, extra, nb, base) in rows {
                assert_eq!(t.rows[i], SeqRow::new(base, next, extra, nb), "row {i}");
            }
        };
        check(
            &LL_PREDEFINED,
            6,
            &[
                (0, 0, 0, 4, 0),
                (1, 16, 0, 4, 0),
                (2, 32, 0, 5, 1),
                (3, 0, 0, 5, 3),
                (10, 0, 0, 6, 14),
                (11, 0, 1, 5, 16),
                (17, 32, 6, 5, 64),
                (21, 0, 12, 6, 4096),
                (22, 32, 0, 4, 0),
                (56, 32, 2, 5, 24),
                (57, 32, 2, 5, 28),
                (58, 32, 3, 5, 40),
                (59, 32, 4, 5, 48),
                (60, 0, 16, 6, 65536),
                (61, 0, 15, 6, 32768),
                (62, 0, 14, 6, 16384),
                (63, 0, 13, 6, 8192),
            ],
        );
        check(
            &OF_PREDEFINED,
            5,
            &[
                (0, 0, 0, 5, 0),
                (1, 0, 6, 4, 61),
                (2, 0, 9, 5, 509),
                (3, 0, 15, 5, 32765),
                (4, 0, 21, 5, 2097149),
                (5, 0, 3, 5, 5),
                (6, 0, 7, 4, 125),
                (7, 0, 12, 5, 4093),
                (8, 0, 18, 5, 262141),
                (9, 0, 23, 5, 8388605),
            ],
        );
        check(
            &ML_PREDEFINED,
            6,
            &[
                (0, 0, 0, 6, 3),
                (1, 0, 0, 4, 4),
                (2, 32, 0, 5, 5),
                (3, 0, 0, 5, 6),
                (15, 0, 1, 6, 37),
                (19, 0, 4, 6, 83),
                (56, 0, 0, 6, 32),
                (57, 0, 16, 6, 65539),
                (58, 0, 15, 6, 32771),
                (59, 0, 14, 6, 16387),
                (60, 0, 13, 6, 8195),
                (61, 0, 12, 6, 4099),
                (62, 0, 11, 6, 2051),
                (63, 0, 10, 6, 1027),
            ],
        );
    }

    #[test]
    fn ncount_round_trips_the_encoder() {
        let mut out = Vec::new();
        let norm: [i16; 36] = LL_DEFAULT_NORM;
        crate::zstd::compress::fse::write_ncount(&mut out, &norm, 35, 6);
        let mut back = [0i16; 256];
        let (max, log, used) = read_ncount(&mut back, 35, &out).unwrap();
        assert_eq!((max, log, used), (35, 6, out.len()));
        assert_eq!(&back[..36], &norm[..]);
        // Truncated descriptions are refused, never read past the end.
        assert!(read_ncount(&mut back, 35, &out[..out.len() - 1]).is_err());
        // A description over the symbol limit is refused.
        assert!(read_ncount(&mut back, 20, &out).is_err());
    }
}
