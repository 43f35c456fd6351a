//! Directory-level operations: pack (canonical order, skips, collisions, atomic output)
//! and extract (exact bytes, selection, no overwrite, no escape, no partial files).

use std::path::Path;
use std::sync::Arc;

#[cfg(unix)]
use zarkit::zar::PackWarning;
use zarkit::zar::{
    Archive, ExtractOptions, PackOptions, Stored, WriterOptions, ZarError, extract, pack_dir,
    pack_dir_to,
};
use zarkit_tests::{basic_tree_copy, copy_tree, zar};

fn quiet_pack(
    dir: &Path,
    out: &Path,
    opts: &PackOptions,
) -> Result<zarkit::zar::PackSummary, ZarError> {
    pack_dir(dir, out, opts, &mut |_| {})
}

fn assert_same_tree(a: &Path, b: &Path) {
    let mut names_a: Vec<_> = std::fs::read_dir(a)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let mut names_b: Vec<_> = std::fs::read_dir(b)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names_a.sort();
    names_b.sort();
    assert_eq!(names_a, names_b, "{} vs {}", a.display(), b.display());
    for n in names_a {
        let (pa, pb) = (a.join(&n), b.join(&n));
        if pa.is_dir() {
            assert_same_tree(&pa, &pb);
        } else {
            assert!(
                std::fs::read(&pa).unwrap() == std::fs::read(&pb).unwrap(),
                "{}",
                pa.display()
            );
        }
    }
}

#[test]
fn basic_tree_packs_and_extracts_to_identical_files() {
    let dir = tempfile::tempdir().unwrap();
    let tree = basic_tree_copy(dir.path());
    let out = dir.path().join("basic.zar");
    let s = quiet_pack(&tree, &out, &PackOptions::default()).unwrap();
    assert_eq!(
        (s.archive.files, s.archive.dirs, s.archive.blocks),
        (25, 5, 18)
    );
    let a = Archive::open(&out).unwrap();
    let dest = dir.path().join("out");
    let es = extract(&a, &dest, &ExtractOptions::default(), &mut |_| {}).unwrap();
    assert_eq!((es.files, es.dirs, es.bytes), (25, 5, 1_147_244));
    assert_same_tree(&tree, &dest);
    let parallel = dir.path().join("out4");
    let opts = ExtractOptions::new().threads(4);
    let es = extract(&a, &parallel, &opts, &mut |_| {}).unwrap();
    assert_eq!((es.files, es.dirs, es.bytes), (25, 5, 1_147_244));
    assert_same_tree(&tree, &parallel);
}

#[test]
fn extract_selected_paths_only_and_keeps_their_archive_paths() {
    let dir = tempfile::tempdir().unwrap();
    let a = Archive::open(zar("basic/reference.zar")).unwrap();
    let dest = dir.path().join("sel");
    let opts = ExtractOptions::new().paths(["sub/deeper", "README.txt"]);
    let s = extract(&a, &dest, &opts, &mut |_| {}).unwrap();
    assert_eq!(s.files, 4);
    assert!(dest.join("Sub/Deeper/Deepest/empty_too.dat").is_file());
    assert!(dest.join("README.txt").is_file());
    assert!(!dest.join("Sub/alpha.txt").exists());
    let missing = ExtractOptions::new().paths(["nope.txt"]);
    let err = extract(&a, &dir.path().join("none"), &missing, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("nope.txt"));
    assert!(
        !dir.path().join("none").exists(),
        "an unknown path is refused before anything is written"
    );
}

/// A name that is not UTF-8 can be selected (the paths were `String`s, so such an entry,
/// which the writer accepts, could only be extracted with everything else).
#[cfg(unix)]
#[test]
fn an_entry_whose_name_is_not_utf8_can_be_selected() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = zarkit::zar::ArchiveWriter::new(Vec::new()).unwrap();
    w.add_file(b"caf\xe9.txt", &b"latin-1"[..]).unwrap();
    w.add_file("other.txt", &b"other"[..]).unwrap();
    let (bytes, _) = w.finish().unwrap();
    let a = Archive::from_read_at(bytes).unwrap();
    let dest = dir.path().join("sel");
    let opts = ExtractOptions::new().paths([&b"caf\xe9.txt"[..]]);
    let s = extract(&a, &dest, &opts, &mut |_| {}).unwrap();
    assert_eq!(s.files, 1);
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    assert_eq!(std::fs::read(dest.join(name)).unwrap(), b"latin-1");
    assert!(!dest.join("other.txt").exists());
}

