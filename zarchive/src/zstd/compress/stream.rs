//! The streaming compressor: libzstd 1.5.7's `ZSTD_compressStream2` with one thread,
//! driven the way the `zstd` tool drives it.
//!
//! libzstd buffers input in `inBuff` (`windowSize + blockSize` bytes) and compresses one
//! chunk of up to a block whenever the buffer reaches its target (`ZSTD_compressContinue`),
//! or at a flush or the end. When the next block would not fit, it starts again at the
//! buffer's start: that input is not contiguous with the last, so the window's previous
//! segment becomes its extDict segment (`ZSTD_window_update`), and each new chunk written
//! over that segment's bytes removes them from it. At the end, a last input that fits the
//! caller's output buffer while `inBuff` is empty is compressed straight from the caller's
//! memory (`ZSTD_compressEnd`, possibly many blocks). Every one of those choices changes the
//! bytes, so this module keeps libzstd's buffer positions and output-space test as numbers
//! ([`Zcs`]) while the bytes themselves live in one growing slice the finders see whole,
//! with libzstd's indices.
//!
//! That slice would grow with the input; [`Window::shift_down`] lowers every index and
//! drops the oldest bytes once they lie below the window's low limit, a move libzstd does
//! not make but which changes no output byte.

use std::sync::Arc;

use super::block::{BLOCK_SIZE_MAX, EntropyTables};
use super::dict::PreparedDict;
use super::frame::{
    self, ChunkState, FrameChunk, FrameState, write_block_header, write_frame_header_with,
};
use super::huf::HufRepeat;
use super::ldm;
use super::matcher::source::PaddedBuffer;
use super::params::{self, CParams};
use super::split;
use super::window::{WINDOW_START_INDEX, Window};
use crate::zstd::common::format::BLOCK_RAW;
use crate::zstd::error::ZstdError;
use xxhash_rust::xxh64::Xxh64;

/// The size of the output buffer the `zstd` tool hands to every call
/// (`ZSTD_CStreamOutSize()`: `ZSTD_compressBound(128 KiB)` plus a block header and a
/// checksum). It decides whether libzstd takes its end-of-frame shortcut.
pub(crate) const OUT_BUFFER_SIZE: usize = compress_bound(BLOCK_SIZE_MAX) + 3 + 4;

/// What a call asks of the stream (`ZSTD_EndDirective`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EndOp {
    /// `ZSTD_e_continue`: take the input, compress full blocks only.
    Continue,
    /// `ZSTD_e_flush`: compress what is buffered too, as a block that does not end the frame.
    Flush,
    /// `ZSTD_e_end`: compress everything and end the frame.
    End,
}

/// `ZSTD_compressBound`.
pub(crate) const fn compress_bound(n: usize) -> usize {
    let margin = if n < BLOCK_SIZE_MAX {
        (BLOCK_SIZE_MAX - n) >> 11
    } else {
        0
    };
    n + (n >> 8) + margin
}

