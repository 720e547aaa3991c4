//! Host-side compiler: `ckb-merkle-mountain-range` 0.6.1 proofs to the compiled format.

use crate::op;
use std::collections::{HashMap, VecDeque};
use std::vec::Vec;

/// Why a proof could not be compiled. These never reach a contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompileError {
    /// `mmr_size` is not the size of any MMR, zero, or above `MAX_MMR_SIZE`.
    MmrSizeInvalid,
    /// No leaves given.
    NoLeaves,
    /// More leaves than the u32 header can count.
    TooManyLeaves,
    /// A position that is not a leaf of this MMR.
    NotALeaf(u64),
    /// Leaf positions not strictly ascending (unsorted or duplicate).
    LeavesNotAscending,
    /// The proof has fewer items than upstream verification would consume, or ends in a
    /// shape upstream would bag into a wrong root (leafless peaks left without an item).
    MissingProofItem,
    /// Items left over after every peak is accounted for (upstream would bag them in as an
    /// extra peak, which can never give the MMR's root).
    UnusedProofItems,
    /// Compact format: two or more leafless peaks after the last proved leaf given one item
    /// each; the compact format takes their bagging as one item (as `gen_proof` gives it).
    UnbaggedPeaks,
}

/// A command for [`encode`], to build payloads by hand (tests, tools).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Leaf,
    Merge,
    Proof([u8; 32]),
    Peak,
    PeakProof([u8; 32]),
    BagRhs([u8; 32]),
}

/// Serialises leaf records `(leaf index, value)` and commands into a payload.
pub fn encode(leaves: &[(u64, [u8; 32])], commands: &[Command]) -> Result<Vec<u8>, CompileError> {
    let n = u32::try_from(leaves.len()).map_err(|_| CompileError::TooManyLeaves)?;
    let mut out = Vec::with_capacity(4 + 40 * leaves.len() + 33 * commands.len());
    out.extend_from_slice(&n.to_le_bytes());
    for (index, value) in leaves {
        out.extend_from_slice(&index.to_le_bytes());
        out.extend_from_slice(value);
    }
    for command in commands {
        let (opcode, item) = match command {
            Command::Leaf => (op::LEAF, None),
            Command::Merge => (op::MERGE, None),
            Command::Proof(item) => (op::PROOF, Some(item)),
            Command::Peak => (op::PEAK, None),
            Command::PeakProof(item) => (op::PEAK_PROOF, Some(item)),
            Command::BagRhs(item) => (op::BAG_RHS, Some(item)),
        };
        out.push(opcode);
        if let Some(item) = item {
            out.extend_from_slice(item);
        }
    }
    Ok(out)
}

/// What one peak becomes in the command stream.
enum PeakPlan {
    /// Holds proved leaves: emitted as a post-order traversal, then `PEAK`.
    Leaves,
    /// `PEAK_PROOF item`.
    Item([u8; 32]),
    /// `BAG_RHS item`: this and all following peaks.
    BagRhs([u8; 32]),
}

/// Each proof item's role, from replaying upstream verification.
struct Roles {
    /// The proved leaves as `(leaf index, value)`, ascending.
    records: Vec<(u64, [u8; 32])>,
    /// Peaks `(start, height)`, left to right.
    peaks: Vec<(u64, u32)>,
    /// One plan per peak, up to the peak whose item bags the rest.
    plans: Vec<PeakPlan>,
    /// Items that are the sibling of node `(first, height)`.
    siblings: HashMap<(u64, u32), [u8; 32]>,
}

impl Roles {
    fn indexes(&self) -> Vec<u64> {
        self.records.iter().map(|&(i, _)| i).collect()
    }

    /// The item that is the sibling of `node`.
    fn item_for(&self, node: (u64, u32)) -> Result<[u8; 32], CompileError> {
        self.siblings
            .get(&node)
            .copied()
            .ok_or(CompileError::MissingProofItem)
    }
}

