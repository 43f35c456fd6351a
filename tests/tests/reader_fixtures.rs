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

/// `.` components are skipped (`./Sub`, as shells write paths) and a path ending in a
/// separator finds only a directory; before, `./Sub` and `.` were "no entry" and
/// `Sub/Deeper/deep.txt/` found the file.
#[test]
fn lookup_skips_dot_components_and_a_trailing_separator_asks_for_a_directory() {
    let a = Archive::open(zar("basic/reference.zar")).unwrap();
    assert_eq!(
        a.get("./Sub/./Deeper/deep.txt").unwrap().path(),
        b"Sub/Deeper/deep.txt"
    );
    assert!(a.lookup(".").unwrap().path().is_empty());
    assert!(a.lookup("./").unwrap().is_dir());
    assert!(a.lookup("sub/deeper/").unwrap().is_dir());
    assert!(a.lookup("sub\\deeper\\").unwrap().is_dir());
    assert!(a.lookup("sub/deeper/deep.txt/").is_none());
    assert!(a.lookup("sub/deeper/deep.txt\\").is_none());
    assert!(a.lookup("sub/deeper/deep.txt/.").is_none());
    assert!(a.lookup("sub/deeper/.").unwrap().is_dir());
    assert!(a.get("sub/deeper/deep.txt/").is_err());
    assert!(a.lookup("sub/deeper/deep.txt").unwrap().is_file());
}

/// Counts the blocks it decodes, and refuses them all when `refuse` is set.
struct Probe {
    decoded: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    refuse: bool,
}

impl zarkit::zar::BlockDecompressor for Probe {
    fn context(&self) -> Box<dyn zarkit::zar::BlockDecodeContext> {
        Box::new(ProbeContext {
            inner: zarkit::zar::ZstdDecompressor.context(),
            decoded: self.decoded.clone(),
            refuse: self.refuse,
        })
    }
    fn describe(&self) -> String {
        "probe".into()
    }
}

struct ProbeContext {
    inner: Box<dyn zarkit::zar::BlockDecodeContext>,
    decoded: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    refuse: bool,
}

impl zarkit::zar::BlockDecodeContext for ProbeContext {
    fn decode_block(
        &mut self,
        stored: &[u8],
        out: &mut [u8],
    ) -> Result<(), zarkit::zstd::ZstdError> {
        self.decoded
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if self.refuse {
            return Err(zarkit::zstd::ZstdError::Malformed {
                at: 0,
                reason: "the probe refuses every block",
            });
        }
        self.inner.decode_block(stored, out)
    }
}

#[test]
fn the_block_decompressor_of_the_open_options_decodes_every_compressed_block() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let decoded = Arc::new(AtomicUsize::new(0));
    let probe = Probe {
        decoded: decoded.clone(),
        refuse: false,
    };
    let a = OpenOptions::new()
        .cache_blocks(64)
        .decompressor(Arc::new(probe))
        .open(zar("basic/reference.zar"))
        .unwrap();
    check_manifest(&a, "basic/manifest.txt");
    let compressed = (0..a.block_count())
        .filter(|&b| a.block_extent(b).unwrap().1 != 65536)
        .count();
    assert!(compressed > 0);
    assert_eq!(decoded.load(Ordering::Relaxed), compressed);

    // A decoder that refuses: reads fail naming the block and the decoder's reason.
    let refusing = Probe {
        decoded: Arc::new(AtomicUsize::new(0)),
        refuse: true,
    };
    let a = OpenOptions::new()
        .decompressor(Arc::new(refusing))
        .open(zar("basic/reference.zar"))
        .unwrap();
    let block = (0..a.block_count())
        .find(|&b| a.block_extent(b).unwrap().1 != 65536)
        .unwrap();
    let err = a.read_block(block).unwrap_err().to_string();
    assert!(
        err.contains(&format!("block {block}")) && err.contains("the probe refuses every block"),
        "{err}"
    );
}
