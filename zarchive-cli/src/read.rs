//! The subcommands that read an archive: `extract`, `list`, `verify`, `cat`, `info`.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use zarkit::zar::names::display_path;
use zarkit::zar::{self, ZarError};

use crate::output::{self, count, hex, open_archive};
use crate::{EXIT_DAMAGED, EXIT_FAILURE, EXIT_USAGE, Failure, fail};

/// How many paths a summary of repeated failures ("already exists") names.
const SHOWN_PATHS: usize = 5;

/// Arguments of `zarchive extract`.
#[derive(Args, Debug)]
#[command(
    after_help = "Several archives: `zarchive extract a.wua b.wua -C out/` extracts each \
into its own folder named after the archive (out/a, out/b; without -C, a_extracted and \
b_extracted beside them), reports each, and exits with the worst status. The leading \
arguments that are archive files (a ZAR footer, or a .zar / .wua name) are the archives; the \
rest are paths inside them.

A full extraction also checks the archive's SHA-256 while it writes (exit 3 on a mismatch; \
--no-verify skips it). Extracting only some PATHs reads just the blocks they need and does \
not check the hash."
)]
pub struct ExtractArgs {
    /// The archives (or `-` for one from standard input), then the archive paths to
    /// extract (a directory extracts its subtree; none: everything).
    #[arg(value_name = "ARCHIVE... [PATH]", required = true)]
    args: Vec<PathBuf>,
    /// Destination directory (default: ARCHIVE_extracted beside the archive). With several
    /// archives, each goes into a folder of this directory named after the archive.
    #[arg(short = 'C', long = "directory")]
    dest: Option<PathBuf>,
    /// Overwrite existing files.
    #[arg(short, long)]
    force: bool,
    /// Files written in parallel (default: all cores; at most the number of cores).
    #[arg(short = 'j', long, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// Do not check the archive's SHA-256 during a full extraction.
    #[arg(long)]
    no_verify: bool,
    /// No progress bar or summary (warnings and errors still print).
    #[arg(short, long)]
    quiet: bool,
    /// Run as the reference tool's form `zarchive ARCHIVE [DIR]`, which takes no `-f`.
    #[arg(skip)]
    positional: bool,
}

impl ExtractArgs {
    /// The reference tool's `zarchive FILE.zar [OUTDIR]`.
    pub fn positional(archive: PathBuf, dest: Option<PathBuf>) -> ExtractArgs {
        ExtractArgs {
            args: vec![archive],
            dest,
            force: false,
            threads: None,
            no_verify: false,
            quiet: false,
            positional: true,
        }
    }
}

/// Arguments of `zarchive list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// The archive, or `-` for standard input.
    archive: PathBuf,
    /// JSON output: an array of {path, type} objects, files with their size and offset too
    /// (and `path_bytes` where the path is not UTF-8).
    #[arg(long, conflicts_with = "tree")]
    json: bool,
    /// Show sizes and stream offsets.
    #[arg(short, long, conflicts_with = "tree")]
    long: bool,
    /// An indented tree, with each file's size and each directory's total.
    #[arg(long)]
    tree: bool,
}

/// Arguments of `zarchive verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The archive, or `-` for standard input.
    archive: PathBuf,
    /// Threads (default: all cores; at most the number of cores).
    #[arg(short = 'j', long, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// No progress bar and no "OK" line (problems still print).
    #[arg(short, long)]
    quiet: bool,
}

/// Arguments of `zarchive cat`.
#[derive(Args, Debug)]
#[command(
    after_help = "Reads only the blocks the range needs: the archive's SHA-256 is not \
checked (use `zarchive verify` for that)."
)]
pub struct CatArgs {
    /// The archive, or `-` for standard input.
    archive: PathBuf,
    /// The file's path in the archive.
    path: std::ffi::OsString,
    /// First byte to write.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    offset: u64,
    /// Number of bytes to write, fewer where the file ends first, as `head -c` (default:
    /// to the end of the file).
    #[arg(long, allow_negative_numbers = true)]
    length: Option<u64>,
}

