//! The accumulator's cost tables in docs/accumulator.md and README.md are what the release
//! type script costs now: measured again in-process and compared. After an intended change,
//! `./build.sh growth` (or `ACC_GROWTH_BLESS=1 cargo test --release -p cycle-lab --test
//! acc_growth`) rewrites them.

use cycle_lab::acc_growth::{self, Step};
use cycle_lab::engine::{Engine, Format, Outcome, ProgramSpec};
use cycle_lab::gate;
use mmr_accumulator::{tag, Error};

fn spec() -> ProgramSpec {
    let path = gate::release_dir().join(acc_growth::BINARY);
    ProgramSpec::load(acc_growth::BINARY, Format::Compiled, &path)
        .unwrap_or_else(|e| panic!("{e}; build it with ./build.sh build"))
}

#[test]
fn docs_show_the_measured_costs() {
    let acc = acc_growth::measure(&spec()).unwrap_or_else(|e| panic!("{e}"));
    let (costs, rows, readme) = (acc.cost_table(), acc.growth_table(), acc.readme_table());
    print!("{costs}\n{rows}\n{readme}");
    let root = gate::workspace_root();
    let files = [
        (
            "docs/accumulator.md",
            vec![
                (acc_growth::COST_BLOCK, &costs),
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
    let run = acc_growth::run(&engine, Step::Append { old: 15, leaves: 1 }).unwrap();
    assert!(run.cycles > run.hashing());
    let mut data = vec![7u8; 32];
    data.extend_from_slice(&26u64.to_le_bytes());
    let mut changed = data.clone();
    changed[0] ^= 1;
    let outcome = engine
        .run_type(0, &[1; 32], Some(&data), &changed, &[tag::KEEP])
        .0;
    assert_eq!(outcome, Outcome::Rejected(Error::OutputMismatch.code()));
    let outcome = engine
        .run_type(0, &[1; 32], Some(&data), &data, &[tag::KEEP])
        .0;
    assert!(matches!(outcome, Outcome::Accepted(_)), "{outcome:?}");
    let outcome = engine
        .run_type(0, &[1; 32], None, &data[..39], &[tag::IMPORT])
        .0;
    assert_eq!(outcome, Outcome::Rejected(Error::DataLength.code()));
}
