//! Byte identity with libzstd 1.5.7 through the frozen goldens (no C here): for every corpus
//! payload and every implemented level, our frame has the oracle's size and xxh64, and it
//! decodes back to the payload. Plus round-trip properties on arbitrary inputs.

use proptest::prelude::*;
use zarkit::zstd::{self, Compressor, ZstdError};
use zarkit_corpus::{GOLDEN_LEVELS, PAYLOADS, frame_hash, load_goldens, payload};

/// What the encoder promises to encode: levels it implements, sources up to the level's
/// size limit.
fn supported(level: i32, size: usize) -> bool {
    zstd::is_level_supported(level) && size <= zstd::max_source_size(level)
}

#[test]
fn goldens_cover_every_payload_and_level() {
    let goldens = load_goldens().expect("goldens file");
    assert_eq!(goldens.len(), PAYLOADS.len() * GOLDEN_LEVELS.len());
}

#[test]
fn frames_match_oracle_goldens_for_implemented_levels() {
    check_goldens();
}

/// The portable code of the dispatched loops (the `fast` and `dfast` finders, the Huffman
/// and sequence encoders, the decoder's block loop) gives the same frames: on a machine
/// with AVX2, the test above only runs the accelerated code.
#[test]
fn frames_match_oracle_goldens_on_the_portable_code() {
    zstd::portable_only(check_goldens);
}

