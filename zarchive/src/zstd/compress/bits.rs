//! Little-endian bit writer, the encoder side of libzstd's `BIT_CStream_t`.
//!
//! Bits are appended least-significant first; closing the stream adds the single `1`
//! end mark the decoder uses to find where the stream starts. Where the encoder flushes
//! does not change the bytes. Like libzstd, the writer accumulates into a 64-bit
//! container and the caller flushes at least every 56 bits; a flush stores 8 bytes into
//! space reserved up front and advances by the whole bytes filled.

/// Writes a backward-readable bitstream into a region reserved up front.
pub(crate) struct BitWriter<'a> {
    buf: &'a mut [u8],
    pos: usize,
    acc: u64,
    nbits: u32,
}

/// Appends to `out` the bitstream `write` produces, of at most `max_bytes` bytes, closed
/// with its end mark; returns its length. The writer works on a slice reserved in advance,
/// so its flushes are plain stores. (The hot streams, Huffman and sequences, are written
/// into a kept [`StreamScratch`] instead, with no zero-fill per stream.)
///
/// Mirrors BIT_initCStream .. BIT_closeCStream.
#[inline(always)]
pub(crate) fn append_stream(
    out: &mut Vec<u8>,
    max_bytes: usize,
    write: impl FnOnce(&mut BitWriter<'_>),
) -> usize {
    let start = reserve(out, max_bytes);
    let mut bw = BitWriter::new(&mut out[start..]);
    write(&mut bw);
    let len = bw.close();
    out.truncate(start + len);
    len
}

/// Reserves room at the end of `out` for a stream of at most `max_bytes` bytes (and the
/// 8 bytes a flush may store past it); returns where it starts. The caller writes it with
/// [`BitWriter::new`] over `out[start..]` and truncates `out` to its length.
fn reserve(out: &mut Vec<u8>, max_bytes: usize) -> usize {
    let start = out.len();
    out.resize(start + max_bytes + 8, 0);
    start
}

/// Room for bitstreams, zeroed once and kept across streams and frames (the bytes past a
/// stream's end are never read, and every store overwrites whole words).
#[derive(Default)]
pub(crate) struct StreamScratch(Vec<u8>);

impl StreamScratch {
    /// At least `n` bytes of room, grown (and zeroed) only past the largest asked for.
    pub(crate) fn room(&mut self, n: usize) -> &mut [u8] {
        if self.0.len() < n {
            self.0.resize(n, 0);
        }
        &mut self.0[..n]
    }
}

impl<'a> BitWriter<'a> {
    /// A stream at the start of `buf`, room for its worst case.
    #[inline(always)]
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        BitWriter {
            buf,
            pos: 0,
            acc: 0,
            nbits: 0,
        }
    }

    /// Mirrors BIT_addBits: appends the low `n` bits of `value` (`n <= 32`). At most 56
    /// bits may be pending when this is called.
    #[inline(always)]
    pub(crate) fn add_bits(&mut self, value: u64, n: u32) {
        debug_assert!(n <= 32 && self.nbits + n < 64);
        let masked = value & ((1u64 << n) - 1);
        self.acc |= masked << self.nbits;
        self.nbits += n;
    }

    /// Mirrors BIT_flushBits: writes the whole bytes pending (fewer than 64 bits are, as
    /// libzstd asserts).
    #[inline(always)]
    pub(crate) fn flush(&mut self) {
        debug_assert!(self.nbits < 64);
        let nbytes = (self.nbits >> 3) as usize;
        self.buf[self.pos..self.pos + 8].copy_from_slice(&self.acc.to_le_bytes());
        self.pos += nbytes;
        self.acc >>= (nbytes * 8) & 63;
        self.nbits &= 7;
    }

    /// Mirrors BIT_closeCStream: adds the end mark and writes the last partial byte.
    /// Returns the number of bytes this stream occupies.
    #[inline(always)]
    pub(crate) fn close(mut self) -> usize {
        self.flush();
        self.add_bits(1, 1);
        self.flush();
        self.pos + (self.nbits > 0) as usize
    }
}

/// Position of the highest set bit (`ZSTD_highbit32`); `v` must be non-zero.
#[inline(always)]
pub(crate) fn highbit32(v: u32) -> u32 {
    debug_assert!(v != 0);
    31 - v.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_packed_lsb_first_with_end_mark() {
        let mut out = vec![0xEE];
        let n = append_stream(&mut out, 4, |w| {
            w.add_bits(0b101, 3);
            w.add_bits(0xFF, 8);
        });
        // 3 bits 101, then 8 ones, then the end mark: 0b1_1111_1111_101 = 0xFFD, 12 bits.
        assert_eq!(n, 2);
        assert_eq!(out, vec![0xEE, 0xFD, 0x0F]);
    }

    #[test]
    fn empty_stream_is_one_end_mark_byte() {
        let mut out = Vec::new();
        assert_eq!(append_stream(&mut out, 1, |_| {}), 1);
        assert_eq!(out, vec![1]);
    }
}
