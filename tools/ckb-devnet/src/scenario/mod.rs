//! `./build.sh devnet`: on a fresh dev chain, deploy the three verifiers, lock and spend the
//! reference seed's MMR with each (plain and owner mode, data2 and type id, across a type id
//! upgrade), send the refusals the lock must produce, run the accumulator (create, append,
//! extend, hand over, spend by reference, and its refusals), and compare the node's cycles
//! with ckb-debugger's on every committed transaction, rebuilt from the node.
//!
//! The scenario is a list of named cases ([`cases`]), each a small type whose doc says what
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
pub fn cases() -> Vec<Box<dyn Case>> {
    let modes = [Mode::Plain, Mode::Owner];
    let mut cases: Vec<Box<dyn Case>> = Vec::new();
    for v in Verifier::ALL {
        cases.push(Box::new(deploy::DeployData2(v)));
    }
    cases.push(Box::new(deploy::DeployTypeId));
    for verifier in Verifier::ALL {
        for mode in modes {
            cases.push(Box::new(spends::LockAndSpend { verifier, mode }));
        }
    }
    cases.push(Box::new(spends::SpendByTypeId));
    cases.push(Box::new(deploy::Upgrade));
    cases.push(Box::new(spends::SpendAcrossUpgrade));
    cases.push(Box::new(refusals::FlippedLeafByte));
    cases.push(Box::new(refusals::ProofForAnotherMmr));
    cases.push(Box::new(refusals::TruncatedWitness));
    cases.push(Box::new(refusals::OwnerInputMissing));
    cases.push(Box::new(refusals::OwnerReplayOtherOutputs));
    cases.push(Box::new(refusals::HashTypeData));
    cases.push(Box::new(refusals::Args39Bytes));
    cases.push(Box::new(refusals::PlainReplayAccepted));
    cases.push(Box::new(deploy::DeployAccumulator));
    cases.push(Box::new(acc_updates::CreateAccumulator));
    cases.push(Box::new(acc_spends::LockByReference));
    cases.push(Box::new(acc_updates::ForgedAppend));
    cases.push(Box::new(acc_spends::SpendByAppendedLeaf));
    cases.push(Box::new(acc_spends::StaleProofAfterAppend));
    cases.push(Box::new(acc_spends::SpendRacingAppend));
    cases.push(Box::new(acc_updates::ForgedAncestry));
    for verifier in Verifier::ALL {
        for mode in modes {
            cases.push(Box::new(acc_spends::ReferenceProofByReference {
                verifier,
                mode,
            }));
        }
    }
    cases.push(Box::new(acc_spends::CounterfeitDep));
    cases.push(Box::new(acc_updates::HandOver));
    cases.push(Box::new(acc_spends::SpendAfterHandOver));
    cases.push(Box::new(acc_updates::DestroyRefused));
    cases.push(Box::new(acc_updates::AccumulatorOnChain));
    cases.push(Box::new(rest::EveryCommittedMeasured));
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
            progress(&format!("case: {}", case.name()));
            case.run(&mut ctx)?;
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
        let names: Vec<String> = cases().iter().map(|c| c.name()).collect();
        let mut distinct = names.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
    }
}
