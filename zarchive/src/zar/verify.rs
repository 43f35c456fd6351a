//! Verifying an archive: recompute the SHA-256 and decode every block, reporting every
//! problem by block and by the files that block belongs to.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::ZarError;
use super::format::{BLOCK_SIZE, HASH_SIZE};
use super::reader::{Archive, BATCH_BYTES, BLOCK_BUFFER_SIZE, BlockBatch, PassHasher};

/// Blocks a verification worker takes at a time: as many full-size blocks as one batch
/// holds, so each run is one positioned read.
const RUN: u64 = (BATCH_BYTES / BLOCK_SIZE) as u64;

/// A block that failed to decode.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BlockProblem {
    /// Block index in the data stream.
    pub block: u64,
    /// Stored position and length in the archive file.
    pub extent: (u64, u64),
    /// What is wrong.
    pub error: String,
    /// Paths of the files with bytes in this block.
    pub files: Vec<String>,
}

/// The outcome of [`verify`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct VerifyReport {
    /// The digest stored in the footer.
    pub stored_hash: [u8; HASH_SIZE],
    /// The digest computed over the file.
    pub computed_hash: [u8; HASH_SIZE],
    /// Blocks checked.
    pub blocks: u64,
    /// Every block that failed, in block order.
    pub problems: Vec<BlockProblem>,
}

impl VerifyReport {
    /// Whether the stored hash matches.
    pub fn hash_ok(&self) -> bool {
        self.stored_hash == self.computed_hash
    }
    /// Whether everything checked out.
    pub fn is_ok(&self) -> bool {
        self.hash_ok() && self.problems.is_empty()
    }
}

/// How to verify.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct VerifyOptions {
    threads: usize,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions { threads: 1 }
    }
}

impl VerifyOptions {
    /// One thread.
    pub fn new() -> Self {
        Self::default()
    }
    /// Decode blocks on `n` threads (the hash is computed on one more, alongside); 0 or 1:
    /// everything on the calling thread.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n.max(1);
        self
    }
}

/// Progress of a verification, reported through the callback on the calling thread.
#[derive(Debug)]
#[non_exhaustive]
pub enum VerifyEvent {
    /// This many blocks will be decoded.
    Started {
        /// Blocks in the archive.
        blocks: u64,
    },
    /// This many more blocks were decoded (or failed to).
    Blocks(u64),
}

/// Check the integrity hash and decode every block; every problem is collected, none stops
/// the others.
///
/// # Errors
///
/// When the archive's bytes cannot be read (for a block, [`ZarError::Io`] naming it, or for
/// the hash); damage is reported in the [`VerifyReport`], not as an error.
pub fn verify(
    archive: &Archive,
    opts: &VerifyOptions,
    progress: &mut dyn FnMut(VerifyEvent),
) -> Result<VerifyReport, ZarError> {
    let blocks = archive.block_count();
    progress(VerifyEvent::Started { blocks });
    let next = AtomicU64::new(0);
    let bad = Mutex::new(Vec::new());
    // A block the file fails to read is no damage found: the verification fails with it.
    let failed_read: Mutex<Option<ZarError>> = Mutex::new(None);
    let record = |b: u64, e: ZarError| {
        if matches!(e, ZarError::Io { .. }) {
            if let Ok(mut first) = failed_read.lock() {
                first.get_or_insert(e);
            }
            return;
        }
        let msg = match &e {
            // The reason already says what the decoder found.
            ZarError::Block { reason, .. } => reason.clone(),
            other => other.to_string(),
        };
        if let Ok(mut v) = bad.lock() {
            v.push((b, msg));
        }
    };
    // Decode `b` from its run of blocks `..end`, read in batches.
    let check = |batch: &mut BlockBatch, out: &mut [u8], b: u64, end: u64| {
        let r = batch
            .stored(archive, b, end)
            .and_then(|stored| archive.decode_stored(b, stored, out));
        if let Err(e) = r {
            record(b, e);
        }
    };
    // Workers take runs of consecutive blocks, each read with one positioned read into a
    // reused buffer and decoded into another.
    let work = |done: &mut dyn FnMut()| {
        let mut batch = BlockBatch::new();
        let mut out = vec![0u8; BLOCK_BUFFER_SIZE];
        loop {
            let first = next.fetch_add(RUN, Ordering::Relaxed);
            if first >= blocks {
                break;
            }
            let end = first.saturating_add(RUN).min(blocks);
            for b in first..end {
                check(&mut batch, &mut out, b, end);
                done();
            }
        }
    };
    let threads = opts.threads.max(1).min(blocks.max(1) as usize);
    let computed_hash = if threads == 1 {
        // One pass over the file: the bytes read for the blocks are hashed too.
        let mut hasher = PassHasher::new(archive);
        let mut batch = BlockBatch::new();
        let mut out = vec![0u8; BLOCK_BUFFER_SIZE];
        for b in 0..blocks {
            let reads = batch.reads();
            check(&mut batch, &mut out, b, blocks);
            if batch.reads() != reads {
                let (pos, bytes) = batch.contents();
                hasher.feed(archive, pos, bytes)?;
            }
            progress(VerifyEvent::Blocks(1));
        }
        hasher.finish(archive)?
    } else {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|s| {
            let hasher = std::thread::Builder::new()
                .name("zar-verify-hash".into())
                .spawn_scoped(s, || archive.compute_hash());
            // A thread the system refuses to start is not an error: the others (or this
            // thread, if none started) do its share.
            let started = (0..threads)
                .take_while(|_| {
                    let tx = tx.clone();
                    let work = &work;
                    std::thread::Builder::new()
                        .spawn_scoped(s, move || {
                            work(&mut || {
                                let _ = tx.send(());
                            })
                        })
                        .is_ok()
                })
                .count();
            if started == 0 {
                work(&mut || {
                    let _ = tx.send(());
                });
            }
            drop(tx);
            for () in rx.iter() {
                progress(VerifyEvent::Blocks(1));
            }
            match hasher {
                Ok(h) => h.join().unwrap_or_else(|_| archive.compute_hash()),
                Err(_) => archive.compute_hash(),
            }
        })?
    };
    if let Some(e) = failed_read.into_inner().ok().flatten() {
        return Err(e);
    }
    let mut bad = bad.into_inner().unwrap_or_default();
    bad.sort_unstable();
    let problems = if bad.is_empty() {
        Vec::new()
    } else {
        let files: Vec<(std::ops::Range<u64>, String)> = archive
            .walk()
            .filter(|e| e.is_file())
            .map(|e| (e.blocks(), e.path_display()))
            .filter(|(r, _)| !r.is_empty())
            .collect();
        bad.into_iter()
            .map(|(block, error)| BlockProblem {
                block,
                extent: archive.block_extent(block).unwrap_or((0, 0)),
                error,
                files: files
                    .iter()
                    .filter(|(r, _)| r.contains(&block))
                    .map(|(_, p)| p.clone())
                    .collect(),
            })
            .collect()
    };
    Ok(VerifyReport {
        stored_hash: archive.footer().integrity_hash,
        computed_hash,
        blocks,
        problems,
    })
}
