//! `zarchive pack`, `merge` and `update`: everything that writes an archive.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use zarkit::zar::names::display_path;
use zarkit::zar::{
    self, BlockCompressor, PackEvent, PackOptions, PackWarning, Source, Stored, WriterOptions,
    ZarError,
};
use zarkit::zstd;

use crate::output::{self, count};
use crate::{EXIT_DAMAGED, EXIT_FAILURE, EXIT_USAGE, Failure, fail};

/// How an archive is written: the options `pack`, `merge` and `update` share.
#[derive(Args, Debug, Default)]
pub struct WriteArgs {
    /// Compression threads (default: all cores; at most the number of cores).
    #[arg(short = 'j', long, allow_negative_numbers = true)]
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
    /// `\` in a Unix file name, or a name that differs only in case from a sibling's: the
    /// first of those in byte order is packed), with a warning each. Without it, such a name fails the pack:
    /// a name is never stored as something else.
    #[arg(long)]
    skip_invalid_names: bool,
    /// Compress every block with a zstd dictionary (the archive then uses this project's
    /// dictionary extension, which the reference tool, Cemu and other ZAR readers refuse):
    /// FILE, a zstd-format dictionary such as `zarchive train` writes; or `auto`, which
    /// trains one on a sample of the blocks and keeps it only when it saves at least 1 %
    /// of the compressed data, its own size included, and says which it chose (never for an
    /// output named `.wua`: Cemu could not open it). Without it
    /// the archive is plain ZAR v1, except that `update` keeps its archive's dictionary
    /// (`-l stored` drops it).
    #[arg(long, value_name = "FILE|auto")]
    dict: Option<PathBuf>,
    /// No progress bar or summary (warnings and errors still print).
    #[arg(short, long)]
    quiet: bool,
}

impl WriteArgs {
    /// The options of writing the archive `out` (`None`: to standard output).
    fn options(&self, overwrite: bool, out: Option<&Path>) -> Result<PackOptions, Failure> {
        self.options_keeping(overwrite, None, out)
    }

    /// [`WriteArgs::options`], compressing with `kept` (an archive's own dictionary) when
    /// neither `--dict` nor `-l stored` says otherwise.
    fn options_keeping(
        &self,
        overwrite: bool,
        kept: Option<&[u8]>,
        out: Option<&Path>,
    ) -> Result<PackOptions, Failure> {
        let mut compressor = block_compressor(self.level.as_deref())?;
        let mut auto = None;
        if let Some(bytes) = kept
            && self.dict.is_none()
            && !matches!(self.level.as_deref(), Some("stored" | "none"))
        {
            let level = match self.level.as_deref() {
                None => zar::REFERENCE_LEVEL,
                Some(s) => parse_level(s, true)?,
            };
            let z = zar::ZstdWithDictionary::new(bytes, level)
                .map_err(|e| fail(EXIT_FAILURE, format!("the archive's dictionary: {e}")))?;
            compressor = Arc::new(z);
        }
        if let Some(dict) = &self.dict {
            let level = match self.level.as_deref() {
                None => zar::REFERENCE_LEVEL,
                Some("stored" | "none") => {
                    return Err(fail(
                        EXIT_USAGE,
                        "--dict needs compression; it cannot go with -l stored",
                    ));
                }
                Some(s) => parse_level(s, true)?,
            };
            if dict.as_os_str() == "auto" {
                // `auto` chooses what pays; for a `.wua` a dictionary never does: Cemu
                // could not open the archive.
                if let Some(out) = out.filter(|o| is_wua(o)) {
                    if !self.quiet {
                        eprintln!(
                            "zarchive: note: --dict auto: no dictionary for {}, a .wua (Cemu \
                             reads plain ZAR v1 only)",
                            display_path(out)
                        );
                    }
                } else {
                    auto = Some(level);
                }
            } else {
                let bytes = crate::read_dictionary(dict)?;
                let z = zar::ZstdWithDictionary::new(&bytes, level)
                    .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(dict))))?;
                compressor = Arc::new(z);
            }
        }
        Ok(PackOptions::new()
            .auto_dictionary(auto)
            .writer(
                WriterOptions::new()
                    .compressor(compressor)
                    .threads(output::threads(self.threads)),
            )
            .follow_symlinks(self.follow_symlinks)
            .overwrite(overwrite)
            .skip_invalid_names(self.skip_invalid_names))
    }
}

