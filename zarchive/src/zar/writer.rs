//! Writing archives: streaming and append-only, to any `Write`.
//!
//! Given the same entries in the same order and the same compressed blocks, the bytes equal
//! the reference writer's (zarchivewriter.cpp): zero-padded last block, 8-byte alignment pad,
//! offset records, name table in first-use order, breadth-first tree with sorted children,
//! empty meta sections, and a footer whose SHA-256 covers every byte with the hash zeroed.

use std::collections::HashMap;
use std::collections::hash_map::{Entry as Slot, RandomState};
use std::hash::BuildHasher;
use std::io::{self, Read, Write};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::compressor::{BlockCompressor, Zstd};
use super::error::ZarError;
use super::format::*;
use super::names;
use super::pipeline::{BlockBuf, Pipeline};

/// Something the writer did that a user should know about.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteWarning {
    /// A name of 128 bytes or more: stored correctly, but the reference reader (and Cemu)
    /// decode its length wrongly and cannot read the archive's entry.
    LongName {
        /// The entry's path.
        path: String,
        /// The name's length in bytes.
        len: usize,
    },
    /// The archive holds no data blocks (only directories or empty files); the reference
    /// reader refuses to open such an archive.
    NoDataBlocks,
}

impl std::fmt::Display for WriteWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteWarning::LongName { path, len } => write!(
                f,
                "{path}: the name is {len} bytes; names of 128 bytes or more are stored correctly but the reference ZArchive reader (and Cemu) cannot read them"
            ),
            WriteWarning::NoDataBlocks => f.write_str(
                "the archive holds no file data; the reference ZArchive reader (and Cemu) refuse to open an archive without data blocks",
            ),
        }
    }
}

/// What a finished archive looks like.
#[derive(Debug, Clone, Default)]
pub struct WriteSummary {
    /// Files added.
    pub files: u64,
    /// Directories added (the root not included).
    pub dirs: u64,
    /// Bytes of file data.
    pub data_bytes: u64,
    /// Data blocks written.
    pub blocks: u64,
    /// Of those, blocks stored raw.
    pub raw_blocks: u64,
    /// Length of the archive.
    pub archive_size: u64,
    /// The SHA-256 in the footer.
    pub hash: [u8; HASH_SIZE],
    /// Warnings, in the order they arose.
    pub warnings: Vec<WriteWarning>,
}

/// Options for an [`ArchiveWriter`].
#[derive(Clone)]
pub struct WriterOptions {
    compressor: Arc<dyn BlockCompressor>,
    threads: usize,
}

impl std::fmt::Debug for WriterOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriterOptions")
            .field("compressor", &self.compressor.describe())
            .field("threads", &self.threads)
            .finish()
    }
}

impl Default for WriterOptions {
    /// The reference tool's compression (zstd level 6), one thread.
    fn default() -> Self {
        WriterOptions {
            compressor: Arc::new(Zstd::default()),
            threads: 1,
        }
    }
}

/// The most compression threads a writer starts, whatever it is asked for.
pub const MAX_THREADS: usize = 256;

impl WriterOptions {
    /// Defaults: zstd level 6 blocks (as the reference tool), one thread.
    pub fn new() -> Self {
        Self::default()
    }
    /// The block compressor.
    pub fn compressor(mut self, c: Arc<dyn BlockCompressor>) -> Self {
        self.compressor = c;
        self
    }
    /// Number of compression threads (1 = compress on the calling thread), at most
    /// [`MAX_THREADS`]. Each thread holds one compression context; if the system refuses to
    /// start a thread, the writer goes on with those that started.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n.clamp(1, MAX_THREADS);
        self
    }
    /// The configured thread count.
    pub fn thread_count(&self) -> usize {
        self.threads
    }
    /// The configured compressor.
    pub fn block_compressor(&self) -> &Arc<dyn BlockCompressor> {
        &self.compressor
    }
}

/// One entry of the tree being written. Its name is read back from the name table, so an
/// entry costs 32 bytes here however long its name (a 100,000-entry pack held 600 bytes an
/// entry at its peak when each entry also kept its name and its directory a map of them).
#[derive(Debug)]
struct WEntry {
    /// Where its name starts in the name table ([`ROOT_NAME_OFFSET`] for the root).
    name_offset: u32,
    /// The directory it is in (the root's is the root).
    parent: u32,
    kind: WKind,
}

#[derive(Debug)]
enum WKind {
    File {
        offset: u64,
        size: u64,
    },
    /// A directory; its children, in the order added, are `children[index]`.
    Dir {
        index: u32,
    },
}

