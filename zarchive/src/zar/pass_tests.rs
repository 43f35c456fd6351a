//! Whole-archive passes (extraction, verification, the hash) read the archive in file order,
//! in bounded batches, through [`ReadAt::read_pass_at`] (positioned reads, never the memory
//! map), so their memory stays bounded whatever the archive's size.

use std::sync::{Arc, Mutex};

use super::{Archive, BATCH_BYTES, BlockBatch, OpenOptions};
use crate::zar::format::BLOCK_SIZE;
use crate::zar::source::ReadAt;
use crate::zar::{ArchiveWriter, ExtractOptions, VerifyOptions, WriterOptions, ZarError, Zstd};

/// A read of the archive: one-pass or random-access, offset, length.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Read {
    Pass(u64, usize),
    Random(u64, usize),
}

/// An archive in memory that logs every read.
struct Logged {
    bytes: Vec<u8>,
    log: Arc<Mutex<Vec<Read>>>,
}

impl ReadAt for Logged {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.log
            .lock()
            .unwrap()
            .push(Read::Random(offset, buf.len()));
        let at = offset as usize;
        buf.copy_from_slice(&self.bytes[at..at + buf.len()]);
        Ok(())
    }
    fn read_pass_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.log.lock().unwrap().push(Read::Pass(offset, buf.len()));
        let at = offset as usize;
        buf.copy_from_slice(&self.bytes[at..at + buf.len()]);
        Ok(())
    }
}

/// Files of random (stored raw) and repetitive (compressed) bytes over about 40 blocks, so
/// batches hold blocks of both kinds.
fn files() -> Vec<(String, Vec<u8>)> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..24)
        .map(|i| {
            let len = (next() % (3 * BLOCK_SIZE as u64)) as usize + i;
            let data: Vec<u8> = if i % 3 == 0 {
                (0..len).map(|_| next() as u8).collect()
            } else {
                (0..len).map(|j| b"some text, again "[j % 17]).collect()
            };
            // Added in the order the archive's walk lists them.
            (format!("d{}/f{i:02}.bin", i / 6), data)
        })
        .collect()
}

fn archive_bytes(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let opts = WriterOptions::new().compressor(Arc::new(Zstd::new(1).unwrap()));
    let mut w = ArchiveWriter::with_options(Vec::new(), &opts).unwrap();
    for (path, data) in files {
        w.add_dir_all(path.rsplit_once('/').unwrap().0).unwrap();
        w.add_file(path, &data[..]).unwrap();
    }
    w.finish().unwrap().0
}

/// The archive, opened on a logging source, and the log (cleared after opening).
fn open_logged(bytes: Vec<u8>) -> (Archive, Arc<Mutex<Vec<Read>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let source = Logged {
        bytes,
        log: log.clone(),
    };
    let a = Archive::from_source(Box::new(source), &OpenOptions::new()).unwrap();
    log.lock().unwrap().clear();
    (a, log)
}

