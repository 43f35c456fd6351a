//! Bit readers: the backward reader of FSE and Huffman streams (`BIT_DStream_t`) and the
//! forward reader of FSE table descriptions (`FSE_readNCount`'s little-endian bit cursor).

/// How far a [`BitReader`] has got after a reload (`BIT_DStream_status`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Reload {
    /// At least 57 fresh bits are in the container.
    Unfinished,
    /// The container holds the first bytes of the stream: fewer bits may be left.
    EndOfBuffer,
    /// Every bit of the stream has been read.
    Completed,
    /// More bits were read than the stream holds: the stream is corrupt.
    Overflow,
}

const CONTAINER_BITS: u32 = 64;

/// Largest stream [`BitReader::reload_fast_from`] serves: a block's content.
pub(crate) const STREAM_COPY_MAX: usize = super::BLOCK_SIZE_MAX;
/// Size of the buffer a stream is copied into for [`BitReader::reload_fast_from`].
pub(crate) const STREAM_COPY_SIZE: usize = STREAM_COPY_MAX + 8;

/// A backward bit reader over one stream, read from its last byte towards its first, with a
/// 64-bit container refilled by whole words.
///
/// Mirrors `BIT_DStream_t` (`BIT_initDStream`, `BIT_readBitsFast`, `BIT_reloadDStream`,
/// `BIT_endOfDStream`). Reading past the start yields zero bits and drives the reader into
/// the overflow state, which every caller turns into an error.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BitReader<'a> {
    src: &'a [u8],
    /// Index of the 8 bytes loaded in `container` (0 once the start is reached).
    pos: usize,
    container: u64,
    /// Bits consumed from the top of `container`.
    consumed: u32,
}

#[inline(always)]
fn read_le64(src: &[u8], pos: usize) -> u64 {
    match src.get(pos..pos + 8) {
        Some(b) => u64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        None => 0,
    }
}

impl<'a> BitReader<'a> {
    /// Start reading `src` from its end. `None` when the stream is empty or its last byte
    /// holds no end mark (the stream must end with a 1 bit followed by zero padding).
    ///
    /// Mirrors BIT_initDStream.
    pub(crate) fn new(src: &'a [u8]) -> Option<Self> {
        let &last = src.last()?;
        if last == 0 {
            return None;
        }
        let mark_skip = last.leading_zeros() + 1;
        if src.len() >= 8 {
            let pos = src.len() - 8;
            Some(BitReader {
                src,
                pos,
                container: read_le64(src, pos),
                consumed: mark_skip,
            })
        } else {
            let mut container = 0u64;
            for (i, &b) in src.iter().enumerate() {
                container |= (b as u64) << (8 * i);
            }
            let consumed = mark_skip + (8 - src.len() as u32) * 8;
            Some(BitReader {
                src,
                pos: 0,
                container,
                consumed,
            })
        }
    }

    /// The next `n` bits (0..=56 after a reload that returned `Unfinished`), without
    /// consuming them. Bits past the start of the stream read as zero.
    ///
    /// Mirrors BIT_lookBits.
    #[inline(always)]
    pub(crate) fn peek(&self, n: u32) -> u64 {
        debug_assert!(n < 64);
        (self.container.wrapping_shl(self.consumed) >> 1) >> (63 - n)
    }

    /// The next `n` bits for a caller that knows `1 <= n <= 56`: no masking.
    ///
    /// Mirrors BIT_lookBitsFast.
    #[inline(always)]
    pub(crate) fn peek_fast(&self, n: u32) -> u64 {
        debug_assert!((1..64).contains(&n));
        self.container.wrapping_shl(self.consumed) >> ((64 - n) & 63)
    }

    /// Consume `n` bits.
    ///
    /// Mirrors BIT_skipBits.
    #[inline(always)]
    pub(crate) fn skip(&mut self, n: u32) {
        self.consumed += n;
    }

    /// Read `n` bits for a caller that knows `1 <= n <= 56`.
    ///
    /// Mirrors BIT_readBitsFast.
    #[inline(always)]
    pub(crate) fn read_fast(&mut self, n: u32) -> u64 {
        let v = self.peek_fast(n);
        self.consumed += n;
        v
    }

