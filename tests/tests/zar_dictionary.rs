//! The ZAR dictionary extension (issue 12; `../shared/docs/dictionaries.md` §5): archives
//! whose blocks are compressed with a zstd dictionary stored in the meta sections, under
//! footer version 0x61BF3AD1. The writer's layout, the frames, the reader's acceptance and
//! its refusals, each by name.

use std::io::Read;
use std::sync::Arc;

use zarkit::zar::format::{
    BLOCK_SIZE, FOOTER_SIZE, Footer, META_FLAG_REQUIRED, MetaEntry, TAG_DICTIONARY, VERSION_1,
    VERSION_META, meta_directory_bytes,
};
use zarkit::zar::{
    Archive, ArchiveWriter, VerifyOptions, WriterOptions, ZarError, ZstdWithDictionary, verify,
};
use zarkit::zstd::{Compressor, EncoderDictionary};
use zarkit_corpus::{Shape, generate};

fn golden_dict() -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/goldens/dict/formatted.dict"),
    )
    .unwrap()
}

/// Files of text (what the golden dictionary was trained on), binary and zeros.
fn files() -> Vec<(String, Vec<u8>)> {
    (0..24u64)
        .map(|i| {
            let shape = [Shape::Text, Shape::Binary, Shape::Text, Shape::Zeros][i as usize % 4];
            let size = 500 + (i as usize * 9_337) % 40_000;
            (
                format!("d{}/f{i}.dat", i % 3),
                generate(shape, size, 40 + i),
            )
        })
        .collect()
}

fn write(opts: &WriterOptions) -> Vec<u8> {
    let mut w = ArchiveWriter::with_options(Vec::new(), opts).unwrap();
    for d in ["d0", "d1", "d2"] {
        w.add_dir(d).unwrap();
    }
    for (path, data) in files() {
        w.add_file(&path, &data[..]).unwrap();
    }
    w.finish().unwrap().0
}

fn with_dict(dict: &[u8], threads: usize) -> Vec<u8> {
    let c = ZstdWithDictionary::new(dict, 6).unwrap();
    write(
        &WriterOptions::new()
            .compressor(Arc::new(c))
            .threads(threads),
    )
}

fn footer(archive: &[u8]) -> Footer {
    Footer::parse(archive[archive.len() - FOOTER_SIZE..].try_into().unwrap())
}

fn open(bytes: Vec<u8>) -> Result<Archive, ZarError> {
    Archive::from_reader(std::io::Cursor::new(bytes))
}

fn read_all(a: &Archive) -> Vec<(String, Vec<u8>)> {
    files()
        .into_iter()
        .map(|(path, _)| {
            let mut data = Vec::new();
            a.open_file(&path).unwrap().read_to_end(&mut data).unwrap();
            (path, data)
        })
        .collect()
}

