//! A persistent MMR store for the app side of the accumulator (docs/accumulator.md, "The app
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
//! Memory is flat in the MMR's size: the writer keeps the current peaks (at most 50) and, while
//! it appends, a fixed pool of 1 MiB write buffers (one per hashing thread and four more);
//! readers keep nothing but file handles.

use mmr_accumulator::build;
use mmr_lock::mmr::{leaf_count, leaf_index_to_pos, mmr_size_of, MAX_MMR_SIZE};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

pub mod leaves;

pub use leaves::{parse_indexes, parse_leaf_line, parse_leaves, LeafReader};

/// A 32-byte node hash (leaf value, inner node, peak, root).
pub type Hash = [u8; 32];

/// First 8 bytes of `meta`.
pub const MAGIC: [u8; 8] = *b"CKBMMRST";
/// The on-disk format this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes of the `meta` file.
pub const META_LEN: usize = 64;
/// Bytes of one commit record: mmr_size (8), root (32), check (8).
pub const RECORD_LEN: usize = 48;
/// Bytes of one node in the node file.
pub const NODE_LEN: u64 = 32;

/// File names inside a store directory.
pub mod files {
    /// Magic, version, accumulator identity.
    pub const META: &str = "meta";
    /// Node hashes by position.
    pub const NODES: &str = "nodes";
    /// The commit log.
    pub const COMMITS: &str = "commits";
    /// The writer's lock file.
    pub const LOCK: &str = "lock";
    /// The TypeScript kit's writer lock (Node has no flock): "PID HOST", created exclusively.
    pub const KIT_LOCK: &str = "lock.pid";
}

/// Write buffer of an append: nodes reach the file in writes of this many bytes, not one
/// syscall per leaf.
const WRITE_BUFFER: usize = 1 << 20;
/// Leaves hashed into one write buffer: a leaf adds itself and on average one parent (64
/// bytes), and a chunk at most 64 more parents than leaves.
const CHUNK_LEAVES: usize = WRITE_BUFFER / 64 - 64;
/// How far the writer lets writeback trail its writes before it waits. Waiting one buffer
/// behind kept the disk's queue short: 10^8 leaves appended at 0.77 of the merge rate, against
/// 0.93 with 8 buffers of lag and 0.94 with no wait at all (which leaves a whole commit, 64
/// MiB per 2^20 leaves, to the fsync). Measured with `mmr-store-scale --leaves 1e8 --hashers 2`.
const WRITEBACK_LAG: u64 = 8 * WRITE_BUFFER as u64;

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

    fn io(what: impl Into<String>, err: std::io::Error) -> Error {
        Error::Io {
            what: what.into(),
            err,
        }
    }
}

/// `0x` and lowercase hex digits.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * bytes.len());
    s.push_str("0x");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
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

/// The MMR merge on the host: blake2b-256 "ckb-default-hash" of `left || right`, through
/// `mmr-blake2b`'s specialised 32+32-byte merge kernel (not the reference blake2b-rs, which
/// the tests hash with). Implements the merge traits of the accumulator builders and of
/// `ckb-merkle-mountain-range`.
pub struct KernelMerge;

impl mmr_accumulator::Merge for KernelMerge {
    fn merge(left: &Hash, right: &Hash, out: &mut Hash) {
        mmr_blake2b::merge_into(left, right, out);
    }
}

impl ckb_merkle_mountain_range::Merge for KernelMerge {
    type Item = Hash;

    fn merge(left: &Hash, right: &Hash) -> ckb_merkle_mountain_range::Result<Hash> {
        Ok(mmr_blake2b::merge(left, right))
    }
}

/// The position of the node covering leaves `[first, first + 2^height)` (`first` a multiple
/// of `2^height`): the last of those leaves is followed by its `height` ancestors.
pub fn node_pos(first: u64, height: u32) -> u64 {
    leaf_index_to_pos(first + (1u64 << height) - 1) + height as u64
}

/// The positions of the peaks of an MMR of `leaves` leaves, left to right.
pub fn peak_positions(leaves: u64) -> Vec<u64> {
    build::peak_nodes(leaves)
        .into_iter()
        .map(|(first, h)| node_pos(first, h))
        .collect()
}

/// The leaf count of `mmr_size`, or [`Error::NotMmrSize`].
pub fn leaves_of(mmr_size: u64) -> Result<u64> {
    leaf_count(mmr_size).ok_or(Error::NotMmrSize(mmr_size))
}

/// A completed append (or the store's state): size, leaf count and root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commit {
    /// The MMR's size in nodes.
    pub mmr_size: u64,
    /// Its leaf count.
    pub leaf_count: u64,
    /// Its root.
    pub root: Hash,
}

impl Commit {
    /// The 40-byte commitment (`root || mmr_size` LE): the accumulator cell's data and the
    /// plain-mode lock args.
    pub fn to_bytes(&self) -> [u8; 40] {
        let mut out = [0u8; 40];
        out[..32].copy_from_slice(&self.root);
        out[32..].copy_from_slice(&self.mmr_size.to_le_bytes());
        out
    }
}

