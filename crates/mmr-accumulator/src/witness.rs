//! The type script's `WitnessArgs` field: `input_type` (update) or `output_type` (creation),
//! read by `mmr_lock::witness::field` (the locks' walk, the checks of
//! `WitnessArgsReader::verify(_, false)`) with the accumulator's exit codes.

use crate::Error;
pub use mmr_lock::witness::{INPUT_TYPE, OUTPUT_TYPE};

/// Field `field` (0 lock, 1 input_type, 2 output_type) of a `WitnessArgs`: 125 for anything
/// the molecule verifier rejects (total size, field count, offsets, a `Bytes` length that
/// disagrees with its field), 126 when the field is `None`.
#[inline(always)]
pub fn field(witness: &[u8], field: usize) -> Result<&[u8], Error> {
    mmr_lock::witness::field(
        witness,
        field,
        Error::WitnessEncoding,
        Error::TypeFieldMissing,
    )
}
