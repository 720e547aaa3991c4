//! docs/deploy.md's example is produced by the tool: the committed transaction
//! (docs/examples/owner-tx.json) is what the documented command writes, byte for byte, the
//! printed lines are the ones the guide shows, and the library path in the guide writes the
//! same transaction. The verifier binary is taken from the committed file itself, so the
//! check does not depend on the current build (tests/tests/owner.rs runs the example's args
//! and witness against the current binaries).

use ckb_mmr_sdk::script;
use ckb_mmr_sdk::{parse_leaves, tx, witness_args_with_lock, Format, Mode, Workload};
use std::path::{Path, PathBuf};
use std::process::Command;

const OWNER: &str = "0x9bd7e06f3ecf4be0f2fcd2188b23f1b9fcc88e5d4b65a8637b17723bbda3cce8:type:0x03bd4ec414bbe7dea09d87b8ab54ddd3f236b1c4";
const EXAMPLE: &str = "docs/examples/owner-tx.json";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn committed() -> String {
    std::fs::read_to_string(root().join(EXAMPLE)).unwrap()
}

/// The verifier binary embedded in the committed example (its only cell dep).
fn embedded_binary(dir: &Path) -> PathBuf {
    let json: serde_json::Value = serde_json::from_str(&committed()).unwrap();
    let data = json["mock_info"]["cell_deps"][0]["data"].as_str().unwrap();
    let path = dir.join("verifier");
    std::fs::write(&path, ckb_mmr_sdk::parse_hex(data).unwrap()).unwrap();
    path
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("deploy-example-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn cli_writes_the_committed_example_and_prints_the_documented_lines() {
    let dir = temp_dir("cli");
    let binary = embedded_binary(&dir);
    let out = dir.join("owner-tx.json");
    let run = Command::new(env!("CARGO_BIN_EXE_tx-generator"))
        .current_dir(root())
        .args([
            "prove",
            "--leaves",
            "docs/examples/leaves.txt",
            "--index",
            "4",
        ])
        .args(["--owner-lock", OWNER, "--verifier"])
        .arg(&binary)
        .arg("--tx")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        std::fs::read_to_string(&out).unwrap() == committed(),
        "{EXAMPLE} is not what the documented command writes; regenerate it with the command \
         in docs/deploy.md section 3"
    );
    let stdout = String::from_utf8(run.stdout)
        .unwrap()
        .replace(out.to_str().unwrap(), EXAMPLE);
    let doc = std::fs::read_to_string(root().join("docs/deploy.md")).unwrap();
    let block = doc
        .split("<!-- prove-output:start -->")
        .nth(1)
        .and_then(|s| s.split("<!-- prove-output:end -->").next())
        .unwrap();
    let block = block
        .trim()
        .trim_start_matches("```")
        .trim_end_matches("```");
    assert_eq!(block.trim(), stdout.trim(), "docs/deploy.md's prove output");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn library_path_in_the_guide_writes_the_same_transaction() -> Result<(), Box<dyn std::error::Error>>
{
    let dir = temp_dir("lib");
    let binary_path = embedded_binary(&dir);
    // As in docs/deploy.md section 3, paths relative to the repository root.
    let leaves = parse_leaves(&std::fs::read_to_string(
        root().join("docs/examples/leaves.txt"),
    )?)?;
    let w = Workload::from_leaves(&leaves, &[4])?;
    let owner = script::parse(OWNER)?;
    assert!(w.proves(&script::hash(&owner)));
    let args = w.lock_args_for(Mode::Owner); // 41 bytes
    let payload = w.payload(Format::Compiled)?;
    let witness = witness_args_with_lock(&payload); // WitnessArgs for the MMR cell's input
    let cell = tx::Cell {
        binary: std::fs::read(&binary_path)?,
        lock_args: args,
        payload,
    };
    let mock = tx::mock_transaction_with_owners(&[cell], &[tx::OwnerInput::unsigned(owner)]);
    assert_eq!(serde_json::to_string_pretty(&mock)?, committed());
    assert_eq!(
        mock["tx"]["witnesses"][0].as_str().unwrap(),
        ckb_mmr_sdk::hex(&witness)
    );
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

#[test]
fn leaves_file_and_index_parsing() {
    assert_eq!(
        ckb_mmr_sdk::parse_indexes("0,4,6-9").unwrap(),
        [0, 4, 6, 7, 8, 9]
    );
    assert!(ckb_mmr_sdk::parse_indexes("").is_err());
    assert!(ckb_mmr_sdk::parse_indexes("3-1").is_err());
    assert!(ckb_mmr_sdk::parse_indexes("x").is_err());
    // "0x" alone is an empty leaf, not 32 bytes.
    assert!(parse_leaves("# c\n\n0x\n").is_err());
    let one = format!("{}  # comment\n", "ab".repeat(32));
    assert_eq!(parse_leaves(&one).unwrap(), vec![[0xab; 32]]);
    assert!(parse_leaves(&"ab".repeat(31)).is_err());
    assert!(parse_leaves(&"zz".repeat(32)).is_err());
}