/// A streaming compression context (`ZSTD_CCtx` used through `ZSTD_compressStream2`): the
/// level, checksum flag and pledged size of the next frame, the frame in progress, and
/// buffers kept across frames.
pub(crate) struct StreamState {
    level: i32,
    checksum: bool,
    /// Whether a known size is written in the header (`ZSTD_c_contentSizeFlag`).
    content_size: bool,
    /// Whether a zstd-format dictionary's ID is written in the header (`ZSTD_c_dictIDFlag`).
    dict_id: bool,
    /// The size pledged for the next frame (`ZSTD_CCtx_setPledgedSrcSize`).
    pledged: Option<u64>,
    run: Option<Box<FrameRun>>,
    /// Why the frame in progress failed: every call says so until the session is reset
    /// (its bytes so far are no frame, and starting another quietly would hide that).
    failed: Option<String>,
    /// Bytes the calls of the frame in progress were given.
    given: u64,
    /// The dictionary loaded into the context (`ZSTD_CCtx_loadDictionary`), for every frame.
    dict: Option<Arc<PreparedDict>>,
    /// Long-distance matching asked for, with this window log
    /// (`ZSTD_c_enableLongDistanceMatching`, `ZSTD_c_windowLog`); without it libzstd
    /// still turns it on for btopt and above with a window of 2^27.
    long: Option<u32>,
    /// Whether the local CDict is made for the dedicated dictionary search where it
    /// applies (`ZSTD_c_enableDedicatedDictSearch`, which the `zstd` tool sets).
    dds: bool,
    /// `dict` prepared again as the context's local CDict where that differs from it (see
    /// `frame_dict`), and the `uid` of the dictionary it was prepared from.
    local_dict: Option<(u64, Arc<PreparedDict>)>,
    /// Boxed: the stream encoder is moved and held by value (the state is about 25 KiB).
    st: Box<FrameState>,
    /// The finders' slice, kept allocated across frames.
    spare: PaddedBuffer,
    /// The `uid` of the dictionary whose content `spare` starts with, if any.
    spare_dict: Option<u64>,
}

impl StreamState {
    pub(crate) fn new(level: i32, checksum: bool) -> Self {
        StreamState {
            level,
            checksum,
            content_size: true,
            dict_id: true,
            pledged: None,
            run: None,
            failed: None,
            given: 0,
            dict: None,
            long: None,
            dds: false,
            local_dict: None,
            st: Box::default(),
            spare: PaddedBuffer::default(),
            spare_dict: None,
        }
    }

    /// Whether a frame is in progress (some input taken, the end not yet asked for).
    pub(crate) fn in_frame(&self) -> bool {
        self.run.is_some() || self.failed.is_some()
    }

