//! The accumulator driven from a persistent MMR store on a fresh dev chain: `acc create`,
//! `acc append`, `acc extend` and `spend --acc` with `--store DIR`; `acc sync` rebuilding a
//! store from the chain (stopping at an extension and at an import, resuming, killed with
//! SIGKILL and rerun); and the store's faults and an unreachable node, each refused with its
//! code before anything is sent and with the store's files unchanged.

mod common;

use ckb_mmr_sdk::accumulator;
use ckb_mmr_sdk::hex;
use ckb_types::{bytes::Bytes, packed, prelude::*};
use common::{acc_spend, json_of, refused, run, signal};
use mmr_store::Store;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn leaf(i: u64, salt: u8) -> [u8; 32] {
    let mut l = [salt; 32];
    l[..8].copy_from_slice(&(i + 1).to_le_bytes());
    l
}

fn leaves(from: u64, to: u64, salt: u8) -> Vec<[u8; 32]> {
    (from..to).map(|i| leaf(i, salt)).collect()
}

/// Every file in `dir` with its bytes, by name (none when `dir` does not exist).
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().to_string();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// [`refused`], and the store in `store` is byte for byte what it was (or still absent).
fn refused_unchanged(args: &[&str], store: &Path, code: i32, text: &str) -> String {
    let before = files_of(store);
    let existed = store.exists();
    let stderr = refused(args, code, text);
    assert_eq!(
        store.exists(),
        existed,
        "{args:?} created {}",
        store.display()
    );
    let after = files_of(store);
    assert!(
        before == after,
        "{args:?} changed the store {}: {:?} -> {:?}",
        store.display(),
        before.iter().map(|(n, b)| (n, b.len())).collect::<Vec<_>>(),
        after.iter().map(|(n, b)| (n, b.len())).collect::<Vec<_>>()
    );
    stderr
}

/// A new store `name` in `dir` holding leaves `0..n` of `salt`, recording `id` if given: its
/// path and the path as an argument.
fn new_store(dir: &Path, name: &str, id: Option<[u8; 32]>, n: u64, salt: u8) -> (PathBuf, String) {
    let path = dir.join(name);
    Store::create(&path, id)
        .unwrap()
        .append(&leaves(0, n, salt))
        .unwrap();
    let arg = path.display().to_string();
    (path, arg)
}

/// Appends leaves `from..to` of `salt` to the store in `dir`.
fn grow(dir: &Path, from: u64, to: u64, salt: u8) {
    Store::open(dir)
        .unwrap()
        .append(&leaves(from, to, salt))
        .unwrap();
}

/// The store's size and root, read as a reader would.
fn state(dir: &Path) -> (u64, [u8; 32]) {
    let s = Store::open_read_only(dir).unwrap();
    (s.leaf_count(), s.root().unwrap_or([0; 32]))
}

