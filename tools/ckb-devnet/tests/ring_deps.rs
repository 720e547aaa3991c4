//! The accumulator ring on a fresh dev chain (docs/concurrency.md, "The ring's clients"): what
//! the node does with a spend whose dep is a ring snapshot while appends go on, the SDK's
//! spender rebuilding when an append consumed its snapshot, and the `acc` commands on a ring.

mod common;

use ckb_devnet::load::output_cell;
use ckb_mmr_sdk::accumulator::{self, Update};
use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::error::Error;
use ckb_mmr_sdk::key::{Key, DEV_KEY};
use ckb_mmr_sdk::ring::{self, Ring};
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_mmr_sdk::wallet::{exact_output, Built, Draft, Pay, SHANNONS_PER_CKB};
use ckb_mmr_sdk::{hex, Mode};
use ckb_types::{bytes::Bytes, prelude::*};
use std::time::Duration;

struct Fixture<'a> {
    dev: common::Deployed<'a>,
    /// The ring as the admin's last transaction left it (pooled appends included).
    ring: Ring,
    cells: Vec<IndexedCell>,
    /// The admin's fee cell, which every append spends and recreates as its last output, so
    /// that appends chain in the pool without the indexer (as the load's admin does).
    fee_cell: IndexedCell,
}

impl<'a> Fixture<'a> {
    fn new(chain: &'a Chain, key: &'a Key, k: u8) -> Fixture<'a> {
        let dev = common::Deployed::new(chain, key, 60);
        let creation = ring::Creation::Create(&dev.leaves[..3]);
        let draft = ring::create_draft(&dev.acc_code, dev.payer.key.lock(), k, creation).unwrap();
        let built = accumulator::complete(&dev.payer, draft).unwrap();
        chain.send_and_commit(&built.tx).unwrap();
        let ring = ring::after_creation(dev.acc_code.data_hash, &built).unwrap();
        let cells = dev.lock_cells(ring.reference_lock(&dev.verifier.code, Mode::Plain), 6);
        let fee_out = exact_output(key.lock(), None, 0)
            .as_builder()
            .capacity(5_000 * SHANNONS_PER_CKB)
            .build();
        let draft = Draft {
            outputs: vec![(fee_out, Bytes::new())],
            ..Draft::default()
        };
        let funding = dev
            .payer
            .complete(draft, Pay::Wallet { min_inputs: 1 })
            .unwrap();
        chain.send_and_commit(&funding.tx).unwrap();
        let fee_cell = output_cell(&funding.tx, 0);
        Fixture {
            dev,
            ring,
            cells,
            fee_cell,
        }
    }

    /// The committed ring, from the indexer.
    fn committed(&self) -> Ring {
        self.dev.chain.wait_indexer().unwrap();
        ring::find(
            self.dev.chain,
            self.dev.acc_code.data_hash,
            self.ring.type_id(),
            self.ring.k,
        )
        .unwrap()
    }

    /// A spend of `cell` proving leaf 0 against `snapshot`, with it as the dep.
    fn spend(&self, cell: &IndexedCell, snapshot: &accumulator::Accumulator) -> Built {
        let n = snapshot.leaf_count as usize;
        common::reference_spend(
            cell,
            &self.dev.verifier,
            &self.dev.leaves[..n],
            snapshot.cell_dep(),
        )
        .build(&self.dev.payer)
        .unwrap()
    }

    /// The next append, chained on the admin's last one (pooled or not), sent.
    fn append(&mut self) -> Built {
        let n = self.ring.head.leaf_count as usize;
        let (new, _, payload) = Update::Append(&self.dev.leaves[..n + 1])
            .parts(&self.ring.head)
            .unwrap();
        let mut draft = ring::step_draft(&self.ring, &self.dev.acc_code, &new, &payload).unwrap();
        let fee = &self.fee_cell;
        draft
            .inputs
            .push((fee.out_point.clone(), fee.output.clone()));
        draft.outputs.push((fee.output.clone(), Bytes::new()));
        let at = draft.outputs.len() - 1;
        let built = self.dev.payer.complete(draft, Pay::FromOutput(at)).unwrap();
        self.dev.sent(&built, "an append");
        self.ring = self.ring.after(&built.tx).unwrap();
        self.fee_cell = output_cell(&built.tx, at);
        built
    }
}

