//! A persistent MMR store for the app side of the accumulator (docs/accumulator-guide.md, "The app
//! side: the store").
//!
//! The MMR is the one the locks and the accumulator type script verify: leaves are 32-byte
//! values used as the leaf nodes, a parent is blake2b-256 ("ckb-default-hash") of
//! `left || right`, peaks are bagged from the right (`ckb-merkle-mountain-range` 0.6.1).
//! Every node hash is kept on disk by position, so roots, peaks, lock proofs, append
//! witnesses and ancestry proofs at the current size or at any earlier MMR size are read from
//! the nodes below that size, without rebuilding anything.
//!
//! A store is a directory:
//!
//! - `meta` (64 bytes): magic, format version, the accumulator the store belongs to (optional
//!   32 bytes), a checksum. Written once at creation and replaced atomically (write, fsync,
//!   rename) when the accumulator is set later.
//! - `nodes`: the node hashes, 32 bytes each, node `p` at offset `32 p`. Append-only.
//! - `commits`: the commit log, one 48-byte record per completed append: `mmr_size` (u64 LE),
//!   `root`, and 8 bytes of blake2b over both. The last valid record is the store's size.
//! - `lock`: an empty file the one writer holds an exclusive `flock` on.
//!
//! An append writes its nodes, fsyncs the node file, then appends and fsyncs the commit
//! record; nothing past the last record is ever served. On opening, a torn last record is
//! dropped and node bytes past the committed size are cut, so a writer killed at any moment
//! reopens at its last complete append. The last record's root is checked against the peaks
//! read from the node file on every open, and [`Store::check`] rehashes the whole file against
//! every recorded root.
//!
//! The MMR algorithms of the read side ([`nodes`]) work over a storage trait, [`NodeSource`];
//! the store is its one on-disk implementation. Files, one job each: `store` (open, recover,
//! state), `read` (queries at any size), `append` and `pipeline` (writing), `check` (the full
//! rehash), `format` (meta and commit records), `disk` (locks and atomic writes), `pos`
//! (positions), `merge` (the hash).
//!
//! Memory is flat in the MMR's size: the writer keeps the current peaks (at most 50) and, while
//! it appends, a fixed pool of 1 MiB write buffers (one per hashing thread and four more);
//! readers keep nothing but file handles.

mod append;
mod check;
mod disk;
mod error;
mod format;
pub mod leaves;
mod merge;
pub mod nodes;
mod pipeline;
mod pos;
mod proof;
mod read;
mod store;

pub use check::CheckReport;
pub use error::{hex, Error, Result};
pub use format::{files, FORMAT_VERSION, MAGIC, META_LEN, NODE_LEN, RECORD_LEN};
pub use leaves::{count_leaves, parse_indexes, parse_leaf_line, parse_leaves, LeafReader};
pub use merge::KernelMerge;
pub use nodes::NodeSource;
pub use pos::{leaves_of, node_pos, peak_positions};
pub use proof::{Commit, Proof};
pub use store::Store;

/// A 32-byte node hash (leaf value, inner node, peak, root).
pub type Hash = [u8; 32];
