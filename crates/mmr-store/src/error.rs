//! Every failure of the store, each with its own process exit code.

use crate::Hash;
use std::path::PathBuf;

/// Every failure, each with its own process exit code ([`Error::code`], docs/error-codes.md
/// "The store"). On every error the store on disk is as it was before the call.
#[derive(Debug)]
pub enum Error {
    /// 40: the directory holds no store (no `meta`), or `meta` has another magic or a format
    /// version this build does not read.
    NotAStore {
        /// The directory.
        dir: PathBuf,
        /// What is missing or wrong.
        why: String,
    },
    /// 41: the store belongs to another accumulator (its recorded type id differs).
    OtherAccumulator {
        /// The accumulator recorded in the store.
        store: Hash,
        /// The accumulator the caller named.
        expected: Hash,
    },
    /// 42: a line of a leaves file is not one 32-byte leaf (64 hex digits, `0x` optional).
    BadLeaf {
        /// 1-based line number.
        line: u64,
        /// What is wrong with it.
        why: String,
    },
    /// 43: a leaf index at or beyond the leaf count of the size asked for.
    IndexBeyondSize {
        /// The index asked for.
        index: u64,
        /// The leaf count at that size.
        leaves: u64,
    },
    /// 44: a size that is zero, not the size of any MMR, or above 2^50.
    NotMmrSize(u64),
    /// 45: a size (or a node position) beyond what the store has committed: the node is not
    /// reachable.
    BeyondStore {
        /// The size asked for (a node position + 1 for a node).
        asked: u64,
        /// The store's committed mmr_size.
        store: u64,
    },
    /// 46: another process holds the store's writer lock.
    Locked(PathBuf),
    /// 47: the store's files contradict themselves: a checksum, a node that is not the merge
    /// of its children, a root that is not the bagging of its peaks, committed nodes missing.
    Corrupt(String),
    /// 48: an I/O error from the operating system.
    Io {
        /// What was being done.
        what: String,
        /// The OS error.
        err: std::io::Error,
    },
    /// 49: creating a store where one already is.
    AlreadyAStore(PathBuf),
    /// 50: nothing to work on: no leaf index given for a proof, or the root of an empty store.
    Empty(&'static str),
    /// 51: an append's new root is not the root the caller expected; nothing was committed.
    RootMismatch {
        /// The mmr_size after the append.
        mmr_size: u64,
        /// The root the caller expected.
        expected: Hash,
        /// The root the leaves give.
        computed: Hash,
    },
    /// 52: a pair of sizes for an append witness or an ancestry proof that is not old < new.
    SizeOrder {
        /// The old size.
        old: u64,
        /// The new size.
        new: u64,
    },
    /// 53: a write through a store opened read-only.
    ReadOnly,
}

impl Error {
    /// The process exit code of this error (docs/error-codes.md, "The store").
    pub fn code(&self) -> u8 {
        match self {
            Error::NotAStore { .. } => 40,
            Error::OtherAccumulator { .. } => 41,
            Error::BadLeaf { .. } => 42,
            Error::IndexBeyondSize { .. } => 43,
            Error::NotMmrSize(_) => 44,
            Error::BeyondStore { .. } => 45,
            Error::Locked(_) => 46,
            Error::Corrupt(_) => 47,
            Error::Io { .. } => 48,
            Error::AlreadyAStore(_) => 49,
            Error::Empty(_) => 50,
            Error::RootMismatch { .. } => 51,
            Error::SizeOrder { .. } => 52,
            Error::ReadOnly => 53,
        }
    }

    /// The name of this error's kind, as documented.
    pub fn name(&self) -> &'static str {
        match self {
            Error::NotAStore { .. } => "NotAStore",
            Error::OtherAccumulator { .. } => "OtherAccumulator",
            Error::BadLeaf { .. } => "BadLeaf",
            Error::IndexBeyondSize { .. } => "IndexBeyondSize",
            Error::NotMmrSize(_) => "NotMmrSize",
            Error::BeyondStore { .. } => "BeyondStore",
            Error::Locked(_) => "Locked",
            Error::Corrupt(_) => "Corrupt",
            Error::Io { .. } => "Io",
            Error::AlreadyAStore(_) => "AlreadyAStore",
            Error::Empty(_) => "Empty",
            Error::RootMismatch { .. } => "RootMismatch",
            Error::SizeOrder { .. } => "SizeOrder",
            Error::ReadOnly => "ReadOnly",
        }
    }

    pub(crate) fn io(what: impl Into<String>, err: std::io::Error) -> Error {
        Error::Io {
            what: what.into(),
            err,
        }
    }
}

/// `0x` and lowercase hex digits: how the store's messages and CLI print hashes.
pub fn hex(bytes: &[u8]) -> String {
    format!("0x{}", ::hex::encode(bytes))
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotAStore { dir, why } => {
                write!(f, "{} is not an MMR store: {why}", dir.display())
            }
            Error::OtherAccumulator { store, expected } => write!(
                f,
                "the store belongs to accumulator {}, not {}",
                hex(store),
                hex(expected)
            ),
            Error::BadLeaf { line, why } => write!(f, "line {line}: {why}"),
            Error::IndexBeyondSize { index, leaves } => write!(
                f,
                "leaf index {index} is beyond the MMR's {leaves} leaves"
            ),
            Error::NotMmrSize(size) => write!(
                f,
                "{size} is not an MMR size (zero, not 2n - popcount(n), or above 2^50)"
            ),
            Error::BeyondStore { asked, store } => write!(
                f,
                "size {asked} is beyond the store's committed mmr_size {store}"
            ),
            Error::Locked(dir) => write!(
                f,
                "{} is locked by another writer (one writer at a time; readers may open it read-only)",
                dir.display()
            ),
            Error::Corrupt(why) => write!(f, "the store is corrupt: {why}"),
            Error::Io { what, err } => write!(f, "{what}: {err}"),
            Error::AlreadyAStore(dir) => write!(f, "{} is already an MMR store", dir.display()),
            Error::Empty(what) => write!(f, "{what}"),
            Error::RootMismatch {
                mmr_size,
                expected,
                computed,
            } => write!(
                f,
                "the leaves give root {} at mmr_size {mmr_size}, not the expected {}: nothing appended",
                hex(computed),
                hex(expected)
            ),
            Error::SizeOrder { old, new } => {
                write!(f, "the old size {old} must be below the new size {new}")
            }
            Error::ReadOnly => write!(f, "the store is open read-only"),
        }
    }
}

impl std::error::Error for Error {}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
