//! Leaves files: one 32-byte leaf per line as 64 hex digits (`0x` optional); blank lines and
//! everything after a `#` are ignored; the leaf index is the order in the file, from 0. The
//! same format `tx-generator prove --leaves` and `ckb-devnet acc` read.

use crate::{Error, Hash, Result};
use std::io::BufRead;

/// The leaf on line `line` (1-based, for the error), `None` for a blank or comment line,
/// [`Error::BadLeaf`] for anything else that is not 64 hex digits.
pub fn parse_leaf_line(text: &str, line: u64) -> Result<Option<Hash>> {
    let value = text.split('#').next().unwrap_or("").trim();
    if value.is_empty() {
        return Ok(None);
    }
    let digits = value.strip_prefix("0x").unwrap_or(value);
    let bad = |why: String| Error::BadLeaf { line, why };
    if let Some(c) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(bad(format!("{c:?} is not a hex digit")));
    }
    if digits.len() != 64 {
        return Err(bad(format!(
            "a leaf is 32 bytes (64 hex digits), not {} hex digits",
            digits.len()
        )));
    }
    let mut leaf = [0u8; 32];
    ::hex::decode_to_slice(digits, &mut leaf).map_err(|e| bad(e.to_string()))?;
    Ok(Some(leaf))
}

/// Leaf indexes from `"3,7,10-12"`: comma-separated indexes and inclusive ranges (at most
/// 1,000,001 indexes a range); empty text gives none, an empty item between commas is an
/// error. The `--index` syntax of `mmr-store`, `tx-generator` and `ckb-devnet`.
pub fn parse_indexes(s: &str) -> std::result::Result<Vec<u64>, String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("not a leaf index: {t:?}"))
    };
    let mut out = Vec::new();
    if s.trim().is_empty() {
        return Ok(out);
    }
    for part in s.split(',').map(str::trim) {
        if part.is_empty() {
            return Err(format!("an empty leaf index in {s:?}"));
        }
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b || b - a > 1_000_000 {
                    return Err(format!("bad range {part:?}"));
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    Ok(out)
}

/// Every leaf of a leaves file's text.
pub fn parse_leaves(text: &str) -> Result<Vec<Hash>> {
    LeafReader::new(text.as_bytes()).collect()
}

/// Streams the leaves of a leaves file, one line at a time (memory flat in the file's size).
pub struct LeafReader<R> {
    reader: R,
    line: u64,
    buf: String,
    done: bool,
}

impl<R: BufRead> LeafReader<R> {
    /// A reader over `reader`'s lines.
    pub fn new(reader: R) -> Self {
        LeafReader {
            reader,
            line: 0,
            buf: String::new(),
            done: false,
        }
    }
}

impl<R: BufRead> Iterator for LeafReader<R> {
    type Item = Result<Hash>;

    fn next(&mut self) -> Option<Result<Hash>> {
        while !self.done {
            self.buf.clear();
            self.line += 1;
            match self.reader.read_line(&mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => match parse_leaf_line(&self.buf, self.line) {
                    Ok(Some(leaf)) => return Some(Ok(leaf)),
                    Ok(None) => {}
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                },
                Err(e) => {
                    self.done = true;
                    return Some(Err(match e.kind() {
                        std::io::ErrorKind::InvalidData => Error::BadLeaf {
                            line: self.line,
                            why: "not UTF-8 text".into(),
                        },
                        _ => Error::io("reading leaves", e),
                    }));
                }
            }
        }
        None
    }
}

/// Reads every line of `reader` as leaves (see [`parse_leaf_line`]) and returns how many
/// there are, without keeping them: the first pass of an all-or-nothing append of a file.
pub fn count_leaves(reader: impl BufRead) -> Result<u64> {
    LeafReader::new(reader).try_fold(0, |n, leaf| leaf.map(|_| n + 1))
}

#[cfg(test)]
mod tests {
    use super::parse_indexes;

    #[test]
    fn indexes_and_ranges_and_nothing_else() {
        assert_eq!(parse_indexes("3, 7,10-12"), Ok(vec![3, 7, 10, 11, 12]));
        assert_eq!(parse_indexes(""), Ok(vec![]));
        assert_eq!(parse_indexes("  "), Ok(vec![]));
        for bad in [
            "1,,2",
            "1,",
            ",1",
            "1-",
            "-1",
            "2-1",
            "x",
            "1;2",
            "0-1000001",
        ] {
            assert!(parse_indexes(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_indexes("0-1000000").map(|v| v.len()), Ok(1_000_001));
    }
}
