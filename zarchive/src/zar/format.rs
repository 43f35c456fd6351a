//! On-disk constants and structures of ZAR v1.

/// Size of one block of the uncompressed data stream.
pub const BLOCK_SIZE: usize = 65536;
