//! Decoding with dictionaries: frames written by libzstd 1.5.7's `ZSTD_compress_usingDict`
//! with a zstd-format dictionary (trained by `ZDICT_trainFromBuffer`) and with raw content
//! (`corpus/goldens/dict/`, written by `make_dict_goldens`), the dictionary-ID checks, and
//! hostile dictionaries; and compressing with each dictionary to the same frames.

use std::path::PathBuf;

use zarkit::zstd::{Compressor, Decoder, DecoderDictionary, StreamDecoder, ZstdError};
use zarkit_corpus::{Shape, frame_hash, generate};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/goldens/dict")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap()
}

/// One golden frame: which dictionary, the content it decodes to, the frame.
struct Golden {
    dict: String,
    level: i32,
    content: Vec<u8>,
    hash: u64,
    frame: Vec<u8>,
}

fn goldens() -> Vec<Golden> {
    let frames = read("frames.bin");
    let text = String::from_utf8(read("frames.txt")).unwrap();
    let shapes = [Shape::Text, Shape::Binary, Shape::Mixed];
    let out: Vec<Golden> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (size, seed): (usize, u64) = (f[2].parse().unwrap(), f[3].parse().unwrap());
            let content = if f[1] == "period11" {
                b"abcdefghijk".iter().copied().cycle().take(size).collect()
            } else {
                let shape = *shapes.iter().find(|s| s.name() == f[1]).unwrap();
                generate(shape, size, seed)
            };
            let (at, len): (usize, usize) = (f[5].parse().unwrap(), f[6].parse().unwrap());
            Golden {
                dict: f[0].to_string(),
                level: f[4].parse().unwrap(),
                content,
                hash: u64::from_str_radix(f[7], 16).unwrap(),
                frame: frames[at..at + len].to_vec(),
            }
        })
        .collect();
    assert_eq!(out.len(), 86, "the golden list is complete");
    out
}

fn dictionaries() -> (DecoderDictionary, DecoderDictionary) {
    let formatted = DecoderDictionary::new(&read("formatted.dict")).unwrap();
    let raw = DecoderDictionary::new(&read("raw.dict")).unwrap();
    (formatted, raw)
}

/// The trained dictionary with repeat offsets 11, 23, 7 instead of 1, 4, 8.
fn reps_dictionary() -> DecoderDictionary {
    DecoderDictionary::new(&read("reps.dict")).unwrap()
}

#[test]
fn libzstd_dictionary_frames_decode_to_their_content() {
    let (formatted, raw) = dictionaries();
    let reps = reps_dictionary();
    assert_ne!(formatted.id(), 0, "a trained dictionary has an ID");
    assert_eq!(raw.id(), 0, "raw content has none");
    let mut one = Decoder::new();
    for g in goldens() {
        assert_eq!(
            frame_hash(&g.content),
            g.hash,
            "the sample generator is unchanged"
        );
        let dict = match g.dict.as_str() {
            "formatted" => &formatted,
            "reps" => &reps,
            _ => &raw,
        };
        let what = format!(
            "{} dictionary, {} bytes, level {}",
            g.dict,
            g.content.len(),
            g.level
        );
        // One-shot into an exact buffer and into a Vec, with one reused decoder.
        one.set_dictionary(Some(dict));
        let mut exact = vec![0u8; g.content.len()];
        one.decompress_exact(&g.frame, &mut exact)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(exact == g.content, "{what}: exact buffer");
        let v = one.decompress(&g.frame, 1 << 20).unwrap();
        assert!(v == g.content, "{what}: into a Vec");
        // Into a buffer above 1 MiB: decoded in place, the dictionary's matches through
        // the exact path (smaller outputs decode after a copy of the dictionary).
        let mut big = vec![0u8; 2 << 20];
        let n = one.decompress_into(&g.frame, &mut big).unwrap();
        assert!(big[..n] == g.content, "{what}: large buffer");
        // Streaming, through the frame's ring buffer.
        let mut streamed = Vec::new();
        Decoder::with_dictionary(dict)
            .decompress_to(&g.frame, &mut streamed)
            .unwrap_or_else(|e| panic!("{what}: streaming: {e}"));
        assert!(streamed == g.content, "{what}: streaming");
        let mut read = Vec::new();
        std::io::Read::read_to_end(
            &mut StreamDecoder::with_dictionary(&g.frame[..], dict),
            &mut read,
        )
        .unwrap_or_else(|e| panic!("{what}: Read adapter: {e}"));
        assert!(read == g.content, "{what}: Read adapter");
        // The same decoder then decodes a frame without a dictionary.
        one.set_dictionary(None);
        let plain = zarkit::zstd::compress(&g.content, 3).unwrap();
        assert!(one.decompress(&plain, 1 << 20).unwrap() == g.content);
    }
    // The period-11 frames start with a repeat match: with the dictionary's offsets loaded
    // they decode, and with the same tables but the start offsets 1, 4, 8 they do not.
    let g = goldens()
        .into_iter()
        .find(|g| g.dict == "reps" && g.frame.len() < 100)
        .expect("a period-11 frame with the reps dictionary");
    let mut out = vec![0u8; g.content.len()];
    let wrong = Decoder::with_dictionary(&formatted).decompress_exact(&g.frame, &mut out);
    assert!(
        wrong.is_err() || out != g.content,
        "the repeat offsets make a difference"
    );
}

