//! Little-endian bit writer, the encoder side of libzstd's `BIT_CStream_t`.
//!
//! Bits are appended least-significant first; closing the stream adds the single `1`
//! end mark the decoder uses to find where the stream starts. Where the encoder flushes
//! does not change the bytes. Like libzstd, the writer accumulates into a 64-bit
//! container and the caller flushes at least every 56 bits; a flush stores 8 bytes into
//! space reserved up front and advances by the whole bytes filled.

/// Appends a backward-readable bitstream to a byte vector.
pub(crate) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    start: usize,
    pos: usize,
    acc: u64,
    nbits: u32,
}

impl<'a> BitWriter<'a> {
    /// Mirrors BIT_initCStream: the stream starts at the end of `out`, and at most
    /// `max_bytes` bytes will be written.
    pub(crate) fn new(out: &'a mut Vec<u8>, max_bytes: usize) -> Self {
        let start = out.len();
        out.resize(start + max_bytes + 8, 0);
        BitWriter {
            out,
            start,
            pos: start,
            acc: 0,
            nbits: 0,
        }
    }

    /// Mirrors BIT_addBits: appends the low `n` bits of `value` (`n <= 32`). At most 56
    /// bits may be pending when this is called.
    #[inline(always)]
    pub(crate) fn add_bits(&mut self, value: u64, n: u32) {
        debug_assert!(n <= 32 && self.nbits + n <= 64);
        let masked = value & ((1u64 << n) - 1);
        self.acc |= masked << self.nbits;
        self.nbits += n;
    }

    /// Mirrors BIT_flushBits: writes the whole bytes pending.
    #[inline(always)]
    pub(crate) fn flush(&mut self) {
        let nbytes = (self.nbits >> 3) as usize;
        self.out[self.pos..self.pos + 8].copy_from_slice(&self.acc.to_le_bytes());
        self.pos += nbytes;
        self.acc = if nbytes == 8 {
            0
        } else {
            self.acc >> (nbytes * 8)
        };
        self.nbits &= 7;
    }

    /// Mirrors BIT_closeCStream: adds the end mark and writes the last partial byte.
    /// Returns the number of bytes this stream occupies.
    pub(crate) fn close(mut self) -> usize {
        self.flush();
        self.add_bits(1, 1);
        self.flush();
        let end = self.pos + (self.nbits > 0) as usize;
        self.out.truncate(end);
        end - self.start
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
        let mut w = BitWriter::new(&mut out, 4);
        w.add_bits(0b101, 3);
        w.add_bits(0xFF, 8);
        let n = w.close();
        // 3 bits 101, then 8 ones, then the end mark: 0b1_1111_1111_101 = 0xFFD, 12 bits.
        assert_eq!(n, 2);
        assert_eq!(out, vec![0xEE, 0xFD, 0x0F]);
    }

    #[test]
    fn empty_stream_is_one_end_mark_byte() {
        let mut out = Vec::new();
        assert_eq!(BitWriter::new(&mut out, 1).close(), 1);
        assert_eq!(out, vec![1]);
    }
}
