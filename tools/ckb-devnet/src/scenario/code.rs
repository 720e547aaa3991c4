//! The code the scenario deploys, by name: the three verifiers, their binaries and the
//! accumulator's, and what each deployment case left on chain.

use ckb_mmr_sdk::deploy::{self, Deployment};
use ckb_mmr_sdk::error::{Error, Result};
use ckb_mmr_sdk::Format;
use std::path::Path;

/// A verifier of the MMR lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verifier {
    Baseline,
    C,
    Compiled,
}

impl Verifier {
    /// In the order the scenario deploys them and its tables list them.
    pub const ALL: [Verifier; 3] = [Verifier::Baseline, Verifier::C, Verifier::Compiled];

    /// The name the report and the docs' tables use.
    pub fn name(self) -> &'static str {
        match self {
            Verifier::Baseline => "baseline",
            Verifier::C => "c",
            Verifier::Compiled => "compiled",
        }
    }

    /// Its binary in the release directory.
    pub fn file(self) -> String {
        format!("{}-verifier", self.name())
    }

    /// The payload format it reads (the C and compiled Rust verifiers share one).
    pub fn format(self) -> Format {
        match self {
            Verifier::Baseline => Format::Baseline,
            Verifier::C | Verifier::Compiled => Format::Compiled,
        }
    }
}

/// The accumulator's type script in the release directory.
pub const ACCUMULATOR: &str = "accumulator-type";

/// The release binaries, read before the node starts so that a missing one costs no chain.
pub struct Binaries {
    /// The verifiers', in [`Verifier::ALL`]'s order.
    verifiers: [Vec<u8>; 3],
    pub accumulator: Vec<u8>,
}

impl Binaries {
    pub fn read(release: &Path) -> Result<Binaries> {
        let read = |file: &str| deploy::read_binary(&release.join(file).display().to_string());
        let [baseline, c, compiled] = Verifier::ALL.map(|v| v.file());
        Ok(Binaries {
            verifiers: [read(&baseline)?, read(&c)?, read(&compiled)?],
            accumulator: read(ACCUMULATOR)?,
        })
    }

    pub fn verifier(&self, v: Verifier) -> &[u8] {
        &self.verifiers[v as usize]
    }
}

/// What the deployment cases put on chain; a later case asking for one not yet there is a
/// scenario out of order.
#[derive(Default)]
pub struct Deployed {
    /// The verifiers' data2 deployments, in [`Verifier::ALL`]'s order.
    verifiers: [Option<Deployment>; 3],
    /// The compiled verifier under a type id.
    pub type_id: Option<Deployment>,
    /// The same type id after its upgrade to the C verifier.
    pub upgraded: Option<Deployment>,
    /// The accumulator's type script (data2).
    pub accumulator: Option<Deployment>,
}

impl Deployed {
    pub fn set_data2(&mut self, v: Verifier, d: Deployment) {
        self.verifiers[v as usize] = Some(d);
    }

    /// The verifier's data2 deployment.
    pub fn data2(&self, v: Verifier) -> Result<&Deployment> {
        needed(&self.verifiers[v as usize], v.name())
    }
}

/// `d`, or the error of a case that ran before the one deploying it.
pub fn needed<'d>(d: &'d Option<Deployment>, what: &str) -> Result<&'d Deployment> {
    d.as_ref().ok_or_else(|| {
        Error::Scenario(format!(
            "{what} is not deployed yet: the cases run out of order"
        ))
    })
}
