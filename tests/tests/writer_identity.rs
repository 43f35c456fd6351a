//! The writer reproduces the reference tool's bytes: given the same entries in the same
//! order and the same compressed blocks, the archive is byte-identical.

use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;

use zarkit::zar::format::{BLOCK_SIZE, FOOTER_SIZE, Footer};
use zarkit::zar::{
    Archive, ArchiveWriter, BlockCompressor, BlockContext, PackOptions, Stored, WriterOptions,
    Zstd, pack_dir_to,
};
use zarkit_tests::{basic_tree_copy, sha256_hex, zar};

/// Replays the blocks of a reference archive: maps each block's decoded content to the
/// bytes the reference tool stored for it.
#[derive(Clone)]
struct Replay(Arc<HashMap<Vec<u8>, Vec<u8>>>);

impl Replay {
    fn from_archive(path: &std::path::Path) -> Replay {
        let a = Archive::open(path).unwrap();
        let map = (0..a.block_count())
            .map(|b| (a.decode_block(b).unwrap(), a.stored_block(b).unwrap()))
            .collect();
        Replay(Arc::new(map))
    }
}

impl BlockCompressor for Replay {
    fn context(&self) -> std::io::Result<Box<dyn BlockContext>> {
        Ok(Box::new(self.clone()))
    }
    fn describe(&self) -> String {
        "replay".into()
    }
}

impl BlockContext for Replay {
    fn compress_block(
        &mut self,
        block: &[u8; BLOCK_SIZE],
        out: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        let stored = self
            .0
            .get(&block[..])
            .ok_or_else(|| std::io::Error::other("block not in the reference archive"))?;
        out.extend_from_slice(stored);
        Ok(())
    }
}

fn pack_with(
    tree: &std::path::Path,
    compressor: Arc<dyn BlockCompressor>,
    threads: usize,
) -> Vec<u8> {
    let opts =
        PackOptions::new().writer(WriterOptions::new().compressor(compressor).threads(threads));
    pack_dir_to(tree, Vec::new(), &opts, &[], &mut |_| {})
        .unwrap()
        .0
}

fn section(archive: &[u8], f: impl Fn(&Footer) -> zarkit::zar::format::Section) -> &[u8] {
    let footer = Footer::parse(archive[archive.len() - FOOTER_SIZE..].try_into().unwrap());
    let s = f(&footer);
    &archive[s.offset as usize..(s.offset + s.size) as usize]
}

#[test]
fn basic_tree_with_reference_blocks_is_byte_identical_for_1_and_4_threads() {
    let dir = tempfile::tempdir().unwrap();
    let tree = basic_tree_copy(dir.path());
    let reference = std::fs::read(zar("basic/reference.zar")).unwrap();
    let replay = Arc::new(Replay::from_archive(&zar("basic/reference.zar")));
    for threads in [1, 4] {
        let ours = pack_with(&tree, replay.clone(), threads);
        assert_eq!(ours.len(), reference.len(), "threads={threads}");
        assert!(
            ours == reference,
            "threads={threads}: archive differs from reference.zar"
        );
    }
    assert_eq!(
        sha256_hex(&reference),
        std::fs::read_to_string(zar("basic/reference.sha256")).unwrap()[..64]
    );
}

#[test]
fn raw_tree_with_reference_blocks_is_byte_identical() {
    let reference = std::fs::read(zar("raw/reference.zar")).unwrap();
    let replay = Arc::new(Replay::from_archive(&zar("raw/reference.zar")));
    assert!(pack_with(&zar("raw/tree"), replay, 2) == reference);
}

#[test]
fn stored_basic_tree_has_reference_name_table_and_file_tree_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let tree = basic_tree_copy(dir.path());
    let reference = std::fs::read(zar("basic/reference.zar")).unwrap();
    let ours = pack_with(&tree, Arc::new(Stored), 3);
    assert_eq!(
        section(&ours, |f| f.names),
        section(&reference, |f| f.names)
    );
    assert_eq!(
        section(&ours, |f| f.file_tree),
        section(&reference, |f| f.file_tree)
    );
    let a = Archive::from_reader(std::io::Cursor::new(ours)).unwrap();
    assert_eq!(a.compute_hash().unwrap(), a.footer().integrity_hash);
    for e in a.walk().filter(|e| e.is_file()) {
        let mut got = Vec::new();
        e.open().unwrap().read_to_end(&mut got).unwrap();
        let disk = tree.join(String::from_utf8(e.path()).unwrap());
        assert!(got == std::fs::read(&disk).unwrap(), "{}", disk.display());
    }
}

