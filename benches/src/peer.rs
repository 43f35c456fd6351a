//! The block-set rows with a peer in our place: mzstd 0.2.9, a safe-Rust zstd whose encoder
//! is byte-identical to libzstd 1.5.7 and whose decoder is its own. A comparison only (the
//! `--peer` rows of `compress_speed` and `decode_speed`): zarkit never uses it.
//!
//! Each row is the peer against the same native context as our rows, on the same blocks,
//! so the peer's ratio and ours can be read side by side.

use crate::blocks::{compress_blocks_row_with, decode_blocks_row_with};
use crate::rows::Row;

/// The name of the peer in printed tables.
pub const NAME: &str = "mzstd 0.2.9";

/// Compressing every block of a set at `level` with one reused `mzstd::Compressor`, one
/// frame per block, against native `ZSTD_compressCCtx` on a reused CCtx; the peer's frames
/// are checked equal to native's first.
pub fn compress_blocks_row(name: &str, level: i32) -> Row {
    let config = mzstd::EncoderConfig::default()
        .with_level(mzstd::Level::try_from(level).expect("a level mzstd takes"));
    let mut peer = mzstd::Compressor::new(config).expect("an mzstd compressor");
    compress_blocks_row_with(name, level, move |block, out| {
        peer.compress_into(block, out).expect("mzstd compresses");
    })
}

/// Decoding every block of a set, each compressed by the oracle at `level`, with one reused
/// `mzstd::Decompressor` into one buffer, against native `ZSTD_decompressDCtx`.
pub fn decode_blocks_row(name: &str, level: i32) -> Row {
    let mut peer = mzstd::Decompressor::default();
    decode_blocks_row_with(name, level, move |frame, out| {
        out.clear();
        peer.decompress_into(frame, out)
            .expect("mzstd decodes oracle frames");
    })
}
