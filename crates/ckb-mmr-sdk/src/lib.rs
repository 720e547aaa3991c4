//! Build, lock, unlock and grow Merkle Mountain Range (MMR) proofs on CKB, from the host.
//!
//! The on-chain side of this project is three lock scripts that verify MMR membership proofs
//! (baseline Rust, compiled Rust, C) and an accumulator type script that keeps an MMR root in
//! a cell. This crate is what a host program needs to use them, on ckb-types for every
//! molecule structure. The examples in `examples/` run each part below end to end.
//!
//! # 1. Prove leaves, build the witness and the lock args
//!
//! A cell locked by a verifier with args `root || mmr_size` can be spent by whoever puts a
//! proof of leaves of that MMR in the spending input's `WitnessArgs.lock`:
//!
//! ```
//! use ckb_mmr_sdk::{ckb_hash, witness_args_with_lock, Format, Mode, Workload};
//!
//! # fn main() -> ckb_mmr_sdk::error::Result<()> {
//! let leaves: Vec<[u8; 32]> = (0..100u32).map(|i| ckb_hash(&[&i.to_le_bytes()])).collect();
//! let w = Workload::from_leaves(&leaves, &[3, 50])?; // the MMR and a proof of leaves 3, 50
//! let args = w.lock_args_for(Mode::Plain); // 40 bytes: root || mmr_size (u64 LE)
//! let payload = w.payload(Format::Compiled)?; // what the C and compiled Rust verifiers read
//! let witness = witness_args_with_lock(&payload); // molecule WitnessArgs, lock = payload
//! assert_eq!(args.len(), 40);
//! assert!(Workload::from_leaves(&leaves, &[100]).is_err()); // no leaf 100: an error
//! # let _ = witness;
//! # Ok(())
//! # }
//! ```
//!
//! [`Mode::Owner`] adds a flag: a proved leaf must also be the lock hash of another input
//! ([`script::hash`] of the owner's lock). [`by_reference_args`] names an accumulator instead
//! of a root. [`Format::Baseline`] is the baseline verifier's payload.
//!
//! # 2. On a chain: node, wallet, deploy, lock, spend
//!
//! [`node`] runs a local dev chain's `ckb` (0.210) by PID; [`chain::Chain`] talks JSON-RPC to
//! any node; [`key::Key`] and [`wallet::Wallet`] balance, pay fees and sign
//! (secp256k1_blake160_sighash_all); [`deploy`] puts a verifier in a code cell;
//! [`mmr_cell`] locks a cell and spends it:
//!
//! ```no_run
//! use ckb_mmr_sdk::chain::Chain;
//! use ckb_mmr_sdk::key::{Key, DEV_KEY};
//! use ckb_mmr_sdk::mmr_cell::{self, Spend, DEFAULT_CELL_CAPACITY};
//! use ckb_mmr_sdk::node::{self, Node, Tie};
//! use ckb_mmr_sdk::wallet::{Wallet, DEFAULT_FEE_RATE};
//! use ckb_mmr_sdk::{deploy, Format, Mode};
//!
//! # fn main() -> ckb_mmr_sdk::error::Result<()> {
//! # let leaves = vec![[7u8; 32]; 10];
//! let dir = std::env::temp_dir().join("my-dev-chain");
//! node::init(&dir)?; // a fresh dev chain on free ports
//! let node = Node::start(&dir, Tie::Owner)?; // stopped when dropped or when we die
//! let chain = Chain::connect(&node.rpc_url, false)?; // false: refuse mainnet
//! let key = Key::from_hex(DEV_KEY)?; // funded in the dev chain's genesis
//! let wallet = Wallet::new(&chain, &key, DEFAULT_FEE_RATE);
//! chain.next_block()?;
//! chain.wait_indexer()?;
//!
//! let binary = deploy::read_binary("build/release/c-verifier")?;
//! let code = deploy::deploy(&wallet, &binary, false)?; // by data hash (data2)
//! let w = mmr_cell::prove(&leaves, &[4])?;
//! let lock = mmr_cell::lock_script(&code.code, &w, Mode::Plain);
//! let (cell, _) = mmr_cell::lock_cell(&wallet, lock, DEFAULT_CELL_CAPACITY)?;
//! let spend = Spend::new(cell, code, &w, Format::Compiled, Mode::Plain)?.build(&wallet)?;
//! chain.send_and_commit(&spend.tx)?;
//! node.stop()?;
//! # Ok(())
//! # }
//! ```
//!
//! # 3. The accumulator
//!
//! [`accumulator`] creates a cell that holds an MMR's root under a type id, appends to it
//! (the type script checks the new root), and locks cells by reference to it: their args name
//! the accumulator's type hash, so one proof against its current root spends them.
//! [`acc_store`] keeps a persistent `mmr-store` in step with it. [`pool_tip`] finds the newest
//! accumulator cell, pooled appends included, for spends while appends are in flight.
//! [`ring`] makes the accumulator a ring of K snapshot cells that spends take as their dep
//! while appends go on, and spends on its newest committed snapshot.
//!
//! ```no_run
//! use ckb_mmr_sdk::accumulator::{self, Update};
//! use ckb_mmr_sdk::mmr_cell::{self, Spend, DEFAULT_CELL_CAPACITY};
//! use ckb_mmr_sdk::{deploy::Deployment, key::Key, wallet::Wallet, Format, Mode};
//!
//! # fn f(wallet: &Wallet, key: &Key, acc_code: &Deployment, verifier: &Deployment,
//! #      leaves: &[[u8; 32]]) -> ckb_mmr_sdk::error::Result<()> {
//! // Create over the first 5 leaves, held by the key's lock.
//! let draft = accumulator::create_draft(acc_code, key.lock(), &leaves[..5])?;
//! let built = accumulator::complete(wallet, draft)?;
//! accumulator::send(wallet, &built, "creating")?;
//! let acc = accumulator::after(acc_code.data_hash, &built)?;
//!
//! // Append the rest.
//! let (new, lock, payload) = Update::Append(leaves).parts(&acc)?;
//! let draft = accumulator::update_draft(&acc, acc_code, &new, lock, &payload);
//! let built = accumulator::complete(wallet, draft)?;
//! accumulator::send(wallet, &built, "appending")?;
//! let acc = accumulator::after(acc_code.data_hash, &built)?;
//!
//! // Lock a cell by reference, spend it with a proof against the current root.
//! let lock = acc.reference_lock(&verifier.code, Mode::Plain);
//! let (cells, _) = accumulator::lock_cells(wallet, &[lock], DEFAULT_CELL_CAPACITY)?;
//! let w = mmr_cell::prove(leaves, &[6])?;
//! let spend = Spend::new(cells[0].clone(), verifier.clone(), &w, Format::Compiled, Mode::Plain)?
//!     .with_dep(acc.cell_dep())
//!     .build(wallet)?;
//! wallet.chain.send_and_commit(&spend.tx)?;
//! # Ok(())
//! # }
//! ```
//!
//! # Checking without a chain
//!
//! [`tx`] writes the mock transaction ckb-debugger runs (`--tx-file`, ckb-mock-tx-types'
//! `ReprMockTransaction`), [`debugger`] runs it; [`debug`] rebuilds a committed transaction
//! as one. [`script`] parses and hashes the scripts that name owners and accumulators.
//! [`weight`] gives what a transaction costs its sender: its weight (the larger of its bytes
//! and its cycles in bytes) and the fee at a fee rate, as the node computes them.
//!
//! # Errors
//!
//! Every function that takes input returns [`error::Error`] (or [`WorkloadError`] for
//! building a proof, which converts into it) and never panics on it. Each variant has the
//! process exit code the `ckb-devnet` tool documents ([`error::Error::exit_code`]).

