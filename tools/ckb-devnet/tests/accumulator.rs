//! The accumulator commands as a user runs them on a fresh dev chain: create, show, append,
//! extend, hand over, lock and spend by reference; bad input (a distinct exit code, one line,
//! nothing sent); a client killed after sending an append, then rerun.

mod common;

use ckb_mmr_sdk::key::{Key, DEV_KEY, DEV_KEY_2};
use ckb_mmr_sdk::wallet::{Wallet, DEFAULT_FEE_RATE};
use common::{acc_spend, json_of, kill_after_send, refused, run};
use serde_json::Value;
use std::path::Path;

/// `n` leaves: owner.key's lock hash at index 2, the rest distinct values.
fn leaves(n: usize) -> Vec<[u8; 32]> {
    let owner = Key::from_hex(DEV_KEY_2).unwrap().lock_hash();
    (0..n)
        .map(|i| if i == 2 { owner } else { [i as u8 + 1; 32] })
        .collect()
}

fn write_leaves(dir: &Path, name: &str, leaves: &[[u8; 32]]) -> String {
    let path = dir.join(name);
    let text: String = leaves
        .iter()
        .map(|l| format!("{}\n", ckb_mmr_sdk::hex(l)))
        .collect();
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn the_accumulator_commands_on_a_fresh_chain() {
    let c = common::client("acc-cli");
    let (dir, key, owner_key, verifier) = (&c.files, &c.key, &c.owner_key, &c.verifier);
    let chain = common::ready_chain(&c.rpc);
    let dev = Key::from_hex(DEV_KEY).unwrap();
    let wallet = Wallet::new(&chain, &dev, DEFAULT_FEE_RATE);
    let client = |args: &[&str]| -> Value { c.acc_json(args, true) };

    let code = c.deploy_json(verifier);
    let code = code["out_point"].as_str().unwrap().to_string();
    c.deploy_json(&c.acc_type);
    let l7 = write_leaves(dir, "7.txt", &leaves(7));
    let l8 = write_leaves(dir, "8.txt", &leaves(8));
    let l18 = write_leaves(dir, "18.txt", &leaves(18));
    let l30 = write_leaves(dir, "30.txt", &leaves(30));
    let l31 = write_leaves(dir, "31.txt", &leaves(31));
    let mut forged = leaves(18);
    forged[3][0] ^= 1;
    let forged = write_leaves(dir, "forged.txt", &forged);

    // Killed after sending the creation; the rerun rebuilds the same transaction (same
    // inputs, so the same type id) and finds it sent: one accumulator, one fee.
    let before = wallet.balance().unwrap();
    let sent = kill_after_send(&c.acc_args(&["acc", "create", "--leaves", &l7], Some(key)));
    let created = client(&["acc", "create", "--leaves", &l7]);
    assert_eq!(created["created"], true, "{created}");
    assert_eq!(
        created["tx_hash"].as_str(),
        Some(sent.as_str()),
        "{created}"
    );
    assert_eq!(
        before - wallet.balance().unwrap(),
        created["fee_shannons"].as_u64().unwrap() + created["capacity_shannons"].as_u64().unwrap(),
        "one accumulator, one fee"
    );
    assert_eq!(created["leaf_count"], 7);
    let tid = created["type_id"].as_str().unwrap().to_string();
    let again = client(&["acc", "create", "--leaves", &l7]);
    assert_eq!(again["created"], false, "a rerun finds it");
    assert_eq!(again["type_id"], created["type_id"]);
    let show = c.acc_json(&["acc", "show", "--type-id", &tid], false);
    assert_eq!(show["root"], created["root"]);
    assert_eq!(
        (show["mmr_size"].as_u64(), show["leaf_count"].as_u64()),
        (Some(11), Some(7))
    );
    assert_eq!(
        show["lock_hash"].as_str(),
        Some(ckb_mmr_sdk::hex(&dev.lock_hash()).as_str())
    );

    // Cells locked by reference while the accumulator holds 7 leaves.
    let plain = client(&["lock", "--acc", &tid, "--verifier", verifier]);
    assert_eq!(plain["args"].as_str().unwrap().len(), 2 + 66, "{plain}");
    assert!(plain["args"].as_str().unwrap().ends_with("02"));
    let owned = client(&["lock", "--acc", &tid, "--verifier", verifier, "--owner"]);
    assert!(owned["args"].as_str().unwrap().ends_with("03"));

    // Bad input: each its code and one line, nothing sent.
    let tip = chain.rpc.tip_block_number().unwrap();
    let balance = wallet.balance().unwrap();
    let root_text = "do not give the accumulator's root";
    let unknown = format!("0x{}", "42".repeat(32));
    let forged_spend = acc_spend(&tid, ["--leaves", &forged], "0", verifier);
    for (args, k, code, text) in [
        (
            &["acc", "append", "--type-id", &tid, "--leaves", &forged][..],
            key,
            17,
            root_text,
        ),
        (
            &["acc", "extend", "--type-id", &tid, "--leaves", &forged],
            key,
            17,
            root_text,
        ),
        (
            &["acc", "append", "--type-id", &unknown, "--leaves", &l8],
            key,
            12,
            "0 live accumulator cells",
        ),
        (
            &["acc", "append", "--type-id", &tid, "--leaves", &l8],
            owner_key,
            18,
            "not this key's cell",
        ),
        (&forged_spend, key, 17, root_text),
    ] {
        refused(&c.acc_args(args, Some(k)), code, text);
    }
    assert_eq!(chain.rpc.tip_block_number().unwrap(), tip);
    assert_eq!(wallet.balance().unwrap(), balance);

    let appended = client(&["acc", "append", "--type-id", &tid, "--leaves", &l8]);
    assert_eq!(appended["leaves_added"], 1, "{appended}");
    assert_eq!(appended["leaf_count"], 8);

    // Killed after sending the append of 10; the rerun finds the same transaction.
    let before = wallet.balance().unwrap();
    let args = c.acc_args(
        &["acc", "append", "--type-id", &tid, "--leaves", &l18],
        Some(key),
    );
    let sent = kill_after_send(&args);
    let rerun = json_of(&run(&args));
    assert_eq!(rerun["tx_hash"].as_str(), Some(sent.as_str()), "{rerun}");
    assert_eq!(rerun["leaf_count"], 18);
    assert_eq!(
        before - wallet.balance().unwrap(),
        rerun["fee_shannons"].as_u64().unwrap(),
        "one fee, paid once"
    );
    // Once committed, the same file has nothing left to add.
    let nothing = client(&["acc", "append", "--type-id", &tid, "--leaves", &l18]);
    assert_eq!(nothing["sent"], false);

    // The cell locked at 7 leaves, spent by leaf 12 (appended after it) against 18 leaves.
    let spent = client(&acc_spend(&tid, ["--leaves", &l30], "12", verifier));
    assert_eq!(spent["status"], "committed", "{spent}");
    assert_eq!(spent["mmr_size"], 34);
    assert_eq!(spent["spent"], plain["out_point"]);

    let extended = client(&["acc", "extend", "--type-id", &tid, "--leaves", &l30]);
    assert_eq!(extended["leaves_added"], 12, "{extended}");
    let handed = client(&["acc", "handover", "--type-id", &tid, "--to-key", owner_key]);
    assert_eq!(
        handed["lock_hash"].as_str(),
        Some(ckb_mmr_sdk::hex(&Key::from_hex(DEV_KEY_2).unwrap().lock_hash()).as_str())
    );
    assert_eq!(handed["root"], extended["root"]);
    // The old admin can no longer grow it.
    let old_admin = ["acc", "append", "--type-id", &tid, "--leaves", &l31];
    refused(
        &c.acc_args(&old_admin, Some(key)),
        18,
        "not this key's cell",
    );

    // The owner-mode cell, spent by owner.key (leaf 2) against the handed-over accumulator;
    // the verifier's code cell is the dev key's, so it is named.
    let owner_spend = acc_spend(&tid, ["--leaves", &l30], "2", verifier);
    let owner_spend = [owner_spend, vec!["--code-dep", &code, "--owner"]].concat();
    let spent = json_of(&run(&c.acc_args(&owner_spend, Some(owner_key))));
    assert_eq!(spent["spent"], owned["out_point"], "{spent}");
    assert_eq!(spent["accumulator"], handed["out_point"]);
    // The new admin grows it.
    let owner_grows = json_of(&run(&c.acc_args(&old_admin, Some(owner_key))));
    assert_eq!(owner_grows["leaf_count"], 31, "{owner_grows}");
}
