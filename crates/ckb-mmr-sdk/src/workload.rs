//! The workload behind every measurement: a seeded random MMR, a sorted sample of its leaves,
//! the proof for them, and the payload each verifier reads. Also usable as a library to build
//! proofs for your own leaves ([`Workload::from_leaves`], [`parse_leaves`]), in plain or owner
//! mode ([`Workload::lock_args_for`]), with owners named by their lock script ([`crate::script`])
//! (docs/deploy.md).

use crate::error::Error;
use ckb_merkle_mountain_range::{util::MemStore, Merge, MMR};
use rand::{rngs::StdRng, seq::SliceRandom, Rng, RngCore, SeedableRng};

/// The journey's reference seed: 2520 leaves, 76 proved, mmr_size 5034.
pub const REFERENCE_SEED: u64 = 1680833947559458126;

/// blake2b-256 "ckb-default-hash" of `data`, by the reference implementation (blake2b-rs),
/// so the workloads never depend on the hashing code under test.
pub fn ckb_hash(data: &[&[u8]]) -> [u8; 32] {
    let mut hasher = blake2b_rs::Blake2bBuilder::new(32)
        .personal(b"ckb-default-hash")
        .build();
    for part in data {
        hasher.update(part);
    }
    let mut out = [0u8; 32];
    hasher.finalize(&mut out);
    out
}

/// The reference merge the workloads build their MMRs with: blake2b-256 "ckb-default-hash"
/// of left || right by blake2b-rs ([`ckb_hash`]), for ckb-merkle-mountain-range. Never the
/// merge code under test, so a proof built here checks the verifiers independently.
pub struct ReferenceMerge;

impl Merge for ReferenceMerge {
    type Item = [u8; 32];

    fn merge(left: &[u8; 32], right: &[u8; 32]) -> ckb_merkle_mountain_range::Result<[u8; 32]> {
        Ok(ckb_hash(&[left, right]))
    }
}

/// An MMR, the leaves to prove and their proof.
#[derive(Debug, Clone)]
pub struct Workload {
    pub seed: Option<u64>,
    pub leaf_count: u64,
    pub mmr_size: u64,
    pub root: [u8; 32],
    /// Proved leaves as (MMR position, value), sorted by position.
    pub proved: Vec<(u64, [u8; 32])>,
    /// Proof items in `MMR::gen_proof` order.
    pub proof_items: Vec<[u8; 32]>,
}

#[derive(Debug)]
pub enum WorkloadError {
    NoLeaves,
    /// A proved leaf index is not below the number of leaves.
    IndexOutOfRange(u64),
    Mmr(ckb_merkle_mountain_range::Error),
    /// The proof does not compile to the compiled verifiers' format.
    Compile(compiled_proof::CompileError),
}

impl std::fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkloadError::NoLeaves => write!(
                f,
                "an MMR needs at least one leaf and a proof at least one proved leaf"
            ),
            WorkloadError::IndexOutOfRange(i) => write!(f, "leaf index {i} is out of range"),
            WorkloadError::Mmr(e) => write!(f, "MMR error: {e}"),
            WorkloadError::Compile(e) => write!(f, "compiling the proof: {e:?}"),
        }
    }
}

impl std::error::Error for WorkloadError {}

/// A proof that cannot be made is an index problem (exit code 9).
impl From<WorkloadError> for Error {
    fn from(e: WorkloadError) -> Error {
        Error::Index(e.to_string())
    }
}

impl Workload {
    /// The journey's workload for `seed`. Draw order, fixed so results reproduce: leaf count
    /// in 1000..3000, proved count in 1..100, each leaf's 32 bytes, then a shuffle of the
    /// leaf positions of which the first k, sorted, are proved.
    pub fn from_seed(seed: u64) -> Workload {
        Workload::seeded(seed, None)
    }

    /// The workload of `seed` for owner mode: the same MMR shape and proved positions, with
    /// the value of the first proved leaf (the smallest proved index) replaced by
    /// `owner_lock_hash`, so the root changes but the proof's work does not.
    pub fn from_seed_with_owner(seed: u64, owner_lock_hash: [u8; 32]) -> Workload {
        Workload::seeded(seed, Some(owner_lock_hash))
    }

    fn seeded(seed: u64, owner_lock_hash: Option<[u8; 32]>) -> Workload {
        let (mut leaves, indexes) = seeded_leaves(seed);
        if let (Some(owner), Some(&first)) = (owner_lock_hash, indexes.iter().min()) {
            leaves[first as usize] = owner;
        }
        let mut w = Workload::from_leaves(&leaves, &indexes).expect("seeded workloads are valid");
        w.seed = Some(seed);
        w
    }
}

