//! The accumulator on chain (docs/accumulator.md): its cell found by type id, the code cell
//! of its type script, the transactions that create it, append to it, extend it by an
//! ancestry proof and hand it over, and the locks that follow it by reference (their spends
//! carry the accumulator cell as a cell dep and prove against its current data).
//!
//! Payloads come from `mmr-accumulator`'s builders, the ones its own tests use; the client
//! checks every leaves file against the chain's commitment before it builds anything, so a
//! file that does not extend the chain's MMR is refused before a transaction exists.

use crate::chain::{progress, Chain};
use crate::deploy::{CodeRef, Deployment};
use crate::error::{Error, Result};
use crate::rpc::{IndexedCell, NodeError};
use crate::wallet::{exact_output, script_json, type_cells, Built, Draft, Pay, Wallet};
use crate::{hex, Mode};
use ckb_types::{bytes::Bytes, core::DepType, core::ScriptHashType, packed, prelude::*};
use mmr_accumulator::build::{self, Nodes};
use mmr_accumulator::{tag, Commitment};
use serde::Serialize;
use serde_json::{json, Value};

/// Where `./build.sh build` puts the type script.
pub const DEFAULT_BINARY: &str = "build/release/accumulator-type";

/// The node's error for a transaction whose input or cell dep is already spent.
pub const TRANSACTION_FAILED_TO_RESOLVE: i64 = -301;

/// The largest witness the secp256k1 lock (the accumulator's lock here, and the payer's of a
/// creation) reads: its group's first witness, which also carries the type script's payload,
/// must fit (it fails with -22 otherwise).
pub const LOCK_WITNESS_LIMIT: usize = 32_768;

/// `WitnessArgs` around the payload with the 65-byte signature: the table header (16), the
/// lock's length and bytes (4 + 65), the type field's length (4); then the payload's tag and
/// leaf count (1 + 4).
const WITNESS_OVERHEAD: usize = 16 + 4 + 65 + 4 + 1 + 4;

/// How many leaves one `APPEND` (or, with `old_leaves` 0, one `CREATE`) can carry under the
/// secp256k1 lock: the witness holds the old peaks and the leaves, 32 bytes each.
pub fn max_leaves_per_tx(old_leaves: u64) -> u64 {
    ((LOCK_WITNESS_LIMIT - WITNESS_OVERHEAD) / 32) as u64 - u64::from(old_leaves.count_ones())
}

/// The host's merge: blake2b-256 with CKB's personalization, what the type script computes.
pub struct Host;

impl mmr_accumulator::Merge for Host {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
        let mut hasher = ckb_hash::new_blake2b();
        hasher.update(left);
        hasher.update(right);
        hasher.finalize(out);
    }
}

/// The commitment of the MMR of `leaves`: no leaves is [`Error::Leaves`].
pub fn commitment(leaves: &[[u8; 32]]) -> Result<Commitment> {
    build::commitment::<Host>(leaves).ok_or_else(|| Error::Leaves {
        path: "leaves".into(),
        reason: "an MMR needs at least one leaf".into(),
    })
}

/// The accumulator's type script: the code cell's data hash, `data2` (the binary needs VM
/// version 2), the type id args.
pub fn type_script(code_hash: [u8; 32], type_id: [u8; 32]) -> packed::Script {
    crate::script::new(code_hash, ScriptHashType::Data2, &type_id)
}

/// The ring's type script: the accumulator's code, `data2`, args `type_id || K`.
pub fn ring_type_script(code_hash: [u8; 32], type_id: [u8; 32], k: u8) -> packed::Script {
    crate::script::new(
        code_hash,
        ScriptHashType::Data2,
        &[&type_id[..], &[k]].concat(),
    )
}

/// A live accumulator cell and the commitment it holds.
#[derive(Clone, Debug)]
pub struct Accumulator {
    pub cell: IndexedCell,
    pub code_hash: [u8; 32],
    pub type_id: [u8; 32],
    pub commitment: Commitment,
    pub leaf_count: u64,
    /// `Some(K)` for a snapshot (or the head) of a ring (docs/accumulator.md, section 7): its type script's args are `type_id || K`.
    pub ring_k: Option<u8>,
}

