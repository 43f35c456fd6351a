//! Sets of distinct 64 KiB blocks for the decode and compress rows, the work a ZAR reader
//! and packer do: every block is a different frame, so no table or cache can make one
//! frame cheap by repetition.
//!
//! - `gen`: 48 blocks from the frozen corpus generators (text, binary records, mixed and
//!   low-entropy data), each with its own seed;
//! - `game`: 32 blocks of Freedoom's `freedoom2.wad`, committed in `corpus/realdata/`;
//! - `text`: this repository's own Rust and Markdown sources, concatenated in path order
//!   and cut into blocks (real text, which changes as the code does; the rows are ratios to
//!   native on the same bytes).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use zarkit::zstd::{BLOCK_SLACK, Compressor, Decoder, PaddedBlock};
use zarkit_corpus::{Shape, generate};

use crate::measure::interleaved;
use crate::oracle::{self, NativeDecoder};
use crate::rows::Row;

/// A ZAR block.
pub const BLOCK: usize = 65536;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// 48 generated blocks, 12 each of four compressible shapes.
pub fn generated() -> Vec<Vec<u8>> {
    let shapes = [Shape::Text, Shape::Records, Shape::Mixed, Shape::LowEntropy];
    (0..48u64)
        .map(|i| generate(shapes[(i % 4) as usize], BLOCK, 0x0B10_C000 + i))
        .collect()
}

/// The 32 committed Freedoom blocks.
pub fn game() -> Vec<Vec<u8>> {
    let path = Path::new(ROOT).join("corpus/realdata/freedoom2-32blocks.bin");
    let bytes =
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    bytes.chunks_exact(BLOCK).map(<[u8]>::to_vec).collect()
}

/// The repository's `.rs` and `.md` files under `zarchive/`, `zarchive-cli/`, `benches/`
/// and `tests/`, in path order, cut into whole blocks (at most 24).
pub fn text() -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    for dir in ["zarchive", "zarchive-cli", "benches", "tests"] {
        collect(&Path::new(ROOT).join(dir), &mut files);
    }
    files.sort();
    let mut all = Vec::new();
    for f in files {
        if let Ok(b) = std::fs::read(&f) {
            all.extend_from_slice(&b);
        }
    }
    all.chunks_exact(BLOCK)
        .take(24)
        .map(<[u8]>::to_vec)
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                collect(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs" || x == "md") {
            out.push(p);
        }
    }
}

/// The named set (`gen`, `game` or `text`), or one shape's 12 blocks of `gen` (`gen0` text,
/// `gen1` records, `gen2` mixed, `gen3` low-entropy), to profile them apart.
pub fn set(name: &str) -> Vec<Vec<u8>> {
    let shape = |k: usize| generated().into_iter().skip(k).step_by(4).collect();
    match name {
        "gen" => generated(),
        "gen0" => shape(0),
        "gen1" => shape(1),
        "gen2" => shape(2),
        "gen3" => shape(3),
        "game" => game(),
        "text" => text(),
        _ => panic!("no block set {name}"),
    }
}

/// Decoding every block of a set, each compressed by the oracle at `level`: our reused
/// [`Decoder`] against a reused native context (`ZSTD_decompressDCtx`), both into one
/// 64 KiB buffer followed by the ZAR reader's slack ([`BLOCK_SLACK`]), as the reader does
/// (`decompress_exact_in`).
pub fn decode_blocks_row(name: &str, level: i32) -> Row {
    let mut dec = Decoder::new();
    decode_blocks_row_with(name, level, move |frame, out| {
        out.resize(BLOCK + BLOCK_SLACK, 0);
        dec.decompress_exact_in(frame, out, BLOCK)
            .expect("our decoder decodes oracle frames");
        out.truncate(BLOCK);
    })
}

