//! The accumulator's MMR from a persistent store (crates/mmr-store) instead of a leaves file:
//! `--store DIR` on `acc create|append|extend` and `spend --acc`, and `acc sync`, which
//! rebuilds a store from the leaves the chain holds (docs/accumulator-guide.md, "Sync from the
//! chain").
//!
//! Nothing built from a store is sent before it is checked against the chain: the store's
//! root at the accumulator's size must be the chain's root (else exit 20), and every payload
//! is verified by the type script's own core against the live cell's data, so a damaged store
//! never reaches the node.

use crate::accumulator::{self, Accumulator, Host};
use crate::chain::{progress, Chain};
use crate::error::{Error, Result};
use crate::mmr_cell;
use crate::{hex, Workload};
use ckb_types::{packed, prelude::*, H256};
use mmr_accumulator::{build, tag, Commitment};
use mmr_store::Store;
use serde::Serialize;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// Where a command reads the MMR from.
pub enum Leaves {
    /// A leaves file: the whole MMR's leaves, in order.
    File { path: String, leaves: Vec<[u8; 32]> },
    /// A store, opened read-only (a writer, `acc sync` or `mmr-store append`, may be running).
    Store(Store),
}

impl Leaves {
    /// `--store DIR` or `--leaves FILE`, exactly one.
    pub fn from_args(store: Option<&str>, file: Option<&str>) -> Result<Leaves> {
        match (store, file) {
            (Some(dir), None) => Ok(Leaves::Store(Store::open_read_only(Path::new(dir))?)),
            (None, Some(path)) => Ok(Leaves::File {
                path: path.to_string(),
                leaves: mmr_cell::read_leaves(path)?,
            }),
            _ => Err(Error::Usage(
                "give the MMR as --leaves FILE or --store DIR (one of them)".into(),
            )),
        }
    }

    /// A store reopened, to see what a writer committed since (a spend rebuilt after its
    /// accumulator moved on proves against the new root).
    pub fn refresh(&mut self) -> Result<()> {
        if let Leaves::Store(s) = self {
            *s = Store::open_read_only(s.dir())?;
        }
        Ok(())
    }

    pub fn leaf_count(&self) -> u64 {
        match self {
            Leaves::File { leaves, .. } => leaves.len() as u64,
            Leaves::Store(s) => s.leaf_count(),
        }
    }

    /// Every leaf, for a creation (its witness carries them all).
    pub fn all(&self) -> Result<Vec<[u8; 32]>> {
        match self {
            Leaves::File { leaves, .. } => Ok(leaves.clone()),
            Leaves::Store(s) if s.leaf_count() == 0 => Err(Error::Store(mmr_store::Error::Empty(
                "an accumulator needs at least one leaf",
            ))),
            Leaves::Store(s) => Ok(s.leaves(0, s.leaf_count())?),
        }
    }

    /// Refuses an MMR that does not hold the accumulator's as a prefix: a file whose first
    /// leaves are others (17), a store behind the chain (17) or of another accumulator (41), a
    /// store whose root at the chain's size is another (20).
    pub fn check_prefix(&self, acc: &Accumulator) -> Result<()> {
        let store = match self {
            Leaves::File { path, leaves } => return acc.check_prefix(leaves, path),
            Leaves::Store(s) => s,
        };
        store.expect_accumulator(&acc.type_id)?;
        if store.leaf_count() < acc.leaf_count {
            return Err(Error::NotExtending(format!(
                "the store {} holds {} leaves, the accumulator already {}: run ckb-devnet acc \
                 sync --type-id {} --store {0}",
                store.dir().display(),
                store.leaf_count(),
                acc.leaf_count,
                hex(&acc.type_id)
            )));
        }
        let root = store.root_at(acc.commitment.mmr_size)?;
        if root != acc.commitment.root {
            return Err(Error::StoreDisagrees(format!(
                "the store {} has root {} at mmr_size {}, the accumulator {}",
                store.dir().display(),
                hex(&root),
                acc.commitment.mmr_size,
                hex(&acc.commitment.root)
            )));
        }
        Ok(())
    }

