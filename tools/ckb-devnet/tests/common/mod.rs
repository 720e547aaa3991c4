//! Shared by the dev-chain tests: paths, a fresh node per test, process checks, and the
//! deployments the accumulator's and the ring's pool tests start from.
#![allow(dead_code)]

use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::deploy::{self, Deployment};
use ckb_mmr_sdk::key::Key;
use ckb_mmr_sdk::mmr_cell::DEFAULT_CELL_CAPACITY;
use ckb_mmr_sdk::node::{self, Node, Tie};
use ckb_mmr_sdk::rpc::{IndexedCell, NodeError};
use ckb_mmr_sdk::wallet::{Built, Wallet, DEFAULT_FEE_RATE};
use ckb_types::{packed, prelude::*, H256};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_ckb-devnet");

/// Runs ckb-devnet quietly (no progress lines: standard error is the error alone).
pub fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("CKB_DEVNET_QUIET", "1")
        .output()
        .expect("runs ckb-devnet")
}

/// Runs a command that must fail with `code`, one line on standard error containing `text`.
pub fn refused(args: &[&str], code: i32, text: &str) -> String {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    assert!(stderr.contains(text), "{args:?}: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    stderr
}

pub fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

pub fn signal(pid: u32, sig: i32) {
    // SAFETY: a signal to a child this test started.
    unsafe { libc::kill(pid as i32, sig) };
}

/// Runs a client command that waits for a miner that never comes, and kills it (SIGKILL) as
/// soon as it has sent its transaction. Returns the hash it sent.
pub fn kill_after_send(args: &[&str]) -> String {
    let mut child = Command::new(BIN)
        .args(args)
        .arg("--no-generate")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    for line in stderr.lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("ckb-devnet: sent ") {
            signal(child.id(), libc::SIGKILL);
            child.wait().unwrap();
            return rest.split(',').next().unwrap().to_string();
        }
    }
    panic!("{args:?} never sent: {:?}", child.wait());
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

pub fn release() -> PathBuf {
    let dir = root().join("build/release");
    assert!(
        dir.join("compiled-verifier").is_file(),
        "no verifier binaries in {}: run ./build.sh build first",
        dir.display()
    );
    dir
}

/// The release build of the accumulator's type script.
pub fn accumulator_type() -> String {
    release().join("accumulator-type").display().to_string()
}

/// An RPC URL on 127.0.0.1 where nothing listens (a port just bound and let go).
pub fn closed_rpc() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", l.local_addr().unwrap())
}

/// The chain at `rpc` with one block mined past genesis and the indexer caught up.
pub fn ready_chain(rpc: &str) -> ckb_mmr_sdk::chain::Chain {
    let chain = ckb_mmr_sdk::chain::Chain::connect(rpc, false).unwrap();
    chain.next_block().unwrap();
    chain.wait_indexer().unwrap();
    chain
}

/// A directory of its own for one test, emptied.
pub fn test_dir(name: &str) -> PathBuf {
    let dir = root().join("build/tmp/devnet-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("test dir");
    dir
}

/// A fresh dev chain owned by this test (stopped when dropped, or when the test process dies).
pub fn fresh_node(name: &str) -> Node {
    let dir = test_dir(name).join("chain");
    node::init(&dir).expect("ckb init (is ckb 0.210.0 installed? ./build.sh deps)");
    Node::start(&dir, Tie::Owner).expect("node start")
}

/// A fresh node for a client test, with its RPC URL, the dev key's and the owner key's files
/// (`ckb-devnet node` writes both), a directory for the test's files, the compiled verifier's
/// path and the accumulator type script's.
pub struct Client {
    pub node: Node,
    pub rpc: String,
    pub key: String,
    pub owner_key: String,
    pub files: PathBuf,
    pub verifier: String,
    pub acc_type: String,
}

impl Client {
    /// `a` with `--rpc RPC --json --type-script-binary ACC_TYPE`, and `--key KEY` when given.
    pub fn acc_args<'a>(&'a self, a: &[&'a str], key: Option<&'a str>) -> Vec<&'a str> {
        let tail = [
            "--rpc",
            &self.rpc,
            "--json",
            "--type-script-binary",
            &self.acc_type,
        ];
        let mut all = [a, &tail].concat();
        all.extend(key.into_iter().flat_map(|k| ["--key", k]));
        all
    }

    /// Runs [`Client::acc_args`] (with the dev key's file when `with_key`): its JSON.
    pub fn acc_json(&self, a: &[&str], with_key: bool) -> Value {
        json_of(&run(&self.acc_args(a, with_key.then_some(&self.key))))
    }

    /// Deploys `binary` with the dev key: its JSON.
    pub fn deploy_json(&self, binary: &str) -> Value {
        json_of(&run(&[
            &deploy(binary, &self.rpc, &self.key)[..],
            &["--json"],
        ]
        .concat()))
    }
}

