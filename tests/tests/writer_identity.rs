//! The writer reproduces the reference tool's bytes: given the same entries in the same
//! order and the same compressed blocks, the archive is byte-identical.

use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;

use zarkit::zar::format::{BLOCK_SIZE, FOOTER_SIZE, Footer};
use zarkit::zar::{
    Archive, BlockCompressor, BlockContext, PackOptions, Stored, WriterOptions, pack_dir_to,
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
