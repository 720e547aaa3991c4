//! `./build.sh devnet`: on a fresh dev chain, deploy the three verifiers, lock and spend the
//! reference seed's MMR with each (plain and owner mode, data2 and type id, across a type id
//! upgrade), send the refusals the lock must produce, and compare the node's cycles with
//! ckb-debugger's on the transactions rebuilt from the node. Everything goes into a report;
//! [`Report::check`] fails on any row that did not come out as expected.

use crate::acc_scenario::{self, AccRow, CheckedTx};
use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::debug;
use ckb_mmr_sdk::deploy::{self, CodeRef, Deployment};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::key::{Key, DEV_KEY, DEV_KEY_2};
use ckb_mmr_sdk::mmr_cell::{self, Spend, DEFAULT_CELL_CAPACITY};
use ckb_mmr_sdk::node::{self, Node, Tie};
use ckb_mmr_sdk::rpc::{CallError, IndexedCell};
use ckb_mmr_sdk::wallet::{Built, Pay, Wallet, DEFAULT_FEE_RATE};
use ckb_mmr_sdk::{Format, Mode, Workload, REFERENCE_SEED};
use ckb_types::{bytes::Bytes, core::ScriptHashType, packed, prelude::*};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// secp256k1_blake160_sighash_all's exit code when the signature's public key hash is not the
/// lock's args: what a replayed owner signature gets.
pub const SECP_WRONG_SIGNATURE: i8 = -31;

/// The node's weight per cycle (`DEFAULT_BYTES_PER_CYCLES`): weight = max(bytes, cycles x this).
pub const BYTES_PER_CYCLE: f64 = 0.000_170_571_4;

pub struct SpendRow {
    pub verifier: &'static str,
    pub mode: Mode,
    pub deployment: &'static str,
    pub upgraded: bool,
    pub tx_hash: String,
    pub status: String,
    pub node_cycles: u64,
    pub estimate_cycles: u64,
    pub debugger_cycles: u64,
    /// Cycles of the MMR lock's own script group, from ckb-debugger.
    pub mmr_lock_cycles: u64,
    pub tx_bytes: usize,
    pub fee_shannons: u64,
}

pub struct RefusalRow {
    pub case: &'static str,
    pub verifier: &'static str,
    /// The exit code the case must fail with; `None` for a failure that is not an exit code.
    pub expected_code: Option<i8>,
    /// What else the node's message must contain (for failures without an exit code).
    pub expected_message: Option<&'static str>,
    /// False for the plain-mode replay, which the lock accepts by design.
    pub expect_refused: bool,
    pub refused: bool,
    pub node_code: Option<i8>,
    pub node_message: String,
    pub cell_live_after: bool,
    /// The honest spend afterwards (its tx hash), or why there is none.
    pub spent_after: std::result::Result<String, String>,
}

pub struct DeployRow {
    pub verifier: &'static str,
    pub deployment: &'static str,
    pub out_point: String,
    pub binary_bytes: usize,
    pub capacity_shannons: u64,
    pub fee_shannons: u64,
}

pub struct Report {
    pub rpc_url: String,
    pub seed: u64,
    pub deployments: Vec<DeployRow>,
    pub spends: Vec<SpendRow>,
    pub refusals: Vec<RefusalRow>,
    /// The accumulator's part: one row per committed step.
    pub accumulator: Vec<AccRow>,
    /// The accumulator part's other committed transactions, checked as rows are but not in
    /// report.json (no step fits them).
    pub accumulator_other: Vec<CheckedTx>,
    /// Every other transaction the scenario committed (deployments, the upgrade, the cells
    /// it locks, the honest spends after refusals, the accepted replay), measured and checked
    /// the same way: with the rows above, every committed transaction of the run.
    pub other_committed: Vec<CheckedTx>,
    /// How many transactions the scenario saw committed: the rows, `accumulator_other` and
    /// `other_committed` together.
    pub committed_total: usize,
    pub seconds: f64,
}

/// The accumulator's type script in the release directory.
const ACCUMULATOR: &str = "accumulator-type";

const VERIFIERS: [(&str, &str, Format); 3] = [
    ("baseline", "baseline-verifier", Format::Baseline),
    ("c", "c-verifier", Format::Compiled),
    ("compiled", "compiled-verifier", Format::Compiled),
];

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Plain => "plain",
        Mode::Owner => "owner",
    }
}

pub(crate) struct Ctx<'a> {
    pub(crate) chain: &'a Chain,
    pub(crate) payer: Wallet<'a>,
    pub(crate) owner: Wallet<'a>,
    plain: Workload,
    pub(crate) owned: Workload,
    dir: &'a Path,
    debug_n: std::cell::Cell<usize>,
}

