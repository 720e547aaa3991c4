//! The accumulator ring (docs/accumulator.md, section 7): a head and K snapshot cells
//! under one accumulator type script whose args are `type_id || K`. The head holds the
//! accumulator's state and the sizes of the other snapshots (`older`, oldest first); each
//! snapshot holds one of the last K states, 40 bytes, and is what a by-reference spend takes as
//! its cell dep (today's locks accept it unchanged). An `APPEND` or `EXTEND` consumes the head
//! and the oldest snapshot and rewrites that snapshot with the new state, so a snapshot stays
//! live for K - 1 appends after the one that wrote it.
//!
//! Here: finding a ring's cells through the indexer, the transactions that create a ring,
//! step it (append, extend) and hand it over (`KEEP`), and the spender that proves against the
//! newest committed snapshot and rebuilds when an append consumed it
//! ([`spend`]). The contract checks everything again; these only build what it accepts.
//!
//! ```no_run
//! use ckb_mmr_sdk::{accumulator::{self, Update}, deploy::Deployment, mmr_cell::{self, Spend}};
//! use ckb_mmr_sdk::{ring, rpc::IndexedCell, wallet::Wallet, Format, Mode};
//! # fn example(wallet: &Wallet, acc_code: &Deployment, verifier: &Deployment,
//! #     cell: IndexedCell, leaves: &[[u8; 32]]) -> ckb_mmr_sdk::error::Result<()> {
//! // A ring of K = 8 over the first 5 leaves.
//! let creation = ring::Creation::Create(&leaves[..5]);
//! let draft = ring::create_draft(acc_code, wallet.key.lock(), ring::DEFAULT_K, creation)?;
//! let built = accumulator::complete(wallet, draft)?;
//! accumulator::send(wallet, &built, "creating a ring")?;
//! let r = ring::after_creation(acc_code.data_hash, &built)?;
//!
//! // An append: the head and the oldest snapshot in, both out.
//! let (new, _, payload) = Update::Append(leaves).parts(&r.head)?;
//! let draft = ring::step_draft(&r, acc_code, &new, &payload)?;
//! accumulator::send(wallet, &accumulator::complete(wallet, draft)?, "appending")?;
//!
//! // A spend of a cell locked by reference to the ring (r.reference_lock), on the newest
//! // committed snapshot, rebuilt whenever an append consumed it, for up to ten minutes.
//! let limit = std::time::Duration::from_secs(600);
//! let spent = ring::spend(wallet.chain, acc_code.data_hash, r.type_id(), r.k, limit, |s| {
//!     let w = mmr_cell::prove(&leaves[..s.leaf_count as usize], &[0])?;
//!     Spend::new(cell.clone(), verifier.clone(), &w, Format::Compiled, Mode::Plain)?
//!         .with_dep(s.cell_dep())
//!         .build(wallet)
//! })?;
//! println!("committed {:#x} after {} rebuilds", spent.hash, spent.rebuilds);
//! # Ok(())
//! # }
//! ```

use crate::accumulator::{self, type_witness, Accumulator};
use crate::chain::Chain;
use crate::deploy::{CodeRef, Deployment};
use crate::error::{Error, Result};
use crate::rpc::IndexedCell;
use crate::wallet::{exact_output, type_cells, Built, Draft, Wallet};
use crate::{hex, Mode};
use ckb_types::{bytes::Bytes, packed, prelude::*};
use mmr_accumulator::{build, tag, Commitment, COMMITMENT_LEN};

/// The smallest and largest K the type script accepts (else -100 `RingArgs`), and the head's
/// data length `40 + 8 (K - 1)`: the contract's own core's.
pub use mmr_accumulator::ring::{head_len, MAX_K, MIN_K};
/// The K tools and the load scenario use unless told otherwise.
pub const DEFAULT_K: u8 = 8;

/// `k` if the type script accepts it, else a usage error.
pub fn check_k(k: u8) -> Result<u8> {
    if (MIN_K..=MAX_K).contains(&k) {
        Ok(k)
    } else {
        Err(Error::Usage(format!(
            "a ring's K is {MIN_K} to {MAX_K}, not {k}"
        )))
    }
}

pub use crate::accumulator::ring_type_script as type_script;

/// The head's data: the state, then `older`.
pub fn head_data(c: &Commitment, older: &[u64]) -> Vec<u8> {
    let mut out = c.to_bytes().to_vec();
    for size in older {
        out.extend_from_slice(&size.to_le_bytes());
    }
    out
}

