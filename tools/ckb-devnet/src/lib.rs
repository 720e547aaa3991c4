//! `ckb-devnet`'s demonstrations on a fresh dev chain, over [`ckb_mmr_sdk`]: [`scenario`] is
//! `./build.sh devnet` (everything the SDK does, as named cases and a report), [`sync_bench`]
//! the store's sync timed, [`load`] the accumulator under concurrent spends; all on a chain
//! from [`fresh_chain`].

pub mod fresh_chain;
pub mod load;
pub mod scenario;
pub mod sync_bench;

use serde::Serialize;
use serde_json::Value;

/// `row` as JSON with `extra`'s keys added: a row and what a command or report computes for it.
pub fn with_keys(row: &impl Serialize, extra: Value) -> Value {
    let mut json = serde_json::to_value(row).expect("a row is plain JSON");
    if let (Value::Object(keys), Value::Object(more)) = (&mut json, extra) {
        keys.extend(more);
    }
    json
}
