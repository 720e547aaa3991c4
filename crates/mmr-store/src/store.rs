//! An open store: opening and recovery after a crash, the one-writer rule, the committed
//! state and the store's identity.

use crate::disk::{file_len, lock_dir, not_a_store, replace_file, truncate};
use crate::format::{decode_record, Meta};
use crate::merge::bag;
use crate::pipeline::MAX_HASHERS;
use crate::pos::{leaves_of_or_zero, node_pos};
use crate::{files, Commit, Error, Hash, Result, NODE_LEN, RECORD_LEN};
use mmr_accumulator::build;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// An open store: a writer (holds the lock, may append) or a reader (a fixed view of the
/// committed state at the time it was opened).
pub struct Store {
    pub(crate) dir: PathBuf,
    pub(crate) nodes: File,
    pub(crate) commits: File,
    /// The writer's lock; `None` for a reader.
    pub(crate) lock: Option<File>,
    pub(crate) meta: Meta,
    /// Committed mmr_size.
    pub(crate) size: u64,
    /// Valid records in the commit log.
    pub(crate) records: u64,
    /// Peaks of the committed MMR, left to right, with their heights.
    pub(crate) peaks: Vec<(u32, Hash)>,
    /// Root of the committed MMR (`None` when empty).
    pub(crate) root: Option<Hash>,
    /// Threads that hash an append's aligned blocks ([`Store::set_hashers`]).
    pub(crate) hashers: usize,
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
    pub(crate) fn record(&self, i: u64) -> Result<Option<(u64, Hash)>> {
        let mut buf = [0u8; RECORD_LEN];
        self.commits
            .read_exact_at(&mut buf, i * RECORD_LEN as u64)
            .map_err(|e| Error::io("reading the commit log", e))?;
        Ok(decode_record(&buf))
    }

    /// Record `i`, which must be valid (it is below the last valid one).
    pub(crate) fn valid_record(&self, i: u64) -> Result<(u64, Hash)> {
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

    pub(crate) fn writer(&self) -> Result<()> {
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

    pub(crate) fn read_node(&self, pos: u64) -> Result<Hash> {
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
}
