//! Every claim about every MMR of 1-7 leaves, run in CKB-VM on the release lock binaries,
//! in-process (one ckb-testtool context per verifier, the binary deployed once): every
//! non-empty set of proved leaves, each leaf claimed with its true value or with its
//! neighbour's (a leaf moved to another place). A claim is accepted iff every value is true;
//! every false one exits 9 in all three verifiers. This is the search the native cores run,
//! on the shipped RISC-V paths they cannot reach (the asm kernel, the C word path, the
//! contracts' entries); the runs per second are printed.

use ckb_testtool::ckb_types::{
    bytes::Bytes,
    core::{ScriptHashType, TransactionBuilder},
    packed::{CellInput, CellOutput, OutPoint},
    prelude::*,
};
use ckb_testtool::context::Context;
use tests::{exit_code, payload, Outcome, Verifier, MAX_CYCLES};
use tx_generator::{witness_args_with_lock, Workload};

struct Vm {
    verifier: Verifier,
    context: Context,
    code: OutPoint,
}

impl Vm {
    fn new(verifier: Verifier) -> Vm {
        let mut context = Context::default();
        let code = context.deploy_cell(verifier.binary());
        Vm {
            verifier,
            context,
            code,
        }
    }

    fn run(&mut self, args: &[u8], payload: &[u8]) -> Outcome {
        let lock = self
            .context
            .build_script_with_hash_type(&self.code, ScriptHashType::Data2, args.to_vec().into())
            .unwrap();
        let cell = self.context.create_cell(
            CellOutput::new_builder()
                .capacity(1_000_000_000_000u64)
                .lock(lock.clone())
                .build(),
            Bytes::new(),
        );
        let tx = TransactionBuilder::default()
            .input(CellInput::new_builder().previous_output(cell).build())
            .output(
                CellOutput::new_builder()
                    .capacity(900_000_000_000u64)
                    .lock(lock)
                    .build(),
            )
            .output_data(Bytes::new().pack())
            .witness(Bytes::from(witness_args_with_lock(payload)).pack())
            .build();
        let tx = self.context.complete_tx(tx);
        match self.context.verify_tx(&tx, MAX_CYCLES) {
            Ok(cycles) => Outcome::Accepted(cycles),
            Err(e) => Outcome::Rejected(exit_code(&e.to_string())),
        }
    }
}

fn leaves(n: usize) -> Vec<[u8; 32]> {
    (0..n)
        .map(|i| {
            let mut l = [0x3c; 32];
            l[0] = i as u8;
            l[1] = n as u8;
            l
        })
        .collect()
}

#[test]
fn every_claim_of_every_mmr_up_to_7_leaves_in_ckb_vm() {
    let mut vms: Vec<Vm> = [Verifier::Baseline, Verifier::Compiled, Verifier::C]
        .into_iter()
        .map(Vm::new)
        .collect();
    let start = std::time::Instant::now();
    let (mut runs, mut claims, mut accepted) = (0u64, 0u64, 0u64);
    for n in 1..=7usize {
        let all = leaves(n);
        for mask in 1u32..(1 << n) {
            let indexes: Vec<u64> = (0..n as u64).filter(|i| mask & (1 << i) != 0).collect();
            let honest = Workload::from_leaves(&all, &indexes).unwrap();
            let k = indexes.len();
            // Each proved leaf with its true value (bit clear) or its neighbour's (bit set);
            // a one-leaf MMR's "neighbour" is a value of no leaf.
            for lie in 0u32..(1 << k) {
                let mut w = honest.clone();
                for (j, (_, value)) in w.proved.iter_mut().enumerate() {
                    if lie & (1 << j) != 0 {
                        let i = indexes[j] as usize;
                        *value = if n == 1 { [0xee; 32] } else { all[(i + 1) % n] };
                    }
                }
                claims += 1;
                let args = w.lock_args();
                let codes: Vec<Outcome> = vms
                    .iter_mut()
                    .map(|vm| {
                        let p = payload(vm.verifier, &w);
                        vm.run(&args, &p)
                    })
                    .collect();
                runs += codes.len() as u64;
                for (vm, got) in vms.iter().zip(&codes) {
                    let ok = matches!(got, Outcome::Accepted(_));
                    assert_eq!(
                        ok,
                        lie == 0,
                        "{:?}, {n} leaves, proving {indexes:?}, lies {lie:b}: {got:?}",
                        vm.verifier
                    );
                    if lie != 0 {
                        assert_eq!(
                            got.code(),
                            Some(9),
                            "{:?}, {n} leaves, {indexes:?}",
                            vm.verifier
                        );
                    }
                }
                accepted += u64::from(lie == 0);
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{claims} claims ({accepted} true) x 3 verifiers = {runs} CKB-VM runs in {secs:.2} s, {:.0} runs/s",
        runs as f64 / secs
    );
    assert_eq!(claims, (1..=7).map(|n| 3u64.pow(n) - 1).sum::<u64>());
}