    /// A proof of `indexes` against the accumulator's current root. An index the
    /// accumulator does not hold is 9 from either source, checked before the proof is built:
    /// the file or store may hold more leaves than the chain, but the spend proves against the
    /// live cell (so a store is never asked for it, and never answers its own 43).
    pub fn prove(&self, acc: &Accumulator, indexes: &[u64]) -> Result<Workload> {
        self.check_prefix(acc)?;
        mmr_cell::check_indexes(indexes, acc.leaf_count, "the accumulator's MMR")?;
        match self {
            Leaves::File { leaves, .. } => {
                mmr_cell::prove(&leaves[..acc.leaf_count as usize], indexes)
            }
            // The store checks the proof against its root at that size, which check_prefix
            // found equal to the chain's.
            Leaves::Store(s) => Ok(Workload::from_store(s, acc.commitment.mmr_size, indexes)?),
        }
    }

    /// The new commitment and the `APPEND` (or, with `extend`, `EXTEND`) payload that takes
    /// the accumulator to this MMR's first `target` leaves, verified against the live cell's
    /// data by the type script's core before it is returned.
    pub fn growth(
        &self,
        acc: &Accumulator,
        extend: bool,
        target: u64,
    ) -> Result<(Commitment, Vec<u8>)> {
        self.check_prefix(acc)?;
        if target <= acc.leaf_count || target > self.leaf_count() {
            return Err(Error::NotExtending(format!(
                "the MMR holds {} leaves and the accumulator {}: nothing to add up to {target}",
                self.leaf_count(),
                acc.leaf_count
            )));
        }
        let (new, payload) = match self {
            Leaves::File { leaves, .. } => {
                let leaves = &leaves[..target as usize];
                let update = if extend {
                    accumulator::Update::Extend(leaves)
                } else {
                    accumulator::Update::Append(leaves)
                };
                let (new, _, payload) = update.parts(acc)?;
                (new, payload)
            }
            Leaves::Store(s) => {
                let old = acc.commitment.mmr_size;
                let new_size = mmr_lock::mmr::mmr_size_of(target);
                let payload = if extend {
                    mmr_accumulator::build::extend_payload(&s.ancestry_proof(old, new_size)?)
                } else {
                    s.append_payload(old, new_size)?
                };
                let new = Commitment {
                    root: s.root_at(new_size)?,
                    mmr_size: new_size,
                };
                (new, payload)
            }
        };
        let mut ws = mmr_accumulator::Workspace::new();
        mmr_accumulator::verify_update::<Host>(
            &mut ws,
            &payload,
            &acc.commitment.to_bytes(),
            &new.to_bytes(),
        )
        .map_err(|e| {
            Error::StoreDisagrees(format!(
                "the payload to mmr_size {} does not verify against the accumulator's root {} \
                 (type script code {}): a damaged store? run mmr-store check",
                new.mmr_size,
                hex(&acc.commitment.root),
                e.code()
            ))
        })?;
        Ok((new, payload))
    }
}

/// One transaction of the accumulator's history, as `acc sync` (and the pool's walk,
/// `pool_tip`) reads it.
pub(crate) struct Step {
    pub(crate) hash: H256,
    /// The transition's tag (`tag::CREATE` ...), the first byte of the type script's payload.
    pub(crate) tag: u8,
    /// The leaves the witness carries (`CREATE`, `APPEND`), else none.
    pub(crate) leaves: Vec<[u8; 32]>,
    /// The accumulator cell this transaction left, and its data.
    pub(crate) out_point: packed::OutPoint,
    pub(crate) commitment: Commitment,
}

/// What `acc sync` did.
pub struct SyncReport {
    pub transactions: usize,
    pub appended_leaves: u64,
    pub commits: u64,
    pub state: mmr_store::Commit,
    pub seconds: f64,
}

/// What `acc sync` reports (`ms_per_1000_leaves` is null when nothing was appended).
#[derive(Debug, Clone, Serialize)]
pub struct SyncRow {
    pub type_id: String,
    pub transactions: usize,
    pub appended_leaves: u64,
    pub commits: u64,
    pub leaf_count: u64,
    pub mmr_size: u64,
    pub root: String,
    pub seconds: f64,
    pub ms_per_1000_leaves: Option<f64>,
}

impl SyncReport {
    /// The sync as a report row.
    pub fn row(&self, type_id: &[u8; 32]) -> SyncRow {
        SyncRow {
            type_id: hex(type_id),
            transactions: self.transactions,
            appended_leaves: self.appended_leaves,
            commits: self.commits,
            leaf_count: self.state.leaf_count,
            mmr_size: self.state.mmr_size,
            root: hex(&self.state.root),
            seconds: self.seconds,
            ms_per_1000_leaves: (self.appended_leaves > 0)
                .then(|| self.seconds * 1000.0 * 1000.0 / self.appended_leaves as f64),
        }
    }