/// An accumulator as `ckb-devnet acc` and the scenario report it.
#[derive(Debug, Clone, Serialize)]
pub struct AccumulatorRow {
    pub type_id: String,
    pub type_hash: String,
    pub code_hash: String,
    pub root: String,
    pub mmr_size: u64,
    pub leaf_count: u64,
    pub out_point: String,
    pub lock_hash: String,
    pub lock_args: String,
    pub capacity_shannons: u64,
    /// A ring's K (its cells are a head and K snapshots); absent for a plain accumulator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ring_k: Option<u8>,
}

impl Accumulator {
    pub fn type_script(&self) -> packed::Script {
        match self.ring_k {
            Some(k) => ring_type_script(self.code_hash, self.type_id, k),
            None => type_script(self.code_hash, self.type_id),
        }
    }

    /// What by-reference lock args name.
    pub fn type_hash(&self) -> [u8; 32] {
        crate::bytes32(&self.type_script().calc_script_hash())
    }

    /// The accumulator as a by-reference spend's cell dep.
    pub fn cell_dep(&self) -> packed::CellDep {
        packed::CellDep::new_builder()
            .out_point(self.cell.out_point.clone())
            .dep_type(DepType::Code)
            .build()
    }

    pub fn lock(&self) -> packed::Script {
        self.cell.output.lock()
    }

    /// A by-reference lock on this accumulator with the verifier `code`.
    pub fn reference_lock(&self, code: &CodeRef, mode: Mode) -> packed::Script {
        code.lock(&crate::by_reference_args(&self.type_hash(), mode))
    }

    /// The accumulator as a report row.
    pub fn row(&self) -> AccumulatorRow {
        AccumulatorRow {
            type_id: hex(&self.type_id),
            type_hash: hex(&self.type_hash()),
            code_hash: hex(&self.code_hash),
            root: hex(&self.commitment.root),
            mmr_size: self.commitment.mmr_size,
            leaf_count: self.leaf_count,
            out_point: crate::out_point_text(&self.cell.out_point),
            lock_hash: hex(self.lock().calc_script_hash().as_slice()),
            lock_args: hex(&self.lock().args().raw_data()),
            capacity_shannons: self.cell.capacity(),
            ring_k: self.ring_k,
        }
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.row()).expect("an accumulator row serializes")
    }

    /// Refuses a key that cannot spend the accumulator's cell: nothing is built for it.
    pub fn check_holder(&self, wallet: &Wallet) -> Result<()> {
        if self.lock().as_slice() == wallet.key.lock().as_slice() {
            return Ok(());
        }
        Err(Error::NotHolder(format!(
            "the accumulator {} is locked by {} (args {}), not by this key's lock {}",
            hex(&self.type_id),
            hex(self.lock().calc_script_hash().as_slice()),
            hex(&self.lock().args().raw_data()),
            hex(&wallet.key.lock_hash())
        )))
    }

    /// Refuses a leaves file whose first `leaf_count` leaves are not the chain's MMR.
    pub fn check_prefix(&self, leaves: &[[u8; 32]], path: &str) -> Result<()> {
        let n = self.leaf_count as usize;
        if leaves.len() < n {
            return Err(Error::NotExtending(format!(
                "{path} has {} leaves, the accumulator already {n}: the file must hold all of them",
                leaves.len()
            )));
        }
        if commitment(&leaves[..n])? != self.commitment {
            return Err(Error::NotExtending(format!(
                "{path}: its first {n} leaves do not give the accumulator's root {} (mmr_size {})",
                hex(&self.commitment.root),
                self.commitment.mmr_size
            )));
        }
        Ok(())
    }
}

