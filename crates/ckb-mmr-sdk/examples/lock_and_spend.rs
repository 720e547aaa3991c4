//! Lock a cell with an MMR and spend it with a proof, on a fresh dev chain:
//!
//! ```sh
//! ./build.sh build     # the verifiers, in build/release
//! cargo run -p ckb-mmr-sdk --example lock_and_spend [RELEASE_DIR]
//! ```
//!
//! Needs `ckb` (0.210) on PATH or in `CKB_BIN`. The verifiers come from RELEASE_DIR, else
//! `CKB_MMR_RELEASE`, else the workspace's build/release. The node runs in a temporary
//! directory and is stopped by its PID when the example ends, also when it fails.

use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::deploy;
use ckb_mmr_sdk::error::Result;
use ckb_mmr_sdk::key::{Key, DEV_KEY};
use ckb_mmr_sdk::mmr_cell::{self, Spend, DEFAULT_CELL_CAPACITY};
use ckb_mmr_sdk::node::{self, Node, Tie};
use ckb_mmr_sdk::wallet::{Wallet, DEFAULT_FEE_RATE};
use ckb_mmr_sdk::{ckb_hash, hex, Format, Mode};
use std::path::{Path, PathBuf};

/// The verifiers' directory: the first argument, `CKB_MMR_RELEASE`, or build/release.
pub fn release_dir() -> PathBuf {
    std::env::args_os()
        .nth(1)
        .or_else(|| std::env::var_os("CKB_MMR_RELEASE"))
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build/release"))
}

/// Starts a dev chain in a temporary directory, runs `f` on its RPC URL, stops the node.
pub fn on_dev_chain<T>(name: &str, f: impl FnOnce(&str) -> Result<T>) -> Result<T> {
    let dir = std::env::temp_dir().join(format!("ckb-mmr-sdk-{name}-{}", std::process::id()));
    node::init(&dir)?;
    // Tie::Owner: the node also stops if this process dies; dropping `node` stops it too.
    let node = Node::start(&dir, Tie::Owner)?;
    println!("node up at {} (pid {})", node.rpc_url, node.pid);
    let result = f(&node.rpc_url);
    let stopped = node.stop();
    let value = result?;
    stopped?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(value)
}

/// The transaction hash of the spend.
pub fn run(release: &Path) -> Result<String> {
    let verifier = release.join("c-verifier").display().to_string();
    let binary = deploy::read_binary(&verifier)?;
    on_dev_chain("lock-and-spend", |url| {
        let chain = Chain::connect(url, false)?;
        // The dev chain's genesis funds this key (never use it anywhere else).
        let key = Key::from_hex(DEV_KEY)?;
        let wallet = Wallet::new(&chain, &key, DEFAULT_FEE_RATE);
        // Genesis cells need the chain past block 0 before the indexer serves them.
        chain.next_block()?;
        chain.wait_indexer()?;

        // 1. Deploy the verifier: a code cell, named by its data hash (data2).
        let code = deploy::deploy(&wallet, &binary, false)?;
        println!(
            "verifier deployed at {}",
            ckb_mmr_sdk::out_point_text(&code.out_point)
        );

        // 2. Lock a cell with an MMR's root: the lock args commit to the MMR.
        let leaves: Vec<[u8; 32]> = (0..100u32).map(|i| ckb_hash(&[&i.to_le_bytes()])).collect();
        let w = mmr_cell::prove(&leaves, &[7])?;
        let lock = mmr_cell::lock_script(&code.code, &w, Mode::Plain);
        let (cell, _) = mmr_cell::lock_cell(&wallet, lock, DEFAULT_CELL_CAPACITY)?;
        println!("locked {}", ckb_mmr_sdk::out_point_text(&cell.out_point));

        // 3. Spend it: the proof of leaf 7 in the witness, the capacity back to the key.
        let built = Spend::new(cell, code, &w, Format::Compiled, Mode::Plain)?.build(&wallet)?;
        let hash = chain.send_and_commit(&built.tx)?;
        let hash = hex(hash.as_bytes());
        println!("spent in {hash}");
        Ok(hash)
    })
}

#[allow(dead_code)] // the test that runs this example calls `run` itself
fn main() -> std::process::ExitCode {
    match run(&release_dir()) {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lock_and_spend: {e}");
            std::process::ExitCode::from(e.exit_code())
        }
    }
}