#[test]
fn an_archive_with_a_dictionary_stores_it_and_reads_back() {
    let dict = golden_dict();
    let bytes = with_dict(&dict, 1);
    assert_eq!(
        bytes,
        with_dict(&dict, 3),
        "the thread count changes nothing"
    );
    let f = footer(&bytes);
    assert_eq!(f.version, VERSION_META);
    // The meta directory names the dictionary, whose bytes follow it; then the footer.
    let id = u32::from_le_bytes(dict[4..8].try_into().unwrap());
    let dir = &bytes[f.meta_directory.offset as usize..][..f.meta_directory.size as usize];
    assert_eq!(
        dir,
        meta_directory_bytes(&[MetaEntry {
            tag: TAG_DICTIONARY,
            flags: META_FLAG_REQUIRED,
            offset: 0,
            size: dict.len() as u64,
            param: id as u64,
        }])
    );
    assert_eq!(
        f.meta_data.offset,
        f.meta_directory.offset + f.meta_directory.size
    );
    assert_eq!(
        &bytes[f.meta_data.offset as usize..][..dict.len()],
        &dict[..]
    );
    assert_eq!(
        f.meta_data.offset + f.meta_data.size + FOOTER_SIZE as u64,
        f.total_size
    );

    let a = open(bytes).unwrap();
    assert_eq!(a.dictionaries().len(), 1);
    assert_eq!(a.dictionaries()[0].id, id);
    assert_eq!(read_all(&a), files());
    let report = verify(&a, &VerifyOptions::default(), &mut |_| {}).unwrap();
    assert!(report.hash_ok() && report.problems.is_empty());
    // Random reads: seeks into files decode the blocks they land in (a 1-block cache).
    let small = zarkit::zar::OpenOptions::new()
        .cache_blocks(1)
        .open_reader(std::io::Cursor::new(with_dict(&dict, 1)))
        .unwrap();
    let all = files();
    let mut x = 99u64;
    for _ in 0..200 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (path, data) = &all[(x >> 33) as usize % all.len()];
        let at = (x >> 13) as usize % data.len();
        let len = ((x >> 3) as usize % 5000).min(data.len() - at);
        let mut r = small.open_file(path).unwrap();
        std::io::Seek::seek(&mut r, std::io::SeekFrom::Start(at as u64)).unwrap();
        let mut got = vec![0u8; len];
        r.read_exact(&mut got).unwrap();
        assert_eq!(&got[..], &data[at..at + len], "{path} at {at}");
    }

    // Every compressed block is the frame ZSTD_compress_usingCDict(createCDict(dict, 6))
    // gives (our encoder's, itself checked against libzstd in benches/), naming the ID.
    let prepared = EncoderDictionary::new(&dict, 6).unwrap();
    let mut cctx = Compressor::new(6).unwrap();
    let mut with_id = 0;
    for b in 0..a.block_count() {
        let stored = a.stored_block(b).unwrap();
        if stored.len() == BLOCK_SIZE {
            continue;
        }
        let block = a.decode_block(b).unwrap();
        let mut frame = Vec::new();
        cctx.compress_prepared_into(&block, &prepared, &mut frame)
            .unwrap();
        assert_eq!(stored, frame, "block {b}");
        assert_eq!(zarkit::zstd::frame_dictionary_id(&stored).unwrap(), id);
        with_id += 1;
    }
    assert!(with_id > 0);
}

#[test]
fn the_dictionary_makes_text_blocks_smaller() {
    let plain = write(&WriterOptions::new());
    let dict = with_dict(&golden_dict(), 1);
    let data = |b: &[u8]| footer(b).compressed_data.size;
    assert!(
        data(&dict) < data(&plain),
        "{} vs {}",
        data(&dict),
        data(&plain)
    );
    assert_eq!(footer(&plain).version, VERSION_1);
}

/// Rewrites the meta directory and data of an archive built with the golden dictionary,
/// then fixes the footer (sizes, total); the hash is left stale (open does not check it).
fn patched(entries: &[MetaEntry], data: &[u8]) -> Vec<u8> {
    let bytes = with_dict(&golden_dict(), 1);
    let f = footer(&bytes);
    let mut out = bytes[..f.meta_directory.offset as usize].to_vec();
    let dir = meta_directory_bytes(entries);
    out.extend_from_slice(&dir);
    out.extend_from_slice(data);
    let mut nf = f;
    nf.meta_directory.size = dir.len() as u64;
    nf.meta_data.offset = f.meta_directory.offset + dir.len() as u64;
    nf.meta_data.size = data.len() as u64;
    nf.total_size = out.len() as u64 + FOOTER_SIZE as u64;
    out.extend_from_slice(&nf.to_bytes());
    out
}

fn entry(dict: &[u8]) -> MetaEntry {
    MetaEntry {
        tag: TAG_DICTIONARY,
        flags: META_FLAG_REQUIRED,
        offset: 0,
        size: dict.len() as u64,
        param: u32::from_le_bytes(dict[4..8].try_into().unwrap()) as u64,
    }
}

fn refusal(bytes: Vec<u8>) -> String {
    open(bytes).unwrap_err().to_string()
}