/// Parses an accumulator cell found through the indexer (or in the pool).
pub(crate) fn parse(
    cell: IndexedCell,
    code_hash: [u8; 32],
    type_id: [u8; 32],
) -> Result<Accumulator> {
    let data = cell.data.clone().unwrap_or_default();
    let bad = |why: &str| {
        Error::NotFound(format!(
            "an accumulator under type id {}: the cell at {} {why}",
            hex(&type_id),
            crate::out_point_text(&cell.out_point)
        ))
    };
    let (root, mmr_size) = mmr_accumulator::split_data(&data)
        .ok()
        .filter(|_| data.len() == mmr_accumulator::COMMITMENT_LEN)
        .ok_or_else(|| bad("does not hold 40 bytes"))?;
    let leaf_count =
        build::leaves_of(mmr_size).ok_or_else(|| bad("holds an mmr_size that is no MMR's"))?;
    let commitment = Commitment {
        root: *root,
        mmr_size,
    };
    Ok(Accumulator {
        cell,
        code_hash,
        type_id,
        commitment,
        leaf_count,
        ring_k: None,
    })
}

/// The live accumulator under `type_id` whose type script's code is `code_hash`.
pub fn find(chain: &Chain, code_hash: [u8; 32], type_id: [u8; 32]) -> Result<Accumulator> {
    let cells = type_cells(chain, &type_script(code_hash, type_id), "exact")?;
    match <[IndexedCell; 1]>::try_from(cells) {
        Ok([cell]) => parse(cell, code_hash, type_id),
        Err(cells) => Err(Error::NotFound(format!(
            "{} live accumulator cells under type id {} (code hash {}): expected one",
            cells.len(),
            hex(&type_id),
            hex(&code_hash)
        ))),
    }
}

/// The key's live cells under the accumulator's code, each with its type args: where a rerun
/// of `acc create` (plain or ring) looks for what it already made.
pub(crate) fn held_cells(
    wallet: &Wallet,
    code_hash: [u8; 32],
) -> Result<Vec<(IndexedCell, Bytes)>> {
    let any = crate::script::new(code_hash, ScriptHashType::Data2, &[]);
    let cells = wallet.chain.rpc.cells(&json!({
        "script": script_json(&any),
        "script_type": "type",
        "script_search_mode": "prefix",
        "filter": { "script": script_json(&wallet.key.lock()) },
        "with_data": true,
    }))?;
    Ok(cells
        .into_iter()
        .map(|cell| {
            let args = cell
                .output
                .type_()
                .to_opt()
                .map(|t| t.args().raw_data())
                .unwrap_or_default();
            (cell, args)
        })
        .collect())
}

/// The key's accumulators that hold `c`: what a rerun of `acc create` finds instead of
/// creating a second one.
pub fn find_held(wallet: &Wallet, code_hash: [u8; 32], c: &Commitment) -> Result<Vec<Accumulator>> {
    let parsed = held_cells(wallet, code_hash)?
        .into_iter()
        .filter_map(|(cell, args)| parse(cell, code_hash, args[..].try_into().ok()?).ok());
    Ok(parsed.filter(|acc| acc.commitment == *c).collect())
}

/// The live code cell of the type script: the one given, else the key's own deployment of
/// `binary`, else the one the accumulator's last transaction used (another admin's, after a
/// hand-over).
pub fn find_code(
    wallet: &Wallet,
    code_hash: [u8; 32],
    binary: Option<&[u8]>,
    given: Option<packed::OutPoint>,
    acc: Option<&Accumulator>,
) -> Result<Deployment> {
    let chain = wallet.chain;
    let at = |op: packed::OutPoint| -> Result<Option<Deployment>> {
        let Some((output, data)) = chain.rpc.live_cell(&op)? else {
            return Ok(None);
        };
        let data_hash = ckb_hash::blake2b_256(&data);
        let code = CodeRef::Data2 { data_hash };
        Ok((data_hash == code_hash).then(|| Deployment::found(op, output, data_hash, code)))
    };
    if let Some(op) = given {
        let text = crate::out_point_text(&op);
        return at(op)?.ok_or_else(|| {
            Error::NotFound(format!(
                "no live code cell of the accumulator type script (data hash {}) at {text}",
                hex(&code_hash)
            ))
        });
    }
    if let Some(binary) = binary {
        if let Some(d) = crate::deploy::find_own(wallet, binary, false)? {
            return Ok(d);
        }
    }
    if let Some(acc) = acc {
        let origin = chain
            .rpc
            .transaction(&acc.cell.out_point.tx_hash().unpack())?
            .and_then(|t| t.tx);
        for dep in origin.iter().flat_map(|tx| tx.raw().cell_deps()) {
            if dep.dep_type() == DepType::Code.into() {
                if let Some(d) = at(dep.out_point())? {
                    return Ok(d);
                }
            }
        }
    }
    Err(Error::NotFound(format!(
        "no code cell of the accumulator type script (data hash {}): deploy it (ckb-devnet \
         deploy {DEFAULT_BINARY}) or pass --code-dep TX:INDEX",
        hex(&code_hash)
    )))
}