#[test]
fn a_frame_naming_a_dictionary_needs_that_one() {
    let (formatted, raw) = dictionaries();
    let id = formatted.id();
    let g = goldens()
        .into_iter()
        .find(|g| g.dict == "formatted")
        .unwrap();
    let mut out = vec![0u8; g.content.len()];
    match Decoder::new().decompress_exact(&g.frame, &mut out) {
        Err(ZstdError::DictionaryRequired { at: 0, dict_id }) => assert_eq!(dict_id, id),
        other => panic!("without a dictionary: {other:?}"),
    }
    for wrong in [raw, DecoderDictionary::raw(&read("formatted.dict"))] {
        match Decoder::with_dictionary(&wrong).decompress_exact(&g.frame, &mut out) {
            Err(ZstdError::WrongDictionary {
                at: 0,
                frame_dict_id,
                given_dict_id: 0,
            }) => assert_eq!(frame_dict_id, id),
            other => panic!("with raw content: {other:?}"),
        }
    }
}

#[test]
fn raw_content_frames_without_their_dictionary_never_give_wrong_bytes() {
    // A raw-content frame names no dictionary: without it, a match into the dictionary is
    // an offset beyond the history, and a frame that never reaches it decodes as it is.
    let (mut refused, mut decoded) = (0, 0);
    for g in goldens().into_iter().filter(|g| g.dict == "raw") {
        let mut out = vec![0u8; g.content.len()];
        match Decoder::new().decompress_exact(&g.frame, &mut out) {
            Ok(()) => {
                assert!(out == g.content, "level {}: wrong bytes", g.level);
                decoded += 1;
            }
            Err(ZstdError::OffsetBeyondHistory { .. }) => refused += 1,
            Err(e) => panic!("level {}: {e}", g.level),
        }
    }
    assert!(
        refused > 0,
        "some frames use the dictionary ({decoded} did not)"
    );
}

#[test]
fn damaged_dictionaries_are_refused_or_read_never_panic() {
    let bytes = read("formatted.dict");
    // Every truncation of the entropy part, and byte changes through it.
    let mut refused = 0;
    for len in 8..bytes.len().min(600) {
        if let Err(e) = DecoderDictionary::new(&bytes[..len]) {
            assert!(matches!(e, ZstdError::BadDictionary { .. }), "{len}: {e}");
            refused += 1;
        }
    }
    assert!(
        refused > 100,
        "truncated entropy tables are refused ({refused})"
    );
    for at in 8..bytes.len().min(400) {
        for x in [1u8, 0x80, 0xFF] {
            let mut bad = bytes.clone();
            bad[at] ^= x;
            if let Ok(d) = DecoderDictionary::new(&bad) {
                // A dictionary that still reads must decode its frames or refuse them.
                let mut dec = Decoder::with_dictionary(&d);
                for g in goldens().iter().filter(|g| g.dict == "formatted").take(3) {
                    let _ = dec.decompress(&g.frame, 1 << 20);
                }
            }
        }
    }
    // Repeat offsets of zero, or beyond the content, are refused.
    let content = DecoderDictionary::new(&bytes).unwrap().content_len();
    let reps_at = bytes.len() - content - 12;
    for rep in [0u32, content as u32 + 1] {
        let mut bad = bytes.clone();
        bad[reps_at..reps_at + 4].copy_from_slice(&rep.to_le_bytes());
        assert!(matches!(
            DecoderDictionary::new(&bad),
            Err(ZstdError::BadDictionary { .. })
        ));
    }
    // Fewer than 8 bytes, or no magic number: raw content.
    assert_eq!(
        DecoderDictionary::new(&bytes[..7]).unwrap().content_len(),
        7
    );
    assert_eq!(DecoderDictionary::new(b"plain text").unwrap().id(), 0);
}

