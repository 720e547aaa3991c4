//! The MMR lock on a real CKB node.
//!
//! - [`node`]: the one owner of a local dev chain's `ckb` process (init, start, stop by PID).
//! - [`rpc`], [`chain`]: the node's JSON-RPC, its genesis system cells, send-until-committed.
//! - [`key`], [`wallet`]: a private key file, balancing, fees from size, sighash_all signing.
//! - [`deploy`]: verifier code cells (data2 or type id; found again through the indexer).
//! - [`mmr_cell`]: locking a cell with an MMR's args and spending it with a proof.
//! - [`accumulator`]: the accumulator cell (create, append, extend, hand over) and the locks
//!   that follow it by reference.
//! - [`debug`]: a transaction rebuilt from the node as a ckb-debugger mock transaction.
//! - [`scenario`]: `./build.sh devnet`, everything above on a fresh dev chain, as a report;
//!   [`acc_scenario`] is its accumulator part.
//!
//! The CLI is `ckb-devnet` (docs/deploy.md); exit codes are [`error::Error::exit_code`].

pub mod acc_scenario;
pub mod acc_store;
pub mod accumulator;
pub mod chain;
pub mod debug;
pub mod deploy;
pub mod error;
pub mod key;
pub mod mmr_cell;
pub mod node;
pub mod rpc;
pub mod scenario;
pub mod sync_bench;
pub mod wallet;

use ckb_types::{packed, prelude::*};
use error::{Error, Result};

/// `0xTXHASH:INDEX`.
pub fn out_point_text(op: &packed::OutPoint) -> String {
    let index: u32 = op.index().unpack();
    format!("{}:{index}", tx_generator::hex(op.tx_hash().as_slice()))
}

/// Parses `0xTXHASH:INDEX`.
pub fn parse_out_point(s: &str) -> Result<packed::OutPoint> {
    let bad = || Error::Usage(format!("an out point is 0xTXHASH:INDEX, got {s:?}"));
    let (hash, index) = s.split_once(':').ok_or_else(bad)?;
    let hash: [u8; 32] = tx_generator::parse_hex(hash)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(bad)?;
    let index: u32 = index.parse().map_err(|_| bad())?;
    Ok(packed::OutPoint::new(hash.pack(), index))
}

/// Parses 32 bytes of hex.
pub fn parse_hash(what: &str, s: &str) -> Result<[u8; 32]> {
    tx_generator::parse_hex(s)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| Error::Usage(format!("{what} must be 32 bytes of hex, got {s:?}")))
}

/// The 32 bytes of a packed hash.
pub fn bytes32(b: &packed::Byte32) -> [u8; 32] {
    b.as_slice().try_into().expect("Byte32 is 32 bytes")
}
