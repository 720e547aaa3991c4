//! The type script's two entries: a creation (no group input) and an update (one group
//! input, one group output), each checked against the output's data.

use crate::*;

/// The type script's creation (no group input): `payload` is `WitnessArgs.output_type` of the
/// group's output, `output` its data. `CREATE` computes the commitment from the leaves;
/// `IMPORT` takes the output's (root, size) as given (only the size is checked).
pub fn verify_creation<M: Merge>(
    ws: &mut Workspace,
    payload: &[u8],
    output: &[u8],
) -> Result<(), Error> {
    match payload.split_first() {
        Some((&tag::CREATE, body)) => {
            let (_new_root, _new_size) = split_data(output)?;
            #[cfg(feature = "word-compare")]
            {
                let (words, new_leaves) = create_root::<M>(ws, body)?;
                output_matches::<M>(words, new_leaves, _new_root, _new_size)
            }
            #[cfg(not(feature = "word-compare"))]
            {
                let computed = create_with::<M>(ws, body)?;
                output_is::<M>(output, &computed)
            }
        }
        Some((&tag::IMPORT, body)) => {
            if !body.is_empty() {
                return Err(Error::TransitionPayload);
            }
            let (_, size) = split_data(output)?;
            leaf_count(size).ok_or(Error::NewSizeInvalid)?;
            Ok(())
        }
        _ => Err(Error::UnknownTransition),
    }
}

/// The type script's update (one group input, one group output): `payload` is
/// `WitnessArgs.input_type` of the group's input, `input`/`output` the cells' data.
pub fn verify_update<M: Merge>(
    ws: &mut Workspace,
    payload: &[u8],
    input: &[u8],
    output: &[u8],
) -> Result<(), Error> {
    let (old_root, old_size) = split_data(input)?;
    let (new_root, new_size) = split_data(output)?;
    match payload.split_first() {
        Some((&tag::APPEND, body)) => {
            #[cfg(feature = "word-compare")]
            {
                let (words, new_leaves) = append_root::<M>(ws, old_root, old_size, body)?;
                output_matches::<M>(words, new_leaves, new_root, new_size)
            }
            #[cfg(not(feature = "word-compare"))]
            {
                let computed = append_with::<M>(ws, old_root, old_size, body)?;
                output_is::<M>(output, &computed)
            }
        }
        Some((&tag::EXTEND, proof)) => {
            verify_ancestry::<M>(old_root, old_size, new_root, new_size, proof)
        }
        Some((&tag::KEEP, body)) => {
            if !body.is_empty() {
                return Err(Error::TransitionPayload);
            }
            leaf_count(old_size).ok_or(Error::OldSizeInvalid)?;
            // Both are exactly 40 bytes (`split_data`): equal roots and sizes are equal data.
            #[cfg(feature = "word-compare")]
            let same = old_size == new_size && words_eq::<M>(M::load_words(old_root), new_root);
            #[cfg(not(feature = "word-compare"))]
            let same = input == output;
            if !same {
                return Err(Error::OutputMismatch);
            }
            Ok(())
        }
        _ => Err(Error::UnknownTransition),
    }
}
