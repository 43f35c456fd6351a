//! What the compressor and the decompressor share, each definition once and named after the
//! libzstd one it mirrors: the format's constants (`format`) and the sequence codes with
//! their predefined distributions (`seq_codes`).

pub(crate) mod format;
pub(crate) mod kept;
pub(crate) mod seq_codes;