#[test]
fn extract_refuses_to_overwrite_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let a = Archive::open(zar("multi-frame/multiframe.zar")).unwrap();
    let dest = dir.path().join("o");
    std::fs::create_dir_all(&dest).unwrap();
    std::fs::write(dest.join("a.txt"), b"keep me").unwrap();
    let err = extract(&a, &dest, &ExtractOptions::default(), &mut |_| {}).unwrap_err();
    let ZarError::ExtractFailed { failures } = err else {
        panic!("expected per-entry failures")
    };
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].path, "a.txt");
    assert!(
        matches!(failures[0].error, ZarError::Exists { .. }),
        "{}",
        failures[0]
    );
    assert_eq!(
        failures[0].error.io_kind(),
        Some(std::io::ErrorKind::AlreadyExists)
    );
    assert_eq!(std::fs::read(dest.join("a.txt")).unwrap(), b"keep me");
    assert!(
        dest.join("sub/c.txt").is_file(),
        "the other entries are still extracted"
    );
    extract(
        &a,
        &dest,
        &ExtractOptions::new().overwrite(true),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(
        std::fs::read(dest.join("a.txt")).unwrap(),
        std::fs::read(zar("multi-frame/expected/a.txt")).unwrap()
    );
}

/// Whole blocks of zeros are skipped over (holes) rather than written: in the middle of a
/// file, at its end, a file of nothing else, blocks shifted against the files by an odd
/// file before them, and over an existing longer file.
#[test]
fn zero_blocks_extract_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    let mut mixed = vec![0u8; 700_000];
    mixed[..1000].fill(7);
    mixed[300_000..300_010].fill(9);
    // The files' bytes follow each other in the archive from its first block: `b_end`
    // ends exactly at the end of a block, after two blocks of zeros.
    std::fs::write(tree.join("a_lead.bin"), vec![5u8; 65_536 - 100]).unwrap();
    let end = [vec![1u8; 100], vec![0u8; 2 * 65_536]].concat();
    std::fs::write(tree.join("b_end.bin"), &end).unwrap();
    std::fs::write(tree.join("c_odd.bin"), vec![5u8; 12_345]).unwrap();
    std::fs::write(tree.join("d_mixed.bin"), &mixed).unwrap();
    std::fs::write(tree.join("e_zeros.bin"), vec![0u8; 3 * 65_536 + 17]).unwrap();
    let tail = [vec![1u8; 10], vec![0u8; 200_000]].concat();
    std::fs::write(tree.join("f_tail.bin"), &tail).unwrap();
    let out = dir.path().join("t.zar");
    quiet_pack(&tree, &out, &PackOptions::new()).unwrap();
    let a = Archive::open(&out).unwrap();
    let dest = dir.path().join("x");
    extract(&a, &dest, &ExtractOptions::default(), &mut |_| {}).unwrap();
    assert_same_tree(&tree, &dest);
    std::fs::write(dest.join("b_end.bin"), vec![3u8; 1 << 20]).unwrap();
    let again = ExtractOptions::new().overwrite(true);
    extract(&a, &dest, &again, &mut |_| {}).unwrap();
    assert_same_tree(&tree, &dest);
}

#[test]
fn extract_refuses_a_file_where_a_directory_has_its_name_even_when_overwriting() {
    for overwrite in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let a = Archive::open(zar("multi-frame/multiframe.zar")).unwrap();
        let dest = dir.path().join("o");
        std::fs::create_dir_all(dest.join("a.txt")).unwrap();
        std::fs::write(dest.join("a.txt/keep"), b"keep me").unwrap();
        let opts = ExtractOptions::new().overwrite(overwrite);
        let err = extract(&a, &dest, &opts, &mut |_| {}).unwrap_err();
        let ZarError::ExtractFailed { failures } = err else {
            panic!("expected per-entry failures")
        };
        assert_eq!(failures.len(), 1, "overwrite {overwrite}");
        assert_eq!(failures[0].path, "a.txt");
        let shown = failures[0].to_string();
        assert!(
            shown.contains("a directory of that name exists") && shown.contains("a.txt"),
            "overwrite {overwrite}: {shown}"
        );
        assert_eq!(std::fs::read(dest.join("a.txt/keep")).unwrap(), b"keep me");
        assert!(dest.join("sub/c.txt").is_file(), "the others are extracted");
        let leftovers: Vec<_> = std::fs::read_dir(&dest)
            .unwrap()
            .map(|d| d.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".partial"))
            .collect();
        assert!(
            leftovers.is_empty(),
            "no temporary file left: {leftovers:?}"
        );
    }
}

