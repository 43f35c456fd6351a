//! Merging directories and archives equals packing the merged tree laid out on disk, byte
//! for byte; a failed update leaves the archive as it was.

use std::path::Path;
use std::sync::Arc;

use zarkit::zar::{
    Archive, PackOptions, Source, WriterOptions, Zstd, merge, merge_to, pack_dir_to,
};

fn write(root: &Path, files: &[(&str, &[u8])]) {
    for (path, data) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, data).unwrap();
    }
}

fn opts(threads: usize) -> PackOptions {
    PackOptions::new().writer(
        WriterOptions::new()
            .compressor(Arc::new(Zstd::new(3).unwrap()))
            .threads(threads),
    )
}

fn pack(dir: &Path, threads: usize) -> Vec<u8> {
    pack_dir_to(dir, Vec::new(), &opts(threads), &[], &mut |_| {})
        .unwrap()
        .0
}

/// Base game, update and DLC-shaped trees; `update` replaces two files and adds others.
fn trees(root: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let base = root.join("base");
    let big: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
    write(
        &base,
        &[
            ("content/a.bin", &big),
            ("content/b.txt", b"base b"),
            ("content/sub/c.txt", b"base c"),
            ("code/app.rpx", b"base code"),
            ("meta/meta.xml", b"<menu/>"),
        ],
    );
    std::fs::create_dir_all(base.join("content/empty")).unwrap();
    let update = root.join("update");
    write(
        &update,
        &[
            ("content/b.txt", b"updated b, longer than before"),
            ("code/app.rpx", b"updated code"),
            ("content/new/d.txt", b"new in the update"),
            ("aoc/e.bin", &[5u8; 70_000]),
        ],
    );
    (base, update)
}

/// The merged tree laid out on disk: the base copied, then the update copied over it.
fn laid_out(root: &Path, base: &Path, update: &Path) -> std::path::PathBuf {
    let merged = root.join("merged");
    zarkit_tests::copy_tree(base, &merged);
    zarkit_tests::copy_tree(update, &merged);
    std::fs::create_dir_all(merged.join("content/empty")).unwrap();
    merged
}

#[test]
fn merging_two_trees_equals_packing_the_merged_tree() {
    let d = tempfile::tempdir().unwrap();
    let (base, update) = trees(d.path());
    let expected = pack(&laid_out(d.path(), &base, &update), 1);
    for threads in [1, 3] {
        let (got, _) = merge_to(
            &[Source::Dir(base.clone()), Source::Dir(update.clone())],
            Vec::new(),
            &opts(threads),
            &[],
            &mut |_| {},
        )
        .unwrap();
        assert!(got == expected, "{threads} threads");
    }
}

#[test]
fn merging_an_archive_and_a_directory_equals_packing_the_merged_tree() {
    let d = tempfile::tempdir().unwrap();
    let (base, update) = trees(d.path());
    let expected = pack(&laid_out(d.path(), &base, &update), 2);
    let base_archive = Archive::from_reader(std::io::Cursor::new(pack(&base, 1))).unwrap();
    let (got, summary) = merge_to(
        &[Source::Archive(&base_archive), Source::Dir(update.clone())],
        Vec::new(),
        &opts(2),
        &[],
        &mut |_| {},
    )
    .unwrap();
    assert!(got == expected);
    assert_eq!(summary.archive.files, 7);
    // Two archives merge the same way.
    let update_archive = Archive::from_reader(std::io::Cursor::new(pack(&update, 1))).unwrap();
    let (got, _) = merge_to(
        &[
            Source::Archive(&base_archive),
            Source::Archive(&update_archive),
        ],
        Vec::new(),
        &opts(1),
        &[],
        &mut |_| {},
    )
    .unwrap();
    assert!(got == expected);
}

#[test]
fn names_differing_only_in_case_replace_and_keep_the_first_spelling() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a");
    let b = d.path().join("b");
    write(&a, &[("Content/File.TXT", b"old")]);
    write(&b, &[("content/file.txt", b"new")]);
    let (bytes, _) = merge_to(
        &[Source::Dir(a), Source::Dir(b)],
        Vec::new(),
        &opts(1),
        &[],
        &mut |_| {},
    )
    .unwrap();
    let archive = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    let paths: Vec<String> = archive.walk().map(|e| e.path_display()).collect();
    assert_eq!(paths, ["Content", "Content/File.TXT"]);
    let mut s = String::new();
    std::io::Read::read_to_string(&mut archive.open_file("content/file.txt").unwrap(), &mut s)
        .unwrap();
    assert_eq!(s, "new");
}

