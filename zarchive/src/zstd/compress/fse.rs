//! Finite State Entropy: table-log choice, normalisation, the NCount header, the
//! compression table and the state encoder (`fse_compress.c`, `fse.h`).

use super::bits::{BitWriter, append_stream, highbit32};

pub(crate) use crate::zstd::common::format::FSE_MIN_TABLELOG;
/// Largest FSE table log the encoder ever builds (`FSE_MAX_TABLELOG`).
pub(crate) const FSE_MAX_TABLELOG: u32 = 12;
/// Largest table log of a sequence table (`MaxFSELog`); sizes the state table.
const MAX_CTABLE_LOG: u32 = 9;
/// Cells of the largest table: states and spread positions are below it, so indices masked
/// to it change nothing and need no bounds check.
const CELLS: usize = 1 << MAX_CTABLE_LOG;
/// Largest symbol of any table we build (`MaxSeq` = MaxML).
pub(crate) const MAX_SYMBOL: usize = 52;
/// Probability thresholds for rounding small normalised counts up (`rtbTable`).
const RTB_TABLE: [u64; 8] = [0, 473195, 504333, 520860, 550000, 700000, 750000, 830000];

/// Mirrors FSE_minTableLog.
fn min_table_log(src_size: usize, max_symbol: u32) -> u32 {
    let min_bits_src = highbit32(src_size as u32) + 1;
    let min_bits_symbols = highbit32(max_symbol.max(1)) + 2;
    // highbit32(0) is never asked: max_symbol == 0 only happens for 1-symbol inputs.
    let min_bits_symbols = if max_symbol == 0 { 2 } else { min_bits_symbols };
    min_bits_src.min(min_bits_symbols)
}

/// Mirrors FSE_optimalTableLog_internal; `minus` is 2 for FSE tables, 1 for Huffman.
pub(crate) fn optimal_table_log_internal(
    max_table_log: u32,
    src_size: usize,
    max_symbol: u32,
    minus: u32,
) -> u32 {
    let max_bits_src = highbit32((src_size - 1) as u32).wrapping_sub(minus);
    let mut table_log = max_table_log;
    let min_bits = min_table_log(src_size, max_symbol);
    if max_bits_src < table_log {
        table_log = max_bits_src;
    }
    if min_bits > table_log {
        table_log = min_bits;
    }
    table_log.clamp(FSE_MIN_TABLELOG, FSE_MAX_TABLELOG)
}

/// Mirrors FSE_optimalTableLog.
pub(crate) fn optimal_table_log(max_table_log: u32, src_size: usize, max_symbol: u32) -> u32 {
    optimal_table_log_internal(max_table_log, src_size, max_symbol, 2)
}

/// Mirrors FSE_normalizeCount: scales `count` (summing to `total`) to `1 << table_log`.
/// Low-probability symbols get -1 when `use_low_prob_count`, else 1.
pub(crate) fn normalize_count(
    norm: &mut [i16],
    table_log: u32,
    count: &[u32],
    total: usize,
    max_symbol: u32,
    use_low_prob_count: bool,
) {
    let low_prob_count: i16 = if use_low_prob_count { -1 } else { 1 };
    let scale = 62 - table_log as u64;
    let step = (1u64 << 62) / total as u64;
    let v_step = 1u64 << (scale - 20);
    let mut still_to_distribute: i32 = 1 << table_log;
    let mut largest = 0usize;
    let mut largest_p: i16 = 0;
    let low_threshold = (total >> table_log) as u32;

    for s in 0..=max_symbol as usize {
        let c = count[s];
        if c as usize == total {
            return; // RLE; callers never get here
        }
        if c == 0 {
            norm[s] = 0;
            continue;
        }
        if c <= low_threshold {
            norm[s] = low_prob_count;
            still_to_distribute -= 1;
        } else {
            let scaled = c as u64 * step;
            let mut proba = (scaled >> scale) as i16;
            if proba < 8 {
                let rest_to_beat = v_step * RTB_TABLE[proba as usize];
                proba += (scaled - ((proba as u64) << scale) > rest_to_beat) as i16;
            }
            if proba > largest_p {
                largest_p = proba;
                largest = s;
            }
            norm[s] = proba;
            still_to_distribute -= proba as i32;
        }
    }
    if -still_to_distribute >= (norm[largest] >> 1) as i32 {
        normalize_m2(norm, table_log, count, total, max_symbol, low_prob_count);
    } else {
        norm[largest] += still_to_distribute as i16;
    }
}