#[test]
fn a_dictionary_frame_is_sized_from_its_header_not_from_the_limit() {
    // A frame naming its dictionary declares its size like any other: the output Vec is
    // sized from it (and small outputs take the contiguous-dictionary path), not from the
    // caller's limit.
    let (formatted, _) = dictionaries();
    let g = goldens()
        .into_iter()
        .find(|g| g.dict == "formatted" && g.content.len() > 5000)
        .unwrap();
    let v = Decoder::with_dictionary(&formatted)
        .decompress(&g.frame, 256 << 20)
        .unwrap();
    assert!(v == g.content);
    assert!(
        v.capacity() < 1 << 20,
        "{} bytes reserved for {}",
        v.capacity(),
        v.len()
    );
    // Two frames into a buffer one byte short: the second does not fit.
    let both = [g.frame.clone(), g.frame.clone()].concat();
    let mut out = vec![0u8; 2 * g.content.len() - 1];
    match Decoder::with_dictionary(&formatted).decompress_into(&both, &mut out) {
        Err(ZstdError::TooLarge { limit }) => assert_eq!(limit, out.len()),
        other => panic!("{other:?}"),
    }
    let mut out = vec![0u8; 2 * g.content.len()];
    let n = Decoder::with_dictionary(&formatted)
        .decompress_into(&both, &mut out)
        .unwrap();
    assert!(n == out.len() && out[..n / 2] == g.content[..] && out[n / 2..] == g.content[..]);
}

#[test]
fn dictionary_compression_gives_libzstd_frames() {
    // Raw content, a trained (formatted) dictionary, and one with other repeat offsets.
    let dicts = [
        ("raw", read("raw.dict")),
        ("formatted", read("formatted.dict")),
        ("reps", read("reps.dict")),
    ];
    let mut checked = 0;
    for g in goldens() {
        // The two 40 000-byte frames come from ZSTD_compress2 with a 1 KiB window, not from
        // ZSTD_compress_usingDict.
        if g.content.len() == 40_000 {
            continue;
        }
        let dict = &dicts.iter().find(|(name, _)| *name == g.dict).unwrap().1;
        let what = format!(
            "{} dictionary, {} bytes, level {}",
            g.dict,
            g.content.len(),
            g.level
        );
        let mut ours = Vec::new();
        Compressor::new(g.level)
            .unwrap()
            .compress_with_dict_into(&g.content, dict, &mut ours)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(ours == g.frame, "{what}: the frame differs from libzstd's");
        checked += 1;
    }
    assert_eq!(
        checked, 84,
        "every ZSTD_compress_usingDict golden was compared"
    );
}

#[test]
fn dictionaries_below_eight_bytes_are_ignored_as_libzstd_ignores_them() {
    // The parameters still follow the dictionary's size; the content is not loaded.
    let src = generate(Shape::Text, 3000, 7);
    for dict in [&b""[..], b"a", b"1234567"] {
        let mut with = Vec::new();
        Compressor::new(1)
            .unwrap()
            .compress_with_dict_into(&src, dict, &mut with)
            .unwrap();
        let mut without = Vec::new();
        Compressor::new(1)
            .unwrap()
            .compress_into(&src, &mut without)
            .unwrap();
        assert_eq!(with, without, "dictionary of {} bytes", dict.len());
    }
    // A formatted dictionary whose header is damaged is refused by name, nothing written.
    let mut damaged = read("formatted.dict");
    damaged[9] ^= 0xFF;
    damaged[10] ^= 0xFF;
    let mut out = Vec::new();
    let err = Compressor::new(1)
        .unwrap()
        .compress_with_dict_into(&src, &damaged, &mut out)
        .unwrap_err();
    assert!(matches!(err, ZstdError::BadDictionary { .. }), "{err}");
    assert!(out.is_empty());
}

