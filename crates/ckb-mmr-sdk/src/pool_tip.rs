//! The newest accumulator cell, pooled updates included: what a by-reference spend takes as its
//! dep when the accumulator is updated faster than blocks commit (docs/concurrency.md, "Under
//! load").
//!
//! The indexer shows only committed cells. When the admin keeps appends in flight (one
//! committed in every block needs three), the committed cell is already consumed in the pool,
//! and a spend that takes it as its dep is refused (-301 `Dead`). The pool accepts a spend whose
//! dep is the output of a pooled transaction, and orders it before the append that later
//! consumes that output, so the cell to take is the one at the end of the pool's chain of
//! updates. [`PoolFollower::find`] finds it from what any client of the node can read: the
//! committed cell (the indexer), the pool's transactions (`get_raw_tx_pool`,
//! `get_transaction`), each update's witness (the leaves it appends, so a client's MMR can
//! follow the pool), and `get_live_cell` with `include_tx_pool` to confirm the end is live.
//!
//! What it does not stop: an append that arrives between the lookup and the spend's send (the
//! node refuses the spend, `Dead`, and the client looks again), and a pooled append that never
//! commits (replaced through RBF, or beaten by a block from elsewhere: the spend built on its
//! output is then dropped with it).

use crate::acc_store::read_step;
use crate::accumulator::{self, Accumulator};
use crate::chain::Chain;
use crate::error::{Error, Result};
use crate::hex;
use crate::rpc::IndexedCell;
use ckb_types::{packed, prelude::*, H256};
use mmr_accumulator::{tag, Commitment};
use std::collections::HashMap;

/// How often [`PoolFollower::find`] starts again when the chain or the pool moved while it
/// looked (a block committed, an append arrived): more than that means something else is wrong.
const ATTEMPTS: usize = 5;

/// One pooled update of the accumulator, oldest first.
#[derive(Clone, Debug)]
pub struct PooledUpdate {
    pub hash: H256,
    /// The transition's tag (`mmr_accumulator::tag`).
    pub tag: u8,
    /// The leaves its witness appends (none for a `KEEP`; an `EXTEND` carries none either).
    pub leaves: Vec<[u8; 32]>,
    /// What the accumulator holds after it.
    pub commitment: Commitment,
}

/// The accumulator as the pool will leave it.
#[derive(Clone, Debug)]
pub struct PoolTip {
    /// The committed cell the walk started from.
    pub committed: Accumulator,
    /// The pooled updates after it, in order: each consumes the cell the one before left.
    pub pooled: Vec<PooledUpdate>,
    /// The newest cell: the last pooled update's output, or `committed` when none is pooled.
    pub tip: Accumulator,
}

impl PoolTip {
    /// The MMR's leaves at the tip: `committed_leaves` (the committed cell's MMR, whose root
    /// is checked here) followed by the leaves each pooled append carries. An `EXTEND` in the
    /// pool is [`Error::NotExtending`]: its new leaves are not in its witness.
    pub fn leaves(&self, committed_leaves: &[[u8; 32]]) -> Result<Vec<[u8; 32]>> {
        let n = self.committed.leaf_count as usize;
        self.committed
            .check_prefix(committed_leaves, "the committed leaves")?;
        let mut out = committed_leaves[..n].to_vec();
        for u in &self.pooled {
            match u.tag {
                tag::APPEND | tag::KEEP => out.extend_from_slice(&u.leaves),
                _ => {
                    return Err(Error::NotExtending(format!(
                        "the pooled update {:#x} (tag {:#04x}) does not carry its leaves",
                        u.hash, u.tag
                    )))
                }
            }
        }
        self.tip.check_prefix(&out, "the pooled appends' leaves")?;
        Ok(out)
    }
}

