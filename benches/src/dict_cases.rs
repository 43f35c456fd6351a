//! Dictionary-mode differential cases: a generator of (dictionary, source) pairs and the
//! comparison of our `Compressor::compress_with_dict_into` with libzstd 1.5.7's
//! `ZSTD_compress_usingDict`, shared by the `dict_diff` harness and the edge-case test below
//! (which CI runs).

use zarkit::zstd::{Compressor, EncoderDictionary};
use zarkit_corpus::{Shape, SplitMix64, generate};

use crate::{anatomy, oracle};

/// Largest dictionary drawn (the range: 1 B to 112 KiB).
pub const MAX_DICT: u64 = 112 * 1024;

/// One case: a name, a dictionary and a source.
pub struct Case {
    pub name: String,
    pub dict: Vec<u8>,
    pub src: Vec<u8>,
}

/// How a case's dictionary relates to its source.
#[derive(Clone, Copy)]
pub enum DictKind {
    /// The bytes generated just before the source (as a prefix or a trained dictionary
    /// would hold them): many matches into the dictionary.
    Prefix,
    /// The source's shape with another seed.
    SameShape,
    /// Another shape.
    OtherShape(Shape),
    /// A formatted dictionary `ZDICT_trainFromBuffer` trained with this capacity on other
    /// files of the source's shape (entropy tables, repeat offsets and content).
    Trained(usize),
}

/// A dictionary libzstd trains on 64 files of `shape` (1-4 KiB each) with `capacity`; where
/// it cannot (shapes too uniform to train on), one trained on text.
pub fn trained(shape: Shape, capacity: usize, seed: u64) -> Vec<u8> {
    train_on(shape, capacity, seed)
        .unwrap_or_else(|_| train_on(Shape::Text, capacity, seed).expect("libzstd trains on text"))
}

fn train_on(shape: Shape, capacity: usize, seed: u64) -> Result<Vec<u8>, String> {
    let mut rng = SplitMix64::new(seed);
    let samples: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            let size = 1024 + rng.below(3072) as usize;
            generate(shape, size, rng.next_u64())
        })
        .collect();
    oracle::try_train_dictionary(&samples, capacity)
}

/// The case of `shape`, `kind`, sizes and `seed`.
pub fn make(shape: Shape, kind: DictKind, dict_size: usize, src_size: usize, seed: u64) -> Case {
    let (label, dict, src) = match kind {
        DictKind::Prefix => {
            let all = generate(shape, dict_size + src_size, seed);
            let (d, s) = all.split_at(dict_size);
            ("prefix", d.to_vec(), s.to_vec())
        }
        DictKind::SameShape => (
            "same-shape",
            generate(shape, dict_size, seed ^ 0xD1C7),
            generate(shape, src_size, seed),
        ),
        DictKind::Trained(capacity) => (
            "trained",
            trained(shape, capacity, seed ^ 0x7EA1),
            generate(shape, src_size, seed),
        ),
        DictKind::OtherShape(other) => (
            "other-shape",
            generate(other, dict_size, seed ^ 0xD1C7),
            generate(shape, src_size, seed),
        ),
    };
    Case {
        name: format!(
            "{}:{src_size} dict {label}:{dict_size} #{seed:x}",
            shape.name()
        ),
        dict,
        src,
    }
}

/// A random case: dictionary sizes spread over 1 B .. 112 KiB, sources up to `max_size`
/// (every other one below 20 KiB).
pub fn random(rng: &mut SplitMix64, i: usize, max_size: u64) -> Case {
    let pick = |rng: &mut SplitMix64| Shape::ALL[rng.below(Shape::ALL.len() as u64) as usize];
    let shape = pick(rng);
    let dict_size = match rng.below(4) {
        0 => rng.below(64) as usize + 1,
        1 => rng.below(4096) as usize + 1,
        2 => rng.below(32 * 1024) as usize + 1,
        _ => rng.below(MAX_DICT) as usize + 1,
    };
    let src_size = if i.is_multiple_of(2) {
        rng.below(20_000.min(max_size) + 1) as usize
    } else {
        rng.below(max_size + 1) as usize
    };
    let seed = rng.next_u64();
    let kind = match rng.below(4) {
        0 => DictKind::Prefix,
        1 => DictKind::SameShape,
        2 => DictKind::Trained([1024, 4096, 16384][rng.below(3) as usize]),
        _ => DictKind::OtherShape(pick(rng)),
    };
    make(shape, kind, dict_size, src_size, seed)
}

