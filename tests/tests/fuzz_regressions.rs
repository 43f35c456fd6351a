//! Every input in tests/fuzz-regressions/<target>/ (crashes found by fuzzing, and seeds)
//! replays through the same code the fuzz target runs.

use std::path::Path;

use zarkit_tests::exercise;

fn replay(target: &str, f: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz-regressions")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut n = 0;
    for e in entries {
        let p = e.unwrap().path();
        if p.is_file() && p.extension().is_none_or(|x| x != "md") {
            f(&std::fs::read(&p).unwrap());
            n += 1;
        }
    }
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