/// A live ring: its head and its K snapshots.
#[derive(Clone, Debug)]
pub struct Ring {
    pub k: u8,
    /// The head as an accumulator: its cell, its state (the data's first 40 bytes) and leaf
    /// count; what appends and stores check against.
    pub head: Accumulator,
    /// The other snapshots' sizes, oldest first (the head's data after its state).
    pub older: Vec<u64>,
    /// The K snapshots, each a by-reference dep (`ring_k` set, so their type hash is the ring's).
    pub snapshots: Vec<Accumulator>,
}

fn not_ring(type_id: &[u8; 32], why: String) -> Error {
    Error::NotFound(format!("a ring under type id {}: {why}", hex(type_id)))
}

/// The ring made of `cells` (all carrying its type script): exactly one head (data of
/// [`head_len`]) and K snapshots of 40 bytes, else [`Error::NotFound`] saying what is wrong.
pub fn parse(
    cells: Vec<IndexedCell>,
    code_hash: [u8; 32],
    type_id: [u8; 32],
    k: u8,
) -> Result<Ring> {
    let bad = |why: String| not_ring(&type_id, why);
    check_k(k).map_err(|_| bad(format!("K {k} is out of range")))?;
    let (heads, snaps): (Vec<IndexedCell>, Vec<IndexedCell>) = cells
        .into_iter()
        .partition(|c| c.data.as_ref().map_or(0, Vec::len) != COMMITMENT_LEN);
    let [head] = <[IndexedCell; 1]>::try_from(heads).map_err(|h| {
        let n = h.len();
        bad(format!(
            "{n} cells whose data is not 40 bytes, expected one head"
        ))
    })?;
    if snaps.len() != usize::from(k) {
        return Err(bad(format!("{} snapshots, expected K = {k}", snaps.len())));
    }
    let data = head.data.clone().unwrap_or_default();
    if data.len() != head_len(k) {
        let (n, want) = (data.len(), head_len(k));
        return Err(bad(format!("the head holds {n} bytes, not {want}")));
    }
    let older = data[COMMITMENT_LEN..]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let mut as_40 = head.clone();
    as_40.data = Some(data[..COMMITMENT_LEN].to_vec());
    let mut head = accumulator::parse(as_40, code_hash, type_id)?;
    head.cell.data = Some(data);
    head.ring_k = Some(k);
    let mut snapshots = snaps
        .into_iter()
        .map(|c| {
            let mut s = accumulator::parse(c, code_hash, type_id)?;
            s.ring_k = Some(k);
            Ok(s)
        })
        .collect::<Result<Vec<_>>>()?;
    // Snapshots of equal size were written by one transaction (creation or KEEP): in output
    // order, the appender consumes the first and the spender takes the last, whatever order
    // the indexer lists them in (the TypeScript kit sorts the same way).
    snapshots.sort_by_key(|s| {
        let op = &s.cell.out_point;
        let index: u32 = op.index().unpack();
        (op.tx_hash().raw_data(), index)
    });
    Ok(Ring {
        k,
        head,
        older,
        snapshots,
    })
}

/// The live ring `type_id || k` whose type script's code is `code_hash`.
pub fn find(chain: &Chain, code_hash: [u8; 32], type_id: [u8; 32], k: u8) -> Result<Ring> {
    let cells = type_cells(chain, &type_script(code_hash, type_id, k), "exact")?;
    parse(cells, code_hash, type_id, k)
}

/// What lives under a type id: a plain accumulator (32-byte args) or a ring (33).
#[derive(Clone, Debug)]
pub enum Located {
    Plain(Accumulator),
    Ring(Ring),
}

/// The accumulator or ring under `type_id`, whichever lives: the indexer's prefix search on
/// the args finds both (a type id is unique, so never both).
pub fn locate(chain: &Chain, code_hash: [u8; 32], type_id: [u8; 32]) -> Result<Located> {
    let prefix = accumulator::type_script(code_hash, type_id);
    let cells = type_cells(chain, &prefix, "prefix")?;
    let args = |c: &IndexedCell| {
        c.output
            .type_()
            .to_opt()
            .map(|t| t.args().raw_data().to_vec())
    };
    match cells.first().and_then(args).map(|a| a.len()) {
        Some(33) => {
            let k = args(&cells[0]).expect("args")[32];
            if cells.iter().any(|c| args(c).map(|a| a.len()) != Some(33)) {
                return Err(not_ring(&type_id, "cells of several kinds".into()));
            }
            // Every cell must carry the same K: parse sees a short ring otherwise.
            let same: Vec<IndexedCell> = cells
                .into_iter()
                .filter(|c| args(c).map(|a| a[32]) == Some(k))
                .collect();
            Ok(Located::Ring(parse(same, code_hash, type_id, k)?))
        }
        _ => accumulator::find(chain, code_hash, type_id).map(Located::Plain),
    }
}

