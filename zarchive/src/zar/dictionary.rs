//! `--dict auto`: whether a tree gains from a zstd dictionary, measured before packing.
//!
//! A sample of the tree's 64 KiB blocks (the blocks the archive will hold: files
//! concatenated in archive order, the last one zero-padded) is split in two: three quarters
//! train a dictionary ([`zstd::train_dictionary`]), the other quarter is compressed with
//! and without it. The dictionary is kept only when the saving projected over every block,
//! minus the dictionary's own size, is at least [`MIN_SAVING`] of the archive's
//! compressed data.

use std::io::Read;

use super::error::ZarError;
use super::format::BLOCK_SIZE;
use super::pack::{Item, open_item_at};
use crate::zstd;

/// Least projected saving, dictionary included, for which the dictionary is kept (1 %).
pub const MIN_SAVING: f64 = 0.01;
/// Blocks sampled at most (evenly spread over the stream).
const MAX_SAMPLED_BLOCKS: u64 = 512;
/// Every this-many-th sampled block is held out to measure with.
const HOLD_OUT_EVERY: u64 = 4;
/// Fewer blocks than this are too few to train on and measure with.
const MIN_BLOCKS: u64 = 16;

/// What `--dict auto` measured and decided.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct DictionaryChoice {
    /// Blocks the archive will hold.
    pub blocks: u64,
    /// Blocks the dictionary was trained on.
    pub trained_on: usize,
    /// Held-out blocks it was measured on.
    pub measured_on: usize,
    /// Their stored size without the dictionary, and with it (raw blocks count 65,536).
    pub plain_bytes: u64,
    /// See [`DictionaryChoice::plain_bytes`].
    pub dictionary_bytes: u64,
    /// The projected saving over the whole archive, the dictionary's size included, as a
    /// fraction of its compressed data without one (negative: a loss).
    pub projected_saving: f64,
    /// The dictionary's ID and size, when one was trained.
    pub trained: Option<(u32, usize)>,
    /// The dictionary, when kept.
    pub dictionary: Option<Vec<u8>>,
    /// Why there is no dictionary, in plain words (empty when kept).
    pub reason: String,
}

impl std::fmt::Display for DictionaryChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.dictionary, self.trained) {
            (Some(_), Some((id, size))) => write!(
                f,
                "dictionary {id} ({size} bytes) kept: it saves {:.1} % including its size (measured on {} held-out blocks of {}, trained on {})",
                self.projected_saving * 100.0,
                self.measured_on,
                self.blocks,
                self.trained_on
            ),
            _ => write!(f, "no dictionary: {}", self.reason),
        }
    }
}

/// Decide on a dictionary for `items` at `level`.
pub(crate) fn choose(items: &[Item<'_>], level: i32) -> Result<DictionaryChoice, ZarError> {
    let total: u64 = items.iter().map(|i| i.size).sum();
    let blocks = total.div_ceil(BLOCK_SIZE as u64);
    let mut choice = DictionaryChoice {
        blocks,
        ..DictionaryChoice::default()
    };
    if blocks < MIN_BLOCKS {
        choice.reason = format!(
            "the archive will hold {blocks} block{}; at least {MIN_BLOCKS} are needed to train a dictionary and measure it",
            if blocks == 1 { "" } else { "s" }
        );
        return Ok(choice);
    }
    let (train, test) = sample_blocks(items, blocks)?;
    choice.trained_on = train.len();
    choice.measured_on = test.len();
    let dict = match zstd::train_dictionary(&train, zstd::DEFAULT_DICTIONARY_SIZE) {
        Ok(d) => d,
        Err(e) => {
            choice.reason = e.to_string();
            return Ok(choice);
        }
    };
    let to_zar =
        |e: zstd::ZstdError| ZarError::io("measuring the dictionary", std::io::Error::other(e));
    let prepared = zstd::EncoderDictionary::new(&dict, level).map_err(to_zar)?;
    choice.trained = Some((prepared.id(), dict.len()));
    let mut cctx = zstd::Compressor::new(level).map_err(to_zar)?;
    let mut frame = Vec::new();
    for block in &test {
        frame.clear();
        cctx.compress_into(block, &mut frame).map_err(to_zar)?;
        choice.plain_bytes += frame.len().min(BLOCK_SIZE) as u64;
        frame.clear();
        cctx.compress_prepared_into(block, &prepared, &mut frame)
            .map_err(to_zar)?;
        choice.dictionary_bytes += frame.len().min(BLOCK_SIZE) as u64;
    }
    let scale = blocks as f64 / test.len() as f64;
    let plain = choice.plain_bytes as f64 * scale;
    let saved =
        (choice.plain_bytes as f64 - choice.dictionary_bytes as f64) * scale - dict.len() as f64;
    choice.projected_saving = saved / plain;
    if choice.projected_saving >= MIN_SAVING {
        choice.dictionary = Some(dict);
    } else {
        choice.reason = format!(
            "a trained {}-byte dictionary would save {:.2} % including its size (measured on {} held-out blocks), below the 1 % threshold",
            dict.len(),
            choice.projected_saving * 100.0,
            test.len()
        );
    }
    Ok(choice)
}

/// Sampled blocks: `(training blocks, held-out blocks)`.
type Sample = (Vec<Vec<u8>>, Vec<Vec<u8>>);

/// Read up to [`MAX_SAMPLED_BLOCKS`] blocks spread evenly over the stream (only their
/// bytes: each from the files it spans, zero-padded at the end as the archive stores it).
fn sample_blocks(items: &[Item<'_>], blocks: u64) -> Result<Sample, ZarError> {
    let sampled = blocks.min(MAX_SAMPLED_BLOCKS);
    // Where each file item starts in the stream.
    let mut starts = Vec::with_capacity(items.len());
    let mut at = 0u64;
    for item in items {
        starts.push(at);
        at += item.size;
    }
    let block_len = BLOCK_SIZE as u64;
    let mut sets: Sample = (Vec::new(), Vec::new());
    let mut last_dir = super::dirs::LastDir::default();
    for i in 0..sampled {
        // Sample i is block i * blocks / sampled: increasing, distinct.
        let b = i * blocks / sampled;
        let (begin, end) = (b * block_len, (b + 1) * block_len);
        let mut block = vec![0u8; BLOCK_SIZE];
        // The first item ending after `begin`, then every item starting before `end`.
        let first = starts.partition_point(|&s| s <= begin).saturating_sub(1);
        for (item, &start) in items[first..].iter().zip(&starts[first..]) {
            if start >= end {
                break;
            }
            if start + item.size <= begin || item.size == 0 {
                continue;
            }
            let from = begin.max(start);
            let to = end.min(start + item.size);
            let Some(mut reader) = open_item_at(item, from - start, &mut last_dir)? else {
                continue;
            };
            let dst = &mut block[(from - begin) as usize..(to - begin) as usize];
            // A file that shrank since it was listed leaves zeros; the pack itself refuses it.
            let mut filled = 0;
            while filled < dst.len() {
                match reader.read(&mut dst[filled..]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        let path = String::from_utf8_lossy(&item.archive_path);
                        return Err(ZarError::io(
                            format!("reading {path} to sample the tree's blocks"),
                            e,
                        ));
                    }
                }
            }
        }
        if i % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1 {
            sets.1.push(block);
        } else {
            sets.0.push(block);
        }
    }
    Ok(sets)
}
