//! A checker that proves the assembly merge kernel (`crates/mmr-blake2b/src/merge_rv64.s`)
//! equal to BLAKE2b-256 personalised "ckb-default-hash" over `left || right`, for every
//! input, on the bytes the release binaries actually link; and that each entry's register
//! effects are exactly what the Rust and C wrappers declare. See docs/hashing.md, "Proved
//! equal to BLAKE2b for every input".

pub mod check;
pub mod decode;
pub mod elf;
pub mod exec;
pub mod expr;
pub mod mutate;
pub mod report;
pub mod spec;
pub mod wrappers;