pub fn client(name: &str) -> Client {
    let node = fresh_node(name);
    Client {
        rpc: node.rpc_url.clone(),
        key: node.dir.join("dev.key").display().to_string(),
        owner_key: node.dir.join("owner.key").display().to_string(),
        files: test_dir(&format!("{name}-files")),
        verifier: release().join("compiled-verifier").display().to_string(),
        acc_type: accumulator_type(),
        node,
    }
}

/// Writes `text` to `dir/name` and gives the path as a command-line argument.
pub fn write_file(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// `deploy VERIFIER --rpc RPC --key KEY`, to which a test adds its options.
pub fn deploy<'a>(verifier: &'a str, rpc: &'a str, key: &'a str) -> Vec<&'a str> {
    vec!["deploy", verifier, "--rpc", rpc, "--key", key]
}

/// `--verifier VERIFIER --rpc RPC --key KEY`: what lock and spend take after their own options.
pub fn against<'a>(verifier: &'a str, rpc: &'a str, key: &'a str) -> [&'a str; 6] {
    ["--verifier", verifier, "--rpc", rpc, "--key", key]
}

/// `spend --acc TID SOURCE --index INDEX --verifier VERIFIER`, a by-reference spend, where
/// `source` is `["--leaves", FILE]` or `["--store", DIR]`.
pub fn acc_spend<'a>(
    tid: &'a str,
    source: [&'a str; 2],
    index: &'a str,
    verifier: &'a str,
) -> Vec<&'a str> {
    let [how, from] = source;
    let spend = ["spend", "--acc", tid, how, from];
    [&spend[..], &["--index", index, "--verifier", verifier]].concat()
}

/// PIDs of processes whose command line mentions `dir`.
pub fn processes_in(dir: &Path) -> Vec<i32> {
    let needle = dir.display().to_string();
    let entries = std::fs::read_dir("/proc").into_iter().flatten().flatten();
    let pids = entries.filter_map(|entry| {
        let pid = entry.file_name().to_string_lossy().parse::<i32>().ok()?;
        let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        (text.contains(&needle) && !node::is_zombie(pid)).then_some(pid)
    });
    pids.collect()
}

/// Waits up to `secs` for no process to mention `dir`.
pub fn no_process_left(dir: &Path, secs: u64) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed().as_secs() < secs {
        if processes_in(dir).is_empty() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    false
}

/// `b`'s transaction hash.
pub fn hash(b: &Built) -> H256 {
    b.tx.calc_tx_hash().unpack()
}

/// Sends `b`: the node's refusal as its error; any other failure (transport, parse) ends the
/// test, since these tests are about what the node decides.
pub fn send(chain: &Chain, b: &Built) -> Result<H256, NodeError> {
    match chain.rpc.send_transaction(&b.tx) {
        Ok(h) => Ok(h),
        Err(ckb_mmr_sdk::rpc::CallError::Node(e)) => Err(e),
        Err(ckb_mmr_sdk::rpc::CallError::Other(e)) => panic!("send_transaction: {e}"),
    }
}

