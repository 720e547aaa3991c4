//! Strict molecule parse of `WitnessArgs` (a table of three `BytesOpt`: lock, input_type,
//! output_type), returning one field's bytes borrowed from the witness. The type script reads
//! `input_type` (update) or `output_type` (creation); the checks are those of
//! `WitnessArgsReader::verify(_, false)`, held against `ckb-types` in the contract's tests.

use crate::Error;

/// `WitnessArgs.input_type`.
pub const INPUT_TYPE: usize = 1;
/// `WitnessArgs.output_type`.
pub const OUTPUT_TYPE: usize = 2;

const FIELDS: usize = 3;
const HEADER: usize = 4 * (1 + FIELDS);

fn read_u32(bytes: &[u8], at: usize) -> Option<usize> {
    let word = bytes.get(at..)?.first_chunk::<4>()?;
    usize::try_from(u32::from_le_bytes(*word)).ok()
}

/// Field `field` (0 lock, 1 input_type, 2 output_type) of a `WitnessArgs`: 125 for anything
/// the molecule verifier rejects (total size, field count, offsets, a `Bytes` length that
/// disagrees with its field), 126 when the field is `None`.
pub fn field(witness: &[u8], field: usize) -> Result<&[u8], Error> {
    let bad = Error::WitnessEncoding;
    let total = read_u32(witness, 0).ok_or(bad)?;
    if total != witness.len() || total < HEADER || read_u32(witness, 4) != Some(HEADER) {
        return Err(bad);
    }
    let mut found = None;
    for i in 0..FIELDS {
        let start = read_u32(witness, 4 + 4 * i).ok_or(bad)?;
        let end = if i + 1 < FIELDS {
            read_u32(witness, 8 + 4 * i).ok_or(bad)?
        } else {
            total
        };
        // `get` rejects both unordered offsets and offsets past the end.
        let bytes = witness.get(start..end).ok_or(bad)?;
        let value = match bytes.split_first_chunk::<4>() {
            None if bytes.is_empty() => None,
            None => return Err(bad),
            Some((len, body)) => {
                if usize::try_from(u32::from_le_bytes(*len)).ok() != Some(body.len()) {
                    return Err(bad);
                }
                Some(body)
            }
        };
        if i == field {
            found = value;
        }
    }
    found.ok_or(Error::TypeFieldMissing)
}
