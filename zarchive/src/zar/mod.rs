//! The ZAR v1 container (`.zar` / `.wua`).
//!
//! * [`Archive`] opens and validates an archive, looks entries up and reads them;
//! * [`ArchiveWriter`] writes one, streaming, to any `Write`, compressing blocks in parallel;
//! * [`pack`], [`extract`] and [`verify`] are the directory-level operations the CLI uses.

mod compressor;
mod error;
mod extract;
pub mod format;
mod mmap;
mod pack;
pub mod names;
mod pipeline;
mod reader;
mod source;
mod verify;
mod writer;

pub use compressor::{BlockCompressor, BlockContext, Stored, Zstd, REFERENCE_LEVEL};
pub use error::ZarError;
pub use names::UnsafeName;
pub use reader::{Archive, Entry, EntryId, EntryKind, FileReader, OpenOptions, Walk, DEFAULT_CACHE_BLOCKS};
pub use source::ReadAt;
pub use writer::{ArchiveWriter, Summary, Warning, WriterOptions};
pub use extract::{extract, ExtractEvent, ExtractOptions, ExtractSummary};
pub use pack::{pack_dir, pack_dir_to, PackEvent, PackOptions, PackSummary, PackWarning};
pub use verify::{verify, BlockProblem, VerifyReport};
