//! Where archive bytes come from: a memory map, a plain file, or any `Read + Seek`.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Mutex;

use super::mmap::Mapped;

/// Random-access, shareable byte source.
pub trait ReadAt: Send + Sync {
    /// Total length in bytes.
    fn len(&self) -> u64;
    /// Whether the source is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Fill `buf` from `offset`; fails if the range is not entirely inside the source.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Borrow `len` bytes at `offset` without copying, where the source can.
    fn slice(&self, _offset: u64, _len: usize) -> Option<&[u8]> {
        None
    }
    /// Fill `buf` from `offset` as part of one pass over the archive (extraction,
    /// verification, the hash), where each byte is read once: same contract as
    /// [`ReadAt::read_exact_at`], but a memory-mapped source reads the file with positioned
    /// reads instead of touching the map, so the pass does not leave the archive resident.
    fn read_pass_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.read_exact_at(offset, buf)
    }
}

/// Bytes in memory, read in place.
impl ReadAt for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let s = ReadAt::slice(self, offset, buf.len()).ok_or_else(out_of_range)?;
        buf.copy_from_slice(s);
        Ok(())
    }
    fn slice(&self, offset: u64, len: usize) -> Option<&[u8]> {
        let start = usize::try_from(offset).ok()?;
        self.get(start..start.checked_add(len)?)
    }
}

/// The archive's bytes in a vector, read in place.
impl ReadAt for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.as_slice().read_exact_at(offset, buf)
    }
    fn slice(&self, offset: u64, len: usize) -> Option<&[u8]> {
        ReadAt::slice(self.as_slice(), offset, len)
    }
}

/// A shared or boxed source reads as the source it holds (`Arc<[u8]>` shares an archive's
/// bytes between owners). No impl for `&T`: with this trait in scope, `len` on a `&&[u8]`
/// would then be this trait's.
macro_rules! forward_read_at {
    ($($(#[$doc:meta])* $ty:ty),* $(,)?) => {$(
        $(#[$doc])*
        impl<T: ReadAt + ?Sized> ReadAt for $ty {
            fn len(&self) -> u64 {
                (**self).len()
            }
            fn is_empty(&self) -> bool {
                (**self).is_empty()
            }
            fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
                (**self).read_exact_at(offset, buf)
            }
            fn slice(&self, offset: u64, len: usize) -> Option<&[u8]> {
                (**self).slice(offset, len)
            }
            fn read_pass_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
                (**self).read_pass_at(offset, buf)
            }
        }
    )*};
}

forward_read_at!(
    /// The boxed source, read as it reads.
    Box<T>,
    /// The shared source, read as it reads.
    std::sync::Arc<T>,
);

/// A memory-mapped file, and the file itself for one-pass reads.
pub(crate) struct MmapSource {
    map: Mapped,
    file: FileSource,
}

impl MmapSource {
    pub(crate) fn new(map: Mapped, file: File) -> Self {
        let len = map.bytes().len() as u64;
        MmapSource {
            map,
            file: FileSource::with_len(file, len),
        }
    }
}

/// The map read as the bytes in memory it is; one-pass reads go to the file.
impl ReadAt for MmapSource {
    fn len(&self) -> u64 {
        ReadAt::len(self.map.bytes())
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.map.bytes().read_exact_at(offset, buf)
    }
    fn slice(&self, offset: u64, len: usize) -> Option<&[u8]> {
        ReadAt::slice(self.map.bytes(), offset, len)
    }
    fn read_pass_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file.read_exact_at(offset, buf)
    }
}

/// A plain file read with positioned reads (no shared cursor).
pub(crate) struct FileSource {
    file: File,
    len: u64,
    #[cfg(not(any(unix, windows)))]
    lock: Mutex<()>,
}

impl FileSource {
    pub(crate) fn new(file: File) -> io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(Self::with_len(file, len))
    }
    /// `file`, whose length is known to be `len`.
    fn with_len(file: File, len: u64) -> Self {
        FileSource {
            file,
            len,
            #[cfg(not(any(unix, windows)))]
            lock: Mutex::new(()),
        }
    }
}

impl ReadAt for FileSource {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        check_range(offset, buf.len(), self.len)?;
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)
        }
        #[cfg(windows)]
        {
            let mut done = 0;
            while done < buf.len() {
                let n = std::os::windows::fs::FileExt::seek_read(
                    &self.file,
                    &mut buf[done..],
                    offset + done as u64,
                )?;
                if n == 0 {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                done += n;
            }
            Ok(())
        }
        #[cfg(not(any(unix, windows)))]
        {
            let _guard = self
                .lock
                .lock()
                .map_err(|_| io::Error::other("poisoned lock"))?;
            let mut f = &self.file;
            f.seek(SeekFrom::Start(offset))?;
            f.read_exact(buf)
        }
    }
}

/// Any `Read + Seek`, behind a lock.
pub(crate) struct SeekSource<R> {
    inner: Mutex<R>,
    len: u64,
}

impl<R: Read + Seek> SeekSource<R> {
    pub(crate) fn new(mut inner: R) -> io::Result<Self> {
        let len = inner.seek(SeekFrom::End(0))?;
        Ok(SeekSource {
            inner: Mutex::new(inner),
            len,
        })
    }
}

impl<R: Read + Seek + Send> ReadAt for SeekSource<R> {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        check_range(offset, buf.len(), self.len)?;
        let mut r = self
            .inner
            .lock()
            .map_err(|_| io::Error::other("archive source lock poisoned"))?;
        r.seek(SeekFrom::Start(offset))?;
        r.read_exact(buf)
    }
}

fn check_range(offset: u64, len: usize, total: u64) -> io::Result<()> {
    match offset.checked_add(len as u64) {
        Some(end) if end <= total => Ok(()),
        _ => Err(out_of_range()),
    }
}

fn out_of_range() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "read past the end of the archive",
    )
}