/// Follows `committed` through `pooled` (the pool's transactions, any order): the transaction
/// that consumes the current cell, the accumulator cell it leaves, and so on until a cell no
/// pooled transaction consumes. Pure: the caller confirms with the node that the end is live.
pub fn follow(committed: Accumulator, pooled: &[(H256, packed::Transaction)]) -> Result<PoolTip> {
    let mut consumers: HashMap<Vec<u8>, &(H256, packed::Transaction)> = HashMap::new();
    for entry in pooled {
        for input in entry.1.raw().inputs() {
            consumers.insert(input.previous_output().as_slice().to_vec(), entry);
        }
    }
    let type_script = committed.type_script();
    let mut tip = committed.clone();
    let mut updates = Vec::new();
    // Each step consumes a distinct pooled transaction, so the walk ends.
    while let Some((hash, tx)) = consumers.remove(tip.cell.out_point.as_slice()) {
        let prev = (tip.cell.out_point.clone(), tip.commitment);
        let step = read_step(hash.clone(), tx, &type_script, Some(&prev))?;
        let i: u32 = step.out_point.index().unpack();
        let cell = IndexedCell::of_output(tx, step.out_point.tx_hash(), i as usize);
        let cell = cell.expect("read_step found it");
        tip = accumulator::parse(cell, tip.code_hash, tip.type_id)?;
        updates.push(PooledUpdate {
            hash: step.hash,
            tag: step.tag,
            leaves: step.leaves,
            commitment: step.commitment,
        });
    }
    Ok(PoolTip {
        committed,
        pooled: updates,
        tip,
    })
}

/// Finds the newest accumulator cell through the node, keeping the pooled transactions it has
/// read (a pooled transaction does not change under its hash), so that a client looking once
/// a block reads only the new ones.
pub struct PoolFollower {
    code_hash: [u8; 32],
    type_id: [u8; 32],
    seen: HashMap<H256, packed::Transaction>,
}

impl PoolFollower {
    /// The accumulator under `type_id` whose type script's code is `code_hash`.
    pub fn new(code_hash: [u8; 32], type_id: [u8; 32]) -> PoolFollower {
        PoolFollower {
            code_hash,
            type_id,
            seen: HashMap::new(),
        }
    }

    /// The accumulator as the pool will leave it. Reads the committed cell from the indexer
    /// (waiting for it to reach the tip), the pool's transactions, then checks with
    /// `get_live_cell` (pool included) that the end of the walk is live and holds what the
    /// walk says; when it is not (a block or an append came meanwhile), starts again.
    pub fn find(&mut self, chain: &Chain) -> Result<PoolTip> {
        let mut last = String::new();
        for _ in 0..ATTEMPTS {
            chain.wait_indexer()?;
            let committed = accumulator::find(chain, self.code_hash, self.type_id)?;
            let pooled = self.pooled(chain)?;
            let t = follow(committed, &pooled)?;
            let op = &t.tip.cell.out_point;
            match chain.rpc.pool_live_cell(op)? {
                Some((_, data)) if data[..] == t.tip.commitment.to_bytes()[..] => return Ok(t),
                Some(_) => {
                    return Err(Error::NotFound(format!(
                        "the accumulator cell {} holds other data than its transaction says",
                        crate::out_point_text(op)
                    )))
                }
                None => last = crate::out_point_text(op),
            }
        }
        Err(Error::NotFound(format!(
            "the accumulator {} moved on while it was looked up, {ATTEMPTS} times (last: {last})",
            hex(&self.type_id)
        )))
    }