/// Mirrors FSE_normalizeM2, the fallback normalisation for flat distributions.
fn normalize_m2(
    norm: &mut [i16],
    table_log: u32,
    count: &[u32],
    total: usize,
    max_symbol: u32,
    low_prob_count: i16,
) {
    const NOT_YET_ASSIGNED: i16 = -2;
    let mut total = total as u64;
    let mut distributed: u32 = 0;
    let low_threshold = (total >> table_log) as u32;
    let mut low_one = ((total * 3) >> (table_log + 1)) as u32;
    let symbols = 0..=max_symbol as usize;

    for s in symbols.clone() {
        if count[s] == 0 {
            norm[s] = 0;
        } else if count[s] <= low_threshold {
            norm[s] = low_prob_count;
            distributed += 1;
            total -= count[s] as u64;
        } else if count[s] <= low_one {
            norm[s] = 1;
            distributed += 1;
            total -= count[s] as u64;
        } else {
            norm[s] = NOT_YET_ASSIGNED;
        }
    }
    let mut to_distribute = (1u32 << table_log) - distributed;
    if to_distribute == 0 {
        return;
    }
    if total / to_distribute as u64 > low_one as u64 {
        low_one = ((total * 3) / (to_distribute as u64 * 2)) as u32;
        for s in symbols.clone() {
            if norm[s] == NOT_YET_ASSIGNED && count[s] <= low_one {
                norm[s] = 1;
                distributed += 1;
                total -= count[s] as u64;
            }
        }
        to_distribute = (1u32 << table_log) - distributed;
    }
    if distributed == max_symbol + 1 {
        // All symbols are poor: the first largest count takes everything left.
        let mut max_v = 0;
        let mut max_c = 0;
        for s in symbols.clone() {
            if count[s] > max_c {
                max_v = s;
                max_c = count[s];
            }
        }
        norm[max_v] += to_distribute as i16;
        return;
    }
    if total == 0 {
        let mut s = 0usize;
        while to_distribute > 0 {
            if norm[s] > 0 {
                to_distribute -= 1;
                norm[s] += 1;
            }
            s = (s + 1) % (max_symbol as usize + 1);
        }
        return;
    }
    let v_step_log = 62 - table_log as u64;
    let mid = (1u64 << (v_step_log - 1)) - 1;
    let r_step = (((1u64 << v_step_log) * to_distribute as u64) + mid) / total;
    let mut tmp_total = mid;
    for s in symbols {
        if norm[s] == NOT_YET_ASSIGNED {
            let end = tmp_total + count[s] as u64 * r_step;
            let s_start = (tmp_total >> v_step_log) as u32;
            let s_end = (end >> v_step_log) as u32;
            norm[s] = (s_end - s_start) as i16;
            tmp_total = end;
        }
    }
}

/// Mirrors FSE_writeNCount: appends the table description header to `out`, returns its size.
pub(crate) fn write_ncount(
    out: &mut Vec<u8>,
    norm: &[i16],
    max_symbol: u32,
    table_log: u32,
) -> usize {
    let start = out.len();
    let table_size = 1i32 << table_log;
    let alphabet_size = max_symbol + 1;
    let mut bit_stream: u32 = table_log - FSE_MIN_TABLELOG;
    let mut bit_count: i32 = 4;
    let mut remaining = table_size + 1;
    let mut threshold = table_size;
    let mut nb_bits = table_log as i32 + 1;
    let mut symbol = 0u32;
    let mut previous_is0 = false;

    let flush16 = |out: &mut Vec<u8>, bs: &mut u32, bc: &mut i32| {
        out.push(*bs as u8);
        out.push((*bs >> 8) as u8);
        *bs >>= 16;
        *bc -= 16;
    };

    while symbol < alphabet_size && remaining > 1 {
        if previous_is0 {
            let mut run_start = symbol;
            while symbol < alphabet_size && norm[symbol as usize] == 0 {
                symbol += 1;
            }
            if symbol == alphabet_size {
                break;
            }
            while symbol >= run_start + 24 {
                run_start += 24;
                bit_stream = bit_stream.wrapping_add(0xFFFF << bit_count);
                out.push(bit_stream as u8);
                out.push((bit_stream >> 8) as u8);
                bit_stream >>= 16;
            }
            while symbol >= run_start + 3 {
                run_start += 3;
                bit_stream = bit_stream.wrapping_add(3 << bit_count);
                bit_count += 2;
            }
            bit_stream = bit_stream.wrapping_add((symbol - run_start) << bit_count);
            bit_count += 2;
            if bit_count > 16 {
                flush16(out, &mut bit_stream, &mut bit_count);
            }
        }
        let mut c = norm[symbol as usize] as i32;
        symbol += 1;
        let max = (2 * threshold - 1) - remaining;
        remaining -= c.abs();
        c += 1; // +1 for extra accuracy
        if c >= threshold {
            c += max;
        }
        bit_stream = bit_stream.wrapping_add((c as u32) << bit_count);
        bit_count += nb_bits;
        bit_count -= (c < max) as i32;
        previous_is0 = c == 1;
        while remaining < threshold {
            nb_bits -= 1;
            threshold >>= 1;
        }
        if bit_count > 16 {
            flush16(out, &mut bit_stream, &mut bit_count);
        }
    }
    debug_assert_eq!(remaining, 1);
    out.push(bit_stream as u8);
    out.push((bit_stream >> 8) as u8);
    let used = (bit_count + 7) / 8;
    out.truncate(out.len() - 2 + used as usize);
    out.len() - start
}

