//! Level-6 identity on real reference data: the reference ZArchive tool stores every 64 KiB
//! block as `ZSTD_compress(block, 6)` (or raw when that does not shrink it). Our encoder
//! must reproduce each stored block of the reference archives byte for byte.

use std::sync::Arc;

use zarkit::zar::format::BLOCK_SIZE;
use zarkit::zar::{Archive, PackOptions, REFERENCE_LEVEL, WriterOptions, Zstd, pack_dir_to};
use zarkit::zstd::{self, Compressor};
use zarkit_tests::{basic_tree_copy, zar};

/// Compares every block of `rel` with our level-6 frame; returns the number of blocks.
fn assert_blocks_identical(rel: &str) -> u64 {
    let archive = Archive::open(zar(rel)).expect("reference archive opens");
    let mut compressor = Compressor::new(REFERENCE_LEVEL).expect("level 6 is implemented");
    let mut frame = Vec::new();
    let mut mismatches = Vec::new();
    let mut raw = 0;
    for b in 0..archive.block_count() {
        let input = archive.decode_block(b).expect("reference block decodes");
        assert_eq!(input.len(), BLOCK_SIZE);
        let stored = archive.stored_block(b).expect("reference block reads");
        frame.clear();
        compressor
            .compress_into(&input, &mut frame)
            .expect("level 6 compresses 64 KiB");
        let ok = if stored.len() == BLOCK_SIZE {
            raw += 1;
            // The reference stored this block raw: its frame was not smaller than the block.
            frame.len() >= BLOCK_SIZE
        } else {
            frame == stored
        };
        if !ok {
            let first = frame
                .iter()
                .zip(&stored)
                .position(|(a, b)| a != b)
                .unwrap_or(frame.len().min(stored.len()));
            mismatches.push(format!(
                "block {b}: ours {} bytes, reference {} bytes, first difference at {first}",
                frame.len(),
                stored.len()
            ));
        }
        // The one-shot API gives the same frame as the reused context.
        assert_eq!(
            zstd::compress(&input, REFERENCE_LEVEL).unwrap(),
            frame,
            "{rel} block {b}: fresh vs reused context"
        );
    }
    eprintln!(
        "{rel}: {} blocks identical ({raw} stored raw by the reference)",
        archive.block_count() - mismatches.len() as u64
    );
    assert!(
        mismatches.is_empty(),
        "{rel}: {} of {} blocks differ:\n{}",
        mismatches.len(),
        archive.block_count(),
        mismatches.join("\n")
    );
    archive.block_count()
}

#[test]
fn level6_frames_equal_every_block_of_the_basic_reference_archive() {
    assert!(assert_blocks_identical("basic/reference.zar") > 0);
}

#[test]
fn level6_frames_equal_every_block_of_the_raw_reference_archive() {
    assert!(assert_blocks_identical("raw/reference.zar") > 0);
}

/// Packs `tree` with the built-in level-6 block compressor.
fn pack_at_reference_level(tree: &std::path::Path, threads: usize) -> Vec<u8> {
    let compressor = Arc::new(Zstd::new(REFERENCE_LEVEL).expect("level 6 is implemented"));
    let opts =
        PackOptions::new().writer(WriterOptions::new().compressor(compressor).threads(threads));
    pack_dir_to(tree, Vec::new(), &opts, &[], &mut |_| {})
        .expect("pack")
        .0
}

#[test]
fn packing_the_basic_tree_at_level6_reproduces_the_reference_archive() {
    let dir = tempfile::tempdir().unwrap();
    let tree = basic_tree_copy(dir.path());
    let reference = std::fs::read(zar("basic/reference.zar")).unwrap();
    for threads in [1, 3] {
        let ours = pack_at_reference_level(&tree, threads);
        assert_eq!(ours.len(), reference.len(), "threads={threads}");
        assert!(
            ours == reference,
            "threads={threads}: archive differs from basic/reference.zar"
        );
    }
}

#[test]
fn packing_the_raw_tree_at_level6_reproduces_the_reference_archive() {
    let reference = std::fs::read(zar("raw/reference.zar")).unwrap();
    assert!(
        pack_at_reference_level(&zar("raw/tree"), 2) == reference,
        "archive differs from raw/reference.zar"
    );
}
