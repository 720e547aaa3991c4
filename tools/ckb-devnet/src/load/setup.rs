//! Before the load: the verifiers and the accumulator's type script deployed, the accumulator
//! created, one cell locked by reference per spend, the owners' and the admin's fee cells, and
//! the plan (which client sends which spend, with which verifier and mode, and when).

use super::{output_cell, Dep, Options, VERIFIERS};
use crate::scenario::{Binaries, Verifier};
use ckb_mmr_sdk::accumulator::{self, Accumulator};
use ckb_mmr_sdk::chain::{progress, Chain};
use ckb_mmr_sdk::deploy::{self, Deployment};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::key::{Key, DEV_KEY};
use ckb_mmr_sdk::mmr_cell::DEFAULT_CELL_CAPACITY;
use ckb_mmr_sdk::ring::{self, Ring};
use ckb_mmr_sdk::rpc::IndexedCell;
use ckb_mmr_sdk::wallet::{exact_output, Draft, Pay, Wallet, DEFAULT_FEE_RATE, SHANNONS_PER_CKB};
use ckb_mmr_sdk::{hex, Mode};
use ckb_types::{bytes::Bytes, packed, prelude::*};
use rand::{rngs::StdRng, Rng, SeedableRng};

/// An owner's input: one plain cell per owner-mode spend, so no two spends share an input.
const OWNER_CELL: u64 = 200 * SHANNONS_PER_CKB;
/// The admin's fee cell, which every append spends and recreates less its fee.
const FEE_CELL: u64 = 10_000 * SHANNONS_PER_CKB;
/// The griefer's cell, which pays each of its transactions and their replacements.
const GRIEFER_CELL: u64 = 1_000 * SHANNONS_PER_CKB;
/// Mixed into the seed for the griefer's key, so it is no spend's.
const GRIEFER_SEED: u64 = 0x0067_7269_6566_6572;

/// One spend as planned: who sends it, what it opens, with what, and when it arrives.
#[derive(Clone)]
pub struct Planned {
    pub spend: usize,
    pub client: usize,
    pub verifier: Verifier,
    pub mode: Mode,
    /// The spend's own key (hex): the owner in owner mode, the payee in both.
    pub key: String,
    /// The accumulator leaf it proves: its key's lock hash.
    pub leaf: u64,
    /// The cell locked by reference that it spends.
    pub cell: IndexedCell,
    /// It arrives `delay_ms` after the chain reaches `arrival_block` blocks past the start.
    pub arrival_block: u64,
    pub delay_ms: u64,
}

pub struct Setup {
    pub verifiers: Vec<(Verifier, Deployment)>,
    pub acc_code: Deployment,
    /// The accumulator as created (a ring's head: its type hash is the ring's).
    pub acc: Accumulator,
    /// The ring as created, with `Dep::Ring`.
    pub ring: Option<Ring>,
    pub leaves: Vec<[u8; 32]>,
    pub admin: Key,
    /// The admin's fee cell (the first append spends it).
    pub fee_cell: IndexedCell,
    /// With `--griefer`: its key and its own cell.
    pub griefer: Option<(Key, IndexedCell)>,
    pub plan: Vec<Planned>,
}

impl Setup {
    pub fn deployment(&self, v: Verifier) -> &Deployment {
        &self
            .verifiers
            .iter()
            .find(|(w, _)| *w == v)
            .expect("every verifier is deployed")
            .1
    }
}

/// Spend `j`'s key, from the seed: a blake2b of both, which is a valid secp256k1 secret key
/// but for a negligible chance (then the run says so).
fn spend_key(seed: u64, j: usize) -> Result<(String, Key)> {
    let secret = ckb_mmr_sdk::ckb_hash(&[
        b"ckb-devnet load",
        &seed.to_le_bytes(),
        &(j as u64).to_le_bytes(),
    ]);
    let text = hex(&secret);
    let key = Key::from_hex(&text)?;
    Ok((text, key))
}

/// Spend `j`'s verifier and mode: every pair in turn, so any six spends cover all of them.
fn kind(j: usize) -> (Verifier, Mode) {
    let v = VERIFIERS[j % VERIFIERS.len()];
    let mode = if (j / VERIFIERS.len()).is_multiple_of(2) {
        Mode::Plain
    } else {
        Mode::Owner
    };
    (v, mode)
}

