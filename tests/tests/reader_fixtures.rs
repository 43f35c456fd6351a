//! Every reference-made and multi-frame archive reads back to exactly its manifest.

use std::io::Read;

use zarkit::zar::{Archive, EntryKind, OpenOptions};
use zarkit_tests::{ManifestEntry, manifest, sha256_hex, zar};

fn check_manifest(archive: &Archive, rel: &str) {
    let entries = manifest(rel);
    let walked: Vec<String> = archive
        .walk()
        .map(|e| String::from_utf8(e.path()).unwrap())
        .collect();
    let listed: Vec<String> = entries
        .iter()
        .map(|m| match m {
            ManifestEntry::File { path, .. } | ManifestEntry::Dir { path } => path.clone(),
        })
        .collect();
    assert_eq!(walked, listed, "walk order equals canonical manifest order");
    for m in entries {
        if let ManifestEntry::File {
            offset,
            size,
            sha256,
            path,
        } = m
        {
            let e = archive.get(&path).unwrap();
            assert_eq!(e.kind(), EntryKind::File { offset, size }, "{path}");
            let mut data = Vec::new();
            e.open().unwrap().read_to_end(&mut data).unwrap();
            assert_eq!(sha256_hex(&data), sha256, "{path}");
        }
    }
}

#[test]
fn basic_reference_reads_back_to_manifest_with_and_without_mmap() {
    for mmap in [true, false] {
        let a = OpenOptions::new()
            .mmap(mmap)
            .open(zar("basic/reference.zar"))
            .unwrap();
        assert_eq!(a.block_count(), 18);
        assert_eq!(a.file_count(), 25);
        check_manifest(&a, "basic/manifest.txt");
        assert_eq!(a.compute_hash().unwrap(), a.footer().integrity_hash);
    }
}

#[test]
fn raw_reference_reads_back() {
    let a = Archive::open(zar("raw/reference.zar")).unwrap();
    check_manifest(&a, "raw/manifest.txt");
}

#[test]
fn multi_frame_block_decodes_to_expected_files() {
    let a = Archive::from_reader(std::fs::File::open(zar("multi-frame/multiframe.zar")).unwrap())
        .unwrap();
    for p in ["a.txt", "b.bin", "sub/c.txt"] {
        let want = std::fs::read(zar(&format!("multi-frame/expected/{p}"))).unwrap();
        let mut got = Vec::new();
        a.open_file(p).unwrap().read_to_end(&mut got).unwrap();
        assert!(got == want, "{p} differs");
    }
}

#[test]
fn lookup_ignores_ascii_case_and_accepts_both_separators() {
    let a = Archive::open(zar("basic/reference.zar")).unwrap();
    assert_eq!(
        a.get("sub\\DEEPER/deep.TXT").unwrap().path(),
        b"Sub/Deeper/deep.txt"
    );
    assert!(a.lookup("//Sub//").unwrap().is_dir());
    assert!(
        a.lookup("café/NAÏVE.txt").is_none(),
        "non-ASCII letters are not folded"
    );
    assert!(a.lookup("Sub/nope").is_none());
    assert!(a.lookup("sub.txt/x").is_none());
}
