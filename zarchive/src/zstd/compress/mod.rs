//! Our zstd encoder, laid out like libzstd's `lib/compress/`: the frame and block drivers
//! (`frame`, `block`, `split`, `presplit`), the match finders of every strategy (`matcher`),
//! the window and its indices (`window`), the streaming context (`stream`), the sequence store and its entropy coding
//! (`seq_store`, `sequences`, `fse`), literals (`literals`, `huf`, `hist`), the bit writer
//! (`bits`) and the parameter tables (`params`).

pub(crate) mod bits;
pub(crate) mod block;
pub(crate) mod dict;
pub(crate) mod frame;
pub(crate) mod fse;
pub(crate) mod hist;
pub(crate) mod huf;
pub(crate) mod ldm;
pub(crate) mod literals;
pub(crate) mod matcher;
pub mod params;
pub(crate) mod presplit;
pub(crate) mod seq_store;
pub(crate) mod sequences;
pub(crate) mod split;
pub(crate) mod stream;
pub(crate) mod window;
