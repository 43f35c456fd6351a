//! Decoding facade. Today the frames are decoded by `ruzstd`; callers only see these
//! functions, so our own decoder can replace it without touching them.

use super::ZstdError;
use ruzstd::decoding::FrameDecoder;

/// Largest window a frame may declare before we refuse it. Bounds the decoder's allocation
/// for hostile input; every standard level up to 19 fits (windowLog ≤ 23).
pub const MAX_WINDOW_SIZE: u64 = 1 << 23;

/// A reusable decoder context (keeps its buffers between calls).
pub struct Decoder {
    inner: FrameDecoder,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder").finish_non_exhaustive()
    }
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// A fresh decoder context.
    pub fn new() -> Self {
        let mut inner = FrameDecoder::new();
        inner.set_max_window_size(MAX_WINDOW_SIZE);
        Decoder { inner }
    }

    /// Decode every frame in `src` (skippable frames are skipped) into `dst`, which must be
    /// large enough; returns the number of bytes written.
    pub fn decompress_into(&mut self, src: &[u8], dst: &mut [u8]) -> Result<usize, ZstdError> {
        if src.is_empty() {
            return Err(ZstdError::Corrupt {
                reason: "no frame".into(),
            });
        }
        let limit = dst.len();
        self.inner.decode_all(src, dst).map_err(|e| match e {
            ruzstd::decoding::errors::FrameDecoderError::TargetTooSmall => {
                ZstdError::TooLarge { limit }
            }
            other => ZstdError::Corrupt {
                reason: other.to_string(),
            },
        })
    }

    /// Decode `src` into `dst`, requiring exactly `dst.len()` bytes of output.
    pub fn decompress_exact(&mut self, src: &[u8], dst: &mut [u8]) -> Result<(), ZstdError> {
        let expected = dst.len();
        let got = self.decompress_into(src, dst)?;
        if got != expected {
            return Err(ZstdError::SizeMismatch { expected, got });
        }
        Ok(())
    }
}

/// Decode all frames in `src`, allowing at most `limit` bytes of output.
pub fn decompress(src: &[u8], limit: usize) -> Result<Vec<u8>, ZstdError> {
    let mut out = vec![0u8; limit];
    let n = Decoder::new().decompress_into(src, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Decode all frames in `src` into `dst`, requiring exactly `dst.len()` bytes.
pub fn decompress_exact(src: &[u8], dst: &mut [u8]) -> Result<(), ZstdError> {
    Decoder::new().decompress_exact(src, dst)
}

/// Decode every frame in `src` (skippable frames are skipped), streaming the output into
/// `out` with memory bounded by the frames' window sizes; returns the bytes written.
pub fn decompress_to(mut src: &[u8], out: &mut impl std::io::Write) -> Result<u64, ZstdError> {
    use ruzstd::decoding::BlockDecodingStrategy;
    use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
    let corrupt = |e: &dyn std::fmt::Display| ZstdError::Corrupt {
        reason: e.to_string(),
    };
    let mut dec = FrameDecoder::new();
    dec.set_max_window_size(MAX_WINDOW_SIZE);
    let mut total = 0u64;
    if src.is_empty() {
        return Err(ZstdError::Corrupt {
            reason: "no frame".into(),
        });
    }
    while !src.is_empty() {
        match dec.init(&mut src) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                length,
                ..
            })) => {
                src = src
                    .get(length as usize..)
                    .ok_or_else(|| ZstdError::Corrupt {
                        reason: "truncated skippable frame".into(),
                    })?;
                continue;
            }
            Err(e) => return Err(corrupt(&e)),
        }
        while !dec.is_finished() {
            dec.decode_blocks(&mut src, BlockDecodingStrategy::UptoBytes(1 << 20))
                .map_err(|e| corrupt(&e))?;
            total += dec.collect_to_writer(&mut *out).map_err(|e| corrupt(&e))? as u64;
        }
        total += dec.collect_to_writer(&mut *out).map_err(|e| corrupt(&e))? as u64;
    }
    Ok(total)
}