#[test]
fn an_entry_replaced_by_one_of_another_kind_is_a_warning() {
    // Before, a later file `SUB` silently dropped an earlier directory `Sub` and its
    // subtree (and a later directory a file), with no word to the user.
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    write(
        &a,
        &[
            ("Sub/x.txt", b"x"),
            ("Sub/deep/y.txt", b"y"),
            ("note", b"n"),
        ],
    );
    write(&b, &[("SUB", b"a file now"), ("Note/inside.txt", b"i")]);
    let mut events = Vec::new();
    let (bytes, summary) = merge_to(
        &[Source::Dir(a), Source::Dir(b)],
        Vec::new(),
        &opts(1),
        &[],
        &mut |ev| {
            if let zarkit::zar::PackEvent::Warning(w) = ev {
                events.push(w.to_string());
            }
        },
    )
    .unwrap();
    let shown: Vec<String> = summary.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        shown,
        [
            "Note: a directory given later replaces the file of that name",
            "SUB: a file given later replaces the directory of that name and the 3 entries under it",
        ]
    );
    assert_eq!(events, shown);
    let archive = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    let paths: Vec<String> = archive.walk().map(|e| e.path_display()).collect();
    assert_eq!(paths, ["note", "note/inside.txt", "Sub"]);
}

#[test]
fn the_callers_own_entries_merge_too() {
    let d = tempfile::tempdir().unwrap();
    let (base, _) = trees(d.path());
    let extra: Arc<[u8]> = Arc::from(&b"from memory"[..]);
    let (bytes, _) = merge_to(
        &[
            Source::Dir(base.clone()),
            Source::Entries(vec![
                ("content/b.txt".into(), Some(extra.clone())),
                ("extra/dir".into(), None),
            ]),
        ],
        Vec::new(),
        &opts(1),
        &[],
        &mut |_| {},
    )
    .unwrap();
    let archive = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    let mut s = String::new();
    std::io::Read::read_to_string(&mut archive.open_file("content/b.txt").unwrap(), &mut s)
        .unwrap();
    assert_eq!(s, "from memory");
    assert!(archive.lookup("extra/dir").is_some_and(|e| e.is_dir()));
    // A caller's path with a traversal component is refused.
    let err = merge_to(
        &[Source::Entries(vec![("a/../b".into(), Some(extra))])],
        Vec::new(),
        &opts(1),
        &[],
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains(".."), "{err}");
}

/// An update whose input fails half-way (a file that cannot be read, met while writing)
/// leaves the archive byte for byte as it was, and no temporary file behind.
#[cfg(target_os = "linux")]
#[test]
fn a_failed_update_leaves_the_archive_intact() {
    let d = tempfile::tempdir().unwrap();
    let (base, update) = trees(d.path());
    let target = d.path().join("game.zar");
    std::fs::write(&target, pack(&base, 1)).unwrap();
    let before = std::fs::read(&target).unwrap();
    // Read at offset 0 fails with EIO for any user, root included.
    std::os::unix::fs::symlink("/proc/self/mem", update.join("content/zz-unreadable")).unwrap();
    let archive = Archive::open(&target).unwrap();
    let err = merge(
        &[Source::Archive(&archive), Source::Dir(update.clone())],
        &target,
        &opts(2).overwrite(true).follow_symlinks(true),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("zz-unreadable"), "{err}");
    drop(archive);
    assert!(std::fs::read(&target).unwrap() == before);
    let names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".partial")), "{names:?}");
    // Without the bad file the same update succeeds and replaces the archive.
    std::fs::remove_file(update.join("content/zz-unreadable")).unwrap();
    let archive = Archive::open(&target).unwrap();
    merge(
        &[Source::Archive(&archive), Source::Dir(update.clone())],
        &target,
        &opts(2).overwrite(true),
        &mut |_| {},
    )
    .unwrap();
    drop(archive);
    let expected = pack(&laid_out(d.path(), &base, &update), 1);
    assert!(std::fs::read(&target).unwrap() == expected);
}

/// A source archive whose bytes changed after it was written (a flipped bit inside a block
/// stored raw, which decodes without complaint) fails the merge by its place in the list,
/// and nothing is written: before, the merged archive carried the damage under a fresh,
/// valid hash, and `update` replaced the damaged archive with it.
#[test]
fn a_damaged_source_archive_fails_the_merge_instead_of_getting_a_valid_hash() {
    let d = tempfile::tempdir().unwrap();
    let (base, update) = trees(d.path());
    // Bytes that do not compress: their blocks are stored raw.
    let noise = zarkit_tests::noise(200_000, 45);
    write(&base, &[("content/noise.bin", &noise)]);
    let target = d.path().join("game.zar");
    let mut bytes = pack(&base, 1);
    // `code/app.rpx`, `content/a.bin` (300,000 bytes) and `content/b.txt` come first in
    // the stream, then `noise.bin`: block 6 lies wholly inside it, stored raw.
    let (at, len) = Archive::from_reader(std::io::Cursor::new(bytes.clone()))
        .unwrap()
        .block_extent(6)
        .unwrap();
    assert_eq!(len, 65_536, "block 6 is stored raw");
    bytes[at as usize + 100] ^= 0x40;
    std::fs::write(&target, &bytes).unwrap();
    let archive = Archive::open(&target).unwrap();
    // The blocks still decode: only the hash tells.
    assert!(archive.read_block(6).is_ok());
    for (sources, index) in [
        (
            vec![Source::Archive(&archive), Source::Dir(update.clone())],
            0,
        ),
        (
            vec![Source::Dir(update.clone()), Source::Archive(&archive)],
            1,
        ),
    ] {
        for threads in [1, 3] {
            let err = merge(
                &sources,
                &target,
                &opts(threads).overwrite(true),
                &mut |_| {},
            )
            .unwrap_err();
            let error = damaged_source(&err, index);
            assert!(
                matches!(error, zarkit::zar::ZarError::HashMismatch { .. }),
                "{error}"
            );
            assert!(std::fs::read(&target).unwrap() == bytes, "left as it was");
        }
    }
}

