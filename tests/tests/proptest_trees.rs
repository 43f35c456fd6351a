//! Random trees (mixed-case and UTF-8 names, nesting, empty files and directories, sizes
//! around multiples of 64 KiB) pack, reopen and read back exactly, and give identical
//! archive bytes with 1 and 4 threads.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use zarkit::zar::{Archive, PackOptions, Stored, WriterOptions, pack_dir_to};

#[derive(Debug, Clone)]
enum Node {
    File { size: usize, seed: u8 },
    Dir(BTreeMap<String, Node>),
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_.-]{1,12}",
        "[a-zA-Zéü日本_]{1,6}",
        Just("Readme.TXT".to_string()),
        Just("readme.txt".to_string()),
    ]
    .prop_filter("not . or ..", |n| n != "." && n != "..")
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        1usize..300,
        (1usize..4, -1i64..=1).prop_map(|(k, d)| (k as i64 * 65536 + d) as usize),
        1usize..140_000,
    ]
}

fn tree(depth: u32) -> impl Strategy<Value = BTreeMap<String, Node>> {
    let leaf = (size(), any::<u8>()).prop_map(|(size, seed)| Node::File { size, seed });
    let node = leaf.prop_recursive(depth, 24, 6, |inner| {
        prop::collection::btree_map(name(), inner, 0..5).prop_map(Node::Dir)
    });
    prop::collection::btree_map(name(), node, 0..7)
}

fn content(size: usize, seed: u8) -> Vec<u8> {
    (0..size)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 13) as u8 ^ seed)
        .collect()
}

/// Write the tree, dropping names that collide ignoring ASCII case (the file system here is
/// case-sensitive; ZAR is not). Returns (archive path, contents) of every file written.
fn materialise(
    dir: &Path,
    t: &BTreeMap<String, Node>,
    prefix: &str,
    files: &mut Vec<(String, Vec<u8>)>,
) {
    let mut seen = std::collections::HashSet::new();
    for (n, node) in t {
        if !seen.insert(n.to_ascii_lowercase()) {
            continue;
        }
        let p = dir.join(n);
        let ap = if prefix.is_empty() {
            n.clone()
        } else {
            format!("{prefix}/{n}")
        };
        match node {
            Node::File { size, seed } => {
                let c = content(*size, *seed);
                std::fs::write(&p, &c).unwrap();
                files.push((ap, c));
            }
            Node::Dir(children) => {
                std::fs::create_dir(&p).unwrap();
                materialise(&p, children, &ap, files);
            }
        }
    }
}

fn pack(dir: &Path, threads: usize) -> Vec<u8> {
    let opts = PackOptions::new().writer(
        WriterOptions::new()
            .compressor(Arc::new(Stored))
            .threads(threads),
    );
    pack_dir_to(dir, Vec::new(), &opts, &[], &mut |_| {})
        .unwrap()
        .0
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_trees_round_trip_and_do_not_depend_on_thread_count(t in tree(3)) {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        materialise(dir.path(), &t, "", &mut files);
        let one = pack(dir.path(), 1);
        let four = pack(dir.path(), 4);
        prop_assert!(one == four, "archive bytes differ between 1 and 4 threads");
        let a = Archive::from_reader(std::io::Cursor::new(one)).unwrap();
        prop_assert_eq!(a.compute_hash().unwrap(), a.footer().integrity_hash);
        prop_assert_eq!(a.file_count(), files.len() as u64);
        for (path, want) in &files {
            let mut got = Vec::new();
            a.open_file(path).unwrap().read_to_end(&mut got).unwrap();
            prop_assert!(&got == want, "{} differs", path);
            let upper = path.to_ascii_uppercase();
            prop_assert_eq!(a.get(&upper).unwrap().path(), path.as_bytes().to_vec());
        }
        // Stream order is the canonical walk order: each file starts where the previous ended.
        let mut expect_offset = 0;
        for e in a.walk().filter(|e| e.is_file()) {
            let zarkit::zar::EntryKind::File { offset, size } = e.kind() else { unreachable!() };
            prop_assert_eq!(offset, expect_offset);
            expect_offset += size;
        }
    }
}