/// `WitnessArgs` with `input_type` (an update) or `output_type` (a creation) set to
/// `payload`: the field the accumulator type script reads.
pub fn type_witness(payload: &[u8], creation: bool) -> Bytes {
    let field = Some(Bytes::copy_from_slice(payload)).pack();
    let args = packed::WitnessArgs::new_builder();
    let args = if creation {
        args.output_type(field)
    } else {
        args.input_type(field)
    };
    args.build().as_bytes()
}

/// The creation: the accumulator is output 0 (its type id args are filled in from the first
/// input the wallet picks), its witness `output_type` the `CREATE` payload.
pub fn create_draft(code: &Deployment, lock: packed::Script, leaves: &[[u8; 32]]) -> Result<Draft> {
    let c = commitment(leaves)?;
    let output = exact_output(
        lock,
        Some(type_script(code.data_hash, [0; 32])),
        mmr_accumulator::COMMITMENT_LEN,
    );
    Ok(Draft {
        cell_deps: vec![code.cell_dep()],
        outputs: vec![(output, Bytes::copy_from_slice(&c.to_bytes()))],
        witnesses: vec![type_witness(&build::create_payload(leaves), true)],
        type_id_output: Some(0),
        ..Draft::default()
    })
}

/// What an update puts in the accumulator's place.
pub enum Update<'a> {
    /// `APPEND` of the file's leaves past the chain's (`leaves` is the whole MMR's).
    Append(&'a [[u8; 32]]),
    /// `EXTEND` to the MMR of `leaves` by an ancestry proof.
    Extend(&'a [[u8; 32]]),
    /// `KEEP` the data, under `lock`.
    Keep(packed::Script),
    /// A growth built and checked elsewhere (from a store): the new commitment, the payload.
    Grow(Commitment, Vec<u8>),
}

impl Update<'_> {
    /// The new commitment, the new lock and the payload.
    pub fn parts(&self, acc: &Accumulator) -> Result<(Commitment, packed::Script, Vec<u8>)> {
        let n = acc.leaf_count;
        let grow = |leaves: &[[u8; 32]]| -> Result<Commitment> {
            if leaves.len() as u64 <= n {
                return Err(Error::NotExtending(format!(
                    "the leaves file holds {} leaves and the accumulator {n}: nothing to add",
                    leaves.len()
                )));
            }
            commitment(leaves)
        };
        Ok(match self {
            Update::Append(leaves) => {
                let new = grow(leaves)?;
                let peaks = Nodes::new::<Host>(&leaves[..n as usize]).peaks(n);
                let payload = build::append_payload(&peaks, &leaves[n as usize..]);
                (new, acc.lock(), payload)
            }
            Update::Extend(leaves) => {
                let new = grow(leaves)?;
                let proof = build::ancestry_proof::<Host>(leaves, n)
                    .map_err(|e| Error::NotExtending(format!("no ancestry proof: {e:?}")))?;
                (new, acc.lock(), build::extend_payload(&proof))
            }
            Update::Keep(lock) => (acc.commitment, lock.clone(), vec![tag::KEEP]),
            Update::Grow(new, payload) => (*new, acc.lock(), payload.clone()),
        })
    }
}