/// Arguments of `zarchive info`.
#[derive(Args, Debug)]
#[command(
    after_help = "For a .wua, the titles are listed: each top-level folder named \
<title ID>_v<version>, whether it is a game, update, DLC, demo or system title (from the \
title ID), and its English name from meta/meta.xml."
)]
pub struct InfoArgs {
    /// The archive, or `-` for standard input.
    archive: PathBuf,
    /// JSON output: one object with the figures below and the titles.
    #[arg(long)]
    json: bool,
}

/// Run `zarchive extract`: one archive, or several each into its own folder.
pub fn extract(a: ExtractArgs) -> Result<(), Failure> {
    // The leading arguments that are archives (or `-`): files whose footer says so, or
    // named `.zar` / `.wua`. A member's name that happens to name some other file here is
    // a path inside the archive.
    let is_archive = |p: &Path| {
        p.is_file()
            && (zar::looks_like_archive(p)
                || p.extension().is_some_and(|e| {
                    e.eq_ignore_ascii_case("zar") || e.eq_ignore_ascii_case("wua")
                }))
    };
    let n_archives = a
        .args
        .iter()
        .enumerate()
        .take_while(|(i, p)| (*i == 0) || output::is_dash(p) || is_archive(p))
        .count();
    let (archives, paths) = a.args.split_at(n_archives);
    // Names as they are, bytes that are not UTF-8 included (they were made lossy, so an
    // entry named so could not be chosen).
    let paths: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| p.as_os_str().as_encoded_bytes().to_vec())
        .collect();
    if archives.iter().filter(|p| output::is_dash(p)).count() > 1 {
        return Err(fail(
            EXIT_USAGE,
            "standard input (`-`) can be given only once",
        ));
    }
    let several = archives.len() > 1;
    let mut dests: Vec<PathBuf> = Vec::with_capacity(archives.len());
    for archive in archives {
        let dest = match (&a.dest, several) {
            (Some(d), false) => d.clone(),
            (Some(d), true) => d.join(stem(archive)),
            (None, _) if output::is_dash(archive) => {
                return Err(fail(
                    EXIT_USAGE,
                    "give the destination with -C DIR when the archive comes from standard input",
                ));
            }
            (None, _) => archive.parent().unwrap_or(Path::new("")).join({
                let mut name = stem(archive);
                name.push("_extracted");
                name
            }),
        };
        // `a.zar` and `a.wua` would share a folder, the second writing over the first.
        if let Some(i) = dests.iter().position(|d| same_place(d, &dest)) {
            return Err(fail(
                EXIT_USAGE,
                format!(
                    "{} and {} would both be extracted into {}; extract them one at a time, each with its own -C DIR",
                    display_path(&archives[i]),
                    display_path(archive),
                    display_path(&dest)
                ),
            ));
        }
        dests.push(dest);
    }
    let mut worst: Option<Failure> = None;
    for (archive, dest) in archives.iter().zip(&dests) {
        let result = extract_one(&a, archive, dest, paths.clone());
        if several {
            match &result {
                Ok(()) => {}
                Err(f) => {
                    let shown = display_path(archive);
                    if f.message.starts_with(&shown) {
                        eprintln!("zarchive: {}", f.message);
                    } else {
                        eprintln!("zarchive: {shown}: {}", f.message);
                    }
                }
            }
        }
        if let Err(f) = result
            && worst.as_ref().is_none_or(|w| f.code > w.code)
        {
            worst = Some(f);
        }
    }
    match worst {
        None => Ok(()),
        Some(f) if several => Err(fail(
            f.code,
            "some archives were not extracted completely (see above)",
        )),
        Some(f) => Err(f),
    }
}

