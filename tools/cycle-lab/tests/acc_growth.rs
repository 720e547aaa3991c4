//! The accumulator's cost tables in docs/accumulator.md and README.md are what the release
//! type script costs now: measured again in-process and compared. After an intended change,
//! `./build.sh growth` (or `ACC_GROWTH_BLESS=1 cargo test --release -p cycle-lab --test
//! acc_growth`) rewrites them.

use cycle_lab::acc_growth::{self, Step};
use cycle_lab::acc_ring;
use cycle_lab::engine::{Engine, Outcome, ProgramSpec};
use cycle_lab::gate;
use mmr_accumulator::{tag, Error};

fn spec() -> ProgramSpec {
    acc_growth::spec(&gate::release_dir())
        .unwrap_or_else(|e| panic!("{e}; build it with ./build.sh build"))
}

#[test]
fn docs_show_the_measured_costs() {
    let acc = acc_growth::measure(&spec()).unwrap_or_else(|e| panic!("{e}"));
    let (costs, rows, readme) = (acc.cost_table(), acc.growth_table(), acc.readme_table());
    let ring = acc_ring::table(&acc_ring::measure(&spec()).unwrap_or_else(|e| panic!("{e}")));
    print!("{costs}\n{ring}\n{rows}\n{readme}");
    let root = gate::workspace_root();
    let files = [
        (
            "docs/accumulator.md",
            vec![
                (acc_growth::COST_BLOCK, &costs),
                (acc_ring::RING_BLOCK, &ring),
                (acc_growth::GROWTH_BLOCK, &rows),
            ],
        ),
        ("README.md", vec![(acc_growth::README_BLOCK, &readme)]),
    ];
    let bless = std::env::var_os("ACC_GROWTH_BLESS").is_some();
    for (file, blocks) in files {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut fresh = text.clone();
        for (name, table) in blocks {
            fresh = doc_blocks::replace_between(&fresh, name, table).unwrap();
        }
        if bless {
            std::fs::write(&path, fresh).unwrap();
            continue;
        }
        assert!(
            fresh == text,
            "{file}: the accumulator's cost tables are stale; run ./build.sh growth (or \
             ACC_GROWTH_BLESS=1 cargo test --release -p cycle-lab --test acc_growth)"
        );
    }
}

/// The journey table (./build.sh journey builds every step, too slow for a test) ends with
/// the release build: its last row must show today's cycles.
#[test]
fn the_journey_table_ends_at_the_release_build() {
    let acc = acc_growth::measure(&spec()).unwrap_or_else(|e| panic!("{e}"));
    let doc = std::fs::read_to_string(gate::workspace_root().join("docs/accumulator.md")).unwrap();
    let table = doc_blocks::between(&doc, acc_growth::JOURNEY_BLOCK).expect("journey markers");
    let last = table.lines().last().unwrap();
    let cells: Vec<String> = last.split('|').map(|c| c.trim().replace(',', "")).collect();
    let expected: Vec<String> = acc
        .costs
        .iter()
        .filter(|r| {
            matches!(
                r.step,
                Step::Append { .. } | Step::Extend { .. } | Step::Keep
            )
        })
        .map(|r| r.cycles.to_string())
        .collect();
    assert_eq!(
        cells[3..3 + expected.len()],
        expected[..],
        "docs/accumulator.md's journey table is stale: run ./build.sh journey ({last})"
    );
}

/// The engine's runs can fail: an output one byte off is refused with the documented code,
/// and so is a creation whose data is not 40 bytes (the type id is right: the engine derives
/// it from its input).
#[test]
fn the_engine_sees_refusals() {
    let engine = Engine::new(&[spec()]);
    let append = acc_growth::run(&engine, Step::Append { old: 15, leaves: 1 }).unwrap();
    assert!(append.cycles > append.hashing());
    let mut data = vec![7u8; 32];
    data.extend_from_slice(&26u64.to_le_bytes());
    let mut changed = data.clone();
    changed[0] ^= 1;
    let run = |input: Option<&[u8]>, output: &[u8], payload: u8| {
        engine.run_type(0, &[1; 32], input, output, &[payload]).0
    };
    let outcome = run(Some(&data), &changed, tag::KEEP);
    assert_eq!(outcome, Outcome::Rejected(Error::OutputMismatch.code()));
    let outcome = run(Some(&data), &data, tag::KEEP);
    assert!(matches!(outcome, Outcome::Accepted(_)), "{outcome:?}");
    let outcome = run(None, &data[..39], tag::IMPORT);
    assert_eq!(outcome, Outcome::Rejected(Error::DataLength.code()));
}

/// The ring's runs can fail too: a step whose snapshot output is not the new head's state is
/// refused with -104, a step with three ring inputs with -101, and a creation whose type id
/// is over another output's index than the head's with 119; honest ones are accepted, and a
/// step costs more than the single accumulator's.
#[test]
fn the_engine_sees_ring_refusals() {
    let engine = Engine::new(&[spec()]);
    let step = Step::Append { old: 15, leaves: 1 };
    let run = acc_ring::run(&engine, step, 8).unwrap();
    assert!(run.cycles > run.single.cycles, "{run:?}");
    assert!(run.cost.tx_bytes > run.single.cost.tx_bytes, "{run:?}");
    let c = acc_ring::ring_case(step, 8).unwrap();
    let ring = |ins: &[Vec<u8>], outs: &[Vec<u8>], head: usize, payload: &[u8]| {
        engine
            .run_ring_type(0, (&[3; 32], 8), ins, outs, head, payload)
            .0
    };
    let accepted = |outcome: Outcome| matches!(outcome, Outcome::Accepted(_));
    assert!(accepted(ring(&c.inputs, &c.outputs, 0, &c.payload)));
    let mut outs = c.outputs.clone();
    outs[1][0] ^= 1;
    assert_eq!(
        ring(&c.inputs, &outs, 0, &c.payload),
        Outcome::Rejected(Error::SnapshotMismatch.code())
    );
    let mut ins = c.inputs.clone();
    ins.push(c.inputs[1].clone());
    assert_eq!(
        ring(&ins, &c.outputs, 0, &c.payload),
        Outcome::Rejected(Error::RingShape.code())
    );
    // The type id over the head's index: accepted with the head first or second, refused
    // (checked before the witness) when over another output's index.
    let create = acc_ring::ring_case(Step::Import, 8).unwrap();
    assert!(accepted(ring(&[], &create.outputs, 0, &create.payload)));
    let mut swapped = create.outputs.clone();
    swapped.swap(0, 1);
    assert!(accepted(ring(&[], &swapped, 1, &create.payload)));
    assert_eq!(
        ring(&[], &create.outputs, 1, &create.payload),
        Outcome::Rejected(Error::TypeIdMismatch.code())
    );
}
