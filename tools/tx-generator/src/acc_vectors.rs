//! `tx-generator acc-vectors`: the accumulator's bytes (docs/accumulator.md) for other
//! implementations (js/mmr-lock) to match, one JSON object per line:
//!
//! - `"kind": "type_id"`: a first input's `CellInput` and an output index, the type id they
//!   give, an accumulator type script with those args, its hash and the by-reference args;
//! - `"kind": "create"`: the cell data and the `CREATE` payload and witness of k leaves;
//! - `"kind": "pair"`: for (old, new) leaf counts, the cell data before and after, the
//!   `APPEND` witness (old peaks and the new leaves), the `EXTEND` payload and witness (the
//!   ancestry proof) and by-reference args for a random type hash.
//!
//! Leaf i of a line is `ckb_hash(leaf_seed || i)`, both u64 LE zero-padded to 32 bytes, as in
//! `tx-generator vectors`. Payloads come from `mmr_accumulator::build`; each is run through
//! the type script's own core (`verify_creation`, `verify_update`) before it is printed, so a
//! vector the chain would refuse is an error here, not a line.

use ckb_mmr_sdk::ckb_types::core::ScriptHashType;
use ckb_mmr_sdk::script;
use ckb_mmr_sdk::{by_reference_args, ckb_hash, hex, Mode};
use mmr_accumulator::{build, Workspace};
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use serde::Serialize;

/// The builders' merge: the reference blake2b (blake2b-rs, through `ckb_hash`), so the vectors
/// never depend on the hashing code under test.
struct Reference;

impl mmr_accumulator::Merge for Reference {
    fn merge(left: &[u8; 32], right: &[u8; 32], out: &mut [u8; 32]) {
        *out = ckb_hash(&[left, right]);
    }
}

/// Random pairs have at most this many old leaves; new ones reach 2^13 - 1.
const MAX_OLD: u64 = 4095;
/// Type id lines, create lines.
const TYPE_IDS: usize = 32;
const CREATES: usize = 24;

fn word(x: u64) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[..8].copy_from_slice(&x.to_le_bytes());
    w
}

pub fn leaves(leaf_seed: u64, count: u64) -> Vec<[u8; 32]> {
    (0..count)
        .map(|i| ckb_hash(&[&word(leaf_seed), &word(i)]))
        .collect()
}

/// Molecule `WitnessArgs` with only `output_type` (a creation) or only `input_type` (an
/// update) set to `payload`: the field the type script reads.
fn type_witness(payload: &[u8], creation: bool) -> Vec<u8> {
    ckb_mmr_sdk::accumulator::type_witness(payload, creation).to_vec()
}

fn rand32(rng: &mut StdRng) -> [u8; 32] {
    let mut b = [0u8; 32];
    rng.fill_bytes(&mut b);
    b
}

/// A `"type_id"` line (u64 values that JavaScript numbers cannot hold are decimal strings).
#[derive(Serialize)]
struct TypeIdLine {
    kind: &'static str,
    since: String,
    tx_hash: String,
    index: u32,
    output_index: u64,
    cell_input: String,
    type_id: String,
    code_hash: String,
    hash_type: &'static str,
    type_hash: String,
    args_plain: String,
    args_owner: String,
}

/// A `"create"` line.
#[derive(Serialize)]
struct CreateLine {
    kind: &'static str,
    leaf_seed: String,
    leaves: u64,
    data: String,
    payload: String,
    witness: String,
}

/// A `"pair"` line.
#[derive(Serialize)]
struct PairLine {
    kind: &'static str,
    leaf_seed: String,
    old_leaves: u64,
    new_leaves: u64,
    old_data: String,
    new_data: String,
    append_witness: String,
    extend_payload: String,
    extend_witness: String,
    type_hash: String,
    args_plain: String,
    args_owner: String,
}

