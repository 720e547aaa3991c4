//! The mock transaction ckb-debugger 1.1.1 runs (`--tx-file`): one cell dep per verifier
//! binary and one input per verifier, locked by that binary (`hash_type` data2) with the
//! workload's args; witness i carries input i's payload in `WitnessArgs.lock`. Owner-mode
//! transactions ([`mock_transaction_with_owners`]) add one input per owner after them;
//! by-reference transactions ([`mock_transaction_with_deps`]) add cell deps such as the
//! accumulator after the verifiers' code cells.

use crate::script::Script;
use crate::{ckb_hash, hex, witness_args_with_lock};
use serde_json::{json, Value};

/// One verifier in the transaction: its binary and the payload its lock reads.
pub struct Cell {
    pub binary: Vec<u8>,
    pub lock_args: Vec<u8>,
    pub payload: Vec<u8>,
}

fn out_point(tag: u8, index: usize) -> Value {
    // Distinct, obviously synthetic transaction hashes: no real chain data is referenced.
    let mut tx_hash = [tag; 32];
    tx_hash[31] = index as u8;
    json!({ "tx_hash": hex(&tx_hash), "index": format!("{index:#x}") })
}

fn capacity(bytes: usize) -> String {
    // Occupied capacity plus headroom, in shannons; ckb-debugger does not check it, but a
    // transaction that would be sane on chain is easier to reuse.
    format!("{:#x}", (bytes as u64 + 200) * 100_000_000)
}

/// An input spent by an owner: its lock (whose hash a proved leaf names) and its witness.
pub struct OwnerInput {
    pub lock: Script,
    /// The witness at the owner input's index. The owner's lock checks it, not ours.
    pub witness: Vec<u8>,
}

impl OwnerInput {
    /// An owner input whose witness is the unsigned placeholder of a secp256k1_blake160
    /// sighash_all lock: `WitnessArgs` with a 65-byte zero `lock`, which the owner's wallet
    /// replaces with the signature (the signed message covers the transaction hash, so the
    /// signature binds the outputs).
    pub fn unsigned(lock: Script) -> OwnerInput {
        OwnerInput {
            lock,
            witness: witness_args_with_lock(&[0; 65]),
        }
    }
}

/// A cell dep that is not a verifier's code: e.g. the accumulator a by-reference lock
/// follows (its type script names it, its data is `root || mmr_size`).
pub struct DepCell {
    pub type_script: Option<Script>,
    pub data: Vec<u8>,
}

impl DepCell {
    /// The accumulator of a by-reference lock: `type_script` (whose hash the lock args name)
    /// over `data`, `Workload::accumulator_data` for an honest one.
    pub fn accumulator(type_script: Script, data: Vec<u8>) -> DepCell {
        DepCell {
            type_script: Some(type_script),
            data,
        }
    }
}

/// The transaction as ckb-debugger's `ReprMockTransaction` JSON.
pub fn mock_transaction(cells: &[Cell]) -> Value {
    mock_transaction_with_owners(cells, &[])
}

/// [`mock_transaction`] plus one input per owner, after the verifier inputs (input
/// `cells.len() + j` for owner `j`), each paying back to its owner's lock. The owners' lock
/// code is not included: ckb-debugger runs the verifier inputs, the owners' wallets sign.
pub fn mock_transaction_with_owners(cells: &[Cell], owners: &[OwnerInput]) -> Value {
    mock_transaction_with_deps(cells, owners, &[])
}

/// [`mock_transaction_with_owners`] plus `deps` as cell deps after the verifiers' code cells
/// (cell dep `cells.len() + k` for `deps[k]`), each locked by the same placeholder lock as
/// the code cells. Cell deps' scripts are not run; a by-reference lock reads their type
/// script hashes and its accumulator's data.
pub fn mock_transaction_with_deps(
    cells: &[Cell],
    owners: &[OwnerInput],
    deps: &[DepCell],
) -> Value {
    let mut mock_deps = Vec::new();
    let mut mock_inputs = Vec::new();
    let mut tx_deps = Vec::new();
    let mut tx_inputs = Vec::new();
    let mut witnesses = Vec::new();
    let mut outputs = Vec::new();
    let mut outputs_data = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        let code_hash = ckb_hash(&[&cell.binary]);
        let lock = json!({
            "code_hash": hex(&code_hash),
            "hash_type": "data2",
            "args": hex(&cell.lock_args),
        });
        let dep = json!({ "out_point": out_point(0xd0, i), "dep_type": "code" });
        mock_deps.push(json!({
            "cell_dep": dep,
            "output": {
                "capacity": capacity(cell.binary.len() + 61),
                "lock": { "code_hash": hex(&[0; 32]), "hash_type": "data", "args": "0x" },
                "type": null,
            },
            "data": hex(&cell.binary),
            "header": null,
        }));
        tx_deps.push(dep);
        let input = json!({ "since": "0x0", "previous_output": out_point(0x1a, i) });
        let output = json!({
            "capacity": capacity(cell.lock_args.len() + 61),
            "lock": lock,
            "type": null,
        });
        mock_inputs.push(json!({
            "input": input,
            "output": output,
            "data": "0x",
            "header": null,
        }));
        tx_inputs.push(input);
        witnesses.push(hex(&witness_args_with_lock(&cell.payload)));
        outputs.push(output);
        outputs_data.push("0x");
    }
    for (k, cell) in deps.iter().enumerate() {
        let type_script = cell.type_script.as_ref().map(Script::to_json);
        let type_len = cell.type_script.as_ref().map_or(0, |t| 33 + t.args.len());
        let dep = json!({ "out_point": out_point(0xac, k), "dep_type": "code" });
        mock_deps.push(json!({
            "cell_dep": dep,
            "output": {
                "capacity": capacity(cell.data.len() + 61 + type_len),
                "lock": { "code_hash": hex(&[0; 32]), "hash_type": "data", "args": "0x" },
                "type": type_script,
            },
            "data": hex(&cell.data),
            "header": null,
        }));
        tx_deps.push(dep);
    }
    for (j, owner) in owners.iter().enumerate() {
        let input = json!({ "since": "0x0", "previous_output": out_point(0x0e, j) });
        let output = json!({
            "capacity": capacity(owner.lock.args.len() + 61),
            "lock": owner.lock.to_json(),
            "type": null,
        });
        mock_inputs.push(json!({
            "input": input,
            "output": output,
            "data": "0x",
            "header": null,
        }));
        tx_inputs.push(input);
        witnesses.push(hex(&owner.witness));
        outputs.push(output);
        outputs_data.push("0x");
    }
    json!({
        "mock_info": {
            "inputs": mock_inputs,
            "cell_deps": mock_deps,
            "header_deps": [],
        },
        "tx": {
            "version": "0x0",
            "cell_deps": tx_deps,
            "header_deps": [],
            "inputs": tx_inputs,
            "outputs": outputs,
            "outputs_data": outputs_data,
            "witnesses": witnesses,
        }
    })
}