    /// Why the frame in progress failed, if it did.
    pub(crate) fn failed(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    /// Pledge the size of the next frame (`ZSTD_CCtx_setPledgedSrcSize`); only between frames.
    pub(crate) fn set_pledged(&mut self, size: Option<u64>) {
        debug_assert!(self.run.is_none());
        self.pledged = size;
    }

    pub(crate) fn set_checksum(&mut self, on: bool) {
        debug_assert!(self.run.is_none());
        self.checksum = on;
    }

    /// Whether the header of the next frames names their size when it is known
    /// (`ZSTD_c_contentSizeFlag`); only between frames.
    pub(crate) fn set_content_size(&mut self, on: bool) {
        debug_assert!(self.run.is_none());
        self.content_size = on;
    }

    /// Whether the header of the next frames names a zstd-format dictionary's ID
    /// (`ZSTD_c_dictIDFlag`); only between frames.
    pub(crate) fn set_dict_id(&mut self, on: bool) {
        debug_assert!(self.run.is_none());
        self.dict_id = on;
    }

    /// Long-distance matching with window log `window_log` for every frame, or off (then
    /// libzstd's automatic choice); only between frames.
    pub(crate) fn set_long(&mut self, window_log: Option<u32>) {
        debug_assert!(self.run.is_none());
        self.long = window_log;
    }

    /// Whether the dictionary is prepared for the dedicated dictionary search
    /// (`ZSTD_c_enableDedicatedDictSearch`); only between frames.
    pub(crate) fn set_dds(&mut self, on: bool) {
        debug_assert!(self.run.is_none());
        self.dds = on;
    }

    /// Compress every frame after `dict` (`ZSTD_CCtx_loadDictionary`, the level being the
    /// dictionary's); only between frames.
    pub(crate) fn set_dict(&mut self, dict: Option<Arc<PreparedDict>>) {
        debug_assert!(self.run.is_none());
        if let Some(pd) = &dict {
            self.level = pd.level;
        }
        self.dict = dict.filter(|pd| !pd.bytes.is_empty());
    }

    /// Drop the frame in progress, if any (`ZSTD_CCtx_reset(ZSTD_reset_session_only)`).
    pub(crate) fn reset_session(&mut self) {
        self.end_run();
        self.failed = None;
    }

    /// The frame is over (ended or failed): its buffers kept for the next, no size pledged.
    fn end_run(&mut self) {
        if let Some(run) = self.run.take() {
            self.spare = run.hist;
            self.spare_dict = run.hist_dict;
        }
        self.pledged = None;
    }

    /// One call of `ZSTD_compressStream2(input, op)` as the `zstd` tool makes it: calls
    /// with a fresh [`OUT_BUFFER_SIZE`]-byte output buffer until the input is taken
    /// (`Continue`), nothing is left to flush (`Flush`) or the frame is complete (`End`).
    /// The output is appended to `out`.
    pub(crate) fn call(
        &mut self,
        input: &[u8],
        op: EndOp,
        out: &mut Vec<u8>,
    ) -> Result<(), ZstdError> {
        if let Some(reason) = &self.failed {
            return Err(ZstdError::FrameFailed {
                reason: reason.clone(),
            });
        }
        if self.run.is_none() {
            self.init(op, input.len())?;
            self.given = 0;
        }
        self.given += input.len() as u64;
        let mut ip = 0;
        while let Some(run) = self.run.as_deref_mut() {
            let ended = match run.generic(&mut self.st, input, &mut ip, op, out) {
                Ok(ended) => ended,
                Err(e) => {
                    // The size the caller gave, not where in its buffering it was found.
                    let e = match e {
                        ZstdError::PledgedSizeMismatch { pledged, .. } => {
                            ZstdError::PledgedSizeMismatch {
                                pledged,
                                got: self.given,
                            }
                        }
                        e => e,
                    };
                    self.end_run();
                    self.failed = Some(e.to_string());
                    return Err(e);
                }
            };
            if ended {
                self.end_run();
                break;
            }
            let input_taken = ip == input.len();
            let done = match op {
                EndOp::Continue => input_taken,
                EndOp::Flush => input_taken && run.zcs.to_flush == 0,
                EndOp::End => false,
            };
            if done {
                break;
            }
        }
        Ok(())
    }

    /// The dictionary as the next frame uses it: the context's local CDict, made from the
    /// one loaded with the context's parameters (ZSTD_initLocalDict,
    /// ZSTD_createCDict_advanced2). That is the dictionary as it was prepared, unless
    /// - the dedicated dictionary search is on and applies (greedy, lazy and lazy2):
    ///   other parameters, other tables (see [`params::dds_cdict_cparams`]);
    /// - long-distance matching sets the window log: for a dictionary larger than the
    ///   level's own window (a 3 MB one at level 3, whose window is 2 MiB), that changes
    ///   the CDict's parameters, and so its tables.
    ///
    /// Prepared once per dictionary and parameters, kept for the frames after; fails with
    /// [`ZstdError::OutOfMemory`] when the dedicated search's tables cannot be allocated.
    fn frame_dict(&mut self) -> Result<Option<Arc<PreparedDict>>, ZstdError> {
        let Some(pd) = self.dict.as_ref() else {
            return Ok(None);
        };
        let dds = if self.dds {
            params::dds_cdict_cparams(pd.level, pd.bytes.len() as u64, self.long)
        } else {
            None
        };
        let cp = match (dds, self.long) {
            (Some(cp), _) => cp,
            (None, Some(window_log)) => params::cdict_cparams_from(
                CParams {
                    window_log,
                    ..pd.cp
                },
                pd.bytes.len() as u64,
            ),
            (None, None) => return Ok(Some(pd.clone())),
        };
        if dds.is_none() && cp == pd.cp {
            return Ok(Some(pd.clone()));
        }
        Ok(Some(match &self.local_dict {
            Some((uid, local))
                if *uid == pd.uid && local.cp == cp && local.dds.is_some() == dds.is_some() =>
            {
                local.clone()
            }
            _ => {
                let local = Arc::new(if dds.is_some() {
                    pd.with_dds(cp)?
                } else {
                    pd.with_cparams(cp)
                });
                self.local_dict = Some((pd.uid, local.clone()));
                local
            }
        }))
    }

    /// Mirrors ZSTD_CCtx_init_compressStream2 with one thread: the parameters for the
    /// pledged size (the input's size when the first call ends the frame), then
    /// ZSTD_compressBegin_internal and the buffer targets.
    fn init(&mut self, op: EndOp, in_size: usize) -> Result<(), ZstdError> {
        let pledged = if op == EndOp::End {
            Some(in_size as u64)
        } else {
            self.pledged
        };
        let dict = self.frame_dict()?;
        let dict_size = dict.as_ref().map_or(0, |pd| pd.bytes.len() as u64);
        // A dedicated-search CDict is always attached (ZSTD_getCParamMode: the parameters
        // are the source's alone).
        let always_attached = dict.as_ref().is_some_and(|pd| pd.dds.is_some());
        let cp = match (pledged, &dict, self.long) {
            (Some(n), Some(_), None) if always_attached => params::cparams(self.level, n),
            (Some(n), Some(_), Some(window_log)) if always_attached => {
                params::long_cparams(self.level, Some(n), window_log)
            }
            (_, None, Some(window_log)) => params::long_cparams(self.level, pledged, window_log),
            (Some(n), None, None) => params::cparams(self.level, n),
            (None, _, None) => params::cparams_unknown_size(self.level),
            (None, Some(_), Some(window_log)) => params::long_cparams(self.level, None, window_log),
            (Some(n), Some(pd), None) => {
                params::loaded_dict_cparams(&pd.cp, pd.level, n, dict_size)
            }
            (Some(n), Some(pd), Some(window_log)) => {
                params::loaded_dict_long_cparams(&pd.cp, pd.level, n, dict_size, window_log)
            }
        };
        // ZSTD_resolveEnableLdm.
        let ldm_on = self.long.is_some() || ldm::auto_enabled(&cp);
        // ZSTD_resetCCtx_internal: the window and block sizes, the input buffer.
        let window_size = match pledged {
            Some(n) => (1u64 << cp.window_log).min(n).max(1) as usize,
            None => 1 << cp.window_log,
        };
        let block_max = BLOCK_SIZE_MAX.min(window_size);
        let split_enabled = split::enabled(&cp);
        // The tables' room first: a failure leaves nothing half made.
        if dict.is_none() {
            self.st.ms.try_room(&cp)?;
        }
        if ldm_on {
            self.st.ms.try_ldm_room(&cp)?;
        }
        let mut hist = std::mem::take(&mut self.spare);
        let kept = self.spare_dict.take();
        // The dictionary's content starts the slice, kept from the last frame when it was
        // the same dictionary's (libzstd reads the CDict's content in place). The local
        // CDict is always attached or copied (it has no level of its own, so
        // ZSTD_compressBegin_internal never loads the dictionary into the context): the
        // long-distance finder starts empty, after the content.
        match &dict {
            Some(pd) if kept == Some(pd.uid) && hist.len() >= pd.content().len() => {
                hist.truncate(pd.content().len());
            }
            Some(pd) => {
                hist.clear();
                hist.append(pd.content());
            }
            None => hist.clear(),
        }
        let setup = match &dict {
            None => {
                self.st.ms.reset(&cp);
                *self.st.prev = EntropyTables::default();
                DictSetup {
                    cp,
                    window: Window::new(cp.window_log),
                    chunk: ChunkState::default(),
                    attach: false,
                    dict_id: 0,
                }
            }
            Some(pd) => setup_dict(&mut self.st, pd, cp.window_log, pledged, ldm_on),
        };
        if ldm_on {
            self.st.ms.enable_ldm(&setup.cp, &setup.window);
        }
        // The most the slice holds (see `shift_if_worthwhile`): the input buffer, the bytes
        // below the low limit kept until a shift is worth it, a last chunk. Reserved at
        // once, so growth never doubles it.
        let in_size = window_size + block_max;
        let most = in_size + shift_threshold(&cp, in_size) + 2 * block_max;
        let most = pledged.map_or(most, |n| most.min(n as usize));
        if hist.try_reserve(most).is_err() {
            self.spare = hist;
            self.spare_dict = dict.as_ref().map(|pd| pd.uid);
            return Err(ZstdError::OutOfMemory {
                what: "window buffer",
                bytes: most,
            });
        }
        let hist_dict = dict.as_ref().map(|pd| pd.uid);
        let run = FrameRun {
            cp: setup.cp,
            split_enabled,
            dict,
            attach: setup.attach,
            dict_id: if self.dict_id { setup.dict_id } else { 0 },
            pledged,
            content_size: self.content_size,
            checksum: self.checksum,
            block_max,
            zcs: Zcs {
                in_size,
                in_pos: 0,
                in_to_compress: 0,
                in_target: block_max + (Some(block_max as u64) == pledged) as usize,
                to_flush: 0,
            },
            header_written: false,
            frame_ended: false,
            consumed: 0,
            produced: 0,
            hasher: Xxh64::new(0),
            window: setup.window,
            chunk: setup.chunk,
            hist,
            hist_dict,
            phys: None,
        };
        self.run = Some(Box::new(run));
        Ok(())
    }
}

/// libzstd's streaming positions (`inBuffPos`, `inToCompress`, `inBuffTarget`,
/// `inBuffSize`) and the compressed bytes its `outBuff` still holds for the caller.
struct Zcs {
    in_size: usize,
    in_pos: usize,
    in_to_compress: usize,
    in_target: usize,
    /// Bytes of the last compressed chunk not yet handed over (`zcss_flush`).
    to_flush: usize,
}

/// Where the window's segments lie in libzstd's input buffer: finder positions of its
/// first byte for the prefix and for the extDict segment, and where the last chunk ended.
#[derive(Clone, Copy)]
struct Phys {
    prefix_pos0: i64,
    ext_pos0: i64,
    next: usize,
}

/// One frame in progress.
struct FrameRun {
    cp: CParams,
    split_enabled: bool,
    /// The context's dictionary, and whether it is attached (its tables read in place)
    /// rather than copied.
    dict: Option<Arc<PreparedDict>>,
    attach: bool,
    /// The dictionary ID the header names (0: none).
    dict_id: u32,
    pledged: Option<u64>,
    /// Whether the header names the pledged size.
    content_size: bool,
    checksum: bool,
    block_max: usize,
    zcs: Zcs,
    header_written: bool,
    /// The last chunk was compressed; its bytes may still wait in `outBuff`.
    frame_ended: bool,
    consumed: u64,
    produced: u64,
    hasher: Xxh64,
    window: Window,
    chunk: ChunkState,
    /// Every byte the window may still reach, then the input taken and not yet compressed
    /// (`inBuff[inToCompress..inBuffPos]`); finder position 0 has index [`Window::base`].
    /// The finders read it unchecked while it is at most 128 MiB (see [`PaddedBuffer`]).
    hist: PaddedBuffer,
    /// The `uid` of the dictionary whose content `hist` starts with, until bytes are
    /// dropped from its front.
    hist_dict: Option<u64>,
    /// The last chunk's place in libzstd's input buffer; `None` before the first chunk.
    phys: Option<Phys>,
}

/// Where a chunk's bytes are in libzstd's memory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// At this offset of the input buffer.
    Buffer(usize),
    /// In the caller's input (the end-of-frame shortcut).
    Caller,
}