    /// Read `n` bits (`n` may be 0).
    ///
    /// Mirrors BIT_readBits.
    #[inline(always)]
    pub(crate) fn read(&mut self, n: u32) -> u64 {
        let v = self.peek(n);
        self.consumed += n;
        v
    }

    /// Refill the container so that at most 7 consumed bits remain, when the stream still
    /// holds enough bytes.
    ///
    /// Mirrors BIT_reloadDStream.
    #[inline(always)]
    pub(crate) fn reload(&mut self) -> Reload {
        // Callers read at most 57 bits between reloads, so while a whole word can be
        // refilled nothing has been read past the start yet: the overflow test belongs to
        // the tail alone.
        if self.pos >= 8 {
            debug_assert!(self.consumed <= CONTAINER_BITS);
            self.pos -= (self.consumed >> 3) as usize;
            self.consumed &= 7;
            self.container = read_le64(self.src, self.pos);
            return Reload::Unfinished;
        }
        // By value, so that the hot reader never has its address taken.
        let (next, status) = self.reload_tail();
        *self = next;
        status
    }

    /// [`BitReader::reload`] with the stream's last bytes handled in line: for the short
    /// streams of small blocks (a tree description's weights, the ends of the Huffman
    /// streams), where the tail is common and an out-of-line call costs more than the
    /// registers it saves.
    #[inline(always)]
    pub(crate) fn reload_inline(&mut self) -> Reload {
        if self.pos >= 8 {
            self.pos -= (self.consumed >> 3) as usize;
            self.consumed &= 7;
            self.container = read_le64(self.src, self.pos);
            return Reload::Unfinished;
        }
        self.tail()
    }

    /// [`BitReader::reload`] for a caller that knows at least 8 bytes lie before the
    /// container (`self.pos >= 8`, see [`BitReader::has_words`]), reading from `words`, a
    /// copy of the stream at the start of a fixed-size buffer: no tail, no call, no bounds
    /// check (the stream is at most [`STREAM_COPY_MAX`] bytes, so the mask changes nothing).
    ///
    /// Mirrors BIT_reloadDStreamFast.
    #[inline(always)]
    pub(crate) fn reload_fast_from(&mut self, words: &[u8; STREAM_COPY_SIZE]) {
        self.advance();
        self.load_from(words);
    }

    /// The first half of [`BitReader::reload_fast_from`]: move back over the whole bytes
    /// consumed, leaving the container to [`BitReader::load_from`] (so that a loop need not
    /// keep the container alive across work that does not read bits).
    #[inline(always)]
    pub(crate) fn advance(&mut self) {
        debug_assert!(self.pos >= 8 && self.consumed <= CONTAINER_BITS);
        self.pos = self.pos.wrapping_sub((self.consumed >> 3) as usize);
        self.consumed &= 7;
    }

    /// The second half of [`BitReader::reload_fast_from`]: load the container at the
    /// current position from `words`, a copy of the stream.
    #[inline(always)]
    pub(crate) fn load_from(&mut self, words: &[u8; STREAM_COPY_SIZE]) {
        debug_assert!(self.src.len() <= STREAM_COPY_MAX);
        let p = self.pos & (STREAM_COPY_MAX - 1);
        let mut w = [0u8; 8];
        w.copy_from_slice(&words[p..p + 8]);
        self.container = u64::from_le_bytes(w);
    }

    /// Whether `n` more whole-word reloads are sure to take the fast path: at least
    /// `8 * n` bytes lie before the container.
    #[inline(always)]
    pub(crate) fn has_words(&self, n: usize) -> bool {
        self.pos >= 8 * n
    }

    /// The last bytes of the stream, out of line for the hot loops: see [`Self::tail`].
    #[cold]
    #[inline(never)]
    fn reload_tail(mut self) -> (Self, Reload) {
        let status = self.tail();
        (self, status)
    }