/// A map from byte strings to entry numbers that keeps a 64-bit hash of each key, not the
/// key: the caller tells whether a value's key is the one looked up (the name table holds
/// it). A key whose hash another key already holds is kept whole in `spill`.
#[derive(Debug, Default)]
struct HashedKeys<S = RandomState> {
    state: S,
    by_hash: HashMap<u64, u32>,
    spill: HashMap<Vec<u8>, u32>,
}

impl<S: BuildHasher> HashedKeys<S> {
    fn get(&self, key: &[u8], holds_key: impl Fn(u32) -> bool) -> Option<u32> {
        match self.by_hash.get(&self.state.hash_one(key)) {
            Some(&v) if holds_key(v) => Some(v),
            // The hash's holder was removed, or is another key: a spilled key is found only
            // here (an empty map is not hashed into).
            _ => self.spill.get(key).copied(),
        }
    }

    /// Insert `key`, which the map does not hold.
    fn insert(&mut self, key: &[u8], value: u32) {
        match self.by_hash.entry(self.state.hash_one(key)) {
            Slot::Vacant(slot) => {
                slot.insert(value);
            }
            Slot::Occupied(_) => {
                self.spill.insert(key.to_vec(), value);
            }
        }
    }

    /// Remove `key`, which the map holds with `value`.
    fn remove(&mut self, key: &[u8], value: u32) {
        match self.by_hash.entry(self.state.hash_one(key)) {
            Slot::Occupied(slot) if *slot.get() == value => {
                slot.remove();
            }
            _ => {
                self.spill.remove(key);
            }
        }
    }
}

/// The key of `name` in directory `parent` for [`ArchiveWriter`]'s `child_index`: names
/// are told apart ignoring ASCII case, as the reference reader looks them up.
fn child_key(parent: u32, name: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(4 + name.len());
    key.extend_from_slice(&parent.to_le_bytes());
    key.extend(name.iter().map(u8::to_ascii_lowercase));
    key
}

/// Counts and hashes everything written.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    pos: u64,
}

impl<W: Write> HashingWriter<W> {
    fn put(&mut self, b: &[u8]) -> io::Result<()> {
        self.inner.write_all(b)?;
        self.hasher.update(b);
        self.pos += b.len() as u64;
        Ok(())
    }
}

/// Writes a ZAR archive. Add directories and files in any order (a parent before its
/// children), stream file bytes in with [`Write`], then [`ArchiveWriter::finish`].
/// Full blocks are compressed (in parallel with several threads) and written as they fill.
///
/// Paths are `/`-separated (`\\` also separates); empty and `.` components are skipped,
/// as [`Archive::lookup`](super::Archive::lookup) skips them. Dropping a writer without
/// [`finish`](ArchiveWriter::finish) leaves what it wrote so far in `out` (a file without
/// an index, which no reader opens): write to a temporary file and rename it when done,
/// as [`pack_dir`](super::pack_dir) does.
pub struct ArchiveWriter<W: Write> {
    out: HashingWriter<W>,
    entries: Vec<WEntry>,
    /// Each directory's children, in the order added.
    children: Vec<Vec<u32>>,
    /// Every entry but the root, by [`child_key`].
    child_index: HashedKeys,
    name_table: Vec<u8>,
    /// Where each name starts in the name table.
    name_offsets: HashedKeys,
    current_file: Option<u32>,
    stream_pos: u64,
    pending: BlockBuf,
    pending_len: usize,
    pipeline: Pipeline,
    blocks_submitted: u64,
    block_sizes: Vec<u16>,
    record_bases: Vec<u64>,
    raw_blocks: u64,
    warnings: Vec<WriteWarning>,
    failed: bool,
    /// The compressor's dictionary, stored in the meta sections at the end.
    dictionary: Option<Vec<u8>>,
}

impl<W: Write> std::fmt::Debug for ArchiveWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArchiveWriter")
            .field("entries", &self.entries.len())
            .field("stream_pos", &self.stream_pos)
            .finish_non_exhaustive()
    }
}

impl<W: Write> ArchiveWriter<W> {
    /// Start an archive on `out` with default options (zstd level 6, one thread).
    pub fn new(out: W) -> Result<Self, ZarError> {
        Self::with_options(out, &WriterOptions::default())
    }

