//! Strict molecule parse of `WitnessArgs` (a table of three `BytesOpt`), returning the
//! `lock` field's bytes as a borrowed slice. Hand-written so contracts avoid the generated
//! molecule code; the tests hold it against `ckb-types`' generated reader.

use crate::LockError;

fn read_u32(bytes: &[u8], at: usize) -> Option<usize> {
    let word: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(word) as usize)
}

/// Returns `WitnessArgs.lock`, rejecting anything `WitnessArgsReader::verify(_, false)`
/// rejects (wrong total size, field count other than 3, unordered offsets, a `Bytes` whose
/// length header disagrees with its field).
pub fn lock_field(witness: &[u8]) -> Result<&[u8], LockError> {
    const FIELDS: usize = 3;
    const HEADER: usize = 4 * (1 + FIELDS);
    let bad = LockError::WitnessEncoding;
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
    let mut lock = None;
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
        if i == 0 {
            lock = value;
        }
    }
    lock.ok_or(LockError::LockFieldMissing)
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
