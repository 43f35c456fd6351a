//! `zarchive pack`.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use zarkit::zar::{self, BlockCompressor, PackEvent, PackOptions, PackWarning, Stored, WriterOptions};
use zarkit::zstd;

use crate::output::{self, count};
use crate::{EXIT_FAILURE, EXIT_USAGE, Failure, fail};

/// Arguments of `zarchive pack`.
#[derive(Args, Debug)]
pub struct PackArgs {
    /// The directory to pack.
    dir: PathBuf,
    /// Output archive, or `-` for standard output (default: DIR.zar beside DIR).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Compression threads (default: all cores; at most the number of cores).
    #[arg(short = 'j', long)]
    threads: Option<usize>,
    /// Compression: a zstd level from -131072 to 22, or `stored` for uncompressed blocks
    /// (default: 6, the reference tool's level; the archive is then byte-identical to the
    /// reference tool's).
    #[arg(short, long, allow_hyphen_values = true)]
    level: Option<String>,
    /// Follow symbolic links (default: skip them with a warning). A link that is dangling or
    /// loops back to a directory above it is skipped with a warning.
    #[arg(long)]
    follow_symlinks: bool,
    /// Leave out files and directories whose names a ZAR archive cannot hold (such as a
    /// `\` in a Unix file name), with a warning each. Without it, such a name fails the pack:
    /// a name is never stored as something else.
    #[arg(long)]
    skip_invalid_names: bool,
    /// Replace the output file if it exists.
    #[arg(short, long)]
    force: bool,
    /// No progress bar or summary (warnings and errors still print).
    #[arg(short, long)]
    quiet: bool,
}

impl PackArgs {
    /// The reference tool's `zarchive DIR [OUT]`.
    pub fn positional(dir: PathBuf, output: Option<PathBuf>) -> PackArgs {
        PackArgs {
            dir,
            output,
            threads: None,
            level: None,
            follow_symlinks: false,
            skip_invalid_names: false,
            force: false,
            quiet: false,
        }
    }
}

/// Parse a zstd level, with the same wording everywhere a level is taken.
pub fn parse_level(s: &str, stored_allowed: bool) -> Result<i32, Failure> {
    let range = if stored_allowed {
        format!(
            "a zstd level from {} to {}, or `stored`",
            zstd::MIN_LEVEL,
            zstd::MAX_LEVEL
        )
    } else {
        format!("a zstd level from {} to {}", zstd::MIN_LEVEL, zstd::MAX_LEVEL)
    };
    match s.parse::<i32>() {
        Ok(n) if (zstd::MIN_LEVEL..=zstd::MAX_LEVEL).contains(&n) => Ok(n),
        _ => Err(fail(
            EXIT_USAGE,
            format!("invalid level {s}: use {range}"),
        )),
    }
}

/// Resolve `-l`: `stored`, or a zstd level.
fn block_compressor(level: Option<&str>) -> Result<Arc<dyn BlockCompressor>, Failure> {
    match level {
        None => Ok(Arc::new(zar::Zstd::default())),
        Some("stored" | "none") => Ok(Arc::new(Stored)),
        Some(s) => {
            let n = parse_level(s, true)?;
            let z = zar::Zstd::new(n).map_err(|e| fail(EXIT_USAGE, e.to_string()))?;
            Ok(Arc::new(z))
        }
    }
}

fn default_output(dir: &Path) -> Result<PathBuf, Failure> {
    let abs = dir
        .canonicalize()
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", dir.display())))?;
    let name = abs.file_name().ok_or_else(|| {
        fail(
            EXIT_USAGE,
            "cannot name an archive after the root directory; give -o",
        )
    })?;
    let mut file = name.to_os_string();
    file.push(".zar");
    Ok(abs.parent().unwrap_or(Path::new(".")).join(file))
}

/// Run `zarchive pack`.
pub fn run(a: PackArgs) -> Result<(), Failure> {
    if !a.dir.is_dir() {
        return Err(fail(
            EXIT_FAILURE,
            format!("{}: not a directory", a.dir.display()),
        ));
    }
    let compressor = block_compressor(a.level.as_deref())?;
    let opts = PackOptions::new().writer(WriterOptions::new()
            .compressor(compressor)
            .threads(output::threads(a.threads))).follow_symlinks(a.follow_symlinks).overwrite(a.force).skip_invalid_names(a.skip_invalid_names);
    let to_stdout = a.output.as_deref().is_some_and(output::is_dash);
    let pb = output::bar(a.quiet, 0, true);
    let mut on_event = |ev: PackEvent<'_>| match ev {
        PackEvent::Scanned { bytes, .. } => pb.set_length(bytes),
        PackEvent::Data(n) => pb.inc(n),
        PackEvent::Entry { path } => pb.set_message(path.to_string()),
        PackEvent::Warning(w) => pb.suspend(|| eprintln!("zarchive: warning: {w}")),
        _ => {}
    };
    let summary = if to_stdout {
        let stdout = io::stdout();
        if stdout.is_terminal() {
            return Err(fail(
                EXIT_USAGE,
                "refusing to write an archive to a terminal; redirect standard output",
            ));
        }
        let w = io::BufWriter::with_capacity(1 << 20, stdout.lock());
        let (mut w, s) = zar::pack_dir_to(&a.dir, w, &opts, &[], &mut on_event)?;
        w.flush()
            .map_err(|e| fail(EXIT_FAILURE, format!("writing to standard output: {e}")))?;
        s
    } else {
        let out = match a.output {
            Some(p) => p,
            None => default_output(&a.dir)?,
        };
        if !a.quiet {
            eprintln!("Packing {} into {}", a.dir.display(), out.display());
        }
        zar::pack_dir(&a.dir, &out, &opts, &mut on_event)?
    };
    pb.finish_and_clear();
    if !a.quiet {
        let s = &summary.archive;
        let ratio = if s.data_bytes > 0 {
            s.archive_size as f64 / s.data_bytes as f64 * 100.0
        } else {
            0.0
        };
        let skipped = summary
            .warnings
            .iter()
            .filter(|w| !matches!(w, PackWarning::Writer(_)))
            .count() as u64;
        let skipped = if skipped > 0 {
            format!("; {} skipped (see the warnings above)", count(skipped, "entry", "entries"))
        } else {
            String::new()
        };
        eprintln!(
            "{}, {}, {} of data in {} ({} stored raw) -> {} ({ratio:.1} %){skipped}",
            count(s.files, "file", "files"),
            count(s.dirs, "directory", "directories"),
            count(s.data_bytes, "byte", "bytes"),
            count(s.blocks, "block", "blocks"),
            s.raw_blocks,
            count(s.archive_size, "byte", "bytes"),
        );
    }
    Ok(())
}
