//! The worked examples in docs/ are produced by the code, not typed by hand: these tests fail
//! when either drifts.

use ckb_mmr_sdk::{hex, Workload};

fn five_leaves() -> Workload {
    let leaves: Vec<[u8; 32]> = (1..=5u8).map(|i| [0x11 * i; 32]).collect();
    Workload::from_leaves(&leaves, &[3, 0]).unwrap()
}

#[test]
fn baseline_format_example() {
    let w = five_leaves();
    assert_eq!(w.mmr_size, 8);
    assert_eq!(
        hex(&w.root),
        "0x723d067445ce7c39481a7a28195deb3c8946548b92c7b98fe6bcc78b4607684b"
    );
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/baseline-format.md"
    ))
    .unwrap();
    // The payload as the doc prints it: the lines of the fenced block after "Payload, 184 bytes".
    let block = doc.split("Payload, 184 bytes:").nth(1).unwrap();
    let block = block.split("```").nth(1).unwrap();
    let hex_from_doc: String = block
        .lines()
        .flat_map(|line| {
            line.split_whitespace()
                .take_while(|t| t.chars().all(|c| c.is_ascii_hexdigit()))
        })
        .collect();
    assert_eq!(format!("0x{hex_from_doc}"), hex(&w.baseline_payload()));
    assert_eq!(w.baseline_payload().len(), 184);
}

#[test]
fn reference_workload_shape() {
    let w = Workload::from_seed(ckb_mmr_sdk::REFERENCE_SEED);
    assert_eq!((w.leaf_count, w.proved.len(), w.mmr_size), (2520, 76, 5034));
    assert_eq!(w.lock_args().len(), 40);
}