impl FrameRun {
    /// Mirrors one ZSTD_compressStream_generic call with an output buffer of
    /// [`OUT_BUFFER_SIZE`] bytes, of which `op` are used. Returns whether the frame ended.
    fn generic(
        &mut self,
        st: &mut FrameState,
        input: &[u8],
        ip: &mut usize,
        end_op: EndOp,
        out: &mut Vec<u8>,
    ) -> Result<bool, ZstdError> {
        let mut op = 0usize;
        loop {
            if self.zcs.to_flush > 0 {
                // zcss_flush.
                let flushed = self.zcs.to_flush.min(OUT_BUFFER_SIZE - op);
                op += flushed;
                self.zcs.to_flush -= flushed;
                if self.zcs.to_flush > 0 {
                    return Ok(false);
                }
                if self.frame_ended {
                    return Ok(true);
                }
            }
            // zcss_load.
            let rest = &input[*ip..];
            if end_op == EndOp::End
                && OUT_BUFFER_SIZE - op >= compress_bound(rest.len())
                && self.zcs.in_pos == 0
            {
                // The shortcut: the rest goes straight from the caller's memory.
                self.hist.append(rest);
                let c_size = self.compress_chunk(st, Source::Caller, rest.len(), true, out)?;
                *ip = input.len();
                debug_assert!(c_size <= OUT_BUFFER_SIZE - op);
                return Ok(true);
            }
            let load = (self.zcs.in_target - self.zcs.in_pos).min(rest.len());
            // Loaded input waits at the end of the finders' slice.
            self.hist.append(&rest[..load]);
            self.zcs.in_pos += load;
            *ip += load;
            if end_op == EndOp::Continue && self.zcs.in_pos < self.zcs.in_target {
                return Ok(false);
            }
            if end_op == EndOp::Flush && self.zcs.in_pos == self.zcs.in_to_compress {
                return Ok(false);
            }
            let i_size = self.zcs.in_pos - self.zcs.in_to_compress;
            let direct = OUT_BUFFER_SIZE - op >= compress_bound(i_size);
            let last = end_op == EndOp::End && *ip == input.len();
            let from = Source::Buffer(self.zcs.in_to_compress);
            let c_size = self.compress_chunk(st, from, i_size, last, out)?;
            self.zcs.in_target = self.zcs.in_pos + self.block_max;
            if self.zcs.in_target > self.zcs.in_size {
                self.zcs.in_pos = 0;
                self.zcs.in_target = self.block_max;
            }
            self.zcs.in_to_compress = self.zcs.in_pos;
            if direct {
                op += c_size;
                if last {
                    return Ok(true);
                }
            } else {
                self.zcs.to_flush = c_size;
                self.frame_ended = last;
            }
        }
    }

