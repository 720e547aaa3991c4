//! Balancing and signing: a draft transaction (fixed inputs and outputs) becomes a sendable
//! one by adding the key's plain cells as inputs, a change output and a fee computed from the
//! size, then the key's signature.
//!
//! Everything here is deterministic: the indexer lists cells in block order and the signature
//! nonce is derived (RFC 6979), so rerunning an interrupted command against an unchanged chain
//! rebuilds the very same transaction, which the pool then reports as already held.

use crate::chain::Chain;
use crate::error::{Error, Result};
use crate::key::Key;
use crate::rpc::IndexedCell;
use ckb_types::{bytes::Bytes, core::Capacity, packed, prelude::*};
use serde_json::{json, Value};

pub const SHANNONS_PER_CKB: u64 = 100_000_000;

/// The node's default minimum fee rate, shannons per 1,000 weight ([`crate::weight`]).
pub const DEFAULT_FEE_RATE: u64 = crate::weight::DEFAULT_MIN_FEE_RATE;

/// A transaction before balancing: inputs with the cells they spend, outputs with their data,
/// one witness per input (missing ones are empty).
#[derive(Clone, Default)]
pub struct Draft {
    pub cell_deps: Vec<packed::CellDep>,
    pub inputs: Vec<(packed::OutPoint, packed::CellOutput)>,
    pub outputs: Vec<(packed::CellOutput, Bytes)>,
    pub witnesses: Vec<Bytes>,
    /// An output whose type script takes a new type id as args (the built-in type id script
    /// when it has none): the args are set from the first input once the inputs are chosen.
    pub type_id_output: Option<usize>,
}

/// Who pays the fee.
#[derive(Clone, Copy, Debug)]
pub enum Pay {
    /// The key's plain cells: at least `min_inputs` of them are added, then as many as the
    /// outputs and the fee need, with the rest back to the key as change.
    Wallet { min_inputs: usize },
    /// Output `n` (which must stay above its occupied capacity); nothing is added.
    FromOutput(usize),
}

/// A balanced, signed transaction.
#[derive(Clone)]
pub struct Built {
    pub tx: packed::Transaction,
    pub fee: u64,
}

impl Draft {
    /// The transaction as drafted, with `first` (and an empty witness for it) before the
    /// draft's inputs: no fee, no signature. For the drafts' tests.
    #[cfg(test)]
    pub(crate) fn unsigned_tx(&self, first: Option<packed::CellInput>) -> packed::Transaction {
        let drafted = self
            .inputs
            .iter()
            .map(|(op, _)| packed::CellInput::new(op.clone(), 0));
        let inputs: Vec<_> = first.iter().cloned().chain(drafted).collect();
        let witnesses = first.iter().map(|_| Bytes::new());
        let witnesses: Vec<_> = witnesses.chain(self.witnesses.iter().cloned()).collect();
        transaction(Vec::new(), inputs, &self.outputs, &witnesses)
    }
}

impl Built {
    /// The serialized size the node weighs (the transaction in a block: bytes + 4).
    pub fn size(&self) -> usize {
        crate::weight::tx_bytes(&self.tx)
    }
}

pub struct Wallet<'a> {
    pub chain: &'a Chain,
    pub key: &'a Key,
    /// Shannons per 1,000 bytes.
    pub fee_rate: u64,
}

/// The JSON script the indexer takes.
pub fn script_json(script: &packed::Script) -> Value {
    serde_json::to_value(ckb_jsonrpc_types::Script::from(script.clone()))
        .expect("a script serialises")
}

/// Live cells, with their data, whose type script is `script` (`mode` `exact`), or whose type
/// script's args start with its args (`prefix`).
pub(crate) fn type_cells(
    chain: &Chain,
    script: &packed::Script,
    mode: &str,
) -> Result<Vec<IndexedCell>> {
    chain.rpc.cells(&json!({
        "script": script_json(script),
        "script_type": "type",
        "script_search_mode": mode,
        "with_data": true,
    }))
}

/// Occupied capacity of an output with `data_len` bytes of data, in shannons.
pub fn occupied(output: &packed::CellOutput, data_len: usize) -> u64 {
    output
        .occupied_capacity(Capacity::bytes(data_len).expect("small data"))
        .expect("occupied capacity fits")
        .as_u64()
}

/// An output of exactly its occupied capacity.
pub fn exact_output(
    lock: packed::Script,
    type_: Option<packed::Script>,
    data_len: usize,
) -> packed::CellOutput {
    let out = packed::CellOutput::new_builder()
        .lock(lock)
        .type_(type_.pack())
        .build();
    let capacity = occupied(&out, data_len);
    out.as_builder().capacity(capacity).build()
}

