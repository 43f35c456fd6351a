//! Locates byte offsets inside a zstd frame: which part (frame header, block header,
//! literals header, Huffman table, literals streams, sequence count / modes, FSE tables,
//! sequence bitstream) a byte belongs to. Used to explain the first differing byte.

/// A labelled byte range of a frame.
#[derive(Clone, Debug)]
pub struct Part {
    pub start: usize,
    pub end: usize,
    pub label: String,
}

fn le(b: &[u8], at: usize, n: usize) -> Option<u64> {
    let s = b.get(at..at + n)?;
    Some(s.iter().rev().fold(0u64, |acc, &x| (acc << 8) | x as u64))
}

/// Splits `frame` into labelled parts. Parsing stops quietly at anything malformed.
pub fn parts(frame: &[u8]) -> Vec<Part> {
    let mut v = Vec::new();
    let _ = parse(frame, &mut v);
    v
}

/// Describes the part containing `offset`.
pub fn locate(frame: &[u8], offset: usize) -> String {
    for p in parts(frame) {
        if offset >= p.start && offset < p.end {
            return format!("{} [{}..{})", p.label, p.start, p.end);
        }
    }
    "past the parsed frame".to_string()
}

fn push(v: &mut Vec<Part>, start: usize, end: usize, label: String) {
    v.push(Part { start, end, label });
}

