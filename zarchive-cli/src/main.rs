//! `zarchive`: pack, extract, list, verify and read ZAR (.zar / .wua) archives.
//! Thin over the `zarkit` library: argument parsing, progress bars, exit codes.

use std::io::{self, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use zarkit::zar::{
    self, Archive, BlockCompressor, PackEvent, PackOptions, Stored, WriterOptions, ZarError,
};
use zarkit::zstd;

/// Success.
const EXIT_OK: u8 = 0;
/// Any failure (I/O, a refused archive, a failed entry).
const EXIT_FAILURE: u8 = 1;
/// Bad command line.
const EXIT_USAGE: u8 = 2;
/// `verify` found the archive damaged (hash mismatch, undecodable block, invalid index).
const EXIT_VERIFY_FAILED: u8 = 3;

const AFTER_HELP: &str = "\
Reference-tool form (Exzap's ZArchive):
  zarchive DIR [OUT]         pack DIR into OUT (default: DIR.zar beside DIR)
  zarchive FILE.zar [OUTDIR] extract into OUTDIR (default: FILE_extracted beside FILE.zar)

Exit codes: 0 success, 1 failure, 2 usage error, 3 verify found the archive damaged.";

#[derive(Parser, Debug)]
#[command(name = "zarchive", version, about = "Pack, extract, list and verify ZAR (.zar / .wua) archives", after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Debug, Clone)]
struct Quiet {
    /// No progress bars or informational messages (warnings and errors still print).
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Pack a directory tree into an archive.
    Pack {
        /// The directory to pack.
        dir: PathBuf,
        /// Output archive, or `-` for standard output (default: DIR.zar beside DIR).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Compression threads (default: all cores).
        #[arg(short = 'j', long)]
        threads: Option<usize>,
        /// Compression: a zstd level, or `stored` for uncompressed blocks (default: 6, the
        /// reference tool's level; at 6 the archive is byte-identical to the reference tool's).
        #[arg(short, long, allow_hyphen_values = true)]
        level: Option<String>,
        /// Follow symbolic links (default: skip them with a warning).
        #[arg(long)]
        follow_symlinks: bool,
        /// Replace the output file if it exists.
        #[arg(short, long)]
        force: bool,
        #[command(flatten)]
        quiet: Quiet,
    },
    /// Extract entries (all, or the given paths) into a directory.
    Extract {
        /// The archive.
        archive: PathBuf,
        /// Destination directory (default: ARCHIVE_extracted beside the archive).
        #[arg(short = 'C', long = "directory")]
        dest: Option<PathBuf>,
        /// Archive paths to extract (a directory extracts its subtree).
        paths: Vec<String>,
        /// Overwrite existing files.
        #[arg(short, long)]
        force: bool,
        /// Files written in parallel (default: all cores).
        #[arg(short = 'j', long)]
        threads: Option<usize>,
        #[command(flatten)]
        quiet: Quiet,
    },
    /// List the entries.
    List {
        /// The archive.
        archive: PathBuf,
        /// JSON output: an array of {path, type, size, offset}.
        #[arg(long)]
        json: bool,
        /// Show sizes and stream offsets.
        #[arg(short, long)]
        long: bool,
    },
    /// Check the integrity hash and decode every block.
    Verify {
        /// The archive.
        archive: PathBuf,
        /// Threads (default: all cores).
        #[arg(short = 'j', long)]
        threads: Option<usize>,
        #[command(flatten)]
        quiet: Quiet,
    },
    /// Write a file (or a byte range of it) to standard output.
    Cat {
        /// The archive.
        archive: PathBuf,
        /// The file's path in the archive.
        path: String,
        /// First byte to write.
        #[arg(long, default_value_t = 0)]
        offset: u64,
        /// Number of bytes to write (default: to the end of the file).
        #[arg(long)]
        length: Option<u64>,
    },
    /// Show what an archive holds and how it is stored.
    Info {
        /// The archive.
        archive: PathBuf,
    },
    /// Compress a file into one standard zstd frame (`-` for stdin/stdout).
    Compress {
        /// Input file, or `-`.
        input: PathBuf,
        /// Output file, or `-` (default: INPUT.zst).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// zstd level.
        #[arg(short, long, default_value_t = 3, allow_hyphen_values = true)]
        level: i32,
    },
    /// Decompress standard zstd frames (`-` for stdin/stdout).
    Decompress {
        /// Input file, or `-`.
        input: PathBuf,
        /// Output file, or `-` (default: INPUT without .zst).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// A failure with the exit code it maps to.
struct Failure {
    code: u8,
    message: String,
}

impl From<ZarError> for Failure {
    fn from(e: ZarError) -> Self {
        Failure {
            code: EXIT_FAILURE,
            message: e.to_string(),
        }
    }
}

fn fail(code: u8, message: impl Into<String>) -> Failure {
    Failure {
        code,
        message: message.into(),
    }
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() == 1 {
        // As the reference tool: no arguments prints the help and succeeds.
        let _ = <Cli as clap::CommandFactory>::command().print_help();
        return ExitCode::from(EXIT_OK);
    }
    let result = match legacy_form(&args) {
        Some(r) => r,
        None => match Cli::try_parse_from(&args) {
            Ok(cli) => run(cli.command),
            Err(e) => {
                let _ = e.print();
                return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { EXIT_OK });
            }
        },
    };
    match result {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(f) => {
            eprintln!("zarchive: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// The reference tool's positional form: `zarchive INPUT [OUTPUT]`, where a directory is
/// packed and a file is extracted. Returns `None` when the arguments are a subcommand form.
fn legacy_form(args: &[std::ffi::OsString]) -> Option<Result<(), Failure>> {
    let first = args.get(1)?.to_str().map(str::to_owned);
    let known = [
        "pack",
        "extract",
        "list",
        "verify",
        "cat",
        "info",
        "compress",
        "decompress",
        "help",
    ];
    if let Some(f) = &first
        && (f.starts_with('-') || known.contains(&f.as_str()))
    {
        return None;
    }
    if args.len() > 3 {
        return Some(Err(fail(
            EXIT_USAGE,
            "too many paths: use `zarchive INPUT [OUTPUT]` or a subcommand (see --help)",
        )));
    }
    let input = PathBuf::from(&args[1]);
    let output = args.get(2).map(PathBuf::from);
    let quiet = Quiet { quiet: false };
    Some(if input.is_dir() {
        run(Command::Pack {
            dir: input,
            output,
            threads: None,
            level: None,
            follow_symlinks: false,
            force: false,
            quiet,
        })
    } else if input.is_file() {
        run(Command::Extract {
            archive: input,
            dest: output,
            paths: Vec::new(),
            force: false,
            threads: None,
            quiet,
        })
    } else {
        Err(fail(
            EXIT_USAGE,
            format!(
                "{}: not a file or directory (and not a subcommand; see --help)",
                input.display()
            ),
        ))
    })
}

fn run(cmd: Command) -> Result<(), Failure> {
    match cmd {
        Command::Pack {
            dir,
            output,
            threads,
            level,
            follow_symlinks,
            force,
            quiet,
        } => pack(
            &dir,
            output,
            threads,
            level,
            follow_symlinks,
            force,
            quiet.quiet,
        ),
        Command::Extract {
            archive,
            dest,
            paths,
            force,
            threads,
            quiet,
        } => extract(&archive, dest, paths, force, threads, quiet.quiet),
        Command::List {
            archive,
            json,
            long,
        } => list(&archive, json, long),
        Command::Verify {
            archive,
            threads,
            quiet,
        } => verify(&archive, threads, quiet.quiet),
        Command::Cat {
            archive,
            path,
            offset,
            length,
        } => cat(&archive, &path, offset, length),
        Command::Info { archive } => info(&archive),
        Command::Compress {
            input,
            output,
            level,
        } => compress(&input, output, level),
        Command::Decompress { input, output } => decompress(&input, output),
    }
}

fn threads_or_all(threads: Option<usize>) -> usize {
    threads
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .max(1)
}

/// Resolve `-l`: `stored`, or a zstd level the encoder implements.
fn block_compressor(level: Option<String>) -> Result<Arc<dyn BlockCompressor>, Failure> {
    match level.as_deref() {
        None => Ok(Arc::new(zar::Zstd::default())),
        Some("stored" | "none") => Ok(Arc::new(Stored)),
        Some(s) => {
            let n: i32 = s.parse().map_err(|_| {
                fail(
                    EXIT_USAGE,
                    format!("invalid level {s:?}: use a number or `stored`"),
                )
            })?;
            if !(zstd::MIN_LEVEL..=zstd::MAX_LEVEL).contains(&n) {
                return Err(fail(
                    EXIT_USAGE,
                    format!(
                        "level {n} is outside zstd's range {}..={}",
                        zstd::MIN_LEVEL,
                        zstd::MAX_LEVEL
                    ),
                ));
            }
            let z = zar::Zstd::new(n).map_err(|e| {
                fail(
                    EXIT_USAGE,
                    format!("{e}; levels available now: `stored`{}", available_levels()),
                )
            })?;
            Ok(Arc::new(z))
        }
    }
}

fn available_levels() -> String {
    let levels: Vec<String> = (-7..=22)
        .filter(|&l| zstd::is_level_supported(l))
        .map(|l| l.to_string())
        .collect();
    if levels.is_empty() {
        String::new()
    } else {
        format!(", {}", levels.join(", "))
    }
}

fn bar(quiet: bool, len: u64, unit_bytes: bool) -> ProgressBar {
    if quiet || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let template = if unit_bytes {
        "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta}) {msg}"
    } else {
        "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} blocks ({eta}) {msg}"
    };
    let pb = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style);
    }
    pb
}

fn default_pack_output(dir: &Path) -> Result<PathBuf, Failure> {
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

#[allow(clippy::too_many_arguments)]
fn pack(
    dir: &Path,
    output: Option<PathBuf>,
    threads: Option<usize>,
    level: Option<String>,
    follow_symlinks: bool,
    force: bool,
    quiet: bool,
) -> Result<(), Failure> {
    if !dir.is_dir() {
        return Err(fail(
            EXIT_FAILURE,
            format!("{}: not a directory", dir.display()),
        ));
    }
    let compressor = block_compressor(level)?;
    let writer = WriterOptions::new()
        .compressor(compressor)
        .threads(threads_or_all(threads));
    let opts = PackOptions {
        writer,
        follow_symlinks,
        overwrite: force,
    };
    let to_stdout = output.as_deref() == Some(Path::new("-"));
    let out_path = match output {
        Some(p) if !to_stdout => p,
        Some(_) => PathBuf::from("-"),
        None => default_pack_output(dir)?,
    };
    let pb = bar(quiet, 0, true);
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
        let (mut w, s) = zar::pack_dir_to(dir, w, &opts, &[], &mut on_event)?;
        w.flush()
            .map_err(|e| fail(EXIT_FAILURE, format!("writing to standard output: {e}")))?;
        s
    } else {
        if !quiet {
            eprintln!("Packing {} into {}", dir.display(), out_path.display());
        }
        zar::pack_dir(dir, &out_path, &opts, &mut on_event)?
    };
    pb.finish_and_clear();
    if !quiet {
        let a = &summary.archive;
        let ratio = if a.data_bytes > 0 {
            a.archive_size as f64 / a.data_bytes as f64 * 100.0
        } else {
            0.0
        };
        eprintln!(
            "{} files, {} directories, {} bytes of data in {} blocks ({} stored raw) -> {} bytes ({ratio:.1} %)",
            a.files, a.dirs, a.data_bytes, a.blocks, a.raw_blocks, a.archive_size
        );
    }
    Ok(())
}

fn open_archive(path: &Path) -> Result<Archive, Failure> {
    Archive::open(path).map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", path.display())))
}

fn extract(
    archive: &Path,
    dest: Option<PathBuf>,
    paths: Vec<String>,
    force: bool,
    threads: Option<usize>,
    quiet: bool,
) -> Result<(), Failure> {
    let a = open_archive(archive)?;
    let dest = match dest {
        Some(d) => d,
        None => {
            let stem = archive
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "archive".into());
            archive
                .parent()
                .unwrap_or(Path::new(""))
                .join(format!("{stem}_extracted"))
        }
    };
    if !quiet {
        eprintln!("Extracting to {}", dest.display());
    }
    let pb = bar(quiet, 0, true);
    let opts = zar::ExtractOptions {
        overwrite: force,
        paths,
        threads: threads_or_all(threads),
    };
    let result = zar::extract(&a, &dest, &opts, &mut |ev| match ev {
        zar::ExtractEvent::Selected { bytes, .. } => pb.set_length(bytes),
        zar::ExtractEvent::Data(n) => pb.inc(n),
        zar::ExtractEvent::Entry { entry } if !pb.is_hidden() => {
            pb.set_message(entry.path_display())
        }
        zar::ExtractEvent::Failed { error, .. } => {
            pb.suspend(|| eprintln!("zarchive: error: {error}"))
        }
        zar::ExtractEvent::Warning { path, message } => {
            pb.suspend(|| eprintln!("zarchive: warning: {path}: {message}"))
        }
        _ => {}
    });
    pb.finish_and_clear();
    match result {
        Ok(s) => {
            if !quiet {
                eprintln!(
                    "{} files, {} directories, {} bytes extracted",
                    s.files, s.dirs, s.bytes
                );
            }
            Ok(())
        }
        Err(ZarError::ExtractFailed { failures }) => Err(fail(
            EXIT_FAILURE,
            format!(
                "{} entries failed to extract (listed above)",
                failures.len()
            ),
        )),
        Err(e) => Err(e.into()),
    }
}

fn list(archive: &Path, json: bool, long: bool) -> Result<(), Failure> {
    let a = open_archive(archive)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let res: io::Result<()> = (|| {
        if json {
            let items: Vec<serde_json::Value> = a
                .walk()
                .map(|e| {
                    let path = String::from_utf8_lossy(&e.path()).into_owned();
                    match e.kind() {
                        zar::EntryKind::File { offset, size } => {
                            serde_json::json!({ "path": path, "type": "file", "size": size, "offset": offset })
                        }
                        zar::EntryKind::Dir => serde_json::json!({ "path": path, "type": "dir" }),
                    }
                })
                .collect();
            serde_json::to_writer_pretty(&mut out, &items).map_err(io::Error::other)?;
            writeln!(out)?;
        } else {
            for e in a.walk() {
                let path = String::from_utf8_lossy(&e.path()).into_owned();
                let slash = if e.is_dir() { "/" } else { "" };
                match (long, e.kind()) {
                    (true, zar::EntryKind::File { offset, size }) => {
                        writeln!(out, "{size:>14} {offset:>14}  {path}")?
                    }
                    (true, zar::EntryKind::Dir) => {
                        writeln!(out, "{:>14} {:>14}  {path}/", "-", "-")?
                    }
                    (false, _) => writeln!(out, "{path}{slash}")?,
                }
            }
        }
        out.flush()
    })();
    ignore_broken_pipe(res)
}

fn ignore_broken_pipe(r: io::Result<()>) -> Result<(), Failure> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(fail(
            EXIT_FAILURE,
            format!("writing to standard output: {e}"),
        )),
        Ok(()) => Ok(()),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn verify(archive: &Path, threads: Option<usize>, quiet: bool) -> Result<(), Failure> {
    let a = match Archive::open(archive) {
        Ok(a) => a,
        Err(e @ ZarError::Io { .. }) => {
            return Err(fail(EXIT_FAILURE, format!("{}: {e}", archive.display())));
        }
        Err(e) => {
            return Err(fail(
                EXIT_VERIFY_FAILED,
                format!("{}: damaged: {e}", archive.display()),
            ));
        }
    };
    let pb = bar(quiet, a.block_count(), false);
    let report =
        zar::verify(&a, threads_or_all(threads), &|n| pb.set_position(n)).map_err(Failure::from)?;
    pb.finish_and_clear();
    let mut problems = Vec::new();
    if !report.hash_ok() {
        problems.push(format!(
            "integrity hash mismatch: the footer says {}, the file hashes to {}",
            hex(&report.stored_hash),
            hex(&report.computed_hash)
        ));
    }
    for p in &report.problems {
        let files = if p.files.is_empty() {
            "no file uses it".to_string()
        } else {
            format!("files: {}", p.files.join(", "))
        };
        problems.push(format!(
            "block {} ({} bytes at offset {}): {}; {files}",
            p.block, p.extent.1, p.extent.0, p.error
        ));
    }
    if problems.is_empty() {
        if !quiet {
            println!(
                "{}: OK ({} blocks decoded, SHA-256 {})",
                archive.display(),
                report.blocks,
                hex(&report.computed_hash)
            );
        }
        Ok(())
    } else {
        for p in &problems {
            println!("{}: {p}", archive.display());
        }
        Err(fail(
            EXIT_VERIFY_FAILED,
            format!(
                "{}: verify failed ({} problem{})",
                archive.display(),
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            ),
        ))
    }
}

fn cat(archive: &Path, path: &str, offset: u64, length: Option<u64>) -> Result<(), Failure> {
    let a = open_archive(archive)?;
    let mut r = a.open_file(path)?;
    let size = r.len();
    if offset > size {
        return Err(fail(
            EXIT_FAILURE,
            format!("offset {offset} is beyond the end of {path} ({size} bytes)"),
        ));
    }
    let len = length.unwrap_or(size - offset);
    if len > size - offset {
        return Err(fail(
            EXIT_FAILURE,
            format!("range {offset}+{len} is beyond the end of {path} ({size} bytes)"),
        ));
    }
    r.seek(SeekFrom::Start(offset))
        .map_err(|e| fail(EXIT_FAILURE, e.to_string()))?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match io::copy(&mut r.take(len), &mut out) {
        Ok(_) => ignore_broken_pipe(out.flush()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(fail(EXIT_FAILURE, e.to_string())),
    }
}

fn info(archive: &Path) -> Result<(), Failure> {
    let a = open_archive(archive)?;
    let f = a.footer();
    let mut raw = 0u64;
    for b in 0..a.block_count() {
        if a.block_extent(b)?.1 == zar::format::BLOCK_SIZE_U64 {
            raw += 1;
        }
    }
    let data: u64 = a.walk().map(|e| e.size()).sum();
    println!("archive:          {}", archive.display());
    println!("format:           ZAR version 1");
    println!("archive size:     {} bytes", a.archive_size());
    println!("files:            {}", a.file_count());
    println!("directories:      {} (with the root)", a.dir_count());
    println!("file data:        {data} bytes");
    println!(
        "blocks:           {} of 64 KiB ({raw} stored raw, {} compressed)",
        a.block_count(),
        a.block_count() - raw
    );
    println!("compressed data:  {} bytes", f.compressed_data.size);
    if data > 0 {
        println!(
            "ratio:            {:.2} % of the file data",
            a.archive_size() as f64 / data as f64 * 100.0
        );
    }
    println!(
        "index:            {} bytes of offset records, {} bytes of names, {} nodes",
        f.offset_records.size,
        f.names.size,
        f.file_tree.size / 16
    );
    println!("SHA-256 (footer): {}", hex(&f.integrity_hash));
    Ok(())
}

fn read_input(input: &Path) -> Result<Vec<u8>, Failure> {
    let mut data = Vec::new();
    if input == Path::new("-") {
        io::stdin()
            .lock()
            .read_to_end(&mut data)
            .map_err(|e| fail(EXIT_FAILURE, format!("reading standard input: {e}")))?;
    } else {
        data = std::fs::read(input)
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", input.display())))?;
    }
    Ok(data)
}

fn write_output(output: &Path, data: &[u8]) -> Result<(), Failure> {
    if output == Path::new("-") {
        let stdout = io::stdout();
        let mut out = stdout.lock();
        return ignore_broken_pipe(out.write_all(data).and_then(|()| out.flush()));
    }
    std::fs::write(output, data)
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", output.display())))
}

fn compress(input: &Path, output: Option<PathBuf>, level: i32) -> Result<(), Failure> {
    let data = read_input(input)?;
    let frame = zstd::compress(&data, level).map_err(|e| fail(EXIT_USAGE, e.to_string()))?;
    let output = output.unwrap_or_else(|| {
        if input == Path::new("-") {
            PathBuf::from("-")
        } else {
            PathBuf::from(format!("{}.zst", input.display()))
        }
    });
    write_output(&output, &frame)
}

fn decompress(input: &Path, output: Option<PathBuf>) -> Result<(), Failure> {
    let data = read_input(input)?;
    let output =
        output.unwrap_or_else(
            || match input.to_str().and_then(|s| s.strip_suffix(".zst")) {
                Some(stem) if input != Path::new("-") => PathBuf::from(stem),
                _ => PathBuf::from("-"),
            },
        );
    let err = |e: &dyn std::fmt::Display| fail(EXIT_FAILURE, format!("{}: {e}", input.display()));
    if output == Path::new("-") {
        let stdout = io::stdout();
        let mut w = io::BufWriter::new(stdout.lock());
        zstd::decode::decompress_to(&data, &mut w).map_err(|e| err(&e))?;
        return ignore_broken_pipe(w.flush());
    }
    // Decode next to the target and rename, so a corrupt input leaves no partial output.
    let dir = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| err(&e))?;
    {
        let mut w = io::BufWriter::new(tmp.as_file_mut());
        zstd::decode::decompress_to(&data, &mut w).map_err(|e| err(&e))?;
        w.flush().map_err(|e| err(&e))?;
    }
    tmp.persist(&output)
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {}", output.display(), e.error)))?;
    Ok(())
}