/// Replays upstream `calculate_peaks_hashes` to give every item its role, so any proof
/// that upstream verification consumes exactly is accepted (the `gen_proof` form, and also
/// trailing leafless peaks given one by one); hashes are not checked here.
fn roles(
    mmr_size: u64,
    proof_items: &[[u8; 32]],
    leaves: &[(u64, [u8; 32])],
) -> Result<Roles, CompileError> {
    let leaf_count = mmr_lock::mmr::leaf_count(mmr_size).ok_or(CompileError::MmrSizeInvalid)?;
    if leaves.is_empty() {
        return Err(CompileError::NoLeaves);
    }
    let mut records: Vec<(u64, [u8; 32])> = Vec::with_capacity(leaves.len());
    for &(pos, value) in leaves {
        let index = mmr_lock::mmr::leaf_pos_to_index(pos)
            .filter(|&i| i < leaf_count)
            .ok_or(CompileError::NotALeaf(pos))?;
        if records.last().is_some_and(|&(last, _)| last >= index) {
            return Err(CompileError::LeavesNotAscending);
        }
        records.push((index, value));
    }
    let indexes: Vec<u64> = records.iter().map(|&(i, _)| i).collect();

    // Peaks (start, height), left to right.
    let peaks: Vec<(u64, u32)> = (0..64u32)
        .rev()
        .filter(|h| leaf_count >> h & 1 == 1)
        .scan(0u64, |start, h| {
            let peak = (*start, h);
            *start += 1 << h;
            Some(peak)
        })
        .collect();

    // Replay upstream verification: which item is which sibling / peak.
    let mut items = proof_items.iter();
    let mut siblings: HashMap<(u64, u32), [u8; 32]> = HashMap::new();
    let mut plans: Vec<PeakPlan> = Vec::with_capacity(peaks.len());
    let mut exhausted_at = None;
    for (k, &(start, height)) in peaks.iter().enumerate() {
        let inside = leaves_in(&indexes, start, height);
        if inside.is_empty() {
            match items.next() {
                Some(item) => plans.push(PeakPlan::Item(*item)),
                None => {
                    exhausted_at = Some(k);
                    break;
                }
            }
            continue;
        }
        // Upstream's breadth-first walk (calculate_peak_root), in (first, height) terms.
        let mut queue: VecDeque<(u64, u32)> = inside.iter().map(|&i| (i, 0)).collect();
        while let Some((first, h)) = queue.pop_front() {
            if h == height {
                break;
            }
            let sibling = (first ^ (1 << h), h);
            if queue.front() == Some(&sibling) {
                queue.pop_front();
            } else {
                let item = items.next().ok_or(CompileError::MissingProofItem)?;
                siblings.insert(sibling, *item);
            }
            queue.push_back((first & !(1 << h), h + 1));
        }
        plans.push(PeakPlan::Leaves);
    }
    if let Some(k) = exhausted_at {
        // Upstream stops here and treats the previous item as the bagging of all the
        // remaining peaks; that is only right when it was a leafless peak's item and no
        // later peak holds a leaf.
        let later_leaves = peaks[k..]
            .iter()
            .any(|&(s, h)| !leaves_in(&indexes, s, h).is_empty());
        match plans.pop() {
            Some(PeakPlan::Item(item)) if !later_leaves => plans.push(PeakPlan::BagRhs(item)),
            _ => return Err(CompileError::MissingProofItem),
        }
    }
    if items.next().is_some() {
        return Err(CompileError::UnusedProofItems);
    }
    Ok(Roles {
        records,
        peaks,
        plans,
        siblings,
    })
}

/// Compiles `MMR::gen_proof(positions).proof_items()` and the proved `(position, value)`
/// leaves (sorted by position, no duplicates) of an MMR of `mmr_size` nodes into a version 1
/// payload (a command stream).
pub fn compile(
    mmr_size: u64,
    proof_items: &[[u8; 32]],
    leaves: &[(u64, [u8; 32])],
) -> Result<Vec<u8>, CompileError> {
    let roles = roles(mmr_size, proof_items, leaves)?;
    let indexes = roles.indexes();
    let mut commands = Vec::new();
    for (plan, &(start, height)) in roles.plans.iter().zip(&roles.peaks) {
        match plan {
            PeakPlan::Leaves => {
                emit(&indexes, &roles, start, height, &mut commands)?;
                commands.push(Command::Peak);
            }
            PeakPlan::Item(item) => commands.push(Command::PeakProof(*item)),
            PeakPlan::BagRhs(item) => commands.push(Command::BagRhs(*item)),
        }
    }
    encode(&roles.records, &commands)
}