/// A membership proof for some leaves at some size, in `MMR::gen_proof` item order: what the
/// lock payloads are encoded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    /// The MMR size proved against.
    pub mmr_size: u64,
    /// Its leaf count.
    pub leaf_count: u64,
    /// Its root (the recorded root when the size was committed).
    pub root: Hash,
    /// The proved leaves as (MMR position, value), sorted by position, no duplicates.
    pub proved: Vec<(u64, Hash)>,
    /// The proof items.
    pub items: Vec<Hash>,
}

impl Proof {
    /// The baseline verifier's payload (docs/baseline-format.md).
    pub fn baseline_payload(&self) -> Vec<u8> {
        baseline_proof::encode(&self.proved, &self.items)
    }

    /// The compiled verifiers' payload (docs/compiled-format.md), Rust and C alike.
    pub fn compiled_payload(&self) -> Result<Vec<u8>> {
        compiled_proof::compile(self.mmr_size, &self.items, &self.proved)
            .map_err(|e| Error::Corrupt(format!("compiling the proof: {e:?}")))
    }

    /// The proved leaf indexes, ascending.
    pub fn indexes(&self) -> Vec<u64> {
        self.proved
            .iter()
            .map(|(pos, _)| mmr_lock::mmr::leaf_pos_to_index(*pos).unwrap_or(u64::MAX))
            .collect()
    }

    /// Recomputes the root from the leaves and items (upstream `MerkleProof`).
    pub fn computed_root(&self) -> Option<Hash> {
        ckb_merkle_mountain_range::MerkleProof::<Hash, KernelMerge>::new(
            self.mmr_size,
            self.items.clone(),
        )
        .calculate_root(self.proved.clone())
        .ok()
    }
}

/// What [`Store::check`] went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckReport {
    /// Nodes rehashed (the whole committed node file).
    pub nodes: u64,
    /// Leaves among them.
    pub leaves: u64,
    /// Commit records whose root was recomputed and matched.
    pub commits: u64,
}

/// The identity block (`meta`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Meta {
    accumulator: Option<Hash>,
}

fn check8(bytes: &[u8]) -> [u8; 8] {
    let h = mmr_blake2b::ckb_blake2b_256(bytes);
    let mut out = [0u8; 8];
    out.copy_from_slice(&h[..8]);
    out
}

impl Meta {
    fn encode(&self) -> [u8; META_LEN] {
        let mut out = [0u8; META_LEN];
        out[..8].copy_from_slice(&MAGIC);
        out[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        let flags: u32 = self.accumulator.is_some() as u32;
        out[12..16].copy_from_slice(&flags.to_le_bytes());
        if let Some(id) = &self.accumulator {
            out[16..48].copy_from_slice(id);
        }
        let check = check8(&out[..56]);
        out[56..].copy_from_slice(&check);
        out
    }

    fn decode(dir: &Path, bytes: &[u8]) -> Result<Meta> {
        let not = |why: String| Error::NotAStore {
            dir: dir.to_path_buf(),
            why,
        };
        if bytes.len() < 12 || bytes[..8] != MAGIC {
            return Err(not("meta has no store magic".into()));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or([0; 4]));
        if version != FORMAT_VERSION {
            return Err(not(format!(
                "format version {version}, this build reads {FORMAT_VERSION}"
            )));
        }
        if bytes.len() != META_LEN || check8(&bytes[..56]) != bytes[56..] {
            return Err(Error::Corrupt("meta checksum mismatch".into()));
        }
        let flags = u32::from_le_bytes(bytes[12..16].try_into().unwrap_or([0; 4]));
        let mut id = [0u8; 32];
        id.copy_from_slice(&bytes[16..48]);
        match flags {
            0 => Ok(Meta { accumulator: None }),
            1 => Ok(Meta {
                accumulator: Some(id),
            }),
            _ => Err(Error::Corrupt(format!("meta flags {flags:#x}"))),
        }
    }
}

fn encode_record(mmr_size: u64, root: &Hash) -> [u8; RECORD_LEN] {
    let mut out = [0u8; RECORD_LEN];
    out[..8].copy_from_slice(&mmr_size.to_le_bytes());
    out[8..40].copy_from_slice(root);
    let check = check8(&out[..40]);
    out[40..].copy_from_slice(&check);
    out
}

/// A record's (size, root), or `None` when its checksum fails or its size is not an MMR size.
fn decode_record(bytes: &[u8; RECORD_LEN]) -> Option<(u64, Hash)> {
    if check8(&bytes[..40]) != bytes[40..] {
        return None;
    }
    let size = u64::from_le_bytes(bytes[..8].try_into().ok()?);
    leaf_count(size)?;
    let mut root = [0u8; 32];
    root.copy_from_slice(&bytes[8..40]);
    Some((size, root))
}

fn bag(peaks: &[Hash]) -> Option<Hash> {
    build::bag::<KernelMerge>(peaks)
}

/// Writes `bytes` to `dir/name` through a temporary file, fsync and rename, so the file is
/// either the old or the new one after a crash.
fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    let path = dir.join(name);
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        std::io::Write::write_all(&mut f, bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        File::open(dir)?.sync_all()
    };
    write().map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// Takes the exclusive writer lock on `dir/lock`, without waiting.
fn lock_dir(dir: &Path) -> Result<File> {
    let path = dir.join(files::LOCK);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
    // SAFETY: flock on a descriptor this function owns; no memory is involved.
    #[allow(unsafe_code)]
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r != 0 {
        let err = std::io::Error::last_os_error();
        return Err(match err.raw_os_error() {
            Some(libc::EWOULDBLOCK) => Error::Locked(dir.to_path_buf()),
            _ => Error::io(format!("locking {}", path.display()), err),
        });
    }
    // A TypeScript writer (js/mmr-lock) holds `lock.pid` instead, and checks for this flock
    // after creating it; checking for its file after taking the flock means that of two
    // writers racing, at least one sees the other.
    if kit_writer_holds(dir) {
        return Err(Error::Locked(dir.to_path_buf()));
    }
    Ok(file)
}

/// Whether `lock.pid` names a writer that may be alive: a live process of this host, or
/// anything this process cannot judge (another host, an unreadable or malformed file). A
/// process that died leaves a stale file, which the kit's next writer takes over.
fn kit_writer_holds(dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join(files::KIT_LOCK)) else {
        return false;
    };
    let mut words = text.split_whitespace();
    let (Some(pid), Some(host)) = (words.next(), words.next()) else {
        return true;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return true;
    };
    let ours = std::fs::read_to_string("/proc/sys/kernel/hostname");
    match ours {
        Ok(ours) if ours.trim() == host => Path::new(&format!("/proc/{pid}")).exists(),
        _ => true,
    }
}

