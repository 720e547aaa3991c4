//! `ckb-devnet`'s demonstrations on a fresh dev chain, over [`ckb_mmr_sdk`]:
//! [`scenario`] is `./build.sh devnet` (everything the SDK does, as a report), [`acc_scenario`]
//! its accumulator part, [`sync_bench`] the store's sync timed.

pub mod acc_scenario;
pub mod scenario;
pub mod sync_bench;
