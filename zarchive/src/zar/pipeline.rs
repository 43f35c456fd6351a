//! Parallel, ordered, memory-bounded block compression.
//!
//! Blocks go in numbered; workers (one [`BlockContext`] each, created once) compress them;
//! results come out in input order. Blocks travel in batches of [`BATCH`], so a worker wakes
//! once per batch rather than once per 64 KiB block (cheap blocks — zeros, stored data —
//! otherwise cost a context switch each). At most `2 × threads` batches are in flight, so
//! memory stays near `4 × threads × BATCH × 64 KiB` whatever the archive size, and every
//! buffer is recycled: no allocation per block. With one thread everything happens inline on
//! the caller's thread. The output is identical for every thread count because each block is
//! compressed independently and written in order.
//!
//! A compressor that panics on a worker thread has its panic carried to the caller's
//! thread (`resume_unwind`), as it panics there with one thread: the other workers then
//! finish and exit (before, they kept the results channel open and the caller waited for
//! the lost block forever).

use std::collections::BTreeMap;
use std::io;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::compressor::{BlockCompressor, BlockContext};
use super::format::BLOCK_SIZE;

/// Blocks handed to a worker at once (512 KiB of input).
const BATCH: usize = 8;

/// A block buffer, boxed so it moves between threads without copying, with the slack a
/// zstd context needs to read it in place.
pub(crate) type BlockBuf = crate::zstd::PaddedBlock;
const _: () = assert!(BlockBuf::LEN == BLOCK_SIZE);

/// One finished block: the input (for reuse, and for storing raw) and the compressor output.
pub(crate) struct Done {
    pub(crate) input: BlockBuf,
    pub(crate) output: Vec<u8>,
}

/// Blocks to compress: (sequence number, input, output buffer to reuse).
type Job = Vec<(u64, BlockBuf, Vec<u8>)>;
type JobResult = Vec<(u64, io::Result<Done>)>;
/// Where a worker leaves the payload of a compressor's panic for the caller's thread.
type PanicSlot = Arc<Mutex<Option<Box<dyn std::any::Any + Send>>>>;

pub(crate) enum Pipeline {
    Inline {
        ctx: Box<dyn BlockContext>,
        ready: Option<(u64, io::Result<Done>)>,
        /// The buffers of the block written last, for the next one.
        spare_input: Option<BlockBuf>,
        spare_output: Option<Vec<u8>>,
    },
    Threads(Workers),
}

pub(crate) struct Workers {
    jobs: Option<SyncSender<Job>>,
    results: Receiver<JobResult>,
    handles: Vec<JoinHandle<()>>,
    /// Blocks submitted but not sent yet (a batch being filled).
    batch: Job,
    /// Blocks sent to workers and not yet back.
    in_flight: usize,
    max_in_flight: usize,
    reorder: BTreeMap<u64, io::Result<Done>>,
    next_out: u64,
    spare: Vec<(BlockBuf, Vec<u8>)>,
    panic: PanicSlot,
}