#[test]
fn the_reader_refuses_a_bad_meta_directory_by_name() {
    let dict = golden_dict();
    let good = entry(&dict);
    // The patching itself keeps a readable archive.
    assert_eq!(read_all(&open(patched(&[good], &dict)).unwrap()), files());

    let unknown = MetaEntry {
        tag: u32::from_be_bytes(*b"ABCD"),
        offset: dict.len() as u64,
        size: 4,
        ..good
    };
    let mut data = dict.clone();
    data.extend_from_slice(b"xxxx");
    let e = refusal(patched(&[good, unknown], &data));
    assert!(e.contains("'ABCD'") && e.contains("required"), "{e}");
    // An unknown optional tag is skipped.
    let optional = MetaEntry {
        flags: 0,
        ..unknown
    };
    assert!(open(patched(&[good, optional], &data)).is_ok());

    let e = refusal(patched(&[MetaEntry { param: 7, ..good }], &dict));
    assert!(e.contains("names dictionary 7"), "{e}");
    let e = refusal(patched(&[MetaEntry { param: 0, ..good }], &dict));
    assert!(e.contains("not a dictionary ID"), "{e}");
    let e = refusal(patched(
        &[MetaEntry {
            param: 1 << 40,
            ..good
        }],
        &dict,
    ));
    assert!(e.contains("not a dictionary ID"), "{e}");
    let e = refusal(patched(&[good, good], &dict));
    assert!(e.contains("overlap"), "{e}");
    let mut twice = dict.clone();
    twice.extend_from_slice(&dict);
    let second = MetaEntry {
        offset: dict.len() as u64,
        ..good
    };
    let e = refusal(patched(&[good, second], &twice));
    assert!(e.contains("stored twice"), "{e}");
    let e = refusal(patched(
        &[MetaEntry {
            size: dict.len() as u64 + 1,
            ..good
        }],
        &dict,
    ));
    assert!(e.contains("outside"), "{e}");

    // Raw content is not a dictionary here; a damaged table is refused.
    let mut raw = dict.clone();
    raw[0] = 0;
    let e = refusal(patched(&[good], &raw));
    assert!(e.contains("not a zstd-format dictionary"), "{e}");
    let mut damaged = dict.clone();
    damaged[9] ^= 0xFF;
    damaged[10] ^= 0xFF;
    let e = refusal(patched(&[good], &damaged));
    assert!(e.contains("damaged"), "{e}");
}

#[test]
fn blocks_naming_another_dictionary_or_none_are_damage_not_wrong_output() {
    let dict = golden_dict();
    let bytes = with_dict(&dict, 1);
    let a = open(bytes.clone()).unwrap();
    let b = (0..a.block_count())
        .find(|&b| a.stored_block(b).unwrap().len() < BLOCK_SIZE)
        .unwrap();
    let (offset, _) = a.block_extent(b).unwrap();
    // The frame header: magic, descriptor (dictionary ID flag in its low 2 bits), ...
    let at = offset as usize;
    let descriptor = bytes[at + 4];
    assert_eq!(descriptor & 3, 3, "a 4-byte dictionary ID");
    let id_at = at + 5 + (descriptor & 0x20 == 0) as usize;
    let mut other = bytes.clone();
    other[id_at] ^= 1;
    let a = open(other).unwrap();
    let e = a.decode_block(b).unwrap_err().to_string();
    assert!(
        e.contains(&format!("block {b}")) && e.contains("which the archive does not hold"),
        "{e}"
    );
    // The same archive labelled v1: its frames name a dictionary it does not know.
    let mut v1 = bytes.clone();
    let n = v1.len();
    v1[n - 8..n - 4].copy_from_slice(&VERSION_1.to_be_bytes());
    let a = open(v1).unwrap();
    assert!(a.dictionaries().is_empty());
    let e = a.decode_block(b).unwrap_err().to_string();
    assert!(e.contains("needs dictionary"), "{e}");
    // Unknown versions are refused by number.
    let mut v2 = bytes;
    v2[n - 8..n - 4].copy_from_slice(&0x61BF_3A02u32.to_be_bytes());
    let e = refusal(v2);
    assert!(e.contains("0x61BF3A02"), "{e}");
}

#[test]
fn raw_content_cannot_be_an_archive_dictionary() {
    let e = ZstdWithDictionary::new(&generate(Shape::Text, 4096, 1), 6).unwrap_err();
    assert!(e.to_string().contains("zstd-format"), "{e}");
}