/// An open store: a writer (holds the lock, may append) or a reader (a fixed view of the
/// committed state at the time it was opened).
pub struct Store {
    dir: PathBuf,
    nodes: File,
    commits: File,
    /// The writer's lock; `None` for a reader.
    lock: Option<File>,
    meta: Meta,
    /// Committed mmr_size.
    size: u64,
    /// Valid records in the commit log.
    records: u64,
    /// Peaks of the committed MMR, left to right, with their heights.
    peaks: Vec<(u32, Hash)>,
    /// Root of the committed MMR (`None` when empty).
    root: Option<Hash>,
    /// Threads that hash an append's aligned blocks ([`Store::set_hashers`]).
    hashers: usize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("dir", &self.dir)
            .field("writer", &self.lock.is_some())
            .field("mmr_size", &self.size)
            .finish()
    }
}

impl Store {
    /// Creates an empty store in `dir` (created if missing) and opens it as the writer.
    /// `accumulator` is the accumulator's type id (or type hash) when known now; it can be
    /// set once later with [`Store::set_accumulator`]. [`Error::AlreadyAStore`] if `dir`
    /// already holds a store.
    pub fn create(dir: &Path, accumulator: Option<Hash>) -> Result<Store> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        let lock = lock_dir(dir)?;
        if dir.join(files::META).exists() {
            return Err(Error::AlreadyAStore(dir.to_path_buf()));
        }
        // `meta` goes last: until it exists the directory is not a store, so a crash during
        // creation leaves nothing that opens.
        for name in [files::NODES, files::COMMITS] {
            let path = dir.join(name);
            File::create(&path)
                .and_then(|f| f.sync_all())
                .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
        }
        replace_file(dir, files::META, &Meta { accumulator }.encode())?;
        drop(lock);
        Store::open(dir)
    }

    /// Opens the store in `dir` as its one writer: takes the lock ([`Error::Locked`] if
    /// another process has it), cuts a torn commit record and uncommitted node bytes, and
    /// checks the last root against the peaks on disk.
    pub fn open(dir: &Path) -> Result<Store> {
        // Refused before the lock file is made: a directory that is not a store is left as
        // it is.
        if !dir.join(files::META).is_file() {
            return Err(not_a_store(dir));
        }
        let lock = lock_dir(dir)?;
        Store::open_with(dir, Some(lock))
    }

    /// Opens the store in `dir` read-only, without the lock: a view of what was committed
    /// when it was opened (a writer may keep appending; nothing it writes is seen).
    pub fn open_read_only(dir: &Path) -> Result<Store> {
        Store::open_with(dir, None)
    }

    fn open_with(dir: &Path, lock: Option<File>) -> Result<Store> {
        let writer = lock.is_some();
        let meta_path = dir.join(files::META);
        let meta_bytes = match std::fs::read(&meta_path) {
            Ok(bytes) => bytes,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                return Err(not_a_store(dir))
            }
            Err(e) => return Err(Error::io(format!("reading {}", meta_path.display()), e)),
        };
        let meta = Meta::decode(dir, &meta_bytes)?;
        let open = |name: &str| {
            let path = dir.join(name);
            OpenOptions::new()
                .read(true)
                .write(writer)
                .open(&path)
                .map_err(|e| match e.kind() {
                    std::io::ErrorKind::NotFound => Error::Corrupt(format!("{name} is missing")),
                    _ => Error::io(format!("opening {}", path.display()), e),
                })
        };
        let nodes = open(files::NODES)?;
        let commits = open(files::COMMITS)?;
        let mut store = Store {
            dir: dir.to_path_buf(),
            nodes,
            commits,
            lock,
            meta,
            size: 0,
            records: 0,
            peaks: Vec::new(),
            root: None,
            hashers: std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_HASHERS)),
        };
        store.recover()?;
        Ok(store)
    }

    /// Finds the last complete append and, for a writer, cuts whatever a crash left after it.
    fn recover(&mut self) -> Result<()> {
        let writer = self.lock.is_some();
        let log_len = file_len(&self.commits, "commits")?;
        let mut records = log_len / RECORD_LEN as u64;
        // Records are fsynced one at a time, so a crash can tear only the last one: a partial
        // record, or a whole one whose bytes did not all reach the disk.
        let mut last = None;
        if records > 0 {
            last = self.record(records - 1)?;
            if last.is_none() {
                records -= 1;
                if records > 0 {
                    last = self.record(records - 1)?;
                    if last.is_none() {
                        return Err(Error::Corrupt(format!(
                            "commit records {} and {} both fail their checksum",
                            records - 1,
                            records
                        )));
                    }
                }
            }
        }
        let (size, root) = match last {
            Some((size, root)) => (size, Some(root)),
            None => (0, None),
        };
        let nodes_len = file_len(&self.nodes, "nodes")?;
        if nodes_len < size * NODE_LEN {
            return Err(Error::Corrupt(format!(
                "the node file holds {} nodes, the last commit {size}",
                nodes_len / NODE_LEN
            )));
        }
        if writer {
            if log_len != records * RECORD_LEN as u64 {
                truncate(&self.commits, records * RECORD_LEN as u64, "commits")?;
            }
            if nodes_len != size * NODE_LEN {
                truncate(&self.nodes, size * NODE_LEN, "nodes")?;
            }
        }
        self.size = size;
        self.records = records;
        let leaves = leaves_of_or_zero(size);
        let mut peaks = Vec::new();
        for (first, h) in build::peak_nodes(leaves) {
            peaks.push((h, self.read_node(node_pos(first, h))?));
        }
        let hashes: Vec<Hash> = peaks.iter().map(|p| p.1).collect();
        if bag(&hashes) != root {
            return Err(Error::Corrupt(format!(
                "the peaks on disk do not bag to the root recorded for mmr_size {size}"
            )));
        }
        self.peaks = peaks;
        self.root = root;
        Ok(())
    }

    /// Record `i` of the commit log, `None` if its checksum or size is invalid.
    fn record(&self, i: u64) -> Result<Option<(u64, Hash)>> {
        let mut buf = [0u8; RECORD_LEN];
        self.commits
            .read_exact_at(&mut buf, i * RECORD_LEN as u64)
            .map_err(|e| Error::io("reading the commit log", e))?;
        Ok(decode_record(&buf))
    }

    /// Record `i`, which must be valid (it is below the last valid one).
    fn valid_record(&self, i: u64) -> Result<(u64, Hash)> {
        self.record(i)?
            .ok_or_else(|| Error::Corrupt(format!("commit record {i} fails its checksum")))
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether this handle is the writer.
    pub fn is_writer(&self) -> bool {
        self.lock.is_some()
    }

    /// How many threads hash the aligned blocks of a long append (at least 1; by default one
    /// per core, at most 4). The bytes written are the same for every count; 1 hashes every
    /// leaf on the calling thread (`mmr-store-scale --hashers` measures the difference).
    pub fn set_hashers(&mut self, hashers: usize) {
        self.hashers = hashers.clamp(1, MAX_HASHERS);
    }

    /// The committed mmr_size (0 for an empty store).
    pub fn mmr_size(&self) -> u64 {
        self.size
    }

    /// The committed leaf count.
    pub fn leaf_count(&self) -> u64 {
        leaves_of_or_zero(self.size)
    }

    /// Number of completed appends recorded in the commit log.
    pub fn commit_count(&self) -> u64 {
        self.records
    }

    /// The committed state: size, leaf count, root. [`Error::Empty`] for an empty store.
    pub fn state(&self) -> Result<Commit> {
        let root = self.root.ok_or(Error::Empty("the store holds no leaves"))?;
        Ok(Commit {
            mmr_size: self.size,
            leaf_count: self.leaf_count(),
            root,
        })
    }

    /// The current root. [`Error::Empty`] for an empty store.
    pub fn root(&self) -> Result<Hash> {
        Ok(self.state()?.root)
    }

    /// The accumulator this store belongs to, if recorded.
    pub fn accumulator(&self) -> Option<Hash> {
        self.meta.accumulator
    }

    /// [`Error::OtherAccumulator`] if the store records an accumulator other than `id`; a
    /// store that records none belongs to any (the caller may then [`Store::set_accumulator`]).
    pub fn expect_accumulator(&self, id: &Hash) -> Result<()> {
        match self.meta.accumulator {
            Some(store) if store != *id => Err(Error::OtherAccumulator {
                store,
                expected: *id,
            }),
            _ => Ok(()),
        }
    }

    /// Records the accumulator this store belongs to (atomically). Setting the same id again
    /// is a no-op; another id is [`Error::OtherAccumulator`].
    pub fn set_accumulator(&mut self, id: Hash) -> Result<()> {
        self.writer()?;
        self.expect_accumulator(&id)?;
        if self.meta.accumulator.is_none() {
            let meta = Meta {
                accumulator: Some(id),
            };
            replace_file(&self.dir, files::META, &meta.encode())?;
            self.meta = meta;
        }
        Ok(())
    }

    fn writer(&self) -> Result<()> {
        match self.lock {
            Some(_) => Ok(()),
            None => Err(Error::ReadOnly),
        }
    }

    /// The node at `pos`, which must be below the committed size.
    pub fn node(&self, pos: u64) -> Result<Hash> {
        if pos >= self.size {
            return Err(Error::BeyondStore {
                asked: pos.saturating_add(1),
                store: self.size,
            });
        }
        self.read_node(pos)
    }

    fn read_node(&self, pos: u64) -> Result<Hash> {
        let mut out = [0u8; 32];
        self.nodes
            .read_exact_at(&mut out, pos * NODE_LEN)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => {
                    Error::Corrupt(format!("node {pos} is missing from the node file"))
                }
                _ => Error::io(format!("reading node {pos}"), e),
            })?;
        Ok(out)
    }

    /// The leaf with index `index` (below the committed leaf count).
    pub fn leaf(&self, index: u64) -> Result<Hash> {
        let leaves = self.leaf_count();
        if index >= leaves {
            return Err(Error::IndexBeyondSize { index, leaves });
        }
        self.read_node(leaf_index_to_pos(index))
    }

    /// The leaves with indexes `from..to` (within the committed leaf count).
    pub fn leaves(&self, from: u64, to: u64) -> Result<Vec<Hash>> {
        let leaves = self.leaf_count();
        if to > leaves {
            return Err(Error::IndexBeyondSize {
                index: to - 1,
                leaves,
            });
        }
        (from..to)
            .map(|i| self.read_node(leaf_index_to_pos(i)))
            .collect()
    }

    /// Checks that `mmr_size` is an MMR size within the store; returns its leaf count.
    pub fn check_size(&self, mmr_size: u64) -> Result<u64> {
        let leaves = leaves_of(mmr_size)?;
        if mmr_size > self.size {
            return Err(Error::BeyondStore {
                asked: mmr_size,
                store: self.size,
            });
        }
        Ok(leaves)
    }

    /// The peaks of the MMR of size `mmr_size`, left to right.
    pub fn peaks_at(&self, mmr_size: u64) -> Result<Vec<Hash>> {
        let leaves = self.check_size(mmr_size)?;
        peak_positions(leaves)
            .into_iter()
            .map(|p| self.read_node(p))
            .collect()
    }

    /// The root recorded in the commit log for `mmr_size`, if an append ended there.
    pub fn committed_root(&self, mmr_size: u64) -> Result<Option<Hash>> {
        // Sizes in the log strictly increase: binary search, a few reads.
        let (mut lo, mut hi) = (0u64, self.records);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (size, root) = self.valid_record(mid)?;
            if size == mmr_size {
                return Ok(Some(root));
            }
            if size < mmr_size {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(None)
    }

    /// Every commit record (size, root), oldest first.
    pub fn commits(&self) -> Result<Vec<(u64, Hash)>> {
        (0..self.records).map(|i| self.valid_record(i)).collect()
    }

    /// The root of the MMR of size `mmr_size`: the recorded one for a committed size (checked
    /// against the peaks on disk), else the bagging of the peaks.
    pub fn root_at(&self, mmr_size: u64) -> Result<Hash> {
        let peaks = self.peaks_at(mmr_size)?;
        let root = bag(&peaks).ok_or(Error::NotMmrSize(mmr_size))?;
        if let Some(recorded) = self.committed_root(mmr_size)? {
            if recorded != root {
                return Err(Error::Corrupt(format!(
                    "the peaks at mmr_size {mmr_size} do not bag to its recorded root"
                )));
            }
        }
        Ok(root)
    }

    /// A proof of the leaves with `indexes` (any order, duplicates ignored) in the MMR of size
    /// `mmr_size`, from nodes below that size only. The proof is checked against the root
    /// before it is returned ([`Error::Corrupt`] if the nodes on its path are damaged).
    pub fn proof(&self, mmr_size: u64, indexes: &[u64]) -> Result<Proof> {
        let leaves = self.check_size(mmr_size)?;
        if indexes.is_empty() {
            return Err(Error::Empty("a proof needs at least one leaf index"));
        }
        let mut positions = Vec::with_capacity(indexes.len());
        for &index in indexes {
            if index >= leaves {
                return Err(Error::IndexBeyondSize { index, leaves });
            }
            positions.push(leaf_index_to_pos(index));
        }
        positions.sort_unstable();
        positions.dedup();
        let view = View {
            store: self,
            bound: mmr_size,
            error: std::cell::RefCell::new(None),
        };
        let mmr = ckb_merkle_mountain_range::MMR::<Hash, KernelMerge, &View>::new(mmr_size, &view);
        let proof = mmr.gen_proof(positions.clone());
        if let Some(e) = view.error.borrow_mut().take() {
            return Err(e);
        }
        let proof = proof.map_err(|e| Error::Corrupt(format!("generating the proof: {e}")))?;
        let mut proved = Vec::with_capacity(positions.len());
        for pos in positions {
            proved.push((pos, self.read_node(pos)?));
        }
        let out = Proof {
            mmr_size,
            leaf_count: leaves,
            root: self.root_at(mmr_size)?,
            proved,
            items: proof.proof_items().to_vec(),
        };
        if out.computed_root() != Some(out.root) {
            return Err(Error::Corrupt(format!(
                "the proof read from the store does not give the root at mmr_size {mmr_size}"
            )));
        }
        Ok(out)
    }

    fn size_pair(&self, old_size: u64, new_size: u64) -> Result<(u64, u64)> {
        let old = leaves_of(old_size)?;
        let new = self.check_size(new_size)?;
        if old_size >= new_size {
            return Err(Error::SizeOrder {
                old: old_size,
                new: new_size,
            });
        }
        Ok((old, new))
    }

    /// The old peaks and the new leaves of an append from `old_size` to `new_size`.
    pub fn append_witness(&self, old_size: u64, new_size: u64) -> Result<(Vec<Hash>, Vec<Hash>)> {
        let (old, new) = self.size_pair(old_size, new_size)?;
        Ok((self.peaks_at(old_size)?, self.leaves(old, new)?))
    }

    /// The accumulator type script's `APPEND` payload (tag, old peaks, count, leaves) from
    /// `old_size` to `new_size`, the bytes `mmr_accumulator::build::append_payload` gives.
    pub fn append_payload(&self, old_size: u64, new_size: u64) -> Result<Vec<u8>> {
        let (peaks, leaves) = self.append_witness(old_size, new_size)?;
        Ok(build::append_payload(&peaks, &leaves))
    }

    /// The ancestry proof (the body of `EXTEND`) from `old_size` to `new_size`, the bytes
    /// `mmr_accumulator::build::ancestry_proof` gives from the full leaf list.
    pub fn ancestry_proof(&self, old_size: u64, new_size: u64) -> Result<Vec<u8>> {
        let (old, new) = self.size_pair(old_size, new_size)?;
        let mut failed = None;
        let proof = build::ancestry_proof_from_nodes::<KernelMerge>(old, new, |first, h| {
            let pos = node_pos(first, h);
            match self.node(pos) {
                Ok(hash) if pos < new_size => hash,
                Ok(_) => {
                    failed.get_or_insert(Error::BeyondStore {
                        asked: pos + 1,
                        store: new_size,
                    });
                    [0; 32]
                }
                Err(e) => {
                    failed.get_or_insert(e);
                    [0; 32]
                }
            }
        })
        .map_err(|_| Error::SizeOrder {
            old: old_size,
            new: new_size,
        })?;
        match failed {
            Some(e) => Err(e),
            None => Ok(proof),
        }
    }

    /// Appends `leaves` and commits: nodes written and fsynced, then the commit record
    /// appended and fsynced. Zero leaves change nothing. Returns the new state.
    pub fn append(&mut self, leaves: &[Hash]) -> Result<Commit> {
        self.append_expecting(leaves, None)
    }

    /// [`Store::append`], committed only when the new root equals `expected` (the root a
    /// chain holds, say); otherwise [`Error::RootMismatch`] and the store is unchanged.
    pub fn append_expecting(&mut self, leaves: &[Hash], expected: Option<&Hash>) -> Result<Commit> {
        self.writer()?;
        if leaves.is_empty() {
            return match expected {
                Some(root) if self.root.as_ref() != Some(root) => Err(Error::RootMismatch {
                    mmr_size: self.size,
                    expected: *root,
                    computed: self.root.unwrap_or([0; 32]),
                }),
                _ => self.state(),
            };
        }
        let new_leaves = self.leaf_count() + leaves.len() as u64;
        let new_size = mmr_size_of(new_leaves);
        if new_size > MAX_MMR_SIZE {
            return Err(Error::NotMmrSize(new_size));
        }
        let mut peaks = self.peaks.clone();
        match self.write_nodes(leaves, &mut peaks, new_size, expected) {
            Ok(commit) => {
                self.peaks = peaks;
                self.size = commit.mmr_size;
                self.root = Some(commit.root);
                self.records += 1;
                Ok(commit)
            }
            Err(e) => {
                // Best effort: the next open cuts the same bytes if this fails.
                let _ = self.nodes.set_len(self.size * NODE_LEN);
                let _ = self.commits.set_len(self.records * RECORD_LEN as u64);
                Err(e)
            }
        }
    }

    fn write_nodes(
        &mut self,
        leaves: &[Hash],
        peaks: &mut Vec<(u32, Hash)>,
        new_size: u64,
        expected: Option<&Hash>,
    ) -> Result<Commit> {
        let offset = self.size * NODE_LEN;
        let written = if leaves.len() <= CHUNK_LEAVES {
            let mut buf = Vec::with_capacity(64 * (leaves.len() + 64));
            hash_leaves(leaves, peaks, &mut buf);
            self.nodes
                .write_all_at(&buf, offset)
                .map_err(|e| Error::io("writing the node file", e))?;
            buf.len() as u64
        } else {
            write_pipelined(&self.nodes, offset, leaves, peaks, self.hashers)?
        };
        debug_assert_eq!(offset + written, new_size * NODE_LEN);
        let hashes: Vec<Hash> = peaks.iter().map(|p| p.1).collect();
        let root = bag(&hashes).ok_or(Error::Empty("no leaves"))?;
        if let Some(expected) = expected {
            if *expected != root {
                return Err(Error::RootMismatch {
                    mmr_size: new_size,
                    expected: *expected,
                    computed: root,
                });
            }
        }
        self.nodes
            .sync_data()
            .map_err(|e| Error::io("syncing the node file", e))?;
        self.commits
            .write_all_at(
                &encode_record(new_size, &root),
                self.records * RECORD_LEN as u64,
            )
            .map_err(|e| Error::io("writing the commit log", e))?;
        self.commits
            .sync_data()
            .map_err(|e| Error::io("syncing the commit log", e))?;
        Ok(Commit {
            mmr_size: new_size,
            leaf_count: leaves_of_or_zero(new_size),
            root,
        })
    }

    /// Rehashes the whole store: every inner node against the merge of its children, and the
    /// root of every commit record against the bagging of the peaks at its size; every
    /// record's checksum too. [`Error::Corrupt`] names the first disagreement. One pass over
    /// the node file, about one merge per leaf, memory flat.
    pub fn check(&self) -> Result<CheckReport> {
        let path = self.dir.join(files::NODES);
        let file =
            File::open(&path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        let mut nodes = BufReader::with_capacity(WRITE_BUFFER, file.take(self.size * NODE_LEN));
        let path = self.dir.join(files::COMMITS);
        let file =
            File::open(&path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        let mut log = BufReader::new(file.take(self.records * RECORD_LEN as u64));
        let mut read_node = |pos: u64| -> Result<Hash> {
            let mut out = [0u8; 32];
            nodes.read_exact(&mut out).map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => {
                    Error::Corrupt(format!("node {pos} is missing from the node file"))
                }
                _ => Error::io("reading the node file", e),
            })?;
            Ok(out)
        };
        let mut record_no = 0u64;
        let mut next_record = |log: &mut BufReader<_>| -> Result<Option<(u64, Hash)>> {
            if record_no == self.records {
                return Ok(None);
            }
            let mut buf = [0u8; RECORD_LEN];
            Read::read_exact(log, &mut buf).map_err(|e| Error::io("reading the commit log", e))?;
            record_no += 1;
            decode_record(&buf).map(Some).ok_or_else(|| {
                Error::Corrupt(format!(
                    "commit record {} fails its checksum",
                    record_no - 1
                ))
            })
        };
        let mut report = CheckReport {
            nodes: 0,
            leaves: 0,
            commits: 0,
        };
        let mut peaks: Vec<(u32, Hash)> = Vec::new();
        let mut pending = next_record(&mut log)?;
        let mut pos = 0u64;
        while pos < self.size {
            let mut node = read_node(pos)?;
            pos += 1;
            report.leaves += 1;
            let mut height = 0;
            while let Some(&(h, left)) = peaks.last() {
                if h != height {
                    break;
                }
                peaks.pop();
                let stored = read_node(pos)?;
                let computed = mmr_blake2b::merge(&left, &node);
                if stored != computed {
                    return Err(Error::Corrupt(format!(
                        "node {pos} is not the merge of its children"
                    )));
                }
                node = stored;
                pos += 1;
                height += 1;
            }
            peaks.push((height, node));
            while let Some((size, root)) = pending {
                if size > pos {
                    break;
                }
                if size < pos {
                    return Err(Error::Corrupt(format!(
                        "commit record {} (mmr_size {size}) is out of order",
                        record_no - 1
                    )));
                }
                let hashes: Vec<Hash> = peaks.iter().map(|p| p.1).collect();
                if bag(&hashes) != Some(root) {
                    return Err(Error::Corrupt(format!(
                        "the nodes give another root than the one recorded at mmr_size {size}"
                    )));
                }
                report.commits += 1;
                pending = next_record(&mut log)?;
            }
        }
        if let Some((size, _)) = pending {
            return Err(Error::Corrupt(format!(
                "commit record {} (mmr_size {size}) is beyond the node file",
                record_no - 1
            )));
        }
        report.nodes = pos;
        Ok(report)
    }
}