    /// The last bytes of the stream (`pos < 8`): move back as far as the start allows.
    #[inline(always)]
    fn tail(&mut self) -> Reload {
        if self.consumed > CONTAINER_BITS {
            return Reload::Overflow;
        }
        if self.pos == 0 {
            return if self.consumed < CONTAINER_BITS {
                Reload::EndOfBuffer
            } else {
                Reload::Completed
            };
        }
        let want = (self.consumed >> 3) as usize;
        let (step, result) = if want > self.pos {
            (self.pos, Reload::EndOfBuffer)
        } else {
            (want, Reload::Unfinished)
        };
        self.pos -= step;
        self.consumed -= (step * 8) as u32;
        self.container = read_le64(self.src, self.pos);
        result
    }

    /// Whether every bit of the stream has been read, and no more.
    ///
    /// Mirrors BIT_endOfDStream.
    #[inline]
    pub(crate) fn finished(&self) -> bool {
        self.pos == 0 && self.consumed == CONTAINER_BITS
    }

    /// Whether more bits were read than the stream holds.
    #[cfg(test)]
    pub(crate) fn overflowed(&self) -> bool {
        self.consumed > CONTAINER_BITS
    }
}

/// A backward reader in the form of libzstd's fast Huffman loop: `bits` holds the unread
/// bits at the top and a sentinel 1 bit below them, so its trailing zeros count the bits
/// consumed since the 8 bytes at `ip` were loaded. Only valid while `ip >= 8` before each
/// reload and fewer than 57 bits are read between reloads.
///
/// The reader reads within a section that holds its stream (see
/// [`BitReader::to_sentinel_in`]); the loops that take it keep that section once for all
/// their streams and pass it to [`SentinelBits::reload`].
///
/// Mirrors the stream state of HUF_DecompressFastArgs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SentinelBits {
    pub(crate) ip: usize,
    pub(crate) bits: u64,
}

impl SentinelBits {
    /// Move back over the whole bytes consumed and load the 8 bytes of `section` (the one
    /// this reader reads within) there.
    #[inline(always)]
    pub(crate) fn reload(&mut self, section: &[u8]) {
        let consumed = self.bits.trailing_zeros();
        self.ip -= (consumed >> 3) as usize;
        self.bits = (read_le64(section, self.ip) | 1) << (consumed & 7);
    }

    /// Back to an ordinary reader of `stream`, which is `section[start..]` of the section
    /// this reader reads (see [`BitReader::to_sentinel_in`]), at the same position. A
    /// reader that has moved below the stream's start (its reloads read the bytes of the
    /// stream before) comes back at the stream's first word, the bits it has read there
    /// counted as consumed: past 64 when it consumed bits that are not the stream's, which
    /// [`BitReader::finished`] and [`BitReader::reload`] then report.
    pub(crate) fn to_reader_of(self, stream: &[u8], start: usize) -> BitReader<'_> {
        let consumed = self.bits.trailing_zeros();
        match self.ip.checked_sub(start) {
            Some(pos) => BitReader {
                src: stream,
                pos,
                container: read_le64(stream, pos),
                consumed,
            },
            None => BitReader {
                src: stream,
                pos: 0,
                container: read_le64(stream, 0),
                consumed: consumed.saturating_add(8 * (start - self.ip).min(1 << 24) as u32),
            },
        }
    }
}

impl<'a> BitReader<'a> {
    /// The same position as a sentinel reader over a section of which this reader's
    /// stream is `section[start..]` (meaningful when `pos >= 8`). Its reloads may go on
    /// below the stream's start, into the bytes before it: a valid stream never consumes
    /// those bits, and [`SentinelBits::to_reader_of`] tells whether it did.
    ///
    /// Mirrors HUF_DecompressFastArgs_init (the fast loops' streams read within the whole
    /// section, bounded by the first stream's start alone).
    pub(crate) fn to_sentinel_in(self, start: usize) -> SentinelBits {
        let consumed = self.consumed.min(63);
        SentinelBits {
            ip: start + self.pos,
            bits: (self.container | 1) << consumed,
        }
    }
}

/// A forward little-endian bit cursor over a table description; bits past the end read as
/// zero, and [`ForwardBits::bytes_used`] tells the caller whether the end was crossed.
pub(crate) struct ForwardBits<'a> {
    src: &'a [u8],
    bitpos: usize,
}