/// Arguments of `zarchive pack`.
#[derive(Args, Debug)]
pub struct PackArgs {
    /// The directory to pack.
    dir: PathBuf,
    /// Output archive, or `-` for standard output (default: DIR.zar beside DIR).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Replace the output file if it exists.
    #[arg(short, long)]
    force: bool,
    #[command(flatten)]
    write: WriteArgs,
}

impl PackArgs {
    /// The reference tool's `zarchive DIR [OUT]`.
    pub fn positional(dir: PathBuf, output: Option<PathBuf>) -> PackArgs {
        PackArgs {
            dir,
            output,
            force: false,
            write: WriteArgs::default(),
        }
    }
}

/// Arguments of `zarchive merge`.
#[derive(Args, Debug)]
#[command(
    after_help = "Example: zarchive merge -o full.wua base.wua 0005000e10101a00_v208/ 0005000c10101a00_v16/\n\n\
A directory named as a title folder (<title ID>_v<version>) goes in as that folder, as a .wua \
holds its titles; any other directory's contents go at the top, as `pack` lays them out. \
A later input's file replaces an earlier one at the same path (names compared ignoring ASCII \
case, as ZAR looks them up; the first spelling is kept); directories merge. Archives are read \
through the decoder, never extracted to disk. The result is byte-identical to packing the \
merged tree from disk."
)]
pub struct MergeArgs {
    /// The inputs, in order: directories and archives (later ones win).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The archive to write (`-` for standard output).
    #[arg(short, long, allow_hyphen_values = true)]
    output: PathBuf,
    /// Replace the output file if it exists.
    #[arg(short, long)]
    force: bool,
    #[command(flatten)]
    write: WriteArgs,
}

/// Arguments of `zarchive update`.
#[derive(Args, Debug)]
#[command(
    after_help = "Example: zarchive update game.wua 0005000e10101a00_v208/\n\n\
The archive is rewritten with the directories merged in (their files win; a directory named \
as a title folder goes in as that folder), into a \
temporary file renamed over the archive only when complete: if anything fails, the \
original is left as it was. An archive with a zstd dictionary keeps it (unless --dict or \
-l stored is given)."
)]
pub struct UpdateArgs {
    /// The archive to update in place.
    archive: PathBuf,
    /// Directories (or archives) whose entries are added or replace the archive's.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    #[command(flatten)]
    write: WriteArgs,
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
        format!(
            "a zstd level from {} to {}",
            zstd::MIN_LEVEL,
            zstd::MAX_LEVEL
        )
    };
    match s.parse::<i32>() {
        Ok(n) if (zstd::MIN_LEVEL..=zstd::MAX_LEVEL).contains(&n) => Ok(n),
        _ => Err(fail(EXIT_USAGE, format!("invalid level {s}: use {range}"))),
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

/// `DIR.zar` beside DIR. A named directory's archive goes beside that name, a symbolic
/// link's included (not beside where the link leads, which may be read-only media), as
/// the reference tool names it; `.`, `..` and `/` are named after where they lead.
fn default_output(dir: &Path) -> Result<PathBuf, Failure> {
    if let Some(name) = dir.file_name() {
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let parent = parent
            .canonicalize()
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(parent))))?;
        let mut file = name.to_os_string();
        file.push(".zar");
        return Ok(parent.join(file));
    }
    let abs = dir
        .canonicalize()
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(dir))))?;
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
    match std::fs::metadata(&a.dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(fail(
                EXIT_FAILURE,
                format!("{}: not a directory", display_path(&a.dir)),
            ));
        }
        Err(e) => return Err(fail(EXIT_FAILURE, format!("{}: {e}", display_path(&a.dir)))),
    }
    let to_stdout = a.output.as_deref().is_some_and(output::is_dash);
    let opts = a
        .write
        .options(a.force, a.output.as_deref().filter(|_| !to_stdout))?;
    let quiet = a.write.quiet;
    let pb = output::bar(quiet, 0, true);
    let mut on_event = events(&pb);
    let summary = if to_stdout {
        let mut w = output::Watched::new(archive_to_stdout()?);
        let written = flushed(&mut w, |w| {
            zar::pack_dir_to(&a.dir, w, &opts, &[], &mut on_event).map(|(_, s)| s)
        });
        let Some(summary) = written? else {
            pb.finish_and_clear();
            return Ok(());
        };
        summary
    } else {
        let out = match a.output {
            Some(p) => p,
            None => default_output(&a.dir)?,
        };
        if !quiet {
            eprintln!(
                "Packing {} into {}",
                display_path(&a.dir),
                display_path(&out)
            );
        }
        // A `.wua` holds title folders at its top; the folder of one title packed as the
        // archive puts its `code/`, `content/` and `meta/` there instead.
        if let Some(folder) = title_folder_name(&a.dir)
            && is_wua(&out)
        {
            eprintln!(
                "zarchive: warning: {} is a title folder: packed as the archive, its contents are \
                 at the top, where Cemu finds no title; pack the folder that holds it, or \
                 run `zarchive merge -f -o '{}' '{}'` to have it as {folder}/",
                display_path(&a.dir),
                display_path(&out),
                display_path(&a.dir)
            );
        }
        let summary = zar::pack_dir(&a.dir, &out, &opts, &mut on_event)?;
        check_written(&out, quiet);
        summary
    };
    pb.finish_and_clear();
    if !quiet {
        print_summary(&summary);
    }
    Ok(())
}