/// What the node and ckb-debugger say about one committed transaction.
pub(crate) struct Measured {
    pub(crate) status: String,
    pub(crate) node_cycles: Option<u64>,
    pub(crate) debugger_cycles: u64,
    /// The first lock group's (input 0's lock: the MMR lock in a spend).
    pub(crate) first_lock_cycles: u64,
    /// The first type group's (the accumulator's type script), 0 if none.
    pub(crate) type_cycles: u64,
    pub(crate) fee_shannons: u64,
    pub(crate) tx_bytes: usize,
    /// Witness 0, the `WitnessArgs` that carries the payload.
    pub(crate) witness0_bytes: usize,
    /// The longest output data: a deployment's binary.
    pub(crate) max_output_data: usize,
}

impl Ctx<'_> {
    fn workload(&self, mode: Mode) -> &Workload {
        match mode {
            Mode::Plain => &self.plain,
            Mode::Owner => &self.owned,
        }
    }

    pub(crate) fn lock(&self, code: &CodeRef, mode: Mode) -> Result<IndexedCell> {
        let lock = mmr_cell::lock_script(code, self.workload(mode), mode);
        Ok(mmr_cell::lock_cell(&self.payer, lock, DEFAULT_CELL_CAPACITY)?.0)
    }

    pub(crate) fn spender(&self, mode: Mode) -> &Wallet<'_> {
        match mode {
            Mode::Plain => &self.payer,
            Mode::Owner => &self.owner,
        }
    }

    fn honest(
        &self,
        cell: &IndexedCell,
        d: &Deployment,
        format: Format,
        mode: Mode,
    ) -> Result<Built> {
        Spend::new(cell.clone(), d.clone(), self.workload(mode), format, mode)?
            .build(self.spender(mode))
    }

    /// Sends an honest spend, waits for the commit and measures it three ways.
    fn commit_spend(
        &self,
        built: &Built,
        verifier: &'static str,
        mode: Mode,
        deployment: &'static str,
        upgraded: bool,
    ) -> Result<SpendRow> {
        let estimate = self.chain.rpc.estimate_cycles(&built.tx)?;
        let hash = self.chain.send_and_commit(&built.tx)?;
        let m = self.measure(&hash)?;
        let row = SpendRow {
            verifier,
            mode,
            deployment,
            upgraded,
            tx_hash: format!("{hash:#x}"),
            status: m.status,
            node_cycles: m.node_cycles.unwrap_or(estimate),
            estimate_cycles: estimate,
            debugger_cycles: m.debugger_cycles,
            mmr_lock_cycles: m.first_lock_cycles,
            tx_bytes: built.size(),
            fee_shannons: m.fee_shannons,
        };
        progress(&format!(
            "{verifier} {} {deployment}: committed, node {} cycles, ckb-debugger {}",
            mode_name(mode),
            row.node_cycles,
            row.debugger_cycles
        ));
        Ok(row)
    }

    /// A committed transaction as the node has it, rebuilt as a mock transaction and run in
    /// ckb-debugger group by group.
    pub(crate) fn measure(&self, hash: &ckb_types::H256) -> Result<Measured> {
        let status = self
            .chain
            .rpc
            .transaction(hash)?
            .ok_or_else(|| Error::NotFound(format!("{hash:#x}")))?;
        let n = self.debug_n.get();
        self.debug_n.set(n + 1);
        let mock_file = self.dir.join(format!("debug-{n:02}.json"));
        let tx = status
            .tx
            .clone()
            .ok_or_else(|| Error::NotFound("the committed body".into()))?;
        let (mock, runs) = debug::debug(&self.chain.rpc, &tx, &mock_file)?;
        let debugger_cycles = debug::total_cycles(&runs)?;
        let group = |kind: &str| {
            runs.iter()
                .find(|r| r.group.group_type == kind)
                .and_then(|r| r.run.as_ref().ok())
                .map_or(0, |r| r.cycles)
        };
        Ok(Measured {
            status: status.status,
            node_cycles: status.cycles,
            debugger_cycles,
            first_lock_cycles: group("lock"),
            type_cycles: group("type"),
            fee_shannons: fee_from_mock(&mock),
            tx_bytes: tx.as_slice().len() + 4,
            witness0_bytes: tx.witnesses().get(0).map_or(0, |w| w.raw_data().len()),
            max_output_data: tx
                .raw()
                .outputs_data()
                .into_iter()
                .map(|d| d.raw_data().len())
                .max()
                .unwrap_or(0),
        })
    }

    /// Sends a transaction that must be refused (or, for `expect_refused: false`, accepted),
    /// checks the cell afterwards and spends it honestly when `then` is given.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn refusal(
        &self,
        case: &'static str,
        verifier: &'static str,
        tx: &packed::Transaction,
        cell: &IndexedCell,
        expected_code: Option<i8>,
        expected_message: Option<&'static str>,
        then: std::result::Result<Built, String>,
    ) -> Result<RefusalRow> {
        let (refused, node_code, node_message) = match self.chain.rpc.send_transaction(tx) {
            Ok(hash) => {
                self.chain.wait_committed(&hash)?;
                (false, None, format!("accepted and committed as {hash:#x}"))
            }
            Err(CallError::Node(e)) => (true, e.script_code(), e.message.clone()),
            Err(CallError::Other(e)) => return Err(e),
        };
        let cell_live_after = self.chain.rpc.live_cell(&cell.out_point)?.is_some();
        let spent_after = match then {
            Ok(built) if cell_live_after => {
                let hash = self.chain.send_and_commit(&built.tx)?;
                Ok(format!("{hash:#x}"))
            }
            Ok(_) => Err("the cell is gone".into()),
            Err(why) => Err(why),
        };
        progress(&format!("refusal {case}: refused {refused}, code {node_code:?}, cell live after {cell_live_after}"));
        Ok(RefusalRow {
            case,
            verifier,
            expected_code,
            expected_message,
            expect_refused: expected_code.is_some() || expected_message.is_some(),
            refused,
            node_code,
            node_message,
            cell_live_after,
            spent_after,
        })
    }
}

