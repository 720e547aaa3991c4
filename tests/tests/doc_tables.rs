//! Numbers in the docs that come from the release binaries, measured fresh and compared:
//! docs/deploy.md's owner-mode cost table and the cycles of docs/performance.md's recorded
//! `cycle-lab sweep` output. After an intended cycle change, `DOC_TABLES_BLESS=1 cargo test
//! --release -p tests --test doc_tables` rewrites the owner-mode table between its markers;
//! the sweep block is `./build.sh sweep`'s output pasted as printed (its timings are that
//! run's; its cycles must be today's).

use ckb_testtool::ckb_types::{
    bytes::Bytes, core::ScriptHashType, core::TransactionBuilder, packed::CellOutput,
    packed::Script, prelude::*,
};
use std::path::{Path, PathBuf};
use tests::owner::Chain;
use tests::{available_verifiers, honest, payload, run, Outcome, Verifier};
use tx_generator::{Mode, Workload, REFERENCE_SEED};

fn doc(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(name)
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The text between `<!-- {name}:start -->` and `<!-- {name}:end -->` (exclusive), and the
/// byte range it occupies.
fn block(text: &str, name: &str) -> (String, std::ops::Range<usize>) {
    let start_marker = format!("<!-- {name}:start -->\n");
    let start = text.find(&start_marker).expect("start marker") + start_marker.len();
    let end = text[start..]
        .find(&format!("<!-- {name}:end -->"))
        .expect("end marker")
        + start;
    (text[start..end].to_string(), start..end)
}

fn always_success(chain: &mut Chain) -> Script {
    let dep = chain
        .context
        .deploy_cell(ckb_testtool::builtin::ALWAYS_SUCCESS.clone());
    chain
        .context
        .build_script_with_hash_type(&dep, ScriptHashType::Data2, Bytes::new())
        .unwrap()
}

fn output(lock: Script, capacity: u64) -> CellOutput {
    CellOutput::new_builder()
        .capacity(capacity)
        .lock(lock)
        .build()
}

/// Cycles of the MMR lock alone in a two-input owner-mode spend (the MMR cell, then the
/// owner's always-success cell): the transaction's total less the owner's lock run alone.
fn owner_mode_cycles(v: Verifier, w: &Workload) -> u64 {
    let mut chain = Chain::new(v);
    let owner_lock = always_success(&mut chain);
    let owner_alone = {
        let input = chain.cell(owner_lock.clone(), 100);
        let tx = TransactionBuilder::default()
            .input(input)
            .output(output(owner_lock.clone(), 100))
            .output_data(Bytes::new().pack());
        let tx = chain.complete(tx);
        chain.verify(&tx).expect("always success")
    };
    let mmr_lock = chain.mmr_lock(&w.lock_args_for(Mode::Owner));
    let mmr_input = chain.cell(mmr_lock, 100);
    let owner_input = chain.cell(owner_lock.clone(), 100);
    let tx = TransactionBuilder::default()
        .input(mmr_input)
        .input(owner_input)
        .output(output(owner_lock, 200))
        .output_data(Bytes::new().pack())
        .witness(Bytes::from(tx_generator::witness_args_with_lock(&payload(v, w))).pack());
    let tx = chain.complete(tx);
    let total = chain
        .verify(&tx)
        .unwrap_or_else(|e| panic!("{v:?}: owner-mode spend rejected: {e}"));
    total - owner_alone
}

fn owner_table() -> String {
    let owner_hash: [u8; 32] = {
        let mut chain = Chain::new(Verifier::Compiled);
        always_success(&mut chain)
            .calc_script_hash()
            .as_slice()
            .try_into()
            .unwrap()
    };
    let mut rows = String::from(
        "| verifier | plain | owner mode | extra | owner as the last proved leaf |\n\
         | --- | ---: | ---: | ---: | ---: |\n",
    );
    let mut verifiers = available_verifiers();
    verifiers.sort_by_key(|v| v.binary_name());
    for v in verifiers {
        let plain = match run(v, &honest(v, &Workload::from_seed(REFERENCE_SEED))) {
            Outcome::Accepted(c) => c,
            other => panic!("{v:?}: {other:?}"),
        };
        // The owner as the first proved leaf (as tx-generator builds it), then as the last.
        let first = Workload::from_seed_with_owner(REFERENCE_SEED, owner_hash);
        let (mut leaves, indexes) = tx_generator::seeded_leaves(REFERENCE_SEED);
        leaves[*indexes.iter().max().unwrap() as usize] = owner_hash;
        let last = Workload::from_leaves(&leaves, &indexes).unwrap();
        let (owner, owner_last) = (owner_mode_cycles(v, &first), owner_mode_cycles(v, &last));
        let name = match v {
            Verifier::Baseline => "baseline",
            Verifier::C => "C",
            Verifier::Compiled => "compiled",
        };
        rows.push_str(&format!(
            "| {name} | {} | {} | +{} | +{} |\n",
            thousands(plain),
            thousands(owner),
            thousands(owner - plain),
            thousands(owner_last - plain)
        ));
    }
    rows
}

#[test]
fn deploy_md_owner_mode_cost_table() {
    let path = doc("deploy.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (recorded, range) = block(&text, "owner-cost-table");
    let fresh = owner_table();
    print!("{fresh}");
    if std::env::var_os("DOC_TABLES_BLESS").is_some() {
        let mut new = text.clone();
        new.replace_range(range, &fresh);
        std::fs::write(&path, new).unwrap();
        return;
    }
    assert_eq!(
        recorded, fresh,
        "docs/deploy.md's owner-mode table is stale: DOC_TABLES_BLESS=1 cargo test --release -p tests --test doc_tables"
    );
}

/// Seeds 1..=200 (the sweep's default), honest proofs, min / median (lower middle) / max
/// cycles per verifier, as `cycle-lab sweep` prints them.
#[test]
fn performance_md_sweep_cycles() {
    let text = std::fs::read_to_string(doc("performance.md")).unwrap();
    let (recorded, _) = block(&text, "sweep-output");
    let workloads: Vec<Workload> = (1..=200).map(Workload::from_seed).collect();
    for v in available_verifiers() {
        let mut cycles: Vec<u64> = workloads
            .iter()
            .map(|w| match run(v, &honest(v, w)) {
                Outcome::Accepted(c) => c,
                other => panic!("{v:?} seed {:?}: {other:?}", w.seed),
            })
            .collect();
        cycles.sort_unstable();
        let fresh = [
            cycles[0],
            cycles[(cycles.len() - 1) / 2],
            cycles[cycles.len() - 1],
        ];
        let line = recorded
            .lines()
            .find(|l| l.split_whitespace().next() == Some(v.binary_name()))
            .unwrap_or_else(|| panic!("no {} line in the recorded sweep", v.binary_name()));
        let listed: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .map(|n| n.parse().unwrap())
            .collect();
        println!("{}: {fresh:?}", v.binary_name());
        assert_eq!(
            listed,
            fresh,
            "docs/performance.md's recorded sweep is stale for {}: rerun ./build.sh sweep and paste its output",
            v.binary_name()
        );
    }
}
