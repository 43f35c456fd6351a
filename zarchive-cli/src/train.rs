//! `zarchive train`: a zstd dictionary from sample files, as `zstd --train` makes it.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;
use zarkit::zar::names::display_path;
use zarkit::zstd;

use crate::frames::parse_memory;
use crate::output::{self, OutputFile, count};
use crate::{EXIT_FAILURE, EXIT_USAGE, Failure, fail};

/// Only the first 128 KiB of a file is a sample (`SAMPLESIZE_MAX`); `-B` cuts no larger.
const SAMPLE_SIZE_MAX: u64 = 128 * 1024;
/// At most 2 GiB of samples are loaded (`MAX_SAMPLES_SIZE`).
const SAMPLES_TOTAL_MAX: u64 = 2 << 30;

/// Arguments of `zarchive train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Sample files, and directories whose files (recursively) are samples.
    #[arg(required = true, value_name = "FILES_OR_DIRS")]
    inputs: Vec<PathBuf>,
    /// The dictionary file to write.
    #[arg(short, long, default_value = "dictionary")]
    output: PathBuf,
    /// Largest dictionary, in bytes or with a K, M or G suffix, as `zstd --maxdict`.
    #[arg(long, value_name = "SIZE", default_value_t = zstd::DEFAULT_DICTIONARY_SIZE.to_string())]
    maxdict: String,
    /// Cut each file into samples of this size (at most 128K), as `zstd -B`; by default a
    /// file is one sample, its first 128 KiB.
    #[arg(short = 'B', long = "block-size", value_name = "SIZE")]
    block_size: Option<String>,
    /// Replace the output file if it exists.
    #[arg(short, long)]
    force: bool,
}

/// Run `zarchive train`: gather the samples as `zstd --train` gathers them (the files in
/// its pseudo-random order, empty ones skipped, each cut to its first 128 KiB or into
/// `-B` blocks, 2 GiB at most) and train with [`zstd::train_dictionary`], which gives
/// `ZDICT_trainFromBuffer`'s bytes: `zstd --train` with the same files in the same order
/// writes the same dictionary.
pub fn train(a: TrainArgs) -> Result<(), Failure> {
    let max_dict =
        parse_memory(&a.maxdict).map_err(|e| fail(EXIT_USAGE, format!("--maxdict: {e}")))?;
    if max_dict < zstd::MIN_DICTIONARY_SIZE as u64 {
        return Err(fail(
            EXIT_USAGE,
            format!(
                "--maxdict {}: a dictionary needs at least {} bytes",
                a.maxdict,
                zstd::MIN_DICTIONARY_SIZE
            ),
        ));
    }
    // libzstd's trainer counts the dictionary's size in 32 bits.
    if max_dict > u64::from(u32::MAX) {
        return Err(fail(
            EXIT_USAGE,
            format!(
                "--maxdict {}: a dictionary holds at most {} bytes (4 GiB less one)",
                a.maxdict,
                u32::MAX
            ),
        ));
    }
    let block = match &a.block_size {
        Some(s) => {
            let b = parse_memory(s).map_err(|e| fail(EXIT_USAGE, format!("-B: {e}")))?;
            if b == 0 || b > SAMPLE_SIZE_MAX {
                return Err(fail(
                    EXIT_USAGE,
                    format!("-B {s}: the block size must be from 1 byte to 128K"),
                ));
            }
            Some(b)
        }
        None => None,
    };
    output::check_output(&a.output, a.force)?;
    let mut files = Vec::new();
    for input in &a.inputs {
        collect_files(input, &mut files)?;
    }
    zstd::shuffle_like_zstd(&mut files);
    let samples = load_samples(&files, block)?;
    // The trainer learns from the first 3/4 of the samples and measures on the rest: it
    // needs 5 and 1 of them (ZDICT_trainFromBuffer's fastCOVER split).
    if samples.len() < 7 {
        return Err(fail(
            EXIT_FAILURE,
            format!(
                "{} found: training needs one file per sample and at least 7 of them (or -B to cut files into samples)",
                count(samples.len() as u64, "sample was", "samples were")
            ),
        ));
    }
    let dict = zstd::train_dictionary(&samples, max_dict as usize)
        .map_err(|e| fail(EXIT_FAILURE, e.to_string()))?;
    let failed =
        |e: std::io::Error| fail(EXIT_FAILURE, format!("{}: {e}", display_path(&a.output)));
    if output::is_special(&a.output) {
        // A device or FIFO is written into, never replaced (as `zstd --train -o /dev/null`).
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(&a.output)
            .map_err(failed)?;
        std::io::Write::write_all(&mut file, &dict).map_err(failed)?;
    } else {
        let mut out = OutputFile::create(&a.output, a.force)?;
        std::io::Write::write_all(&mut out, &dict).map_err(failed)?;
        out.commit()?;
    }
    eprintln!(
        "zarchive: trained a dictionary of {} on {} ({}) into {}",
        count(dict.len() as u64, "byte", "bytes"),
        count(samples.len() as u64, "sample", "samples"),
        count(
            samples.iter().map(|s| s.len() as u64).sum(),
            "byte",
            "bytes"
        ),
        display_path(&a.output)
    );
    Ok(())
}

/// `path` itself if it is not a directory, else the files under it, each directory's
/// entries in name order. Links to directories are not followed.
fn collect_files(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let meta = std::fs::metadata(path)
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(path))))?;
    if !meta.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .and_then(|rd| rd.map(|e| e.map(|e| e.path())).collect())
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(path))))?;
    entries.sort();
    for entry in entries {
        let link = entry
            .symlink_metadata()
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(&entry))))?;
        if link.file_type().is_symlink() && entry.is_dir() {
            continue;
        }
        collect_files(&entry, files)?;
    }
    Ok(())
}

/// Each non-empty file's first 128 KiB as one sample, or all of it in `block`-byte
/// samples, until 2 GiB are loaded.
///
/// Mirrors DiB_fileStats + DiB_loadFiles.
fn load_samples(files: &[PathBuf], block: Option<u64>) -> Result<Vec<Vec<u8>>, Failure> {
    let mut samples = Vec::new();
    let mut total = 0u64;
    'files: for path in files {
        let meta = std::fs::metadata(path)
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(path))))?;
        // A FIFO or device has no size to sample by: refused, as `zstd --train` refuses it
        // ("Src size is incorrect"), named or met under a directory; it was skipped without
        // a word. (Kept in the list up to here: the shuffle is of zstd's list.)
        if !meta.is_file() {
            return Err(fail(
                EXIT_FAILURE,
                format!(
                    "{}: not a regular file; samples are read from files",
                    display_path(path)
                ),
            ));
        }
        let size = meta.len();
        if size == 0 {
            continue;
        }
        let file = std::fs::File::open(path)
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(path))))?;
        let want = match block {
            Some(_) => size,
            None => size.min(SAMPLE_SIZE_MAX),
        };
        let mut data = Vec::new();
        file.take(want)
            .read_to_end(&mut data)
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(path))))?;
        let chunk = block.unwrap_or(SAMPLE_SIZE_MAX) as usize;
        for (i, piece) in data.chunks(chunk).enumerate() {
            if total + piece.len() as u64 > SAMPLES_TOTAL_MAX {
                if i == 0 {
                    break 'files;
                }
                break;
            }
            total += piece.len() as u64;
            samples.push(piece.to_vec());
        }
    }
    Ok(samples)
}