fn parse(f: &[u8], v: &mut Vec<Part>) -> Option<()> {
    let fhd = *f.get(4)?;
    let single = (fhd >> 5) & 1 == 1;
    let fcs_code = fhd >> 6;
    let did = [0, 1, 2, 4][(fhd & 3) as usize];
    let fcs = match fcs_code {
        0 => single as usize,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let hdr = 5 + (!single) as usize + did + fcs;
    push(v, 0, hdr, "frame header".into());
    let mut pos = hdr;
    let mut block_no = 0;
    loop {
        let bh = le(f, pos, 3)? as u32;
        let last = bh & 1 == 1;
        let btype = (bh >> 1) & 3;
        let bsize = (bh >> 3) as usize;
        push(
            v,
            pos,
            pos + 3,
            format!("block {block_no} header (type {btype}, size {bsize})"),
        );
        pos += 3;
        match btype {
            0 => {
                push(v, pos, pos + bsize, format!("block {block_no} raw content"));
                pos += bsize;
            }
            1 => {
                push(v, pos, pos + 1, format!("block {block_no} RLE byte"));
                pos += 1;
            }
            _ => {
                let end = pos + bsize;
                parse_compressed(f, pos, end, block_no, v);
                pos = end;
            }
        }
        block_no += 1;
        if last {
            break;
        }
    }
    if pos < f.len() {
        push(v, pos, f.len(), "trailing bytes".into());
    }
    Some(())
}

fn parse_compressed(f: &[u8], start: usize, end: usize, b: usize, v: &mut Vec<Part>) -> Option<()> {
    let b0 = *f.get(start)?;
    let lt = b0 & 3;
    let sf = (b0 >> 2) & 3;
    let mut pos = start;
    if lt <= 1 {
        let (lh, size) = match sf {
            0 | 2 => (1, (b0 >> 3) as usize),
            1 => (2, (le(f, pos, 2)? >> 4) as usize),
            _ => (3, (le(f, pos, 3)? >> 4) as usize),
        };
        push(
            v,
            pos,
            pos + lh,
            format!(
                "block {b} literals header ({})",
                if lt == 0 { "raw" } else { "RLE" }
            ),
        );
        pos += lh;
        let n = if lt == 0 { size } else { 1 };
        push(v, pos, pos + n, format!("block {b} literals content"));
        pos += n;
    } else {
        let (lh, csize, streams) = match sf {
            0 => (3, (le(f, pos, 3)? >> 14) as usize & 0x3FF, 1),
            1 => (3, (le(f, pos, 3)? >> 14) as usize & 0x3FF, 4),
            2 => (4, (le(f, pos, 4)? >> 18) as usize & 0x3FFF, 4),
            _ => (5, (le(f, pos, 5)? >> 22) as usize & 0x3FFFF, 4),
        };
        push(
            v,
            pos,
            pos + lh,
            format!(
                "block {b} literals header ({})",
                if lt == 2 { "Huffman" } else { "treeless" }
            ),
        );
        pos += lh;
        let lit_end = pos + csize;
        if lt == 2 {
            let hb = *f.get(pos)? as usize;
            let tsize = if hb < 128 {
                hb + 1
            } else {
                (hb - 127).div_ceil(2) + 1
            };
            push(v, pos, pos + tsize, format!("block {b} Huffman table"));
            pos += tsize;
        }
        if streams == 4 {
            push(v, pos, pos + 6, format!("block {b} literals jump table"));
            pos += 6;
        }
        push(
            v,
            pos,
            lit_end,
            format!("block {b} literals streams ({streams})"),
        );
        pos = lit_end;
    }
    // Sequences section.
    let s0 = *f.get(pos)? as usize;
    let (nb_seq, n) = if s0 < 128 {
        (s0, 1)
    } else if s0 < 255 {
        (((s0 - 128) << 8) + *f.get(pos + 1)? as usize, 2)
    } else {
        (le(f, pos + 1, 2)? as usize + 0x7F00, 3)
    };
    if nb_seq == 0 {
        push(v, pos, pos + n, format!("block {b} sequence count (0)"));
        return Some(());
    }
    push(
        v,
        pos,
        pos + n + 1,
        format!("block {b} sequence count ({nb_seq}) / modes"),
    );
    let modes = *f.get(pos + n)?;
    pos += n + 1;
    for (shift, name, max) in [(6, "LL", 35), (4, "OF", 31), (2, "ML", 52)] {
        match (modes >> shift) & 3 {
            1 => {
                push(v, pos, pos + 1, format!("block {b} {name} RLE symbol"));
                pos += 1;
            }
            2 => {
                let len = ncount_len(f.get(pos..end)?, max)?;
                push(v, pos, pos + len, format!("block {b} {name} FSE table"));
                pos += len;
            }
            _ => {}
        }
    }
    push(v, pos, end, format!("block {b} sequence bitstream"));
    Some(())
}

/// Length in bytes of an FSE NCount header (as FSE_readNCount consumes it).
fn ncount_len(src: &[u8], max_symbol: usize) -> Option<usize> {
    let mut bit_pos = 0usize;
    let read = |bit_pos: usize, n: usize| -> Option<u32> {
        let mut v = 0u32;
        for i in 0..n {
            let bit = bit_pos + i;
            let byte = *src.get(bit / 8)?;
            v |= (((byte >> (bit % 8)) & 1) as u32) << i;
        }
        Some(v)
    };
    let table_log = read(bit_pos, 4)? + 5;
    bit_pos += 4;
    let mut remaining: i32 = (1 << table_log) + 1;
    let mut threshold: i32 = 1 << table_log;
    let mut nb_bits = table_log as usize + 1;
    let mut symbol = 0usize;
    let mut previous0 = false;
    while remaining > 1 && symbol <= max_symbol {
        if previous0 {
            loop {
                let r = read(bit_pos, 2)?;
                bit_pos += 2;
                symbol += r as usize;
                if r != 3 {
                    break;
                }
            }
        }
        let max = (2 * threshold - 1) - remaining;
        let low = read(bit_pos, nb_bits - 1)? as i32;
        let count;
        if low < max {
            count = low;
            bit_pos += nb_bits - 1;
        } else {
            let full = read(bit_pos, nb_bits)? as i32;
            count = if full >= threshold { full - max } else { full };
            bit_pos += nb_bits;
        }
        let c = count - 1;
        remaining -= c.abs();
        previous0 = c == 0;
        symbol += 1;
        while remaining < threshold {
            nb_bits -= 1;
            threshold >>= 1;
        }
    }
    Some(bit_pos.div_ceil(8))
}
