//! Every archive in fixtures/zar/bad is refused with a clear error (or, for the valid edge
//! cases, read correctly), and nothing panics.

use std::io::Read;

use zarkit::zar::{Archive, ZarError};
use zarkit_tests::zar;

fn open_err(name: &str) -> String {
    match Archive::open(zar(&format!("bad/{name}"))) {
        Ok(_) => panic!("{name} must be refused at open"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn structural_defects_are_refused_at_open_with_a_named_reason() {
    let cases: &[(&str, &str)] = &[
        ("dotdot_dir.zar", "`..`"),
        ("dotdot_file.zar", "separator"),
        ("slash_name.zar", "separator"),
        ("backslash_name.zar", "separator"),
        ("nul_name.zar", "NUL"),
        ("empty_name.zar", "empty"),
        ("dot_dir.zar", "`.`"),
        ("cycle.zar", "already part of the tree"),
        ("child_range_oob.zar", "only 4 nodes"),
        ("child_range_overflow.zar", "nodes"),
        ("truncated.zar", "not a ZAR archive"),
        ("bad_magic.zar", "magic"),
        ("bad_version.zar", "unsupported ZAR version"),
        ("total_size_mismatch.zar", "312"),
        ("section_wrap.zar", "name table"),
        ("extent_beyond_blocks.zar", "ok.txt"),
        ("huge_file_size.zar", "ok.txt"),
        (
            "record_outside_data.zar",
            "outside the 41-byte compressed-data section",
        ),
        ("root_named.zar", "root directory carries a name"),
    ];
    for (name, needle) in cases {
        let msg = open_err(name);
        assert!(
            msg.contains(needle),
            "{name}: message {msg:?} should mention {needle:?}"
        );
    }
}

#[test]
fn corrupt_block_fails_reads_of_the_files_in_it_naming_file_and_block() {
    let a = Archive::open(zar("bad/corrupt_block.zar")).unwrap();
    for p in ["ok.txt", "text.txt"] {
        let err = a
            .open_file(p)
            .unwrap()
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(p) && msg.contains("block 0"), "{msg}");
    }
}

#[test]
fn short_block_is_refused_on_read() {
    let a = Archive::open(zar("bad/short_block.zar")).unwrap();
    let err = a
        .open_file("short.txt")
        .unwrap()
        .read_to_end(&mut Vec::new())
        .unwrap_err();
    assert!(err.to_string().contains("decodes to 1000 bytes"), "{err}");
}

#[test]
fn a_block_frame_declaring_another_content_size_fails_the_read_and_verify() {
    for name in ["fcs_1gib.zar", "fcs_small.zar"] {
        let a = Archive::open(zar(&format!("bad/{name}"))).unwrap();
        let err = a
            .open_file("a.bin")
            .unwrap()
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert!(err.to_string().contains("block 0"), "{name}: {err}");
        let report =
            zarkit::zar::verify(&a, &zarkit::zar::VerifyOptions::new(), &mut |_| {}).unwrap();
        assert_eq!(report.problems.len(), 1, "{name}");
        assert_eq!(report.problems[0].block, 0, "{name}");
    }
}

#[test]
fn bad_hash_reads_but_hash_differs() {
    let a = Archive::open(zar("bad/bad_hash.zar")).unwrap();
    let mut s = String::new();
    a.open_file("ok.txt")
        .unwrap()
        .read_to_string(&mut s)
        .unwrap();
    a.open_file("d/f.txt")
        .unwrap()
        .read_to_string(&mut s)
        .unwrap();
    assert_ne!(a.compute_hash().unwrap(), a.footer().integrity_hash);
}

#[test]
fn long_name_200_reads_correctly() {
    let a = Archive::open(zar("bad/long_name_200.zar")).unwrap();
    let unit = "ABCDEFGHIJKLMNOPQRSTUVWXYZ-abcdefghijklmnopqrstuvwxyz_0123456789";
    let mut name = String::from("name_of_200_bytes_");
    while name.len() < 196 {
        name.push_str(unit);
    }
    name.truncate(196);
    name.push_str(".txt");
    assert_eq!(name.len(), 200);
    let mut s = String::new();
    a.open_file(&name).unwrap().read_to_string(&mut s).unwrap();
    assert_eq!(s, "this file has a 200-byte name\n");
    s.clear();
    a.open_file("short.txt")
        .unwrap()
        .read_to_string(&mut s)
        .unwrap();
    assert_eq!(s, "short name\n");
}

#[test]
fn every_bad_fixture_gives_errors_not_panics_through_a_reader_too() {
    for e in std::fs::read_dir(zar("bad")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "zar") {
            let r = Archive::from_reader(std::io::Cursor::new(std::fs::read(&p).unwrap()));
            if let Ok(a) = r {
                for entry in a.walk().filter(|e| e.is_file()).collect::<Vec<_>>() {
                    let _ = entry.open().unwrap().read_to_end(&mut Vec::new());
                }
            } else if let Err(ZarError::Io { .. }) = r {
                panic!(
                    "{}: structural problems must not surface as I/O errors",
                    p.display()
                );
            }
        }
    }
}

/// An archive cut short (an incomplete download) is said to possibly be so, not only "not
/// a ZAR archive: the footer magic is ...".
#[test]
fn a_truncated_archive_is_said_to_be_possibly_cut_short() {
    let bytes = std::fs::read(zar("basic/reference.zar")).unwrap();
    let cut = bytes[..bytes.len() / 2].to_vec();
    let err = Archive::from_read_at(cut).unwrap_err();
    assert!(err.to_string().contains("or was cut short"), "{err}");
}