    /// Mirrors ZSTD_compressContinue_internal (and, for the last chunk, ZSTD_compressEnd's
    /// epilogue): the frame header before the first chunk, the window update, the chunk's
    /// blocks, the size checks. The chunk is the last `len` bytes of the finders' slice.
    /// Returns the bytes appended to `out`.
    fn compress_chunk(
        &mut self,
        st: &mut FrameState,
        from: Source,
        len: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, ZstdError> {
        let out_start = out.len();
        if !self.header_written {
            let window_log = self.cp.window_log;
            // ZSTD_writeFrameHeader: without the content size flag, a known size is left
            // out as an unknown one is (no single segment: the window is named).
            let size = self.pledged.filter(|_| self.content_size);
            write_frame_header_with(out, window_log, size, self.dict_id, self.checksum);
            self.header_written = true;
        }
        let header_size = out.len() - out_start;
        if let Some(pledged) = self.pledged
            && self.consumed + len as u64 > pledged
        {
            return Err(ZstdError::PledgedSizeMismatch {
                pledged,
                got: self.consumed + len as u64,
            });
        }
        let end = self.hist.len();
        if len > 0 {
            self.update_window(st, from, len);
            if self.checksum {
                self.hasher.update(&self.hist.as_slice()[end - len..]);
            }
            let job = FrameChunk {
                padded: self.hist.view(),
                buf: self.hist.as_slice(),
                range: end - len..end,
                last,
                savings: self.consumed as i64 - self.produced as i64,
                block_size_max: self.block_max,
                split_enabled: self.split_enabled,
            };
            let blocks_start = out.len();
            let attached = match &self.dict {
                Some(pd) if self.attach && !pd.content().is_empty() => {
                    Some(frame::attached_tables(pd))
                }
                _ => None,
            };
            frame::compress_frame_chunk(
                st,
                &self.cp,
                job,
                &mut self.window,
                attached.as_ref(),
                &mut self.chunk,
                out,
            );
            // A correction of libzstd's indices moved the finders' first position.
            let moved = self.window.take_origin();
            self.drop_front(moved);
            self.consumed += len as u64;
            self.produced += (out.len() - blocks_start + header_size) as u64;
            self.shift_if_worthwhile(st);
        } else {
            self.produced += header_size as u64;
        }
        if last {
            if let Some(pledged) = self.pledged
                && self.consumed != pledged
            {
                return Err(ZstdError::PledgedSizeMismatch {
                    pledged,
                    got: self.consumed,
                });
            }
            // ZSTD_writeEpilogue: an empty last block when no block ended the frame.
            if len == 0 {
                write_block_header(out, true, BLOCK_RAW, 0);
            }
            if self.checksum {
                let digest = self.hasher.digest() as u32;
                out.extend_from_slice(&digest.to_le_bytes());
            }
        }
        Ok(out.len() - out_start)
    }

    /// Mirrors ZSTD_window_update for a chunk of `len` bytes at `from`, and the restart of
    /// table insertion at a new segment.
    fn update_window(&mut self, st: &mut FrameState, from: Source, len: usize) {
        // The chunk is already at the end of the slice.
        let pos = (self.hist.len() - len) as i64;
        let Some(phys) = self.phys else {
            // The first chunk: `Window::new` is the window after its update.
            if let Source::Buffer(at) = from {
                self.phys = Some(Phys {
                    prefix_pos0: pos - at as i64,
                    ext_pos0: pos - at as i64,
                    next: at + len,
                });
            }
            return;
        };
        let contiguous = from == Source::Buffer(phys.next);
        if !contiguous {
            let next = self.window.index(pos as usize);
            self.window.start_segment(next);
            st.ms.resume_at_prefix(&self.window);
        }
        let Source::Buffer(at) = from else {
            // The caller's memory never overlaps the input buffer.
            self.phys = None;
            return;
        };
        let ext_pos0 = if contiguous {
            phys.ext_pos0
        } else {
            phys.prefix_pos0
        };
        self.phys = Some(Phys {
            prefix_pos0: pos - at as i64,
            ext_pos0,
            next: at + len,
        });
        // Input written over the extDict segment's bytes takes them out of it.
        let w = &self.window;
        let ext_start = w.pos_of(w.low_limit()) as i64 - ext_pos0;
        let ext_end = w.pos_of(w.dict_limit()) as i64 - ext_pos0;
        let (start, end) = (at as i64, (at + len) as i64);
        if end > ext_start && start < ext_end {
            let overwritten_end = w.index((ext_pos0 + end) as usize);
            self.window.drop_overwritten(overwritten_end);
            st.ms.drop_overwritten(overwritten_end);
        }
    }

    /// Drop the first `n` finder positions (their indices were lowered).
    fn drop_front(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        self.hist.drop_front(n);
        self.hist_dict = None;
        if let Some(p) = &mut self.phys {
            p.prefix_pos0 -= n as i64;
            p.ext_pos0 -= n as i64;
        }
    }

    /// Lower the indices and drop the bytes below the window's low limit once they are
    /// at least a whole buffer (and a cycle) long, so the slice stays within about twice
    /// libzstd's input buffer.
    fn shift_if_worthwhile(&mut self, st: &mut FrameState) {
        if self.window.dict_loaded() {
            // An attached dictionary's content sits at the slice's start.
            return;
        }
        let cycle_log = frame::cycle_log(&self.cp);
        let free = self.window.free_shift(cycle_log);
        if (free as usize) < shift_threshold(&self.cp, self.zcs.in_size) {
            return;
        }
        self.window.shift_down(free);
        st.ms.reduce_index(&self.cp, free, free as usize);
        self.drop_front(free as usize);
    }
}

/// A frame's start after a dictionary was loaded into the context.
struct DictSetup {
    cp: CParams,
    window: Window,
    chunk: ChunkState,
    attach: bool,
    dict_id: u32,
}

/// Mirrors ZSTD_resetCCtx_usingCDict for the context's local CDict `pd` (made from the
/// loaded dictionary at the context's level): attached when the size is unknown or small
/// (ZSTD_shouldAttachDict; the context's tables sized for the source alone, the window
/// starting after the content), else its tables copied and its content the extDict
/// segment; its entropy tables and repeat offsets seed the first block. As
/// `compress_frame_cdict` does for one call.
fn setup_dict(
    st: &mut FrameState,
    pd: &PreparedDict,
    window_log: u32,
    pledged: Option<u64>,
    ldm_on: bool,
) -> DictSetup {
    let content_len = pd.content().len();
    let cp = CParams {
        window_log,
        ..pd.cp
    };
    // A dedicated-search CDict is attached whatever the size (ZSTD_shouldAttachDict), the
    // context's own tables sized without its buckets.
    let (attach, attached_cp) = match pd.dds {
        Some(_) => (true, params::dds_revert(pd.cp)),
        None => (
            pledged.is_none_or(|n| n <= params::attach_dict_cutoff(pd.cp.strategy)),
            pd.cp,
        ),
    };
    // ZSTD_adjustCParams_internal in ZSTD_cpm_attachDict mode: an unknown size leaves the
    // CDict's parameters as they are (no cap from ZSTD_dictAndWindowLog).
    let own = CParams {
        window_log,
        ..pledged.map_or(attached_cp, |n| params::adjust(attached_cp, n))
    };
    // Frames of a known size with the dictionary attached go on past the last one's
    // indices where the finder allows (`MatchState::reset_attached`); not with the
    // long-distance finder, which starts afresh at the frame's base.
    let mut base = WINDOW_START_INDEX;
    match pledged.and_then(|n| usize::try_from(n).ok()) {
        Some(n) if attach && content_len > 0 && !ldm_on => {
            base = st
                .ms
                .reset_attached(&own, pd.lazy_row(), content_len.saturating_add(n), n);
        }
        _ if attach => st.ms.reset_with_row(&own, pd.lazy_row()),
        _ => st.ms.copy_tables_from(&pd.tables, &cp, content_len),
    }
    let mut chunk = ChunkState::default();
    match &pd.start {
        Some(start) => {
            if start.entropy.huf.repeat == HufRepeat::Valid {
                st.ms.seed_from_dict(&start.entropy);
            }
            (*st.prev).clone_from(&start.entropy);
            chunk.prev_rep = start.reps;
        }
        None => *st.prev = EntropyTables::default(),
    }
    let window = if attach && content_len > 0 {
        Window::attached(window_log, content_len, base)
    } else if content_len == 0 {
        Window::new(window_log)
    } else {
        Window::with_dict(window_log, content_len)
    };
    DictSetup {
        cp: if attach { own } else { cp },
        window,
        chunk,
        attach,
        dict_id: pd.start.as_ref().map_or(0, |s| s.id),
    }
}

/// Smallest shift worth a pass over the tables.
const MIN_SHIFT: usize = 1 << 20;

/// The bytes below the low limit kept before they are dropped: a whole input buffer and a
/// whole cycle at least, so the pass over the tables costs little per byte.
fn shift_threshold(cp: &CParams, in_size: usize) -> usize {
    in_size.max(1 << frame::cycle_log(cp)).max(MIN_SHIFT)
}
