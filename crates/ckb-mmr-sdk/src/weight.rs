//! What a transaction costs its sender: its weight, and the fee at a fee rate.
//!
//! A CKB node's tx pool weighs a transaction by the larger of its two block limits, bytes and
//! cycles, with cycles converted to bytes at the ratio of the limits (597,000 bytes per 3.5e9
//! cycles); the weight sets both the fee a sender pays at a fee rate and the transaction's share
//! of a block. As ckb 0.210.0 computes it (the crate versions its `Cargo.lock` pins):
//!
//! - size: `packed::Transaction::serialized_size_in_block`, the molecule bytes plus the 4-byte
//!   offset a block's transaction vector adds (ckb-gen-types 1.1.1,
//!   `src/extension/serialized_size.rs`); the pool takes it in `tx-pool/src/process.rs`
//!   (`pre_check`) and stores it in its entry (ckb-tx-pool 1.3.0);
//! - weight: `get_transaction_weight(size, cycles)` = `max(size, (cycles as f64 *
//!   DEFAULT_BYTES_PER_CYCLES) as u64)`, the cycle part truncated, with
//!   `DEFAULT_BYTES_PER_CYCLES = 0.000_170_571_4` (ckb-types 1.1.3, `src/core/tx_pool.rs`);
//!   the pool's fee rate is `fee / weight` (`TxEntry::fee_rate`,
//!   `tx-pool/src/component/entry.rs`);
//! - fee: `FeeRate::fee(weight)` = `rate * weight / 1000`, rounded down (ckb-types,
//!   `src/core/fee_rate.rs`); the default minimum rate is 1,000 shannons per 1,000 weight
//!   (ckb-app-config 1.3.0, `DEFAULT_MIN_FEE_RATE`; `min_fee_rate` in ckb.toml).
//!
//! The pool's admission check (`check_tx_fee`, `tx-pool/src/util.rs`) asks for the minimum
//! rate times the size alone, not the weight; the two agree whenever the bytes bind, as they do
//! for every transaction this project sends (a proof's witness weighs far more than its cycles).
//!
//! This module calls the node's own functions (the same crate, `ckb-types`) rather than
//! restating them; its tests pin the numbers, so a change of formula or rounding upstream
//! fails here.

use ckb_types::core::{tx_pool, FeeRate};
use ckb_types::packed;
use serde::Serialize;

/// Weight per cycle: the node's `DEFAULT_BYTES_PER_CYCLES` (max block bytes / max block cycles).
pub const BYTES_PER_CYCLE: f64 = tx_pool::DEFAULT_BYTES_PER_CYCLES;

/// The node's default minimum fee rate: shannons per 1,000 weight.
pub const DEFAULT_MIN_FEE_RATE: u64 = 1_000;

/// The bytes a transaction weighs as: its serialized size in a block (molecule bytes + 4).
pub fn tx_bytes(tx: &packed::Transaction) -> usize {
    tx.serialized_size_in_block()
}

/// The pool's weight of a transaction of `tx_bytes` bytes ([`tx_bytes`]) that ran `cycles`.
pub fn weight(tx_bytes: usize, cycles: u64) -> u64 {
    tx_pool::get_transaction_weight(tx_bytes, cycles)
}

/// The weight of `cycles` alone (what the weight would be if no bytes were sent).
pub fn cycles_weight(cycles: u64) -> u64 {
    tx_pool::get_transaction_weight(0, cycles)
}

/// The fee in shannons of `weight` at `rate` shannons per 1,000 weight, as the node computes it.
pub fn fee(weight: u64, rate: u64) -> u64 {
    FeeRate::from_u64(rate).fee(weight).as_u64()
}

/// The fee in shannons of `weight` at the default minimum fee rate.
pub fn min_fee(weight: u64) -> u64 {
    fee(weight, DEFAULT_MIN_FEE_RATE)
}

/// A measured transaction's size, cycles, weight and minimum fee, for tables and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Cost {
    pub tx_bytes: usize,
    pub cycles: u64,
    pub weight: u64,
    /// Shannons at [`DEFAULT_MIN_FEE_RATE`].
    pub fee: u64,
}

impl Cost {
    pub fn new(tx_bytes: usize, cycles: u64) -> Cost {
        let weight = weight(tx_bytes, cycles);
        Cost {
            tx_bytes,
            cycles,
            weight,
            fee: min_fee(weight),
        }
    }

    /// Whether the cycles, not the bytes, set the weight.
    pub fn cycles_bind(&self) -> bool {
        self.weight > self.tx_bytes as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ckb_types::{bytes::Bytes, core::TransactionBuilder, prelude::*};

    #[test]
    fn bytes_bind_for_a_proof_spend() {
        // The compiled verifier on the reference seed: 542,707 cycles weigh 92 (92.57
        // truncated), far below the transaction's bytes.
        assert_eq!(cycles_weight(542_707), 92);
        let c = Cost::new(14_145, 542_707);
        assert_eq!((c.weight, c.fee), (14_145, 14_145));
        assert!(!c.cycles_bind());
    }

    #[test]
    fn cycles_bind_for_a_heavy_script() {
        // 10M cycles weigh 1,705 (1,705.714 truncated): more than a 1,000-byte transaction.
        let c = Cost::new(1_000, 10_000_000);
        assert_eq!((c.weight, c.fee), (1_705, 1_705));
        assert!(c.cycles_bind());
        // A full block's cycles weigh a block's bytes, less the truncated fraction.
        assert_eq!(cycles_weight(3_500_000_000), 596_999);
        // Equal weights: the bytes give it, the cycles do not bind.
        assert_eq!(cycles_weight(5_863), 1);
        assert_eq!(cycles_weight(5_862), 0);
        assert!(!Cost::new(1, 5_863).cycles_bind());
    }

    #[test]
    fn fee_rounds_down_per_thousand_weight() {
        assert_eq!(min_fee(14_145), 14_145);
        assert_eq!(fee(14_145, 1_500), 21_217); // 21,217.5
        assert_eq!(fee(999, 1), 0);
        assert_eq!(fee(1_000, 1), 1);
        assert_eq!(fee(u64::MAX, 2_000), u64::MAX / 1_000); // saturates, then divides
    }

    #[test]
    fn a_transaction_weighs_its_serialized_bytes_plus_four() {
        let tx = TransactionBuilder::default()
            .witness(Bytes::from(vec![7u8; 100]).pack())
            .build()
            .data();
        assert_eq!(tx_bytes(&tx), tx.as_slice().len() + 4);
        // A witness adds its 4-byte length, its bytes and its 4-byte offset in the vector.
        let empty = TransactionBuilder::default().build().data();
        assert_eq!(tx_bytes(&tx) - tx_bytes(&empty), 108);
    }
}