    /// Start an archive on `out`.
    pub fn with_options(out: W, opts: &WriterOptions) -> Result<Self, ZarError> {
        let mut pipeline = Pipeline::new(opts.compressor.clone(), opts.threads).map_err(|e| {
            ZarError::io(
                format!("cannot start the {} compressor", opts.compressor.describe()),
                e,
            )
        })?;
        let dictionary = opts.compressor.dictionary().map(<[u8]>::to_vec);
        if let Some(dict) = &dictionary
            && (dict.len() < 8
                || dict[..4] != crate::zstd::DICTIONARY_MAGIC
                || dict[4..8] == [0; 4])
        {
            return Err(ZarError::io(
                format!("the {} compressor", opts.compressor.describe()),
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "its dictionary is not a zstd-format dictionary with an ID",
                ),
            ));
        }
        let pending = pipeline.buffer();
        Ok(ArchiveWriter {
            out: HashingWriter {
                inner: out,
                hasher: Sha256::new(),
                pos: 0,
            },
            entries: vec![WEntry {
                name_offset: ROOT_NAME_OFFSET,
                parent: 0,
                kind: WKind::Dir { index: 0 },
            }],
            children: vec![Vec::new()],
            child_index: HashedKeys::default(),
            name_table: Vec::new(),
            name_offsets: HashedKeys::default(),
            current_file: None,
            stream_pos: 0,
            pending,
            pending_len: 0,
            pipeline,
            blocks_submitted: 0,
            block_sizes: Vec::new(),
            record_bases: Vec::new(),
            raw_blocks: 0,
            warnings: Vec::new(),
            failed: false,
            dictionary,
        })
    }

    /// Bytes of file data added so far.
    pub fn data_bytes(&self) -> u64 {
        self.stream_pos
    }

    /// Bytes of archive written so far.
    pub fn bytes_written(&self) -> u64 {
        self.out.pos
    }

    /// Warnings so far.
    pub fn warnings(&self) -> &[WriteWarning] {
        &self.warnings
    }

    /// Add a directory; its parent must exist and no entry of the parent may have the same
    /// name ignoring ASCII case. Mirrors zarchivewriter.cpp `MakeDir(path, false)`.
    pub fn add_dir(&mut self, path: impl AsRef<[u8]>) -> Result<(), ZarError> {
        // Bytes written after it belong to no file (they went on into the last one).
        self.current_file = None;
        self.add_entry(path.as_ref(), true).map(|_| ())
    }

    /// Add a directory and any missing parents; existing directories are fine.
    pub fn add_dir_all(&mut self, path: impl AsRef<[u8]>) -> Result<(), ZarError> {
        let path = path.as_ref();
        self.current_file = None;
        let mut cur = 0u32;
        let mut sofar: Vec<u8> = Vec::new();
        for part in names::split_path(path).filter(|&c| c != b".") {
            if !sofar.is_empty() {
                sofar.push(b'/');
            }
            sofar.extend_from_slice(part);
            cur = match self.child(cur, part) {
                Some(c) if matches!(self.entries[c as usize].kind, WKind::Dir { .. }) => c,
                Some(_) => return Err(entry_err(&sofar, "a file of that name already exists")),
                None => self.add_entry(&sofar, true)?,
            };
        }
        Ok(())
    }

    /// The archive's writer.
    pub fn get_ref(&self) -> &W {
        &self.out.inner
    }

    /// The archive's writer; writing to it directly corrupts the archive.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out.inner
    }

    /// Start a new file (ending the previous one); its bytes follow through [`Write`].
    /// Mirrors zarchivewriter.cpp `StartNewFile`.
    pub fn start_file(&mut self, path: impl AsRef<[u8]>) -> Result<(), ZarError> {
        // The previous file ends even when this one is refused.
        self.current_file = None;
        let id = self.add_entry(path.as_ref(), false)?;
        self.current_file = Some(id);
        Ok(())
    }

    /// Add a whole file from a reader; returns its size.
    ///
    /// When `data` fails, the file is left out of the archive and the writer can go on:
    /// the bytes read before the error stay in the data stream, unreferenced (before, the
    /// file stayed in with only those bytes, in an archive that verified).
    pub fn add_file(
        &mut self,
        path: impl AsRef<[u8]>,
        mut data: impl Read,
    ) -> Result<u64, ZarError> {
        let path = path.as_ref();
        let warnings = self.warnings.len();
        let names = self.name_table.len();
        self.start_file(path)?;
        let mut total = 0u64;
        loop {
            let mut read_failed = false;
            let n = self.read_into_file(&mut data, |e| {
                read_failed = true;
                ZarError::io(
                    format!("cannot read the data of {}", names::display(path)),
                    e,
                )
            });
            match n {
                Ok(0) => return Ok(total),
                Ok(n) => total += n as u64,
                Err(e) => {
                    if read_failed {
                        self.leave_out_current_file(names);
                        // Nor is its name warned about.
                        self.warnings.truncate(warnings);
                    }
                    return Err(e);
                }
            }
        }
    }

    /// Take the file being added (the last entry made) out of the tree again, and its name
    /// out of the name table if it was the first of that name (the table was `names` bytes
    /// long before the file was started).
    fn leave_out_current_file(&mut self, names: usize) {
        let Some(id) = self.current_file.take() else {
            return;
        };
        debug_assert_eq!(id as usize, self.entries.len() - 1, "the newest entry");
        let name = self.name(id).to_vec();
        let Some(entry) = self.entries.pop() else {
            return;
        };
        self.child_index.remove(&child_key(entry.parent, &name), id);
        if let WKind::Dir { index } = self.entries[entry.parent as usize].kind {
            let siblings = &mut self.children[index as usize];
            debug_assert_eq!(siblings.last(), Some(&id), "the newest child");
            siblings.pop();
        }
        if self.name_table.len() > names {
            self.name_table.truncate(names);
            self.name_offsets.remove(&name, entry.name_offset);
        }
    }

    /// One read of `data` straight into the block being filled (see
    /// [`ArchiveWriter::spare`]), retried when interrupted, and its bytes committed to the
    /// current file; returns their number, 0 at the end of `data`. A read error becomes
    /// `read_error`'s.
    pub(crate) fn read_into_file(
        &mut self,
        data: &mut impl Read,
        read_error: impl FnOnce(io::Error) -> ZarError,
    ) -> Result<usize, ZarError> {
        let n = loop {
            match data.read(self.spare()) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(read_error(e)),
            }
        };
        if n > 0 {
            self.commit(n)?;
        }
        Ok(n)
    }

    /// Append bytes to the current file. Mirrors zarchivewriter.cpp `AppendData`.
    pub fn append(&mut self, mut data: &[u8]) -> Result<(), ZarError> {
        self.count_file_bytes(data.len())?;
        while !data.is_empty() {
            let n = data.len().min(BLOCK_SIZE - self.pending_len);
            self.pending[self.pending_len..self.pending_len + n].copy_from_slice(&data[..n]);
            self.pending_len += n;
            data = &data[n..];
            if self.pending_len == BLOCK_SIZE {
                self.flush_block()?;
            }
        }
        Ok(())
    }

    /// The free part of the block being filled (never empty), for a reader to write the
    /// current file's next bytes into; [`ArchiveWriter::commit`] then adds them. Saves the
    /// copy [`ArchiveWriter::append`] makes:
    ///
    /// ```no_run
    /// # fn demo(w: &mut zarkit::zar::ArchiveWriter<std::fs::File>, mut r: std::fs::File)
    /// # -> Result<(), Box<dyn std::error::Error>> {
    /// use std::io::Read;
    /// w.start_file("data.bin")?;
    /// loop {
    ///     let n = r.read(w.spare())?;
    ///     if n == 0 {
    ///         break;
    ///     }
    ///     w.commit(n)?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// Bytes written here and not committed are not part of the archive.
    pub fn spare(&mut self) -> &mut [u8] {
        &mut self.pending[self.pending_len..]
    }

    /// Add the first `n` bytes of [`ArchiveWriter::spare`] to the current file, as
    /// [`ArchiveWriter::append`] adds its bytes. Fails, adding nothing, when `n` is more
    /// than that space holds, when no file was started, and past the format's limit.
    pub fn commit(&mut self, n: usize) -> Result<(), ZarError> {
        if self.current_file.is_none() {
            return Err(ZarError::NoFileStarted);
        }
        let room = BLOCK_SIZE - self.pending_len;
        if n > room {
            return Err(ZarError::Entry {
                path: self.current_path(),
                reason: format!("{n} bytes committed where the spare space holds {room}"),
            });
        }
        self.count_file_bytes(n)?;
        self.pending_len += n;
        if self.pending_len == BLOCK_SIZE {
            self.flush_block()?;
        }
        Ok(())
    }

    /// The current file's name as errors show it (empty before any file).
    fn current_path(&self) -> String {
        self.current_file
            .map_or_else(String::new, |id| names::display(self.name(id)))
    }

    /// Count `n` more bytes of the current file, within the format's limit.
    fn count_file_bytes(&mut self, n: usize) -> Result<(), ZarError> {
        let Some(file) = self.current_file else {
            return Err(ZarError::NoFileStarted);
        };
        if self.failed {
            return Err(ZarError::WriterFailed);
        }
        if self.stream_pos + n as u64 > MAX_FILE_SIZE {
            return Err(ZarError::Limit(format!(
                "more than {MAX_FILE_SIZE} bytes of file data (48-bit offsets)"
            )));
        }
        if let WKind::File { size, .. } = &mut self.entries[file as usize].kind {
            *size += n as u64;
        }
        self.stream_pos += n as u64;
        Ok(())
    }

    /// The name of entry `id`, read from the name table (empty for the root).
    fn name(&self, id: u32) -> &[u8] {
        name_in(&self.name_table, &self.entries[id as usize])
    }

    /// The entry named `name` ignoring ASCII case in directory `dir`.
    fn child(&self, dir: u32, name: &[u8]) -> Option<u32> {
        self.child_index.get(&child_key(dir, name), |id| {
            self.entries[id as usize].parent == dir && names::eq_ignore_case(self.name(id), name)
        })
    }

    /// Resolve the parent, check the name, register it in the name table.
    fn add_entry(&mut self, path: &[u8], is_dir: bool) -> Result<u32, ZarError> {
        // `.` components are skipped, as `Archive::lookup` skips them.
        let parts: Vec<&[u8]> = names::split_path(path).filter(|&c| c != b".").collect();
        let Some((&name, parents)) = parts.split_last() else {
            return Err(entry_err(path, "the path names no entry"));
        };
        let last_raw = path.rsplit(|&c| c == b'/' || c == b'\\').next();
        if !is_dir && matches!(last_raw, Some(b"" | b".")) {
            // `lookup` takes a trailing separator to mean a directory.
            return Err(entry_err(
                path,
                "a file's path cannot end in a separator or `.` (that names a directory)",
            ));
        }
        if let Err(why) = names::check_component(name) {
            // Never write what a safe reader (ours included) must refuse.
            return Err(entry_err(path, &why.to_string()));
        }
        if name.len() > MAX_NAME_LEN {
            return Err(entry_err(
                &shortened(path),
                &format!(
                    "the name is {} bytes; ZAR names hold at most {MAX_NAME_LEN}",
                    name.len()
                ),
            ));
        }
        let mut parent = 0u32;
        for p in parents {
            parent = match self.child(parent, p) {
                Some(c) if matches!(self.entries[c as usize].kind, WKind::Dir { .. }) => c,
                Some(_) => {
                    return Err(entry_err(
                        path,
                        &format!("{} is a file, not a directory", names::display(p)),
                    ));
                }
                None => {
                    return Err(entry_err(
                        path,
                        &format!("its parent directory {} was not added", names::display(p)),
                    ));
                }
            };
        }
        if let Some(existing) = self.child(parent, name) {
            let existing = &self.entries[existing as usize];
            let what = if matches!(existing.kind, WKind::Dir { .. }) {
                "a directory"
            } else {
                "a file"
            };
            let existing_name = name_in(&self.name_table, existing);
            let reason = if existing_name == name {
                format!("{what} of that name was already added")
            } else {
                format!(
                    "{what} named {} was already added beside it (names are compared \
                     ignoring ASCII case)",
                    names::display(existing_name)
                )
            };
            return Err(entry_err(path, &reason));
        }
        if self.entries.len() >= u32::MAX as usize {
            return Err(ZarError::Limit("more than 2^32 - 1 entries".into()));
        }
        let table = &self.name_table;
        let name_offset = match self.name_offsets.get(name, |o| name_at(table, o) == name) {
            Some(o) => o,
            None => {
                let o = self.name_table.len();
                if o + 2 + name.len() > MAX_NAMES_SECTION as usize {
                    return Err(ZarError::Limit(
                        "the name table would exceed 2^31 - 1 bytes".into(),
                    ));
                }
                names::encode_entry(name, &mut self.name_table);
                self.name_offsets.insert(name, o as u32);
                o as u32
            }
        };
        if name.len() >= REFERENCE_READER_NAME_LIMIT {
            self.warnings.push(WriteWarning::LongName {
                path: names::display(&parts.join(&b'/')),
                len: name.len(),
            });
        }
        let id = self.entries.len() as u32;
        let kind = if is_dir {
            self.children.push(Vec::new());
            WKind::Dir {
                index: (self.children.len() - 1) as u32,
            }
        } else {
            WKind::File {
                offset: self.stream_pos,
                size: 0,
            }
        };
        self.entries.push(WEntry {
            name_offset,
            parent,
            kind,
        });
        if let WKind::Dir { index } = self.entries[parent as usize].kind {
            self.children[index as usize].push(id);
        }
        self.child_index.insert(&child_key(parent, name), id);
        Ok(id)
    }

    /// Hand the full pending block to the pipeline and write whatever is finished.
    fn flush_block(&mut self) -> Result<(), ZarError> {
        let next = self.pipeline.buffer();
        let block = std::mem::replace(&mut self.pending, next);
        self.pending_len = 0;
        let seq = self.blocks_submitted;
        self.blocks_submitted += 1;
        self.pipeline
            .submit(seq, block)
            .map_err(|e| self.fail(ZarError::io(format!("compressing block {seq}"), e)))?;
        self.write_finished(false)
    }

    /// Write finished blocks in order. Mirrors the output half of zarchivewriter.cpp
    /// `StoreBlock`: a result of 65536 bytes or more is replaced by the raw block.
    fn write_finished(&mut self, wait: bool) -> Result<(), ZarError> {
        while let Some((seq, result)) = self.pipeline.next_done(wait) {
            let done = result
                .map_err(|e| self.fail(ZarError::io(format!("compressing block {seq}"), e)))?;
            let raw = done.output.len() >= BLOCK_SIZE;
            if done.output.is_empty() {
                return Err(self.fail(ZarError::Block {
                    block: seq,
                    reason: "the compressor produced no bytes".into(),
                    cause: None,
                }));
            }
            let stored: &[u8] = if raw { &done.input[..] } else { &done.output };
            if seq % BLOCKS_PER_RECORD as u64 == 0 {
                self.record_bases.push(self.out.pos);
            }
            self.block_sizes.push((stored.len() - 1) as u16);
            self.raw_blocks += u64::from(raw);
            if let Err(e) = self.out.put(stored) {
                return Err(self.fail(ZarError::io(
                    format!("writing block {seq} of the archive"),
                    e,
                )));
            }
            self.pipeline.recycle(done);
        }
        let written = self.block_sizes.len() as u64;
        if wait && written < self.blocks_submitted {
            // A compressor that panicked took the block with it (the panic reached the
            // caller, who went on): the archive would lack it.
            return Err(self.fail(ZarError::Block {
                block: written,
                reason: "the block never came back from the compressor (it panicked)".into(),
                cause: None,
            }));
        }
        Ok(())
    }

    fn fail(&mut self, e: ZarError) -> ZarError {
        self.failed = true;
        e
    }

    /// Finish the archive: the zero-padded last block, alignment, offset records, name table,
    /// file tree, meta sections and footer. Mirrors zarchivewriter.cpp `Finalize`.
    pub fn finish(mut self) -> Result<(W, WriteSummary), ZarError> {
        if self.failed {
            return Err(ZarError::WriterFailed);
        }
        self.current_file = None;
        if self.pending_len > 0 {
            self.pending[self.pending_len..].fill(0);
            self.flush_block()?;
        }
        self.write_finished(true)?;
        let data_size = self.out.pos;
        let pad = (8 - data_size % 8) % 8;
        self.put(&[0u8; 8][..pad as usize], "alignment padding")?;

        let records_offset = self.out.pos;
        let mut records = Vec::with_capacity(self.record_bases.len() * RECORD_SIZE);
        for (i, base) in self.record_bases.iter().enumerate() {
            let mut r = OffsetRecord {
                base_offset: *base,
                ..Default::default()
            };
            let sizes = &self.block_sizes
                [i * BLOCKS_PER_RECORD..((i + 1) * BLOCKS_PER_RECORD).min(self.block_sizes.len())];
            r.size_minus_one[..sizes.len()].copy_from_slice(sizes);
            records.extend_from_slice(&r.to_bytes());
        }
        self.put(&records, "offset records")?;

        let names_offset = self.out.pos;
        let tree = self.tree_bytes();
        let name_table = std::mem::take(&mut self.name_table);
        self.put(&name_table, "name table")?;

        let tree_offset = self.out.pos;
        self.put(&tree, "file tree")?;
        let meta_offset = self.out.pos;
        // The dictionary extension: a directory naming the dictionary, then its bytes.
        let (meta_dir_size, meta_data_size, version) = match self.dictionary.take() {
            None => (0, 0, VERSION_1),
            Some(dict) => {
                let id = u32::from_le_bytes([dict[4], dict[5], dict[6], dict[7]]);
                let dir = meta_directory_bytes(&[MetaEntry {
                    tag: TAG_DICTIONARY,
                    flags: META_FLAG_REQUIRED,
                    offset: 0,
                    size: dict.len() as u64,
                    param: u64::from(id),
                }]);
                self.put(&dir, "meta directory")?;
                self.put(&dict, "dictionary")?;
                (dir.len() as u64, dict.len() as u64, VERSION_META)
            }
        };

        let mut footer = Footer {
            compressed_data: Section {
                offset: 0,
                size: data_size,
            },
            offset_records: Section {
                offset: records_offset,
                size: records.len() as u64,
            },
            names: Section {
                offset: names_offset,
                size: name_table.len() as u64,
            },
            file_tree: Section {
                offset: tree_offset,
                size: tree.len() as u64,
            },
            meta_directory: Section {
                offset: meta_offset,
                size: meta_dir_size,
            },
            meta_data: Section {
                offset: meta_offset + meta_dir_size,
                size: meta_data_size,
            },
            integrity_hash: [0; HASH_SIZE],
            total_size: meta_offset + meta_dir_size + meta_data_size + FOOTER_SIZE as u64,
            version,
            magic: MAGIC,
        };
        self.out.hasher.update(footer.to_bytes());
        footer.integrity_hash = std::mem::take(&mut self.out.hasher).finalize().into();
        let HashingWriter { mut inner, .. } = self.out;
        inner
            .write_all(&footer.to_bytes())
            .map_err(|e| ZarError::io("writing the archive footer", e))?;
        inner
            .flush()
            .map_err(|e| ZarError::io("flushing the archive", e))?;

        if self.blocks_submitted == 0 {
            self.warnings.push(WriteWarning::NoDataBlocks);
        }
        let (mut files, mut dirs) = (0, 0);
        for e in &self.entries[1..] {
            match e.kind {
                WKind::File { .. } => files += 1,
                WKind::Dir { .. } => dirs += 1,
            }
        }
        let summary = WriteSummary {
            files,
            dirs,
            data_bytes: self.stream_pos,
            blocks: self.blocks_submitted,
            raw_blocks: self.raw_blocks,
            archive_size: footer.total_size,
            hash: footer.integrity_hash,
            warnings: self.warnings,
        };
        Ok((inner, summary))
    }

    fn put(&mut self, b: &[u8], what: &str) -> Result<(), ZarError> {
        self.out
            .put(b)
            .map_err(|e| ZarError::io(format!("writing the {what} of the archive"), e))
    }

    /// Number the nodes breadth-first, each directory's children sorted by the ZAR
    /// comparator and contiguous; an empty directory's first-child index is the next free
    /// index when it is visited. Mirrors zarchivewriter.cpp `WriteFileTree`.
    fn tree_bytes(&self) -> Vec<u8> {
        let mut order: Vec<u32> = vec![0];
        // Each directory's first child and count, by its `WKind::Dir` index.
        let mut dir_ranges = vec![(0u32, 0u32); self.children.len()];
        let mut head = 0;
        while head < order.len() {
            let id = order[head];
            head += 1;
            let WKind::Dir { index } = self.entries[id as usize].kind else {
                continue;
            };
            let start = order.len();
            order.extend_from_slice(&self.children[index as usize]);
            order[start..].sort_by(|&a, &b| names::compare(self.name(a), self.name(b)));
            dir_ranges[index as usize] = (start as u32, (order.len() - start) as u32);
        }
        let mut out = Vec::with_capacity(order.len() * NODE_SIZE);
        for id in order {
            let e = &self.entries[id as usize];
            let node = match e.kind {
                WKind::File { offset, size } => RawNode::File {
                    name_offset: e.name_offset,
                    offset,
                    size,
                },
                WKind::Dir { index } => {
                    let (first_child, count) = dir_ranges[index as usize];
                    RawNode::Dir {
                        name_offset: e.name_offset,
                        first_child,
                        count,
                        reserved: 0,
                    }
                }
            };
            out.extend_from_slice(&node.to_bytes());
        }
        out
    }
}