/// A type id: blake2b(first input's molecule `CellInput` || output index u64 LE). `CellInput`
/// is a fixed struct: since (u64 LE), out point (tx hash, index u32 LE): 44 bytes.
fn type_id_line(rng: &mut StdRng, k: usize) -> TypeIdLine {
    // Valid since values only (RFC 0017: reserved bits 56-60 zero, metric 0-2): the node
    // refuses others, and CCC cannot even encode them.
    let since = match k {
        0 => 0,
        1 => 0xc0ff_ffff_ffff_ffff,
        _ => {
            let flags = rng.gen_range(0..2u64) << 63 | rng.gen_range(0..3u64) << 61;
            flags | rng.next_u64() & 0x00ff_ffff_ffff_ffff
        }
    };
    let tx_hash = rand32(rng);
    let index = match k {
        0 => 0,
        1 => u32::MAX,
        _ => rng.gen_range(0..64),
    };
    let output_index: u64 = match k {
        0 | 1 => k as u64,
        _ => rng.gen_range(0..1000),
    };
    let mut cell_input = Vec::with_capacity(44);
    cell_input.extend_from_slice(&since.to_le_bytes());
    cell_input.extend_from_slice(&tx_hash);
    cell_input.extend_from_slice(&index.to_le_bytes());
    let type_id = ckb_hash(&[&cell_input, &output_index.to_le_bytes()]);
    let code_hash = rand32(rng);
    let type_hash = script::hash(&script::new(code_hash, ScriptHashType::Data2, &type_id));
    TypeIdLine {
        kind: "type_id",
        since: since.to_string(),
        tx_hash: hex(&tx_hash),
        index,
        output_index,
        cell_input: hex(&cell_input),
        type_id: hex(&type_id),
        code_hash: hex(&code_hash),
        hash_type: "data2",
        type_hash: hex(&type_hash),
        args_plain: hex(&by_reference_args(&type_hash, Mode::Plain)),
        args_owner: hex(&by_reference_args(&type_hash, Mode::Owner)),
    }
}

fn create_line(leaf_seed: u64, count: u64) -> Result<CreateLine, String> {
    let ls = leaves(leaf_seed, count);
    let data = build::commitment::<Reference>(&ls)
        .ok_or("no leaves")?
        .to_bytes();
    let payload = build::create_payload(&ls);
    mmr_accumulator::verify_creation::<Reference>(&mut Workspace::new(), &payload, &data)
        .map_err(|e| format!("CREATE of {count} leaves refused by the core: {e:?}"))?;
    Ok(CreateLine {
        kind: "create",
        leaf_seed: leaf_seed.to_string(),
        leaves: count,
        data: hex(&data),
        payload: hex(&payload),
        witness: hex(&type_witness(&payload, true)),
    })
}

fn pair_line(rng: &mut StdRng, old: u64, new: u64) -> Result<PairLine, String> {
    let leaf_seed = rng.next_u64();
    let type_hash = rand32(rng);
    let ls = leaves(leaf_seed, new);
    let refused = |what: &str, e| format!("{what} {old} -> {new} refused by the core: {e:?}");
    let old_data = build::commitment::<Reference>(&ls[..old as usize])
        .ok_or("no old leaves")?
        .to_bytes();
    let new_data = build::commitment::<Reference>(&ls)
        .ok_or("no leaves")?
        .to_bytes();
    let peaks = build::Nodes::new::<Reference>(&ls[..old as usize]).peaks(old);
    let append = build::append_payload(&peaks, &ls[old as usize..]);
    let proof = build::ancestry_proof::<Reference>(&ls, old).map_err(|e| refused("EXTEND", e))?;
    let extend = build::extend_payload(&proof);
    let mut ws = Workspace::new();
    for (what, payload) in [("APPEND", &append), ("EXTEND", &extend)] {
        mmr_accumulator::verify_update::<Reference>(&mut ws, payload, &old_data, &new_data)
            .map_err(|e| refused(what, e))?;
    }
    Ok(PairLine {
        kind: "pair",
        leaf_seed: leaf_seed.to_string(),
        old_leaves: old,
        new_leaves: new,
        old_data: hex(&old_data),
        new_data: hex(&new_data),
        append_witness: hex(&type_witness(&append, false)),
        extend_payload: hex(&extend),
        extend_witness: hex(&type_witness(&extend, false)),
        type_hash: hex(&type_hash),
        args_plain: hex(&by_reference_args(&type_hash, Mode::Plain)),
        args_owner: hex(&by_reference_args(&type_hash, Mode::Owner)),
    })
}