/// The dictionaries [`ldm_case`] pairs with its source.
#[derive(Clone, Copy, Debug)]
pub enum LdmDict {
    /// Raw content: the source's pool bytes, so the long-distance finder matches into it.
    Prefix(usize),
    /// A formatted dictionary trained on text (content, entropy tables, repeat offsets).
    Trained,
    /// A formatted dictionary whose content is 5 bytes (no extDict segment, yet loaded).
    TinyContent,
    /// Raw content below 8 bytes: not loaded at all.
    Ignored,
}

/// A case for level 22's long-distance matching, which libzstd turns on where source and
/// dictionary exceed 64 MiB: a source of `src_size` bytes made of 64 KiB segments drawn
/// from a pool of 2 MiB (text, binary, records, far repeats), each copy with a few edits, so
/// that it repeats megabytes back and compresses quickly even at level 22; `dict`'s
/// content comes from the same pool where it has any.
pub fn ldm_case(dict: LdmDict, src_size: usize, seed: u64) -> Case {
    const SEGMENT: usize = 64 << 10;
    let mut rng = SplitMix64::new(seed);
    let shapes = [
        Shape::Text,
        Shape::Binary,
        Shape::Records,
        Shape::FarRepeats,
    ];
    let pool: Vec<u8> = (0..32)
        .flat_map(|i| generate(shapes[i % shapes.len()], SEGMENT, rng.next_u64()))
        .collect();
    let mut src = Vec::with_capacity(src_size);
    while src.len() < src_size {
        let from = rng.below(32) as usize * SEGMENT;
        let len = SEGMENT.min(src_size - src.len());
        let at = src.len();
        src.extend_from_slice(&pool[from..from + len]);
        for _ in 0..4 {
            let i = at + rng.below(len as u64) as usize;
            src[i] = rng.next_u64() as u8;
        }
    }
    let (label, bytes) = match dict {
        LdmDict::Prefix(size) => {
            let from = rng.below((pool.len() - size) as u64) as usize;
            ("prefix", pool[from..from + size].to_vec())
        }
        LdmDict::Trained => ("trained", trained(Shape::Text, 16384, seed ^ 0x7EA1)),
        LdmDict::TinyContent => ("tiny-content", tiny_content(&trained(Shape::Text, 4096, 1))),
        LdmDict::Ignored => ("ignored", pool[..5].to_vec()),
    };
    Case {
        name: format!("ldm:{src_size} dict {label}:{} #{seed:x}", bytes.len()),
        dict: bytes,
        src,
    }
}

/// A case for the window's edge with long-distance matching: a dictionary of 100 KiB of
/// random bytes, and a source of zeros in which a copy of its first 64 KiB lies in the
/// block where the 128 MiB window starts to slide over the dictionary. The copy's matches
/// reach back more than a window, into the dictionary libzstd still counts as loaded
/// (`loadedDictEnd`) for that block. (The match finder finds them too, so this case does
/// not tell whether the long-distance finder honours `loadedDictEnd`: the same frames
/// come out without it.)
pub fn ldm_window_edge_case(seed: u64) -> Case {
    let dict_size = 100 << 10;
    let dict = generate(Shape::Random, dict_size, seed);
    let window = 1usize << 27;
    // Index of source position p: 2 + dict_size + p. The last block before position
    // 2^27 ends past index 2^27 and below 2^27 + 2 + dict_size: in it the window reaches
    // back over the whole dictionary while it counts as loaded.
    let copy = window - dict_size..window - dict_size + (64 << 10);
    let mut src = vec![0u8; window + (256 << 10)];
    src[copy.clone()].copy_from_slice(&dict[..copy.len()]);
    Case {
        name: format!(
            "ldm-window-edge:{} dict random:{dict_size} #{seed:x}",
            src.len()
        ),
        dict,
        src,
    }
}

/// A random [`ldm_case`]: the dictionary kinds in turn, each with a source just above 64
/// MiB with its dictionary and one past the 128 MiB window, which then slides over the
/// dictionary.
pub fn ldm_random(rng: &mut SplitMix64, i: usize) -> Case {
    let dict = match (i / 2) % 4 {
        0 => LdmDict::Prefix(1 + rng.below(MAX_DICT) as usize),
        1 => LdmDict::Trained,
        2 => LdmDict::TinyContent,
        _ => LdmDict::Ignored,
    };
    let src_size = if i.is_multiple_of(2) {
        (64 << 20) + 1 + rng.below(2 << 20) as usize
    } else {
        (128 << 20) + rng.below(4 << 20) as usize
    };
    ldm_case(dict, src_size, rng.next_u64())
}