#[test]
fn empty_directory_archive_matches_the_documented_160_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, summary) = pack_dir_to(
        dir.path(),
        Vec::new(),
        &PackOptions::default(),
        &[],
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(bytes.len(), 160);
    assert_eq!(
        sha256_hex(&bytes),
        "7f05306f5b4d21ec857a4823594b6dd13fdef90aed3d1ce8be69dac7ce4632c4"
    );
    assert!(
        summary
            .warnings
            .iter()
            .any(|w| w.to_string().contains("refuse to open"))
    );
    let a = Archive::from_reader(std::io::Cursor::new(bytes)).unwrap();
    assert_eq!(a.walk().count(), 0);
}

/// Files of `sizes` bytes (distinct content), in a writer with `compressor` and
/// `threads`, their bytes handed over by `append` in chunks of odd sizes, or written into
/// the spare space and committed a part at a time.
fn write_files(
    compressor: Arc<dyn BlockCompressor>,
    threads: usize,
    sizes: &[usize],
    in_place: bool,
) -> Vec<u8> {
    let opts = WriterOptions::new().compressor(compressor).threads(threads);
    let mut w = ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
    for (i, &size) in sizes.iter().enumerate() {
        let data = zarkit_corpus::generate(zarkit_corpus::Shape::ALL[i % 12], size, i as u64);
        w.start_file(format!("f{i}")).unwrap();
        let mut rest = &data[..];
        let mut k = 0usize;
        while !rest.is_empty() {
            k += 1;
            let chunk = (k * 7919) % 30_000 + 1;
            if in_place {
                let spare = w.spare();
                assert!(!spare.is_empty());
                let n = chunk.min(spare.len()).min(rest.len());
                spare[..n].copy_from_slice(&rest[..n]);
                // Bytes written past the committed ones are not part of the archive.
                let past = (n + 5).min(spare.len());
                spare[n..past].fill(0xEE);
                w.commit(n).unwrap();
                rest = &rest[n..];
            } else {
                let n = chunk.min(rest.len());
                w.append(&rest[..n]).unwrap();
                rest = &rest[n..];
            }
        }
    }
    w.finish().unwrap().0
}

#[test]
fn bytes_committed_in_place_give_the_archive_append_gives() {
    let sizes = [0, 1, 65535, 65536, 65537, 200_000, 3, 131_072, 70_001];
    for threads in [1, 3] {
        for compressor in [
            Arc::new(Stored) as Arc<dyn BlockCompressor>,
            Arc::new(Zstd::new(1).unwrap()),
            Arc::new(Zstd::new(6).unwrap()),
        ] {
            let appended = write_files(compressor.clone(), threads, &sizes, false);
            let in_place = write_files(compressor.clone(), threads, &sizes, true);
            assert!(
                appended == in_place,
                "{} with {threads} threads",
                compressor.describe()
            );
            let a = Archive::from_reader(std::io::Cursor::new(in_place)).unwrap();
            for (i, &size) in sizes.iter().enumerate() {
                let want =
                    zarkit_corpus::generate(zarkit_corpus::Shape::ALL[i % 12], size, i as u64);
                assert_eq!(read_all(&a, &format!("f{i}")), want, "f{i}");
            }
        }
    }
}

#[test]
fn a_commit_past_the_spare_space_or_before_a_file_is_refused() {
    let opts = WriterOptions::new().compressor(Arc::new(Stored));
    let mut w = ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
    let err = w.commit(1).unwrap_err().to_string();
    assert!(err.contains("no file started"), "{err}");
    w.start_file("data.bin").unwrap();
    w.append(b"abc").unwrap();
    let room = w.spare().len();
    assert_eq!(room, BLOCK_SIZE - 3);
    let err = w.commit(room + 1).unwrap_err().to_string();
    assert!(
        err.contains("data.bin") && err.contains(&format!("holds {room}")),
        "{err}"
    );
    // Nothing was added: the writer goes on.
    w.spare()[..2].copy_from_slice(b"de");
    w.commit(2).unwrap();
    let archive = w.finish().unwrap().0;
    let a = Archive::from_reader(std::io::Cursor::new(archive)).unwrap();
    assert_eq!(read_all(&a, "data.bin"), b"abcde");
}

