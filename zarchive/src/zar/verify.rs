//! Verifying an archive: recompute the SHA-256 and decode every block, reporting every
//! problem by block and by the files that block belongs to.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::ZarError;
use super::format::HASH_SIZE;
use super::reader::Archive;

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
/// Only when the archive's bytes cannot be read at all for the hash; damage is reported in
/// the [`VerifyReport`], not as an error.
pub fn verify(
    archive: &Archive,
    opts: &VerifyOptions,
    progress: &mut dyn FnMut(VerifyEvent),
) -> Result<VerifyReport, ZarError> {
    let blocks = archive.block_count();
    progress(VerifyEvent::Started { blocks });
    let next = AtomicU64::new(0);
    let bad = Mutex::new(Vec::new());
    let work = |done: &mut dyn FnMut()| {
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= blocks {
                break;
            }
            if let Err(e) = archive.decode_block(b) {
                let msg = match &e {
                    // The reason already says what the decoder found.
                    ZarError::Block { reason, .. } => reason.clone(),
                    other => other.to_string(),
                };
                if let Ok(mut v) = bad.lock() {
                    v.push((b, msg));
                }
            }
            done();
        }
    };
    let threads = opts.threads.max(1).min(blocks.max(1) as usize);
    let computed_hash = if threads == 1 {
        let hash = archive.compute_hash()?;
        work(&mut || progress(VerifyEvent::Blocks(1)));
        hash
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