/// Whether two destination folders are one: the same name (ASCII case ignored, as a
/// case-insensitive file system takes it) in the same directory (`x`, `./x` and a link
/// to it alike).
fn same_place(a: &Path, b: &Path) -> bool {
    let dir = |p: &Path| {
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        parent.canonicalize().unwrap_or(parent)
    };
    let same_name = match (a.file_name(), b.file_name()) {
        (Some(x), Some(y)) => x
            .as_encoded_bytes()
            .eq_ignore_ascii_case(y.as_encoded_bytes()),
        _ => a == b,
    };
    same_name && dir(a) == dir(b)
}

/// The archive's file name without its extension, for its destination folder.
/// A name that is not UTF-8 is kept as it is, not altered.
fn stem(archive: &Path) -> OsString {
    archive
        .file_stem()
        .filter(|s| !s.is_empty() && *s != "-")
        .map_or_else(|| "archive".into(), OsStr::to_os_string)
}

fn extract_one(
    a: &ExtractArgs,
    archive_path: &Path,
    dest: &Path,
    paths: Vec<Vec<u8>>,
) -> Result<(), Failure> {
    let archive = output::open_archive_telling_damage(archive_path)?;
    if !a.quiet {
        eprintln!(
            "Extracting {} to {}",
            display_path(archive_path),
            display_path(dest)
        );
    }
    let pb = output::bar(a.quiet, 0, true);
    let opts = zar::ExtractOptions::new()
        .overwrite(a.force)
        .paths(paths)
        .threads(output::threads(a.threads))
        .verify(!a.no_verify);
    // Existing files are summarised (count and the first few), not listed one per line.
    let mut existing: Vec<String> = Vec::new();
    let result = zar::extract(&archive, dest, &opts, &mut |ev| match ev {
        zar::ExtractEvent::Selected { bytes, .. } => pb.set_length(bytes),
        zar::ExtractEvent::Data(n) => pb.inc(n),
        zar::ExtractEvent::Entry { entry } if !pb.is_hidden() => {
            pb.set_message(entry.path_display())
        }
        zar::ExtractEvent::Failed {
            error: ZarError::Exists { path },
            ..
        } => existing.push(display_path(path)),
        zar::ExtractEvent::Failed { path, error } => {
            // The entry is named unless the message already names it (a directory on
            // disk that could not be written names no entry).
            let message = error.to_string();
            if path.is_empty() || message.contains(path) {
                pb.suspend(|| eprintln!("zarchive: error: {message}"))
            } else {
                pb.suspend(|| eprintln!("zarchive: error: {path}: {message}"))
            }
        }
        zar::ExtractEvent::Warning { path, message } => {
            pb.suspend(|| eprintln!("zarchive: warning: {path}: {message}"))
        }
        _ => {}
    });
    pb.finish_and_clear();
    if !existing.is_empty() {
        let mut shown = existing
            .iter()
            .take(SHOWN_PATHS)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if existing.len() > SHOWN_PATHS {
            shown.push_str(&format!(", and {} more", existing.len() - SHOWN_PATHS));
        }
        eprintln!(
            "zarchive: error: {} already {}, not replaced (use {} to overwrite): {shown}",
            count(existing.len() as u64, "file", "files"),
            if existing.len() == 1 {
                "exists"
            } else {
                "exist"
            },
            if a.positional {
                "`zarchive extract -f`"
            } else {
                "-f"
            },
        );
    }
    match result {
        Ok(s) => {
            if !a.quiet {
                eprintln!(
                    "{}: {}, {}, {} extracted",
                    display_path(archive_path),
                    count(s.files, "file", "files"),
                    count(s.dirs, "directory", "directories"),
                    count(s.bytes, "byte", "bytes"),
                );
            }
            Ok(())
        }
        Err(e @ ZarError::HashMismatch { .. }) => Err(fail(
            EXIT_DAMAGED,
            format!(
                "{}: the archive is damaged: {e}; the extracted files cannot be trusted",
                display_path(archive_path)
            ),
        )),
        Err(ZarError::ExtractFailed { failures }) => {
            let (damaged, entries): (Vec<_>, Vec<_>) = failures
                .iter()
                .partition(|f| matches!(f.error, ZarError::HashMismatch { .. }));
            for d in &damaged {
                eprintln!(
                    "zarchive: error: {}: the archive is damaged: {}",
                    display_path(archive_path),
                    d.error
                );
            }
            // Damage found anywhere (the hash, or a block that does not decode) decides the
            // exit status, whatever else failed beside it.
            let damage = !damaged.is_empty() || entries.iter().any(|f| is_damage(&f.error));
            // A directory that could not be made takes everything below it along: those
            // entries are counted too, as `tar` names each of them.
            let inside: u64 = entries.iter().map(|f| f.not_extracted_inside).sum();
            let below = match inside {
                0 => String::new(),
                n => format!(
                    ", nor the {} below {}",
                    count(n, "entry", "entries"),
                    if entries.len() == 1 { "it" } else { "them" }
                ),
            };
            Err(fail(
                if damage { EXIT_DAMAGED } else { EXIT_FAILURE },
                format!(
                    "{} could not be extracted (named above){below}",
                    count(entries.len() as u64, "entry", "entries")
                ),
            ))
        }
        Err(e) => Err(e.into()),
    }
}