/// [`compile`] into the compact format (version 2): the same proof, its items in the order
/// the version 2 verifier consumes them. Trailing leafless peaks must be bagged into one
/// item, as `gen_proof` does ([`CompileError::UnbaggedPeaks`] otherwise).
pub fn compile_compact(
    mmr_size: u64,
    proof_items: &[[u8; 32]],
    leaves: &[(u64, [u8; 32])],
) -> Result<Vec<u8>, CompileError> {
    let roles = roles(mmr_size, proof_items, leaves)?;
    let indexes = roles.indexes();
    let mut ordered = Vec::new();
    for (k, (plan, &(start, height))) in roles.plans.iter().zip(&roles.peaks).enumerate() {
        match plan {
            PeakPlan::Leaves => {
                // The verifier's walk: each leaf rises to where the next one joins it.
                let inside = leaves_in(&indexes, start, height);
                let mut pending = 0u64;
                for (j, &index) in inside.iter().enumerate() {
                    let stop = match inside.get(j + 1) {
                        Some(&next) => 63 - (index ^ next).leading_zeros(),
                        None => height,
                    };
                    for h in 0..stop {
                        let first = index & !((1u64 << h) - 1);
                        if index >> h & 1 == 1 && pending >> h & 1 == 1 {
                            pending ^= 1 << h;
                        } else {
                            ordered.push(roles.item_for((first ^ (1 << h), h))?);
                        }
                    }
                    if stop < height {
                        pending |= 1 << stop;
                    }
                }
            }
            PeakPlan::Item(item) => {
                // A leafless peak after the last proved leaf, followed by more peaks: the
                // compact format has one bagging item for them.
                let later = roles.peaks.len() - k - 1;
                if later > 0
                    && roles.plans[k..]
                        .iter()
                        .all(|p| !matches!(p, PeakPlan::Leaves))
                {
                    return Err(CompileError::UnbaggedPeaks);
                }
                ordered.push(*item);
            }
            PeakPlan::BagRhs(item) => ordered.push(*item),
        }
    }
    Ok(encode_compact(&roles.records, &ordered))
}

/// Appends `value` as a varint: 7 bits per byte, low groups first, the high bit set on every
/// byte but the last.
pub(crate) fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Serialises proved leaves `(leaf index, value)` (ascending) and items (in the order the
/// verifier consumes them) into a compact (version 2) payload. Nothing is checked: this also
/// builds malformed payloads for tests.
pub fn encode_compact(leaves: &[(u64, [u8; 32])], items: &[[u8; 32]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + 3 * leaves.len() + 32 * (leaves.len() + items.len()));
    out.push(crate::compact::VERSION);
    push_varint(&mut out, leaves.len() as u64);
    let mut next = 0u64;
    for &(index, _) in leaves {
        push_varint(&mut out, index.wrapping_sub(next));
        next = index.wrapping_add(1);
    }
    for (_, value) in leaves {
        out.extend_from_slice(value);
    }
    for item in items {
        out.extend_from_slice(item);
    }
    out
}

/// The sorted leaf indexes inside the node `(first, height)`.
fn leaves_in(indexes: &[u64], first: u64, height: u32) -> &[u64] {
    let lo = indexes.partition_point(|&i| i < first);
    let hi = indexes.partition_point(|&i| i < first + (1 << height));
    &indexes[lo..hi]
}

/// Post-order traversal of the proof tree below `(first, height)`, which holds leaves.
fn emit(
    indexes: &[u64],
    roles: &Roles,
    first: u64,
    height: u32,
    out: &mut Vec<Command>,
) -> Result<(), CompileError> {
    if height == 0 {
        out.push(Command::Leaf);
        return Ok(());
    }
    let h = height - 1;
    let left = (first, h);
    let right = (first + (1 << h), h);
    let has_left = !leaves_in(indexes, left.0, h).is_empty();
    let has_right = !leaves_in(indexes, right.0, h).is_empty();
    match (has_left, has_right) {
        (true, true) => {
            emit(indexes, roles, left.0, h, out)?;
            emit(indexes, roles, right.0, h, out)?;
            out.push(Command::Merge);
        }
        (true, false) => {
            emit(indexes, roles, left.0, h, out)?;
            out.push(Command::Proof(roles.item_for(right)?));
        }
        (false, true) => {
            emit(indexes, roles, right.0, h, out)?;
            out.push(Command::Proof(roles.item_for(left)?));
        }
        (false, false) => return Err(CompileError::MissingProofItem),
    }
    Ok(())
}
