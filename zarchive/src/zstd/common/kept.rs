//! The working memory a thread's one-shot calls keep between them (`zstd::compress`'s
//! frame state, `zstd::decompress`'s context): making it costs more than a small frame.
//! libzstd's one-shot calls leave their buffers uninitialised instead; safe Rust zeroes
//! them.

use std::cell::Cell;
use std::thread::LocalKey;

/// A thread's kept value, taken out while a call uses it.
pub(crate) type Slot<T> = LocalKey<Cell<Option<T>>>;

/// Take this thread's kept value, or make a new one (none is kept, one is in use by an
/// outer call, or the thread is ending).
pub(crate) fn take<T: Default>(slot: &'static Slot<T>) -> T {
    slot.try_with(Cell::take).ok().flatten().unwrap_or_default()
}

/// Keep `value` for this thread's next call. While the thread ends it is dropped instead.
pub(crate) fn put_back<T>(slot: &'static Slot<T>, value: T) {
    let _ = slot.try_with(|s| s.set(Some(value)));
}
