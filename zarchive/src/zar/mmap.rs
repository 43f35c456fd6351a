//! The one place in zarkit that holds `unsafe`: mapping an archive file into memory.
//! Everything else reads through [`super::source::ReadAt`]; when mapping fails (or is not
//! wanted) the reader falls back to positioned reads of the plain file.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;

/// A read-only memory map of a whole file.
pub(crate) struct Mapped(memmap2::Mmap);

impl Mapped {
    /// Map `file` read-only. Returns an error for files that cannot be mapped (empty files,
    /// pipes, some network file systems); callers then read the file instead.
    pub(crate) fn map(file: &File) -> io::Result<Mapped> {
        // SAFETY: the map is read-only and private to this process. The one hazard left is
        // another process truncating or rewriting the file while it is mapped, which can
        // change the bytes under us or raise SIGBUS; that is the documented trade-off of
        // mapping, and callers that cannot accept it open with `OpenOptions::mmap(false)`.
        // All bytes read from the map are treated as untrusted and validated.
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(Mapped(map))
    }

    /// The mapped bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
}