/// The journey's leaves and proved leaf indexes for `seed` (unsorted, in draw order), before
/// any MMR is built: see [`Workload::from_seed`].
pub fn seeded_leaves(seed: u64) -> (Vec<[u8; 32]>, Vec<u64>) {
    let mut rng = StdRng::seed_from_u64(seed);
    // The journey drew the leaf count as a u32 and the proved count as a usize; the
    // integer type changes how rand 0.8 samples, so both are kept as they were.
    let leaf_count = rng.gen_range(1000u32..3000) as usize;
    let proved_count: usize = rng.gen_range(1..100);
    let leaves: Vec<[u8; 32]> = (0..leaf_count)
        .map(|_| {
            let mut leaf = [0u8; 32];
            rng.fill_bytes(&mut leaf);
            leaf
        })
        .collect();
    let mut indexes: Vec<u64> = (0..leaf_count as u64).collect();
    indexes.shuffle(&mut rng);
    indexes.truncate(proved_count);
    (leaves, indexes)
}

impl Workload {
    /// An MMR over `leaves` (in order) and a proof for the leaves at `indexes` (any order,
    /// duplicates ignored).
    pub fn from_leaves(leaves: &[[u8; 32]], indexes: &[u64]) -> Result<Workload, WorkloadError> {
        if leaves.is_empty() || indexes.is_empty() {
            return Err(WorkloadError::NoLeaves);
        }
        let store = MemStore::default();
        let mut mmr = MMR::<[u8; 32], ReferenceMerge, _>::new(0, &store);
        let mut positions = Vec::with_capacity(leaves.len());
        for leaf in leaves {
            positions.push(mmr.push(*leaf).map_err(WorkloadError::Mmr)?);
        }
        let mut proved = Vec::with_capacity(indexes.len());
        for &i in indexes {
            let leaf = leaves
                .get(i as usize)
                .ok_or(WorkloadError::IndexOutOfRange(i))?;
            proved.push((positions[i as usize], *leaf));
        }
        proved.sort();
        proved.dedup();
        let proof = mmr
            .gen_proof(proved.iter().map(|(pos, _)| *pos).collect())
            .map_err(WorkloadError::Mmr)?;
        Ok(Workload {
            seed: None,
            leaf_count: leaves.len() as u64,
            mmr_size: mmr.mmr_size(),
            root: mmr.get_root().map_err(WorkloadError::Mmr)?,
            proved,
            proof_items: proof.proof_items().to_vec(),
        })
    }

    /// The workload of a proof read from a persistent MMR store ([`mmr_store::Store::proof`]):
    /// the leaves at `indexes` in the MMR of size `mmr_size`, from the nodes on disk.
    pub fn from_store(
        store: &mmr_store::Store,
        mmr_size: u64,
        indexes: &[u64],
    ) -> Result<Workload, mmr_store::Error> {
        let p = store.proof(mmr_size, indexes)?;
        Ok(Workload {
            seed: None,
            leaf_count: p.leaf_count,
            mmr_size: p.mmr_size,
            root: p.root,
            proved: p.proved,
            proof_items: p.items,
        })
    }

    /// Plain-mode script args: root || mmr_size (u64 LE), 40 bytes.
    pub fn lock_args(&self) -> Vec<u8> {
        let mut args = self.root.to_vec();
        args.extend_from_slice(&self.mmr_size.to_le_bytes());
        args
    }

    /// Script args for `mode`: 40 bytes plain, or 41 bytes (plain || flags `0x01`) for owner
    /// mode, where a proved leaf must also be the lock hash of another input.
    pub fn lock_args_for(&self, mode: Mode) -> Vec<u8> {
        let mut args = self.lock_args();
        if mode == Mode::Owner {
            args.push(mmr_lock::FLAG_OWNER);
        }
        args
    }

    /// The data of an accumulator cell holding this MMR (docs/deploy.md, by reference):
    /// `root || mmr_size (u64 LE)`, the same 40 bytes as the plain-mode args.
    pub fn accumulator_data(&self) -> Vec<u8> {
        self.lock_args()
    }

    /// The payload `format` reads.
    pub fn payload(&self, format: Format) -> Result<Vec<u8>, WorkloadError> {
        match format {
            Format::Baseline => Ok(self.baseline_payload()),
            Format::Compiled => self.compiled_payload().map_err(WorkloadError::Compile),
            Format::CompiledV1 => self.compiled_v1_payload().map_err(WorkloadError::Compile),
        }
    }

