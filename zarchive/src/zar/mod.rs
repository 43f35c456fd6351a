//! The ZAR v1 container (`.zar` / `.wua`).
//!
//! * [`Archive`] opens and validates an archive, looks entries up and reads them;
//! * [`ArchiveWriter`] writes one, streaming, to any `Write`, compressing blocks in parallel;
//! * [`pack_dir`], [`extract()`] and [`verify()`] are the directory-level operations the CLI uses.

mod atomic;
mod compressor;
mod dictionary;
mod dirs;
mod error;
mod extract;
pub mod format;
mod merge;
mod mmap;
pub mod names;
mod pack;
mod pipeline;
mod reader;
mod source;
mod verify;
mod writer;
pub mod wua;

pub use atomic::{
    PartialFile, PartialsRemoved, TEMP_NAME_KEPT, partial_gate, remove_partial_files, temp_prefix,
};
pub use compressor::{
    BlockCompressor, BlockContext, BlockDecodeContext, BlockDecompressor, REFERENCE_LEVEL, Stored,
    Zstd, ZstdDecompressor, ZstdWithDictionary,
};
pub use dictionary::DictionaryChoice;
pub use error::{ExtractFailure, ZarError};
pub use extract::{ExtractEvent, ExtractOptions, ExtractSummary, extract};
pub use merge::{Source, merge, merge_to};
pub use names::UnsafeName;
pub use pack::{
    PackEvent, PackOptions, PackSummary, PackWarning, is_special_file, pack_dir, pack_dir_to,
    resolve_link_to_file,
};
pub use reader::{
    Archive, ArchiveDictionary, DEFAULT_CACHE_BLOCKS, DecodedBlock, Entry, EntryId, EntryKind,
    FileReader, OpenOptions, Walk, looks_like_archive,
};
pub use source::ReadAt;
pub use verify::{BlockProblem, VerifyEvent, VerifyOptions, VerifyReport, verify};
pub use writer::{ArchiveWriter, MAX_THREADS, WriteSummary, WriteWarning, WriterOptions};