/// `dict`'s header (entropy tables) with 5 bytes of content and repeat offsets 1, 2, 3.
pub fn tiny_content(dict: &[u8]) -> Vec<u8> {
    let header = zarkit::zstd::DecoderDictionary::new(dict).unwrap();
    let content_start = dict.len() - header.content_len();
    let mut out = dict[..content_start - 12].to_vec();
    for rep in [1u32, 2, 3] {
        out.extend_from_slice(&rep.to_le_bytes());
    }
    out.extend_from_slice(b"hello");
    out
}

/// What one comparison found.
pub enum Outcome {
    /// Our frame equals libzstd's and decodes back with libzstd; the frame's size, and
    /// whether it names a dictionary ID (a formatted dictionary's).
    Identical(usize, bool),
    /// Anything else, described.
    Failed(String),
}

/// Compress `case` at `level` both ways through `ZSTD_compress_usingDict` and compare; our
/// frame must also decode with libzstd and the dictionary.
pub fn check(case: &Case, level: i32) -> Outcome {
    check_entry(case, level, EntryPoint::UsingDict)
}

/// Which libzstd entry point a comparison checks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EntryPoint {
    /// `ZSTD_compress_usingDict`: `Compressor::compress_with_dict_into`.
    UsingDict,
    /// `ZSTD_compress_usingCDict` with `ZSTD_createCDict(dict, level)`:
    /// `Compressor::compress_prepared_into` with an `EncoderDictionary`.
    UsingCDict,
    /// `ZSTD_CCtx_loadDictionary` + `ZSTD_compress2`: `Compressor::compress_loaded_dict_into`.
    Loaded,
}