/// Whether `path` is named as a `.wua`.
fn is_wua(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wua"))
}

/// What to say of the archive just written at `out`, opened once:
/// - named `.wua` with a dictionary, a warning: Cemu reads plain ZAR v1 only (`--help` said
///   "the reference tool and other readers refuse it", which a Cemu user does not take for
///   Cemu; `update` kept a dictionary without a word);
/// - unless `quiet`, each title there in several versions (an update merged beside the one
///   it replaces: the old one stays, as large as it was, and Cemu loads the newest).
fn check_written(out: &Path, quiet: bool) {
    let Some(Ok(archive)) = output::try_open(out).ok() else {
        return;
    };
    if is_wua(out) && !archive.dictionaries().is_empty() {
        eprintln!(
            "zarchive: warning: {} uses a zstd dictionary: Cemu cannot open it (it reads plain \
             ZAR v1); `zarchive merge -o NEW.wua '{}'` writes a plain copy",
            display_path(out),
            display_path(out)
        );
    }
    if quiet {
        return;
    }
    // By the folders' names alone (`wua::titles` reads each title's meta.xml too).
    let mut versions: std::collections::BTreeMap<u64, Vec<u16>> = Default::default();
    for e in archive.root().children().filter(|e| e.is_dir()) {
        if let Some((id, version)) = std::str::from_utf8(e.name())
            .ok()
            .and_then(zar::wua::parse_title_folder)
        {
            versions.entry(id).or_default().push(version);
        }
    }
    for (id, mut v) in versions.into_iter().filter(|(_, v)| v.len() > 1) {
        v.sort_unstable();
        let newest = v.pop().unwrap_or_default();
        let older: Vec<String> = v.iter().map(|v| format!("v{v}")).collect();
        eprintln!(
            "zarchive: note: title {id:016x} is in the archive as v{newest} and as {}: Cemu \
             loads the newest, the older folder only takes space",
            older.join(", ")
        );
    }
}

/// Standard output for an archive (`-o -`), buffered; refused when it is a terminal.
fn archive_to_stdout() -> Result<io::BufWriter<io::StdoutLock<'static>>, Failure> {
    let stdout = io::stdout();
    if stdout.is_terminal() {
        return Err(fail(
            EXIT_USAGE,
            "refusing to write an archive to a terminal; redirect standard output",
        ));
    }
    Ok(io::BufWriter::with_capacity(1 << 20, stdout.lock()))
}

/// An archive written to standard output (`-o -`) through `write`, then flushed. A reader
/// gone away (`-o - | head`) ends the command quietly (`None`), as it ends `cat`, `list`
/// and `compress -c`: it said "writing block 27 of the archive: Broken pipe" and exited 1.
/// Only the output's own broken pipe, which `out` saw, counts: one met reading an input is
/// a failure (the first form took any for the reader's going: exit 0, a cut archive).
fn flushed<W: Write>(
    out: &mut output::Watched<W>,
    write: impl FnOnce(&mut output::Watched<W>) -> Result<zar::PackSummary, ZarError>,
) -> Result<Option<zar::PackSummary>, ZarError> {
    let written = write(out).and_then(|summary| {
        out.flush()
            .map_err(|e| ZarError::io("writing to standard output", e))?;
        Ok(summary)
    });
    match written {
        Err(_) if out.gone => Ok(None),
        other => other.map(Some),
    }
}