/// An update: the accumulator is input 0 and output 0 (same capacity), its witness
/// `input_type` the payload; the wallet adds the fee's cells.
pub fn update_draft(
    acc: &Accumulator,
    code: &Deployment,
    new: &Commitment,
    lock: packed::Script,
    payload: &[u8],
) -> Draft {
    let output = acc.cell.output.clone().as_builder().lock(lock).build();
    Draft {
        cell_deps: vec![code.cell_dep()],
        inputs: vec![(acc.cell.out_point.clone(), acc.cell.output.clone())],
        outputs: vec![(output, Bytes::copy_from_slice(&new.to_bytes()))],
        witnesses: vec![type_witness(payload, false)],
        type_id_output: None,
    }
}

/// Balances and signs an accumulator transaction with the admin's key paying the fee.
pub fn complete(wallet: &Wallet, draft: Draft) -> Result<Built> {
    wallet.complete(draft, Pay::Wallet { min_inputs: 0 })
}

/// The accumulator cell a committed creation or update left at output 0.
pub fn after(acc_code_hash: [u8; 32], built: &Built) -> Result<Accumulator> {
    let none = || Error::NotFound("an accumulator with type id args at output 0".into());
    let cell = IndexedCell::of_output(&built.tx, built.tx.calc_tx_hash(), 0)
        .filter(|c| c.data.is_some())
        .ok_or_else(none)?;
    let type_id: [u8; 32] = cell
        .output
        .type_()
        .to_opt()
        .and_then(|t| t.args().raw_data()[..].try_into().ok())
        .ok_or_else(none)?;
    parse(cell, acc_code_hash, type_id)
}

/// Sends `built` and waits for its commit: the transaction hash.
pub fn send(wallet: &Wallet, built: &Built, what: &str) -> Result<ckb_types::H256> {
    progress(&format!(
        "{what} ({} tx bytes, fee {} shannons)",
        built.size(),
        built.fee
    ));
    wallet.chain.send_and_commit(&built.tx)
}

/// True when the node refused a transaction because a cell it names (an input or a cell dep)
/// is no longer live: a by-reference spend whose accumulator moved on. Rebuild and resend.
/// ckb 0.210 reports a consumed cell dep as `Unknown(OutPoint(..))` once the spending block
/// is committed (the spent cell has left its cell set), `Dead` while it still knows it.
pub fn is_dead_cell(e: &NodeError) -> bool {
    e.code == TRANSACTION_FAILED_TO_RESOLVE && names_dead_cell(&e.message)
}

/// True when the node's `message` (a refusal, or the reason a pooled transaction was rejected)
/// says a cell is no longer live: `Dead(..)` or `Unknown(..)`.
pub fn names_dead_cell(message: &str) -> bool {
    message.contains("Dead(") || message.contains("Unknown(")
}