/// One symbol's encoding transform (`FSE_symbolCompressionTransform`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SymbolTransform {
    delta_find_state: i32,
    delta_nb_bits: u32,
}

/// An FSE compression table (`FSE_CTable`).
#[derive(Clone, Debug)]
pub(crate) struct FseCTable {
    table_log: u32,
    max_symbol: u32,
    state_table: [u16; CELLS],
    symbol_tt: [SymbolTransform; SYMBOL_SLOTS],
}

/// Slots for symbol transforms: every symbol a table encodes (at most [`MAX_SYMBOL`]) and
/// room up to a power of two, so that the encoder indexes them with a masked symbol and no
/// bounds check.
const SYMBOL_SLOTS: usize = (MAX_SYMBOL + 1).next_power_of_two();

impl Default for FseCTable {
    fn default() -> Self {
        FseCTable {
            table_log: 0,
            max_symbol: 0,
            state_table: [0; CELLS],
            symbol_tt: [SymbolTransform::default(); SYMBOL_SLOTS],
        }
    }
}

/// Mirrors FSE_TABLESTEP.
const fn table_step(table_size: u32) -> u32 {
    (table_size >> 1) + (table_size >> 3) + 3
}

impl FseCTable {
    /// Mirrors FSE_buildCTable_wksp.
    pub(crate) fn build(&mut self, norm: &[i16], max_symbol: u32, table_log: u32) {
        let table_size = 1u32 << table_log;
        let mask = table_size - 1;
        let step = table_step(table_size);
        let max_sv1 = max_symbol as usize + 1;
        // 256 entries, so that a symbol read back from `table_symbol` indexes it unchecked.
        let mut cumul = [0u32; 256];
        let mut table_symbol = [0u8; CELLS];
        let mut high_threshold = table_size - 1;
        self.table_log = table_log;
        self.max_symbol = max_symbol;

        for u in 1..=max_sv1 {
            if norm[u - 1] == -1 {
                cumul[u] = cumul[u - 1] + 1;
                table_symbol[high_threshold as usize] = (u - 1) as u8;
                high_threshold = high_threshold.wrapping_sub(1);
            } else {
                cumul[u] = cumul[u - 1] + norm[u - 1] as u32;
            }
        }
        cumul[max_sv1] = table_size + 1;

        // Spread symbols (the no-low-probability fast path lays them out identically).
        let mut position = 0u32;
        for (symbol, &freq) in norm[..max_sv1].iter().enumerate() {
            for _ in 0..freq.max(0) {
                table_symbol[position as usize & (CELLS - 1)] = symbol as u8;
                position = (position + step) & mask;
                while position > high_threshold {
                    position = (position + step) & mask;
                }
            }
        }

        for (u, &s) in (0..table_size).zip(&table_symbol) {
            let next = &mut cumul[s as usize];
            self.state_table[*next as usize & (CELLS - 1)] = (table_size + u) as u16;
            *next += 1;
        }

        let mut total: u32 = 0;
        for (tt, &n) in self.symbol_tt.iter_mut().zip(&norm[..max_sv1]) {
            match n {
                0 => tt.delta_nb_bits = ((table_log + 1) << 16).wrapping_sub(1 << table_log),
                -1 | 1 => {
                    tt.delta_nb_bits = (table_log << 16).wrapping_sub(1 << table_log);
                    tt.delta_find_state = total as i32 - 1;
                    total += 1;
                }
                n => {
                    let n = n as u32;
                    let max_bits_out = table_log - highbit32(n - 1);
                    let min_state_plus = n << max_bits_out;
                    tt.delta_nb_bits = (max_bits_out << 16).wrapping_sub(min_state_plus);
                    tt.delta_find_state = total as i32 - n as i32;
                    total += n;
                }
            }
        }
    }

