//! What the subcommands share: progress bars, thread counts, wording, archives from `-`,
//! and output files that appear only when complete.

use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use zarkit::zar::names::display_path;
use zarkit::zar::{Archive, ZarError};

use crate::{EXIT_DAMAGED, EXIT_FAILURE, EXIT_USAGE, Failure, fail};

/// `n` and the noun, singular or plural: "1 file", "2 files".
pub fn count(n: u64, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// What [`explain`] adds to an "already exists" error.
pub const REPLACE_HINT: &str = "; use -f to replace it";

/// The message for a library error, with the command-line option that changes the outcome
/// where there is one.
pub fn explain(e: &ZarError) -> String {
    match e {
        ZarError::Exists { .. } => format!("{e}{REPLACE_HINT}"),
        ZarError::UnstorableName { .. } | ZarError::CaseCollision { .. } => {
            format!("{e}; use --skip-invalid-names to leave such names out")
        }
        _ => e.to_string(),
    }
}

/// Threads for `-j N`: all cores by default, and never more than the cores there are
/// (the work is CPU-bound; more threads would only cost memory).
pub fn threads(requested: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    requested.unwrap_or(cores).clamp(1, cores)
}

/// A progress bar on stderr when it is a terminal and `quiet` is off; hidden otherwise.
pub fn bar(quiet: bool, len: u64, unit_bytes: bool) -> ProgressBar {
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

/// Whether `path` is `-` (standard input or output).
pub fn is_dash(path: &Path) -> bool {
    path == Path::new("-")
}

/// Open an archive from a file, or from standard input when `path` is `-` (read into
/// memory: an archive is read at random positions).
pub fn open_archive(path: &Path) -> Result<Archive, Failure> {
    try_open(path)?.map_err(|e| fail(EXIT_FAILURE, archive_error(path, &e)))
}

/// [`open_archive`] for `extract`, whose exit status tells damage apart: an index that does
/// not validate exits 3 ([`EXIT_DAMAGED`]), a file that cannot be read 1.
pub fn open_archive_telling_damage(path: &Path) -> Result<Archive, Failure> {
    try_open(path)?.map_err(|e| {
        let code = match e {
            ZarError::Io { .. } | ZarError::Path { .. } => EXIT_FAILURE,
            // A zstd file is no damaged archive.
            ZarError::NotAnArchive { .. } if is_zstd_file(path) => EXIT_FAILURE,
            _ => EXIT_DAMAGED,
        };
        fail(code, archive_error(path, &e))
    })
}

/// Whether `output` may be written: a directory never (`-f` could not replace it, so it is
/// no use suggesting), an existing file only with `force`; standard output (`-`), a device
/// or a FIFO always, written into.
pub fn check_output(output: &Path, force: bool) -> Result<(), Failure> {
    if is_dash(output) {
        return Ok(());
    }
    if output.is_dir() {
        return Err(fail(
            EXIT_FAILURE,
            format!("{}: is a directory", display_path(output)),
        ));
    }
    if !force && output.symlink_metadata().is_ok() && !is_special(output) {
        return Err(ZarError::Exists {
            path: output.to_path_buf(),
        }
        .into());
    }
    Ok(())
}

/// The message for an archive that failed to open, naming it.
pub fn archive_error(path: &Path, e: &ZarError) -> String {
    match e {
        ZarError::Path { .. } => e.to_string(),
        e if is_dash(path) => format!("standard input: {e}"),
        ZarError::NotAnArchive { .. } if is_zstd_file(path) => format!(
            "{}: {e} (it is a zstd file: `zarchive decompress` reads it)",
            display_path(path)
        ),
        e => format!("{}: {e}", display_path(path)),
    }
}

/// Whether `path` is named `.zst` and starts with a zstd frame's magic number (a truncated
/// archive starts with one too, but is not named so).
pub fn is_zstd_file(path: &Path) -> bool {
    use std::io::Read;
    let named = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zst") || e.eq_ignore_ascii_case("tzst"));
    let mut magic = [0u8; 4];
    named
        && std::fs::File::open(path).is_ok_and(|mut f| f.read_exact(&mut magic).is_ok())
        && magic == [0x28, 0xB5, 0x2F, 0xFD]
}

/// Open an archive: the outer error is a failure to read standard input, the inner one the
/// archive's own (I/O on the file, or an index that does not validate).
///
/// Read with positioned reads, not a memory map: an archive truncated while it is open
/// (another archive copied over it while it is mounted) then fails a read with an error,
/// where a map ends the process with `SIGBUS` (found by a hostile session: `mount` left a
/// dead mount point, `cat` exited 135).
pub fn try_open(path: &Path) -> Result<Result<Archive, ZarError>, Failure> {
    if is_dash(path) {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            return Err(fail(
                EXIT_USAGE,
                "refusing to read an archive from a terminal; redirect standard input",
            ));
        }
        let mut bytes = Vec::new();
        stdin
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| fail(EXIT_FAILURE, format!("reading standard input: {e}")))?;
        return Ok(Archive::from_reader(io::Cursor::new(bytes)));
    }
    Ok(zarkit::zar::OpenOptions::new().mmap(false).open(path))
}