impl Pipeline {
    /// Start a pipeline with `threads` compression contexts.
    pub(crate) fn new(
        compressor: Arc<dyn BlockCompressor>,
        threads: usize,
    ) -> io::Result<Pipeline> {
        let inline = |compressor: &Arc<dyn BlockCompressor>| -> io::Result<Pipeline> {
            Ok(Pipeline::Inline {
                ctx: compressor.context()?,
                ready: None,
                spare_input: None,
                spare_output: None,
            })
        };
        if threads <= 1 {
            return inline(&compressor);
        }
        let (job_tx, job_rx) = mpsc::sync_channel::<Job>(threads);
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (res_tx, res_rx) = mpsc::channel::<JobResult>();
        let panic = PanicSlot::default();
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let (rx, tx, comp) = (job_rx.clone(), res_tx.clone(), compressor.clone());
            let slot = panic.clone();
            match std::thread::Builder::new()
                .name(format!("zar-compress-{i}"))
                .spawn(move || worker(comp, rx, tx, slot))
            {
                Ok(h) => handles.push(h),
                // The system refused another thread: go on with those that started.
                Err(_) => break,
            }
        }
        if handles.is_empty() {
            return inline(&compressor);
        }
        let threads = handles.len();
        Ok(Pipeline::Threads(Workers {
            jobs: Some(job_tx),
            results: res_rx,
            handles,
            batch: Vec::with_capacity(BATCH),
            in_flight: 0,
            max_in_flight: 2 * threads * BATCH,
            reorder: BTreeMap::new(),
            next_out: 0,
            spare: Vec::new(),
            panic,
        }))
    }

    /// A buffer to fill with the next block (recycled when possible).
    pub(crate) fn buffer(&mut self) -> BlockBuf {
        match self {
            Pipeline::Threads(w) => w.spare.pop().map(|(b, _)| b),
            Pipeline::Inline { spare_input, .. } => spare_input.take(),
        }
        .unwrap_or_else(BlockBuf::new)
    }

    /// Hand back a finished block's buffers for reuse.
    pub(crate) fn recycle(&mut self, done: Done) {
        match self {
            Pipeline::Threads(w) => {
                if w.spare.len() < w.max_in_flight + BATCH {
                    w.spare.push((done.input, done.output));
                }
            }
            Pipeline::Inline {
                spare_input,
                spare_output,
                ..
            } => {
                *spare_input = Some(done.input);
                *spare_output = Some(done.output);
            }
        }
    }

    /// Submit block `seq` (numbered from 0 without gaps). May block until a slot frees up;
    /// finished blocks are then returned through [`Pipeline::next_done`].
    pub(crate) fn submit(&mut self, seq: u64, input: BlockBuf) -> io::Result<()> {
        match self {
            Pipeline::Inline {
                ctx,
                ready,
                spare_output,
                ..
            } => {
                debug_assert!(
                    ready.is_none(),
                    "the previous block must be taken before submitting"
                );
                let mut output = match spare_output.take() {
                    Some(mut o) => {
                        o.clear();
                        o
                    }
                    None => Vec::with_capacity(BLOCK_SIZE + 512),
                };
                let r = ctx
                    .compress_padded_block(&input, &mut output)
                    .map(|()| Done { input, output });
                *ready = Some((seq, r));
                Ok(())
            }
            Pipeline::Threads(w) => {
                let out = w.spare.pop().map(|(_, o)| o).unwrap_or_default();
                w.batch.push((seq, input, out));
                if w.batch.len() >= BATCH
                    && let Err(e) = w.send_batch()
                {
                    // Every worker gone: one that panicked takes the panic to the caller.
                    w.resume_panic();
                    return Err(e);
                }
                Ok(())
            }
        }
    }

    /// The next block in order if it is finished. With `wait`, blocks until it is, as long as
    /// anything is submitted; without, only waits when the in-flight limit is reached.
    pub(crate) fn next_done(&mut self, wait: bool) -> Option<(u64, io::Result<Done>)> {
        match self {
            Pipeline::Inline { ready, .. } => ready.take(),
            Pipeline::Threads(w) => loop {
                if let Some(r) = w.reorder.remove(&w.next_out) {
                    w.next_out += 1;
                    return Some((w.next_out - 1, r));
                }
                if wait && !w.batch.is_empty() {
                    // The block waited for may sit in the batch being filled.
                    if let Err(e) = w.send_batch() {
                        w.resume_panic();
                        w.batch.clear();
                        return Some((w.next_out, Err(e)));
                    }
                }
                if w.in_flight == 0 || !(wait || w.in_flight >= w.max_in_flight) {
                    return None;
                }
                let received = w.results.recv();
                w.resume_panic();
                match received {
                    Ok(results) => {
                        w.in_flight -= results.len();
                        w.reorder.extend(results);
                    }
                    Err(_) => {
                        w.in_flight = 0;
                        return Some((
                            w.next_out,
                            Err(io::Error::other(
                                "a compression thread stopped unexpectedly",
                            )),
                        ));
                    }
                }
            },
        }
    }
}

impl Workers {
    /// Carry a worker's panic to the caller's thread, if one panicked. The pipeline is
    /// closed first: a caller that catches the panic and goes on gets errors, never a wait
    /// for the blocks the dead worker took with it.
    fn resume_panic(&mut self) {
        let payload = self.panic.lock().ok().and_then(|mut p| p.take());
        if let Some(payload) = payload {
            self.jobs = None;
            self.in_flight = 0;
            self.batch.clear();
            std::panic::resume_unwind(payload);
        }
    }

    /// Send the batch being filled to the workers (blocks while all of them are busy and
    /// the queue is full).
    fn send_batch(&mut self) -> io::Result<()> {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        let n = batch.len();
        let tx = self
            .jobs
            .as_ref()
            .ok_or_else(|| io::Error::other("compression pipeline already closed"))?;
        tx.send(batch)
            .map_err(|_| io::Error::other("a compression thread stopped unexpectedly"))?;
        self.in_flight += n;
        Ok(())
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.jobs = None; // closes the queue: workers finish their block and exit
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

fn worker(
    compressor: Arc<dyn BlockCompressor>,
    jobs: Arc<Mutex<Receiver<Job>>>,
    results: mpsc::Sender<JobResult>,
    panic: PanicSlot,
) {
    // A context that cannot be created fails every block this worker takes.
    let mut ctx = compressor.context();
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(batch) = job else {
            return;
        };
        let mut done: JobResult = Vec::with_capacity(batch.len());
        for (seq, input, mut output) in batch {
            output.clear();
            let r = match &mut ctx {
                Ok(c) => {
                    let compressed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        c.compress_padded_block(&input, &mut output)
                    }));
                    match compressed {
                        Ok(r) => r.map(|()| Done { input, output }),
                        Err(payload) => {
                            // The caller's thread takes the panic over; this worker stops
                            // (its context may be half-way through a block).
                            if let Ok(mut slot) = panic.lock() {
                                slot.get_or_insert(payload);
                            }
                            done.push((
                                seq,
                                Err(io::Error::other("the block compressor panicked")),
                            ));
                            let _ = results.send(done);
                            return;
                        }
                    }
                }
                Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
            };
            done.push((seq, r));
        }
        if results.send(done).is_err() {
            return;
        }
    }
}
