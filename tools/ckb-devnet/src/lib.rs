//! `ckb-devnet`'s demonstrations on a fresh dev chain, over [`ckb_mmr_sdk`]: [`scenario`] is
//! `./build.sh devnet` (everything the SDK does, as named cases and a report), [`sync_bench`]
//! the store's sync timed, [`load`] the accumulator under concurrent spends; all on a chain
//! from [`fresh_chain`].

pub mod fresh_chain;
pub mod load;
pub mod scenario;
pub mod sync_bench;
