//! The full rehash of a store against itself.

use crate::format::decode_record;
use crate::merge::bag;
use crate::pipeline::WRITE_BUFFER;
use crate::{files, Error, Hash, Result, Store, NODE_LEN, RECORD_LEN};
use std::fs::File;
use std::io::{BufReader, Read};

/// What [`Store::check`] went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckReport {
    /// Nodes rehashed (the whole committed node file).
    pub nodes: u64,
    /// Leaves among them.
    pub leaves: u64,
    /// Commit records whose root was recomputed and matched.
    pub commits: u64,
}

impl Store {
    /// Rehashes the whole store: every inner node against the merge of its children, and the
    /// root of every commit record against the bagging of the peaks at its size; every
    /// record's checksum too. [`Error::Corrupt`] names the first disagreement. One pass over
    /// the node file, about one merge per leaf, memory flat.
    pub fn check(&self) -> Result<CheckReport> {
        let open = |name: &str| {
            let path = self.dir.join(name);
            File::open(&path).map_err(|e| Error::io(format!("opening {}", path.display()), e))
        };
        let file = open(files::NODES)?;
        let mut nodes = BufReader::with_capacity(WRITE_BUFFER, file.take(self.size * NODE_LEN));
        let log = open(files::COMMITS)?;
        let mut log = BufReader::new(log.take(self.records * RECORD_LEN as u64));
        let mut read_node = |pos: u64| -> Result<Hash> {
            let mut out = [0u8; 32];
            nodes.read_exact(&mut out).map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => {
                    Error::Corrupt(format!("node {pos} is missing from the node file"))
                }
                _ => Error::io("reading the node file", e),
            })?;
            Ok(out)
        };
        let mut record_no = 0u64;
        let mut next_record = |log: &mut BufReader<_>| -> Result<Option<(u64, Hash)>> {
            if record_no == self.records {
                return Ok(None);
            }
            let mut buf = [0u8; RECORD_LEN];
            Read::read_exact(log, &mut buf).map_err(|e| Error::io("reading the commit log", e))?;
            record_no += 1;
            decode_record(&buf).map(Some).ok_or_else(|| {
                Error::Corrupt(format!(
                    "commit record {} fails its checksum",
                    record_no - 1
                ))
            })
        };
        let mut report = CheckReport {
            nodes: 0,
            leaves: 0,
            commits: 0,
        };
        let mut peaks: Vec<(u32, Hash)> = Vec::new();
        let mut pending = next_record(&mut log)?;
        let mut pos = 0u64;
        while pos < self.size {
            let mut node = read_node(pos)?;
            pos += 1;
            report.leaves += 1;
            let mut height = 0;
            while let Some(&(h, left)) = peaks.last() {
                if h != height {
                    break;
                }
                peaks.pop();
                let stored = read_node(pos)?;
                let computed = mmr_blake2b::merge(&left, &node);
                if stored != computed {
                    return Err(Error::Corrupt(format!(
                        "node {pos} is not the merge of its children"
                    )));
                }
                node = stored;
                pos += 1;
                height += 1;
            }
            peaks.push((height, node));
            while let Some((size, root)) = pending {
                if size > pos {
                    break;
                }
                if size < pos {
                    return Err(Error::Corrupt(format!(
                        "commit record {} (mmr_size {size}) is out of order",
                        record_no - 1
                    )));
                }
                let hashes: Vec<Hash> = peaks.iter().map(|p| p.1).collect();
                if bag(&hashes) != Some(root) {
                    return Err(Error::Corrupt(format!(
                        "the nodes give another root than the one recorded at mmr_size {size}"
                    )));
                }
                report.commits += 1;
                pending = next_record(&mut log)?;
            }
        }
        if let Some((size, _)) = pending {
            return Err(Error::Corrupt(format!(
                "commit record {} (mmr_size {size}) is beyond the node file",
                record_no - 1
            )));
        }
        report.nodes = pos;
        Ok(report)
    }
}