/// Inputs' capacity (as the node resolved them) minus outputs' capacity.
fn fee_from_mock(mock: &Value) -> u64 {
    let cap = |v: &Value| {
        v.as_str()
            .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            .unwrap_or(0)
    };
    let ins: u64 = mock
        .pointer("/mock_info/inputs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|i| cap(&i["output"]["capacity"]))
        .sum();
    let outs: u64 = mock
        .pointer("/tx/outputs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|o| cap(&o["capacity"]))
        .sum();
    ins.saturating_sub(outs)
}

/// `tx` with witness `i` replaced.
fn with_witness(tx: &packed::Transaction, i: usize, witness: Bytes) -> packed::Transaction {
    let mut ws: Vec<packed::Bytes> = tx.witnesses().into_iter().collect();
    ws[i] = witness.pack();
    tx.clone().as_builder().witnesses(ws.pack()).build()
}

/// Runs the scenario on a fresh dev chain in `dir/chain`, with the binaries in `release`.
pub fn run(dir: &Path, release: &Path) -> Result<Report> {
    let started = Instant::now();
    let binaries: Vec<Vec<u8>> = VERIFIERS
        .iter()
        .map(|(_, file, _)| file)
        .chain([&ACCUMULATOR])
        .map(|file| deploy::read_binary(&release.join(file).display().to_string()))
        .collect::<Result<_>>()?;
    std::fs::create_dir_all(dir).map_err(|e| Error::File {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    let chain_dir = dir.join("chain");
    progress(&format!(
        "initialising a dev chain in {}",
        chain_dir.display()
    ));
    node::init(&chain_dir)?;
    let node = Node::start(&chain_dir, Tie::Owner)?;
    progress(&format!("node up at {} (pid {})", node.rpc_url, node.pid));
    let result = run_on(&node.rpc_url, dir, &binaries);
    let stopped = node.stop();
    let mut report = result?;
    stopped?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

fn run_on(rpc_url: &str, dir: &Path, binaries: &[Vec<u8>]) -> Result<Report> {
    let chain = Chain::connect(rpc_url, false)?;
    let payer_key = Key::from_hex(DEV_KEY).expect("dev key");
    let owner_key = Key::from_hex(DEV_KEY_2).expect("dev key");
    let ctx = Ctx {
        chain: &chain,
        payer: Wallet::new(&chain, &payer_key, DEFAULT_FEE_RATE),
        owner: Wallet::new(&chain, &owner_key, DEFAULT_FEE_RATE),
        plain: Workload::from_seed(REFERENCE_SEED),
        owned: Workload::from_seed_with_owner(REFERENCE_SEED, owner_key.lock_hash()),
        dir,
        debug_n: std::cell::Cell::new(0),
    };
    // Genesis cells need the chain to move past block 0 before the indexer serves them.
    chain.next_block()?;
    chain.wait_indexer()?;
    let mut report = Report {
        rpc_url: rpc_url.to_string(),
        seed: REFERENCE_SEED,
        deployments: Vec::new(),
        spends: Vec::new(),
        refusals: Vec::new(),
        accumulator: Vec::new(),
        accumulator_other: Vec::new(),
        other_committed: Vec::new(),
        committed_total: 0,
        seconds: 0.0,
    };

    let mut data2 = Vec::new();
    for ((name, _, _), binary) in VERIFIERS.iter().zip(binaries) {
        progress(&format!("deploying {name} (data2)"));
        let d = deploy::deploy(&ctx.payer, binary, false)?;
        report.deployments.push(deploy_row(name, &d, binary.len()));
        data2.push(d);
    }
    progress("deploying compiled (type id)");
    let typed = deploy::deploy(&ctx.payer, &binaries[2], true)?;
    report
        .deployments
        .push(deploy_row("compiled", &typed, binaries[2].len()));

    for (i, (name, _, format)) in VERIFIERS.iter().enumerate() {
        for mode in [Mode::Plain, Mode::Owner] {
            let cell = ctx.lock(&data2[i].code, mode)?;
            let built = ctx.honest(&cell, &data2[i], *format, mode)?;
            report
                .spends
                .push(ctx.commit_spend(&built, name, mode, "data2", false)?);
        }
    }

    // Type id: one cell spent before the upgrade, one locked before and spent after it, when
    // the same type hash runs the C verifier (same compiled format).
    let before = ctx.lock(&typed.code, Mode::Plain)?;
    let across = ctx.lock(&typed.code, Mode::Plain)?;
    let built = ctx.honest(&before, &typed, Format::Compiled, Mode::Plain)?;
    report
        .spends
        .push(ctx.commit_spend(&built, "compiled", Mode::Plain, "type", false)?);
    let CodeRef::TypeId { args } = typed.code else {
        return Err(Error::Scenario(
            "the type id deployment has no type id".into(),
        ));
    };
    progress("upgrading the type id deployment to the C verifier");
    let upgraded = deploy::upgrade(&ctx.payer, args, &binaries[1])?;
    report
        .deployments
        .push(deploy_row("c", &upgraded, binaries[1].len()));
    let built = ctx.honest(&across, &upgraded, Format::Compiled, Mode::Plain)?;
    report
        .spends
        .push(ctx.commit_spend(&built, "c", Mode::Plain, "type", true)?);

    refusals(&ctx, &data2, &mut report)?;

    progress("deploying the accumulator type script (data2)");
    let acc_code = deploy::deploy(&ctx.payer, &binaries[3], false)?;
    report
        .deployments
        .push(deploy_row("accumulator", &acc_code, binaries[3].len()));
    let verifiers: Vec<(&'static str, &Deployment, Format)> = VERIFIERS
        .iter()
        .zip(&data2)
        .map(|((name, _, format), d)| (*name, d, *format))
        .collect();
    let part = acc_scenario::run(&ctx, &verifiers, acc_code)?;
    report.accumulator = part.rows;
    report.accumulator_other = part.checked;
    report.refusals.extend(part.refusals);
    measure_the_rest(&ctx, &mut report)?;
    Ok(report)
}

/// What a committed transaction without a row of its own does, told by its outputs.
pub const OTHER_DEPLOYMENT: &str = "deploys or upgrades a binary";
pub const OTHER_TRANSACTION: &str = "locks cells, or spends one after a refusal";

/// Measures every transaction the chain connection saw committed that no row or check has
/// measured yet, so node cycles = ckb-debugger's holds for the whole run, not only the rows.
fn measure_the_rest(ctx: &Ctx, report: &mut Report) -> Result<()> {
    let measured: std::collections::HashSet<&str> = report
        .spends
        .iter()
        .map(|s| s.tx_hash.as_str())
        .chain(report.accumulator.iter().map(|r| r.tx_hash.as_str()))
        .chain(report.accumulator_other.iter().map(|t| t.tx_hash.as_str()))
        .collect();
    let committed = ctx.chain.committed();
    let rest: Vec<_> = committed
        .iter()
        .filter(|h| !measured.contains(format!("{h:#x}").as_str()))
        .collect();
    progress(&format!(
        "measuring the {} other committed transactions with ckb-debugger",
        rest.len()
    ));
    let mut other = Vec::with_capacity(rest.len());
    for hash in rest {
        let m = ctx.measure(hash)?;
        other.push(CheckedTx {
            what: if m.max_output_data >= 1024 {
                OTHER_DEPLOYMENT
            } else {
                OTHER_TRANSACTION
            },
            tx_hash: format!("{hash:#x}"),
            status: m.status,
            node_cycles: m.node_cycles.unwrap_or(0),
            debugger_cycles: m.debugger_cycles,
        });
    }
    report.other_committed = other;
    report.committed_total = committed.len();
    Ok(())
}

fn refusals(ctx: &Ctx, data2: &[Deployment], report: &mut Report) -> Result<()> {
    let compiled = &data2[2];
    let honest_plain =
        |cell: &IndexedCell| ctx.honest(cell, compiled, Format::Compiled, Mode::Plain);

    // A flipped byte in the first proved leaf: the proof now computes another root.
    let mut flipped = ctx.plain.clone();
    flipped.proved[0].1[0] ^= 1;
    // A valid proof of another MMR of the same shape (other leaf values).
    let other = Workload::from_seed_with_owner(REFERENCE_SEED, [0x5a; 32]);
    for (case, forged) in [
        ("flipped_leaf_byte", &flipped),
        ("proof_for_another_mmr", &other),
    ] {
        let cell = ctx.lock(&compiled.code, Mode::Plain)?;
        let spend = Spend::new(
            cell.clone(),
            compiled.clone(),
            forged,
            Format::Compiled,
            Mode::Plain,
        )?;
        let tx = spend.build(&ctx.payer)?.tx;
        let honest = honest_plain(&cell)?;
        report.refusals.push(ctx.refusal(
            case,
            "compiled",
            &tx,
            &cell,
            Some(9),
            None,
            Ok(honest),
        )?);
    }

    // The witness cut short: no longer a valid WitnessArgs.
    let cell = ctx.lock(&compiled.code, Mode::Plain)?;
    let honest = honest_plain(&cell)?;
    let witness = honest.tx.witnesses().get(0).expect("witness").raw_data();
    let tx = with_witness(&honest.tx, 0, witness.slice(..witness.len() / 2));
    report.refusals.push(ctx.refusal(
        "truncated_witness",
        "compiled",
        &tx,
        &cell,
        Some(5),
        None,
        Ok(honest),
    )?);

    // Owner mode without the owner's input: the proof verifies, no input names an owner.
    let cell = ctx.lock(&compiled.code, Mode::Owner)?;
    let tx = Spend::new(
        cell.clone(),
        compiled.clone(),
        &ctx.owned,
        Format::Compiled,
        Mode::Owner,
    )?;
    let no_owner = ctx.payer.complete(
        ckb_mmr_sdk::wallet::Draft {
            cell_deps: vec![compiled.cell_dep()],
            inputs: vec![(cell.out_point.clone(), cell.output.clone())],
            outputs: vec![(
                ckb_mmr_sdk::wallet::exact_output(ctx.payer.key.lock(), None, 0)
                    .as_builder()
                    .capacity(cell.capacity())
                    .build(),
                Bytes::new(),
            )],
            witnesses: vec![tx.witness.clone()],
            type_id_output: None,
        },
        Pay::FromOutput(0),
    )?;
    let honest = ctx.honest(&cell, compiled, Format::Compiled, Mode::Owner)?;
    report.refusals.push(ctx.refusal(
        "owner_input_missing",
        "compiled",
        &no_owner.tx,
        &cell,
        Some(80),
        None,
        Ok(honest),
    )?);

    // An owner-mode spend seen in the mempool, replayed with the outputs redirected: the
    // owner's signature covers the outputs, so the owner's lock refuses it.
    let cell = ctx.lock(&compiled.code, Mode::Owner)?;
    let honest = ctx.honest(&cell, compiled, Format::Compiled, Mode::Owner)?;
    let thief = ctx.payer.key.lock();
    let outputs: Vec<packed::CellOutput> = honest
        .tx
        .raw()
        .outputs()
        .into_iter()
        .map(|o| o.as_builder().lock(thief.clone()).build())
        .collect();
    let raw = honest.tx.raw().as_builder().outputs(outputs.pack()).build();
    let replay = honest.tx.clone().as_builder().raw(raw).build();
    report.refusals.push(ctx.refusal(
        "owner_replay_other_outputs",
        "compiled",
        &replay,
        &cell,
        Some(SECP_WRONG_SIGNATURE),
        None,
        Ok(honest),
    )?);

    // hash_type data runs VM version 0, which cannot run these binaries (it has no B extension,
    // and already fails loading them with MemWriteOnExecutablePage), and
    // a cell locked this way can never be spent.
    let data_lock = packed::Script::new_builder()
        .code_hash(compiled.code.code_hash().pack())
        .hash_type(ScriptHashType::Data)
        .args(Bytes::from(ctx.plain.lock_args()).pack())
        .build();
    let cell = mmr_cell::lock_cell(
        &ctx.payer,
        data_lock,
        81 * ckb_mmr_sdk::wallet::SHANNONS_PER_CKB,
    )?
    .0;
    let tx = honest_plain(&cell)?.tx;
    report.refusals.push(ctx.refusal(
        "hash_type_data",
        "compiled",
        &tx,
        &cell,
        None,
        Some("VM Internal Error"),
        Err("unspendable: VM version 0 cannot run the binary".into()),
    )?);

    // 39-byte args: rejected with ArgsLength before anything else, forever.
    let short = compiled.code.lock(&ctx.plain.lock_args()[..39]);
    let cell = mmr_cell::lock_cell(
        &ctx.payer,
        short,
        80 * ckb_mmr_sdk::wallet::SHANNONS_PER_CKB,
    )?
    .0;
    let tx = honest_plain(&cell)?.tx;
    report.refusals.push(ctx.refusal(
        "args_39_bytes",
        "compiled",
        &tx,
        &cell,
        Some(1),
        None,
        Err("unspendable: the args can never be valid".into()),
    )?);

    // Plain mode's documented limit: a proof seen once opens every cell with the same args.
    let first = ctx.lock(&compiled.code, Mode::Plain)?;
    let second = ctx.lock(&compiled.code, Mode::Plain)?;
    let seen = honest_plain(&first)?;
    ctx.chain.send_and_commit(&seen.tx)?;
    let mut theft = Spend::new(
        second.clone(),
        compiled.clone(),
        &ctx.plain,
        Format::Compiled,
        Mode::Plain,
    )?;
    theft.witness = seen.tx.witnesses().get(0).expect("witness").raw_data();
    let replay = theft.build(&ctx.owner)?;
    report.refusals.push(ctx.refusal(
        "plain_replay_accepted",
        "compiled",
        &replay.tx,
        &second,
        None,
        None,
        Err("spent by the replay".into()),
    )?);
    Ok(())
}

/// 1234567 -> "1,234,567".
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `doc` with the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` replaced.
pub fn replace_between(doc: &str, name: &str, body: &str) -> Option<String> {
    let (start, end) = (
        format!("<!-- {name}:start -->"),
        format!("<!-- {name}:end -->"),
    );
    let a = doc.find(&start)? + start.len();
    let b = doc[a..].find(&end)? + a;
    Some(format!("{}\n{}{}", &doc[..a], body, &doc[b..]))
}

/// The text between the markers.
pub fn between<'a>(doc: &'a str, name: &str) -> Option<&'a str> {
    let (start, end) = (
        format!("<!-- {name}:start -->"),
        format!("<!-- {name}:end -->"),
    );
    let a = doc.find(&start)? + start.len();
    let b = doc[a..].find(&end)? + a;
    Some(&doc[a..b])
}

fn deploy_row(verifier: &'static str, d: &Deployment, binary_bytes: usize) -> DeployRow {
    DeployRow {
        verifier,
        deployment: d.code.kind(),
        out_point: ckb_mmr_sdk::out_point_text(&d.out_point),
        binary_bytes,
        capacity_shannons: d.capacity(),
        fee_shannons: d.fee,
    }
}

/// A committed transaction whose node cycles are ckb-debugger's (and not 0: scripts ran).
fn check_measured(what: &str, status: &str, node: u64, debugger: u64) -> Result<()> {
    if status != "committed" || node == 0 || node != debugger {
        return Err(Error::Scenario(format!(
            "{what}: status {status}, node {node} / ckb-debugger {debugger} cycles"
        )));
    }
    Ok(())
}

impl SpendRow {
    /// The node's weight for the fee: max(bytes, cycles x 0.000170571).
    pub fn cycles_weight(&self) -> u64 {
        (self.node_cycles as f64 * BYTES_PER_CYCLE).ceil() as u64
    }
}

impl RefusalRow {
    pub fn as_expected(&self) -> bool {
        let outcome = if self.expect_refused {
            self.refused
                && self.node_code == self.expected_code
                && self
                    .expected_message
                    .is_none_or(|m| self.node_message.contains(m))
                && self.cell_live_after
        } else {
            !self.refused
        };
        // Cells that can be spent honestly afterwards must have been.
        outcome
            && (self.spent_after.is_ok()
                || self
                    .spent_after
                    .as_ref()
                    .is_err_and(|e| e.starts_with("unspendable") || e.starts_with("spent by")))
    }
}

impl Report {
    pub fn to_json(&self) -> Value {
        json!({
            "rpc_url": self.rpc_url,
            "seed": self.seed,
            "seconds": (self.seconds * 10.0).round() / 10.0,
            "deployments": self.deployments.iter().map(|d| json!({
                "verifier": d.verifier, "deployment": d.deployment, "out_point": d.out_point,
                "binary_bytes": d.binary_bytes, "capacity_shannons": d.capacity_shannons, "fee_shannons": d.fee_shannons,
            })).collect::<Vec<_>>(),
            "spends": self.spends.iter().map(|s| json!({
                "verifier": s.verifier, "mode": mode_name(s.mode), "deployment": s.deployment,
                "upgraded": s.upgraded, "tx_hash": s.tx_hash, "status": s.status,
                "node_cycles": s.node_cycles, "estimate_cycles": s.estimate_cycles,
                "debugger_cycles": s.debugger_cycles, "mmr_lock_cycles": s.mmr_lock_cycles,
                "tx_bytes": s.tx_bytes, "cycles_weight": s.cycles_weight(), "fee_shannons": s.fee_shannons,
            })).collect::<Vec<_>>(),
            "refusals": self.refusals.iter().map(|r| json!({
                "case": r.case, "verifier": r.verifier, "expected_code": r.expected_code,
                "expected_message": r.expected_message, "expect_refused": r.expect_refused,
                "node_code": r.node_code, "refused": r.refused, "node_message": r.node_message,
                "cell_live_after": r.cell_live_after,
                "spent_after": match &r.spent_after { Ok(h) => json!(h), Err(_) => Value::Null },
                "not_spent_because": match &r.spent_after { Ok(_) => Value::Null, Err(e) => json!(e) },
                "as_expected": r.as_expected(),
            })).collect::<Vec<_>>(),
            "accumulator": self.accumulator.iter().map(|r| json!({
                "step": r.step, "note": r.note, "verifier": r.verifier,
                "mode": r.mode.map(mode_name), "tx_hash": r.tx_hash, "status": r.status,
                "node_cycles": r.node_cycles, "debugger_cycles": r.debugger_cycles,
                "script_cycles": r.script_cycles, "tx_bytes": r.tx_bytes,
                "witness_bytes": r.witness_bytes, "fee_shannons": r.fee_shannons,
                "leaves_appended": r.leaves_appended, "mmr_size_after": r.mmr_size_after,
            })).collect::<Vec<_>>(),
            "other_committed": self.accumulator_other.iter().chain(&self.other_committed).map(|t| json!({
                "what": t.what, "tx_hash": t.tx_hash, "status": t.status,
                "node_cycles": t.node_cycles, "debugger_cycles": t.debugger_cycles,
            })).collect::<Vec<_>>(),
            "committed_total": self.committed_total,
        })
    }

    /// The accumulator's table docs/deploy.md shows between its `devnet-accumulator-table`
    /// markers (numbers that repeat exactly on every fresh chain).
    pub fn accumulator_markdown(&self) -> String {
        let mut s = String::from(
            "| step | what | verifier | mode | leaves appended | mmr_size after | node cycles (= ckb-debugger) | of which the type script or MMR lock | tx bytes | witness bytes | fee (shannons) |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for r in &self.accumulator {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.step,
                r.note,
                r.verifier.unwrap_or(""),
                r.mode.map_or("", mode_name),
                group(r.leaves_appended),
                group(r.mmr_size_after),
                group(r.node_cycles),
                group(r.script_cycles),
                group(r.tx_bytes as u64),
                group(r.witness_bytes as u64),
                group(r.fee_shannons)
            ));
        }
        s
    }

    /// The measured tables docs/deploy.md shows between its `devnet-table` markers: only
    /// numbers that repeat exactly on every fresh chain (no hashes, no timings).
    pub fn markdown(&self) -> String {
        let mut s = String::from(
            "| deployment | verifier | binary bytes | capacity locked (CKB) | fee (shannons) |\n| --- | --- | ---: | ---: | ---: |\n",
        );
        for d in &self.deployments {
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                d.deployment,
                d.verifier,
                group(d.binary_bytes as u64),
                group(d.capacity_shannons / 100_000_000),
                group(d.fee_shannons)
            ));
        }
        s.push_str(
            "\n| verifier | mode | deployment | node cycles (= ckb-debugger) | of which the MMR lock | tx bytes | cycle weight | fee (shannons) |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for r in &self.spends {
            let deployment = if r.upgraded {
                "type, after upgrade"
            } else {
                r.deployment
            };
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.verifier,
                mode_name(r.mode),
                deployment,
                group(r.node_cycles),
                group(r.mmr_lock_cycles),
                group(r.tx_bytes as u64),
                group(r.cycles_weight()),
                group(r.fee_shannons)
            ));
        }
        s
    }

    pub fn table(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "\n{:<9} {:<6} {:<6} {:<8} {:<10} {:>12} {:>12} {:>9} {:>12} {:>10}\n",
            "verifier",
            "mode",
            "deploy",
            "upgraded",
            "status",
            "node cycles",
            "debugger",
            "tx bytes",
            "cycle weight",
            "fee"
        ));
        for r in &self.spends {
            s.push_str(&format!(
                "{:<9} {:<6} {:<6} {:<8} {:<10} {:>12} {:>12} {:>9} {:>12} {:>10}\n",
                r.verifier,
                mode_name(r.mode),
                r.deployment,
                r.upgraded,
                r.status,
                r.node_cycles,
                r.debugger_cycles,
                r.tx_bytes,
                r.cycles_weight(),
                r.fee_shannons
            ));
        }
        s.push_str(&format!(
            "\n{:<28} {:>8} {:>9} {:>8} {:>10} {:>10}\n",
            "refusal", "expected", "node code", "refused", "live after", "as expected"
        ));
        for r in &self.refusals {
            let expected = match (r.expected_code, r.expected_message, r.expect_refused) {
                (Some(c), _, _) => c.to_string(),
                (None, Some(m), _) => m.chars().take(8).collect(),
                (None, None, _) => "accept".into(),
            };
            s.push_str(&format!(
                "{:<28} {:>8} {:>9} {:>8} {:>10} {:>10}\n",
                r.case,
                expected,
                r.node_code.map_or("-".into(), |c| c.to_string()),
                r.refused,
                r.cell_live_after,
                r.as_expected()
            ));
        }
        s.push_str(&format!(
            "\n{:<9} {:<38} {:<9} {:<6} {:>7} {:>9} {:>12} {:>12} {:>9} {:>8}\n",
            "acc step",
            "what",
            "verifier",
            "mode",
            "leaves",
            "mmr_size",
            "node cycles",
            "debugger",
            "tx bytes",
            "witness"
        ));
        for r in &self.accumulator {
            s.push_str(&format!(
                "{:<9} {:<38} {:<9} {:<6} {:>7} {:>9} {:>12} {:>12} {:>9} {:>8}\n",
                r.step,
                r.note,
                r.verifier.unwrap_or("-"),
                r.mode.map_or("-", mode_name),
                r.leaves_appended,
                r.mmr_size_after,
                r.node_cycles,
                r.debugger_cycles,
                r.tx_bytes,
                r.witness_bytes
            ));
        }
        for t in &self.accumulator_other {
            s.push_str(&format!(
                "{:<9} {:<38} {:<9} {:<6} {:>7} {:>9} {:>12} {:>12}\n",
                "(no row)", t.what, "-", "-", "-", "-", t.node_cycles, t.debugger_cycles
            ));
        }
        s.push_str(&format!(
            "\n{} deployments, {} spends, {} accumulator transactions (and {} checked without a \
             row), {} refusal cases in {:.0} s; {} transactions committed, every one with node \
             cycles = ckb-debugger's ({} without a row: deployments, locked cells, spends after \
             refusals)\n",
            self.deployments.len(),
            self.spends.len(),
            self.accumulator.len(),
            self.accumulator_other.len(),
            self.refusals.len(),
            self.seconds,
            self.committed_total,
            self.other_committed.len()
        ));
        s
    }

    /// Fails unless every committed transaction (spends, accumulator rows, `accumulator_other`
    /// and `other_committed`: as many as the chain connection saw committed) has node cycles
    /// equal to ckb-debugger's and every refusal came out as expected.
    pub fn check(&self) -> Result<()> {
        for s in &self.spends {
            if s.status != "committed"
                || s.node_cycles != s.debugger_cycles
                || s.estimate_cycles != s.debugger_cycles
            {
                return Err(Error::Scenario(format!(
                    "{} {} {}: status {}, node {} / estimate {} / ckb-debugger {} cycles",
                    s.verifier,
                    mode_name(s.mode),
                    s.deployment,
                    s.status,
                    s.node_cycles,
                    s.estimate_cycles,
                    s.debugger_cycles
                )));
            }
        }
        for r in &self.accumulator {
            let what = format!("accumulator {} ({})", r.step, r.note);
            check_measured(&what, &r.status, r.node_cycles, r.debugger_cycles)?;
        }
        for t in &self.accumulator_other {
            let what = format!("accumulator: {} ({})", t.what, t.tx_hash);
            check_measured(&what, &t.status, t.node_cycles, t.debugger_cycles)?;
        }
        for t in &self.other_committed {
            let what = format!("{} ({})", t.what, t.tx_hash);
            check_measured(&what, &t.status, t.node_cycles, t.debugger_cycles)?;
        }
        let measured = self.spends.len()
            + self.accumulator.len()
            + self.accumulator_other.len()
            + self.other_committed.len();
        if measured != self.committed_total {
            return Err(Error::Scenario(format!(
                "{} transactions committed, {measured} measured",
                self.committed_total
            )));
        }
        for r in &self.refusals {
            if !r.as_expected() {
                return Err(Error::Scenario(format!(
                    "{}: refused {}, code {:?} (expected {:?}), cell live after {}, then {:?}: {}",
                    r.case,
                    r.refused,
                    r.node_code,
                    r.expected_code,
                    r.cell_live_after,
                    r.spent_after,
                    r.node_message
                )));
            }
        }
        Ok(())
    }
}
