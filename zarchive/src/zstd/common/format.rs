//! The format's constants (RFC 8878), as libzstd names them (`zstd.h`, `zstd_internal.h`,
//! `huf.h`, `fse.h`).

/// The frame magic number (`ZSTD_MAGICNUMBER`), stored little-endian.
pub(crate) const MAGIC_NUMBER: u32 = 0xFD2F_B528;
/// Magic number of a formatted dictionary (`ZSTD_MAGIC_DICTIONARY`), stored little-endian.
pub(crate) const DICT_MAGIC: u32 = 0xEC30_A437;
/// Largest block content (`ZSTD_BLOCKSIZE_MAX`).
pub(crate) const BLOCK_SIZE_MAX: usize = 128 * 1024;
/// Bytes of a block header (`ZSTD_blockHeaderSize`).
pub(crate) const BLOCK_HEADER_SIZE: usize = 3;
/// Block types (`blockType_e`): raw, RLE, compressed (3 is reserved).
pub(crate) const BLOCK_RAW: u32 = 0;
pub(crate) const BLOCK_RLE: u32 = 1;
pub(crate) const BLOCK_COMPRESSED: u32 = 2;
/// Smallest window log a frame may declare (`ZSTD_WINDOWLOG_ABSOLUTEMIN`).
pub(crate) const WINDOW_LOG_ABSOLUTE_MIN: u32 = 10;
/// How a literals or sequences section describes its symbols (`symbolEncodingType_e`):
/// predefined (raw for literals), RLE, compressed, repeat (treeless for literals).
pub(crate) const SET_BASIC: u8 = 0;
pub(crate) const SET_RLE: u8 = 1;
pub(crate) const SET_COMPRESSED: u8 = 2;
pub(crate) const SET_REPEAT: u8 = 3;
/// Repeat offsets (`ZSTD_REP_NUM`) and their values at the start of a frame (`repStartValue`).
pub(crate) const REP_NUM: usize = 3;
pub(crate) const REP_START_VALUE: [u32; REP_NUM] = [1, 4, 8];
/// Largest Huffman table log (`HUF_TABLELOG_MAX`).
pub(crate) const HUF_TABLELOG_MAX: u32 = 12;
/// Smallest FSE table log (`FSE_MIN_TABLELOG`).
pub(crate) const FSE_MIN_TABLELOG: u32 = 5;