/// Compress `case` at `level` through `entry`, ours and libzstd's, and compare; our frame
/// must also decode with libzstd and the dictionary.
pub fn check_entry(case: &Case, level: i32, entry: EntryPoint) -> Outcome {
    let Case { name, dict, src } = case;
    let what = match entry {
        EntryPoint::UsingDict => "",
        EntryPoint::UsingCDict => " (CDict)",
        EntryPoint::Loaded => " (loaded)",
    };
    let mut ours = Vec::new();
    let result = Compressor::new(level).and_then(|mut c| match entry {
        EntryPoint::UsingDict => c.compress_with_dict_into(src, dict, &mut ours),
        _ => EncoderDictionary::new(dict, level).and_then(|p| match entry {
            EntryPoint::Loaded => c.compress_loaded_dict_into(src, &p, &mut ours),
            _ => c.compress_prepared_into(src, &p, &mut ours),
        }),
    });
    match result {
        Ok(_) => {}
        Err(e) => return Outcome::Failed(format!("ERROR{what} {name} L{level}: {e}")),
    }
    let expected = match entry {
        EntryPoint::UsingDict => oracle::compress_using_dict(src, dict, level),
        EntryPoint::UsingCDict => oracle::compress_using_cdict(src, dict, level),
        EntryPoint::Loaded => oracle::compress_loaded_dict(src, dict, level),
    };
    if ours != expected {
        let first = ours
            .iter()
            .zip(&expected)
            .position(|(a, b)| a != b)
            .unwrap_or(ours.len().min(expected.len()));
        return Outcome::Failed(format!(
            "MISMATCH{what} {name} L{level}: ours {} bytes, oracle {} bytes; first difference at byte {first}: {}",
            ours.len(),
            expected.len(),
            anatomy::locate(&expected, first)
        ));
    }
    match oracle::decompress_using_dict(&ours, dict, src.len()) {
        Ok(d) if d == *src => Outcome::Identical(ours.len(), ours[4] & 3 != 0),
        Ok(_) => Outcome::Failed(format!(
            "DECODE (libzstd){what} {name} L{level}: wrong content"
        )),
        Err(e) => Outcome::Failed(format!("DECODE (libzstd){what} {name} L{level}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dictionary sizes around the thresholds libzstd treats apart: ignored below 8 bytes,
    /// loaded but not indexed at exactly 8 (insertion then resumes at the source's start),
    /// indexed from 9 on.
    #[test]
    fn edge_dictionaries_give_libzstd_frames() {
        let mut failures = Vec::new();
        let mut identical = 0;
        for (i, dict_size) in [1, 7, 8, 9, 16, 17, 300, 4096].into_iter().enumerate() {
            for (shape, src_size) in [
                (Shape::Text, 11_357),
                (Shape::Mixed, 5_000),
                (Shape::Records, 70_000),
            ] {
                let case = make(
                    shape,
                    DictKind::Prefix,
                    dict_size,
                    src_size,
                    0xED6E + i as u64,
                );
                for level in [-1, 1, 3, 5, 7, 8, 10, 12, 16, 19] {
                    match check(&case, level) {
                        Outcome::Identical(..) => identical += 1,
                        Outcome::Failed(what) => failures.push(what),
                    }
                }
            }
        }
        // Formatted dictionaries: trained ones of three sizes, and one whose content is
        // shorter than 8 bytes (the window then holds no extDict segment, yet the source's
        // indices start after the content).
        let text = trained(Shape::Text, 4096, 1);
        let records = trained(Shape::Records, 16384, 2);
        let small = trained(Shape::Text, 1024, 3);
        let tiny = tiny_content(&text);
        for dict in [&text, &records, &small, &tiny] {
            for (shape, src_size) in [
                (Shape::Text, 3000),
                (Shape::Records, 70_000),
                (Shape::Text, 0),
            ] {
                let case = Case {
                    name: format!(
                        "{}:{src_size} formatted dict of {} bytes",
                        shape.name(),
                        dict.len()
                    ),
                    dict: dict.clone(),
                    src: generate(shape, src_size, 0xF0 + dict.len() as u64),
                };
                for level in [-1, 1, 3, 5, 7, 8, 10, 12, 16, 19] {
                    match check(&case, level) {
                        Outcome::Identical(_, named) => {
                            identical += 1;
                            assert!(named, "{}: the frame names the dictionary", case.name);
                        }
                        Outcome::Failed(what) => failures.push(what),
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(identical >= 200, "most cases are implemented ({identical})");
    }

    /// Prepared dictionaries (`ZSTD_createCDict` + `ZSTD_compress_usingCDict`, and a loaded
    /// one: `ZSTD_CCtx_loadDictionary` + `ZSTD_compress2`) on sources
    /// libzstd copies the CDict for: above the attach cutoffs, below and above 128 KiB (the
    /// CDict's parameters or the source's), with the window raised to the source and the
    /// post-block splitter decided before.
    #[test]
    fn prepared_dictionaries_give_libzstd_frames() {
        let text = trained(Shape::Text, 8192, 4);
        let raw = generate(Shape::Text, 20_000, 5);
        let mut failures = Vec::new();
        let mut identical = 0;
        for dict in [&text, &raw] {
            for (shape, src_size) in [
                (Shape::Text, 3_000),
                (Shape::Text, 40_000),
                (Shape::Mixed, 90_000),
                (Shape::Text, 200_000),
            ] {
                let case = Case {
                    name: format!("{}:{src_size} dict of {} bytes", shape.name(), dict.len()),
                    dict: dict.clone(),
                    src: generate(shape, src_size, 0xCD + dict.len() as u64),
                };
                for level in [1, 3, 5, 9, 12, 16, 19] {
                    for entry in [EntryPoint::UsingCDict, EntryPoint::Loaded] {
                        match check_entry(&case, level, entry) {
                            Outcome::Identical(..) => identical += 1,
                            Outcome::Failed(what) => failures.push(format!("{entry:?}: {what}")),
                        }
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert_eq!(identical, 112, "every case was compared");
        // A dictionary too short to load still picks the attached parameters.
        let case = make(Shape::TwoSymbol, DictKind::Prefix, 2, 322, 0xE6C4);
        for level in [2, 3] {
            let outcome = check_entry(&case, level, EntryPoint::UsingCDict);
            assert!(
                matches!(outcome, Outcome::Identical(..)),
                "2-byte dictionary, level {level}"
            );
        }
    }

    /// Level 22 above 64 MiB turns on long-distance matching; a dictionary loaded for the
    /// frame (`ZSTD_compress_usingDict`, and `ZSTD_compress_usingCDict` for large sources)
    /// seeds that finder too (this case's frame differs without it), a CDict attached or
    /// copied (`ZSTD_CCtx_loadDictionary`) does not. About 8 s a comparison.
    #[test]
    fn dictionaries_with_long_distance_matching_give_libzstd_frames() {
        let case = ldm_case(LdmDict::Prefix(54_663), (64 << 20) + 2_000, 0xCA05);
        for entry in [EntryPoint::UsingDict, EntryPoint::Loaded] {
            let outcome = check_entry(&case, 22, entry);
            assert!(
                matches!(outcome, Outcome::Identical(..)),
                "{entry:?}: {}",
                match outcome {
                    Outcome::Failed(what) => what,
                    Outcome::Identical(..) => String::new(),
                }
            );
        }
    }
}
