//! Build, lock, unlock and grow Merkle Mountain Range (MMR) proofs on CKB, from the host.
//!
//! The on-chain side of this project is three lock scripts that verify MMR membership proofs
//! and an accumulator type script that keeps an MMR root in a cell. This crate is everything
//! a host program needs to use them:
//!
//! - **Proofs and witnesses** ([`workload`]): an MMR from your leaves
//!   ([`Workload::from_leaves`]) or from a seed, the proof for a sample of them, the payload
//!   each verifier reads ([`Format`]) and the lock args ([`Workload::lock_args_for`]).
//! - **Mock transactions** ([`tx`], [`script`], [`debugger`]): ckb-debugger's `--tx-file`
//!   input, and running it.
//! - **A node** ([`node`]): a local dev chain's `ckb` process, owned by PID.
//! - **A chain client** ([`rpc`], [`chain`], [`key`], [`wallet`]): JSON-RPC, the genesis
//!   system cells, balancing, fees, sighash_all signing, send until committed.
//! - **Deploying and using the locks** ([`deploy`], [`mmr_cell`]): code cells (data2 or
//!   type id), cells locked with an MMR's args, spent with a proof.
//! - **The accumulator** ([`accumulator`], [`acc_store`]): create, append, extend, hand over,
//!   and the locks that follow it by reference; a persistent store kept in step with it.
//! - **Debugging** ([`debug`]): a committed transaction rebuilt as a mock transaction.
//!
//! Errors are [`error::Error`], with the exit codes the `ckb-devnet` tool documents.

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
pub mod rpc;
pub mod script;
pub mod tx;
pub mod wallet;
pub mod workload;

pub use workload::*;

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
    let hash: [u8; 32] = crate::parse_hex(hash)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(bad)?;
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