/// A spend on the newest committed snapshot, sent, then K - 1 appends chained behind it in the
/// pool: every one accepted (none consumes that snapshot) and all commit, the spend included.
/// The K-th append consumes it: a spend built on it then is refused with -301 naming it
/// (`Dead` while the append is pooled, `Unknown` once committed), and rebuilt on the newest
/// snapshot it commits.
#[test]
fn a_snapshot_outlives_k_minus_1_appends_and_then_is_refused_by_name() {
    let node = common::fresh_node("ring-deps");
    let chain = common::ready_chain(&node.rpc_url);
    let key = Key::from_hex(DEV_KEY).unwrap();
    let k = ring::DEFAULT_K;
    let mut fx = Fixture::new(&chain, &key, k);

    let committed = fx.committed();
    let snapshot = committed.newest().clone();
    let cell = fx.cells.pop().unwrap();
    let reader = fx.spend(&cell, &snapshot);
    fx.dev.sent(&reader, "the spend on the newest snapshot");
    let appends: Vec<Built> = (1..k).map(|_| fx.append()).collect();
    assert!(
        fx.ring
            .snapshots
            .iter()
            .any(|s| s.cell.out_point.as_slice() == snapshot.cell.out_point.as_slice()),
        "K - 1 appends leave the spend's snapshot live"
    );
    let mut all: Vec<&Built> = appends.iter().collect();
    all.push(&reader);
    fx.dev.commit_all(&all, 40);
    eprintln!(
        "a spend on snapshot {} committed with {} appends sent behind it",
        ckb_mmr_sdk::out_point_text(&snapshot.cell.out_point),
        k - 1
    );

    // The K-th append consumes exactly that snapshot: it is the oldest now.
    let oldest = fx.committed().oldest().unwrap().clone();
    assert_eq!(
        oldest.cell.out_point.as_slice(),
        snapshot.cell.out_point.as_slice()
    );
    let cell = fx.cells.pop().unwrap();
    let kth = fx.append();
    let stale = fx.spend(&cell, &snapshot);
    let named = format!("OutPoint({})", hex(snapshot.cell.out_point.as_slice()));
    let what = "a spend on a consumed snapshot";
    let e = fx.dev.refused_301(&stale, what, &format!("Dead({named}"));
    assert!(ring::names_consumed(&e.message, &snapshot.cell.out_point));
    eprintln!("spend after the K-th append: {} ({})", e.message, e.code);
    fx.dev.commit_all(&[&kth], 40);
    // The pool applies the committed block on its own task: until then it still says Dead.
    let start = std::time::Instant::now();
    let e = loop {
        let e = fx.dev.refused_301(&stale, what, &named);
        assert!(ring::names_consumed(&e.message, &snapshot.cell.out_point));
        if e.message.contains(&format!("Unknown({named}")) || start.elapsed().as_secs() > 60 {
            break e;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        e.message.contains(&format!("Unknown({named}")),
        "{}",
        e.message
    );
    let newest = fx.committed().newest().clone();
    assert!(newest.commitment.mmr_size > snapshot.commitment.mmr_size);
    let rebuilt = fx.spend(&cell, &newest);
    fx.dev
        .sent(&rebuilt, "the spend rebuilt on the newest snapshot");
    fx.dev.commit_all(&[&rebuilt], 40);
    node.stop().unwrap();
}

/// The SDK's spender on a ring of K = 2 (a window of one append): while it builds, two appends
/// are sent that consume the snapshot it took; the node refuses the spend naming it, and the
/// spender rebuilds on the newest snapshot once one is committed: committed, one rebuild. A
/// spend with the head as its dep is the client's own bug (92): refused, not retried.
#[test]
fn the_spender_rebuilds_on_the_newest_snapshot_and_stops_on_its_own_bugs() {
    let node = common::fresh_node("ring-spender");
    let chain = common::ready_chain(&node.rpc_url);
    let key = Key::from_hex(DEV_KEY).unwrap();
    let fx = std::cell::RefCell::new(Fixture::new(&chain, &key, 2));
    // One append, committed, so the two snapshots differ.
    let first = fx.borrow_mut().append();
    fx.borrow().dev.commit_all(&[&first], 40);
    let (code_hash, type_id) = {
        let f = fx.borrow();
        (f.dev.acc_code.data_hash, f.ring.type_id())
    };
    let cell = fx.borrow_mut().cells.pop().unwrap();
    let mut calls = Vec::new();
    let limit = Duration::from_secs(120);
    let spent = ring::spend(&chain, code_hash, type_id, 2, limit, |snapshot| {
        calls.push(snapshot.commitment.mmr_size);
        let mut f = fx.borrow_mut();
        if calls.len() == 1 {
            // The next append consumes the older snapshot, the one after it this one.
            let a = f.append();
            let b = f.append();
            assert!(f
                .ring
                .snapshots
                .iter()
                .all(|s| s.cell.out_point.as_slice() != snapshot.cell.out_point.as_slice()));
            drop((a, b));
        }
        Ok(f.spend(&cell, snapshot))
    })
    .unwrap();
    assert_eq!(spent.rebuilds, 1, "{calls:?}");
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(
        calls[1] > calls[0],
        "rebuilt on a newer snapshot: {calls:?}"
    );
    assert_eq!(fx.borrow().dev.status(&spent.built).0, "committed");

    // The head as the dep: 92, named, once.
    let cell = fx.borrow_mut().cells.pop().unwrap();
    let mut calls = 0;
    let e = ring::spend(&chain, code_hash, type_id, 2, limit, |_| {
        calls += 1;
        let f = fx.borrow();
        let committed = f.committed();
        let mut head = committed.head.clone();
        head.leaf_count = committed.newest().leaf_count;
        let n = head.leaf_count as usize;
        let leaves = &f.dev.leaves[..n];
        let spend = common::reference_spend(&cell, &f.dev.verifier, leaves, head.cell_dep());
        Ok(spend.build(&f.dev.payer).unwrap())
    })
    .err()
    .expect("the head as dep is refused");
    assert_eq!(calls, 1, "not retried");
    match e {
        Error::Refused {
            code: Some(92),
            message,
        } => {
            assert!(message.contains("head"), "{message}");
            assert!(!message.contains('\n'), "one line: {message}");
        }
        other => panic!("{other}"),
    }
    node.stop().unwrap();
}

/// The commands on a ring: create --ring, lock --acc, append, show, spend --acc, sync (which
/// follows the head and checks the snapshots), handover (one KEEP of the whole ring).
#[test]
fn the_acc_commands_work_on_a_ring() {
    let c = common::client("ring-cli");
    let run = |a: &[&str], with_key: bool| c.acc_json(a, with_key);
    for binary in [&c.verifier, &c.acc_type] {
        c.deploy_json(binary);
    }
    let leaves: Vec<String> = (1..=9u8).map(|i| hex(&[i; 32])).collect();
    let five = common::write_file(&c.files, "five.txt", leaves[..5].join("\n"));
    let nine = common::write_file(&c.files, "nine.txt", leaves.join("\n"));
    let created = run(&["acc", "create", "--ring", "4", "--leaves", &five], true);
    assert_eq!(
        (created["created"].as_bool(), created["ring_k"].as_u64()),
        (Some(true), Some(4))
    );
    assert_eq!(
        created["snapshots"].as_array().unwrap().len(),
        4,
        "{created}"
    );
    let tid = created["type_id"].as_str().unwrap().to_string();
    let again = run(&["acc", "create", "--ring", "4", "--leaves", &five], true);
    assert_eq!(again["created"], false, "a rerun finds the ring: {again}");
    assert_eq!(again["type_id"].as_str(), Some(tid.as_str()));
    let locked = run(&["lock", "--acc", &tid, "--verifier", &c.verifier], true);
    assert_eq!(
        locked["accumulator_type_hash"], created["type_hash"],
        "{locked}"
    );
    let appended = run(
        &["acc", "append", "--type-id", &tid, "--leaves", &nine],
        true,
    );
    assert_eq!(appended["leaf_count"], 9, "{appended}");
    let shown = run(&["acc", "show", "--type-id", &tid], false);
    assert_eq!(shown["leaf_count"], 9);
    assert_eq!(shown["older"].as_array().unwrap().len(), 3, "{shown}");
    let spent = run(
        &common::acc_spend(&tid, ["--leaves", &nine], "7", &c.verifier),
        true,
    );
    assert_eq!(spent["status"], "committed", "{spent}");
    assert_eq!(
        spent["mmr_size"], 16,
        "proved against the newest snapshot: {spent}"
    );
    assert_eq!(spent["accumulator"], shown["newest_snapshot"], "{spent}");
    let store = c.files.join("mirror.store").display().to_string();
    let synced = run(
        &["acc", "sync", "--type-id", &tid, "--store", &store],
        false,
    );
    assert_eq!(
        (
            synced["leaf_count"].as_u64(),
            synced["transactions"].as_u64()
        ),
        (Some(9), Some(2))
    );
    assert_eq!(synced["root"], shown["root"]);
    let kept = run(
        &["acc", "keep", "--type-id", &tid, "--to-key", &c.owner_key],
        true,
    );
    assert_eq!(kept["sent"], true, "{kept}");
    assert_ne!(kept["lock_hash"], shown["lock_hash"]);
    assert_eq!(kept["root"], shown["root"]);
    c.node.stop().unwrap();
}
