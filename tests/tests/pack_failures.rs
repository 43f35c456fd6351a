//! Packing under failure never leaves an archive (truncated or not) at the target path, and
//! the error names what failed.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use zarkit::zar::{
    ArchiveWriter, PackEvent, PackOptions, Stored, WriterOptions, pack_dir, pack_dir_to,
};

fn tree(dir: &Path) -> std::path::PathBuf {
    let t = dir.join("t");
    std::fs::create_dir_all(t.join("sub")).unwrap();
    std::fs::write(t.join("a.txt"), vec![b'a'; 100_000]).unwrap();
    std::fs::write(t.join("sub/victim.bin"), vec![7u8; 200_000]).unwrap();
    std::fs::write(t.join("z.txt"), b"last").unwrap();
    t
}

fn only(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Pack a fresh tree, doing `meddle` to `sub/victim.bin` just before the packer reads it;
/// returns the error and what is left beside the tree.
fn pack_meddling(meddle: impl Fn(&Path)) -> (String, Vec<String>) {
    let d = tempfile::tempdir().unwrap();
    let t = tree(d.path());
    let victim = t.join("sub/victim.bin");
    let err = pack_dir(
        &t,
        &d.path().join("o.zar"),
        &PackOptions::default(),
        &mut |ev| {
            if let PackEvent::Entry {
                path: "sub/victim.bin",
            } = ev
            {
                meddle(&victim);
            }
        },
    )
    .unwrap_err();
    (err.to_string(), only(d.path()))
}

#[test]
fn a_file_removed_during_the_walk_fails_naming_it_and_leaves_no_archive() {
    let (msg, left) = pack_meddling(|v| std::fs::remove_file(v).unwrap());
    assert!(msg.contains("victim.bin"), "{msg}");
    assert_eq!(left, ["t"], "no archive and no temporary file");
}

#[test]
fn a_file_truncated_during_the_walk_fails_naming_it() {
    let (msg, left) = pack_meddling(|v| std::fs::write(v, b"short").unwrap());
    assert!(
        msg.contains("victim.bin") && msg.contains("changed while being packed"),
        "{msg}"
    );
    assert_eq!(left, ["t"]);
}

/// A writer that accepts `room` bytes, then fails like a full disk.
#[derive(Debug)]
struct FullDisk {
    room: usize,
}

impl Write for FullDisk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.room == 0 {
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "no space left on device",
            ));
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_full_disk_is_an_error_at_every_stage_of_writing() {
    let d = tempfile::tempdir().unwrap();
    let t = tree(d.path());
    // Stored blocks, so the sizes of the stages are known: fail in the blocks, in the
    // alignment/records, in the names, in the tree, in the footer.
    let stored = |threads| {
        PackOptions::new().writer(
            WriterOptions::new()
                .compressor(Arc::new(Stored))
                .threads(threads),
        )
    };
    let full = pack_dir_to(&t, Vec::new(), &stored(1), &[], &mut |_| {})
        .unwrap()
        .0
        .len();
    for room in [0, 70_000, 5 * 65536 + 3, full - 200, full - 100, full - 1] {
        for threads in [1, 3] {
            let opts = stored(threads);
            let err = pack_dir_to(&t, FullDisk { room }, &opts, &[], &mut |_| {}).unwrap_err();
            let msg = err.to_string();
            assert!(
                msg.contains("no space left") && msg.contains("writing"),
                "room {room}: {msg}"
            );
        }
    }
}

#[test]
fn the_writer_refuses_to_go_on_after_a_failure() {
    let mut w = ArchiveWriter::with_options(
        FullDisk { room: 10 },
        &WriterOptions::new().compressor(Arc::new(Stored)),
    )
    .unwrap();
    w.start_file("f").unwrap();
    assert!(w.append(&[0u8; 70_000]).is_err());
    assert!(w.append(b"more").is_err());
    assert!(w.finish().is_err());
}

/// A file whose read fails. Permissions do not stop root (CI runs as root), so on Linux the
/// file is a link (followed) to `/proc/self/mem`, whose read at offset 0 fails with EIO for
/// any user; elsewhere, a file without read permission.
#[cfg(unix)]
#[test]
fn an_unreadable_file_fails_naming_it() {
    let d = tempfile::tempdir().unwrap();
    let t = tree(d.path());
    let victim = t.join("sub/victim.bin");
    std::fs::remove_file(&victim).unwrap();
    let opts = if cfg!(target_os = "linux") {
        std::os::unix::fs::symlink("/proc/self/mem", &victim).unwrap();
        PackOptions::new().follow_symlinks(true)
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(&victim, b"secret").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o000)).unwrap();
        PackOptions::default()
    };
    let err = pack_dir(&t, &d.path().join("o.zar"), &opts, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("victim.bin"), "{err}");
    assert!(err.to_string().contains("cannot"), "{err}");
    assert_eq!(only(d.path()), ["t"]);
}

/// A reader that gives `good` bytes of 7s, then fails.
struct FailsAfter {
    good: usize,
}

impl io::Read for FailsAfter {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.good == 0 {
            return Err(io::Error::other("the source went away"));
        }
        let n = buf.len().min(self.good).min(40_000);
        buf[..n].fill(7);
        self.good -= n;
        Ok(n)
    }
}

