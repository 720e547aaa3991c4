//! Differential fuzz target: the input decodes to an honest proof of a small MMR and a list
//! of mutations (assurance::diff); the baseline, compiled Rust and C cores and the
//! reference model run on the result. Any disagreement, accepted forgery, undocumented code
//! or panic is a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(finding) = assurance::diff::run_one(data) {
        panic!("{finding}");
    }
});