    /// Mirrors FSE_buildCTable_rle: a table that encodes `symbol` in zero bits.
    pub(crate) fn build_rle(&mut self, symbol: u8) {
        self.table_log = 0;
        self.max_symbol = symbol as u32;
        self.state_table[0] = 0;
        self.state_table[1] = 0;
        self.symbol_tt[symbol as usize] = SymbolTransform {
            delta_find_state: 0,
            delta_nb_bits: 0,
        };
    }

    pub(crate) fn table_log(&self) -> u32 {
        self.table_log
    }

    pub(crate) fn max_symbol(&self) -> u32 {
        self.max_symbol
    }

    /// Mirrors FSE_initCState2: the smallest state that encodes `symbol`.
    #[inline]
    pub(crate) fn init_state(&self, symbol: u8) -> u32 {
        let tt = self.symbol_tt[symbol as usize];
        let nb_bits_out = (tt.delta_nb_bits.wrapping_add(1 << 15)) >> 16;
        let value = (nb_bits_out << 16).wrapping_sub(tt.delta_nb_bits);
        self.state_table[((value >> nb_bits_out) as i32 + tt.delta_find_state) as usize] as u32
    }

    /// Mirrors FSE_encodeSymbol. The symbol and the next state's index are masked to their
    /// tables' sizes, which changes nothing for a symbol the table was built for and saves
    /// the bounds checks (a mask instead of a compare and a branch).
    #[inline(always)]
    pub(crate) fn encode(&self, bw: &mut BitWriter<'_>, state: &mut u32, symbol: u8) {
        let tt = self.symbol_tt[symbol as usize & (SYMBOL_SLOTS - 1)];
        let nb_bits_out = state.wrapping_add(tt.delta_nb_bits) >> 16;
        bw.add_bits(*state as u64, nb_bits_out);
        let next = ((*state >> nb_bits_out) as i32 + tt.delta_find_state) as usize;
        *state = self.state_table[next & (CELLS - 1)] as u32;
    }

    /// Mirrors FSE_flushCState.
    #[inline]
    pub(crate) fn flush(&self, bw: &mut BitWriter<'_>, state: u32) {
        bw.add_bits(state as u64, self.table_log);
        bw.flush();
    }

    /// The most bits `symbol` costs (`FSE_getMaxNbBits`).
    pub(crate) fn max_nb_bits(&self, symbol: usize) -> u32 {
        (self.symbol_tt[symbol].delta_nb_bits + ((1 << 16) - 1)) >> 16
    }

    /// Mirrors FSE_bitCost: approximate cost of `symbol`, with `accuracy_log` fractional bits.
    pub(crate) fn bit_cost(&self, symbol: u32, accuracy_log: u32) -> u32 {
        let delta = self.symbol_tt[symbol as usize].delta_nb_bits;
        let min_nb_bits = delta >> 16;
        let threshold = (min_nb_bits + 1) << 16;
        let table_size = 1u32 << self.table_log;
        let delta_from_threshold = threshold.wrapping_sub(delta.wrapping_add(table_size));
        let normalized = (delta_from_threshold << accuracy_log) >> self.table_log;
        (min_nb_bits + 1) * (1 << accuracy_log) - normalized
    }
}

/// Mirrors FSE_compress_usingCTable (as used for Huffman weights): encodes `src` with two
/// interleaved states. Returns 0 when the input is too short to be worth it.
pub(crate) fn compress_using_ctable(out: &mut Vec<u8>, src: &[u8], ct: &FseCTable) -> usize {
    if src.len() <= 2 {
        return 0;
    }
    append_stream(out, src.len() * 2 + 8, |bw| {
        let mut ip = src.len();
        let (mut state1, mut state2);
        if src.len() & 1 == 1 {
            state1 = ct.init_state(src[ip - 1]);
            state2 = ct.init_state(src[ip - 2]);
            ct.encode(bw, &mut state1, src[ip - 3]);
            bw.flush();
            ip -= 3;
        } else {
            state2 = ct.init_state(src[ip - 1]);
            state1 = ct.init_state(src[ip - 2]);
            ip -= 2;
        }
        while ip > 0 {
            ct.encode(bw, &mut state2, src[ip - 1]);
            ct.encode(bw, &mut state1, src[ip - 2]);
            bw.flush();
            ip -= 2;
        }
        ct.flush(bw, state2);
        ct.flush(bw, state1);
    })
}
