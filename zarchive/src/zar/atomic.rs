//! Files that appear only when complete: written under a temporary name in their final
//! directory, then renamed into place. Used for archives and for extracted files.

use std::path::Path;

#[cfg(doc)]
use super::{extract, merge, pack_dir};

/// Rename a finished temporary file to `target`. Without `overwrite`, an existing target is
/// never replaced: an atomic no-replace rename where the file system has one, and where it
/// has neither that nor hard links (FAT, exFAT on old kernels), a check then a rename.
pub(crate) fn move_into_place(
    tmp: tempfile::NamedTempFile,
    target: &Path,
    overwrite: bool,
) -> std::io::Result<()> {
    if overwrite {
        return tmp.persist(target).map(|_| ()).map_err(|e| e.error);
    }
    match tmp.persist_noclobber(target) {
        Ok(_) => Ok(()),
        Err(e)
            if e.error.kind() != std::io::ErrorKind::AlreadyExists
                && target.symlink_metadata().is_err() =>
        {
            e.file.persist(target).map(|_| ()).map_err(|e| e.error)
        }
        Err(e) => Err(e.error),
    }
}

/// The start of the temporary name a file is written under beside its final name `name`
/// before it is renamed: `.NAME.`, then six random characters and `.partial` follow. A
/// name longer than [`TEMP_NAME_KEPT`] bytes is cut there (at a character boundary), so
/// that the temporary name fits where the final one does: at its full length it put a name
/// of 240-255 bytes, which every file system allows, past the 255-byte limit of a name.
/// Public so that a program writing its own outputs the same way names them alike.
pub fn temp_prefix(name: &std::ffi::OsStr) -> String {
    let name = name.to_string_lossy();
    let mut cut = name.len().min(TEMP_NAME_KEPT);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(".{}.", &name[..cut])
}

/// How many bytes of a file's name its temporary name keeps (see [`temp_prefix`]): with
/// the dots, the random part and `.partial`, 116 bytes at most, within the 143 bytes of the
/// tightest common limit (eCryptfs).
pub const TEMP_NAME_KEPT: usize = 100;

/// A builder for the temporary files that become archives or extracted files: named
/// `PREFIX*.partial`, created with the ordinary mode for new files (0666 less the umask)
/// rather than the 0600 of private temporary files.
pub(crate) fn temp_builder(prefix: &str) -> tempfile::Builder<'_, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix).suffix(".partial");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b
}

/// The temporary files this process is writing (archives, extracted files, and those a
/// program registers with [`PartialFile`]), for [`remove_partial_files`]: each path, and
/// whether it is to be emptied rather than removed.
static PARTIALS: std::sync::Mutex<Vec<(std::path::PathBuf, bool)>> =
    std::sync::Mutex::new(Vec::new());

fn partials() -> std::sync::MutexGuard<'static, Vec<(std::path::PathBuf, bool)>> {
    // A thread that panicked holding the list left it whole: each change is one push or
    // one removal.
    PARTIALS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A temporary file being written, listed for [`remove_partial_files`] from its creation
/// until this guard is dropped (after the file was moved into place or removed).
#[derive(Debug)]
pub struct PartialFile {
    path: std::path::PathBuf,
}

impl PartialFile {
    /// List the temporary file at `path` (as named where it was created: relative to the
    /// working directory if relative).
    pub fn new(path: &Path) -> PartialFile {
        Self::listed(path, false)
    }

    /// List a file being written where it is, under its final name, in a directory where
    /// it cannot be removed (as `zstd -f` writes over a file it may write in a directory
    /// it may not): [`remove_partial_files`] empties it, so that what was cut short does
    /// not pass for a whole output.
    pub fn in_place(path: &Path) -> PartialFile {
        Self::listed(path, true)
    }

    fn listed(path: &Path, empty: bool) -> PartialFile {
        partials().push((path.to_path_buf(), empty));
        PartialFile {
            path: path.to_path_buf(),
        }
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        let mut list = partials();
        if let Some(i) = list.iter().rposition(|(p, _)| *p == self.path) {
            list.swap_remove(i);
        }
    }
}

/// Held (shared) while a file to be listed for [`remove_partial_files`] is made and listed,
/// and while a file written in place is written: [`remove_partial_files`] takes it for good,
/// so that nothing is made, listed or written after it has cleaned up (a file made just
/// after was left behind, empty, under its final name; a write just after gave an emptied
/// file its size back).
static GATE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Hold this while making a file and listing it with [`PartialFile`], or while writing a
/// file listed with [`PartialFile::in_place`]: once [`remove_partial_files`] has run (the
/// process is ending), it waits for ever. Do not hold two at once on one thread.
pub fn partial_gate() -> std::sync::RwLockReadGuard<'static, ()> {
    GATE.read().unwrap_or_else(|e| e.into_inner())
}

/// What [`remove_partial_files`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PartialsRemoved {
    /// Temporary files removed.
    pub removed: usize,
    /// Files written in place ([`PartialFile::in_place`]) emptied.
    pub emptied: usize,
}

/// Remove every temporary file this process is writing: the archive [`pack_dir`] or
/// [`merge`] has not finished, the files [`extract`] has not moved into place, and those
/// listed with [`PartialFile`] (a file listed with [`PartialFile::in_place`] is emptied).
/// For a program stopped by a signal (Ctrl-C), whose destructors do not run: call it from
/// the signal's handler, then exit. Files already moved into place are not touched (their
/// temporary names are gone). Returns how many were removed and how many emptied.
///
/// It waits for the files being made or written under [`partial_gate`] and keeps the gate
/// shut: threads that go on making or writing such files wait until the process ends.
pub fn remove_partial_files() -> PartialsRemoved {
    std::mem::forget(GATE.write().unwrap_or_else(|e| e.into_inner()));
    let mut done = PartialsRemoved::default();
    for (path, in_place) in partials().drain(..) {
        if in_place {
            let emptied = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_len(0));
            done.emptied += usize::from(emptied.is_ok());
        } else {
            done.removed += usize::from(std::fs::remove_file(&path).is_ok());
        }
    }
    done
}

#[cfg(test)]
mod temp_name_tests {
    use super::{TEMP_NAME_KEPT, temp_prefix};
    use std::ffi::OsStr;

    #[test]
    fn long_names_are_cut_at_a_character_boundary() {
        assert_eq!(temp_prefix(OsStr::new("a.zar")), ".a.zar.");
        let long = format!("{}é{}", "a".repeat(TEMP_NAME_KEPT - 1), "b".repeat(200));
        assert_eq!(
            temp_prefix(OsStr::new(&long)),
            format!(".{}.", "a".repeat(TEMP_NAME_KEPT - 1))
        );
        let exact = "c".repeat(TEMP_NAME_KEPT);
        assert_eq!(temp_prefix(OsStr::new(&exact)), format!(".{exact}."));
    }
}