#[cfg(unix)]
#[test]
fn extract_never_follows_a_symlink_out_of_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let dest = dir.path().join("dest");
    std::fs::create_dir(&dest).unwrap();
    std::os::unix::fs::symlink(&outside, dest.join("sub")).unwrap();
    let a = Archive::open(zar("multi-frame/multiframe.zar")).unwrap();
    let err = extract(&a, &dest, &ExtractOptions::default(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing written through the link"
    );
}

#[test]
fn failed_entries_leave_no_partial_file_and_are_all_reported() {
    let dir = tempfile::tempdir().unwrap();
    let a = Archive::open(zar("bad/corrupt_block.zar")).unwrap();
    let dest = dir.path().join("cb");
    let opts = ExtractOptions::new().threads(2);
    let err = extract(&a, &dest, &opts, &mut |_| {}).unwrap_err();
    let ZarError::ExtractFailed { failures } = err else {
        panic!()
    };
    assert_eq!(failures.len(), 2);
    assert!(failures.iter().all(|f| f.to_string().contains("block 0")));
    let paths: Vec<&str> = failures.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["ok.txt", "text.txt"]);
    assert_eq!(
        std::fs::read_dir(&dest).unwrap().count(),
        0,
        "no file and no temporary file left"
    );
}

/// In a directory the extraction made, files are written under their own names (no
/// temporary name, no rename): a name taken meanwhile (another program, or on a file system
/// that does not tell two entries' names apart, the other entry) is refused, with or
/// without `overwrite`, never replaced; a file that fails is not left behind.
#[test]
fn a_name_taken_in_a_fresh_directory_is_refused_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = zarkit::zar::ArchiveWriter::new(Vec::new()).unwrap();
    w.add_dir_all("d").unwrap();
    w.add_file("d/x", &b"from the archive"[..]).unwrap();
    w.add_file("d/y", &b"the other file"[..]).unwrap();
    w.add_file("top", &b"at the top"[..]).unwrap();
    let (bytes, _) = w.finish().unwrap();
    let a = Archive::from_read_at(bytes).unwrap();
    for overwrite in [false, true] {
        let dest = dir.path().join(format!("out{overwrite}"));
        let opts = ExtractOptions::new().threads(1).overwrite(overwrite);
        // Called on this thread just before each file is written.
        let mut take_names = |ev: zarkit::zar::ExtractEvent<'_>| {
            if let zarkit::zar::ExtractEvent::Entry { entry } = ev
                && entry.is_file()
                && matches!(entry.name(), b"x" | b"top")
            {
                let path = dest.join(String::from_utf8_lossy(&entry.path()).as_ref());
                std::fs::write(path, b"someone else's").unwrap();
            }
        };
        let err = extract(&a, &dest, &opts, &mut take_names).unwrap_err();
        let ZarError::ExtractFailed { failures } = err else {
            panic!("{err}")
        };
        let paths: Vec<&str> = failures.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["d/x", "top"], "overwrite {overwrite}");
        assert!(
            failures[0]
                .to_string()
                .contains("another entry was extracted under this name"),
            "{}",
            failures[0]
        );
        assert_eq!(std::fs::read(dest.join("d/x")).unwrap(), b"someone else's");
        assert_eq!(std::fs::read(dest.join("top")).unwrap(), b"someone else's");
        assert_eq!(std::fs::read(dest.join("d/y")).unwrap(), b"the other file");
        assert_eq!(std::fs::read_dir(dest.join("d")).unwrap().count(), 2);
    }
}