/// The key's rings of `k` whose head holds `c`: what a rerun of `acc create --ring` finds
/// instead of creating a second one.
pub fn find_held(wallet: &Wallet, code_hash: [u8; 32], k: u8, c: &Commitment) -> Result<Vec<Ring>> {
    let mut out = Vec::new();
    for (cell, args) in accumulator::held_cells(wallet, code_hash)? {
        let data = cell.data.clone().unwrap_or_default();
        let holds_c = data.len() == head_len(k) && data[..COMMITMENT_LEN] == c.to_bytes();
        if args.len() != 33 || args[32] != k || !holds_c {
            continue;
        }
        let type_id: [u8; 32] = args[..32].try_into().expect("32 bytes");
        if let Ok(r) = find(wallet.chain, code_hash, type_id, k) {
            out.push(r);
        }
    }
    Ok(out)
}

impl Ring {
    pub fn code_hash(&self) -> [u8; 32] {
        self.head.code_hash
    }

    pub fn type_id(&self) -> [u8; 32] {
        self.head.type_id
    }

    pub fn type_script(&self) -> packed::Script {
        self.head.type_script()
    }

    /// What by-reference lock args name: the ring's type hash (every cell's).
    pub fn type_hash(&self) -> [u8; 32] {
        self.head.type_hash()
    }

    pub fn lock(&self) -> packed::Script {
        self.head.lock()
    }

    /// A by-reference lock on this ring with the verifier `code`.
    pub fn reference_lock(&self, code: &CodeRef, mode: Mode) -> packed::Script {
        self.head.reference_lock(code, mode)
    }

    /// The snapshot a spend takes: the largest mmr_size. Right after creation all are equal:
    /// the last, since [`Ring::oldest`] takes the first, so the spend's dep is the tie the
    /// K-th append consumes, not the first.
    pub fn newest(&self) -> &Accumulator {
        // max_by_key keeps the last of equal maxima.
        self.snapshots
            .iter()
            .max_by_key(|s| s.commitment.mmr_size)
            .expect("a ring has K snapshots")
    }

    /// The snapshot the next append consumes: the one whose size is the head's `older[0]`.
    pub fn oldest(&self) -> Result<&Accumulator> {
        let want = self
            .older
            .first()
            .copied()
            .unwrap_or(self.head.commitment.mmr_size);
        self.snapshots
            .iter()
            .find(|s| s.commitment.mmr_size == want)
            .ok_or_else(|| {
                not_ring(
                    &self.type_id(),
                    format!("no snapshot of mmr_size {want}, the head's oldest"),
                )
            })
    }

    /// Every cell, head first.
    pub fn cells(&self) -> Vec<IndexedCell> {
        std::iter::once(self.head.cell.clone())
            .chain(self.snapshots.iter().map(|s| s.cell.clone()))
            .collect()
    }

    /// The ring a transaction leaves: this ring's cells it does not consume and its outputs
    /// under the ring's type script (an update or a `KEEP` built from this ring).
    pub fn after(&self, tx: &packed::Transaction) -> Result<Ring> {
        let consumed: Vec<Vec<u8>> = tx
            .raw()
            .inputs()
            .into_iter()
            .map(|i| i.previous_output().as_slice().to_vec())
            .collect();
        let mut cells: Vec<IndexedCell> = self
            .cells()
            .into_iter()
            .filter(|c| !consumed.contains(&c.out_point.as_slice().to_vec()))
            .collect();
        cells.extend(ring_outputs(tx, &self.type_script()));
        parse(cells, self.code_hash(), self.type_id(), self.k)
    }
}

/// The outputs of `tx` under `script`, as cells.
fn ring_outputs(tx: &packed::Transaction, script: &packed::Script) -> Vec<IndexedCell> {
    let hash = tx.calc_tx_hash();
    let raw = tx.raw();
    raw.outputs()
        .into_iter()
        .enumerate()
        .filter(|(_, o)| {
            o.type_().to_opt().map(|t| t.as_slice().to_vec()) == Some(script.as_slice().to_vec())
        })
        .filter_map(|(i, _)| IndexedCell::of_output(tx, hash.clone(), i))
        .collect()
}

