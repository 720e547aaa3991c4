//! The mock transaction ckb-debugger 1.1.1 runs (`--tx-file`): one cell dep per verifier
//! binary and one input per verifier, locked by that binary (`hash_type` data2) with the
//! workload's args; witness i carries input i's payload in `WitnessArgs.lock`.

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

/// The transaction as ckb-debugger's `ReprMockTransaction` JSON.
pub fn mock_transaction(cells: &[Cell]) -> Value {
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