/// The progress callback of every write: bar, current entry, warnings.
fn events(pb: &indicatif::ProgressBar) -> impl FnMut(PackEvent<'_>) + '_ {
    move |ev: PackEvent<'_>| match ev {
        PackEvent::Scanned { bytes, .. } => pb.set_length(bytes),
        PackEvent::Data(n) => pb.inc(n),
        PackEvent::Entry { path } => pb.set_message(path.to_string()),
        PackEvent::Warning(w) => pb.suspend(|| eprintln!("zarchive: warning: {w}")),
        PackEvent::Dictionary(choice) => pb.suspend(|| eprintln!("zarchive: {choice}")),
        _ => {}
    }
}

/// The summary line of a write.
fn print_summary(summary: &zar::PackSummary) {
    let s = &summary.archive;
    let ratio = if s.data_bytes > 0 {
        s.archive_size as f64 / s.data_bytes as f64 * 100.0
    } else {
        0.0
    };
    let skipped = summary
        .warnings
        .iter()
        .filter(|w| !matches!(w, PackWarning::Writer(_) | PackWarning::ReplacedKind { .. }))
        .count() as u64;
    let skipped = if skipped > 0 {
        format!(
            "; {} skipped (see the warnings above)",
            count(skipped, "entry", "entries")
        )
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

/// Open the inputs of a merge: directories as they are, anything else as an archive.
fn open_inputs(inputs: &[PathBuf]) -> Result<Vec<Option<zar::Archive>>, Failure> {
    inputs
        .iter()
        .map(|p| {
            if p.is_dir() {
                Ok(None)
            } else {
                output::open_archive(p).map(Some)
            }
        })
        .collect()
}

/// The sources of a merge: a directory named as a Wii U title folder (`<title ID>_v<version>`,
/// as a dumped update or DLC is) goes into that folder at the top of the archive, where a
/// `.wua` holds its titles (merged at the top, the titles' `code/`, `content/` and `meta/`
/// replaced each other's, and Cemu saw none of them); any other directory's contents go at
/// the top, as `pack` lays them out. Each title folder placed so is said unless `quiet`.
fn sources<'a>(
    inputs: &[PathBuf],
    opened: &'a [Option<zar::Archive>],
    quiet: bool,
) -> Vec<Source<'a>> {
    inputs
        .iter()
        .zip(opened)
        .map(|(p, a)| match a {
            Some(a) => Source::Archive(a),
            None => match title_folder_name(p) {
                Some(folder) => {
                    if !quiet {
                        eprintln!(
                            "zarchive: note: {} is a title folder: merged as {folder}/ at the top of the archive",
                            display_path(p)
                        );
                    }
                    Source::DirIn {
                        dir: p.clone(),
                        folder,
                    }
                }
                None => Source::Dir(p.clone()),
            },
        })
        .collect()
}

/// The name of the directory `dir` if it is a Wii U title folder (`.` and `..` by the
/// directory they name) holding a title, not title folders of its own (a folder of titles
/// named like one of them goes in as the folders it holds).
fn title_folder_name(dir: &Path) -> Option<String> {
    let name = match dir.file_name() {
        Some(name) => name.to_os_string(),
        None => std::fs::canonicalize(dir).ok()?.file_name()?.to_os_string(),
    };
    let name = name.into_string().ok()?;
    zar::wua::parse_title_folder(&name)?;
    let holds_titles = std::fs::read_dir(dir).ok()?.any(|e| {
        e.ok().is_some_and(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| zar::wua::parse_title_folder(n).is_some())
        })
    });
    (!holds_titles).then_some(name)
}