/// Appends the nodes of `leaves` to `buf` in position order, updating `peaks`.
#[inline(never)]
fn hash_leaves(leaves: &[Hash], peaks: &mut Vec<(u32, Hash)>, buf: &mut Vec<u8>) {
    for leaf in leaves {
        buf.extend_from_slice(leaf);
        carry(peaks, 0, *leaf, buf);
    }
}

/// Pushes `node` (a new node of `height`, already in `buf`) onto `peaks`: each carry merges
/// the peak of equal height on the left with it, and the parent follows its right child in
/// position order.
#[inline(always)]
fn carry(peaks: &mut Vec<(u32, Hash)>, mut height: u32, mut node: Hash, buf: &mut Vec<u8>) {
    while let Some(&(h, left)) = peaks.last() {
        if h != height {
            break;
        }
        peaks.pop();
        let right = node;
        mmr_blake2b::merge_into(&left, &right, &mut node);
        buf.extend_from_slice(&node);
        height += 1;
    }
    peaks.push((height, node));
}

/// Leaves of one block hashed by a worker: `2^BLOCK_LOG` leaves starting at a multiple of
/// that count are a perfect subtree whose `2^(BLOCK_LOG+1) - 1` nodes (1 MiB less one node)
/// are contiguous in the node file and depend on nothing before them.
const BLOCK_LOG: u32 = 14;
const BLOCK_LEAVES: usize = 1 << BLOCK_LOG;
/// Hashing threads at most (the machine's cores, if fewer).
const MAX_HASHERS: usize = 4;

