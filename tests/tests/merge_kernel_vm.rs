//! The assembly merge kernel (`crates/mmr-blake2b/src/merge_rv64.s`) runs only in CKB-VM, so
//! it is checked there: `tools/merge-bench` path 6 computes 100,514 merges (all zero, all
//! 0xff, each of the 512 single set bits, then 100,000 random pairs) through the
//! memory-to-memory entry, 25,128 merges chained in registers as the left input and 25,128
//! as the right input, and compares each with the hash blake2b-rs computed here, carried in
//! the witness. Run after `./build.sh build`.

mod merge_bench_tx;

use mmr_blake2b::check_inputs;

const SEED: u64 = 0x6d6d_722d_6b65_726e;

/// The expected hashes of the check, in the order merge-bench compares them.
fn expected(count: u32, seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity((count as usize + count as usize / 2) * 32);
    for i in 0..u64::from(count) {
        let block = check_inputs::pair(seed, i);
        out.extend_from_slice(&ckb_mmr_sdk::ckb_hash(&[&block[..32], &block[32..]]));
    }
    let chained = u64::from(count / 4);
    let mut hash = check_inputs::chain_right(seed, u64::MAX);
    for i in 0..2 * chained {
        let item = check_inputs::chain_right(seed, i);
        hash = if i < chained {
            ckb_mmr_sdk::ckb_hash(&[&hash, &item])
        } else {
            ckb_mmr_sdk::ckb_hash(&[&item, &hash])
        };
        out.extend_from_slice(&hash);
    }
    out
}

/// Runs the check; `Ok(cycles)` or the exit code.
fn run(count: u32, seed: u64, witness: Vec<u8>) -> Result<u64, i8> {
    let mut args = vec![6u8];
    args.extend_from_slice(&count.to_le_bytes());
    args.extend_from_slice(&seed.to_le_bytes());
    merge_bench_tx::run(args, Some(witness), 1_000_000_000)
}

#[test]
fn assembly_kernel_equals_blake2b_rs_in_the_vm() {
    let count = check_inputs::EDGE_CASES as u32 + 100_000;
    let cycles = run(count, SEED, expected(count, SEED)).expect("every hash equal");
    println!(
        "{} merges checked in CKB-VM, {cycles} cycles",
        count + 2 * (count / 4)
    );
}

/// The check can fail: one wrong byte in an expected hash (an edge case, a random case, a
/// left-chained or a right-chained step) is reported with its code, a short witness too.
#[test]
fn the_check_detects_a_wrong_hash() {
    let count = check_inputs::EDGE_CASES as u32 + 1_000;
    let good = expected(count, SEED);
    assert!(run(count, SEED, good.clone()).is_ok());
    let chained = count as usize / 4;
    for (hash_index, code) in [
        (1usize, 3i8),
        (700, 3),
        (count as usize + 100, 4),
        (count as usize + chained + 100, 6),
    ] {
        let mut bad = good.clone();
        bad[hash_index * 32 + 31] ^= 0x80;
        assert_eq!(run(count, SEED, bad).err(), Some(code), "hash {hash_index}");
    }
    assert_eq!(
        run(count, SEED, good[..good.len() - 32].to_vec()).err(),
        Some(5)
    );
}