/// Run `zarchive merge`.
pub fn merge(a: MergeArgs) -> Result<(), Failure> {
    let opts = a.write.options(
        a.force,
        Some(a.output.as_path()).filter(|o| !output::is_dash(o)),
    )?;
    // The merged archive is plain ZAR v1 unless --dict says otherwise (the reference tool
    // reads it): an input archive's dictionary is not carried over, which is said (it was
    // dropped without a word).
    if a.write.dict.is_none() && !a.write.quiet {
        for p in a.inputs.iter().filter(|p| p.is_file()) {
            if let Some(Ok(archive)) = output::try_open(p).ok()
                && !archive.dictionaries().is_empty()
            {
                eprintln!(
                    "zarchive: note: {} has a dictionary; the merged archive is plain ZAR v1 \
                     without it (give --dict FILE or --dict auto to use one)",
                    display_path(p)
                );
            }
        }
    }
    if a.inputs.iter().any(|p| output::same_file(p, &a.output)) {
        return Err(fail(
            EXIT_USAGE,
            format!(
                "{}: the output is one of the inputs; use `zarchive update` to change an archive in place",
                display_path(&a.output)
            ),
        ));
    }
    let banner = format!(
        "Merging {} into {}",
        count(a.inputs.len() as u64, "input", "inputs"),
        if output::is_dash(&a.output) {
            "standard output".to_string()
        } else {
            display_path(&a.output)
        }
    );
    merge_into(&a.inputs, &a.output, &opts, a.write.quiet, &banner)
}

/// Run `zarchive update`: merge into a temporary file renamed over the archive.
pub fn update(a: UpdateArgs) -> Result<(), Failure> {
    if !a.archive.is_file() {
        return Err(fail(
            EXIT_FAILURE,
            format!("{}: not an archive file", display_path(&a.archive)),
        ));
    }
    // A read-only archive is not replaced (it was, silently): `update` writes a new file
    // and renames it over the old one, which the file's own mode does not stop.
    let meta = std::fs::metadata(&a.archive)
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(&a.archive))))?;
    if meta.permissions().readonly() {
        return Err(fail(
            EXIT_FAILURE,
            format!(
                "{}: the archive is read-only; make it writable to update it",
                display_path(&a.archive)
            ),
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 && !a.write.quiet {
            eprintln!(
                "zarchive: warning: {} has {}; they keep the archive as it was (the update is \
                 written to a new file that replaces this name)",
                display_path(&a.archive),
                count(meta.nlink() - 1, "other hard link", "other hard links")
            );
        }
    }
    // Two updates of one archive at once: each would rename its result over the archive,
    // and the first one's would be lost (both said they were done). The archive is locked
    // for the update; one that waited reads what the other wrote.
    let _lock = lock_for_update(&a.archive, a.write.quiet)?;
    // An archive with a dictionary keeps it (unless --dict or -l stored says otherwise).
    let kept = output::open_archive(&a.archive)?
        .dictionaries()
        .first()
        .map(|d| d.bytes.clone());
    let opts = a
        .write
        .options_keeping(true, kept.as_deref(), Some(&a.archive))?;
    let mut inputs = vec![a.archive.clone()];
    inputs.extend(a.inputs.iter().cloned());
    let banner = format!("Updating {}", display_path(&a.archive));
    // Through a symbolic link, the archive it names is updated, not the link replaced.
    let target = std::fs::canonicalize(&a.archive)
        .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(&a.archive))))?;
    merge_into(&inputs, &target, &opts, a.write.quiet, &banner)
}

/// The archive at `path`, open and locked (an exclusive lock) against other `zarchive
/// update`s, waiting for one under way (said unless `quiet`). The lock is taken on the file
/// the path names once it is held: an update that waited on a file another one has since
/// replaced takes the new one. Where the file system cannot lock (NFS without a lock
/// service), or its locks also bar reading the archive through another handle (Windows,
/// CIFS: the update reads it by path), the update goes on without one, which is said.
fn lock_for_update(path: &Path, quiet: bool) -> Result<Option<std::fs::File>, Failure> {
    let unlocked = |why: &dyn std::fmt::Display| {
        if !quiet {
            eprintln!(
                "zarchive: note: {}: not locked ({why}): another update of it at the same time would be lost",
                display_path(path)
            );
        }
        Ok(None)
    };
    let mut said = false;
    loop {
        // Open for writing where it may be: an exclusive lock over NFS needs it.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .or_else(|_| std::fs::File::open(path))
            .map_err(|e| fail(EXIT_FAILURE, format!("{}: {e}", display_path(path))))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                if !quiet && !said {
                    eprintln!(
                        "zarchive: note: {} is being updated by another process; waiting for it",
                        display_path(path)
                    );
                    said = true;
                }
                if let Err(e) = file.lock() {
                    return unlocked(&e);
                }
            }
            Err(std::fs::TryLockError::Error(e)) => return unlocked(&e),
        }
        if !output::same_file_as_open(path, &file) {
            continue;
        }
        if let Err(e) = readable_by_path(path) {
            drop(file);
            return unlocked(&format_args!("locked, it cannot be read: {e}"));
        }
        return Ok(Some(file));
    }
}