#[test]
fn batches_read_consecutive_blocks_in_order_and_bounded() {
    let bytes = archive_bytes(&files());
    let (a, log) = open_logged(bytes);
    let n = a.block_count();
    assert!(n > 30, "{n} blocks");
    let mut batch = BlockBatch::new();
    for b in 0..n {
        let stored = batch.stored(&a, b, n).unwrap().to_vec();
        assert_eq!(stored, a.stored_block(b).unwrap(), "block {b}");
    }
    // The reads of the batches, then those of `stored_block` above.
    let reads: Vec<Read> = log
        .lock()
        .unwrap()
        .iter()
        .copied()
        .filter(|r| matches!(r, Read::Pass(..)))
        .collect();
    assert_eq!(reads.len() as u64, batch.reads());
    assert_eq!(batch.log.len(), reads.len());
    // Each batch starts where the one before ended, in blocks and in bytes, and none is
    // larger than the bound; together they cover every block once.
    let mut next_block = 0;
    let mut next_pos = a.block_extent(0).unwrap().0;
    for (blocks, read) in batch.log.iter().zip(&reads) {
        let Read::Pass(pos, len) = *read else {
            unreachable!()
        };
        assert_eq!(blocks.start, next_block);
        assert_eq!(pos, next_pos);
        assert!(len <= BATCH_BYTES, "a read of {len} bytes");
        let (last_pos, last_len) = a.block_extent(blocks.end - 1).unwrap();
        assert_eq!(pos + len as u64, last_pos + last_len);
        next_block = blocks.end;
        next_pos = pos + len as u64;
    }
    assert_eq!(next_block, n);

    // `until` stops the read-ahead.
    let mut batch = BlockBatch::new();
    batch.stored(&a, 3, 5).unwrap();
    assert_eq!(batch.log.len(), 1);
    assert_eq!(batch.log[0], 3..5);
    batch.stored(&a, 4, 5).unwrap();
    batch.stored(&a, 0, 1).unwrap();
    assert_eq!(batch.log, [3..5, 0..1]);
}

#[test]
fn verify_on_one_thread_reads_every_byte_once_in_order() {
    let bytes = archive_bytes(&files());
    let len = bytes.len() as u64;
    let (a, log) = open_logged(bytes);
    let report = crate::zar::verify(&a, &VerifyOptions::new(), &mut |_| {}).unwrap();
    assert!(report.is_ok());
    assert_eq!(report.blocks, a.block_count());
    let mut pos = 0;
    for r in log.lock().unwrap().iter() {
        match *r {
            Read::Pass(at, n) => {
                assert_eq!(at, pos, "reads out of order: {r:?}");
                assert!(n <= 1 << 20, "a read of {n} bytes");
                pos += n as u64;
            }
            Read::Random(..) => panic!("a random-access read during verify: {r:?}"),
        }
    }
    assert_eq!(pos, len);
}

#[test]
fn verify_on_two_threads_and_the_hash_read_in_bounded_passes() {
    let bytes = archive_bytes(&files());
    let (a, log) = open_logged(bytes);
    let report = crate::zar::verify(&a, &VerifyOptions::new().threads(2), &mut |_| {}).unwrap();
    assert!(report.is_ok());
    let log = log.lock().unwrap();
    assert!(
        log.iter()
            .all(|r| matches!(r, Read::Pass(_, n) if *n <= 1 << 20)),
        "{log:?}"
    );
}

#[test]
fn extraction_reads_blocks_in_order_in_batches() {
    let files = files();
    let (a, log) = open_logged(archive_bytes(&files));
    let dir = tempfile::tempdir().unwrap();
    for verify in [false, true] {
        log.lock().unwrap().clear();
        let opts = ExtractOptions::new().overwrite(true).verify(verify);
        crate::zar::extract(&a, dir.path(), &opts, &mut |_| {}).unwrap();
        for (path, data) in &files {
            assert_eq!(&std::fs::read(dir.path().join(path)).unwrap(), data);
        }
        let log = log.lock().unwrap();
        assert!(
            log.iter().all(|r| matches!(r, Read::Pass(..))),
            "a random-access read during extraction: {log:?}"
        );
        // The block reads (the hash thread's, when verifying, are 1 MiB or the tail) go
        // forward through the file, each within the bound.
        let data_end = a.footer().compressed_data.size;
        let mut pos = 0;
        for r in log.iter() {
            let Read::Pass(at, n) = *r else {
                unreachable!()
            };
            if verify && (n == 1 << 20 || at + n as u64 > data_end) {
                continue;
            }
            assert!(n <= BATCH_BYTES, "a read of {n} bytes");
            assert!(at >= pos, "read at {at} after one ending at {pos}");
            pos = at + n as u64;
        }
        assert_eq!(pos, data_end);
    }
}