impl<'a> ForwardBits<'a> {
    pub(crate) fn new(src: &'a [u8]) -> Self {
        ForwardBits { src, bitpos: 0 }
    }

    /// The next 32 bits, without consuming them.
    #[inline]
    pub(crate) fn peek32(&self) -> u32 {
        let byte = self.bitpos / 8;
        let word = match self.src.get(byte..byte + 8) {
            // Away from the end: one 8-byte load.
            Some(w) => u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]),
            None => {
                let mut w = [0u8; 8];
                if let Some(rest) = self.src.get(byte..) {
                    let n = rest.len().min(8);
                    w[..n].copy_from_slice(&rest[..n]);
                }
                u64::from_le_bytes(w)
            }
        };
        (word >> (self.bitpos % 8)) as u32
    }

    #[inline]
    pub(crate) fn skip(&mut self, n: u32) {
        self.bitpos += n as usize;
    }

    /// Bytes touched so far (rounded up).
    pub(crate) fn bytes_used(&self) -> usize {
        self.bitpos.div_ceil(8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bits_from_the_end_after_the_mark() {
        // Stream bytes: [0b1010_1100, 0b0000_0101]: the last byte's top set bit (bit 2) is the
        // mark; then bits 1..0 = 01, then the first byte from bit 7 down.
        let src = [0b1010_1100u8, 0b0000_0101];
        let mut r = BitReader::new(&src).unwrap();
        assert_eq!(r.read(2), 0b01);
        assert_eq!(r.read(3), 0b101);
        assert_eq!(r.read(5), 0b01100);
        assert!(r.finished());
        assert_eq!(r.reload(), Reload::Completed);
        r.read(1);
        assert!(r.overflowed());
        assert_eq!(r.reload(), Reload::Overflow);
    }

    #[test]
    fn long_stream_reloads_by_words_and_ends_exactly() {
        // 40 bytes of a known pattern then a mark byte 0x01: read it back 7 bits at a time.
        let mut src: Vec<u8> = (0..40u32).map(|i| (i * 37 + 11) as u8).collect();
        src.push(1);
        let total_bits = 40 * 8;
        let mut r = BitReader::new(&src).unwrap();
        let mut got = Vec::new();
        let mut read = 0;
        while read + 7 <= total_bits {
            r.reload();
            got.push(r.read(7));
            read += 7;
        }
        let rest = total_bits - read;
        r.reload();
        r.read(rest as u32);
        assert!(r.finished());
        // Check against a naive big-endian-from-the-end bit walk.
        let mut bitpos = total_bits as i64; // bit index counted from the start, LSB-first
        for v in got {
            let mut x = 0u64;
            for _ in 0..7 {
                bitpos -= 1;
                let b = (src[(bitpos / 8) as usize] >> (bitpos % 8)) & 1;
                x = (x << 1) | b as u64;
            }
            assert_eq!(v, x);
        }
    }

    #[test]
    fn the_in_line_reload_keeps_the_out_of_line_one_s_state_and_status() {
        // Streams of 1 to 40 bytes read in steps of 0 to 25 bits, past their ends into
        // overflow: after every reload both readers hold the same bits and report the same.
        let mut next = crate::zstd::test_rng(0x9E37_79B9_7F4A_7C15u64);
        for len in 1..=40usize {
            for _ in 0..50 {
                let mut src: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                *src.last_mut().unwrap() |= 1 << (next() % 8);
                let (Some(mut a), Some(mut b)) = (BitReader::new(&src), BitReader::new(&src))
                else {
                    unreachable!("the last byte holds a mark")
                };
                for _ in 0..(len * 8 / 5 + 6) {
                    let n = (next() % 26) as u32;
                    assert_eq!(a.read(n), b.read(n));
                    let (ra, rb) = (a.reload(), b.reload_inline());
                    assert_eq!(ra, rb, "len {len}");
                    assert_eq!(
                        (a.pos, a.consumed, a.container),
                        (b.pos, b.consumed, b.container)
                    );
                }
            }
        }
    }

    #[test]
    fn empty_or_unmarked_streams_are_refused() {
        assert!(BitReader::new(&[]).is_none());
        assert!(BitReader::new(&[1, 2, 0]).is_none());
    }
}