#[test]
fn the_store_commands_and_sync_on_a_fresh_chain() {
    let c = common::client("acc-store");
    let (dir, verifier, key) = (&c.files, &c.verifier, Some(c.key.as_str()));
    let chain = common::ready_chain(&c.rpc);
    let client = |a: &[&str]| -> Value { c.acc_json(a, true) };
    for binary in [verifier, &c.acc_type] {
        c.deploy_json(binary);
    }

    // The app's store: 5 leaves, no accumulator yet.
    let (app, app_s) = new_store(dir, "app.store", None, 5, 0xa0);
    let created = client(&["acc", "create", "--store", &app_s]);
    assert_eq!(created["created"], true, "{created}");
    assert_eq!(created["leaf_count"], 5);
    let tid = created["type_id"].as_str().unwrap().to_string();
    let tid_bytes = ckb_mmr_sdk::parse_hash("type id", &tid).unwrap();
    assert_eq!(
        Store::open_read_only(&app).unwrap().accumulator(),
        Some(tid_bytes),
        "the store records its accumulator"
    );
    assert_eq!(
        ckb_mmr_sdk::hex(&state(&app).1),
        created["root"].as_str().unwrap()
    );
    let plain = client(&["lock", "--acc", &tid, "--verifier", verifier]);
    assert!(plain["args"].as_str().unwrap().ends_with("02"), "{plain}");

    // Appended to the store, then to the chain from the store.
    grow(&app, 5, 8, 0xa0);
    let appended = client(&["acc", "append", "--type-id", &tid, "--store", &app_s]);
    assert_eq!(
        (appended["sent"].as_bool(), appended["leaf_count"].as_u64()),
        (Some(true), Some(8)),
        "{appended}"
    );
    let again = client(&["acc", "append", "--type-id", &tid, "--store", &app_s]);
    assert_eq!(again["sent"], false, "a rerun sends nothing: {again}");
    // Spent by leaf 6, appended after the cell was locked, proved from the store.
    let spent = client(&acc_spend(&tid, ["--store", &app_s], "6", verifier));
    assert_eq!(spent["status"], "committed", "{spent}");
    assert_eq!(spent["mmr_size"], 15);

    // Extended by an ancestry proof: leaves 8..12 never reach the chain.
    grow(&app, 8, 12, 0xa0);
    let extended = client(&["acc", "extend", "--type-id", &tid, "--store", &app_s]);
    assert_eq!(extended["leaf_count"], 12, "{extended}");
    let extend_tx = extended["tx_hash"].as_str().unwrap().to_string();

    // Another machine syncs from the chain: it stops at the extension, naming it, with the
    // store at the last root the chain gave leaves for.
    let mirror = dir.join("mirror.store");
    let mirror_s = mirror.display().to_string();
    let sync = c.acc_args(
        &["acc", "sync", "--type-id", &tid, "--store", &mirror_s],
        None,
    );
    let stderr = refused(&sync, 19, &extend_tx);
    assert!(stderr.contains("ancestry proof"), "{stderr}");
    let app_view = Store::open_read_only(&app).unwrap();
    assert_eq!(state(&mirror), (8, app_view.root_at(15).unwrap()));
    // Run again, it checks what it holds and stops at the same transaction, writing nothing.
    refused_unchanged(&sync, &mirror, 19, &extend_tx);
    // Given the missing leaves by hand, it resumes past the extension.
    grow(&mirror, 8, 12, 0xa0);
    let synced = json_of(&run(&sync));
    assert_eq!(synced["leaf_count"], 12, "{synced}");
    assert_eq!(synced["appended_leaves"], 0);

    // Bad input, each with its code and one line, nothing sent.
    let tip = chain.rpc.tip_block_number().unwrap();
    // A store of other leaves, ahead of the chain: its root at the chain's size differs. A
    // store that belongs to another accumulator.
    let (other, other_s) = new_store(dir, "other.store", None, 14, 0xb0);
    let (foreign, foreign_s) = new_store(dir, "foreign.store", Some([0x42; 32]), 14, 0xa0);
    for (store, store_s, code, text) in [
        (&other, &other_s, 20, "the store disagrees with the chain"),
        (&foreign, &foreign_s, 41, "belongs to accumulator"),
    ] {
        for (cmd, key) in [("append", key), ("sync", None)] {
            let args = c.acc_args(&["acc", cmd, "--type-id", &tid, "--store", store_s], key);
            refused_unchanged(&args, store, code, text);
        }
    }
    // A directory that is not a store; a store behind the chain; both sources at once.
    let not_a_store = dir.join("not-a-store");
    std::fs::create_dir_all(&not_a_store).unwrap();
    let nas = not_a_store.display().to_string();
    let not_a_store_sync = ["acc", "sync", "--type-id", &tid, "--store", &nas];
    refused_unchanged(
        &c.acc_args(&not_a_store_sync, None),
        &not_a_store,
        40,
        "not",
    );
    // A first sync into a new directory that fails leaves no empty store behind: here no
    // accumulator has that type id (12).
    let never = dir.join("never.store");
    let never_s = never.display().to_string();
    let unknown = hex(&[0x17; 32]);
    let never_sync = c.acc_args(
        &["acc", "sync", "--type-id", &unknown, "--store", &never_s],
        None,
    );
    refused_unchanged(&never_sync, &never, 12, "no transaction of the accumulator");
    let (behind, behind_s) = new_store(dir, "behind.store", None, 5, 0xa0);
    let behind_append = ["acc", "append", "--type-id", &tid, "--store", &behind_s];
    refused_unchanged(&c.acc_args(&behind_append, key), &behind, 17, "acc sync");
    let both = [&behind_append[..], &["--leaves", "x"]].concat();
    refused_unchanged(&c.acc_args(&both, key), &behind, 2, "cannot be used with");
    // A creation over the lock's witness limit: refused before anything is built.
    let (big, big_s) = new_store(dir, "big.store", None, 1100, 0xc0);
    let big_create = c.acc_args(&["acc", "create", "--store", &big_s], key);
    refused_unchanged(&big_create, &big, 21, "at most 1021 leaves");
    // A spend of a leaf the accumulator (12 leaves) does not hold is 9 whatever the MMR is
    // read from: beyond the store's leaves too, or held by a store (or file) ahead of the
    // chain. The store is never asked for it (its own code would be 43).
    let (ahead, ahead_s) = new_store(dir, "ahead.store", None, 14, 0xa0);
    let ahead_file = dir.join("ahead.txt");
    let lines: Vec<String> = leaves(0, 14, 0xa0).iter().map(|l| hex(l)).collect();
    std::fs::write(&ahead_file, lines.join("\n")).unwrap();
    for (store, store_s, index) in [
        (&app, &app_s, "12"),
        (&ahead, &ahead_s, "13"),
        (&ahead, &ahead_s, "3,20"),
    ] {
        let spend = acc_spend(&tid, ["--store", store_s], index, verifier);
        let stderr = refused_unchanged(&c.acc_args(&spend, key), store, 9, "12 leaves");
        assert!(stderr.contains("not in the accumulator's MMR"), "{stderr}");
    }
    let ahead_file = ahead_file.display().to_string();
    let spend = acc_spend(&tid, ["--leaves", &ahead_file], "13", verifier);
    let text = "not in the accumulator's MMR: it has 12 leaves";
    refused(&c.acc_args(&spend, key), 9, text);
    // A damaged store: a flipped byte in an inner node the proof of leaf 6 needs (node 9,
    // the parent of leaves 4 and 5, under the peak of leaves 4..7). The store checks every
    // proof against its root before it hands it out.
    let (damaged, damaged_s) = new_store(dir, "damaged.store", None, 12, 0xa0);
    let nodes = damaged.join("nodes");
    let mut bytes = std::fs::read(&nodes).unwrap();
    bytes[9 * 32] ^= 1;
    std::fs::write(&nodes, bytes).unwrap();
    let damaged_spend = acc_spend(&tid, ["--store", &damaged_s], "6", verifier);
    refused_unchanged(&c.acc_args(&damaged_spend, key), &damaged, 47, "store");
    assert_eq!(
        chain.rpc.tip_block_number().unwrap(),
        tip,
        "nothing was sent"
    );

    // An accumulator created by IMPORT (its (root, size) taken as given, no leaves on chain;
    // the client has no command for it, so it is built here): a sync stops at it with 19,
    // naming it, and writes nothing; given the leaves by hand, the store passes it.
    let import_leaves = leaves(0, 5, 0xd0);
    let dev = ckb_mmr_sdk::key::Key::from_file(&c.key).unwrap();
    let wallet =
        ckb_mmr_sdk::wallet::Wallet::new(&chain, &dev, ckb_mmr_sdk::wallet::DEFAULT_FEE_RATE);
    let binary = ckb_mmr_sdk::deploy::read_binary(&c.acc_type).unwrap();
    let code_hash = ckb_hash::blake2b_256(&binary);
    let code = accumulator::find_code(&wallet, code_hash, Some(&binary), None, None).unwrap();
    let mut draft = accumulator::create_draft(&code, dev.lock(), &import_leaves).unwrap();
    draft.witnesses[0] = packed::WitnessArgs::new_builder()
        .output_type(Some(Bytes::from(vec![mmr_accumulator::tag::IMPORT])).pack())
        .build()
        .as_bytes();
    let built = accumulator::complete(&wallet, draft).unwrap();
    let import_tx = accumulator::send(&wallet, &built, "importing").unwrap();
    let import_tx = format!("{import_tx:#x}");
    let imported = accumulator::after(code_hash, &built).unwrap();
    assert_eq!(
        imported.commitment,
        accumulator::commitment(&import_leaves).unwrap()
    );
    let import_id = hex(&imported.type_id);
    let (import_store, import_s) = new_store(dir, "import.store", None, 2, 0xd0);
    let import_sync = ["acc", "sync", "--type-id", &import_id, "--store", &import_s];
    let import_sync = c.acc_args(&import_sync, None);
    let stderr = refused_unchanged(&import_sync, &import_store, 19, &import_tx);
    assert!(stderr.contains("imports a commitment"), "{stderr}");
    Store::open(&import_store)
        .unwrap()
        .append(&import_leaves[2..])
        .unwrap();
    let synced = json_of(&run(&import_sync));
    assert_eq!(
        (
            synced["leaf_count"].as_u64(),
            synced["appended_leaves"].as_u64()
        ),
        (Some(5), Some(0)),
        "{synced}"
    );
    assert_eq!(
        Store::open_read_only(&import_store).unwrap().accumulator(),
        Some(imported.type_id),
        "recorded once the import's root was checked"
    );

    // Growth in many appends (1,000 leaves each), then a fresh sync killed with SIGKILL at
    // rising delays: after each kill the store reopens at a root the chain had, and the last
    // run completes it. Then the sync time per 1,000 leaves from scratch.
    let mut n = 12;
    for _ in 0..8 {
        grow(&app, n, n + 1000, 0xa0);
        n += 1000;
        client(&["acc", "append", "--type-id", &tid, "--store", &app_s]);
    }
    // 2,500 leaves at once: more than the secp256k1 lock's 32 KiB witness holds, so the
    // client sends three appends, each a state the chain commits.
    grow(&app, n, n + 2500, 0xa0);
    n += 2500;
    let split = client(&["acc", "append", "--type-id", &tid, "--store", &app_s]);
    assert_eq!(split["transactions"], 3, "{split}");
    assert_eq!(split["leaves_added"], 2500, "{split}");
    assert_eq!(split["leaf_count"].as_u64(), Some(n));
    let app_view = Store::open_read_only(&app).unwrap();
    let (killed, killed_s) = new_store(dir, "killed.store", None, 12, 0xa0);
    let kill_sync = c.acc_args(
        &["acc", "sync", "--type-id", &tid, "--store", &killed_s],
        None,
    );
    let mut kills = 0;
    let mut partial = 0;
    for delay_ms in (0..150).map(|i| 4 * i as u64) {
        let mut child = Command::new(common::BIN)
            .args(&kill_sync)
            .env("CKB_DEVNET_QUIET", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let done = child.try_wait().unwrap();
        match done {
            None => {
                signal(child.id(), libc::SIGKILL);
                child.wait().unwrap();
                kills += 1;
            }
            Some(status) => assert!(status.success(), "sync failed on its own"),
        }
        let s = Store::open_read_only(&killed).unwrap();
        let (size, root) = (s.mmr_size(), s.root().unwrap());
        assert!(
            app_view.root_at(size).unwrap() == root,
            "after a kill at {delay_ms} ms the store is at mmr_size {size}, not a root the \
             chain had"
        );
        s.check().unwrap();
        if s.leaf_count() > 12 && s.leaf_count() < n {
            partial += 1;
        }
        if done.is_some() {
            break;
        }
    }
    assert!(kills >= 1, "the first run is killed before it can finish");
    let resumed = json_of(&run(&kill_sync));
    assert_eq!(resumed["leaf_count"].as_u64(), Some(n), "{resumed}");
    assert_eq!(state(&killed), state(&app));
    println!("sync killed {kills} times ({partial} mid-way), then resumed to {n} leaves");

    // Sync time per 1,000 leaves from the local node: a store given the 12 leaves the
    // extension kept off chain, synced through the 11 appends (10,500 leaves).
    let (timed, timed_s) = new_store(dir, "timed.store", None, 12, 0xa0);
    let timed_sync = ["acc", "sync", "--type-id", &tid, "--store", &timed_s];
    let report = c.acc_json(&timed_sync, false);
    assert_eq!(report["appended_leaves"], 10_500, "{report}");
    assert_eq!(report["commits"], 11, "{report}");
    assert_eq!(state(&timed), state(&app));
    let per_1000 = report["ms_per_1000_leaves"].as_f64().unwrap();
    assert!(per_1000 > 0.0);
    println!(
        "acc sync: {} transactions, 10,500 leaves in {:.3} s: {per_1000:.1} ms per 1,000 leaves",
        report["transactions"],
        report["seconds"].as_f64().unwrap()
    );
    drop(c);
}

/// An RPC URL nobody answers: `acc sync` (into a store, or where none is yet) and `acc append
/// --store` exit 3 with one line, and the store is untouched (not even created). No node is
/// needed: the code cell is named by `--code-dep`, so no binary is read either.
#[test]
fn an_unreachable_node_is_3_and_leaves_the_store_alone() {
    let dir = common::test_dir("acc-store-unreachable");
    let rpc = common::closed_rpc();
    let key = dir.join("dev.key");
    std::fs::write(&key, ckb_mmr_sdk::key::DEV_KEY).unwrap();
    let (store, store_s) = new_store(&dir, "app.store", None, 5, 0xa0);
    let missing = dir.join("missing.store");
    let missing_s = missing.display().to_string();
    let tid = hex(&[0x42; 32]);
    let code_dep = format!("{}:0", hex(&[0x24; 32]));
    let tail = ["--rpc", &rpc, "--code-dep", &code_dep, "--json"];
    let with =
        |a: &[&str]| -> Vec<String> { a.iter().chain(&tail).map(|s| s.to_string()).collect() };
    let key_s = key.display().to_string();
    for (call, dir) in [
        (
            with(&["acc", "sync", "--type-id", &tid, "--store", &store_s]),
            &store,
        ),
        (
            with(&["acc", "sync", "--type-id", &tid, "--store", &missing_s]),
            &missing,
        ),
        (
            with(&[
                "acc",
                "append",
                "--type-id",
                &tid,
                "--store",
                &store_s,
                "--key",
                &key_s,
            ]),
            &store,
        ),
    ] {
        let call: Vec<&str> = call.iter().map(String::as_str).collect();
        refused_unchanged(&call, dir, 3, "cannot reach the node");
    }
    assert!(!missing.exists());
}