#[test]
fn hostile_fixtures_write_nothing_anywhere() {
    // Every bad fixture, extracted two levels down: whatever it holds (`..`, separators,
    // cycles), nothing may appear beside the destination, and the archives refused at
    // open create no destination at all.
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("a").join("b");
    std::fs::create_dir_all(&base).unwrap();
    let refused_at_open = [
        "dotdot_dir.zar",
        "dotdot_file.zar",
        "backslash_name.zar",
        "slash_name.zar",
        "cycle.zar",
        "nul_name.zar",
        "dot_dir.zar",
        "empty_name.zar",
        "root_named.zar",
    ];
    let mut tried = 0;
    for e in std::fs::read_dir(zar("bad")).unwrap() {
        let p = e.unwrap().path();
        let Some(name) = p.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        if !name.ends_with(".zar") {
            continue;
        }
        tried += 1;
        let dest = base.join(&name);
        match Archive::open(&p) {
            Ok(a) => {
                assert!(
                    !refused_at_open.contains(&name.as_str()),
                    "{name} must be refused at open"
                );
                let _ = extract(&a, &dest, &ExtractOptions::default(), &mut |_| {});
            }
            Err(_) => assert!(!dest.exists(), "{name}: refused, so nothing created"),
        }
    }
    assert!(tried >= 25, "the fixtures were found ({tried})");
    let listing = |p: &Path| -> Vec<String> {
        std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(listing(dir.path()), ["a"], "nothing beside a/");
    assert_eq!(listing(&dir.path().join("a")), ["b"], "nothing beside a/b/");
    for name in refused_at_open {
        assert!(!base.join(name).exists(), "{name}");
    }
}

#[test]
fn pack_refuses_case_insensitive_collisions_naming_the_path_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir_all(tree.join("d")).unwrap();
    std::fs::write(tree.join("d/a.txt"), b"1").unwrap();
    std::fs::write(tree.join("d/A.TXT"), b"2").unwrap();
    let out = dir.path().join("o.zar");
    let err = quiet_pack(&tree, &out, &PackOptions::default()).unwrap_err();
    // Both names: the one refused and the one it collides with (in either order).
    let msg = err.to_string();
    assert!(
        msg.contains("a.txt") && msg.contains("A.TXT") && msg.contains("ignoring ASCII case"),
        "{msg}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("t")],
        "no archive and no temporary file remain"
    );
}

#[test]
fn pack_refuses_an_existing_output_unless_overwriting() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.zar");
    std::fs::write(&out, b"precious").unwrap();
    let tree = zar("raw/tree");
    assert!(
        quiet_pack(&tree, &out, &PackOptions::default())
            .unwrap_err()
            .to_string()
            .contains("already exists")
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    quiet_pack(&tree, &out, &PackOptions::new().overwrite(true)).unwrap();
    Archive::open(&out).unwrap();
}

#[test]
fn pack_never_includes_its_own_output() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    copy_tree(&zar("multi-frame/expected"), &tree);
    let out = tree.join("self.zar");
    quiet_pack(&tree, &out, &PackOptions::default()).unwrap();
    let a = Archive::open(&out).unwrap();
    let names: Vec<String> = a
        .walk()
        .map(|e| String::from_utf8(e.path()).unwrap())
        .collect();
    assert_eq!(names, ["a.txt", "b.bin", "sub", "sub/c.txt"]);
}

#[cfg(unix)]
#[test]
fn symlinks_are_skipped_with_a_warning_or_followed_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("real.txt"), b"real").unwrap();
    std::os::unix::fs::symlink("real.txt", tree.join("link.txt")).unwrap();
    let (bytes, s) =
        pack_dir_to(&tree, Vec::new(), &PackOptions::default(), &[], &mut |_| {}).unwrap();
    assert!(matches!(&s.warnings[..], [PackWarning::SkippedSymlink(p)] if p.ends_with("link.txt")));
    assert_eq!(
        Archive::from_reader(std::io::Cursor::new(bytes))
            .unwrap()
            .file_count(),
        1
    );
    let follow = PackOptions::new().follow_symlinks(true);
    let (bytes, s) = pack_dir_to(&tree, Vec::new(), &follow, &[], &mut |_| {}).unwrap();
    assert!(s.warnings.is_empty());
    let a = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    let mut got = String::new();
    std::io::Read::read_to_string(&mut a.open_file("link.txt").unwrap(), &mut got).unwrap();
    assert_eq!(got, "real");
}

#[cfg(unix)]
#[test]
fn special_files_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("f.txt"), b"x").unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(tree.join("pipe"))
        .status();
    if !status.is_ok_and(|s| s.success()) {
        return; // no mkfifo on this system
    }
    let (_, s) = pack_dir_to(&tree, Vec::new(), &PackOptions::default(), &[], &mut |_| {}).unwrap();
    assert!(matches!(&s.warnings[..], [PackWarning::SkippedSpecial(p)] if p.ends_with("pipe")));
}

