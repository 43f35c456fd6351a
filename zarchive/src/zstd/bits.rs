//! Little-endian bit writer, the encoder side of libzstd's `BIT_CStream_t`.
//!
//! Bits are appended least-significant first; closing the stream adds the single `1`
//! end mark the decoder uses to find where the stream starts. Where the encoder flushes
//! does not change the bytes, so this writer flushes 32 bits at a time.

/// Appends a backward-readable bitstream to a byte vector.
pub(crate) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    nbits: u32,
}

impl<'a> BitWriter<'a> {
    /// Mirrors BIT_initCStream (the stream starts at the end of `out`).
    pub(crate) fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter { out, acc: 0, nbits: 0 }
    }

    /// Mirrors BIT_addBits: appends the low `n` bits of `value` (`n <= 32`).
    #[inline(always)]
    pub(crate) fn add_bits(&mut self, value: u64, n: u32) {
        debug_assert!(n <= 32);
        let masked = value & ((1u64 << n) - 1);
        self.acc |= masked << self.nbits;
        self.nbits += n;
        if self.nbits >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.nbits -= 32;
        }
    }

    /// Mirrors BIT_closeCStream: adds the end mark and writes the last partial byte.
    /// Returns the number of bytes this stream occupies in total.
    pub(crate) fn close(mut self, start: usize) -> usize {
        self.add_bits(1, 1);
        let nbytes = self.nbits.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_le_bytes()[..nbytes]);
        self.out.len() - start
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
        let mut out = Vec::new();
        let mut w = BitWriter::new(&mut out);
        w.add_bits(0b101, 3);
        w.add_bits(0xFF, 8);
        let n = w.close(0);
        // 3 bits 101, then 8 ones, then the end mark: 0b1_1111_1111_101 = 0xFFD, 12 bits.
        assert_eq!(n, 2);
        assert_eq!(out, vec![0xFD, 0x0F]);
    }
}