/// Which side of a copy failed (see [`copy_apart`]).
pub enum CopyError {
    /// Reading the source.
    Read(io::Error),
    /// Writing the destination.
    Write(io::Error),
}

/// Copy `r` into `w` until `r` ends, in `chunk`-byte reads, telling the two sides' errors
/// apart; `copied` hears of each chunk written.
pub fn copy_apart<R: Read, W: Write + ?Sized>(
    mut r: R,
    w: &mut W,
    chunk: usize,
    mut copied: impl FnMut(usize),
) -> Result<(), CopyError> {
    let mut buf = vec![0u8; chunk];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(e)),
        };
        w.write_all(&buf[..n]).map_err(CopyError::Write)?;
        copied(n);
    }
}

/// Turn a broken pipe on standard output (`| head`) into success, as other tools do.
pub fn ignore_broken_pipe(r: io::Result<()>) -> Result<(), Failure> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(fail(
            EXIT_FAILURE,
            format!("writing to standard output: {e}"),
        )),
        Ok(()) => Ok(()),
    }
}

/// JSON text with the characters that a terminal acts on or that turn text around written
/// as `\uXXXX` escapes, the same strings to a JSON reader: `serde_json` writes C1 controls
/// (U+0080-U+009F; U+009B starts an escape sequence on some terminals), line separators
/// and direction overrides ([`zarkit::zar::names::is_deceptive`]) as they are. JSON text holds
/// such characters only inside strings, where the escape means the character.
pub fn json_for_terminal(text: String) -> String {
    let escaped =
        |c: char| ('\u{80}'..='\u{9f}').contains(&c) || zarkit::zar::names::is_deceptive(c);
    if !text.chars().any(escaped) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if escaped(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Lower-case hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Whether `a` and `b` name the same existing file (same device and inode on Unix; same
/// canonical path elsewhere).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (a.canonicalize(), b.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// Whether `path` names the open file `file` (same device and inode on Unix; elsewhere,
/// the same size and modification time).
pub fn same_file_as_open(path: &Path, file: &std::fs::File) -> bool {
    let (Ok(a), Ok(b)) = (std::fs::metadata(path), file.metadata()) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        a.len() == b.len() && a.modified().ok() == b.modified().ok()
    }
}

/// Whether `output` exists and is neither a regular file nor a directory (a device such as
/// `/dev/null`, a FIFO), after symbolic links: written into where it is, as `zstd` and `tar`
/// do, never replaced by a file and never refused for existing.
pub fn is_special(output: &Path) -> bool {
    !is_dash(output) && zarkit::zar::is_special_file(output)
}

/// A file written under a temporary name beside its target and renamed into place only when
/// complete (`commit`); dropped without `commit`, it is removed, so a failure never leaves a
/// partial or corrupt output. It is created with the ordinary mode for new files (0666 less
/// the process umask), never 0600.
///
/// One exception, as `zstd -f` writes: where overwriting is asked for and the target is a
/// regular file this process may write, but no file can be made in its directory (not
/// writable) or the rename over it would be refused (a sticky directory such as `/tmp`,
/// the file another user's), the target is written where it is. It is emptied at the first
/// byte written, so a failure before that (a missing input) leaves it as it was; a failure
/// or a Ctrl-C after it leaves it empty (it cannot be removed, and a partial output must
/// not pass for a whole one).
pub struct OutputFile {
    /// `None` once committed.
    written: Option<Written>,
    target: PathBuf,
    overwrite: bool,
}

/// Where an [`OutputFile`]'s bytes go.
enum Written {
    /// A temporary file beside the target, listed for removal should the program be
    /// stopped by a signal (see `main`).
    Temporary(tempfile::NamedTempFile, zarkit::zar::PartialFile),
    /// The target itself; `started` once emptied for the first byte, from then on listed
    /// to be emptied should the program be stopped by a signal.
    InPlace {
        file: std::fs::File,
        started: Option<zarkit::zar::PartialFile>,
    },
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // A temporary file removes itself; the target written in place is emptied if
        // anything was written to it.
        if let Some(Written::InPlace {
            file,
            started: Some(_),
        }) = &self.written
        {
            let _ = file.set_len(0);
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.written.as_mut().expect("written until committed") {
            Written::Temporary(tmp, _) => tmp.as_file_mut().write(buf),
            Written::InPlace { file, started } => {
                // Not written once Ctrl-C has emptied it (that gave it its size back).
                let _gate = zarkit::zar::partial_gate();
                if started.is_none() {
                    file.set_len(0)?;
                    *started = Some(zarkit::zar::PartialFile::in_place(&self.target));
                }
                file.write(buf)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The regular file `target` (not a link), opened for writing where it is (not emptied),
/// if this process may.
fn open_in_place(target: &Path) -> Option<std::fs::File> {
    if !std::fs::symlink_metadata(target).is_ok_and(|m| m.is_file()) {
        return None;
    }
    std::fs::OpenOptions::new().write(true).open(target).ok()
}

/// Whether renaming a file of this process over `target` in `dir` would be refused: `dir`
/// is sticky (as `/tmp`) and `target` another user's, `new` (a file just made there)
/// telling who this process is. Root may rename anything.
#[cfg(unix)]
fn rename_refused(dir: &Path, target: &Path, new: &std::fs::File) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (Ok(d), Ok(t), Ok(me)) = (
        std::fs::metadata(dir),
        std::fs::symlink_metadata(target),
        new.metadata(),
    ) else {
        return false;
    };
    d.mode() & 0o1000 != 0 && me.uid() != 0 && t.uid() != me.uid() && d.uid() != me.uid()
}

impl OutputFile {
    /// Prepare to write `target`. Without `overwrite`, an existing target is refused now
    /// (and again, atomically, at `commit`).
    pub fn create(target: &Path, overwrite: bool) -> Result<OutputFile, Failure> {
        if !overwrite && target.symlink_metadata().is_ok() {
            return Err(ZarError::Exists {
                path: target.to_path_buf(),
            }
            .into());
        }
        if target.is_dir() {
            return Err(fail(
                EXIT_FAILURE,
                format!("{}: is a directory", display_path(target)),
            ));
        }
        // A link to a regular file stays a link: the file it leads to is replaced. Not
        // written in place through a link (in `/tmp`, another user's link could lead the
        // write to a file of this user's own).
        let resolved = zarkit::zar::resolve_link_to_file(target)?;
        let may_write_in_place = resolved.is_none();
        let target = resolved.as_deref().unwrap_or(target);
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let in_place = |file| OutputFile {
            written: Some(Written::InPlace {
                file,
                started: None,
            }),
            target: target.to_path_buf(),
            overwrite,
        };
        let prefix = zarkit::zar::temp_prefix(target.file_name().unwrap_or_default());
        let mut b = tempfile::Builder::new();
        b.prefix(&prefix).suffix(".partial");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            b.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let gate = zarkit::zar::partial_gate();
        let tmp = match b.tempfile_in(dir) {
            Ok(tmp) => tmp,
            Err(e) => {
                if e.kind() == io::ErrorKind::PermissionDenied
                    && overwrite
                    && may_write_in_place
                    && let Some(file) = open_in_place(target)
                {
                    return Ok(in_place(file));
                }
                // Named by the target, not by the temporary file's random name.
                return Err(ZarError::path_io(
                    target,
                    format!(
                        "cannot create it (written as a temporary file in {} first, then renamed)",
                        display_path(dir)
                    ),
                    e,
                )
                .into());
            }
        };
        #[cfg(unix)]
        if overwrite
            && may_write_in_place
            && rename_refused(dir, target, tmp.as_file())
            && let Some(file) = open_in_place(target)
        {
            return Ok(in_place(file));
        }
        let partial = zarkit::zar::PartialFile::new(tmp.path());
        drop(gate);
        Ok(OutputFile {
            written: Some(Written::Temporary(tmp, partial)),
            target: target.to_path_buf(),
            overwrite,
        })
    }

    /// The file written to (for its metadata).
    pub fn as_file(&self) -> &std::fs::File {
        match self.written.as_ref().expect("written until committed") {
            Written::Temporary(tmp, _) => tmp.as_file(),
            Written::InPlace { file, .. } => file,
        }
    }

    /// Whether the target is written where it is (see [`OutputFile`]): it keeps its owner
    /// and may refuse another mode.
    pub fn in_place(&self) -> bool {
        matches!(self.written, Some(Written::InPlace { .. }))
    }

    /// Move the finished file into place.
    pub fn commit(mut self) -> Result<(), Failure> {
        let target = std::mem::take(&mut self.target);
        let tmp = match self.written.take() {
            // Nothing to move: what was written stays (an output of no bytes empties it).
            Some(Written::InPlace { file, started }) => {
                if started.is_none() {
                    file.set_len(0).map_err(|e| {
                        fail(EXIT_FAILURE, format!("{}: {e}", display_path(&target)))
                    })?;
                }
                return Ok(());
            }
            None => return Ok(()),
            Some(Written::Temporary(tmp, _partial)) => tmp,
        };
        let r = if self.overwrite {
            tmp.persist(&target).map(|_| ())
        } else {
            tmp.persist_noclobber(&target).map(|_| ())
        };
        r.map_err(|e| {
            if e.error.kind() == io::ErrorKind::AlreadyExists {
                ZarError::Exists {
                    path: target.clone(),
                }
                .into()
            } else {
                fail(
                    EXIT_FAILURE,
                    format!(
                        "{}: cannot move the output into place: {}",
                        display_path(&target),
                        e.error
                    ),
                )
            }
        })
    }
}

/// A writer that counts the bytes handed to it and remembers whether its reader went away
/// (a broken pipe, `| head`): past that, nothing more can be written.
pub(crate) struct Watched<W> {
    inner: W,
    pub(crate) written: u64,
    pub(crate) gone: bool,
}

impl<W: Write> Watched<W> {
    pub(crate) fn new(inner: W) -> Self {
        Watched {
            inner,
            written: 0,
            gone: false,
        }
    }

    fn note<T>(&mut self, r: io::Result<T>) -> io::Result<T> {
        self.gone |= r
            .as_ref()
            .is_err_and(|e| e.kind() == io::ErrorKind::BrokenPipe);
        r
    }
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.inner.write(buf);
        let n = self.note(r)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = self.inner.flush();
        self.note(r)
    }
}