#[test]
fn damaged_formatted_dictionaries_never_panic_the_encoder_and_frames_decode() {
    // Every accepted damaged dictionary gives a frame our decoder reads back with the same
    // dictionary; the others are refused by name. Levels of every strategy family.
    let good = read("formatted.dict");
    let src = generate(Shape::Text, 5000, 99);
    let mut seed = 0x5EED_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut accepted, mut refused) = (0, 0);
    for i in 0..600 {
        let mut dict = good.clone();
        // Damage within the header (entropy tables and repeat offsets), where parsing is.
        for _ in 0..1 + i % 3 {
            let at = 8 + (next() % 200) as usize;
            dict[at] ^= 1 << (next() % 8);
        }
        let level = [1, 3, 6, 10, 19][i % 5];
        let mut frame = Vec::new();
        match Compressor::new(level)
            .unwrap()
            .compress_with_dict_into(&src, &dict, &mut frame)
        {
            Ok(_) => {
                accepted += 1;
                let d = DecoderDictionary::new(&dict).unwrap_or_else(|e| {
                    panic!("case {i}: the encoder took it, the decoder says {e}")
                });
                let mut back = vec![0u8; src.len()];
                Decoder::with_dictionary(&d)
                    .decompress_exact(&frame, &mut back)
                    .unwrap_or_else(|e| panic!("case {i} level {level}: {e}"));
                assert!(back == src, "case {i} level {level}: wrong bytes");
            }
            Err(ZstdError::BadDictionary { .. }) => {
                refused += 1;
                assert!(frame.is_empty());
            }
            Err(e) => panic!("case {i}: {e}"),
        }
    }
    assert!(
        accepted > 50 && refused > 50,
        "both paths taken: {accepted} / {refused}"
    );
}

/// `formatted.dict` is libzstd's `ZDICT_trainFromBuffer` on these 400 samples (see
/// `make_dict_goldens`): our trainer makes the same bytes.
#[test]
fn training_on_the_golden_samples_gives_libzstds_dictionary() {
    let training: Vec<Vec<u8>> = (0..400u64)
        .map(|i| generate(Shape::Text, 1000 + (i as usize * 37) % 3000, 100 + i))
        .collect();
    let golden = read("formatted.dict");
    let ours = zarkit::zstd::train_dictionary(&training, 8192).unwrap();
    assert_eq!(ours.len(), golden.len());
    assert!(ours == golden, "the trained dictionary equals libzstd's");
    // Too few samples, or too small a capacity, are refused by name.
    let few = zarkit::zstd::train_dictionary(&training[..6], 8192).unwrap_err();
    assert!(few.to_string().contains("6 samples are too few"), "{few}");
    let small = zarkit::zstd::train_dictionary(&training, 100).unwrap_err();
    assert!(small.to_string().contains("at least 256 bytes"), "{small}");
}

/// `zstd -D raw.dict --long=W` with a window below the dictionary's 8 KiB, from a file and
/// from standard input: libzstd's frames (`stream-long.txt`, written by
/// `make_dict_goldens`). The encoder refused these until it could make them; once allowed,
/// a stream of unknown size at levels 4-9 capped its own tables by the window as if the
/// size were known, and found other matches.
#[test]
fn long_windows_below_the_dictionary_match_the_oracle() {
    use sha2::{Digest, Sha256};
    use zarkit::zstd::{EncoderDictionary, StreamEncoder};
    let raw = read("raw.dict");
    let text = String::from_utf8(read("stream-long.txt")).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 8, "malformed line: {line:?}");
        assert_eq!(f[0], "text");
        let (size, seed): (usize, u64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        let level: i32 = f[3].parse().unwrap();
        let file = f[4] == "file";
        let window_log: u32 = f[5].parse().unwrap();
        let src = generate(Shape::Text, size, seed);
        let dict = EncoderDictionary::new(&raw, level).unwrap();
        let mut enc = StreamEncoder::with_dictionary(&dict);
        enc.set_checksum(true).unwrap();
        enc.set_long_distance_matching(Some(window_log)).unwrap();
        let mut frame = Vec::new();
        if file {
            enc.set_pledged_size(Some(size as u64)).unwrap();
            enc.finish(&src, &mut frame).unwrap();
        } else {
            enc.compress(&src, &mut frame).unwrap();
            enc.finish(&[], &mut frame).unwrap();
        }
        let hash: String = Sha256::digest(&frame)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if frame.len().to_string() != f[6] || hash != f[7] {
            failures.push(format!(
                "L{level} {} --long={window_log}: {} bytes, the oracle's {}",
                f[4],
                frame.len(),
                f[6]
            ));
        }
        n += 1;
    }
    assert_eq!(n, 36, "every golden line read");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