/// A file whose reader fails is left out of the archive, and the writer goes on (the name
/// can even be added again): before, the file stayed in with the bytes read so far (65,536
/// of 300,000), in an archive that verified; then its name stayed in the name table.
#[test]
fn a_file_whose_reader_fails_is_left_out_and_the_writer_goes_on() {
    let mut w = ArchiveWriter::new(Vec::new()).unwrap();
    w.add_dir("d").unwrap();
    w.add_file("d/first", &b"first"[..]).unwrap();
    let err = w
        .add_file("d/Bad", FailsAfter { good: 100_000 })
        .unwrap_err();
    assert!(err.to_string().contains("d/Bad"), "{err}");
    // A name long enough to be warned about: the warning goes with the file.
    let long = format!("d/{}", "l".repeat(130));
    assert!(w.add_file(&long, FailsAfter { good: 10 }).is_err());
    assert!(w.warnings().is_empty(), "{:?}", w.warnings());
    w.add_file("d/good", &b"good"[..]).unwrap();
    w.add_file("d/bad", &[5u8; 1000][..]).unwrap();
    let (bytes, _) = w.finish().unwrap();
    // Nor are the names left out in the name table (they stayed there before).
    let holds = |name: &[u8]| bytes.windows(name.len()).any(|w| w == name);
    assert!(!holds(b"Bad"), "the name table holds the left-out name");
    assert!(
        !holds(&long.as_bytes()[2..]),
        "the name table holds the long name"
    );
    assert!(holds(b"good"));
    let archive = zarkit::zar::Archive::from_reader(io::Cursor::new(bytes)).unwrap();
    archive.check_hash().unwrap();
    let names: Vec<String> = archive.walk().map(|e| e.path_display()).collect();
    assert_eq!(names, ["d", "d/bad", "d/first", "d/good"]);
    let read = |p: &str| {
        let mut v = Vec::new();
        io::Read::read_to_end(&mut archive.open_file(p).unwrap(), &mut v).unwrap();
        v
    };
    assert_eq!(read("d/bad"), vec![5u8; 1000]);
    assert_eq!(read("d/first"), b"first");
    assert_eq!(read("d/good"), b"good");
}

/// The writer's paths as `Archive::lookup` reads them, and its misuse reported as such
/// (found by a session using the library as a Rust programmer would).
#[test]
fn the_writers_paths_and_misuse() {
    /// Counts the flushes it gets.
    struct Flushes(Vec<u8>, usize);
    impl Write for Flushes {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.write(b)
        }
        fn flush(&mut self) -> io::Result<()> {
            self.1 += 1;
            Ok(())
        }
    }
    let mut w = ArchiveWriter::new(Flushes(Vec::new(), 0)).unwrap();
    // Bytes with no file started: the caller's mistake (InvalidInput), no empty path in
    // the message ("cannot add : ...", InvalidData before).
    let err = w.write(b"x").unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("no file started"), "{err}");
    w.add_dir("d").unwrap();
    // A trailing separator names a directory: a file there could not be looked up.
    for name in ["d/g/", "d/g/."] {
        let err = w.add_file(name, &b"g"[..]).unwrap_err();
        assert!(err.to_string().contains("separator"), "{name}: {err}");
    }
    // `.` components are skipped, as lookup skips them ("parent directory . was not
    // added" before).
    w.add_file("d/./x", &b"x"[..]).unwrap();
    w.start_file("d/w").unwrap();
    w.add_dir_all("d/./e/./f").unwrap();
    assert!(
        w.write(b"w").is_err(),
        "a directory ends the file before it"
    );
    w.start_file("d/v").unwrap();
    assert!(w.start_file("d/V").is_err());
    assert!(
        w.write(b"v").is_err(),
        "a refused file ends the one before it"
    );
    // A directory ends the file before it: bytes after it belong to no file (they went on
    // into `d/x`).
    w.start_file("d/y").unwrap();
    w.add_dir("d/z").unwrap();
    assert_eq!(
        w.write(b"more").unwrap_err().kind(),
        io::ErrorKind::InvalidInput
    );
    // A name too long for the format is quoted in part, not in full.
    let err = w.add_file(vec![b'n'; 70_000], &b""[..]).unwrap_err();
    assert!(err.to_string().len() < 600, "{}", err.to_string().len());
    assert!(err.to_string().contains("70000 bytes"), "{err}");
    // `flush` reaches the archive's writer.
    w.flush().unwrap();
    assert_eq!(w.get_ref().1, 1, "flushed");
    let (out, _) = w.finish().unwrap();
    // An archive in memory opens without a lock or a copy.
    let archive = zarkit::zar::Archive::from_read_at(out.0).unwrap();
    let names: Vec<String> = archive.walk().map(|e| e.path_display()).collect();
    assert_eq!(
        names,
        ["d", "d/e", "d/e/f", "d/v", "d/w", "d/x", "d/y", "d/z"]
    );
    assert_eq!(archive.get("d/w").unwrap().size(), 0);
    assert_eq!(archive.get("d/v").unwrap().size(), 0);
    let mut r = archive.open_file("d/x").unwrap();
    assert!(format!("{r:?}").contains("d/x"));
    assert!(format!("{:?}", archive.walk()).starts_with("Walk"));
    io::Seek::seek(&mut r, io::SeekFrom::Start(u64::MAX)).unwrap();
    let err = io::Seek::seek(&mut r, io::SeekFrom::Current(1)).unwrap_err();
    assert!(err.to_string().contains("largest position"), "{err}");
}
