//! `ckb-devnet`'s demonstrations on a fresh dev chain, over [`ckb_mmr_sdk`]: [`scenario`] is
//! `./build.sh devnet` (everything the SDK does, as named cases and a report), [`sync_bench`]
//! the store's sync timed; both on a chain from [`fresh_chain`].

pub mod fresh_chain;
pub mod scenario;
pub mod sync_bench;
