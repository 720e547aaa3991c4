//! What ckb 0.210.0's tx pool and block assembly do when the accumulator, a cell dep of
//! pooled by-reference spends, is consumed by an append (docs/concurrency.md): one case per
//! pool state of the spend, on a fresh dev chain, each asserting what the sender sees and the
//! final status. Blocks are assembled by hand (`generate_block_with_template`) where a case
//! needs a block the node's own template would not build: one "from another miner".

mod common;

use ckb_mmr_sdk::accumulator::{self, Accumulator, Update};
use ckb_mmr_sdk::chain::Chain;
use ckb_mmr_sdk::key::{Key, DEV_KEY};
use ckb_mmr_sdk::mmr_cell::Spend;
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_mmr_sdk::wallet::{exact_output, Built, Pay, Wallet, DEFAULT_FEE_RATE};
use ckb_mmr_sdk::{hex, Mode};
use ckb_types::{bytes::Bytes, prelude::*};
use common::hash;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The node's pool states of a transaction (`get_pool_tx_detail_info`'s `entry_status`).
#[derive(Clone, Copy, Debug)]
enum State {
    /// Sent, not yet proposed.
    Pending,
    /// Proposed in the tip block, not yet committable (the proposal window's closest end).
    Gap,
    /// Committable in the next block.
    Proposed,
}

impl State {
    fn name(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Gap => "gap",
            State::Proposed => "proposed",
        }
    }
}

struct Fixture<'a> {
    dev: common::Deployed<'a>,
    /// The accumulator as of its last committed append.
    acc: Accumulator,
    /// Cells locked by reference to the accumulator, not yet spent.
    cells: Vec<IndexedCell>,
}

