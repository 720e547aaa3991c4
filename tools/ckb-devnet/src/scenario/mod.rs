//! `./build.sh devnet`: on a fresh dev chain, deploy the three verifiers, lock and spend the
//! reference seed's MMR with each (plain and owner mode, data2 and type id, across a type id
//! upgrade), send the refusals the lock must produce, run the accumulator (create, append,
//! extend, hand over, spend by reference, and its refusals), and compare the node's cycles
//! with ckb-debugger's on every committed transaction, rebuilt from the node.
//!
//! The scenario is a list of named cases ([`cases`]), each a function whose doc says what
//! it proves, run in order on one shared [`Ctx`]: they find the deployments and cells earlier
//! cases left by name, and record their rows in its [`Report`]; [`Report::check`] fails on any
//! row that did not come out as expected.

mod acc_spends;
mod acc_state;
mod acc_steps;
mod acc_updates;
mod code;
mod ctx;
mod deploy;
mod refusals;
mod report;
mod rest;
mod spends;
mod tables;

pub use acc_spends::{COUNTERFEIT_CELL, LOCKED_BY_REFERENCE};
pub use acc_state::{APPENDS, CREATED};
pub(crate) use code::Binaries;
pub use code::Verifier;
pub use ctx::{Case, Ctx};
pub use refusals::SECP_WRONG_SIGNATURE;
pub use report::{mode_name, AccRow, CheckedTx, DeployRow, RefusalRow, Report, SpendRow};
pub use rest::{OTHER_DEPLOYMENT, OTHER_TRANSACTION};

use crate::fresh_chain::{file_error, run_on_fresh_chain};
use ckb_mmr_sdk::chain::progress;
use ckb_mmr_sdk::error::Result;
use ckb_mmr_sdk::key::{Key, DEV_KEY, DEV_KEY_2};
use ckb_mmr_sdk::Mode;
use std::path::Path;
use std::time::Instant;

/// Every case of the scenario, in the order it runs them (later cases use what earlier ones
/// deployed and locked; the docs' tables list rows in this order).
pub fn cases() -> Vec<Case> {
    let modes = [Mode::Plain, Mode::Owner];
    let mut cases: Vec<Case> = Verifier::ALL
        .map(|v| {
            let name = format!("deploy {} (data2)", v.name());
            Case::new(name, move |ctx| deploy::deploy_data2(ctx, v))
        })
        .into();
    cases.push(Case::new(
        "deploy compiled (type id)",
        deploy::deploy_type_id,
    ));
    for verifier in Verifier::ALL {
        for mode in modes {
            let name = format!(
                "lock and spend, {} {} (data2)",
                verifier.name(),
                mode_name(mode)
            );
            let run = move |ctx: &mut Ctx| spends::lock_and_spend(ctx, verifier, mode);
            cases.push(Case::new(name, run));
        }
    }
    cases.extend([
        Case::new(
            "lock and spend, compiled plain (type id)",
            spends::spend_by_type_id,
        ),
        Case::new("upgrade the type id to c", deploy::upgrade),
        Case::new(
            "spend across the upgrade, c plain (type id)",
            spends::spend_across_upgrade,
        ),
        Case::new("flipped_leaf_byte", refusals::flipped_leaf_byte),
        Case::new("proof_for_another_mmr", refusals::proof_for_another_mmr),
        Case::new("truncated_witness", refusals::truncated_witness),
        Case::new("owner_input_missing", refusals::owner_input_missing),
        Case::new(
            "owner_replay_other_outputs",
            refusals::owner_replay_other_outputs,
        ),
        Case::new("hash_type_data", refusals::hash_type_data),
        Case::new("args_39_bytes", refusals::args_39_bytes),
        Case::new("plain_replay_accepted", refusals::plain_replay_accepted),
        Case::new("deploy the accumulator (data2)", deploy::deploy_accumulator),
        Case::new("create the accumulator", acc_updates::create_accumulator),
        Case::new("lock cells by reference", acc_spends::lock_by_reference),
        Case::new("acc_forged_append", acc_updates::forged_append),
        Case::new(
            "spend by the leaf appended after locking",
            acc_spends::spend_by_appended_leaf,
        ),
        Case::new(
            "acc_stale_proof_after_append",
            acc_spends::stale_proof_after_append,
        ),
        Case::new("acc_spend_racing_append", acc_spends::spend_racing_append),
        Case::new("acc_forged_ancestry", acc_updates::forged_ancestry),
    ]);
    for verifier in Verifier::ALL {
        for mode in modes {
            let name = format!(
                "reference proof by reference, {} {}",
                verifier.name(),
                mode_name(mode)
            );
            let run =
                move |ctx: &mut Ctx| acc_spends::reference_proof_by_reference(ctx, verifier, mode);
            cases.push(Case::new(name, run));
        }
    }
    cases.extend([
        Case::new("acc_counterfeit_dep", acc_spends::counterfeit_dep),
        Case::new("hand the accumulator over", acc_updates::hand_over),
        Case::new(
            "spend after the hand-over",
            acc_spends::spend_after_hand_over,
        ),
        Case::new("acc_destroy", acc_updates::destroy_refused),
        Case::new(
            "the accumulator on chain",
            acc_updates::accumulator_on_chain,
        ),
        Case::new(
            "every committed transaction measured",
            rest::every_committed_measured,
        ),
    ]);
    cases
}

/// Runs the scenario on a fresh dev chain in `dir/chain`, with the binaries in `release`.
pub fn run(dir: &Path, release: &Path) -> Result<Report> {
    let started = Instant::now();
    let binaries = code::Binaries::read(release)?;
    std::fs::create_dir_all(dir).map_err(|e| file_error(dir.display(), e))?;
    let mut report = run_on_fresh_chain(&dir.join("chain"), |chain, rpc_url| {
        let payer = Key::from_hex(DEV_KEY).expect("dev key");
        let owner = Key::from_hex(DEV_KEY_2).expect("dev key");
        let mut ctx = Ctx::new(chain, (&payer, &owner), binaries, dir, rpc_url);
        for case in cases() {
            progress(&format!("case: {}", case.name));
            (case.run)(&mut ctx)?;
        }
        Ok(ctx.report)
    })?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_have_distinct_names() {
        let names: Vec<String> = cases().into_iter().map(|c| c.name).collect();
        let mut distinct = names.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
    }
}