/// Whether `e` says the archive is damaged (a block that does not decode, a file's bytes
/// beyond the data, the integrity hash), rather than that something else failed.
fn is_damage(e: &ZarError) -> bool {
    match e {
        ZarError::HashMismatch { .. } | ZarError::FileExtent { .. } => true,
        ZarError::Block { cause, .. } => cause.is_some(),
        ZarError::File { cause, .. } => is_damage(cause),
        _ => false,
    }
}

/// Run `zarchive list`.
pub fn list(a: ListArgs) -> Result<(), Failure> {
    let archive = open_archive(&a.archive)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let res: io::Result<()> = (|| {
        if a.json {
            // One element at a time, as `serde_json::to_string_pretty` lays out the whole
            // array: memory is one entry's, whatever the archive holds (a crafted chain of
            // 100,000 nested directories made the whole array some 10 GB).
            let mut first = true;
            for e in archive.walk() {
                let bytes = e.path();
                let path = String::from_utf8_lossy(&bytes).into_owned();
                let mut v = match e.kind() {
                    zar::EntryKind::File { offset, size } => {
                        serde_json::json!({ "path": path, "type": "file", "size": size, "offset": offset })
                    }
                    zar::EntryKind::Dir => serde_json::json!({ "path": path, "type": "dir" }),
                };
                // A path that is not UTF-8 is shown with U+FFFD in `path`; its exact
                // bytes follow, so that no name is lost.
                if std::str::from_utf8(&bytes).is_err() {
                    v["path_bytes"] = serde_json::json!(bytes);
                }
                let text = output::json_for_terminal(
                    serde_json::to_string_pretty(&v).map_err(io::Error::other)?,
                );
                out.write_all(if first { b"[\n" } else { b",\n" })?;
                first = false;
                for (i, line) in text.lines().enumerate() {
                    if i > 0 {
                        out.write_all(b"\n")?;
                    }
                    out.write_all(b"  ")?;
                    out.write_all(line.as_bytes())?;
                }
            }
            out.write_all(if first { b"[]\n" } else { b"\n]\n" })?;
        } else if a.tree {
            write_tree(&archive, &mut out)?;
        } else {
            for e in archive.walk() {
                // Control characters escaped, as `ls` does on a terminal: one line per entry.
                let path = zar::names::display(&e.path());
                let slash = if e.is_dir() { "/" } else { "" };
                match (a.long, e.kind()) {
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
    output::ignore_broken_pipe(res)
}

/// `list --tree`: each entry on its own line, indented two spaces per level, after its size
/// (a directory's is the total of everything below it).
fn write_tree(archive: &zar::Archive, out: &mut impl Write) -> io::Result<()> {
    // Directory totals, children before parents: the walk lists a directory before its
    // contents, so summing it backwards finishes every subtree first.
    let entries: Vec<zar::Entry<'_>> = archive.walk().collect();
    let mut totals: std::collections::HashMap<zar::EntryId, u64> = std::collections::HashMap::new();
    for e in entries.iter().rev() {
        let own = if e.is_dir() {
            totals.get(&e.id()).copied().unwrap_or(0)
        } else {
            e.size()
        };
        *totals.entry(e.parent().id()).or_default() += own;
    }
    let root_total = totals.get(&archive.root().id()).copied().unwrap_or(0);
    writeln!(out, "{root_total:>14}  ./")?;
    for e in &entries {
        let depth = e.path().iter().filter(|&&b| b == b'/').count() + 1;
        let size = if e.is_dir() {
            totals.get(&e.id()).copied().unwrap_or(0)
        } else {
            e.size()
        };
        let slash = if e.is_dir() { "/" } else { "" };
        writeln!(
            out,
            "{size:>14}  {}{}{slash}",
            "  ".repeat(depth),
            zar::names::display(e.name())
        )?;
    }
    Ok(())
}

/// Run `zarchive verify`.
pub fn verify(a: VerifyArgs) -> Result<(), Failure> {
    let shown = display_path(&a.archive);
    let archive = match output::try_open(&a.archive)? {
        Ok(x) => x,
        // A file that cannot be read is a failure; an index that does not validate is damage.
        Err(e @ (ZarError::Io { .. } | ZarError::Path { .. })) => {
            return Err(fail(EXIT_FAILURE, output::archive_error(&a.archive, &e)));
        }
        // A zstd file is no damaged archive.
        Err(e @ ZarError::NotAnArchive { .. }) if output::is_zstd_file(&a.archive) => {
            return Err(fail(EXIT_FAILURE, output::archive_error(&a.archive, &e)));
        }
        Err(e) => {
            return Err(fail(EXIT_DAMAGED, format!("{shown}: damaged: {e}")));
        }
    };
    let pb = output::bar(a.quiet, archive.block_count(), false);
    let opts = zar::VerifyOptions::new().threads(output::threads(a.threads));
    let report = zar::verify(&archive, &opts, &mut |ev| {
        if let zar::VerifyEvent::Blocks(n) = ev {
            pb.inc(n)
        }
    })
    .map_err(Failure::from)?;
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
            "block {} ({} at offset {}): {}; {files}",
            p.block,
            count(p.extent.1, "byte", "bytes"),
            p.extent.0,
            p.error
        ));
    }
    // The report goes to standard output; a reader gone away (`| head`) leaves the exit
    // status to the verification, any other failure to write is one.
    let report_lines = |lines: &[String]| {
        let mut out = io::stdout().lock();
        let written = lines
            .iter()
            .try_for_each(|l| writeln!(out, "{l}"))
            .and_then(|()| out.flush());
        output::ignore_broken_pipe(written)
    };
    if problems.is_empty() {
        if !a.quiet {
            report_lines(&[format!(
                "{shown}: OK ({} decoded, SHA-256 {})",
                count(report.blocks, "block", "blocks"),
                hex(&report.computed_hash)
            )])?;
        }
        Ok(())
    } else {
        let lines: Vec<String> = problems.iter().map(|p| format!("{shown}: {p}")).collect();
        // The damage decides the exit status even when the lines could not be written.
        let _ = report_lines(&lines);
        Err(fail(
            EXIT_DAMAGED,
            format!(
                "{shown}: verify failed ({})",
                count(problems.len() as u64, "problem", "problems")
            ),
        ))
    }
}

/// Run `zarchive cat`.
pub fn cat(a: CatArgs) -> Result<(), Failure> {
    let archive = open_archive(&a.archive)?;
    // The name as it is, bytes that are not UTF-8 included (refused as an argument before).
    let name = a.path.as_encoded_bytes();
    let mut r = archive.open_file(name)?;
    let size = r.len();
    let (path, offset) = (zarkit::zar::names::display(name), a.offset);
    if offset > size {
        return Err(fail(
            EXIT_FAILURE,
            format!(
                "offset {offset} is beyond the end of {path} ({})",
                count(size, "byte", "bytes")
            ),
        ));
    }
    // Up to the end at most, as `head -c` and `dd count=` stop there.
    let len = a.length.unwrap_or(u64::MAX).min(size - offset);
    r.seek(SeekFrom::Start(offset))
        .map_err(|e| fail(EXIT_FAILURE, e.to_string()))?;
    // A read error names the archive (the reader's message names the file and block); a
    // write error is standard output's, and a reader gone away (`| head`) ends it quietly.
    let mut out = io::stdout().lock();
    match output::copy_apart(r.take(len), &mut out, 1 << 16, |_| {}) {
        Ok(()) => output::ignore_broken_pipe(out.flush()),
        Err(output::CopyError::Read(e)) => Err(fail(
            EXIT_FAILURE,
            format!("{}: {e}", display_path(&a.archive)),
        )),
        Err(output::CopyError::Write(e)) => output::ignore_broken_pipe(Err(e)),
    }
}

/// Run `zarchive info`.
pub fn info(a: InfoArgs) -> Result<(), Failure> {
    let archive = open_archive(&a.archive)?;
    let f = archive.footer();
    let mut raw = 0u64;
    for b in 0..archive.block_count() {
        if archive.block_extent(b)?.1 == zar::format::BLOCK_SIZE_U64 {
            raw += 1;
        }
    }
    let data: u64 = archive.walk().map(|e| e.size()).sum();
    let titles = zar::wua::titles(&archive);
    let dicts = archive.dictionaries();
    let format = if dicts.is_empty() {
        "ZAR version 1"
    } else {
        "ZAR version 1 with the dictionary extension (0x61BF3AD1; other readers refuse it)"
    };
    if a.json {
        let shown: Vec<serde_json::Value> = titles
            .iter()
            .map(|t| {
                serde_json::json!({
                    "folder": t.folder,
                    "title_id": format!("{:016x}", t.id),
                    "version": t.version,
                    "kind": t.kind.word(),
                    "name": t.name,
                    "name_unreadable": t.name_unreadable,
                    "missing": missing_title_files(&archive, t),
                })
            })
            .collect();
        let v = serde_json::json!({
            "archive": a.archive.to_string_lossy(),
            "format": if dicts.is_empty() { "ZAR v1" } else { "ZAR v1 + dictionary extension" },
            "archive_size": archive.archive_size(),
            "files": archive.file_count(),
            "directories": archive.dir_count(),
            "file_data": data,
            "blocks": archive.block_count(),
            "raw_blocks": raw,
            "compressed_data": f.compressed_data.size,
            "sha256": hex(&f.integrity_hash),
            "dictionaries": dicts
                .iter()
                .map(|d| serde_json::json!({"id": d.id, "size": d.size}))
                .collect::<Vec<_>>(),
            "titles": shown,
        });
        let text = output::json_for_terminal(
            serde_json::to_string_pretty(&v).map_err(|e| fail(EXIT_FAILURE, e.to_string()))?,
        );
        output::ignore_broken_pipe(writeln!(io::stdout().lock(), "{text}"))?;
        return unreadable_names(&titles);
    }
    let mut lines = vec![
        format!("archive:          {}", display_path(&a.archive)),
        format!("format:           {format}"),
        format!(
            "archive size:     {}",
            count(archive.archive_size(), "byte", "bytes")
        ),
        format!("files:            {}", archive.file_count()),
        format!("directories:      {} (with the root)", archive.dir_count()),
        format!("file data:        {}", count(data, "byte", "bytes")),
        format!(
            "blocks:           {} of 64 KiB ({raw} stored raw, {} compressed)",
            archive.block_count(),
            archive.block_count() - raw
        ),
        format!(
            "compressed data:  {}",
            count(f.compressed_data.size, "byte", "bytes")
        ),
    ];
    if data > 0 {
        lines.push(format!(
            "ratio:            {:.2} % of the file data",
            archive.archive_size() as f64 / data as f64 * 100.0
        ));
    }
    lines.push(format!(
        "index:            {} of offset records, {} of names, {}",
        count(f.offset_records.size, "byte", "bytes"),
        count(f.names.size, "byte", "bytes"),
        count(f.file_tree.size / 16, "node", "nodes")
    ));
    for d in dicts {
        lines.push(format!(
            "dictionary:       ID {} ({}, zstd format), used by the blocks whose frames name it",
            d.id,
            count(d.size, "byte", "bytes")
        ));
    }
    lines.push(format!("SHA-256 (footer): {}", hex(&f.integrity_hash)));
    if !titles.is_empty() {
        lines.push(format!("titles:           {}", titles.len()));
        for t in &titles {
            let name = match (&t.name, &t.name_unreadable) {
                (Some(n), _) => zar::names::display(n.as_bytes()),
                (None, Some(_)) => "(meta/meta.xml cannot be read)".to_string(),
                (None, None) => String::new(),
            };
            let missing = missing_title_files(&archive, t);
            let name = if missing.is_empty() {
                name
            } else {
                format!(
                    "{name} (no {}: Cemu does not list it)",
                    missing.join(", no ")
                )
            };
            let line = format!(
                "  {:016x} v{:<5} {:<7} {name}",
                t.id,
                t.version,
                t.kind.word()
            );
            lines.push(line.trim_end().to_string());
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    output::ignore_broken_pipe(io::stdout().lock().write_all(text.as_bytes()))?;
    unreadable_names(&titles)
}

/// The files of a game, demo, update or DLC title that Cemu needs to list it (it reads
/// `code/app.xml`, `code/cos.xml` and `meta/meta.xml` of each) and the title lacks: `info`
/// listed such a folder as a plain title.
fn missing_title_files(archive: &zar::Archive, t: &zar::wua::Title) -> Vec<&'static str> {
    use zar::wua::TitleKind;
    if !matches!(
        t.kind,
        TitleKind::Game | TitleKind::Demo | TitleKind::Update | TitleKind::Dlc
    ) {
        return Vec::new();
    }
    ["code/app.xml", "code/cos.xml", "meta/meta.xml"]
        .into_iter()
        .filter(|f| {
            !archive
                .lookup(format!("{}/{f}", t.folder))
                .is_some_and(|e| e.is_file())
        })
        .collect()
}

/// Each title whose `meta/meta.xml` is there but could not be read, named on stderr: the
/// archive is damaged (exit 3), where its name was left out as if it had none, or its file
/// failed to read (exit 1; such a failure was called damage).
fn unreadable_names(titles: &[zar::wua::Title]) -> Result<(), Failure> {
    let (mut damaged, mut failed) = (0u64, 0u64);
    for t in titles {
        if let Some(why) = &t.name_unreadable {
            eprintln!("zarchive: error: title {}: {why}", t.folder);
            if t.name_damaged {
                damaged += 1;
            } else {
                failed += 1;
            }
        }
    }
    let titles = |n| count(n, "title", "titles");
    match (damaged, failed) {
        (0, 0) => Ok(()),
        (0, n) => Err(fail(
            EXIT_FAILURE,
            format!(
                "the meta.xml of {} could not be read from the archive's file",
                titles(n)
            ),
        )),
        (n, _) => Err(fail(
            EXIT_DAMAGED,
            format!(
                "the archive is damaged: the meta.xml of {} cannot be read",
                titles(n)
            ),
        )),
    }
}