/// Two workers extracting small files (several to a block) take runs of consecutive files:
/// together they read the archive's blocks about once. Taken file by file, each worker's
/// batches read ahead over the blocks of the other's files too: 1.9 times the blocks' bytes
/// here, and two threads extracted 20,000 files of 16 KiB no faster than one.
#[test]
fn two_workers_read_the_blocks_of_small_files_about_once() {
    let mut x = 7u32;
    let files: Vec<(String, Vec<u8>)> = (0..400)
        .map(|i| {
            let data = (0..16_384)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    b"abcdefgh"[(x >> 28) as usize % 8]
                })
                .collect();
            (format!("d{}/f{i:03}.txt", i / 100), data)
        })
        .collect();
    let (a, log) = open_logged(archive_bytes(&files));
    let dir = tempfile::tempdir().unwrap();
    let opts = ExtractOptions::new().threads(2).verify(false);
    crate::zar::extract(&a, dir.path(), &opts, &mut |_| {}).unwrap();
    for (path, data) in &files {
        assert_eq!(&std::fs::read(dir.path().join(path)).unwrap(), data);
    }
    let read: u64 = log
        .lock()
        .unwrap()
        .iter()
        .map(|r| match *r {
            Read::Pass(_, n) | Read::Random(_, n) => n as u64,
        })
        .sum();
    let data = a.footer().compressed_data.size;
    assert!(read <= data + data / 8, "{read} bytes read of {data}");
}

/// Decoding reuses the buffers of blocks the cache evicts, but never one a caller still
/// holds: every block read keeps its content while the reader goes on over all the others.
#[test]
fn held_blocks_keep_their_content_while_buffers_are_reused() {
    let bytes = archive_bytes(&files());
    let (a, _log) = open_logged(bytes);
    let n = a.block_count();
    assert!(n > 30, "{n} blocks");
    let expected: Vec<Vec<u8>> = (0..n).map(|b| a.decode_block(b).unwrap()).collect();
    // Hold every third block of the first round; drop the others at once.
    let mut held = Vec::new();
    for round in 0..2 {
        for b in 0..n {
            let data = a.read_block(b).unwrap();
            assert_eq!(&data[..], &expected[b as usize][..], "block {b}");
            if round == 0 && b % 3 == 0 {
                held.push((b, data));
            }
        }
    }
    for (b, data) in &held {
        assert_eq!(&data[..], &expected[*b as usize][..], "held block {b} kept");
    }
}

/// The cache hands out a spare buffer only when full, and only the least recently used
/// entry nobody else holds.
#[test]
fn the_cache_spares_only_unheld_entries_when_full() {
    let block = |v: u8| -> Arc<[u8]> { Arc::from(vec![v; super::BLOCK_BUFFER_SIZE]) };
    let mut c = super::BlockCache::new(3);
    c.put(0, block(0));
    c.put(1, block(1));
    assert!(c.spare().is_none(), "not full");
    c.put(2, block(2));
    // Block 0 is the least recently used; a caller holds it.
    let held = c.get(0).unwrap();
    // Now 1 is least recently used (0 was touched), and nobody holds it.
    let spare = c.spare().expect("a spare when full");
    assert_eq!(spare[0], 1);
    assert_eq!(Arc::strong_count(&spare), 1);
    c.put(3, block(3));
    // Full again: 2 and 3 are unheld, 0 is held; 2 is the least recently used unheld one.
    let _keep2 = c.get(2).unwrap();
    let _keep3 = c.get(3).unwrap();
    assert!(c.spare().is_none(), "every entry is held");
    drop(held);
    assert_eq!(c.spare().expect("0 is free again")[0], 0);
}

