//! Writes `corpus/goldens/dict/` from the native oracle (libzstd 1.5.7): a zstd-format
//! dictionary trained with `ZDICT_trainFromBuffer` on generated text samples, a raw-content
//! dictionary, and frames of other samples compressed with `ZSTD_compress_usingDict` with
//! each, at several levels. The frames are stored (our encoder cannot write them yet); the
//! samples are regenerated from `zarkit_corpus::generate` by the test that decodes them.
//!
//! `cargo run --release -p zarkit-benches --bin make_dict_goldens`

use std::fmt::Write as _;

use zarkit::zstd::DecoderDictionary;
use zarkit_benches::oracle;
use zarkit_corpus::{Shape, frame_hash, generate};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/goldens/dict");
/// The samples the frames hold: (shape, size, seed).
const SAMPLES: &[(Shape, usize, u64)] = &[
    (Shape::Text, 700, 9001),
    (Shape::Text, 3000, 9002),
    (Shape::Text, 9000, 9003),
    (Shape::Binary, 2500, 9004),
    (Shape::Mixed, 5000, 9005),
    (Shape::Text, 16_000, 9006),
    // Seed 0: "abcdefghijk" repeated (`period11`), whose matches sit at offset 11.
    (Shape::Text, 3000, 0),
];

/// A sample's bytes: the corpus generator, or the period-11 pattern for seed 0.
fn sample(shape: Shape, size: usize, seed: u64) -> Vec<u8> {
    if seed == 0 {
        return b"abcdefghijk".iter().copied().cycle().take(size).collect();
    }
    generate(shape, size, seed)
}
const LEVELS: &[i32] = &[1, 3, 6, 19];

/// Streams with the raw dictionary and long-distance matching over a window smaller than
/// the dictionary (`zstd -D raw.dict --long=W` with W of 10 and 12 for its 8 KiB): libzstd
/// makes its local CDict with that window, and a stream of unknown size attaches it with
/// the CDict's parameters as they are.
const STREAM_LONG_LEVELS: &[i32] = &[1, 3, 4, 5, 6, 9, 12, 16, 19];

/// Writes `stream-long.txt`: `ZSTD_compressStream2` frames (checksum on) of one text sample,
/// as the `zstd` tool drives them from a file (size pledged, one ending call) and from
/// standard input (no size, the input then an empty ending call).
fn write_stream_long(raw: &[u8]) {
    use zarkit_benches::oracle::StreamCall;
    let (shape, size, seed) = (Shape::Text, 20_000, 9020);
    let src = sample(shape, size, seed);
    let mut text = String::new();
    writeln!(text, "# ZSTD_compressStream2 frames (libzstd 1.5.7) with raw.dict loaded (ZSTD_CCtx_loadDictionary), long-distance").unwrap();
    writeln!(text, "# matching on with a window below the dictionary's size, checksum on; written by make_dict_goldens.").unwrap();
    writeln!(text, "# `file`: size pledged, one ZSTD_e_end call; `stdin`: no size, one ZSTD_e_continue call, then an empty ZSTD_e_end.").unwrap();
    writeln!(text, "# <shape> <size> <seed> <level> <file|stdin> <window log> <frame size> <SHA-256 of the frame>").unwrap();
    for &level in STREAM_LONG_LEVELS {
        for window_log in [10, 12] {
            for file in [true, false] {
                let calls = if file {
                    vec![StreamCall::End(&src)]
                } else {
                    vec![StreamCall::Continue(&src), StreamCall::End(&[])]
                };
                let pledged = file.then_some(size as u64);
                let frame = oracle::compress_stream_with(
                    level,
                    true,
                    pledged,
                    Some(raw),
                    Some(window_log),
                    &calls,
                )
                .expect("the oracle compresses");
                let back = oracle::decompress_using_dict(&frame, raw, size).expect("decodes");
                assert!(back == src, "the oracle decodes its own frame");
                writeln!(
                    text,
                    "{} {size} {seed} {level} {} {window_log} {} {}",
                    shape.name(),
                    if file { "file" } else { "stdin" },
                    frame.len(),
                    zarkit_benches::sha256_hex(&frame)
                )
                .unwrap();
            }
        }
    }
    std::fs::write(format!("{DIR}/stream-long.txt"), text).expect("write");
}