/// A merge that fails early (a source directory that does not exist) reports that at once,
/// without waiting for the hash of a large source archive, whose reading is given up: before,
/// the hash was read to the end, and its mismatch reported instead. The archive here is
/// small, damaged (so the full hash would show), and read slowly to stand for a large one.
#[test]
fn an_early_failure_does_not_wait_for_the_source_archives_hash() {
    /// A reader whose reads of 64 KiB or more (the hash's, not the index's) take 300 ms.
    struct Slow(std::io::Cursor<Vec<u8>>);
    impl std::io::Read for Slow {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if buf.len() >= 65_536 {
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
            self.0.read(buf)
        }
    }
    impl std::io::Seek for Slow {
        fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
            self.0.seek(pos)
        }
    }
    let d = tempfile::tempdir().unwrap();
    let (base, _) = trees(d.path());
    write(
        &base,
        &[("content/noise.bin", &zarkit_tests::noise(3_000_000, 46))],
    );
    let mut bytes = pack(&base, 1);
    let last = bytes.len() - 200;
    bytes[last - 100_000] ^= 0x40;
    let archive = Archive::from_reader(Slow(std::io::Cursor::new(bytes))).unwrap();
    let missing = d.path().join("missing");
    let err = merge_to(
        &[Source::Archive(&archive), Source::Dir(missing)],
        Vec::new(),
        &opts(1),
        &[],
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        !matches!(err, zarkit::zar::ZarError::SourceDamaged { .. }),
        "the hash was read to its end: {err}"
    );
    assert!(err.to_string().contains("missing"), "{err}");
}

/// A block of a source archive that does not decode (its hash made to match, so only the
/// block tells) fails the merge naming that archive by its place; before, the error named
/// the file but not which source held it.
#[test]
fn a_block_that_does_not_decode_names_its_source_archive() {
    let d = tempfile::tempdir().unwrap();
    let (base, update) = trees(d.path());
    let mut bytes = pack(&base, 1);
    let archive = Archive::from_reader(std::io::Cursor::new(bytes.clone())).unwrap();
    // The first block of `content/a.bin` (compressed): its frame's block header is made to
    // claim the reserved block type, which no decoder accepts.
    let (at, len) = archive.block_extent(0).unwrap();
    assert!(len < 65_536, "block 0 is compressed");
    drop(archive);
    // Magic (4), the frame header descriptor and what it implies, then the block header:
    // type bits 1-2 set to 3 (reserved).
    let fhd = bytes[at as usize + 4];
    let header_len = 1
        + usize::from(fhd & 0x20 == 0)
        + [0, 1, 2, 4][usize::from(fhd & 3)]
        + [usize::from(fhd & 0x20 != 0), 2, 4, 8][usize::from(fhd >> 6)];
    bytes[at as usize + 4 + header_len] |= 0b110;
    zarkit_tests::exercise::fix_hash(&mut bytes);
    let damaged = d.path().join("damaged.zar");
    std::fs::write(&damaged, &bytes).unwrap();
    let archive = Archive::open(&damaged).unwrap();
    assert!(archive.read_block(0).is_err());
    // Both archives hold the damaged file; the later one's is the one read.
    let first = Archive::open(&damaged).unwrap();
    let err = merge_to(
        &[
            Source::Archive(&first),
            Source::Archive(&archive),
            Source::Dir(update.clone()),
        ],
        Vec::new(),
        &opts(2),
        &[],
        &mut |_| {},
    )
    .unwrap_err();
    let error = damaged_source(&err, 1);
    assert!(error.to_string().contains("content/a.bin"), "{error}");
}

/// What `err`, a [`zarkit::zar::ZarError::SourceDamaged`] naming source `index`, says.
fn damaged_source(err: &zarkit::zar::ZarError, index: usize) -> &zarkit::zar::ZarError {
    match err {
        zarkit::zar::ZarError::SourceDamaged {
            source_index,
            error,
        } => {
            assert_eq!(*source_index, index);
            error
        }
        other => panic!("{other}"),
    }
}