/// The ring a committed creation left: the outputs under output 0's type script.
pub fn after_creation(code_hash: [u8; 32], built: &Built) -> Result<Ring> {
    let none = || Error::NotFound("a ring with type id args at output 0".into());
    let script = built
        .tx
        .raw()
        .outputs()
        .get(0)
        .and_then(|o| o.type_().to_opt())
        .ok_or_else(none)?;
    let args = script.args().raw_data();
    if args.len() != 33 {
        return Err(none());
    }
    let type_id: [u8; 32] = args[..32].try_into().expect("32 bytes");
    let cells = ring_outputs(&built.tx, &script);
    parse(cells, code_hash, type_id, args[32])
}

/// What a ring starts from.
pub enum Creation<'a> {
    /// `CREATE` from these leaves (the witness carries them all).
    Create(&'a [[u8; 32]]),
    /// `IMPORT` of a commitment (an existing accumulator's state; the leaves stay off chain).
    Import(Commitment),
}

/// The creation: the head at output 0 (its type id args are filled in from the first input,
/// over index 0, the head's), the K snapshots at outputs 1..=K holding the same state, every
/// output under `lock`; the witness at index 0 carries the payload as `output_type`.
pub fn create_draft(
    code: &Deployment,
    lock: packed::Script,
    k: u8,
    creation: Creation,
) -> Result<Draft> {
    let k = check_k(k)?;
    let (c, payload) = match creation {
        Creation::Create(leaves) => (
            accumulator::commitment(leaves)?,
            build::create_payload(leaves),
        ),
        Creation::Import(c) => {
            build::leaves_of(c.mmr_size)
                .filter(|&n| n > 0)
                .ok_or_else(|| Error::Usage(format!("mmr_size {} is no MMR's size", c.mmr_size)))?;
            (c, vec![tag::IMPORT])
        }
    };
    let script = type_script(code.data_hash, [0; 32], k);
    let older = vec![c.mmr_size; usize::from(k) - 1];
    let head = head_data(&c, &older);
    let snapshot = exact_output(lock.clone(), Some(script.clone()), COMMITMENT_LEN);
    let snapshot = (snapshot, Bytes::copy_from_slice(&c.to_bytes()));
    let head = (
        exact_output(lock, Some(script), head.len()),
        Bytes::from(head),
    );
    let mut outputs = vec![head];
    outputs.extend(std::iter::repeat_n(snapshot, usize::from(k)));
    Ok(Draft {
        cell_deps: vec![code.cell_dep()],
        outputs,
        witnesses: vec![type_witness(&payload, true)],
        type_id_output: Some(0),
        ..Draft::default()
    })
}

/// An `APPEND` or `EXTEND` to `new` with `payload` (built and checked against the head's state,
/// as for a plain accumulator): the head is input 0 and output 0 with `older` shifted by one,
/// the oldest snapshot input 1 and output 1 holding `new`, both under the head's lock; the
/// witness at index 0 carries the payload as `input_type`.
pub fn step_draft(
    ring: &Ring,
    code: &Deployment,
    new: &Commitment,
    payload: &[u8],
) -> Result<Draft> {
    let oldest = ring.oldest()?;
    let mut older = ring.older.get(1..).unwrap_or_default().to_vec();
    older.push(ring.head.commitment.mmr_size);
    let lock = ring.lock();
    let head_out = ring.head.cell.output.clone();
    let snap_out = oldest.cell.output.clone().as_builder().lock(lock).build();
    Ok(Draft {
        cell_deps: vec![code.cell_dep()],
        inputs: vec![
            (ring.head.cell.out_point.clone(), head_out.clone()),
            (oldest.cell.out_point.clone(), oldest.cell.output.clone()),
        ],
        outputs: vec![
            (head_out, Bytes::from(head_data(new, &older))),
            (snap_out, Bytes::copy_from_slice(&new.to_bytes())),
        ],
        witnesses: vec![type_witness(payload, false)],
        type_id_output: None,
    })
}

/// The hand-over: every cell of the ring in (head first), the same cells out in the same order
/// with the same data under `lock`; `KEEP` at index 0.
pub fn keep_draft(ring: &Ring, code: &Deployment, lock: &packed::Script) -> Draft {
    let cells = ring.cells();
    Draft {
        cell_deps: vec![code.cell_dep()],
        inputs: cells
            .iter()
            .map(|c| (c.out_point.clone(), c.output.clone()))
            .collect(),
        outputs: cells
            .iter()
            .map(|c| {
                let out = c.output.clone().as_builder().lock(lock.clone()).build();
                (out, Bytes::from(c.data.clone().unwrap_or_default()))
            })
            .collect(),
        witnesses: vec![type_witness(&[tag::KEEP], false)],
        type_id_output: None,
    }
}

mod spend;
pub use spend::{client_bug, consumed_line, names_consumed, spend, Spent};

#[cfg(test)]
mod tests;