/// Polls `f` until it gives `Some`, for up to a minute: the pool applies a block after the
/// chain has taken it, on its own task.
fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited for {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn short_id(b: &Built) -> String {
    hex(b.tx.clone().into_view().proposal_short_id().as_slice())
}

impl<'a> Fixture<'a> {
    fn new(chain: &'a Chain, key: &'a Key) -> Fixture<'a> {
        let dev = common::Deployed::new(chain, key, 40);
        let draft =
            accumulator::create_draft(&dev.acc_code, dev.payer.key.lock(), &dev.leaves[..3])
                .unwrap();
        let built = accumulator::complete(&dev.payer, draft).unwrap();
        chain.send_and_commit(&built.tx).unwrap();
        let acc = accumulator::after(dev.acc_code.data_hash, &built).unwrap();
        let cells = dev.lock_cells(acc.reference_lock(&dev.verifier.code, Mode::Plain), 10);
        Fixture { dev, acc, cells }
    }

    fn cell(&mut self) -> IndexedCell {
        self.cells.pop().expect("a cell locked by reference")
    }

    /// The spend of `cell` proving leaf 0 of the accumulator's first `n` leaves, with the
    /// current accumulator cell as its dep.
    fn spend(&self, cell: &IndexedCell, n: usize) -> Spend {
        common::reference_spend(
            cell,
            &self.dev.verifier,
            &self.dev.leaves[..n],
            self.acc.cell_dep(),
        )
    }

    /// A by-reference spend against the current accumulator: it pays its own fee, so it
    /// shares no input with the appends.
    fn reader(&self, cell: &IndexedCell) -> Built {
        let n = self.acc.leaf_count as usize;
        self.spend(cell, n).build(&self.dev.payer).unwrap()
    }

    /// The append of the next leaf, consuming the current accumulator cell.
    fn append(&self) -> Built {
        let n = self.acc.leaf_count as usize;
        let update = Update::Append(&self.dev.leaves[..n + 1]);
        let (new, lock, payload) = update.parts(&self.acc).unwrap();
        let draft = accumulator::update_draft(&self.acc, &self.dev.acc_code, &new, lock, &payload);
        accumulator::complete(&self.dev.payer, draft).unwrap()
    }

    /// Follows a committed append.
    fn appended(&mut self, append: &Built) {
        self.acc = accumulator::after(self.dev.acc_code.data_hash, append).unwrap();
        self.dev.chain.wait_indexer().unwrap();
    }

    /// The node's answer to `method` with `params`.
    fn rpc(&self, method: &str, params: Value) -> ckb_mmr_sdk::error::Result<Value> {
        self.dev.chain.rpc.call(method, params)
    }

    /// The pool's entry for `b`: its state and how many pooled ancestors it has.
    fn entry(&self, b: &Built) -> Option<(String, u64)> {
        let v = self.rpc("get_pool_tx_detail_info", json!([hash(b)])).ok()?;
        let ancestors = v["ancestors_count"].as_str()?.trim_start_matches("0x");
        Some((
            v["entry_status"].as_str()?.to_string(),
            u64::from_str_radix(ancestors, 16).ok()?,
        ))
    }

    fn wait_entry(&self, b: &Built, state: State, what: &str) {
        wait_for(&format!("{what} {}", state.name()), || {
            self.entry(b).filter(|(s, _)| s == state.name())
        });
    }

    /// The node's current block template, once it is built on the tip.
    fn template(&self) -> Value {
        let tip = self.rpc("get_tip_header", json!([])).unwrap()["hash"].clone();
        wait_for("a template on the tip", || {
            let t = self.rpc("get_block_template", json!([])).unwrap();
            (t["parent_hash"] == tip).then_some(t)
        })
    }

    /// Mines one block on the tip proposing exactly `proposals` and committing exactly `txs`,
    /// whatever the pool would choose: a block as another miner may build it.
    fn mine(&self, proposals: &[&Built], txs: &[&Built]) {
        let mut t = self.template();
        t["proposals"] = json!(proposals.iter().map(|b| short_id(b)).collect::<Vec<_>>());
        t["transactions"] = json!(txs
            .iter()
            .map(|b| {
                let data: ckb_jsonrpc_types::Transaction = b.tx.clone().into();
                json!({"hash": hash(b), "required": false, "cycles": null, "depends": null,
                       "data": data})
            })
            .collect::<Vec<_>>());
        self.rpc("generate_block_with_template", json!([t]))
            .unwrap();
    }

    /// Lets the node's own miner work until every one of `txs` is committed; their places
    /// (block number, index in the block).
    fn commit_all(&self, txs: &[&Built]) -> Vec<(u64, usize)> {
        self.dev.commit_all(txs, 30);
        txs.iter().map(|b| self.place(b)).collect()
    }

    fn place(&self, b: &Built) -> (u64, usize) {
        let v = self.rpc("get_transaction", json!([hash(b)])).unwrap();
        let block = self
            .rpc("get_block", json!([v["tx_status"]["block_hash"]]))
            .unwrap();
        let number = block["header"]["number"].as_str().unwrap();
        let number = u64::from_str_radix(number.trim_start_matches("0x"), 16).unwrap();
        let want = json!(hash(b));
        let index = block["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .position(|t| t["hash"] == want)
            .unwrap();
        (number, index)
    }
}

/// A spend sent while the accumulator cell is live, then the append: the pool takes both and
/// makes the spend the append's parent, so the block assembler packs the spend first; both
/// commit, whatever the spend's state when the append arrived.
fn reader_then_append(fx: &mut Fixture, state: State) {
    let cell = fx.cell();
    let reader = fx.reader(&cell);
    fx.dev.sent(&reader, "the spend");
    match state {
        State::Pending => {}
        State::Gap => fx.mine(&[&reader], &[]),
        State::Proposed => {
            fx.mine(&[&reader], &[]);
            fx.mine(&[], &[]);
        }
    }
    fx.wait_entry(&reader, state, "the spend");
    let append = fx.append();
    fx.dev
        .sent(&append, "the append over a pooled spend of its cell");
    let (_, ancestors) = fx.entry(&append).expect("the append is pooled");
    assert_eq!(ancestors, 1, "the append counts the spend as its parent");
    assert!(fx.entry(&reader).is_some(), "the spend stays pooled");
    let places = fx.commit_all(&[&reader, &append]);
    assert!(
        places[0] < places[1],
        "{state:?}: the spend first: {places:?}"
    );
    eprintln!(
        "spend {} then append: both committed, at {places:?}",
        state.name()
    );
    fx.appended(&append);
}

/// The append sent first: a spend of its cell as a dep is refused at once (the pool holds
/// the cell as spent); once the append is committed, the same spend is refused again, now
/// for a cell the chain no longer has; rebuilt against the new accumulator cell, it commits.
fn append_then_reader(fx: &mut Fixture) {
    let cell = fx.cell();
    let append = fx.append();
    fx.dev.sent(&append, "the append");
    let stale = fx.reader(&cell);
    let acc_point = hex(fx.acc.cell.out_point.as_slice());
    let what = "a spend of a cell the pool spends";
    let e = fx
        .dev
        .refused_301(&stale, what, &format!("Dead(OutPoint({acc_point})"));
    eprintln!("spend after a pooled append: {} ({})", e.message, e.code);
    let (status, reason) = fx.dev.status(&stale);
    assert_eq!(status, "rejected", "the refusal is on record too: {reason}");
    assert!(reason.contains("Dead(OutPoint("), "{reason}");
    fx.commit_all(&[&append]);
    let what = "a spend of a consumed cell";
    let e = fx
        .dev
        .refused_301(&stale, what, &format!("Unknown(OutPoint({acc_point})"));
    eprintln!("spend after a committed append: {} ({})", e.message, e.code);
    fx.appended(&append);
    let rebuilt = fx.reader(&cell);
    fx.dev.sent(&rebuilt, "the rebuilt spend");
    fx.commit_all(&[&rebuilt]);
}

/// A block from elsewhere commits the append while the spend (its pool parent) is still
/// pooled in `state`: the pool drops the spend when it applies the block, and its sender
/// finds it rejected with a dead cell dep. The node's own template would not do this: it
/// leaves the append out while a spend of its cell is not yet proposed.
fn block_commits_append_over(fx: &mut Fixture, state: State) {
    let cell = fx.cell();
    let reader = fx.reader(&cell);
    fx.dev.sent(&reader, "the spend");
    let append = fx.append();
    fx.dev.sent(&append, "the append");
    match state {
        State::Pending => {
            fx.mine(&[&append], &[]);
            fx.mine(&[], &[]);
            fx.wait_entry(&append, State::Proposed, "the append");
            let template = fx.template();
            let want = json!(hash(&append));
            let packed = template["transactions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["hash"] == want);
            assert!(
                !packed,
                "the node's template waits for the spend's proposal"
            );
        }
        State::Gap => {
            fx.mine(&[&append], &[]);
            fx.mine(&[&reader], &[]);
        }
        State::Proposed => {
            fx.mine(&[&append, &reader], &[]);
            fx.mine(&[], &[]);
        }
    }
    fx.wait_entry(&reader, state, "the spend");
    fx.wait_entry(&append, State::Proposed, "the append");
    fx.mine(&[], &[&append]);
    let (status, reason) = wait_for("the spend's rejection", || {
        Some(fx.dev.status(&reader)).filter(|(s, _)| s != state.name() && s != "pending")
    });
    let acc_point = hex(fx.acc.cell.out_point.as_slice());
    assert_eq!(status, "rejected", "{state:?}: {reason}");
    assert!(
        reason.contains("Resolve") && reason.contains(&format!("Dead(OutPoint({acc_point})")),
        "{reason}"
    );
    assert_eq!(fx.dev.status(&append).0, "committed");
    assert!(
        fx.dev
            .chain
            .rpc
            .live_cell(&cell.out_point)
            .unwrap()
            .is_some(),
        "nothing is lost: the locked cell stays live"
    );
    eprintln!(
        "spend {} under a block committing the append: {status}: {reason}",
        state.name()
    );
    fx.appended(&append);
    fx.cells.push(cell);
}

/// The append pooled as the child of a spend, then that spend replaced by a higher-fee
/// version of itself (RBF, on by default): the pool removes the replaced spend with its
/// descendants, the append among them, and records the append as rejected. Sent again, the
/// append becomes the replacement's child and both commit.
fn replaced_reader_takes_the_append(fx: &mut Fixture) {
    let cell = fx.cell();
    let reader = fx.reader(&cell);
    fx.dev.sent(&reader, "the spend");
    let append = fx.append();
    fx.dev.sent(&append, "the append");
    let n = fx.acc.leaf_count as usize;
    let richer = Wallet::new(fx.dev.chain, fx.dev.payer.key, 20 * DEFAULT_FEE_RATE);
    let replacement = fx.spend(&cell, n).build(&richer).unwrap();
    assert!(replacement.fee > reader.fee + append.fee);
    fx.dev.sent(&replacement, "the replacement");
    let (status, reason) = wait_for("the append's removal", || {
        Some(fx.dev.status(&append)).filter(|(s, _)| s != "pending")
    });
    assert_eq!(status, "rejected", "{reason}");
    let by = format!("replaced by tx Byte32({:#x})", hash(&replacement));
    assert!(
        reason.contains("RBFReject") && reason.contains(&by),
        "{reason}"
    );
    eprintln!("append under a replaced spend: {status}: {reason}");
    fx.dev.sent(&append, "the append, sent again");
    let places = fx.commit_all(&[&replacement, &append]);
    assert!(places[0] < places[1], "{places:?}");
    fx.appended(&append);
}

/// One transaction appends (the accumulator as input 0) and spends a by-reference cell with
/// the accumulator also as a cell dep: the node accepts it, and the lock reads the dep, the
/// root before the append. A proof against the root after the append fails in the lock.
fn append_and_read_in_one(fx: &mut Fixture) {
    let cell = fx.cell();
    let n = fx.acc.leaf_count as usize;
    let both = |proved_leaves: usize| -> Built {
        let spend = fx.spend(&cell, proved_leaves);
        let update = Update::Append(&fx.dev.leaves[..n + 1]);
        let (new, lock, payload) = update.parts(&fx.acc).unwrap();
        let mut draft = accumulator::update_draft(&fx.acc, &fx.dev.acc_code, &new, lock, &payload);
        draft.cell_deps.extend(spend.deps.clone());
        draft.cell_deps.insert(1, fx.dev.verifier.cell_dep());
        draft
            .inputs
            .push((cell.out_point.clone(), cell.output.clone()));
        let out = exact_output(fx.dev.payer.key.lock(), None, 0)
            .as_builder()
            .capacity(cell.capacity())
            .build();
        draft.outputs.push((out, Bytes::new()));
        draft.witnesses.push(spend.witness.clone());
        fx.dev
            .payer
            .complete(draft, Pay::Wallet { min_inputs: 0 })
            .unwrap()
    };
    let against_new = both(n + 1);
    let e = fx
        .dev
        .send(&against_new)
        .expect_err("a proof of the root after");
    assert_eq!(e.code, -302, "{}", e.message);
    assert!(e.script_code().is_some(), "{}", e.message);
    eprintln!(
        "append + read, proof against the new root: code {:?}",
        e.script_code()
    );
    let honest = both(n);
    let tx = honest.tx.clone().into_view();
    let acc_point = fx.acc.cell.out_point.clone();
    assert!(tx.input_pts_iter().any(|p| p == acc_point));
    assert!(tx.cell_deps_iter().any(|d| d.out_point() == acc_point));
    fx.dev.sent(&honest, "append and read in one transaction");
    fx.commit_all(&[&honest]);
    eprintln!("append + read, proof against the old root: committed");
    fx.appended(&honest);
}

#[test]
fn a_consumed_cell_dep_in_each_pool_state() {
    let node = common::fresh_node("pool-deps");
    let chain = common::ready_chain(&node.rpc_url);
    let key = Key::from_hex(DEV_KEY).unwrap();
    let mut fx = Fixture::new(&chain, &key);
    for state in [State::Pending, State::Gap, State::Proposed] {
        reader_then_append(&mut fx, state);
    }
    append_then_reader(&mut fx);
    for state in [State::Pending, State::Gap, State::Proposed] {
        block_commits_append_over(&mut fx, state);
    }
    replaced_reader_takes_the_append(&mut fx);
    append_and_read_in_one(&mut fx);
    node.stop().unwrap();
}