    /// Whether `value` is one of the proved leaves (in owner mode: a possible owner).
    pub fn proves(&self, value: &[u8; 32]) -> bool {
        self.proved.iter().any(|(_, v)| v == value)
    }

    /// The baseline verifier's payload (docs/baseline-format.md).
    pub fn baseline_payload(&self) -> Vec<u8> {
        baseline_proof::encode(&self.proved, &self.proof_items)
    }

    /// The compiled verifiers' payload (docs/compiled-format.md, the compact version 2), for
    /// Rust and C alike.
    pub fn compiled_payload(&self) -> Result<Vec<u8>, compiled_proof::CompileError> {
        compiled_proof::compile_compact(self.mmr_size, &self.proof_items, &self.proved)
    }

    /// The same proof in the compiled format's version 1 (a command stream), which the
    /// journey's earlier compiled steps read.
    pub fn compiled_v1_payload(&self) -> Result<Vec<u8>, compiled_proof::CompileError> {
        compiled_proof::compile(self.mmr_size, &self.proof_items, &self.proved)
    }
}

pub use mmr_lock::Mode;

/// By-reference script args (33 bytes): the accumulator's type script hash, then the flags
/// byte `0x02` (`0x03` in owner mode). The lock reads root and mmr_size from the one cell dep
/// with that type script hash.
pub fn by_reference_args(accumulator_type_hash: &[u8; 32], mode: Mode) -> Vec<u8> {
    let mut args = accumulator_type_hash.to_vec();
    args.push(match mode {
        Mode::Plain => mmr_lock::FLAG_BY_REFERENCE,
        Mode::Owner => mmr_lock::FLAG_BY_REFERENCE | mmr_lock::FLAG_OWNER,
    });
    args
}

/// The payload formats: the baseline verifier's, and the compiled one the C and compiled Rust
/// verifiers share (its compact version 2; version 1 only for the journey's earlier steps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Baseline,
    Compiled,
    CompiledV1,
}

impl Format {
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "baseline" => Some(Format::Baseline),
            "compiled" => Some(Format::Compiled),
            "compiled-v1" => Some(Format::CompiledV1),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Baseline => "baseline",
            Format::Compiled => "compiled",
            Format::CompiledV1 => "compiled-v1",
        }
    }
}

/// Hex to bytes, with or without a `0x` prefix; `0x` or `""` is empty. Anything but an
/// even number of hex digits is [`Error::Usage`].
pub fn parse_hex(s: &str) -> Result<Vec<u8>, Error> {
    let digits = s.strip_prefix("0x").unwrap_or(s);
    let bad = || Error::Usage(format!("not an even number of hex digits: {s:?}"));
    if !digits.len().is_multiple_of(2) || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).map_err(|_| bad()))
        .collect()
}

/// Leaves from text: one 32-byte leaf per line as 64 hex digits (`0x` optional); blank lines
/// and everything after a `#` are ignored. Leaf index = order in the text, from 0. The leaves
/// file format of `mmr-store` (its parser). A malformed line is [`Error::Leaves`] (path
/// `leaves`: [`crate::mmr_cell::read_leaves`] names the file).
pub fn parse_leaves(text: &str) -> Result<Vec<[u8; 32]>, Error> {
    mmr_store::parse_leaves(text).map_err(|e| Error::Leaves {
        path: "leaves".into(),
        reason: e.to_string(),
    })
}

/// Leaf indexes from `"3,7,10-12"`: comma-separated indexes and inclusive ranges, at least
/// one; anything else is [`Error::Index`].
pub fn parse_indexes(s: &str) -> Result<Vec<u64>, Error> {
    let out = mmr_store::parse_indexes(s).map_err(Error::Index)?;
    if out.is_empty() {
        return Err(Error::Index("no leaf index given".into()));
    }
    Ok(out)
}

/// Molecule `WitnessArgs` with `lock` set and `input_type`, `output_type` absent.
pub fn witness_args_with_lock(lock: &[u8]) -> Vec<u8> {
    use ckb_types::{bytes::Bytes, packed::WitnessArgs, prelude::*};
    WitnessArgs::new_builder()
        .lock(Some(Bytes::copy_from_slice(lock)).pack())
        .build()
        .as_slice()
        .to_vec()
}

pub fn hex(bytes: &[u8]) -> String {
    let digits: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("0x{digits}")
}