/// A by-reference spend of `cell` proving leaf 0 of `leaves` (the MMR its dep holds) with the
/// compiled verifier's plain mode, `dep` the accumulator or ring snapshot it reads.
pub fn reference_spend(
    cell: &IndexedCell,
    verifier: &Deployment,
    leaves: &[[u8; 32]],
    dep: packed::CellDep,
) -> ckb_mmr_sdk::mmr_cell::Spend {
    let w = ckb_mmr_sdk::mmr_cell::prove(leaves, &[0]).unwrap();
    ckb_mmr_sdk::mmr_cell::Spend::new(
        cell.clone(),
        verifier.clone(),
        &w,
        ckb_mmr_sdk::Format::Compiled,
        ckb_mmr_sdk::Mode::Plain,
    )
    .unwrap()
    .with_dep(dep)
}

/// What the pool tests of the accumulator and of the ring start from: the payer's wallet on
/// `chain`, the compiled verifier and the accumulator type deployed by it, and the leaves the
/// MMR grows through ([1; 32], [2; 32], ...).
pub struct Deployed<'a> {
    pub chain: &'a Chain,
    pub payer: Wallet<'a>,
    pub verifier: Deployment,
    pub acc_code: Deployment,
    pub leaves: Vec<[u8; 32]>,
}

impl<'a> Deployed<'a> {
    pub fn new(chain: &'a Chain, key: &'a Key, leaves: u8) -> Deployed<'a> {
        let payer = Wallet::new(chain, key, DEFAULT_FEE_RATE);
        let release = release();
        let binary = |name: &str| std::fs::read(release.join(name)).unwrap();
        let verifier = deploy::deploy(&payer, &binary("compiled-verifier"), false).unwrap();
        let acc_code = deploy::deploy(&payer, &binary("accumulator-type"), false).unwrap();
        Deployed {
            chain,
            payer,
            verifier,
            acc_code,
            leaves: (1..=leaves).map(|i| [i; 32]).collect(),
        }
    }

    /// `count` cells locked by `lock` (by reference to an accumulator or a ring), committed.
    pub fn lock_cells(&self, lock: packed::Script, count: usize) -> Vec<IndexedCell> {
        let locks = vec![lock; count];
        let (cells, _) =
            ckb_mmr_sdk::accumulator::lock_cells(&self.payer, &locks, DEFAULT_CELL_CAPACITY)
                .unwrap();
        cells
    }

    pub fn send(&self, b: &Built) -> Result<H256, NodeError> {
        send(self.chain, b)
    }

    /// `get_transaction`'s status and reason for `b`.
    pub fn status(&self, b: &Built) -> (String, String) {
        let s = self.chain.rpc.transaction(&hash(b)).unwrap();
        s.map_or(("unknown".into(), String::new()), |s| {
            (s.status, s.reason.unwrap_or_default())
        })
    }

    /// Lets the node's own miner work, `blocks` blocks at most, until every one of `txs` is
    /// committed.
    pub fn commit_all(&self, txs: &[&Built], blocks: usize) {
        for _ in 0..blocks {
            if txs.iter().all(|b| self.status(b).0 == "committed") {
                return;
            }
            self.chain.next_block().unwrap();
        }
        let statuses: Vec<_> = txs.iter().map(|b| self.status(b)).collect();
        panic!("not all committed after {blocks} blocks: {statuses:?}");
    }

    /// Sends `b`, which the node must refuse (`what` it is) with -301, a cell it takes dead or
    /// unknown, naming `words`: the refusal.
    pub fn refused_301(&self, b: &Built, what: &str, words: &str) -> NodeError {
        let e = self.send(b).expect_err(what);
        assert_eq!(e.code, -301, "{}", e.message);
        assert!(e.message.contains(words), "{}", e.message);
        e
    }

    /// Sends `b`, which the node must accept.
    pub fn sent(&self, b: &Built, what: &str) {
        if let Err(e) = self.send(b) {
            panic!("{what} refused: {} ({})", e.message, e.code);
        }
    }
}