    /// Every pooled transaction, read once each; those that left the pool are forgotten.
    fn pooled(&mut self, chain: &Chain) -> Result<Vec<(H256, packed::Transaction)>> {
        let hashes = chain.rpc.pool_hashes()?;
        let mut out = Vec::with_capacity(hashes.len());
        for h in &hashes {
            if !self.seen.contains_key(h) {
                // Gone between the two calls (committed or dropped): not in the pool.
                let Some(tx) = chain.rpc.transaction(h)?.and_then(|t| t.tx) else {
                    continue;
                };
                self.seen.insert(h.clone(), tx);
            }
            out.push((h.clone(), self.seen[h].clone()));
        }
        self.seen.retain(|h, _| hashes.contains(h));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accumulator::{commitment, type_script, Update};
    use crate::deploy::Deployment;
    use crate::wallet::exact_output;

    const CODE: [u8; 32] = [3; 32];
    const TYPE_ID: [u8; 32] = [4; 32];

    fn leaves(n: u8) -> Vec<[u8; 32]> {
        (0..n)
            .map(|i| [i.wrapping_mul(37).wrapping_add(1); 32])
            .collect()
    }

    fn code() -> Deployment {
        Deployment::fake_data2(CODE)
    }

    /// The committed accumulator of `leaves`, at a made-up out point.
    fn committed(all: &[[u8; 32]], at: u8) -> Accumulator {
        let c = commitment(all).unwrap();
        let output = exact_output(
            packed::Script::default(),
            Some(type_script(CODE, TYPE_ID)),
            mmr_accumulator::COMMITMENT_LEN,
        );
        let cell = IndexedCell {
            out_point: packed::OutPoint::new([at; 32].pack(), 0),
            output,
            data: Some(c.to_bytes().to_vec()),
        };
        accumulator::parse(cell, CODE, TYPE_ID).unwrap()
    }

    /// An unsigned append of `all` past `acc` (the walk reads no signature), with an extra
    /// input first so that the accumulator's witness is not at 0 by accident.
    fn append(acc: &Accumulator, all: &[[u8; 32]], salt: u8) -> (H256, packed::Transaction) {
        let (new, lock, payload) = Update::Append(all).parts(acc).unwrap();
        let d = accumulator::update_draft(acc, &code(), &new, lock, &payload);
        let fee_input = packed::OutPoint::new([salt; 32].pack(), 1);
        let tx = d.unsigned_tx(Some(packed::CellInput::new(fee_input, 0)));
        (tx.calc_tx_hash().unpack(), tx)
    }

    fn next(tx: &packed::Transaction, acc: &Accumulator) -> Accumulator {
        let cell = IndexedCell::of_output(tx, tx.calc_tx_hash(), 0).unwrap();
        accumulator::parse(cell, acc.code_hash, acc.type_id).unwrap()
    }

    #[test]
    fn the_walk_ends_at_the_output_no_pooled_transaction_consumes() {
        let all = leaves(9);
        let c = committed(&all[..5], 9);
        // Three appends in flight, 5 -> 6 -> 8 -> 9 leaves, handed over in no particular order,
        // with an unrelated transaction among them.
        let a1 = append(&c, &all[..6], 1);
        let acc1 = next(&a1.1, &c);
        let a2 = append(&acc1, &all[..8], 2);
        let acc2 = next(&a2.1, &acc1);
        let a3 = append(&acc2, &all, 3);
        let other = append(&committed(&all[..2], 8), &all[..3], 4);
        let pool = [a3.clone(), other, a1.clone(), a2.clone()];
        let t = follow(c.clone(), &pool).unwrap();
        assert_eq!(t.pooled.len(), 3);
        let hashes: Vec<H256> = t.pooled.iter().map(|u| u.hash.clone()).collect();
        assert_eq!(hashes, [a1.0, a2.0, a3.0.clone()]);
        assert_eq!(t.tip.commitment, commitment(&all).unwrap());
        assert_eq!(t.tip.leaf_count, 9);
        assert_eq!(
            t.tip.cell.out_point.as_slice(),
            packed::OutPoint::new(a3.0.pack(), 0).as_slice()
        );
        assert_eq!(t.pooled[1].leaves, all[6..8]);
        // The leaves at the tip: the committed ones, then what the witnesses carry.
        assert_eq!(t.leaves(&all[..5]).unwrap(), all);
        // Committed leaves that are not the committed cell's MMR are refused.
        let mut wrong = all[..5].to_vec();
        wrong[0][0] ^= 1;
        assert!(matches!(t.leaves(&wrong), Err(Error::NotExtending(_))));
        // Nothing pooled: the committed cell is the tip.
        let none = follow(c.clone(), &[]).unwrap();
        assert!(none.pooled.is_empty());
        assert_eq!(
            none.tip.cell.out_point.as_slice(),
            c.cell.out_point.as_slice()
        );
    }

    #[test]
    fn a_pooled_update_that_is_not_the_accumulators_is_refused() {
        let all = leaves(7);
        let c = committed(&all[..5], 9);
        let (hash, tx) = append(&c, &all, 1);
        // The same transaction with its accumulator output's type script changed.
        let raw = tx.raw();
        let out = raw
            .outputs()
            .get(0)
            .unwrap()
            .as_builder()
            .type_(Some(type_script(CODE, [5; 32])).pack())
            .build();
        let outputs = packed::CellOutputVec::new_builder().push(out).build();
        let tx = tx
            .as_builder()
            .raw(raw.as_builder().outputs(outputs).build())
            .build();
        assert!(matches!(follow(c, &[(hash, tx)]), Err(Error::NotFound(_))));
    }
}