fn main() {
    oracle::assert_version();
    std::fs::create_dir_all(DIR).expect("the goldens folder");
    // Training samples share the text generator's vocabulary with the frames' samples.
    let training: Vec<Vec<u8>> = (0..400u64)
        .map(|i| generate(Shape::Text, 1000 + (i as usize * 37) % 3000, 100 + i))
        .collect();
    let formatted = oracle::train_dictionary(&training, 8192);
    let raw = generate(Shape::Text, 8192, 77);
    // The trained dictionary with other repeat offsets (ZDICT writes 1, 4, 8), so that frames
    // starting with a repeat match show whether a decoder loads them.
    let mut reps = formatted.clone();
    let content = DecoderDictionary::new(&formatted)
        .expect("our decoder reads the trained dictionary")
        .content_len();
    let at = formatted.len() - content - 12;
    for (i, r) in [11u32, 23, 7].iter().enumerate() {
        reps[at + 4 * i..at + 4 * i + 4].copy_from_slice(&r.to_le_bytes());
    }
    std::fs::write(format!("{DIR}/formatted.dict"), &formatted).expect("write");
    std::fs::write(format!("{DIR}/reps.dict"), &reps).expect("write");
    std::fs::write(format!("{DIR}/raw.dict"), &raw).expect("write");
    let mut frames = Vec::new();
    let mut text = String::new();
    writeln!(
        text,
        "# ZSTD_compress_usingDict frames (libzstd 1.5.7), written by make_dict_goldens."
    )
    .unwrap();
    writeln!(text, "# <dict> <shape> <size> <seed> <level> <offset in frames.bin> <frame size> <xxh64 of the content>").unwrap();
    for (name, dict) in [("formatted", &formatted), ("raw", &raw), ("reps", &reps)] {
        for &(shape, size, seed) in SAMPLES {
            let src = sample(shape, size, seed);
            for &level in LEVELS {
                let frame = oracle::compress_using_dict(&src, dict, level);
                let back = oracle::decompress_using_dict(&frame, dict, size).expect("decodes");
                assert!(back == src, "the oracle decodes its own frame");
                writeln!(
                    text,
                    "{name} {} {size} {seed} {level} {} {} {:016x}",
                    if seed == 0 { "period11" } else { shape.name() },
                    frames.len(),
                    frame.len(),
                    frame_hash(&src)
                )
                .unwrap();
                frames.extend_from_slice(&frame);
            }
        }
    }
    // Frames with a 1 KiB window (ZSTD_compress2, level 3): decoding them streaming wraps
    // the ring buffer dozens of times, leaving the dictionary behind.
    for (name, dict) in [("formatted", &formatted), ("raw", &raw)] {
        let (shape, size, seed) = (Shape::Text, 40_000, 9010);
        let src = sample(shape, size, seed);
        let frame = oracle::compress_with_dict_and_window(&src, dict, 3, 10);
        let back = oracle::decompress_using_dict(&frame, dict, size).expect("decodes");
        assert!(back == src, "the oracle decodes its own frame");
        writeln!(
            text,
            "{name} {} {size} {seed} 3 {} {} {:016x}",
            shape.name(),
            frames.len(),
            frame.len(),
            frame_hash(&src)
        )
        .unwrap();
        frames.extend_from_slice(&frame);
    }
    std::fs::write(format!("{DIR}/frames.bin"), &frames).expect("write");
    std::fs::write(format!("{DIR}/frames.txt"), text).expect("write");
    write_stream_long(&raw);
    println!(
        "formatted dictionary {} bytes, raw {} bytes, {} bytes of frames",
        formatted.len(),
        raw.len(),
        frames.len()
    );
}
