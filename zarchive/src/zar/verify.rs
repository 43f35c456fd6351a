//! Verifying an archive: recompute the SHA-256 and decode every block, reporting every
//! problem by block and by the files that block belongs to.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::ZarError;
use super::format::HASH_SIZE;
use super::reader::Archive;

/// A block that failed to decode.
#[derive(Debug, Clone)]
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

/// Check the integrity hash and decode every block with `threads` threads; `progress`
/// receives the number of blocks finished so far.
pub fn verify(
    archive: &Archive,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<VerifyReport, ZarError> {
    let computed_hash = archive.compute_hash()?;
    let blocks = archive.block_count();
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let bad = Mutex::new(Vec::new());
    let work = || {
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
            progress(done.fetch_add(1, Ordering::Relaxed) + 1);
        }
    };
    let threads = threads.max(1).min(blocks.max(1) as usize);
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            // A thread the system refuses to start is not an error: the others (or this
            // thread, if none started) do its share.
            let started = (0..threads)
                .take_while(|_| std::thread::Builder::new().spawn_scoped(s, work).is_ok())
                .count();
            if started == 0 {
                work();
            }
        });
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