/// 2^k or 2^k - 1 for k in 1..=12: where carries run through every peak or none.
fn edge_count(rng: &mut StdRng) -> u64 {
    let p = 1u64 << rng.gen_range(1..=12);
    if rng.gen_bool(0.5) {
        p
    } else {
        p - 1
    }
}

/// One random (old, new) pair: a quarter of the old counts and a fifth of the new ones are
/// 2^k or 2^k - 1, a fifth of the new ones are old + 1, a fifth old + 2..16.
fn random_pair(rng: &mut StdRng) -> (u64, u64) {
    let old = match rng.gen_range(0..4) {
        0 => edge_count(rng),
        _ => rng.gen_range(1..=MAX_OLD),
    };
    let new = match rng.gen_range(0..5) {
        0 => old + 1,
        1 => {
            let above: Vec<u64> = (1..=13)
                .flat_map(|k| [(1u64 << k) - 1, 1 << k])
                .filter(|&c| c > old)
                .collect();
            above[rng.gen_range(0..above.len())]
        }
        2 => old + rng.gen_range(2..=16),
        _ => rng.gen_range(old + 1..=(MAX_OLD + 1).max(old + 1)),
    };
    (old, new)
}

/// `acc-vectors`'s options.
#[derive(clap::Args, Debug)]
pub struct AccVectorsArgs {
    /// The random pairs' seed
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// How many random pairs
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub pairs: u64,
    /// Also every pair old < new <= K
    #[arg(long, value_name = "K", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=256))]
    pub small: u64,
}

/// `acc-vectors`: the lines, to standard output.
pub fn run(a: &AccVectorsArgs) -> Result<(), String> {
    let mut rng = StdRng::seed_from_u64(a.seed);
    for k in 0..TYPE_IDS {
        crate::print_line(&type_id_line(&mut rng, k));
    }
    // Edge counts first (2^j and 2^j - 1), then random ones up to 300.
    let edges = [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 255, 256];
    for k in 0..CREATES {
        let count = edges
            .get(k)
            .copied()
            .unwrap_or_else(|| rng.gen_range(1..=300));
        crate::print_line(&create_line(rng.next_u64(), count)?);
    }
    for old in 1..a.small {
        for new in old + 1..=a.small {
            crate::print_line(&pair_line(&mut rng, old, new)?);
        }
    }
    for _ in 0..a.pairs {
        let (old, new) = random_pair(&mut rng);
        crate::print_line(&pair_line(&mut rng, old, new)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmr_accumulator::witness::{field, INPUT_TYPE, OUTPUT_TYPE};

    #[test]
    fn type_witness_is_a_strict_witness_args_with_one_field() {
        for payload in [&[0x05u8][..], &[0x04; 129][..]] {
            let update = type_witness(payload, false);
            assert_eq!(field(&update, INPUT_TYPE), Ok(payload));
            assert!(field(&update, OUTPUT_TYPE).is_err());
            let creation = type_witness(payload, true);
            assert_eq!(field(&creation, OUTPUT_TYPE), Ok(payload));
            assert!(field(&creation, INPUT_TYPE).is_err());
        }
    }

    #[test]
    fn random_pairs_cover_the_edges() {
        let mut rng = StdRng::seed_from_u64(1);
        let all: Vec<(u64, u64)> = (0..2000).map(|_| random_pair(&mut rng)).collect();
        assert!(all.iter().all(|&(o, n)| o >= 1 && n > o));
        assert!(all.iter().any(|&(o, n)| n == o + 1));
        assert!(all.iter().any(|&(o, _)| o.is_power_of_two()));
        assert!(all.iter().any(|&(o, _)| (o + 1).is_power_of_two()));
        assert!(all.iter().any(|&(_, n)| n.is_power_of_two() && n > 2048));
        assert!(all.iter().any(|&(_, n)| (n + 1).is_power_of_two()));
        assert!(all.iter().any(|&(o, n)| n - o > 2000));
    }
}