pub mod acc_store;
pub mod accumulator;
pub mod chain;
pub mod debug;
pub mod debugger;
pub mod deploy;
pub mod error;
pub mod key;
pub mod mmr_cell;
pub mod node;
pub mod pool_tip;
pub mod ring;
pub mod rpc;
pub mod script;
pub mod tx;
pub mod wallet;
pub mod weight;
pub mod workload;

pub use workload::*;

// The versions of the CKB types this crate's API speaks, for callers that build their own.
pub use ckb_mock_tx_types;
pub use ckb_types;

use ckb_types::{packed, prelude::*};
use error::{Error, Result};

/// `0xTXHASH:INDEX`.
pub fn out_point_text(op: &packed::OutPoint) -> String {
    let index: u32 = op.index().unpack();
    format!("{}:{index}", crate::hex(op.tx_hash().as_slice()))
}

/// Parses `0xTXHASH:INDEX`.
pub fn parse_out_point(s: &str) -> Result<packed::OutPoint> {
    let bad = || Error::Usage(format!("an out point is 0xTXHASH:INDEX, got {s:?}"));
    let (hash, index) = s.split_once(':').ok_or_else(bad)?;
    let hash = parse_hash("the tx hash", hash).map_err(|_| bad())?;
    let index: u32 = index.parse().map_err(|_| bad())?;
    Ok(packed::OutPoint::new(hash.pack(), index))
}

