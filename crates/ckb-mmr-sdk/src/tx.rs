//! The mock transaction ckb-debugger 1.1.1 runs (`--tx-file`): one cell dep per verifier
//! binary and one input per verifier, locked by that binary (`hash_type` data2) with the
//! workload's args; witness i carries input i's payload in `WitnessArgs.lock`. Owner-mode
//! transactions ([`mock_transaction_with_owners`]) add one input per owner after them;
//! by-reference transactions ([`mock_transaction_with_deps`]) add cell deps such as the
//! accumulator after the verifiers' code cells. Built with ckb-types and ckb-mock-tx-types,
//! the structures ckb-debugger itself reads. [`single_input`] cuts one verifier's own
//! transaction out of such a file, the one whose size ([`crate::weight`]) its spend weighs.

use crate::script::{self, Script};
use crate::{ckb_hash, witness_args_with_lock};
use ckb_mock_tx_types::{MockCellDep, MockInfo, MockInput, MockTransaction, ReprMockTransaction};
use ckb_types::{
    bytes::Bytes,
    core::{Capacity, DepType, ScriptHashType, TransactionBuilder},
    packed::{CellDep, CellInput, CellOutput, OutPoint},
    prelude::*,
};
use serde_json::Value;

/// One verifier in the transaction: its binary and the payload its lock reads.
pub struct Cell {
    pub binary: Vec<u8>,
    pub lock_args: Vec<u8>,
    pub payload: Vec<u8>,
}

fn out_point(tag: u8, index: usize) -> OutPoint {
    // Distinct, obviously synthetic transaction hashes: no real chain data is referenced.
    let mut tx_hash = [tag; 32];
    tx_hash[31] = index as u8;
    OutPoint::new(tx_hash.pack(), index as u32)
}

fn output(bytes: usize, lock: Script, type_: Option<Script>) -> CellOutput {
    // Occupied capacity plus headroom, in shannons; ckb-debugger does not check it, but a
    // transaction that would be sane on chain is easier to reuse.
    CellOutput::new_builder()
        .capacity(Capacity::shannons((bytes as u64 + 200) * 100_000_000))
        .lock(lock)
        .type_(type_.pack())
        .build()
}

/// The lock of the synthetic code and dependency cells: never run.
fn placeholder_lock() -> Script {
    script::new([0; 32], ScriptHashType::Data, &[])
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
    let repr = ReprMockTransaction::from(mock(cells, owners, deps));
    serde_json::to_value(repr).expect("a mock transaction serializes to JSON")
}

/// Reads a mock transaction file (ckb-debugger's `--tx-file` JSON).
pub fn read(path: &std::path::Path) -> Result<MockTransaction, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let repr: ReprMockTransaction = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a mock transaction: {e}", path.display()))?;
    Ok(repr.into())
}

/// The transaction of input `index` alone: that input, the code cell its lock runs (the cell
/// dep whose data hash is the lock's code hash), the output and the witness at the same
/// index. For a transaction of [`mock`]'s layout (verifier `i` spends input `i` into output
/// `i`, witness `i`) it is what [`mock`] builds for that one cell, so the lock runs the same
/// cycles in it, and its size is one verifier's spend. `None` when the input, its witness or
/// its code cell is missing.
pub fn single_input(mock: &MockTransaction, index: usize) -> Option<MockTransaction> {
    let input = mock.mock_info.inputs.get(index)?;
    let code_hash = input.output.lock().code_hash();
    let dep = mock
        .mock_info
        .cell_deps
        .iter()
        .find(|d| CellOutput::calc_data_hash(&d.data) == code_hash)?;
    let raw = mock.tx.raw();
    let mut tx = TransactionBuilder::default()
        .version(raw.version())
        .cell_dep(dep.cell_dep.clone())
        .input(raw.inputs().get(index)?)
        .witness(mock.tx.witnesses().get(index)?);
    if let (Some(output), Some(data)) = (raw.outputs().get(index), raw.outputs_data().get(index)) {
        tx = tx.output(output).output_data(data);
    }
    Some(MockTransaction {
        mock_info: MockInfo {
            inputs: vec![input.clone()],
            cell_deps: vec![dep.clone()],
            header_deps: Vec::new(),
            extensions: Vec::new(),
        },
        tx: tx.build().data(),
    })
}

