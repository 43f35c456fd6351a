//! Our zstd decoder (RFC 8878), laid out like libzstd's `lib/decompress/`: frame and block
//! framing (`frame`), literals (`literals`, `huf`), sequences and their fused decode+execute
//! loop (`sequences`, `fse_table`, `copy`), bit readers (`bits`) and the window-bounded
//! streaming decoder (`stream`).
//!
//! Frame bytes are hostile: every size read from the input is checked before use, no
//! allocation depends on a size field beyond the window limit, and every problem is a typed
//! [`ZstdError`](super::ZstdError) naming the byte offset where it was found.

mod bits;
mod block;
pub(crate) mod copy;
pub(crate) mod dict;
pub(crate) mod frame;
pub(crate) mod fse_table;
pub(crate) mod huf;
mod literals;
mod sequences;
pub(crate) mod stream;

pub(crate) use super::dispatch::Isa;
use crate::zstd::common::format::REP_START_VALUE;
use dict::DictTables;
use fse_table::SeqTables;
use huf::HufTable;
use std::sync::Arc;

pub(crate) use crate::zstd::common::format::BLOCK_SIZE_MAX;
/// Bytes a fast copy may write or read past its end (`WILDCOPY_OVERLENGTH`).
pub(crate) const WILDCOPY_OVERLENGTH: usize = 32;
/// Literal buffer: the largest literal section plus room for wild copies to over-read.
pub(crate) const LIT_BUFFER_SIZE: usize = BLOCK_SIZE_MAX + 2 * WILDCOPY_OVERLENGTH;
/// Repeat offsets a frame starts with (`repStartValue`).
const REP_START: [usize; 3] = [
    REP_START_VALUE[0] as usize,
    REP_START_VALUE[1] as usize,
    REP_START_VALUE[2] as usize,
];

/// The decoding state carried from block to block inside a frame: literal buffer, Huffman
/// table, sequence tables, repeat offsets.
///
/// Mirrors the entropy part of ZSTD_DCtx (`ZSTD_entropyDTables_t`, `litBuffer`, `rep`).
///
/// A dictionary seeds every frame from here: its entropy tables are copied into `huf` and
/// `work.seq` with the `*_valid` flags set, its repeat offsets into `reps`, and its content
/// is the history before the frame's first byte (see `frame::Window::dict`).
pub(crate) struct DCtx {
    /// Sequence tables and literal buffer, in one allocation so the sequence loop reaches
    /// both from one address.
    work: WorkBox,
    huf: Box<HufTable>,
    /// A Huffman table is available for treeless literal sections (`litEntropy`).
    huf_valid: bool,
    /// That table is the dictionary's (read in place, never copied).
    huf_from_dict: bool,
    /// Which of the literal-length, offset and match-length tables are still the
    /// dictionary's: copied in only when a block repeats them.
    seq_from_dict: [bool; 3],
    /// Sequence tables are available for repeat mode (`fseEntropy`).
    fse_valid: bool,
    reps: [usize; 3],
    /// Largest window a frame may declare.
    pub(crate) max_window: u64,
    /// The dictionary every frame starts from (frames naming another are refused).
    pub(crate) dict: Option<Arc<DictTables>>,
    /// Frames must name the dictionary's ID (a frame naming none is refused too).
    pub(crate) dict_id_required: bool,
    /// A copy of the dictionary's content followed by room for a small output (see
    /// `frame::decompress_frames`), kept between calls.
    dict_scratch: Vec<u8>,
    /// The dictionary whose content `dict_scratch` starts with.
    scratch_dict: Option<Arc<DictTables>>,
    /// Code generation for the block loop, chosen once for this CPU.
    pub(crate) isa: Isa,
}

/// The per-block working memory of a context.
#[derive(Clone, Copy)]
struct Work {
    /// The sequence tables in use: built from a description or an RLE byte, or a copy of a
    /// predefined table; repeat mode keeps them as the previous block left them.
    seq: SeqTables,
    /// The block's literals, with room for wild copies to over-read.
    lit: [u8; LIT_BUFFER_SIZE],
    /// A copy of the block's sequence bitstream, so the hot loop's reloads need no bounds
    /// check.
    seq_stream: [u8; bits::STREAM_COPY_SIZE],
    /// Working memory of the sequence tables' builds.
    spread: fse_table::Spread,
}

/// A context's working memory before its first block: copied into each new context's
/// allocation (`Box<[T]>::from(&[T])` copies a `Copy` slice straight into its allocation),
/// where `Box::new` of a value this size (280 KiB) would build it on the stack first, too
/// much for a thread with a small stack.
static EMPTY_WORK: [Work; 1] = [Work {
    seq: SeqTables {
        ll: fse_table::SeqTable::EMPTY,
        of: fse_table::SeqTable::EMPTY,
        ml: fse_table::SeqTable::EMPTY,
    },
    lit: [0; LIT_BUFFER_SIZE],
    seq_stream: [0; bits::STREAM_COPY_SIZE],
    spread: fse_table::Spread::EMPTY,
}];

/// A context's [`Work`] on the heap, made without passing through the stack (see
/// [`EMPTY_WORK`]).
struct WorkBox(Box<[Work; 1]>);

impl WorkBox {
    fn new() -> Self {
        let Ok(work) = Box::<[Work]>::from(&EMPTY_WORK[..]).try_into() else {
            unreachable!("a copy of a one-element slice has one element")
        };
        WorkBox(work)
    }
}

impl std::ops::Deref for WorkBox {
    type Target = Work;
    fn deref(&self) -> &Work {
        let [work] = &*self.0;
        work
    }
}

impl std::ops::DerefMut for WorkBox {
    fn deref_mut(&mut self) -> &mut Work {
        let [work] = &mut *self.0;
        work
    }
}

impl std::fmt::Debug for DCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DCtx")
            .field("max_window", &self.max_window)
            .finish_non_exhaustive()
    }
}

impl DCtx {
    pub(crate) fn new(max_window: u64) -> Self {
        DCtx {
            work: WorkBox::new(),
            huf: Box::default(),
            huf_valid: false,
            huf_from_dict: false,
            seq_from_dict: [false; 3],
            fse_valid: false,
            reps: REP_START,
            max_window,
            dict: None,
            dict_id_required: false,
            dict_scratch: Vec::new(),
            scratch_dict: None,
            isa: Isa::detect(),
        }
    }

    /// Forget the previous frame's entropy and offsets (frames are independent), and start
    /// from the dictionary's when there is one.
    ///
    /// Mirrors ZSTD_decompressBegin_usingDDict (ZSTD_copyDDictParameters).
    pub(crate) fn reset_for_frame(&mut self) {
        match self.dict.as_ref().and_then(|d| d.entropy.as_ref()) {
            Some(e) => {
                // The tables stay in the dictionary until a block uses them (frames of a
                // few KiB cannot afford 34 KiB of copies each).
                self.huf_valid = true;
                self.huf_from_dict = true;
                self.fse_valid = true;
                self.seq_from_dict = [true; 3];
                self.reps = e.reps;
            }
            None => {
                self.huf_valid = false;
                self.huf_from_dict = false;
                self.fse_valid = false;
                self.seq_from_dict = [false; 3];
                self.reps = REP_START;
            }
        }
    }

    /// The dictionary IDs frames may name: none without a dictionary, its ID with one (0 for
    /// raw content).
    pub(crate) fn dict_ids(&self) -> frame::DictIds {
        match &self.dict {
            Some(d) if self.dict_id_required => frame::DictIds::Exactly(d.id),
            Some(d) => frame::DictIds::Only(d.id),
            None => frame::DictIds::Missing,
        }
    }
}
