//! Long appends: hashing overlapped with the writes, and aligned blocks hashed on several
//! threads, with the bytes of the sequential append.

use crate::merge::{carry, hash_leaves};
use crate::{Error, Hash, Result};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;

/// syscall per leaf.
pub(crate) const WRITE_BUFFER: usize = 1 << 20;
/// Leaves hashed into one write buffer: a leaf adds itself and on average one parent (64
/// bytes), and a chunk at most 64 more parents than leaves.
pub(crate) const CHUNK_LEAVES: usize = WRITE_BUFFER / 64 - 64;
/// How far the writer lets writeback trail its writes before it waits. Waiting one buffer
/// behind kept the disk's queue short: 10^8 leaves appended at 0.77 of the merge rate, against
/// 0.93 with 8 buffers of lag and 0.94 with no wait at all (which leaves a whole commit, 64
/// MiB per 2^20 leaves, to the fsync). Measured with `mmr-store-scale --leaves 1e8 --hashers 2`.
const WRITEBACK_LAG: u64 = 8 * WRITE_BUFFER as u64;

/// Leaves of one block hashed by a worker: `2^BLOCK_LOG` leaves starting at a multiple of
/// that count are a perfect subtree whose `2^(BLOCK_LOG+1) - 1` nodes (1 MiB less one node)
/// are contiguous in the node file and depend on nothing before them.
const BLOCK_LOG: u32 = 14;
const BLOCK_LEAVES: usize = 1 << BLOCK_LOG;
/// Hashing threads at most (the machine's cores, if fewer).
pub(crate) const MAX_HASHERS: usize = 4;

/// Hashes `leaves` while another thread writes the previous buffers, so the write syscalls
/// (the kernel's copy into the page cache) and the start of writeback overlap the merges
/// instead of adding to them; returns the bytes written. The aligned blocks in the middle of
/// an append are hashed by one worker per core: a block's nodes need only its own leaves,
/// and the calling thread then carries each block's root into the peaks, in order (about one
/// merge per block), so the bytes are exactly those of [`hash_leaves`] over all the leaves.
/// Buffers circulate through a fixed pool, so memory stays flat.
pub(crate) fn write_pipelined(
    nodes: &File,
    offset: u64,
    leaves: &[Hash],
    peaks: &mut Vec<(u32, Hash)>,
    hashers: usize,
) -> Result<u64> {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc::{channel, sync_channel};
    use std::sync::Mutex;
    let before: u64 = peaks.iter().map(|p| 1u64 << p.0).sum();
    let head =
        ((BLOCK_LEAVES - (before % BLOCK_LEAVES as u64) as usize) % BLOCK_LEAVES).min(leaves.len());
    let (head, rest) = leaves.split_at(head);
    // One hasher: every leaf on the calling thread, in chunks (the tail's loop).
    let blocks = if hashers > 1 {
        rest.len() / BLOCK_LEAVES
    } else {
        0
    };
    let (middle, tail) = rest.split_at(blocks * BLOCK_LEAVES);
    let (free_tx, free_rx) = channel::<Vec<u8>>();
    // A buffer is taken and a block claimed under one lock, so the blocks are claimed in the
    // order buffers are handed out and the block the calling thread waits for always has one.
    // Every wait ends when the writer stops on an error (it drops the pool's sender and its
    // queue's receiver), and its join returns that error.
    let free = Mutex::new(free_rx);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = sync_channel::<Vec<u8>>(2);
        // Each hasher holds one, two queue for the writer, one it writes, one in reserve for
        // the block the calling thread waits for.
        for _ in 0..hashers + 4 {
            let _ = free_tx.send(Vec::with_capacity(WRITE_BUFFER + 64 * 64));
        }
        let io = scope.spawn(move || -> Result<u64> {
            let mut at = offset;
            for mut buf in full_rx {
                nodes
                    .write_all_at(&buf, at)
                    .map_err(|e| Error::io("writing the node file", e))?;
                // Start this buffer's writeback now, and wait for what lies more than
                // WRITEBACK_LAG behind it: the disk works while the merges run, and the fsync
                // before the commit record finds at most that much still to write instead of
                // the whole append. Advisory; any write error shows in that fsync.
                let fd = nodes.as_raw_fd();
                // SAFETY: plain syscalls on a descriptor borrowed for this scope.
                #[allow(unsafe_code)]
                unsafe {
                    libc::sync_file_range(
                        fd,
                        at as libc::off64_t,
                        buf.len() as libc::off64_t,
                        libc::SYNC_FILE_RANGE_WRITE,
                    );
                    if at > offset + WRITEBACK_LAG {
                        libc::sync_file_range(
                            fd,
                            offset as libc::off64_t,
                            (at - WRITEBACK_LAG - offset) as libc::off64_t,
                            libc::SYNC_FILE_RANGE_WAIT_BEFORE
                                | libc::SYNC_FILE_RANGE_WRITE
                                | libc::SYNC_FILE_RANGE_WAIT_AFTER,
                        );
                    }
                }
                at += buf.len() as u64;
                buf.clear();
                let _ = free_tx.send(buf);
            }
            Ok(at - offset)
        });
        let take = || free.lock().ok()?.recv().ok();
        let sequential = |chunk: &[Hash], peaks: &mut Vec<(u32, Hash)>| -> bool {
            let Some(mut buf) = take() else { return false };
            hash_leaves(chunk, peaks, &mut buf);
            full_tx.send(buf).is_ok()
        };
        let mut ok = head.is_empty() || sequential(head, peaks);
        if ok && blocks > 0 {
            let (done_tx, done_rx) = channel::<(usize, Vec<u8>, Hash)>();
            for _ in 0..hashers {
                let done_tx = done_tx.clone();
                let (free, next) = (&free, &next);
                scope.spawn(move || loop {
                    let (i, mut buf) = {
                        let Ok(rx) = free.lock() else { return };
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= blocks {
                            return;
                        }
                        let Ok(buf) = rx.recv() else { return };
                        (i, buf)
                    };
                    let mut local = Vec::with_capacity(BLOCK_LOG as usize + 1);
                    hash_leaves(
                        &middle[i * BLOCK_LEAVES..(i + 1) * BLOCK_LEAVES],
                        &mut local,
                        &mut buf,
                    );
                    debug_assert!(local.len() == 1 && local[0].0 == BLOCK_LOG);
                    if done_tx.send((i, buf, local[0].1)).is_err() {
                        return;
                    }
                });
            }
            drop(done_tx);
            let mut waiting = BTreeMap::new();
            let mut want = 0;
            'blocks: while want < blocks {
                let Ok((i, buf, root)) = done_rx.recv() else {
                    break;
                };
                waiting.insert(i, (buf, root));
                while let Some((mut buf, root)) = waiting.remove(&want) {
                    carry(peaks, BLOCK_LOG, root, &mut buf);
                    if full_tx.send(buf).is_err() {
                        break 'blocks;
                    }
                    want += 1;
                }
            }
            ok = want == blocks;
        }
        if ok {
            for chunk in tail.chunks(CHUNK_LEAVES) {
                if !sequential(chunk, peaks) {
                    break;
                }
            }
        }
        drop(full_tx);
        io.join()
            .unwrap_or_else(|_| Err(Error::Corrupt("the node writer thread panicked".into())))
    })
}