/// The [`MockTransaction`] behind [`mock_transaction_with_deps`].
pub fn mock(cells: &[Cell], owners: &[OwnerInput], deps: &[DepCell]) -> MockTransaction {
    let mut info = MockInfo::default();
    let mut tx = TransactionBuilder::default();
    let mut spend = |info: &mut MockInfo, input: CellInput, output: CellOutput, witness| {
        info.inputs.push(MockInput {
            input: input.clone(),
            output: output.clone(),
            data: Bytes::new(),
            header: None,
        });
        tx = std::mem::take(&mut tx)
            .input(input)
            .output(output)
            .output_data(Bytes::new().pack())
            .witness(Bytes::from(witness).pack());
    };
    let mut dep_cells = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        let code_hash = ckb_hash(&[&cell.binary]);
        let lock = script::new(code_hash, ScriptHashType::Data2, &cell.lock_args);
        let code = output(cell.binary.len() + 61, placeholder_lock(), None);
        dep_cells.push((out_point(0xd0, i), code, &cell.binary[..]));
        let input = CellInput::new(out_point(0x1a, i), 0);
        let out = output(cell.lock_args.len() + 61, lock, None);
        spend(&mut info, input, out, witness_args_with_lock(&cell.payload));
    }
    for (k, cell) in deps.iter().enumerate() {
        let type_script = cell.type_script.clone();
        let type_len = type_script
            .as_ref()
            .map_or(0, |t| 33 + t.args().raw_data().len());
        let bytes = cell.data.len() + 61 + type_len;
        let out = output(bytes, placeholder_lock(), type_script);
        dep_cells.push((out_point(0xac, k), out, &cell.data[..]));
    }
    for (j, owner) in owners.iter().enumerate() {
        let input = CellInput::new(out_point(0x0e, j), 0);
        let bytes = owner.lock.args().raw_data().len() + 61;
        let out = output(bytes, owner.lock.clone(), None);
        spend(&mut info, input, out, owner.witness.clone());
    }
    for (out_point, output, data) in dep_cells {
        let cell_dep = CellDep::new_builder()
            .out_point(out_point)
            .dep_type(DepType::Code)
            .build();
        info.cell_deps.push(MockCellDep {
            cell_dep: cell_dep.clone(),
            output,
            data: Bytes::copy_from_slice(data),
            header: None,
        });
        tx = tx.cell_dep(cell_dep);
    }
    MockTransaction {
        mock_info: info,
        tx: tx.build().data(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::weight::tx_bytes;

    fn cell(binary: u8, payload: usize) -> Cell {
        Cell {
            binary: vec![binary; 100],
            lock_args: vec![binary; 40],
            payload: vec![binary; payload],
        }
    }

    /// One input cut out of a three-verifier transaction is, byte for byte in size and field
    /// for field, the transaction built for that verifier alone.
    #[test]
    fn single_input_is_the_one_verifier_transaction() {
        let cells = [cell(1, 500), cell(2, 700), cell(3, 900)];
        let all = mock(&cells, &[], &[]);
        for (i, c) in cells.iter().enumerate() {
            let alone = mock(std::slice::from_ref(c), &[], &[]);
            let cut = single_input(&all, i).unwrap();
            assert_eq!(tx_bytes(&cut.tx), tx_bytes(&alone.tx), "input {i}");
            assert_eq!(
                cut.tx.witnesses().as_slice(),
                alone.tx.witnesses().as_slice()
            );
            assert_eq!(
                cut.tx.raw().outputs().as_slice(),
                alone.tx.raw().outputs().as_slice()
            );
            assert_eq!(
                cut.mock_info.cell_deps[0].data,
                alone.mock_info.cell_deps[0].data
            );
        }
        assert!(single_input(&all, 3).is_none());
    }
}
