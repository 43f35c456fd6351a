//! The block-set rows with a peer in our place: mzstd 0.2.9, a safe-Rust zstd whose encoder
//! is byte-identical to libzstd 1.5.7 and whose decoder is its own. A comparison only (the
//! `--peer` rows of `compress_speed` and `decode_speed`): zarkit never uses it.
//!
//! Each row is the peer against the same native context as our rows, on the same blocks,
//! so the peer's ratio and ours can be read side by side.

use std::hint::black_box;

use crate::blocks::{BLOCK, set};
use crate::oracle::{self, NativeDecoder};
use crate::rows::Row;

/// The name of the peer in printed tables.
pub const NAME: &str = "mzstd 0.2.9";

/// Compressing every block of a set at `level` with one reused `mzstd::Compressor`, one
/// frame per block, against native `ZSTD_compressCCtx` on a reused CCtx; the peer's frames
/// are checked equal to native's first.
pub fn compress_blocks_row(name: &str, level: i32) -> Row {
    let blocks = set(name);
    assert!(!blocks.is_empty(), "block set {name} is empty");
    let blocks2 = blocks.clone();
    let config = mzstd::EncoderConfig::default()
        .with_level(mzstd::Level::try_from(level).expect("a level mzstd takes"));
    let mut peer = mzstd::Compressor::new(config).expect("an mzstd compressor");
    let mut native = oracle::NativeCompressor::new(None, level);
    let (mut out, mut out2) = (Vec::with_capacity(2 * BLOCK), Vec::with_capacity(2 * BLOCK));
    for b in &blocks {
        out.clear();
        out2.clear();
        peer.compress_into(b, &mut out).expect("mzstd compresses");
        native.compress(b, &mut out2);
        assert!(
            out == out2,
            "{name} L{level}: mzstd's frame equals libzstd's"
        );
    }
    Row {
        name: format!("compress/L{level}/{name}-blocks"),
        bytes: (blocks.len() * BLOCK) as u64,
        ours: Box::new(move || {
            for b in &blocks {
                out.clear();
                peer.compress_into(black_box(b), &mut out)
                    .expect("mzstd compresses");
            }
        }),
        native: Box::new(move || {
            for b in &blocks2 {
                out2.clear();
                black_box(native.compress(black_box(b), &mut out2));
            }
        }),
    }
}

/// Decoding every block of a set, each compressed by the oracle at `level`, with one reused
/// `mzstd::Decompressor` into one buffer, against native `ZSTD_decompressDCtx`.
pub fn decode_blocks_row(name: &str, level: i32) -> Row {
    let blocks = set(name);
    assert!(!blocks.is_empty(), "block set {name} is empty");
    let frames: Vec<Vec<u8>> = blocks.iter().map(|b| oracle::compress(b, level)).collect();
    let frames2 = frames.clone();
    let mut peer = mzstd::Decompressor::default();
    let mut native = NativeDecoder::new();
    let mut out = Vec::with_capacity(BLOCK);
    let mut buf2 = vec![0u8; BLOCK];
    for (f, b) in frames.iter().zip(&blocks) {
        out.clear();
        peer.decompress_into(f, &mut out).expect("mzstd decodes");
        assert!(&out == b, "{name} L{level}: mzstd gives the block back");
    }
    Row {
        name: format!("decode/L{level}/{name}-blocks"),
        bytes: (blocks.len() * BLOCK) as u64,
        ours: Box::new(move || {
            for f in &frames {
                out.clear();
                peer.decompress_into(black_box(f), &mut out)
                    .expect("mzstd decodes oracle frames");
            }
        }),
        native: Box::new(move || {
            for f in &frames2 {
                black_box(
                    native
                        .decompress_into(black_box(f), &mut buf2)
                        .expect("native decodes"),
                );
            }
        }),
    }
}