#[test]
fn long_names_are_written_correctly_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    let long = "n".repeat(200);
    std::fs::write(tree.join(&long), b"long").unwrap();
    let opts = PackOptions::new().writer(WriterOptions::new().compressor(Arc::new(Stored)));
    let (bytes, s) = pack_dir_to(&tree, Vec::new(), &opts, &[], &mut |_| {}).unwrap();
    assert!(
        s.warnings
            .iter()
            .any(|w| w.to_string().contains("200 bytes"))
    );
    let a = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    assert_eq!(a.get(&long).unwrap().size(), 4);
}

#[cfg(unix)]
#[test]
fn names_an_archive_cannot_hold_fail_the_pack_or_are_skipped_never_renamed() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir_all(tree.join("back")).unwrap();
    std::fs::write(tree.join("back\\slash"), b"1").unwrap();
    std::fs::write(tree.join("C:drive"), b"2").unwrap();
    std::fs::write(tree.join("plain.txt"), b"3").unwrap();
    let err =
        pack_dir_to(&tree, Vec::new(), &PackOptions::default(), &[], &mut |_| {}).unwrap_err();
    match &err {
        ZarError::UnstorableName { path, .. } => {
            assert!(
                path.ends_with("C:drive") || path.ends_with("back\\slash"),
                "{err}"
            )
        }
        other => panic!("expected UnstorableName, got {other}"),
    }
    let skip = PackOptions::new().skip_invalid_names(true);
    let (bytes, s) = pack_dir_to(&tree, Vec::new(), &skip, &[], &mut |_| {}).unwrap();
    assert_eq!(
        s.warnings
            .iter()
            .filter(|w| matches!(w, PackWarning::SkippedInvalidName(..)))
            .count(),
        2
    );
    let a = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    let paths: Vec<String> = a.walk().map(|e| e.path_display()).collect();
    assert_eq!(paths, ["back", "plain.txt"]);
}

#[cfg(target_os = "linux")]
#[test]
fn names_differing_only_in_case_are_refused_or_skipped_on_request() {
    // Before, such a pair failed in the writer whatever the options ("a file named
    // index.html was already added beside it"), so a tree like /usr/share/doc could not be
    // packed at all. Now it is named as a collision, and --skip-invalid-names keeps the
    // first of the pair in byte order with a warning for the other.
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir_all(tree.join("Sub")).unwrap();
    std::fs::create_dir_all(tree.join("sub/deeper")).unwrap();
    std::fs::write(tree.join("index.html"), b"lower").unwrap();
    std::fs::write(tree.join("Index.html"), b"upper").unwrap();
    std::fs::write(tree.join("Sub/a.txt"), b"a").unwrap();
    std::fs::write(tree.join("sub/deeper/b.txt"), b"b").unwrap();
    let err =
        pack_dir_to(&tree, Vec::new(), &PackOptions::default(), &[], &mut |_| {}).unwrap_err();
    match &err {
        ZarError::CaseCollision { path, kept } => {
            assert!(
                path.ends_with("index.html") && kept.ends_with("Index.html"),
                "{err}"
            );
        }
        other => panic!("expected CaseCollision, got {other}"),
    }
    let skip = PackOptions::new().skip_invalid_names(true);
    let (bytes, s) = pack_dir_to(&tree, Vec::new(), &skip, &[], &mut |_| {}).unwrap();
    let skipped: Vec<String> = s
        .warnings
        .iter()
        .filter_map(|w| match w {
            PackWarning::SkippedCaseDuplicate { path, kept } => Some(format!(
                "{} for {}",
                path.file_name().unwrap().to_string_lossy(),
                kept.file_name().unwrap().to_string_lossy()
            )),
            _ => None,
        })
        .collect();
    assert_eq!(skipped, ["index.html for Index.html", "sub for Sub"]);
    let a = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    let paths: Vec<String> = a.walk().map(|e| e.path_display()).collect();
    assert_eq!(paths, ["Index.html", "Sub", "Sub/a.txt"]);
    let mut text = String::new();
    std::io::Read::read_to_string(&mut a.open_file("index.html").unwrap(), &mut text).unwrap();
    assert_eq!(text, "upper");
}

