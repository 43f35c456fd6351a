//! Every input in tests/fuzz-regressions/<target>/ (crashes found by fuzzing, and seeds)
//! replays through the same code the fuzz target runs.

use std::path::Path;

use zarkit_tests::exercise;

/// Replay every input of `tests/fuzz-regressions/<target>/`; returns how many. A missing
/// folder is an error: each target keeps at least its seed there.
fn replay(target: &str, f: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz-regressions")
        .join(target);
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (every fuzz target keeps a folder)", dir.display()));
    let mut n = 0;
    for e in entries {
        let p = e.unwrap().path();
        if p.is_file() && p.extension().is_none_or(|x| x != "md") {
            f(&std::fs::read(&p).unwrap());
            n += 1;
        }
    }
    assert!(
        n > 0,
        "{}: no input replayed (keep at least the seed)",
        dir.display()
    );
    n
}

#[test]
fn archive_inputs_replay() {
    replay("archive", exercise::archive);
    for name in std::fs::read_dir(zarkit_tests::zar("bad")).unwrap() {
        let p = name.unwrap().path();
        if p.extension().is_some_and(|x| x == "zar") {
            exercise::archive(&std::fs::read(p).unwrap());
        }
    }
}

#[test]
fn archive_mutate_inputs_replay() {
    replay("archive_mutate", exercise::archive_mutate);
    for base in 0..3u8 {
        exercise::archive_mutate(&[base | 0x80]);
        let a = exercise::archive_reopens(exercise::BASES[base as usize]);
        assert!(a.is_some() || base == 1, "the valid bases open");
    }
}

#[test]
fn decode_inputs_replay() {
    replay("decode", exercise::decode);
}

#[test]
fn roundtrip_inputs_replay() {
    replay("roundtrip", exercise::roundtrip);
}

/// The differential target compares with native libzstd, which only the fuzz crate links;
/// its inputs replay here through our side of the comparison (encode, then decode back).
#[test]
fn differential_inputs_replay() {
    replay("differential", exercise::roundtrip);
}

#[test]
fn every_fuzz_target_has_a_regression_folder() {
    let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/fuzz_targets");
    for e in std::fs::read_dir(&targets).unwrap() {
        let p = e.unwrap().path();
        let Some(stem) = p.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz-regressions")
            .join(stem);
        assert!(
            folder.is_dir(),
            "fuzz target {stem} has no {}",
            folder.display()
        );
    }
}

/// The decode-differential target compares with native libzstd (fuzz crate only); its inputs
/// replay here through our decoder's side (no panic, both decode paths agree).
#[test]
fn decode_differential_inputs_replay() {
    replay("decode_differential", exercise::decode);
}

/// The dictionary decode-differential target compares with native libzstd (fuzz crate only);
/// its inputs replay here through our side (no panic, both decode paths agree).
#[test]
fn decode_dict_differential_inputs_replay() {
    replay("decode_dict_differential", exercise::decode_with_dict);
}

/// The dictionary compression differential target compares with native libzstd (fuzz
/// crate only); its inputs replay here through our side (encode with the dictionary, decode
/// back).
#[test]
fn dict_differential_inputs_replay() {
    replay("dict_differential", exercise::compress_with_dict);
}

#[test]
fn train_differential_inputs_replay() {
    replay("train_differential", exercise::train);
}

/// The streaming differential target compares with native libzstd (fuzz crate only); its
/// inputs replay here through our side (the calls through the encoder, the frame decoded
/// back).
#[test]
fn stream_differential_inputs_replay() {
    replay("stream_differential", exercise::stream);
}