/// The type id script with `args` (RFC 0022).
pub fn type_id_script(args: [u8; 32]) -> packed::Script {
    crate::script::type_id(args)
}

/// `"TYPE_ID"` right-aligned in 32 bytes: the built-in type id script's code hash.
pub use crate::script::TYPE_ID_CODE_HASH;

/// Type id args for the output at `index` of a transaction whose first input is `first`:
/// blake2b(first input || index as u64 LE).
pub fn type_id_args(first: &packed::CellInput, index: u64) -> [u8; 32] {
    ckb_hash::blake2b_256([first.as_slice(), &index.to_le_bytes()].concat())
}

impl<'a> Wallet<'a> {
    pub fn new(chain: &'a Chain, key: &'a Key, fee_rate: u64) -> Wallet<'a> {
        Wallet {
            chain,
            key,
            fee_rate,
        }
    }

    /// The key's plain cells (no type script, no data): the ones it can spend as capacity.
    pub fn plain_cells(&self) -> Result<Vec<IndexedCell>> {
        self.chain.rpc.cells(&json!({
            "script": script_json(&self.key.lock()),
            "script_type": "lock",
            "script_search_mode": "exact",
            "filter": { "script_len_range": ["0x0", "0x1"], "output_data_len_range": ["0x0", "0x1"] },
            "with_data": false,
        }))
    }

    pub fn balance(&self) -> Result<u64> {
        Ok(self.plain_cells()?.iter().map(IndexedCell::capacity).sum())
    }

    /// The fee for a transaction of `size` bytes (as weighed, +4 included). The pool's
    /// admission check asks for the rate times the size ([`crate::weight`]); rounded up here
    /// (the node rounds down), so any rate is met.
    pub fn fee_for(&self, size: usize) -> u64 {
        (size as u64 * self.fee_rate).div_ceil(1000)
    }

    /// Balances, prices and signs `draft`.
    pub fn complete(&self, mut draft: Draft, pay: Pay) -> Result<Built> {
        let in_total = |d: &Draft| -> u64 { d.inputs.iter().map(|(_, o)| cap(o)).sum() };
        let out_total: u64 = draft.outputs.iter().map(|(o, _)| cap(o)).sum();
        match pay {
            Pay::FromOutput(n) => {
                if n >= draft.outputs.len() {
                    return Err(Error::Usage(format!("no output {n} to take the fee from")));
                }
                let surplus = in_total(&draft)
                    .checked_sub(out_total)
                    .ok_or(Error::Capacity {
                        needed: out_total,
                        available: in_total(&draft),
                    })?;
                let fee = self.fee_for(self.signed_size(&draft)?);
                let (out, data) = &draft.outputs[n];
                let capacity = (cap(out) + surplus).saturating_sub(fee);
                let needed = occupied(out, data.len());
                if capacity < needed {
                    return Err(Error::Capacity {
                        needed: needed + fee,
                        available: cap(out) + surplus,
                    });
                }
                draft.outputs[n].0 = out.clone().as_builder().capacity(capacity).build();
                self.finish(draft, fee)
            }
            Pay::Wallet { min_inputs } => {
                let fixed: Vec<Vec<u8>> = draft
                    .inputs
                    .iter()
                    .map(|(op, _)| op.as_slice().to_vec())
                    .collect();
                let candidates: Vec<IndexedCell> = self
                    .plain_cells()?
                    .into_iter()
                    .filter(|c| !fixed.iter().any(|op| op[..] == *c.out_point.as_slice()))
                    .collect();
                let available: u64 =
                    in_total(&draft) + candidates.iter().map(IndexedCell::capacity).sum::<u64>();
                let mut cells = candidates.into_iter();
                let change = exact_output(self.key.lock(), None, 0);
                let change_min = cap(&change);
                draft.outputs.push((change, Bytes::new()));
                let change_at = draft.outputs.len() - 1;
                let mut added = 0;
                loop {
                    let fee = self.fee_for(self.signed_size(&draft)?);
                    let have = in_total(&draft);
                    if added >= min_inputs && have >= out_total + fee + change_min {
                        let (out, _) = &draft.outputs[change_at];
                        draft.outputs[change_at].0 = out
                            .clone()
                            .as_builder()
                            .capacity(have - out_total - fee)
                            .build();
                        return self.finish(draft, fee);
                    }
                    let Some(cell) = cells.next() else {
                        return Err(Error::Capacity {
                            needed: out_total + fee + change_min,
                            available,
                        });
                    };
                    draft.inputs.push((cell.out_point, cell.output));
                    added += 1;
                }
            }
        }
    }

    /// The size of `draft` once signed: signatures are replaced by 65-byte placeholders.
    fn signed_size(&self, draft: &Draft) -> Result<usize> {
        let tx = self.assemble(draft, true)?;
        Ok(crate::weight::tx_bytes(&tx))
    }

    fn finish(&self, draft: Draft, fee: u64) -> Result<Built> {
        let tx = self.assemble(&draft, false)?;
        let group = self.key_group(&draft);
        let tx = self.key.sign(tx, &group);
        Ok(Built { tx, fee })
    }

    /// Inputs locked by this key: the group its signature covers.
    fn key_group(&self, draft: &Draft) -> Vec<usize> {
        let lock = self.key.lock();
        draft
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, (_, o))| o.lock().as_slice() == lock.as_slice())
            .map(|(i, _)| i)
            .collect()
    }

    /// The transaction: type id args filled in, the sighash dep group added when the key
    /// signs, and (for sizing) a 65-byte placeholder where the signature will go.
    fn assemble(&self, draft: &Draft, placeholder: bool) -> Result<packed::Transaction> {
        let inputs: Vec<packed::CellInput> = draft
            .inputs
            .iter()
            .map(|(op, _)| packed::CellInput::new(op.clone(), 0))
            .collect();
        let mut outputs = draft.outputs.clone();
        if let Some(n) = draft.type_id_output {
            // Before the inputs are chosen (sizing) the args are a same-size placeholder.
            let args = match inputs.first() {
                Some(first) => type_id_args(first, n as u64),
                None if placeholder => [0; 32],
                None => return Err(Error::Usage("a type id needs an input".into())),
            };
            // The output's own type script (the built-in type id's, or an accumulator's that
            // checks the same rule) gets the args: the type id replaces their first 32 bytes
            // (a ring's K byte after them stays), and every output carrying the same script
            // (a ring's snapshots) gets the same.
            let before = outputs[n].0.type_().to_opt();
            let script = before.clone().unwrap_or_else(|| type_id_script([0; 32]));
            let mut filled = script.args().raw_data().to_vec();
            filled.resize(filled.len().max(32), 0);
            filled[..32].copy_from_slice(&args);
            let type_ = script.as_builder().args(Bytes::from(filled).pack()).build();
            for (i, (out, _)) in outputs.iter_mut().enumerate() {
                let same = match &before {
                    Some(b) => {
                        out.type_().to_opt().as_ref().map(|t| t.as_slice()) == Some(b.as_slice())
                    }
                    None => i == n,
                };
                if same {
                    *out = out
                        .clone()
                        .as_builder()
                        .type_(Some(type_.clone()).pack())
                        .build();
                }
            }
        }
        let group = self.key_group(draft);
        let mut deps = draft.cell_deps.clone();
        let sighash = &self.chain.sighash_dep;
        if !group.is_empty() && !deps.iter().any(|d| d.as_slice() == sighash.as_slice()) {
            deps.push(sighash.clone());
        }
        let mut witnesses = draft.witnesses.clone();
        witnesses.resize(witnesses.len().max(inputs.len()), Bytes::new());
        if placeholder {
            if let Some(&first) = group.first() {
                let args = packed::WitnessArgs::from_slice(&witnesses[first]).unwrap_or_default();
                witnesses[first] = args
                    .as_builder()
                    .lock(Some(Bytes::from(vec![0u8; 65])).pack())
                    .build()
                    .as_bytes();
            }
        }
        Ok(transaction(deps, inputs, &outputs, &witnesses))
    }
}

/// The transaction of these parts (each output with its data).
fn transaction(
    cell_deps: Vec<packed::CellDep>,
    inputs: Vec<packed::CellInput>,
    outputs: &[(packed::CellOutput, Bytes)],
    witnesses: &[Bytes],
) -> packed::Transaction {
    let data: Vec<packed::Bytes> = outputs.iter().map(|(_, d)| d.pack()).collect();
    let outputs: Vec<_> = outputs.iter().map(|(o, _)| o.clone()).collect();
    let witnesses: Vec<packed::Bytes> = witnesses.iter().map(|w| w.pack()).collect();
    let raw = packed::RawTransaction::new_builder()
        .cell_deps(cell_deps.pack())
        .inputs(inputs.pack())
        .outputs(outputs.pack())
        .outputs_data(data.pack())
        .build();
    packed::Transaction::new_builder()
        .raw(raw)
        .witnesses(witnesses.pack())
        .build()
}

fn cap(o: &packed::CellOutput) -> u64 {
    o.capacity().unpack()
}