/// Hashes `leaves` while another thread writes the previous buffers, so the write syscalls
/// (the kernel's copy into the page cache) and the start of writeback overlap the merges
/// instead of adding to them; returns the bytes written. The aligned blocks in the middle of
/// an append are hashed by one worker per core: a block's nodes need only its own leaves,
/// and the calling thread then carries each block's root into the peaks, in order (about one
/// merge per block), so the bytes are exactly those of [`hash_leaves`] over all the leaves.
/// Buffers circulate through a fixed pool, so memory stays flat.
fn write_pipelined(
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

fn not_a_store(dir: &Path) -> Error {
    Error::NotAStore {
        dir: dir.to_path_buf(),
        why: if !dir.exists() {
            "no such directory".into()
        } else if !dir.is_dir() {
            "not a directory".into()
        } else {
            "no meta file".into()
        },
    }
}

fn leaves_of_or_zero(size: u64) -> u64 {
    leaf_count(size).unwrap_or(0)
}

fn file_len(file: &File, name: &str) -> Result<u64> {
    file.metadata()
        .map(|m| m.len())
        .map_err(|e| Error::io(format!("reading the length of {name}"), e))
}

fn truncate(file: &File, len: u64, name: &str) -> Result<()> {
    file.set_len(len)
        .and_then(|_| file.sync_all())
        .map_err(|e| Error::io(format!("cutting {name} back to {len} bytes"), e))
}

/// The store as `ckb-merkle-mountain-range` sees it: nodes below `bound` only.
struct View<'a> {
    store: &'a Store,
    bound: u64,
    error: std::cell::RefCell<Option<Error>>,
}

impl ckb_merkle_mountain_range::MMRStoreReadOps<Hash> for &View<'_> {
    fn get_elem(&self, pos: u64) -> ckb_merkle_mountain_range::Result<Option<Hash>> {
        if pos >= self.bound {
            return Ok(None);
        }
        match self.store.read_node(pos) {
            Ok(hash) => Ok(Some(hash)),
            Err(e) => {
                let msg = e.to_string();
                self.error.borrow_mut().get_or_insert(e);
                Err(ckb_merkle_mountain_range::Error::StoreError(msg))
            }
        }
    }
}

/// Reads every line of `reader` as leaves (see [`parse_leaf_line`]) and returns how many
/// there are, without keeping them: the first pass of an all-or-nothing append of a file.
pub fn count_leaves(reader: impl BufRead) -> Result<u64> {
    let mut n = 0;
    for leaf in LeafReader::new(reader) {
        leaf?;
        n += 1;
    }
    Ok(n)
}