/// Parses 32 bytes of hex.
pub fn parse_hash(what: &str, s: &str) -> Result<[u8; 32]> {
    crate::parse_hex(s)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| Error::Usage(format!("{what} must be 32 bytes of hex, got {s:?}")))
}

/// The 32 bytes of a packed hash.
pub fn bytes32(b: &packed::Byte32) -> [u8; 32] {
    b.as_slice().try_into().expect("Byte32 is 32 bytes")
}

/// Malformed input is a typed error, never a panic.
#[cfg(test)]
mod input_errors {
    use super::*;

    #[test]
    fn hex_strings() {
        assert_eq!(parse_hex("0x").unwrap(), Vec::<u8>::new());
        assert_eq!(parse_hex("").unwrap(), Vec::<u8>::new());
        assert_eq!(parse_hex("0xA0ff").unwrap(), vec![0xa0, 0xff]);
        for bad in ["0x1", "zz", "0xg0", "é0", "0x0x00", " 00"] {
            assert!(matches!(parse_hex(bad), Err(Error::Usage(_))), "{bad:?}");
        }
    }

    #[test]
    fn leaves_and_indexes() {
        for bad in ["0x12", &"zz".repeat(32), &"ab".repeat(33)] {
            assert!(
                matches!(parse_leaves(bad), Err(Error::Leaves { .. })),
                "{bad:?}"
            );
        }
        for bad in ["", " ", "3-1", "x", "-1", "18446744073709551616"] {
            assert!(
                matches!(parse_indexes(bad), Err(Error::Index(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(
            Workload::from_leaves(&[], &[0]),
            Err(WorkloadError::NoLeaves)
        ));
        assert!(matches!(
            Workload::from_leaves(&[[1; 32]], &[]),
            Err(WorkloadError::NoLeaves)
        ));
        assert!(matches!(
            Workload::from_leaves(&[[1; 32]; 3], &[1, u64::MAX]),
            Err(WorkloadError::IndexOutOfRange(u64::MAX))
        ));
        assert!(matches!(
            mmr_cell::check_indexes(&[0], 0, "an empty MMR"),
            Err(Error::Index(_))
        ));
        assert!(matches!(mmr_cell::prove(&[], &[0]), Err(Error::Index(_))));
        assert!(matches!(
            accumulator::commitment(&[]),
            Err(Error::Leaves { .. })
        ));
    }

    #[test]
    fn out_points_and_hashes() {
        let hash = hex(&[0xab; 32]);
        let op = parse_out_point(&format!("{hash}:7")).unwrap();
        assert_eq!(out_point_text(&op), format!("{hash}:7"));
        for bad in [
            String::new(),
            ":".into(),
            "0x00:1".into(),
            hash.clone(),
            format!("{hash}:-1"),
            format!("{hash}:4294967296"),
            format!("{hash}:1:2"),
            format!("{}:0", hex(&[0xab; 33])),
        ] {
            assert!(
                matches!(parse_out_point(&bad), Err(Error::Usage(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(
            parse_hash("code hash", "0x12"),
            Err(Error::Usage(_))
        ));
        assert_eq!(parse_hash("h", &hash).unwrap(), [0xab; 32]);
    }

    #[test]
    fn debugger_without_a_transaction() {
        let missing = std::path::Path::new("/nonexistent/ckb-mmr-sdk/tx.json");
        assert!(matches!(
            debugger::run_lock(missing, 0),
            Err(Error::Debugger(_))
        ));
    }
}
