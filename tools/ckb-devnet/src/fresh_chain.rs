//! A fresh dev chain for one run: initialised in a directory, its node started and owned by
//! this process, and stopped whatever the run's outcome.

use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::node::{self, Node, Tie};
use std::fmt::Display;
use std::path::Path;

/// Initialises a dev chain in `chain_dir`, starts its node, runs `f` with the chain (one block
/// past genesis, the indexer caught up) and the node's RPC URL, and stops the node; `f`'s error
/// comes first, then the stop's.
pub fn run_on_fresh_chain<T>(
    chain_dir: &Path,
    f: impl FnOnce(&Chain, &str) -> Result<T>,
) -> Result<T> {
    progress(&format!(
        "initialising a dev chain in {}",
        chain_dir.display()
    ));
    node::init(chain_dir)?;
    let node = Node::start(chain_dir, Tie::Owner)?;
    progress(&format!("node up at {} (pid {})", node.rpc_url, node.pid));
    let result = ready(&node.rpc_url).and_then(|chain| f(&chain, &node.rpc_url));
    let stopped = node.stop();
    let out = result?;
    stopped?;
    Ok(out)
}

fn ready(rpc_url: &str) -> Result<Chain> {
    let chain = Chain::connect(rpc_url, false)?;
    // Genesis cells need the chain to move past block 0 before the indexer serves them.
    chain.next_block()?;
    chain.wait_indexer()?;
    Ok(chain)
}

/// Removes `dir`, an earlier run's, if it is there.
pub fn remove_old(dir: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| file_error(dir.display(), e))?;
    }
    Ok(())
}

/// A failed file operation on `path`, as the SDK reports one (exit 5).
pub fn file_error(path: impl Display, reason: impl Display) -> Error {
    Error::File {
        path: path.to_string(),
        reason: reason.to_string(),
    }
}