impl<W: Write> Write for ArchiveWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.append(buf)?;
        Ok(buf.len())
    }
    /// Flushes the archive's writer. The block being filled is not written: a block is
    /// compressed once it is full, or by [`ArchiveWriter::finish`].
    fn flush(&mut self) -> io::Result<()> {
        self.out.inner.flush()
    }
}

/// The name of `entry` in `table` (empty for the root).
fn name_in<'t>(table: &'t [u8], entry: &WEntry) -> &'t [u8] {
    if entry.name_offset == ROOT_NAME_OFFSET {
        return &[];
    }
    name_at(table, entry.name_offset)
}

/// The name whose entry starts at `offset` of the name table the writer made.
fn name_at(table: &[u8], offset: u32) -> &[u8] {
    names::decode_entry(table, offset as usize).map_or(&[], |r| &table[r])
}

/// A path as an error shows it: at most its first 200 bytes, then how long it is.
fn shortened(path: &[u8]) -> Vec<u8> {
    const SHOWN: usize = 200;
    if path.len() <= SHOWN {
        return path.to_vec();
    }
    let mut s = path[..SHOWN].to_vec();
    s.extend_from_slice(format!("... ({} bytes)", path.len()).as_bytes());
    s
}

fn entry_err(path: &[u8], reason: &str) -> ZarError {
    ZarError::Entry {
        path: names::display(path),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasherDefault, Hasher};

    /// Every key hashes alike: each one after the first is a collision.
    #[derive(Default)]
    struct OneHash;
    impl Hasher for OneHash {
        fn finish(&self) -> u64 {
            7
        }
        fn write(&mut self, _: &[u8]) {}
    }

    #[test]
    fn keys_whose_hashes_collide_are_kept_apart() {
        let mut map: HashedKeys<BuildHasherDefault<OneHash>> = HashedKeys::default();
        let keys: [&[u8]; 3] = [b"alpha", b"beta", b"gamma"];
        let holds = |v: u32| move |w: u32| w == v;
        for (v, k) in keys.iter().enumerate() {
            assert_eq!(map.get(k, |_| false), None);
            map.insert(k, v as u32);
        }
        // The holder of the hash is told by its value, the others are found whole.
        assert_eq!(map.get(b"alpha", holds(0)), Some(0));
        assert_eq!(map.get(b"beta", holds(1)), Some(1));
        assert_eq!(map.get(b"gamma", holds(2)), Some(2));
        assert_eq!(map.get(b"delta", holds(9)), None);
        // With the hash's holder removed, the spilled keys are still found.
        map.remove(b"alpha", 0);
        assert_eq!(map.get(b"alpha", holds(0)), None);
        assert_eq!(map.get(b"beta", holds(1)), Some(1));
        map.remove(b"gamma", 2);
        assert_eq!(map.get(b"gamma", holds(2)), None);
        assert_eq!(map.get(b"beta", holds(1)), Some(1));
        // A key inserted again after its removal.
        map.insert(b"alpha", 3);
        assert_eq!(map.get(b"alpha", holds(3)), Some(3));
    }

    fn tree_of(bytes: &[u8]) -> Vec<(String, Option<Vec<u8>>)> {
        let archive = crate::zar::Archive::from_read_at(bytes.to_vec()).expect("the archive reads");
        archive
            .walk()
            .map(|e| {
                let data = e.is_file().then(|| {
                    let mut data = Vec::new();
                    e.open().unwrap().read_to_end(&mut data).unwrap();
                    data
                });
                (String::from_utf8_lossy(&e.path()).into_owned(), data)
            })
            .collect()
    }

    /// Names are looked up in the name table, one copy of each: a name shared by entries
    /// of several directories, names equal ignoring case in one directory, and a file left
    /// out after a failed read whose name comes back later.
    #[test]
    fn entries_found_by_their_names_in_the_table() {
        struct Fails;
        impl Read for Fails {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("the disk failed"))
            }
        }
        let mut w = ArchiveWriter::new(Vec::new()).unwrap();
        w.add_dir("a").unwrap();
        w.add_dir("b").unwrap();
        w.add_file("a/same", &b"one"[..]).unwrap();
        w.add_file("b/same", &b"two"[..]).unwrap();
        let twice = w.add_file("a/SAME", &b"x"[..]).unwrap_err().to_string();
        assert!(twice.contains("named same was already added"), "{twice}");
        assert!(w.add_file("b/Same", &b"x"[..]).is_err());
        assert!(w.add_dir("A").is_err());
        let names = w.name_table.len();
        assert!(w.add_file("a/lost", Fails).is_err());
        assert_eq!(
            w.name_table.len(),
            names,
            "the name left the table with the file"
        );
        assert!(w.add_file("b/same/c", &b"x"[..]).is_err(), "same is a file");
        w.add_file("b/lost", &b"three"[..]).unwrap();
        w.add_dir_all("a/deep/er").unwrap();
        w.add_file("a/deep/er/same", &b"four"[..]).unwrap();
        let (bytes, summary) = w.finish().unwrap();
        assert_eq!((summary.files, summary.dirs), (4, 4));
        let tree = tree_of(&bytes);
        let want: Vec<(String, Option<Vec<u8>>)> = vec![
            ("a".into(), None),
            ("a/deep".into(), None),
            ("a/deep/er".into(), None),
            ("a/deep/er/same".into(), Some(b"four".to_vec())),
            ("a/same".into(), Some(b"one".to_vec())),
            ("b".into(), None),
            ("b/lost".into(), Some(b"three".to_vec())),
            ("b/same".into(), Some(b"two".to_vec())),
        ];
        let mut got = tree;
        got.sort();
        assert_eq!(got, want);
    }
}
