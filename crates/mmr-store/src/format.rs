//! The on-disk format: the `meta` identity block and the commit records, each with a
//! checksum, and the names of a store's files.

use crate::{Error, Hash, Result};
use mmr_lock::mmr::leaf_count;
use std::path::Path;

/// First 8 bytes of `meta`.
pub const MAGIC: [u8; 8] = *b"CKBMMRST";
/// The on-disk format this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes of the `meta` file.
pub const META_LEN: usize = 64;
/// Bytes of one commit record: mmr_size (8), root (32), check (8).
pub const RECORD_LEN: usize = 48;
/// Bytes of one node in the node file.
pub const NODE_LEN: u64 = 32;

/// File names inside a store directory.
pub mod files {
    /// Magic, version, accumulator identity.
    pub const META: &str = "meta";
    /// Node hashes by position.
    pub const NODES: &str = "nodes";
    /// The commit log.
    pub const COMMITS: &str = "commits";
    /// The writer's lock file.
    pub const LOCK: &str = "lock";
    /// The TypeScript kit's writer lock (Node has no flock): "PID HOST", created exclusively.
    pub const KIT_LOCK: &str = "lock.pid";
}

/// The identity block (`meta`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    pub(crate) accumulator: Option<Hash>,
}

fn check8(bytes: &[u8]) -> [u8; 8] {
    mmr_blake2b::ckb_blake2b_256(bytes)[..8].try_into().unwrap()
}

impl Meta {
    pub(crate) fn encode(&self) -> [u8; META_LEN] {
        let mut out = [0u8; META_LEN];
        out[..8].copy_from_slice(&MAGIC);
        out[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        let flags: u32 = self.accumulator.is_some() as u32;
        out[12..16].copy_from_slice(&flags.to_le_bytes());
        if let Some(id) = &self.accumulator {
            out[16..48].copy_from_slice(id);
        }
        let check = check8(&out[..56]);
        out[56..].copy_from_slice(&check);
        out
    }

    pub(crate) fn decode(dir: &Path, bytes: &[u8]) -> Result<Meta> {
        let not = |why: String| Error::NotAStore {
            dir: dir.to_path_buf(),
            why,
        };
        if bytes.len() < 12 || bytes[..8] != MAGIC {
            return Err(not("meta has no store magic".into()));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or([0; 4]));
        if version != FORMAT_VERSION {
            return Err(not(format!(
                "format version {version}, this build reads {FORMAT_VERSION}"
            )));
        }
        if bytes.len() != META_LEN || check8(&bytes[..56]) != bytes[56..] {
            return Err(Error::Corrupt("meta checksum mismatch".into()));
        }
        let flags = u32::from_le_bytes(bytes[12..16].try_into().unwrap_or([0; 4]));
        match flags {
            0 => Ok(Meta { accumulator: None }),
            1 => Ok(Meta {
                accumulator: Some(bytes[16..48].try_into().unwrap()),
            }),
            _ => Err(Error::Corrupt(format!("meta flags {flags:#x}"))),
        }
    }
}

pub(crate) fn encode_record(mmr_size: u64, root: &Hash) -> [u8; RECORD_LEN] {
    let mut out = [0u8; RECORD_LEN];
    out[..8].copy_from_slice(&mmr_size.to_le_bytes());
    out[8..40].copy_from_slice(root);
    let check = check8(&out[..40]);
    out[40..].copy_from_slice(&check);
    out
}

/// A record's (size, root), or `None` when its checksum fails or its size is not an MMR size.
pub(crate) fn decode_record(bytes: &[u8; RECORD_LEN]) -> Option<(u64, Hash)> {
    if check8(&bytes[..40]) != bytes[40..] {
        return None;
    }
    let size = u64::from_le_bytes(bytes[..8].try_into().ok()?);
    leaf_count(size)?;
    Some((size, bytes[8..40].try_into().ok()?))
}