/// Read the last byte of the file at `path` through a handle of its own.
fn readable_by_path(path: &Path) -> io::Result<()> {
    use std::io::{Read, Seek};
    let mut f = std::fs::File::open(path)?;
    f.seek(io::SeekFrom::End(-1))?;
    f.read_exact(&mut [0u8; 1])
}

/// Merge `inputs` (directories and archives, later ones win) into `out`, with progress and
/// the summary line unless `quiet`.
fn merge_into(
    inputs: &[PathBuf],
    out: &Path,
    opts: &PackOptions,
    quiet: bool,
    banner: &str,
) -> Result<(), Failure> {
    let opened = open_inputs(inputs)?;
    if !quiet {
        eprintln!("{banner}");
    }
    let pb = output::bar(quiet, 0, true);
    let sources = sources(inputs, &opened, quiet);
    // `-o -`: standard output, as `pack` writes it (it made a file named `-`).
    let to_stdout = output::is_dash(out);
    let result = if to_stdout {
        let mut w = output::Watched::new(archive_to_stdout()?);
        flushed(&mut w, |w| {
            zar::merge_to(&sources, w, opts, &[], &mut events(&pb)).map(|(_, s)| s)
        })
    } else {
        zar::merge(&sources, out, opts, &mut events(&pb)).map(Some)
    };
    pb.finish_and_clear();
    let summary = result.map_err(|e| match e {
        // Named by its path; exit 3 as `verify` and `extract` report damage.
        ZarError::SourceDamaged {
            source_index,
            error,
        } => fail(
            EXIT_DAMAGED,
            format!(
                "{}: the archive is damaged ({}): {}; `zarchive verify` tells more",
                display_path(&inputs[source_index]),
                output::explain(&error),
                if output::same_file(&inputs[0], out) {
                    "nothing was written, the archive is left as it was".to_string()
                } else if to_stdout {
                    "what was written to standard output is incomplete".to_string()
                } else if zar::is_special_file(out) {
                    // Written into as it went: what it holds is incomplete.
                    format!("what was written into {} is incomplete", display_path(out))
                } else {
                    "nothing was written".to_string()
                }
            ),
        ),
        other => other.into(),
    })?;
    let Some(summary) = summary else {
        return Ok(());
    };
    if !quiet {
        print_summary(&summary);
    }
    if !to_stdout {
        check_written(out, quiet);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose reader went away.
    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn summary() -> zar::PackSummary {
        let (_, summary) = zar::pack_dir_to(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("src").as_path(),
            io::sink(),
            &PackOptions::new(),
            &[],
            &mut |_| {},
        )
        .unwrap();
        summary
    }

    /// Only the output's own broken pipe ends `-o -` quietly: one met reading an input
    /// (a FUSE or network file system's EPIPE) is a failure. The first form took any
    /// broken pipe for the reader's going, and exited 0 with a cut archive (the review of
    /// the fiftieth session).
    #[test]
    fn only_the_outputs_broken_pipe_ends_quietly() {
        let input_failed = |_: &mut output::Watched<Vec<u8>>| {
            Err(ZarError::path_io(
                "t/big.bin",
                "cannot read",
                io::ErrorKind::BrokenPipe.into(),
            ))
        };
        let r = flushed(&mut output::Watched::new(Vec::new()), input_failed);
        assert!(r.is_err());
        let mut closed = output::Watched::new(Closed);
        let r = flushed(&mut closed, |w| {
            w.write_all(b"archive")
                .map_err(|e| ZarError::io("writing block 0 of the archive", e))?;
            Ok(summary())
        });
        assert!(matches!(r, Ok(None)), "{r:?}");
        let r = flushed(&mut output::Watched::new(Vec::new()), |_| Ok(summary()));
        assert!(matches!(r, Ok(Some(_))), "{r:?}");
    }
}
