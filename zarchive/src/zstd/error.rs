//! Errors of the zstd codec.

/// Errors of the zstd codec: every decoding error names the byte offset in the input where
/// the problem was found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ZstdError {
    /// The level is outside libzstd's range (-131072 to 22).
    #[error("compression level {level} is outside zstd's range of -131072 to 22")]
    UnsupportedLevel {
        /// The compression level asked for.
        level: i32,
    },
    /// The frames decode to more bytes than the caller allowed.
    #[error("zstd data decodes to more than {limit} bytes")]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The level is implemented, but not for a source of this size. Not returned by this
    /// version, which implements every level for sources of any size, with or without a
    /// dictionary (the last refusal, level 22 above 64 MiB with a dictionary, went when
    /// the long-distance finder learnt to load one); kept so that code matching it still
    /// compiles.
    #[error("compression level {level} is not implemented by this encoder for {size}-byte inputs")]
    UnsupportedLevelForSize {
        /// The compression level asked for.
        level: i32,
        /// The size in bytes.
        size: usize,
    },
    /// A stream was given another number of bytes than was pledged for it.
    #[error("zstd stream: {got} bytes given where {pledged} were pledged")]
    PledgedSizeMismatch {
        /// The size pledged.
        pledged: u64,
        /// The bytes given so far.
        got: u64,
    },
    /// A window log outside what a zstd frame may use.
    #[error("zstd window log {window_log} is outside the range of 10 to 31")]
    UnsupportedWindowLog {
        /// The window log asked for.
        window_log: u32,
    },
    /// A call on a stream whose frame failed earlier (the bytes written so far are not a
    /// frame); [`StreamEncoder::reset`](super::StreamEncoder::reset) starts afresh.
    #[error("zstd stream: the frame failed earlier ({reason}); reset the encoder to start another")]
    FrameFailed {
        /// What failed.
        reason: String,
    },
    /// A setting that only applies between frames was changed in the middle of one.
    #[error("zstd stream: {what} can only be set before a frame's first byte")]
    FrameInProgress {
        /// The setting.
        what: &'static str,
    },
    /// The frames decode to a different number of bytes than the caller required.
    #[error("zstd data decodes to {got} bytes, expected exactly {expected}")]
    SizeMismatch {
        /// The number of bytes required.
        expected: usize,
        /// The number of bytes produced.
        got: usize,
    },
    /// The input ends inside the structure that starts at byte `at`.
    #[error("zstd data is truncated: the {what} at byte {at} runs past the end of the input")]
    Truncated {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The structure that is cut short.
        what: &'static str,
    },
    /// The bytes at `at` are neither a zstd frame nor a skippable frame. The message names
    /// the format when the four bytes are another one's well-known start (gzip, xz, bzip2,
    /// lz4, zip, or zstd's pre-1.0 formats, which this decoder does not read).
    #[error(
        "zstd data at byte {at}: not a zstd frame (magic number {magic:#010x}{})",
        other_format(*.magic)
    )]
    UnknownFrame {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The four bytes found where a magic number belongs (little-endian).
        magic: u32,
    },
    /// The frame header at `at` has its reserved bit set.
    #[error("zstd frame at byte {at}: the reserved bit of the frame header is set")]
    ReservedBit {
        /// Byte offset in the input where the problem was found.
        at: usize,
    },
    /// The frame at `at` declares a window larger than the decoder accepts.
    #[error(
        "zstd frame at byte {at}: its window of {window} bytes is above the decoder's limit of {limit} bytes"
    )]
    WindowTooLarge {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The window size the frame declares, in bytes.
        window: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The frame at `at` was compressed with a dictionary, and none was given.
    #[error("zstd frame at byte {at}: it needs dictionary {dict_id}, and no dictionary was given")]
    DictionaryRequired {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The dictionary ID the frame names.
        dict_id: u32,
    },
    /// The frame at `at` was compressed with another dictionary than the one given.
    #[error(
        "zstd frame at byte {at}: it needs dictionary {frame_dict_id}, and the dictionary given is {given_dict_id} (0: raw content)"
    )]
    WrongDictionary {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The dictionary ID the frame names.
        frame_dict_id: u32,
        /// The ID of the dictionary given (0 for raw content).
        given_dict_id: u32,
    },
    /// The frame at `at` names no dictionary where every frame must name `dict_id` (a
    /// decoder set with [`crate::zstd::Decoder::set_required_dictionary`]).
    #[error(
        "zstd frame at byte {at}: it names no dictionary, and frames here must name dictionary {dict_id}"
    )]
    DictionaryIdMissing {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The dictionary ID required.
        dict_id: u32,
    },
    /// A dictionary's bytes do not form a zstd dictionary.
    #[error("zstd dictionary: {reason}")]
    BadDictionary {
        /// What is wrong, in plain words.
        reason: &'static str,
    },
    /// A dictionary cannot be trained or finalized from the samples and size given.
    #[error("cannot train a zstd dictionary: {reason}")]
    CannotTrain {
        /// What is missing or wrong, in plain words.
        reason: String,
    },
    /// The block header at `at` has the reserved block type 3.
    #[error("zstd block at byte {at}: reserved block type 3")]
    ReservedBlockType {
        /// Byte offset in the input where the problem was found.
        at: usize,
    },
    /// The block at `at` is larger (stored or decoded) than its frame allows.
    #[error("zstd block at byte {at}: {size} bytes, above the block maximum of {max} bytes")]
    BlockTooLarge {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The size in bytes.
        size: usize,
        /// The largest size allowed, in bytes.
        max: usize,
    },
    /// The frame at `at` decodes to another size than its header declares.
    #[error(
        "zstd frame at byte {at}: it decodes to {got} bytes but its header declares {declared} bytes"
    )]
    ContentSizeMismatch {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The content size the frame header declares.
        declared: u64,
        /// The number of bytes produced.
        got: u64,
    },
    /// The content checksum of the frame at `at` does not match its decoded bytes.
    #[error(
        "zstd frame at byte {at}: content checksum does not match (stored {stored:#010x}, computed {computed:#010x})"
    )]
    ChecksumMismatch {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The checksum stored in the frame.
        stored: u32,
        /// The checksum of the decoded bytes.
        computed: u32,
    },
    /// A match in the block at `at` reaches before the first byte of its frame's history.
    #[error(
        "zstd block at byte {at}: match offset {offset} reaches before the start of the data ({available} bytes available)"
    )]
    OffsetBeyondHistory {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// The match offset.
        offset: u64,
        /// The bytes of history available at that point.
        available: u64,
    },
    /// An FSE or Huffman table description in the block at `at` is invalid.
    #[error("zstd block at byte {at}: invalid {table} table description ({reason})")]
    BadTable {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// Which table (literal lengths, offsets, match lengths, Huffman, Huffman weights).
        table: &'static str,
        /// What is wrong, in plain words.
        reason: &'static str,
    },
    /// A bitstream in the block at `at` is not consumed exactly by the symbols it holds.
    #[error("zstd block at byte {at}: the {stream} bitstream is not consumed exactly")]
    BitstreamNotConsumed {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// Which bitstream.
        stream: &'static str,
    },
    /// The writer given to [`super::decode::decompress_to`] refused the decoded bytes.
    #[error("decoded zstd data could not be written: {cause}")]
    Write {
        /// The writer's error. Its message is part of this one's, so it is not also
        /// returned by `source()` (error reports would print it twice).
        cause: std::io::Error,
    },
    /// The memory a context needs for the frame's parameters could not be had (libzstd's
    /// `memory_allocation` error): level 22's tables alone take 640 MiB for a large or
    /// unknown-sized source.
    #[error("not enough memory: the compressor's {what} ({}) could not be allocated", in_units(*bytes))]
    OutOfMemory {
        /// What it was for.
        what: &'static str,
        /// How many bytes were asked for.
        bytes: usize,
    },
    /// Another inconsistency in the block at `at`, described in plain words.
    #[error("zstd block at byte {at}: {reason}")]
    Malformed {
        /// Byte offset in the input where the problem was found.
        at: usize,
        /// What is wrong, in plain words.
        reason: &'static str,
    },
}

/// `bytes` as a size in MiB (to a tenth) or, below one, in KiB.
fn in_units(bytes: usize) -> String {
    const MIB: u128 = 1 << 20;
    let bytes = bytes as u128;
    if bytes < MIB {
        return format!("{} KiB", bytes.div_ceil(1024));
    }
    let tenths = (bytes * 10 + MIB / 2) / MIB;
    match tenths % 10 {
        0 => format!("{} MiB", tenths / 10),
        t => format!("{}.{t} MiB", tenths / 10),
    }
}

/// What the four bytes `magic` (little-endian) start when they are another format's
/// well-known signature, as a note for [`ZstdError::UnknownFrame`]'s message.
fn other_format(magic: u32) -> &'static str {
    match magic {
        m if m & 0xFFFF == 0x8B1F => ": gzip data",
        0x587A_37FD => ": xz data",
        m if m & 0x00FF_FFFF == 0x0068_5A42 => ": bzip2 data",
        0x184D_2204 => ": lz4 data",
        0x0403_4B50 => ": a zip archive",
        0xFD2F_B51E..=0xFD2F_B527 => {
            ": a frame of zstd's pre-1.0 format, which this decoder does not read"
        }
        _ => "",
    }
}
