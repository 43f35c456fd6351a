//! Sources larger than their window (the window slides, `ZSTD_window_enforceMaxDist`):
//! byte identity with libzstd 1.5.7 through frozen (size, SHA-256) goldens of
//! multi-megabyte frames (no C here), and round trips past the old 4 MiB limit.

use sha2::{Digest, Sha256};
use zarkit::zstd;
use zarkit_corpus::{GOLDEN_LARGE_FRAMES_FILE, Shape, generate, long_range};

/// One line of the large goldens file.
struct LargeGolden {
    size: usize,
    seed: u64,
    level: i32,
    frame_size: usize,
    sha256: String,
}

fn load_large_goldens() -> Vec<LargeGolden> {
    let text = std::fs::read_to_string(GOLDEN_LARGE_FRAMES_FILE).expect("large goldens file");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            assert!(
                f.len() == 6 && f[0] == "longrange",
                "malformed large golden: {line:?}"
            );
            LargeGolden {
                size: f[1].parse().expect("size"),
                seed: u64::from_str_radix(f[2], 16).expect("seed"),
                level: f[3].parse().expect("level"),
                frame_size: f[4].parse().expect("frame size"),
                sha256: f[5].to_string(),
            }
        })
        .collect()
}

fn sha256_hex(frame: &[u8]) -> String {
    Sha256::digest(frame)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn frames_larger_than_their_window_match_oracle_goldens() {
    let goldens = load_large_goldens();
    assert!(goldens.len() >= 10, "large goldens present");
    let mut failures = Vec::new();
    let mut input: Option<(usize, u64, Vec<u8>)> = None;
    for g in &goldens {
        if !matches!(&input, Some((s, seed, _)) if *s == g.size && *seed == g.seed) {
            input = Some((g.size, g.seed, long_range(g.size, g.seed)));
        }
        let src = &input.as_ref().unwrap().2;
        let window = 1u64 << zstd::params::cparams(g.level, src.len() as u64).window_log;
        assert!(
            src.len() as u64 > window,
            "L{} at {} bytes must slide its window",
            g.level,
            g.size
        );
        let frame = zstd::compress(src, g.level).expect("large sources compress");
        if frame.len() != g.frame_size || sha256_hex(&frame) != g.sha256 {
            failures.push(format!(
                "{} bytes L{}: {} bytes vs oracle {}",
                g.size,
                g.level,
                frame.len(),
                g.frame_size
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "frames differ from libzstd 1.5.7:\n{}",
        failures.join("\n")
    );
    // With the index overflow correction made as often as libzstd can make it, these frames
    // went through corrections (and are still the oracle's bytes).
    #[cfg(feature = "correct-overflow-often")]
    assert!(
        zstd::overflow_corrections() >= 10,
        "only {} corrections",
        zstd::overflow_corrections()
    );
}

#[test]
fn sources_above_the_old_4_mib_limit_round_trip() {
    let src = long_range((4 << 20) + 12_345, 7);
    for level in [-3, 1, 4, 6, 13] {
        let frame = zstd::compress(&src, level).expect("compresses");
        assert!(
            frame.len() < src.len() / 2,
            "L{level}: long-range copies are found"
        );
        assert_eq!(
            zstd::decompress(&frame, src.len()).expect("decodes"),
            src,
            "L{level}"
        );
    }
    // Incompressible data past the level-1 window: raw blocks across the slide.
    let random = generate(Shape::Random, (1 << 20) + 5, 11);
    let frame = zstd::compress(&random, 1).unwrap();
    assert_eq!(zstd::decompress(&frame, random.len()).unwrap(), random);
}

#[test]
fn level_22_beyond_64_mib_takes_a_dictionary() {
    // libzstd turns on long-distance matching there, seeded with the dictionary where it
    // loads one for the frame; so does this encoder, at all three entry points (before,
    // it refused them). Their bytes are checked against the oracle by the benches'
    // `dictionaries_with_long_distance_matching_give_libzstd_frames` and `dict_diff --ldm`.
    assert_eq!(zstd::max_source_size(22), usize::MAX);
    let mut src = vec![0u8; (64 << 20) + 1];
    src[..300].copy_from_slice(&generate(Shape::Text, 300, 22));
    let raw = generate(Shape::Text, 1000, 22);
    let formatted = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/goldens/dict/formatted.dict"),
    )
    .expect("formatted dictionary golden");
    let mut c = zstd::Compressor::new(22).unwrap();
    for (dict, entry) in [(&raw, 0), (&formatted, 1), (&raw, 2)] {
        let prepared = zstd::EncoderDictionary::new(dict, 22).unwrap();
        let mut frame = Vec::new();
        match entry {
            0 => c.compress_with_dict_into(&src, dict, &mut frame),
            1 => c.compress_prepared_into(&src, &prepared, &mut frame),
            _ => c.compress_loaded_dict_into(&src, &prepared, &mut frame),
        }
        .unwrap_or_else(|e| panic!("entry point {entry}: {e}"));
        let mut decoder =
            zstd::Decoder::with_dictionary(&zstd::DecoderDictionary::new(dict).unwrap());
        decoder.set_max_window_size(1 << 27);
        let back = decoder
            .decompress(&frame, src.len())
            .expect("our frame decodes");
        assert!(back == src, "entry point {entry}: round trip");
    }
}