pub fn prepare(chain: &Chain, binaries: &Binaries, o: &Options) -> Result<Setup> {
    let admin = Key::from_hex(DEV_KEY)?;
    let payer = Wallet::new(chain, &admin, DEFAULT_FEE_RATE);
    let mut verifiers = Vec::new();
    for v in VERIFIERS {
        progress(&format!("load: deploying the {} verifier", v.name()));
        verifiers.push((v, deploy::deploy(&payer, binaries.verifier(v), false)?));
    }
    let acc_code = deploy::deploy(&payer, &binaries.accumulator, false)?;

    let keys: Vec<(String, Key)> = (0..o.spends)
        .map(|j| spend_key(o.seed, j))
        .collect::<Result<_>>()?;
    // Leaf j is spend j's lock hash: the owner-mode spends prove their owner by it.
    let leaves: Vec<[u8; 32]> = keys.iter().map(|(_, k)| k.lock_hash()).collect();
    if leaves.len() as u64 > accumulator::max_leaves_per_tx(0) {
        return Err(Error::Usage(format!(
            "--spends: at most {} (the accumulator's creation holds one leaf per spend)",
            accumulator::max_leaves_per_tx(0)
        )));
    }
    let (acc, ring) = if o.dep == Dep::Ring {
        let draft = ring::create_draft(
            &acc_code,
            admin.lock(),
            o.ring_k,
            ring::Creation::Create(&leaves),
        )?;
        let built = accumulator::complete(&payer, draft)?;
        let what = format!("load: creating a ring of K = {}", o.ring_k);
        accumulator::send(&payer, &built, &what)?;
        let r = ring::after_creation(acc_code.data_hash, &built)?;
        (r.head.clone(), Some(r))
    } else {
        let draft = accumulator::create_draft(&acc_code, admin.lock(), &leaves)?;
        let built = accumulator::complete(&payer, draft)?;
        accumulator::send(&payer, &built, "load: creating the accumulator")?;
        (accumulator::after(acc_code.data_hash, &built)?, None)
    };

    let kinds: Vec<(Verifier, Mode)> = (0..o.spends).map(kind).collect();
    let locks: Vec<packed::Script> = kinds
        .iter()
        .map(|(v, mode)| {
            let code = &verifiers.iter().find(|(w, _)| w == v).expect("deployed").1;
            acc.reference_lock(&code.code, *mode)
        })
        .collect();
    let (cells, _) = accumulator::lock_cells(&payer, &locks, DEFAULT_CELL_CAPACITY)?;

    // One plain cell per owner-mode spend, and the admin's fee cell last.
    let mut outputs: Vec<(packed::CellOutput, Bytes)> = kinds
        .iter()
        .zip(&keys)
        .filter(|((_, mode), _)| *mode == Mode::Owner)
        .map(|(_, (_, key))| cell_of(key.lock(), OWNER_CELL))
        .collect();
    outputs.push(cell_of(admin.lock(), FEE_CELL));
    let fee_at = outputs.len() - 1;
    // The griefer's own cell, after the admin's: it pays every griefing transaction.
    let griefer = match o.griefer {
        true => Some(spend_key(o.seed ^ GRIEFER_SEED, 0)?),
        false => None,
    };
    if let Some((_, key)) = &griefer {
        outputs.push(cell_of(key.lock(), GRIEFER_CELL));
    }
    let draft = Draft {
        outputs,
        ..Draft::default()
    };
    let funding = payer.complete(draft, Pay::Wallet { min_inputs: 1 })?;
    progress("load: funding the owners' inputs and the admin's fee cell");
    chain.send_and_commit(&funding.tx)?;
    let fee_cell = output_cell(&funding.tx, fee_at);
    let griefer = griefer.map(|(_, key)| (key, output_cell(&funding.tx, fee_at + 1)));

    let mut rng = StdRng::seed_from_u64(o.seed);
    let plan = cells
        .into_iter()
        .zip(keys)
        .zip(kinds)
        .enumerate()
        .map(|(j, ((cell, (key, _)), (verifier, mode)))| Planned {
            spend: j,
            client: j % o.clients,
            verifier,
            mode,
            key,
            leaf: j as u64,
            cell,
            arrival_block: rng.gen_range(0..o.blocks),
            delay_ms: rng.gen_range(0..o.block_ms.max(1)),
        })
        .collect();
    Ok(Setup {
        verifiers,
        acc_code,
        acc,
        ring,
        leaves,
        admin,
        fee_cell,
        griefer,
        plan,
    })
}

fn cell_of(lock: packed::Script, capacity: u64) -> (packed::CellOutput, Bytes) {
    let out = exact_output(lock, None, 0)
        .as_builder()
        .capacity(capacity)
        .build();
    (out, Bytes::new())
}
