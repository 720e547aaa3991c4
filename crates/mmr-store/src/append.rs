//! Appending: leaves hashed into their nodes in position order, the nodes written and
//! fsynced, then the commit record appended and fsynced.

use crate::format::encode_record;
use crate::merge::{bag, hash_leaves};
use crate::pipeline::{write_pipelined, CHUNK_LEAVES};
use crate::pos::leaves_of_or_zero;
use crate::{Commit, Error, Hash, Result, Store, NODE_LEN, RECORD_LEN};
use mmr_lock::mmr::{mmr_size_of, MAX_MMR_SIZE};
use std::os::unix::fs::FileExt;

impl Store {
    /// Appends `leaves` and commits: nodes written and fsynced, then the commit record
    /// appended and fsynced. Zero leaves change nothing. Returns the new state.
    pub fn append(&mut self, leaves: &[Hash]) -> Result<Commit> {
        self.append_expecting(leaves, None)
    }

    /// [`Store::append`], committed only when the new root equals `expected` (the root a
    /// chain holds, say); otherwise [`Error::RootMismatch`] and the store is unchanged.
    pub fn append_expecting(&mut self, leaves: &[Hash], expected: Option<&Hash>) -> Result<Commit> {
        self.writer()?;
        if leaves.is_empty() {
            return match expected {
                Some(root) if self.root.as_ref() != Some(root) => Err(Error::RootMismatch {
                    mmr_size: self.size,
                    expected: *root,
                    computed: self.root.unwrap_or([0; 32]),
                }),
                _ => self.state(),
            };
        }
        let new_leaves = self.leaf_count() + leaves.len() as u64;
        let new_size = mmr_size_of(new_leaves);
        if new_size > MAX_MMR_SIZE {
            return Err(Error::NotMmrSize(new_size));
        }
        let mut peaks = self.peaks.clone();
        match self.write_nodes(leaves, &mut peaks, new_size, expected) {
            Ok(commit) => {
                self.peaks = peaks;
                self.size = commit.mmr_size;
                self.root = Some(commit.root);
                self.records += 1;
                Ok(commit)
            }
            Err(e) => {
                // Best effort: the next open cuts the same bytes if this fails.
                let _ = self.nodes.set_len(self.size * NODE_LEN);
                let _ = self.commits.set_len(self.records * RECORD_LEN as u64);
                Err(e)
            }
        }
    }

    fn write_nodes(
        &mut self,
        leaves: &[Hash],
        peaks: &mut Vec<(u32, Hash)>,
        new_size: u64,
        expected: Option<&Hash>,
    ) -> Result<Commit> {
        let offset = self.size * NODE_LEN;
        let written = if leaves.len() <= CHUNK_LEAVES {
            let mut buf = Vec::with_capacity(64 * (leaves.len() + 64));
            hash_leaves(leaves, peaks, &mut buf);
            self.nodes
                .write_all_at(&buf, offset)
                .map_err(|e| Error::io("writing the node file", e))?;
            buf.len() as u64
        } else {
            write_pipelined(&self.nodes, offset, leaves, peaks, self.hashers)?
        };
        debug_assert_eq!(offset + written, new_size * NODE_LEN);
        let hashes: Vec<Hash> = peaks.iter().map(|p| p.1).collect();
        let root = bag(&hashes).ok_or(Error::Empty("no leaves"))?;
        if let Some(expected) = expected {
            if *expected != root {
                return Err(Error::RootMismatch {
                    mmr_size: new_size,
                    expected: *expected,
                    computed: root,
                });
            }
        }
        self.nodes
            .sync_data()
            .map_err(|e| Error::io("syncing the node file", e))?;
        self.commits
            .write_all_at(
                &encode_record(new_size, &root),
                self.records * RECORD_LEN as u64,
            )
            .map_err(|e| Error::io("writing the commit log", e))?;
        self.commits
            .sync_data()
            .map_err(|e| Error::io("syncing the commit log", e))?;
        Ok(Commit {
            mmr_size: new_size,
            leaf_count: leaves_of_or_zero(new_size),
            root,
        })
    }
}
