//! # zarkit — ZAR archives and a pure safe-Rust zstd codec
//!
//! Two worlds and one seam:
//!
//! * [`zstd`] — the zstd codec (`#![forbid(unsafe_code)]`): an encoder that aims at
//!   byte identity with libzstd 1.5.7's one-shot `ZSTD_compress`, and a decoder facade.
//! * [`zar`] — the ZAR v1 container (`.zar` / `.wua`, as written by Cemu's ZArchive tool):
//!   a validating reader, a streaming writer, directory pack / extract / verify.
//! * The seam is [`zar::BlockCompressor`]: the container compresses 64 KiB blocks through it,
//!   and the codec plugs in there like any user-supplied compressor.

#![deny(missing_docs)]

pub mod zar;
pub mod zstd;

pub use zar::{Archive, ArchiveWriter, BlockCompressor, Stored, ZarError};

/// The README's code examples, compiled and checked by `cargo test --doc`.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