/// [`decode_blocks_row`] with `decode` in our place: it leaves a frame's block in `out` (a
/// buffer kept from call to call). Its output is checked against the blocks first.
pub fn decode_blocks_row_with(
    name: &str,
    level: i32,
    mut decode: impl FnMut(&[u8], &mut Vec<u8>) + 'static,
) -> Row {
    let blocks = set(name);
    assert!(!blocks.is_empty(), "block set {name} is empty");
    let frames: Vec<Vec<u8>> = blocks.iter().map(|b| oracle::compress(b, level)).collect();
    let frames2 = frames.clone();
    let mut native = NativeDecoder::new();
    let mut out = Vec::with_capacity(BLOCK + BLOCK_SLACK);
    let mut buf2 = vec![0u8; BLOCK + BLOCK_SLACK];
    for (f, b) in frames.iter().zip(&blocks) {
        decode(f, &mut out);
        assert!(
            &out == b,
            "{name} L{level}: the decode gives the block back"
        );
    }
    Row {
        name: format!("decode/L{level}/{name}-blocks"),
        bytes: (blocks.len() * BLOCK) as u64,
        ours: Box::new(move || {
            for f in &frames {
                decode(black_box(f), &mut out);
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

/// Compressing every block of a set at `level` as a ZAR packer does: our reused
/// [`Compressor`] against a reused native context (`ZSTD_compressCCtx`), one frame per
/// block; the frames are checked equal first. Ours reads each block where the packer
/// holds it, a [`PaddedBlock`] ([`Compressor::compress_block_into`]), as native reads
/// its slice.
pub fn compress_blocks_row(name: &str, level: i32) -> Row {
    let mut ours = Compressor::new(level).expect("a level the encoder implements");
    compress_blocks_row_in(
        name,
        level,
        |b| {
            let mut block = PaddedBlock::new();
            block.copy_from_slice(b);
            block
        },
        move |block, out| {
            ours.compress_block_into(block, out)
                .expect("ours compresses");
        },
    )
}

/// [`compress_blocks_row`] with `compress` in our place: it appends a block's frame to
/// `out` (cleared before each call). Its frames are checked equal to native's first.
pub fn compress_blocks_row_with(
    name: &str,
    level: i32,
    mut compress: impl FnMut(&[u8], &mut Vec<u8>) + 'static,
) -> Row {
    compress_blocks_row_in(name, level, <[u8]>::to_vec, move |b, out| compress(b, out))
}

/// [`compress_blocks_row_with`] on our side's own copy of each block, made by `hold`.
fn compress_blocks_row_in<T: 'static>(
    name: &str,
    level: i32,
    hold: impl Fn(&[u8]) -> T,
    mut compress: impl FnMut(&T, &mut Vec<u8>) + 'static,
) -> Row {
    let blocks2 = set(name);
    assert!(!blocks2.is_empty(), "block set {name} is empty");
    let blocks: Vec<T> = blocks2.iter().map(|b| hold(b)).collect();
    let mut native = oracle::NativeCompressor::new(None, level);
    let (mut out, mut out2) = (Vec::with_capacity(2 * BLOCK), Vec::with_capacity(2 * BLOCK));
    for (ours, b) in blocks.iter().zip(&blocks2) {
        out.clear();
        out2.clear();
        compress(ours, &mut out);
        native.compress(b, &mut out2);
        assert!(out == out2, "{name} L{level}: the frame equals libzstd's");
    }
    Row {
        name: format!("compress/L{level}/{name}-blocks"),
        bytes: (blocks.len() * BLOCK) as u64,
        ours: Box::new(move || {
            for b in &blocks {
                out.clear();
                compress(black_box(b), &mut out);
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

/// Measures the rows `row` makes (one of the `*_blocks_row`, ours or the peer's in
/// [`crate::peer`], named by `who`) for every block set at each of `levels`, interleaved
/// with native within `budget`, and prints them as a table of times per block.
pub fn print_rows(levels: &[i32], budget: Duration, who: &str, row: fn(&str, i32) -> Row) {
    println!("| block set | blocks | {who} µs/block | native µs/block | × native |");
    println!("|---|---|---|---|---|");
    for &level in levels {
        for name in ["gen", "game", "text"] {
            let mut row = row(name, level);
            let n = row.bytes as f64 / BLOCK as f64;
            let r = interleaved(&mut *row.ours, &mut *row.native, budget, 15);
            println!(
                "| {} | {n} | {:.1} | {:.1} | {:.2} |",
                row.name,
                r.ours_ns / 1e3 / n,
                r.native_ns / 1e3 / n,
                r.ratio
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sets_are_full_distinct_blocks() {
        for name in ["gen", "game", "text"] {
            let s = set(name);
            assert!(s.len() >= 8, "{name}: {} blocks", s.len());
            assert!(s.iter().all(|b| b.len() == BLOCK), "{name}: whole blocks");
            let mut sorted: Vec<&Vec<u8>> = s.iter().collect();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), s.len(), "{name}: every block differs");
        }
    }
}
