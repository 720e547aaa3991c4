//! A fresh dev chain for one run: initialised in a directory, its node started and owned by
//! this process, and stopped whatever the run's outcome.

use ckb_mmr_sdk::chain::progress;
use ckb_mmr_sdk::error::Result;
use ckb_mmr_sdk::node::{self, Node, Tie};
use std::path::Path;

/// Initialises a dev chain in `chain_dir`, starts its node, runs `f` with the node's RPC URL
/// and stops the node; `f`'s error comes first, then the stop's.
pub fn run_on_fresh_chain<T>(chain_dir: &Path, f: impl FnOnce(&str) -> Result<T>) -> Result<T> {
    progress(&format!(
        "initialising a dev chain in {}",
        chain_dir.display()
    ));
    node::init(chain_dir)?;
    let node = Node::start(chain_dir, Tie::Owner)?;
    progress(&format!("node up at {} (pid {})", node.rpc_url, node.pid));
    let result = f(&node.rpc_url);
    let stopped = node.stop();
    let out = result?;
    stopped?;
    Ok(out)
}