    pub fn to_json(&self, type_id: &[u8; 32]) -> Value {
        serde_json::to_value(self.row(type_id)).expect("a sync row serializes")
    }
}

fn bad_step(hash: &H256, why: &str) -> Error {
    Error::NotFound(format!(
        "transaction {hash:#x} of the accumulator's history: {why}"
    ))
}

/// The transition of the accumulator in `tx`: `prev` is the accumulator cell it spends (none
/// for the creation). Under a ring's type script (33-byte args) the accumulator is the head:
/// the output whose data is the head's length; its witness is at the head's input (or, at
/// creation, output) index; the snapshot outputs must hold the head's new state (20 if not).
pub(crate) fn read_step(
    hash: H256,
    tx: &packed::Transaction,
    type_script: &packed::Script,
    prev: Option<&(packed::OutPoint, Commitment)>,
) -> Result<Step> {
    let raw = tx.raw();
    let script_args = type_script.args().raw_data();
    let ring_k = (script_args.len() == 33).then(|| script_args[32]);
    let data_of = |i: usize| {
        raw.outputs_data()
            .get(i)
            .map(|d| d.raw_data().to_vec())
            .unwrap_or_default()
    };
    let outputs: Vec<usize> = raw
        .outputs()
        .into_iter()
        .enumerate()
        .filter(|(_, o)| {
            o.type_().to_opt().as_ref().map(|t| t.as_slice()) == Some(type_script.as_slice())
        })
        .map(|(i, _)| i)
        .collect();
    let (output, snapshots) = match ring_k {
        None => match outputs[..] {
            [output] => (output, Vec::new()),
            _ => return Err(bad_step(&hash, "not exactly one accumulator output")),
        },
        Some(k) => {
            let (heads, snaps): (Vec<usize>, Vec<usize>) = outputs
                .iter()
                .partition(|&&i| data_of(i).len() == crate::ring::head_len(k));
            match heads[..] {
                [head] => (head, snaps),
                _ => {
                    return Err(bad_step(
                        &hash,
                        "not exactly one head among the ring's outputs",
                    ))
                }
            }
        }
    };
    // The type script reads the witness of its group's first input (a ring: the head's), or
    // of its first output (a ring: the head's) when it has no input (a creation), in the same
    // position.
    let input = raw
        .inputs()
        .into_iter()
        .position(|i| Some(i.previous_output().as_slice()) == prev.map(|p| p.0.as_slice()));
    let (witness_at, field) = match (prev, input) {
        (None, _) => (output, "output_type"),
        (Some(_), Some(i)) => (i, "input_type"),
        (Some(_), None) => return Err(bad_step(&hash, "does not spend the last accumulator cell")),
    };
    let witness = tx
        .witnesses()
        .get(witness_at)
        .ok_or_else(|| bad_step(&hash, "no witness for the accumulator"))?;
    let args = packed::WitnessArgs::from_slice(&witness.raw_data())
        .map_err(|_| bad_step(&hash, "the accumulator's witness is no WitnessArgs"))?;
    let payload = if field == "output_type" {
        args.output_type().to_opt()
    } else {
        args.input_type().to_opt()
    }
    .map(|b| b.raw_data().to_vec())
    .ok_or_else(|| bad_step(&hash, &format!("no {field} in the accumulator's witness")))?;
    let data = data_of(output);
    let state = data.get(..mmr_accumulator::COMMITMENT_LEN).unwrap_or(&data);
    let (root, mmr_size) = mmr_accumulator::split_data(state)
        .map_err(|_| bad_step(&hash, "the accumulator's data is not root || mmr_size"))?;
    let commitment = Commitment {
        root: *root,
        mmr_size,
    };
    let tag = payload.first().copied().unwrap_or(0);
    // A KEEP rewrites the snapshots unchanged; every other ring transition writes the head's
    // new state into each snapshot it outputs.
    if ring_k.is_some() && tag != tag::KEEP {
        if let Some(&i) = snapshots.iter().find(|&&i| data_of(i) != state) {
            return Err(Error::StoreDisagrees(format!(
                "transaction {hash:#x} writes a ring snapshot (output {i}) that is not the \
                 head's new state (root {}, mmr_size {mmr_size})",
                hex(root)
            )));
        }
    }
    let old_leaves = match prev {
        Some((_, old)) => build::leaves_of(old.mmr_size).unwrap_or(0),
        None => 0,
    };
    let leaves = match tag {
        tag::CREATE | tag::APPEND => carried_leaves(&payload[1..], old_leaves)
            .ok_or_else(|| bad_step(&hash, "an append body the type script would refuse"))?,
        _ => Vec::new(),
    };
    Ok(Step {
        hash: hash.clone(),
        tag,
        leaves,
        out_point: packed::OutPoint::new(hash.pack(), output as u32),
        commitment,
    })
}

