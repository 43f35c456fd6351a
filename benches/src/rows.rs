//! Benchmark rows: one piece of work done by our code and by the native oracle, for the
//! gate and the versus-native report.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use zarkit::zar::{BlockCompressor, PackOptions, WriterOptions, Zstd, pack_dir_to};
use zarkit::zstd::{self, Compressor, Decoder};
use zarkit_corpus::payload;

use crate::native::NativeZstd;
use crate::oracle;

/// One row: the same work, ours and native.
pub struct Row {
    /// Stable name, e.g. `compress/L1/hetero64k`.
    pub name: String,
    /// Input bytes processed by one call (for throughput).
    pub bytes: u64,
    /// Our side.
    pub ours: Box<dyn FnMut()>,
    /// The native side.
    pub native: Box<dyn FnMut()>,
}

/// The payloads every class measures (issue 5's list).
pub const PAYLOADS: &[&str] = &[
    "text8k",
    "random8k",
    "hetero64k",
    "text64k",
    "binary64k",
    "random64k",
    "text200k",
];
/// The levels the suite measures, once the encoder implements them.
pub const LEVELS: &[i32] = &[1, 3, 6, 9, 12, 19];

fn bytes_of(name: &str) -> Vec<u8> {
    payload(name)
        .unwrap_or_else(|| panic!("no payload {name}"))
        .bytes()
}

/// One-shot compression of a payload; `None` when our encoder does not implement it.
pub fn compress_row(name: &str, level: i32) -> Option<Row> {
    let src = bytes_of(name);
    let mut ours = Compressor::new(level).ok()?;
    let mut out = Vec::with_capacity(src.len() + 1024);
    ours.compress_into(&src, &mut out).ok()?;
    let src2 = src.clone();
    let mut out2 = Vec::with_capacity(oracle::compress_bound(src.len()));
    Some(Row {
        name: format!("compress/L{level}/{name}"),
        bytes: src.len() as u64,
        ours: Box::new(move || {
            out.clear();
            black_box(ours.compress_into(black_box(&src), &mut out).ok());
        }),
        native: Box::new(move || {
            out2.clear();
            black_box(oracle::compress_into(black_box(&src2), level, &mut out2));
        }),
    })
}

/// Decoding the oracle's frame of a payload at a level: our decoder facade vs native.
pub fn decode_row(name: &str, level: i32) -> Row {
    let src = bytes_of(name);
    let frame = oracle::compress(&src, level);
    let frame2 = frame.clone();
    let n = src.len();
    let mut dec = Decoder::new();
    let mut buf = vec![0u8; n];
    Row {
        name: format!("decode/L{level}/{name}"),
        bytes: n as u64,
        ours: Box::new(move || {
            dec.decompress_exact(black_box(&frame), &mut buf)
                .expect("our decoder decodes oracle frames");
        }),
        native: Box::new(move || {
            black_box(oracle::decompress(black_box(&frame2), n).expect("native decodes"));
        }),
    }
}

/// Packing a tree into memory: our codec vs the native codec behind the same container.
pub fn pack_row(label: &str, tree: &Path, bytes: u64, level: i32, threads: usize) -> Option<Row> {
    let ours: Arc<dyn BlockCompressor> = Arc::new(Zstd::new(level).ok()?);
    let native: Arc<dyn BlockCompressor> = Arc::new(NativeZstd { level });
    let run = move |c: Arc<dyn BlockCompressor>, tree: std::path::PathBuf| {
        let opts = PackOptions::new().writer(WriterOptions::new().compressor(c).threads(threads));
        move || {
            let out = Vec::with_capacity(bytes as usize);
            black_box(
                pack_dir_to(&tree, out, &opts, &[], &mut |_| {})
                    .expect("pack")
                    .0
                    .len(),
            );
        }
    };
    Some(Row {
        name: format!("pack/{label}/L{level}/j{threads}"),
        bytes,
        ours: Box::new(run(ours, tree.to_path_buf())),
        native: Box::new(run(native, tree.to_path_buf())),
    })
}

/// The gate's hot rows: L1 and L6 compress of hetero64k and text64k, and of the set of
/// distinct 64 KiB game-data blocks (a context reused from block to block, as a packer
/// does); decoding sets of distinct 64 KiB blocks at L1 (generated) and L6 (generated, game
/// data, text); and a small-tree pack at L1 and L6 (rows whose level is not implemented are
/// left out).
pub fn gate_rows(small_tree: &Path, small_bytes: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    for level in [1, 6] {
        for name in ["hetero64k", "text64k"] {
            rows.extend(compress_row(name, level));
        }
        rows.push(crate::blocks::compress_blocks_row("game", level));
    }
    // Decoding sets of distinct blocks (generated, game data, text), as a ZAR reader does.
    rows.push(crate::blocks::decode_blocks_row("gen", 1));
    for name in ["gen", "game", "text"] {
        rows.push(crate::blocks::decode_blocks_row(name, 6));
    }
    for level in [1, 6] {
        rows.extend(pack_row("small4x64k", small_tree, small_bytes, level, 1));
    }
    rows
}

/// Whether `level` is implemented (for reporting what is pending).
pub fn implemented(level: i32) -> bool {
    zstd::is_level_supported(level)
}
