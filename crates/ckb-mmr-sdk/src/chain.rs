//! A connection to one chain: its RPC, the system cells every chain has at the same genesis
//! places (RFC 0024), and sending a transaction until it is committed.

use crate::error::{Error, Result};
use crate::rpc::{CallError, Rpc, POOL_DUPLICATED};
use crate::script::SECP256K1_BLAKE160_CODE_HASH;
use ckb_types::{core::DepType, packed, prelude::*, H256};
use std::time::{Duration, Instant};

/// JSON-RPC's "method not found": the node has no `IntegrationTest` module.
const METHOD_NOT_FOUND: i64 = -32601;

pub struct Chain {
    pub rpc: Rpc,
    /// The chain's name: `ckb` (mainnet), `ckb_testnet`, `ckb_dev`, ...
    pub name: String,
    /// Genesis transaction 1, output 0: the secp256k1_blake160_sighash_all dep group.
    pub sighash_dep: packed::CellDep,
    /// Mine blocks with `generate_block` while waiting for a commit (dev chains); turned off
    /// when the node does not have the method, so the client then waits for the miner.
    generate: std::cell::Cell<bool>,
    /// How long to wait for a commit.
    pub commit_timeout: Duration,
    /// Every transaction this connection saw committed, in order: what the devnet scenario
    /// measures with ckb-debugger.
    committed: std::cell::RefCell<Vec<H256>>,
}

impl Chain {
    /// Connects to `url` and reads the genesis block. Refuses mainnet unless `allow_mainnet`.
    pub fn connect(url: &str, allow_mainnet: bool) -> Result<Chain> {
        let rpc = Rpc::new(url)?;
        let name = rpc.chain_name()?;
        if name == "ckb" && !allow_mainnet {
            return Err(Error::Mainnet);
        }
        let genesis = rpc.block_by_number(0)?;
        let txs = &genesis.transactions;
        let bad = |what: &str| {
            let message = format!("genesis block without {what}");
            Error::rpc("get_block_by_number", message)
        };
        let sighash_cell = txs
            .first()
            .and_then(|t| t.inner.outputs.get(1))
            .ok_or_else(|| bad("the sighash_all cell (tx 0, output 1)"))?;
        let sighash_type: Option<packed::Script> = sighash_cell.type_.clone().map(Into::into);
        if sighash_type.map(|t| crate::bytes32(&t.calc_script_hash()))
            != Some(SECP256K1_BLAKE160_CODE_HASH)
        {
            return Err(bad(
                "the secp256k1_blake160_sighash_all type id at tx 0 output 1",
            ));
        }
        let dep_group_tx = txs.get(1).ok_or_else(|| bad("the dep group transaction"))?;
        let sighash_dep = packed::CellDep::new_builder()
            .out_point(packed::OutPoint::new(dep_group_tx.hash.pack(), 0))
            .dep_type(DepType::DepGroup)
            .build();
        Ok(Chain {
            rpc,
            name,
            sighash_dep,
            generate: std::cell::Cell::new(true),
            commit_timeout: Duration::from_secs(300),
            committed: Default::default(),
        })
    }

    /// Never mine blocks: wait for the node's own miner.
    pub fn no_generate(mut self) -> Chain {
        self.generate.set(false);
        self.commit_timeout = Duration::from_secs(600);
        self
    }

    /// Sends `tx`. A transaction the pool already holds counts as sent: that is a rerun of a
    /// command that was interrupted after sending, which rebuilds the same transaction.
    pub fn send(&self, tx: &packed::Transaction) -> Result<H256> {
        match self.rpc.send_transaction(tx) {
            Ok(hash) => Ok(hash),
            Err(CallError::Node(e)) if e.code == POOL_DUPLICATED => Ok(tx.calc_tx_hash().unpack()),
            Err(e) => Err(e.into_error("send_transaction")),
        }
    }

    /// Sends `tx` and waits until it is committed and the indexer has seen its block.
    pub fn send_and_commit(&self, tx: &packed::Transaction) -> Result<H256> {
        let hash = self.send(tx)?;
        progress(&format!("sent {hash:#x}, waiting for it to be committed"));
        self.wait_committed(&hash)?;
        Ok(hash)
    }

    pub fn wait_committed(&self, hash: &H256) -> Result<()> {
        let start = Instant::now();
        loop {
            let status = self.rpc.transaction(hash)?;
            match status.as_ref().map(|s| s.status.as_str()) {
                Some("committed") => {
                    let mut seen = self.committed.borrow_mut();
                    if !seen.contains(hash) {
                        seen.push(hash.clone());
                    }
                    drop(seen);
                    return self.wait_indexer();
                }
                Some("rejected") => {
                    let reason = status.and_then(|s| s.reason).unwrap_or_default();
                    let message = format!("{hash:#x} was rejected: {reason}");
                    return Err(Error::rpc("get_transaction", message));
                }
                None if start.elapsed() > Duration::from_secs(30) => {
                    return Err(Error::NotFound(format!(
                        "the node forgot transaction {hash:#x}"
                    )))
                }
                _ => {}
            }
            if start.elapsed() > self.commit_timeout {
                return Err(Error::Timeout(format!(
                    "{hash:#x} not committed after {} s",
                    self.commit_timeout.as_secs()
                )));
            }
            self.next_block()?;
        }
    }

    /// The transactions this connection has seen committed (by [`Chain::wait_committed`]), in
    /// order.
    pub fn committed(&self) -> Vec<H256> {
        self.committed.borrow().clone()
    }

    /// Lets the chain move on: one block on a dev chain, a pause elsewhere.
    pub fn next_block(&self) -> Result<()> {
        if self.generate.get() {
            match self.rpc.generate_block() {
                Ok(_) => return Ok(()),
                Err(CallError::Node(e)) if e.code == METHOD_NOT_FOUND => self.generate.set(false),
                Err(e) => return Err(e.into_error("generate_block")),
            }
        }
        std::thread::sleep(Duration::from_secs(1));
        Ok(())
    }

    /// Waits until the indexer has caught up with the chain's tip, so that cell queries see
    /// what was just committed.
    pub fn wait_indexer(&self) -> Result<()> {
        let tip = self.rpc.tip_block_number()?;
        let start = Instant::now();
        while self.rpc.indexer_tip()?.unwrap_or(0) < tip {
            if start.elapsed() > Duration::from_secs(60) {
                return Err(Error::Timeout(
                    "the indexer did not reach the chain's tip".into(),
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }
}

/// Progress goes to standard error, one line a step, so standard output stays the result. A
/// closed standard error (a reader that went away) must not stop the work.
pub fn progress(line: &str) {
    use std::io::Write;
    if std::env::var_os("CKB_DEVNET_QUIET").is_none() {
        let _ = writeln!(std::io::stderr(), "ckb-devnet: {line}");
    }
}