/// Cells locked by `locks`, all in one transaction paid by the wallet (output `i` is locked by
/// `locks[i]`, of `capacity` shannons each).
pub fn lock_cells(
    wallet: &Wallet,
    locks: &[packed::Script],
    capacity: u64,
) -> Result<(Vec<IndexedCell>, Built)> {
    let outputs: Vec<(packed::CellOutput, Bytes)> = locks
        .iter()
        .map(|l| {
            let out = exact_output(l.clone(), None, 0);
            (out.as_builder().capacity(capacity).build(), Bytes::new())
        })
        .collect();
    let draft = Draft {
        outputs: outputs.clone(),
        ..Draft::default()
    };
    let built = wallet.complete(draft, Pay::Wallet { min_inputs: 1 })?;
    progress(&format!("locking {} cells by reference", locks.len()));
    let hash = wallet.chain.send_and_commit(&built.tx)?;
    let cells = outputs
        .into_iter()
        .enumerate()
        .map(|(i, (output, _))| IndexedCell {
            out_point: packed::OutPoint::new(hash.pack(), i as u32),
            output,
            data: Some(Vec::new()),
        })
        .collect();
    Ok((cells, built))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Workload;

    fn leaves(n: u8) -> Vec<[u8; 32]> {
        (0..n).map(|i| [0x11u8.wrapping_mul(i + 1); 32]).collect()
    }

    #[test]
    fn host_commitments_are_the_locks_and_the_documents() {
        // docs/accumulator.md's worked examples.
        let five = commitment(&leaves(5)).unwrap();
        assert_eq!(
            hex(&five.root),
            "0x723d067445ce7c39481a7a28195deb3c8946548b92c7b98fe6bcc78b4607684b"
        );
        assert_eq!(five.mmr_size, 8);
        // The locks' args for the same leaves: the accumulator's data is a lock's commitment.
        for n in [1u8, 2, 3, 7, 11, 18] {
            let w = Workload::from_leaves(&leaves(n), &[0]).unwrap();
            assert_eq!(
                commitment(&leaves(n)).unwrap().to_bytes().to_vec(),
                w.lock_args()
            );
        }
    }

    /// The witness the secp256k1 lock signs and reads: the payload as the type field, the
    /// 65-byte signature as the lock.
    fn signed_witness(payload: &[u8], creation: bool) -> usize {
        let field = Some(Bytes::copy_from_slice(payload)).pack();
        let args = packed::WitnessArgs::new_builder().lock(Some(Bytes::from(vec![0u8; 65])).pack());
        let args = if creation {
            args.output_type(field)
        } else {
            args.input_type(field)
        };
        args.build().as_slice().len()
    }

    #[test]
    fn max_leaves_per_tx_is_the_lock_witness_limit() {
        for old in [0u64, 1, 7, 1000, (1 << 20) - 1] {
            let most = max_leaves_per_tx(old) as usize;
            let peaks = vec![[7u8; 32]; old.count_ones() as usize];
            let size = |k: usize| {
                let leaves = vec![[9u8; 32]; k];
                let payload = if old == 0 {
                    build::create_payload(&leaves)
                } else {
                    build::append_payload(&peaks, &leaves)
                };
                signed_witness(&payload, old == 0)
            };
            assert!(size(most) <= LOCK_WITNESS_LIMIT, "{old}: {most}");
            assert!(size(most + 1) > LOCK_WITNESS_LIMIT, "{old}: {most}");
        }
    }

    #[test]
    fn payloads_verify_in_the_core() {
        let all = leaves(18);
        let old = commitment(&all[..7]).unwrap();
        let acc = Accumulator {
            cell: IndexedCell {
                out_point: packed::OutPoint::default(),
                output: packed::CellOutput::default(),
                data: None,
            },
            code_hash: [0; 32],
            type_id: [0; 32],
            commitment: old,
            leaf_count: 7,
            ring_k: None,
        };
        for update in [Update::Append(&all), Update::Extend(&all)] {
            let (new, _, payload) = update.parts(&acc).unwrap();
            assert_eq!(new, commitment(&all).unwrap());
            let mut ws = mmr_accumulator::Workspace::new();
            let got = mmr_accumulator::verify_update::<Host>(
                &mut ws,
                &payload,
                &old.to_bytes(),
                &new.to_bytes(),
            );
            assert_eq!(got, Ok(()), "{:#x}", payload[0]);
        }
        // A file that does not start with the chain's leaves, or holds no more of them.
        let mut other = all.clone();
        other[3][0] ^= 1;
        assert!(matches!(
            acc.check_prefix(&other, "f"),
            Err(Error::NotExtending(_))
        ));
        assert!(matches!(
            acc.check_prefix(&all[..6], "f"),
            Err(Error::NotExtending(_))
        ));
        assert!(acc.check_prefix(&all[..7], "f").is_ok());
        assert!(matches!(
            Update::Append(&all[..7]).parts(&acc),
            Err(Error::NotExtending(_))
        ));
    }
}
