//! Strict molecule parse of `WitnessArgs` (a table of three `BytesOpt`: lock, input_type,
//! output_type), returning one field's bytes borrowed from the witness: the locks read `lock`,
//! the accumulator's type script `input_type` or `output_type`. Hand-written so contracts
//! avoid the generated molecule code; the tests hold it against `ckb-types`' generated reader.

use crate::LockError;

/// `WitnessArgs.lock`.
pub const LOCK: usize = 0;
/// `WitnessArgs.input_type`.
pub const INPUT_TYPE: usize = 1;
/// `WitnessArgs.output_type`.
pub const OUTPUT_TYPE: usize = 2;

const FIELDS: usize = 3;
const HEADER: usize = 4 * (1 + FIELDS);

fn read_u32(bytes: &[u8], at: usize) -> Option<usize> {
    let word: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(word) as usize)
}

/// Field `index` ([`LOCK`], [`INPUT_TYPE`], [`OUTPUT_TYPE`]) of a `WitnessArgs`, rejecting
/// anything `WitnessArgsReader::verify(_, false)` rejects (wrong total size, field count
/// other than 3, unordered offsets, a `Bytes` whose length header disagrees with its field).
/// Every field is checked whichever one is returned. The errors are the caller's own exit
/// codes, `encoding` for a malformed witness and `missing` for a `None` field, passed in
/// rather than mapped afterwards: a `map_err` reorders the branches of the inlined walk,
/// which costs the locks bytes.
#[inline(always)]
pub fn field<E: Copy>(witness: &[u8], index: usize, encoding: E, missing: E) -> Result<&[u8], E> {
    let bad = encoding;
    let total = read_u32(witness, 0).ok_or(bad)?;
    if total != witness.len() || total < HEADER {
        return Err(bad);
    }
    if read_u32(witness, 4).ok_or(bad)? != HEADER {
        return Err(bad);
    }
    let mut offsets = [0usize; FIELDS + 1];
    for (i, offset) in offsets.iter_mut().take(FIELDS).enumerate() {
        *offset = read_u32(witness, 4 + 4 * i).ok_or(bad)?;
    }
    offsets[FIELDS] = total;
    let mut found = None;
    for i in 0..FIELDS {
        let (start, end) = (offsets[i], offsets[i + 1]);
        // `get` rejects both unordered offsets and offsets past the end.
        let field = witness.get(start..end).ok_or(bad)?;
        // BytesOpt: empty means None, otherwise a Bytes: u32 length then exactly that many bytes.
        let value = if field.is_empty() {
            None
        } else {
            let len = read_u32(field, 0).ok_or(bad)?;
            if len != field.len() - 4 {
                return Err(bad);
            }
            Some(&field[4..])
        };
        if i == index {
            found = value;
        }
    }
    found.ok_or(missing)
}

/// Returns `WitnessArgs.lock`: `WitnessEncoding` for anything [`field`] rejects,
/// `LockFieldMissing` when it is `None`.
pub fn lock_field(witness: &[u8]) -> Result<&[u8], LockError> {
    field(
        witness,
        LOCK,
        LockError::WitnessEncoding,
        LockError::LockFieldMissing,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_opt(v: Option<&[u8]>) -> ([u8; 4], &[u8], bool) {
        match v {
            Some(b) => ((b.len() as u32).to_le_bytes(), b, true),
            None => ([0; 4], &[], false),
        }
    }

    extern crate std;
    use std::vec::Vec;

    fn witness_args(lock: Option<&[u8]>, input: Option<&[u8]>, output: Option<&[u8]>) -> Vec<u8> {
        let mut body = Vec::new();
        let mut offsets = Vec::new();
        for f in [lock, input, output] {
            offsets.push(16 + body.len());
            let (len, b, some) = bytes_opt(f);
            if some {
                body.extend_from_slice(&len);
                body.extend_from_slice(b);
            }
        }
        let mut out = Vec::new();
        out.extend_from_slice(&((16 + body.len()) as u32).to_le_bytes());
        for o in offsets {
            out.extend_from_slice(&(o as u32).to_le_bytes());
        }
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn parses_lock() {
        let w = witness_args(Some(b"abc"), None, Some(b"zz"));
        assert_eq!(lock_field(&w), Ok(&b"abc"[..]));
        let w = witness_args(Some(b""), None, None);
        assert_eq!(lock_field(&w), Ok(&b""[..]));
        let w = witness_args(None, Some(b"x"), None);
        assert_eq!(lock_field(&w), Err(LockError::LockFieldMissing));
    }

    #[test]
    fn reads_every_field() {
        #[derive(Debug, Clone, Copy, PartialEq)]
        enum E {
            Bad,
            Missing,
        }
        fn get(w: &[u8], i: usize) -> Result<&[u8], E> {
            field(w, i, E::Bad, E::Missing)
        }
        let w = witness_args(None, Some(b"in"), Some(b"out!"));
        assert_eq!(get(&w, LOCK), Err(E::Missing));
        assert_eq!(get(&w, INPUT_TYPE), Ok(&b"in"[..]));
        assert_eq!(get(&w, OUTPUT_TYPE), Ok(&b"out!"[..]));
        // A field that is not asked for is checked all the same.
        let mut bad_output = witness_args(Some(b"abc"), None, Some(b"zz"));
        // output_type's length header: 3 for its 2 bytes.
        let header = bad_output.len() - 6;
        bad_output[header] = 3;
        assert_eq!(get(&bad_output, LOCK), Err(E::Bad));
        assert_eq!(get(&bad_output, INPUT_TYPE), Err(E::Bad));
    }

    #[test]
    fn rejects_malformed() {
        let w = witness_args(Some(b"abcdef"), None, None);
        for cut in 0..w.len() {
            assert_eq!(
                lock_field(&w[..cut]),
                Err(LockError::WitnessEncoding),
                "cut {cut}"
            );
        }
        let mut longer = w.clone();
        longer.push(0);
        assert_eq!(lock_field(&longer), Err(LockError::WitnessEncoding));
        let mut bad_len = w.clone();
        bad_len[16] = 5;
        assert_eq!(lock_field(&bad_len), Err(LockError::WitnessEncoding));
        let mut bad_first = w.clone();
        bad_first[4] = 12;
        assert_eq!(lock_field(&bad_first), Err(LockError::WitnessEncoding));
        let mut unordered = w.clone();
        unordered[8] = 200;
        assert_eq!(lock_field(&unordered), Err(LockError::WitnessEncoding));
    }
}
