//! ckb-devnet as a user runs it, against a real dev chain: the node's lifecycle, bad input
//! (a distinct exit code, one line, nothing sent) and a client killed mid-way then rerun.

mod common;

use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::key::{Key, DEV_KEY, DEV_KEY_2};
use ckb_mmr_sdk::wallet::{Wallet, DEFAULT_FEE_RATE};
use ckb_types::prelude::*;
use common::{against, deploy, json_of, kill_after_send, refused, run, signal, write_file, BIN};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// `ckb-devnet node` as a child, and the JSON line it printed once the RPC answered.
fn spawn_node(dir: &Path) -> (Child, Value) {
    let mut child = Command::new(BIN)
        .args(["node", "--dir", &dir.display().to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let info: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    let rpc_url = info["rpc_url"].as_str().unwrap();
    assert!(rpc_url.starts_with("http://127.0.0.1:"), "{rpc_url}");
    (child, info)
}

#[test]
fn node_stops_when_its_owner_closes_stdin_is_interrupted_or_dies() {
    let dir = common::test_dir("lifecycle");
    for how in ["stdin", "sigint", "sigkill"] {
        let chain_dir = dir.join(how);
        let (mut child, info) = spawn_node(&chain_dir);
        let node_pid = info["pid"].as_i64().unwrap() as i32;
        assert!(!common::processes_in(&chain_dir).is_empty());
        // Child::wait closes the child's stdin: hold it open so only the signal stops the owner.
        let stdin = child.stdin.take();
        match how {
            "stdin" => drop(stdin),
            "sigint" => signal(child.id(), libc::SIGINT),
            _ => signal(child.id(), libc::SIGKILL),
        }
        let status = child.wait().unwrap();
        match how {
            "stdin" => assert!(status.success(), "{status}"),
            "sigint" => assert_eq!(status.code(), Some(130)),
            _ => assert!(status.code().is_none()),
        }
        // The node goes with its owner, whichever way the owner went.
        assert!(
            common::no_process_left(&chain_dir, 30),
            "{how}: ckb (pid {node_pid}) left running"
        );
        assert!(
            !chain_dir.join("node.pid").exists() || how == "sigkill",
            "{how}"
        );
        // The node shut down cleanly: no database lock is held, the chain starts again.
        let again = ckb_mmr_sdk::node::Node::start(&chain_dir, ckb_mmr_sdk::node::Tie::Owner)
            .expect("restart");
        again.stop().unwrap();
    }
}

#[test]
fn start_and_stop_keep_a_node_for_the_user() {
    let dir = common::test_dir("start-stop").join("node");
    let dir_s = dir.display().to_string();
    let out = run(&["start", "--dir", &dir_s]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("rpc_url: http://127.0.0.1:") && text.contains("PUBLIC"),
        "{text}"
    );
    // The node outlives the command that started it.
    assert!(!common::processes_in(&dir).is_empty());
    // A second init in the same directory refuses while the node runs.
    assert!(ckb_mmr_sdk::node::init(&dir).is_err());
    let out = run(&["stop", "--dir", &dir_s]);
    assert!(out.status.success());
    assert!(common::no_process_left(&dir, 30));
    assert!(String::from_utf8_lossy(&run(&["stop", "--dir", &dir_s]).stdout).contains("no node"));
}

/// A one-connection-at-a-time HTTP server on 127.0.0.1 that answers every JSON-RPC call with
/// `result`, for the one thing no local node can be: mainnet. Serves `calls` requests.
fn fake_rpc(result: Value, calls: usize) -> (String, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        for stream in listener.incoming().take(calls) {
            let mut stream = stream.unwrap();
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body =
                serde_json::json!({ "jsonrpc": "2.0", "id": 1, "result": result }).to_string();
            let _ = write!(stream, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
        }
    });
    (url, handle)
}

#[test]
fn bad_input_gets_its_own_exit_code_and_sends_nothing() {
    let common::Client {
        node: _node,
        rpc,
        key,
        files: dir,
        verifier,
        ..
    } = common::client("bad-input");
    let two_leaves = format!("{}\n{}\n", "11".repeat(32), "22".repeat(32));
    let leaves = write_file(&dir, "leaves.txt", two_leaves);
    let bad_leaves = format!("{}\n0x1234\n", "11".repeat(32));
    let bad_leaves = write_file(&dir, "bad-leaves.txt", bad_leaves);
    let not_a_key = write_file(&dir, "not-a-key", "correct horse battery staple\n");
    let empty_key = write_file(&dir, "empty.key", format!("0x{}\n", "07".repeat(32)));
    let closed = common::closed_rpc();
    let (mainnet, server) = fake_rpc(serde_json::json!({ "chain": "ckb" }), 1);

    let chain = common::ready_chain(&rpc);
    let dev = Key::from_hex(DEV_KEY).unwrap();
    let wallet = Wallet::new(&chain, &dev, DEFAULT_FEE_RATE);
    let balance = wallet.balance().unwrap();
    let tip = chain.rpc.tip_block_number().unwrap();

    let against = against(&verifier, &rpc, &key);
    let cases: Vec<(Vec<&str>, u8, &str)> = vec![
        (
            [deploy(&verifier, &rpc, &key), vec!["--frobnicate"]].concat(),
            2,
            "unexpected argument '--frobnicate'",
        ),
        (deploy(&verifier, &closed, &key), 3, "cannot reach the node"),
        (
            deploy("/nonexistent/verifier", &rpc, &key),
            5,
            "/nonexistent/verifier",
        ),
        (
            deploy(&verifier, &rpc, &not_a_key),
            6,
            "is not a private key file",
        ),
        (
            deploy(&verifier, &rpc, &empty_key),
            7,
            "not enough capacity",
        ),
        (
            [&["lock", "--leaves", &bad_leaves][..], &against].concat(),
            8,
            "line 2",
        ),
        (
            [
                &["spend", "--leaves", &leaves, "--index", "0,2"][..],
                &against,
            ]
            .concat(),
            9,
            "leaf index 2 is not in the MMR",
        ),
        (deploy(&verifier, &mainnet, &key), 10, "mainnet"),
    ];
    for (args, code, text) in cases {
        let stderr = refused(&args, code as i32, text);
        assert!(
            !stderr.contains(DEV_KEY) && !stderr.contains("horse"),
            "a key leaked: {stderr}"
        );
    }
    server.join().unwrap();
    // Nothing reached the chain: no block, no pooled transaction, the key's balance intact.
    assert_eq!(chain.rpc.tip_block_number().unwrap(), tip);
    let pool = chain
        .rpc
        .call("get_raw_tx_pool", serde_json::json!([]))
        .unwrap();
    assert_eq!(pool["pending"].as_array().map(Vec::len), Some(0), "{pool}");
    assert_eq!(wallet.balance().unwrap(), balance);
}

#[test]
fn a_client_killed_between_deploy_and_spend_reruns_without_paying_twice() {
    let common::Client {
        node: _node,
        rpc,
        key: key_path,
        files: dir,
        verifier,
        ..
    } = common::client("killed-client");
    let nine: String = (1..=9u8)
        .map(|b| format!("{}\n", format!("{b:02x}").repeat(32)))
        .collect();
    let leaves = write_file(&dir, "leaves.txt", nine);
    let chain = common::ready_chain(&rpc);
    let key = Key::from_hex(DEV_KEY).unwrap();
    let wallet = Wallet::new(&chain, &key, DEFAULT_FEE_RATE);
    let before = wallet.balance().unwrap();

    // Killed after sending the deployment, before it was committed; the rerun rebuilds the
    // same transaction, finds it already pooled and waits for it.
    let sent = kill_after_send(&deploy(&verifier, &rpc, &key_path));
    let deploy_json = [deploy(&verifier, &rpc, &key_path), vec!["--json"]].concat();
    let deployed = json_of(&run(&deploy_json));
    assert_eq!(
        deployed["tx_hash"].as_str(),
        Some(sent.as_str()),
        "{deployed}"
    );
    // Once committed, a rerun finds it through the indexer and sends nothing.
    let again = json_of(&run(&deploy_json));
    assert_eq!(again["created"], false);
    assert_eq!(again["out_point"], deployed["out_point"]);
    let binary = std::fs::read(&verifier).unwrap();
    assert!(ckb_mmr_sdk::deploy::find_own(&wallet, &binary, false)
        .unwrap()
        .is_some());
    let code_cells = chain
        .rpc
        .cells(&serde_json::json!({
            "script": ckb_mmr_sdk::wallet::script_json(&key.lock()),
            "script_type": "lock",
            "filter": { "output_data_len_range": [format!("{:#x}", binary.len()), format!("{:#x}", binary.len() + 1)] },
        }))
        .unwrap();
    assert_eq!(code_cells.len(), 1, "exactly one deployment");

    let against = against(&verifier, &rpc, &key_path);
    let lock = ["lock", "--leaves", &leaves];
    let locked = json_of(&run(&[&lock[..], &against, &["--json"]].concat()));
    // Killed after sending the spend; the rerun finds the same cell and the same transaction.
    let spend = [
        &["spend", "--leaves", &leaves, "--index", "1,4-6"][..],
        &against,
    ]
    .concat();
    let sent = kill_after_send(&spend);
    let spent = json_of(&run(&[&spend[..], &["--json"]].concat()));
    assert_eq!(spent["tx_hash"].as_str(), Some(sent.as_str()));
    assert_eq!(spent["status"], "committed");

    // Every shannon accounted for: the code cell's capacity and three fees, nothing else.
    let fees = deployed["fee_shannons"].as_u64().unwrap()
        + locked["fee_shannons"].as_u64().unwrap()
        + spent["fee_shannons"].as_u64().unwrap();
    let after = wallet.balance().unwrap();
    assert_eq!(
        before - after,
        deployed["capacity_shannons"].as_u64().unwrap() + fees
    );

    // The committed spend, rebuilt from the node, costs in ckb-debugger what the node charged.
    let debug = json_of(&run(&[
        "debug",
        spent["tx_hash"].as_str().unwrap(),
        "--rpc",
        &rpc,
        "--json",
        "--mock-out",
        &dir.join("mock.json").display().to_string(),
    ]));
    assert_eq!(debug["debugger_cycles"], spent["cycles"], "{debug}");
}

#[test]
fn a_failing_test_that_owns_a_node_leaves_no_process() {
    let dir = common::root().join("build/tmp/devnet-tests/panicking/chain");
    let owner = std::thread::spawn(|| {
        let node = common::fresh_node("panicking");
        assert!(node.pid > 0);
        panic!("a test failing while it owns a node");
    });
    assert!(owner.join().is_err());
    assert!(
        common::no_process_left(&dir, 30),
        "a process still runs in {}",
        dir.display()
    );
}

/// The scenario's transactions (and so the cycles docs/deploy.md shows) must not depend on how
/// many blocks the waits for a commit happen to mine on a busy machine: mining pays no key
/// the client spends from, so every key's cells stay as they were however many blocks come.
#[test]
fn mining_leaves_the_keys_cells_alone() {
    let node = common::fresh_node("mining");
    let chain = common::ready_chain(&node.rpc_url);
    let keys = [DEV_KEY, DEV_KEY_2].map(|k| Key::from_hex(k).unwrap());
    let cells = |chain: &Chain| -> Vec<Vec<String>> {
        keys.iter()
            .map(|key| {
                Wallet::new(chain, key, DEFAULT_FEE_RATE)
                    .plain_cells()
                    .unwrap()
                    .iter()
                    .map(|c| {
                        format!(
                            "{} {}",
                            ckb_mmr_sdk::hex(c.out_point.as_slice()),
                            c.capacity()
                        )
                    })
                    .collect()
            })
            .collect()
    };
    let before = cells(&chain);
    assert!(before.iter().all(|c| !c.is_empty()), "{before:?}");
    // Past the dev chain's reward delay: the blocks mined so far have paid their rewards.
    for _ in 0..30 {
        chain.next_block().unwrap();
    }
    chain.wait_indexer().unwrap();
    assert_eq!(cells(&chain), before);
}

/// A port the chain was given at init can be taken by another process before the node binds
/// it (on CI, by a parallel test's connections): the node then moves to free ports and starts
/// instead of dying during start-up. Here a listener holds the RPC port, then the P2P port, of
/// an initialised chain while its node starts.
#[test]
fn a_port_taken_before_the_node_binds_it_moves_the_node() {
    let dir = common::test_dir("port-taken");
    for which in ["rpc", "p2p"] {
        let chain_dir = dir.join(which);
        let rpc_port = ckb_mmr_sdk::node::init(&chain_dir).unwrap();
        let config = || std::fs::read_to_string(chain_dir.join("ckb.toml")).unwrap();
        let p2p_port: u16 = config()
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("listen_addresses = [\"/ip4/127.0.0.1/tcp/")
            })
            .and_then(|rest| rest.strip_suffix("\"]"))
            .and_then(|p| p.parse().ok())
            .expect("a 127.0.0.1 P2P address in ckb.toml");
        let taken = if which == "rpc" { rpc_port } else { p2p_port };
        let holder = std::net::TcpListener::bind(("127.0.0.1", taken)).unwrap();
        let node = ckb_mmr_sdk::node::Node::start(&chain_dir, ckb_mmr_sdk::node::Tie::Owner)
            .unwrap_or_else(|e| panic!("{which}: {e}"));
        let log = std::fs::read_to_string(chain_dir.join("node.log")).unwrap();
        assert!(
            !log.contains("AddrInUse"),
            "{which}: the last start's log\n{log}"
        );
        let new_rpc: u16 = node.rpc_url.rsplit(':').next().unwrap().parse().unwrap();
        assert!(!config().contains(&format!("/tcp/{taken}\"")), "{which}");
        assert!(!config().contains(&format!(":{taken}\"")), "{which}");
        assert!(
            config().contains(&format!("127.0.0.1:{new_rpc}\"")),
            "{which}"
        );
        let rpc = ckb_mmr_sdk::rpc::Rpc::new(&node.rpc_url).unwrap();
        assert!(rpc.tip_block_number().is_ok(), "{which}");
        // The port was held throughout: the node never had it.
        drop(holder);
        node.stop().unwrap();
        assert!(common::no_process_left(&chain_dir, 30), "{which}");
    }
}