#[cfg(unix)]
#[test]
fn a_skipped_looping_link_does_not_collide_with_its_case_variant() {
    // `Loop -> .` is skipped as a loop when links are followed; `loop` beside it was then
    // refused as a case collision with the entry that was never packed.
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir_all(tree.join("loop")).unwrap();
    std::fs::write(tree.join("loop/f"), b"x").unwrap();
    std::os::unix::fs::symlink(".", tree.join("Loop")).unwrap();
    let opts = PackOptions::new().follow_symlinks(true);
    let (bytes, s) = pack_dir_to(&tree, Vec::new(), &opts, &[], &mut |_| {}).unwrap();
    assert!(
        matches!(&s.warnings[..], [PackWarning::SkippedBrokenLink(p, _)] if p.ends_with("Loop")),
        "{:?}",
        s.warnings
    );
    let a = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    let paths: Vec<String> = a.walk().map(|e| e.path_display()).collect();
    assert_eq!(paths, ["loop", "loop/f"]);
}

#[cfg(unix)]
#[test]
fn following_links_skips_dangling_and_looping_ones_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir_all(tree.join("d")).unwrap();
    std::fs::write(tree.join("d/f"), b"x").unwrap();
    std::os::unix::fs::symlink("missing", tree.join("dangling")).unwrap();
    std::os::unix::fs::symlink("..", tree.join("d/up")).unwrap();
    let follow = PackOptions::new().follow_symlinks(true);
    let (bytes, s) = pack_dir_to(&tree, Vec::new(), &follow, &[], &mut |_| {}).unwrap();
    let broken: Vec<_> = s
        .warnings
        .iter()
        .filter_map(|w| match w {
            PackWarning::SkippedBrokenLink(p, _) => p.file_name().map(|n| n.to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(
        broken,
        ["up", "dangling"],
        "canonical order: d/ before dangling"
    );
    let a = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    assert_eq!(a.file_count(), 1);
}

/// Twenty nested 250-byte names: every path below the fifteenth level is longer than
/// Linux's PATH_MAX (4096 bytes), so only handle-relative operations can reach it.
#[cfg(unix)]
#[test]
fn trees_deeper_than_the_path_limit_pack_and_extract() {
    use rustix::fs::{CWD, Mode, OFlags, mkdirat, openat};
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    let names: Vec<String> = (0..20)
        .map(|i| format!("{i:02}{}", "n".repeat(248)))
        .collect();
    let open_dir = |at: &std::os::fd::OwnedFd, name: &str| {
        openat(at, name, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap()
    };
    let mut fd = openat(
        CWD,
        &tree,
        OFlags::RDONLY | OFlags::DIRECTORY,
        Mode::empty(),
    )
    .unwrap();
    for n in &names {
        mkdirat(&fd, n.as_str(), Mode::from_bits_truncate(0o755)).unwrap();
        fd = open_dir(&fd, n);
    }
    let leaf = openat(
        &fd,
        "leaf.txt",
        OFlags::WRONLY | OFlags::CREATE,
        Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    std::io::Write::write_all(&mut std::fs::File::from(leaf), b"deep content").unwrap();

    let (bytes, _) =
        pack_dir_to(&tree, Vec::new(), &PackOptions::default(), &[], &mut |_| {}).unwrap();
    let a = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    let leaf_path = format!("{}/leaf.txt", names.join("/"));
    assert!(leaf_path.len() > 4096);
    let mut got = String::new();
    std::io::Read::read_to_string(&mut a.open_file(&leaf_path).unwrap(), &mut got).unwrap();
    assert_eq!(got, "deep content");

    let dest = dir.path().join("x");
    extract(&a, &dest, &ExtractOptions::default(), &mut |_| {}).unwrap();
    let mut fd = openat(
        CWD,
        &dest,
        OFlags::RDONLY | OFlags::DIRECTORY,
        Mode::empty(),
    )
    .unwrap();
    for n in &names {
        fd = open_dir(&fd, n);
    }
    let f = openat(&fd, "leaf.txt", OFlags::RDONLY, Mode::empty()).unwrap();
    let mut back = String::new();
    std::io::Read::read_to_string(&mut std::fs::File::from(f), &mut back).unwrap();
    assert_eq!(back, "deep content");
}

#[test]
fn a_pack_reports_each_warning_once() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("L".repeat(200)), b"long name").unwrap();
    let mut seen = 0;
    let (_, s) = pack_dir_to(&tree, Vec::new(), &PackOptions::new(), &[], &mut |ev| {
        if let zarkit::zar::PackEvent::Warning(_) = ev {
            seen += 1;
        }
    })
    .unwrap();
    assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    assert!(
        s.archive.warnings.is_empty(),
        "not repeated in the writer's summary"
    );
    assert_eq!(seen, 1);
}