/// Every golden frame: ours byte for byte, and decoded back to its payload.
fn check_goldens() {
    let goldens = load_goldens().expect("goldens file");
    let mut checked = 0;
    let mut failures = Vec::new();
    for g in &goldens {
        let p = payload(&g.payload).expect("golden names a known payload");
        let src = p.bytes();
        if !supported(g.level, src.len()) {
            continue;
        }
        let frame = zstd::compress(&src, g.level).expect("supported level compresses");
        if frame.len() != g.frame_size || frame_hash(&frame) != g.xxh64 {
            failures.push(format!(
                "{} L{}: {} bytes vs oracle {}",
                g.payload,
                g.level,
                frame.len(),
                g.frame_size
            ));
        }
        let back = zstd::decompress(&frame, src.len()).expect("our frame decodes");
        assert_eq!(back, src, "{} L{} round trip", g.payload, g.level);
        if src.len() == zstd::PaddedBlock::LEN {
            // The same source read in place from a padded block.
            let mut block = zstd::PaddedBlock::new();
            block.copy_from_slice(&src);
            let mut in_place = Vec::new();
            Compressor::new(g.level)
                .unwrap()
                .compress_block_into(&block, &mut in_place)
                .unwrap();
            if frame_hash(&in_place) != g.xxh64 {
                failures.push(format!("{} L{}: in place", g.payload, g.level));
            }
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "frames differ from libzstd 1.5.7:\n{}",
        failures.join("\n")
    );
    // Every payload at every golden level.
    assert_eq!(
        checked,
        PAYLOADS.len() * GOLDEN_LEVELS.len(),
        "goldens checked"
    );
}

/// A new context's frame of `src` (`zstd::compress` keeps its context from call to call,
/// so it is no fresh context to compare a reused one with).
fn fresh(src: &[u8], level: i32) -> Vec<u8> {
    let mut frame = Vec::new();
    Compressor::new(level)
        .unwrap()
        .compress_into(src, &mut frame)
        .unwrap();
    frame
}

/// `c`'s frame of `src`: of a 64 KiB source with `in_place`, read from `block` in place
/// ([`Compressor::compress_block_into`]), else by slice.
fn compress_maybe_in_place(
    c: &mut Compressor,
    block: &mut zstd::PaddedBlock,
    src: &[u8],
    in_place: bool,
) -> Vec<u8> {
    let mut frame = Vec::new();
    if in_place && src.len() == zstd::PaddedBlock::LEN {
        block.copy_from_slice(src);
        c.compress_block_into(block, &mut frame).unwrap();
    } else {
        c.compress_into(src, &mut frame).unwrap();
    }
    frame
}

#[test]
fn reused_compressor_gives_the_same_frames_as_fresh_ones() {
    for level in [-5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 16, 19, 22] {
        let mut c = Compressor::new(level).unwrap();
        // Alternate sizes so every finder's tables are reused with other parameters too.
        for name in [
            "text64k",
            "random64k",
            "hetero64k",
            "text8k",
            "zeros64k",
            "text200k",
            "mixed20k",
            "binary8k",
        ] {
            let src = payload(name).unwrap().bytes();
            if !supported(level, src.len()) {
                continue;
            }
            let mut out = vec![0xAA];
            let n = c.compress_into(&src, &mut out).unwrap();
            assert_eq!(n, out.len() - 1);
            assert_eq!(out[1..], fresh(&src, level)[..], "{name} L{level}");
        }
    }
}

#[test]
fn unimplemented_levels_are_typed_errors() {
    for level in [23, 100] {
        assert!(!zstd::is_level_supported(level));
        assert!(
            matches!(Compressor::new(level), Err(ZstdError::UnsupportedLevel { level: l }) if l == level)
        );
        // Every other context or preparation refuses it the same way.
        let refused = |r: Result<(), ZstdError>| matches!(r, Err(ZstdError::UnsupportedLevel { level: l }) if l == level);
        assert!(refused(zarkit::zar::Zstd::new(level).map(drop)));
        assert!(refused(zstd::StreamEncoder::new(level).map(drop)));
        assert!(refused(
            zstd::EncoderDictionary::new(b"dictionary", level).map(drop)
        ));
    }
    for level in [
        -131072, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 19, 22,
    ] {
        assert!(zstd::is_level_supported(level));
    }
    // The optimal parser (post-block splitter included) works above 64 KiB.
    let text = payload("text65537").unwrap().bytes();
    for level in [13, 16, 19, 22] {
        assert!(zstd::compress(&text, level).is_ok());
    }
    assert!(!zstd::is_level_supported(-131073));
    // Sources larger than their window (512 KiB at level 1) slide it (enforceMaxDist).
    let window = 512 * 1024;
    let big = vec![7u8; window + 1];
    assert!(zstd::compress(&big, 1).is_ok());
    // Every level takes sources of any size: past 3500 MiB the window's indices are corrected
    // as libzstd corrects them (level 22 above 64 MiB also turns on long-distance matching).
    for level in [
        -131072, -1, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 15, 16, 19, 21, 22,
    ] {
        assert_eq!(zstd::max_source_size(level), usize::MAX, "L{level}");
    }
    assert_eq!(zstd::max_source_size(23), 0);
    assert_eq!(zstd::max_source_size(-131073), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn arbitrary_bytes_round_trip(data in proptest::collection::vec(any::<u8>(), 0..3000), level in prop::sample::select(vec![-131072, -7, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 18, 19, 22])) {
        let frame = zstd::compress(&data, level).unwrap();
        prop_assert_eq!(zstd::decompress(&frame, data.len()).unwrap(), data);
    }

    #[test]
    fn repetitive_inputs_round_trip(
        unit in proptest::collection::vec(any::<u8>(), 1..40),
        reps in 1usize..5000,
        tail in proptest::collection::vec(any::<u8>(), 0..50),
        level in prop::sample::select(vec![-3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 16, 19, 22]),
    ) {
        let mut data: Vec<u8> = unit.iter().copied().cycle().take(unit.len() * reps).collect();
        data.extend_from_slice(&tail);
        prop_assert!(supported(level, data.len()));
        let frame = zstd::compress(&data, level).unwrap();
        prop_assert_eq!(zstd::decompress(&frame, data.len()).unwrap(), data);
    }
}

/// A reused `Compressor` continues its tables after its last plain frame above 64 KiB
/// instead of clearing them; every frame must still be a fresh context's (a new
/// `Compressor`'s; `zstd::compress` keeps its context, and is checked against the oracle's
/// goldens above). Runs of
/// frames of every shape and size, at the levels of every strategy: runs of continued
/// frames (above 64 KiB) across the point where the kept bytes roll over (2 MiB), and
/// between them frames that start afresh (64 KiB and below, other parameters).
#[test]
fn a_reused_compressor_gives_fresh_frames() {
    let sizes = [
        65536, 65536, 70000, 100_000, 131_072, 65536, 1000, 65536, 200_000, 300_000, 65536, 16384,
        0, 65536, 131_072, 65536, 450_000, 450_000, 450_000, 450_000, 450_000, 70000, 65536, 65536,
    ];
    for level in [-5, 1, 3, 5, 6, 9, 13, 16] {
        let mut c = Compressor::new(level).unwrap();
        for round in 0..3u64 {
            for (i, &size) in sizes.iter().enumerate() {
                let shape = zarkit_corpus::Shape::ALL[(i + round as usize) % 12];
                let src = zarkit_corpus::generate(shape, size, round * 100 + i as u64);
                let mut frame = Vec::new();
                c.compress_into(&src, &mut frame).unwrap();
                assert!(
                    frame == fresh(&src, level),
                    "level {level}, round {round}, frame {i} ({size} bytes)"
                );
                if i % 5 == 4 {
                    // A dictionary frame in between clears the tables; the next plain
                    // frame starts afresh.
                    let dict = zarkit_corpus::generate(shape, 4096, 7);
                    let mut with = Vec::new();
                    c.compress_with_dict_into(&src, &dict, &mut with).unwrap();
                    let mut fresh = Vec::new();
                    Compressor::new(level)
                        .unwrap()
                        .compress_with_dict_into(&src, &dict, &mut fresh)
                        .unwrap();
                    assert!(with == fresh, "level {level}: dictionary frame {i}");
                }
            }
        }
    }
}

/// A reused `Compressor` that takes some 64 KiB blocks in place ([`zstd::PaddedBlock`])
/// and other sources by slice, of sizes that continue the tables after earlier frames and
/// sizes that start afresh: every frame is a fresh context's, in place or not (a block
/// read in place must leave the context as a copied one does).
#[test]
fn a_compressor_takes_padded_blocks_between_other_frames() {
    let sizes = [
        65536, 100_000, 65536, 450_000, 450_000, 65536, 1000, 65536, 65536, 131_072,
    ];
    for level in [-5, 1, 3, 5, 6, 9, 13, 16, 19] {
        let mut c = Compressor::new(level).unwrap();
        let mut block = zstd::PaddedBlock::new();
        for round in 0..2u64 {
            for (i, &size) in sizes.iter().enumerate() {
                let shape = zarkit_corpus::Shape::ALL[(i + 3 * round as usize) % 12];
                let src = zarkit_corpus::generate(shape, size, round * 100 + i as u64);
                let in_place = (i + round as usize).is_multiple_of(2);
                let frame = compress_maybe_in_place(&mut c, &mut block, &src, in_place);
                assert!(
                    frame == fresh(&src, level),
                    "level {level}, round {round}, frame {i} ({size} bytes)"
                );
            }
        }
    }
}

/// A reused `Compressor` does not clear the row finder's tables between plain frames of
/// up to 64 KiB (levels 5 to 12): each frame's indices start past the last one's, so the
/// entries it left read as empty ones (libzstd's `ZSTDirp_continue`). Runs of frames of
/// similar text, whose strings meet the last frames' entries in the same rows, of equal
/// sizes (continued) and other sizes (other parameters: cleared), in place and by slice:
/// every frame must be a fresh context's. A frame that starts at the last one's indices
/// instead of past them fails here.
#[test]
fn frames_of_64k_and_below_go_on_past_the_last_ones_indices() {
    let sizes = [
        65536, 65536, 65536, 40000, 40000, 65536, 65536, 9000, 9000, 65536,
    ];
    for level in 5..=12 {
        let mut c = Compressor::new(level).unwrap();
        let mut block = zstd::PaddedBlock::new();
        for (i, &size) in sizes.iter().enumerate() {
            // The same vocabulary every frame, the text drawn anew.
            let src = zarkit_corpus::generate(zarkit_corpus::Shape::Text, size, i as u64 % 3);
            let frame = compress_maybe_in_place(&mut c, &mut block, &src, i % 2 == 0);
            assert!(
                frame == fresh(&src, level),
                "level {level}, frame {i} ({size} bytes)"
            );
        }
    }
}

/// A reused `Compressor` with a prepared dictionary attached (sources up to 8 KiB at
/// `fast`, 16 KiB at `dfast`, 32 KiB at the lazy levels) continues its own tables' indices
/// from frame to frame instead of clearing them, as libzstd does; every frame must still
/// be a fresh context's. Runs of equal sizes, sizes that change the own tables' sizes
/// (continued too), larger sources (the CDict's tables copied), another dictionary, plain
/// frames and loaded-dictionary frames in between, at the levels of every strategy (the
/// lazy ones continue with rows, from the 40 KB dictionaries, and clear their hash
/// chains, with the 8 KB ones).
#[test]
fn a_reused_compressor_gives_fresh_frames_with_a_prepared_dictionary() {
    let sizes = [
        2048, 2048, 2048, 2048, 8192, 8192, 700, 2048, 16384, 16384, 9000, 40_000, 2048, 2048, 0,
        12, 5000, 5000, 8192, 100_000, 8192, 8192,
    ];
    // 8 KB dictionaries (hash chains at the lazy levels) and a 40 KB one (rows).
    for (level, dict_len) in [-5, 1, 2, 3, 4, 5, 6, 5, 6, 8]
        .into_iter()
        .enumerate()
        .map(|(i, level)| (level, if i < 7 { 8192 } else { 40_000 }))
    {
        let dicts = [7u64, 8].map(|seed| {
            let content = zarkit_corpus::generate(zarkit_corpus::Shape::ALL[0], dict_len, seed);
            zstd::EncoderDictionary::new(&content, level).unwrap()
        });
        let mut c = Compressor::new(level).unwrap();
        for round in 0..3u64 {
            for (i, &size) in sizes.iter().enumerate() {
                let shape = zarkit_corpus::Shape::ALL[(i / 3 + round as usize) % 12];
                let src = zarkit_corpus::generate(shape, size, round * 100 + i as u64);
                // Mostly the first dictionary; now and then the other.
                let dict = &dicts[(i % 7 == 6) as usize];
                let fresh = |f: &dyn Fn(&mut Compressor, &mut Vec<u8>)| {
                    let mut out = Vec::new();
                    f(&mut Compressor::new(level).unwrap(), &mut out);
                    out
                };
                let mut frame = Vec::new();
                c.compress_prepared_into(&src, dict, &mut frame).unwrap();
                let expected = fresh(&|c, out| {
                    c.compress_prepared_into(&src, dict, out).unwrap();
                });
                assert!(
                    frame == expected,
                    "level {level}, round {round}, frame {i} ({size} bytes)"
                );
                if i % 4 == 3 {
                    // A plain frame and a loaded dictionary's in between.
                    let mut plain = Vec::new();
                    c.compress_into(&src, &mut plain).unwrap();
                    let expected = fresh(&|c, out| {
                        c.compress_into(&src, out).unwrap();
                    });
                    assert!(plain == expected, "plain {i}");
                    let mut loaded = Vec::new();
                    c.compress_loaded_dict_into(&src, dict, &mut loaded)
                        .unwrap();
                    let expected = fresh(&|c, out| {
                        c.compress_loaded_dict_into(&src, dict, out).unwrap();
                    });
                    assert!(loaded == expected, "level {level}: loaded frame {i}");
                }
            }
        }
    }
}