/// A reader that hands out at most `step` bytes a call, is interrupted every other call,
/// and fails after `fail_after` bytes when that is set.
struct Awkward<'a> {
    data: &'a [u8],
    step: usize,
    calls: usize,
    fail_after: Option<usize>,
    given: usize,
}

impl Read for Awkward<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(2) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        if self.fail_after.is_some_and(|at| self.given >= at) {
            return Err(std::io::Error::other("the disk went away"));
        }
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.given += n;
        Ok(n)
    }
}

#[test]
fn add_file_retries_interrupted_reads_and_names_the_file_a_read_fails_in() {
    let data = zarkit_corpus::generate(zarkit_corpus::Shape::Text, 150_000, 5);
    let opts = WriterOptions::new().compressor(Arc::new(Zstd::new(3).unwrap()));
    let mut w = ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
    for (name, step) in [("a", 1000), ("b", 65_536), ("c", 1 << 20)] {
        let r = Awkward {
            data: &data,
            step,
            calls: 0,
            fail_after: None,
            given: 0,
        };
        assert_eq!(w.add_file(name, r).unwrap(), data.len() as u64);
    }
    let r = Awkward {
        data: &data,
        step: 7000,
        calls: 0,
        fail_after: Some(70_000),
        given: 0,
    };
    let err = w.add_file("broken.bin", r).unwrap_err().to_string();
    assert!(
        err.contains("broken.bin") && err.contains("the disk went away"),
        "{err}"
    );
    let mut w = ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
    for name in ["a", "b", "c"] {
        w.start_file(name).unwrap();
        w.append(&data).unwrap();
    }
    let appended = w.finish().unwrap().0;
    let mut w = ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
    for name in ["a", "b", "c"] {
        let r = Awkward {
            data: &data,
            step: 3333,
            calls: 0,
            fail_after: None,
            given: 0,
        };
        w.add_file(name, r).unwrap();
    }
    assert!(w.finish().unwrap().0 == appended);
}

fn read_all(a: &Archive, path: &str) -> Vec<u8> {
    let mut out = Vec::new();
    a.open_file(path).unwrap().read_to_end(&mut out).unwrap();
    out
}

/// Stores blocks raw, and panics on its third block.
#[derive(Clone)]
struct Panicky(u32);

impl BlockCompressor for Panicky {
    fn context(&self) -> std::io::Result<Box<dyn BlockContext>> {
        Ok(Box::new(self.clone()))
    }
    fn describe(&self) -> String {
        "panicky".into()
    }
}

impl BlockContext for Panicky {
    fn compress_block(
        &mut self,
        block: &[u8; BLOCK_SIZE],
        out: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        self.0 += 1;
        if self.0 == 3 {
            panic!("the compressor panics on purpose");
        }
        out.extend_from_slice(block);
        Ok(())
    }
}

/// A block compressor that panics has its panic reach the caller with any number of
/// threads, as with one: with two, the writer waited forever for the lost block (the other
/// worker kept the results open).
#[test]
fn a_panicking_block_compressor_panics_the_caller_with_every_thread_count() {
    let data = vec![9u8; 600_000];
    for threads in [1, 2, 3] {
        let result = std::panic::catch_unwind(|| {
            let opts = WriterOptions::new()
                .threads(threads)
                .compressor(Arc::new(Panicky(0)));
            let mut w = ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
            w.add_file("f", &data[..]).unwrap();
            w.finish().unwrap();
        });
        let payload = result.expect_err("no panic");
        let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
        assert_eq!(
            message, "the compressor panics on purpose",
            "threads={threads}"
        );
    }
    // A caller that catches the panic and goes on gets an error, not a wait for the lost
    // block nor an archive without it.
    for threads in [1, 2, 3] {
        let opts = WriterOptions::new()
            .threads(threads)
            .compressor(Arc::new(Panicky(0)));
        let mut w = ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
        let added =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.add_file("f", &data[..])));
        if added.is_ok() {
            // The panic comes while the blocks are waited for.
            let finished =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.finish().is_err()));
            assert!(finished.unwrap_or(true), "threads={threads}");
            continue;
        }
        assert!(
            w.finish().is_err(),
            "threads={threads}: finished without the block"
        );
    }
}