/// A boxed, shared or borrowed source reads as the source it holds: one-pass reads stay
/// one-pass (not the random-access fallback) and blocks are borrowed where it can lend them.
#[test]
fn wrapped_sources_read_as_the_source_they_hold() {
    /// Lends every range and logs copies (a source that copies when it could lend fails).
    struct Lending(Logged);
    impl ReadAt for Lending {
        fn len(&self) -> u64 {
            self.0.len()
        }
        fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
            self.0.read_exact_at(offset, buf)
        }
        fn slice(&self, offset: u64, len: usize) -> Option<&[u8]> {
            let at = usize::try_from(offset).ok()?;
            self.0.bytes.get(at..at.checked_add(len)?)
        }
        fn read_pass_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
            self.0.read_pass_at(offset, buf)
        }
    }
    let files = files();
    let bytes = archive_bytes(&files);
    let wrap: [fn(Lending) -> Box<dyn ReadAt>; 2] =
        [|s| Box::new(Box::new(s)), |s| Box::new(Arc::new(s))];
    for (i, wrap) in wrap.iter().enumerate() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let source = Lending(Logged {
            bytes: bytes.clone(),
            log: log.clone(),
        });
        let a = Archive::from_source(wrap(source), &OpenOptions::new()).unwrap();
        log.lock().unwrap().clear();
        for b in 0..a.block_count() {
            a.decode_block(b).unwrap();
        }
        assert!(
            log.lock()
                .unwrap()
                .iter()
                .all(|r| matches!(r, Read::Pass(..))),
            "wrapper {i}: blocks copied where they could be borrowed"
        );
        let report = crate::zar::verify(&a, &VerifyOptions::new(), &mut |_| {}).unwrap();
        assert!(report.is_ok());
        let log = log.lock().unwrap();
        assert!(!log.is_empty());
        assert!(
            log.iter().all(|r| matches!(r, Read::Pass(..))),
            "wrapper {i}: a random-access read during verify"
        );
    }
    // The public entry point takes them too.
    let shared: Arc<[u8]> = Arc::from(bytes.clone());
    let a = Archive::from_read_at(shared.clone()).unwrap();
    let (path, data) = &files[1];
    let read = |a: &Archive| {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut a.open_file(path).unwrap(), &mut out).unwrap();
        out
    };
    assert_eq!(&read(&a), data);
    let a = Archive::from_read_at(Box::<[u8]>::from(bytes)).unwrap();
    assert_eq!(&read(&a), data);
}

/// A block the archive's file fails to read fails the verification (an I/O error naming the
/// block), on one thread and on two: it was reported as a damaged block, though a read
/// that failed once found nothing wrong with the archive.
#[test]
fn a_failed_block_read_fails_verify_instead_of_reporting_damage() {
    use std::sync::atomic::{AtomicBool, Ordering};
    /// The archive's bytes, whose first read of blocks at offset 0 fails (the hash's reads,
    /// of 1 MiB or to the footer, are longer than a batch and do not).
    struct FailsOnce {
        bytes: Vec<u8>,
        failed: AtomicBool,
    }
    impl ReadAt for FailsOnce {
        fn len(&self) -> u64 {
            self.bytes.len() as u64
        }
        fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
            if offset == 0 && buf.len() <= BATCH_BYTES && !self.failed.swap(true, Ordering::Relaxed)
            {
                return Err(std::io::Error::other("transient disk error"));
            }
            let at = offset as usize;
            buf.copy_from_slice(&self.bytes[at..at + buf.len()]);
            Ok(())
        }
    }
    let bytes = archive_bytes(&files());
    for threads in [1, 2] {
        let source = FailsOnce {
            bytes: bytes.clone(),
            failed: AtomicBool::new(false),
        };
        let a = Archive::from_source(Box::new(source), &OpenOptions::new()).unwrap();
        assert!(a.footer().total_size > 2 * BATCH_BYTES as u64);
        let opts = VerifyOptions::new().threads(threads);
        match crate::zar::verify(&a, &opts, &mut |_| {}) {
            Err(e @ ZarError::Io { .. }) => {
                let shown = e.to_string();
                assert!(
                    shown.contains("block") && shown.contains("transient"),
                    "{shown}"
                );
            }
            other => panic!("{threads} threads: {other:?}"),
        }
    }
}