/// The leaves of a `CREATE` or `APPEND` body (docs/accumulator.md) over an MMR of
/// `old_leaves` leaves: its peaks (one per bit of the count), a u32 LE count, the leaves,
/// nothing after.
fn carried_leaves(body: &[u8], old_leaves: u64) -> Option<Vec<[u8; 32]>> {
    let at = 32 * old_leaves.count_ones() as usize;
    let count = u32::from_le_bytes(body.get(at..at + 4)?.try_into().ok()?) as usize;
    let leaves = body.get(at + 4..)?;
    if leaves.len() != 32 * count {
        return None;
    }
    Some(
        leaves
            .chunks_exact(32)
            .map(|c| c.try_into().expect("32 bytes"))
            .collect(),
    )
}

/// Follows the accumulator `type_id`'s transactions through the node's indexer, oldest first,
/// and brings the store up to the chain: each creation's and append's leaves are appended
/// (one commit each) only if they give the root the transaction left; a step the store already
/// holds is checked against the store's root at that size. Stops at an extension or an import
/// (19, naming the transaction) with the store at the last verified root.
pub fn sync(
    chain: &Chain,
    code_hash: [u8; 32],
    type_id: [u8; 32],
    store: &mut Store,
) -> Result<SyncReport> {
    let start = Instant::now();
    store.expect_accumulator(&type_id)?;
    chain.wait_indexer()?;
    // A ring's transactions are found under its own script (33-byte args): see what lives.
    let type_script = match crate::ring::locate(chain, code_hash, type_id) {
        Ok(crate::ring::Located::Ring(r)) => r.type_script(),
        _ => accumulator::type_script(code_hash, type_id),
    };
    let hashes = chain.rpc.transaction_hashes(&json!({
        "script": crate::wallet::script_json(&type_script),
        "script_type": "type",
        "script_search_mode": "exact",
    }))?;
    if hashes.is_empty() {
        return Err(Error::NotFound(format!(
            "no transaction of the accumulator under type id {} (code hash {})",
            hex(&type_id),
            hex(&code_hash)
        )));
    }
    progress(&format!(
        "syncing {} transactions of the accumulator into {} (at {} leaves)",
        hashes.len(),
        store.dir().display(),
        store.leaf_count()
    ));
    let mut prev: Option<(packed::OutPoint, Commitment)> = None;
    let mut appended = 0;
    let mut commits = 0;
    for (n, hash) in hashes.iter().enumerate() {
        let tx = chain
            .rpc
            .transaction(hash)?
            .and_then(|t| t.tx)
            .ok_or_else(|| bad_step(hash, "the node does not return it"))?;
        let step = read_step(hash.clone(), &tx, &type_script, prev.as_ref())?;
        let c = step.commitment;
        if c.mmr_size <= store.mmr_size() {
            // Already in the store (a resumed sync, or leaves appended by hand): it must agree.
            let root = store.root_at(c.mmr_size)?;
            if root != c.root {
                return Err(Error::StoreDisagrees(format!(
                    "after transaction {:#x} the accumulator has root {} at mmr_size {}, the \
                     store {}",
                    step.hash,
                    hex(&c.root),
                    c.mmr_size,
                    hex(&root)
                )));
            }
        } else if step.tag == tag::CREATE || step.tag == tag::APPEND {
            let new_leaves = build::leaves_of(c.mmr_size)
                .ok_or_else(|| bad_step(&step.hash, "an mmr_size that is no MMR's"))?;
            let first = new_leaves - step.leaves.len() as u64;
            let have = store.leaf_count();
            if have < first {
                return Err(Error::StoreDisagrees(format!(
                    "transaction {:#x} appends leaves {first}.. but the store holds {have}",
                    step.hash
                )));
            }
            let missing = &step.leaves[(have - first) as usize..];
            store
                .append_expecting(missing, Some(&c.root))
                .map_err(|e| match e {
                    mmr_store::Error::RootMismatch { computed, .. } => {
                        Error::StoreDisagrees(format!(
                            "the leaves of transaction {:#x} give root {} at mmr_size {} in the \
                             store, the chain {}",
                            step.hash,
                            hex(&computed),
                            c.mmr_size,
                            hex(&c.root)
                        ))
                    }
                    e => Error::Store(e),
                })?;
            appended += missing.len() as u64;
            commits += 1;
        } else {
            let what = if step.tag == tag::EXTEND {
                "extends the accumulator by an ancestry proof"
            } else {
                "imports a commitment"
            };
            return Err(Error::NoChainLeaves(format!(
                "transaction {:#x} {what} to mmr_size {} without its leaves; the store stays at \
                 mmr_size {} (append the missing leaves with mmr-store append, then sync again)",
                step.hash,
                c.mmr_size,
                store.mmr_size()
            )));
        }
        if store.accumulator().is_none() {
            // Recorded once the chain and the store agreed on a root.
            store.set_accumulator(type_id)?;
        }
        prev = Some((step.out_point, c));
        if (n + 1) % 100 == 0 {
            progress(&format!(
                "synced {} of {} transactions ({} leaves)",
                n + 1,
                hashes.len(),
                store.leaf_count()
            ));
        }
    }
    Ok(SyncReport {
        transactions: hashes.len(),
        appended_leaves: appended,
        commits,
        state: store.state()?,
        seconds: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(n: u8) -> Vec<[u8; 32]> {
        (0..n).map(|i| [i + 1; 32]).collect()
    }

    /// A ring's creation read as `acc sync` reads it: the head is the accumulator, and a
    /// snapshot holding another state is the documented disagreement (20), not a panic.
    #[test]
    fn a_ring_step_is_read_at_the_head_and_its_snapshots_checked() {
        let code = crate::deploy::Deployment::fake_data2([7; 32]);
        let all = leaves(5);
        let creation = crate::ring::Creation::Create(&all);
        let draft =
            crate::ring::create_draft(&code, packed::Script::default(), 3, creation).unwrap();
        let script = crate::ring::type_script([7; 32], [0; 32], 3);
        let tx = |tamper: bool| {
            let mut d = draft.clone();
            for (o, _) in &mut d.outputs {
                *o = o
                    .clone()
                    .as_builder()
                    .type_(Some(script.clone()).pack())
                    .build();
            }
            if tamper {
                let mut data = d.outputs[2].1.to_vec();
                data[0] ^= 1;
                d.outputs[2].1 = data.into();
            }
            d.unsigned_tx(None)
        };
        let step = read_step(H256::default(), &tx(false), &script, None).unwrap();
        assert_eq!(step.tag, tag::CREATE);
        assert_eq!(step.leaves, all);
        assert_eq!(step.commitment, accumulator::commitment(&all).unwrap());
        let head_at: u32 = step.out_point.index().unpack();
        assert_eq!(head_at, 0, "the head's output");
        let e = read_step(H256::default(), &tx(true), &script, None)
            .err()
            .unwrap();
        assert!(matches!(e, Error::StoreDisagrees(_)), "{e}");
        assert_eq!(e.exit_code(), 20);
    }

    #[test]
    fn carried_leaves_reads_create_and_append_bodies() {
        for n in 1..12u8 {
            let all = leaves(n);
            let create = build::create_payload(&all);
            assert_eq!(carried_leaves(&create[1..], 0), Some(all.clone()));
            for old in 1..n {
                let peaks = build::Nodes::new::<Host>(&all[..old as usize]).peaks(old as u64);
                let append = build::append_payload(&peaks, &all[old as usize..]);
                assert_eq!(
                    carried_leaves(&append[1..], old as u64),
                    Some(all[old as usize..].to_vec()),
                    "{old} -> {n}"
                );
            }
        }
        assert_eq!(carried_leaves(&[1, 0, 0], 0), None);
        assert_eq!(carried_leaves(&[0; 37], 0), None);
        assert_eq!(carried_leaves(&[0; 36], 1), Some(vec![]));
    }
}
