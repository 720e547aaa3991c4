//! The ring's spender (docs/concurrency-design.md section 3, "The clients"): the newest
//! committed snapshot as the dep, a rebuild whenever an append consumed it, no retry count.

use super::find;
use crate::accumulator::Accumulator;
use crate::chain::{progress, Chain};
use crate::error::{Error, Result};
use crate::rpc::{CallError, POOL_DUPLICATED};
use crate::wallet::Built;
use crate::{hex, out_point_text};
use ckb_types::{packed, prelude::*, H256};
use std::time::{Duration, Instant};

/// True when `message` (the node's) names `op` as a dead or unknown cell: a snapshot an append
/// consumed.
pub fn names_consumed(message: &str, op: &packed::OutPoint) -> bool {
    let named = format!("OutPoint({})", hex(op.as_slice()));
    crate::accumulator::names_dead_cell(message) && message.contains(&named)
}

/// The one line a spender prints when its snapshot was consumed.
pub fn consumed_line(op: &packed::OutPoint, k: u8) -> String {
    format!(
        "snapshot {} consumed: older than the ring's window of {} appends; rebuilding",
        out_point_text(op),
        k.saturating_sub(1)
    )
}

/// The meaning of a lock code that only a client's own mistake produces against a ring:
/// rebuilding would not help.
pub fn client_bug(code: i8) -> Option<&'static str> {
    Some(match code {
        9 => {
            "the proof's root is not the snapshot's (9 RootMismatch): proved against another state"
        }
        90 => "no cell dep carries the ring's type hash (90 AccumulatorNotFound)",
        91 => "two ring cells among the cell deps (91 AccumulatorAmbiguous)",
        92 => "the cell dep is the ring's head, not a snapshot (92 AccumulatorDataLength)",
        _ => return None,
    })
}

/// A spend the ring's snapshot took to a commit.
pub struct Spent {
    pub hash: H256,
    pub built: Built,
    /// The snapshot it took as its dep and proved against.
    pub snapshot: Accumulator,
    /// Submissions after the first.
    pub rebuilds: usize,
}

/// The spender (docs/concurrency-design.md section 3, "The clients"): reads the ring, takes the
/// committed snapshot with the largest mmr_size, asks `build` for the spend proving against it
/// (the snapshot as its cell dep), sends it and waits for its commit. Refused with -301 naming
/// the snapshot (an append consumed it), or accepted and later rejected for it: prints
/// [`consumed_line`] and starts again. No retry count: a refusal costs nothing on chain, so it
/// rebuilds until `limit` has passed ([`Error::Timeout`]). Codes 9, 90, 91, 92 are the
/// client's own bug: [`Error::Refused`] naming the meaning, no retry.
pub fn spend(
    chain: &Chain,
    code_hash: [u8; 32],
    type_id: [u8; 32],
    k: u8,
    limit: Duration,
    mut build: impl FnMut(&Accumulator) -> Result<Built>,
) -> Result<Spent> {
    let start = Instant::now();
    let mut rebuilds = 0;
    let mut refused: Option<packed::OutPoint> = None;
    loop {
        if start.elapsed() > limit {
            return Err(Error::Timeout(format!(
                "no spend committed within {} s ({rebuilds} rebuilds)",
                limit.as_secs()
            )));
        }
        chain.wait_indexer()?;
        let ring = find(chain, code_hash, type_id, k)?;
        let snapshot = ring.newest().clone();
        if refused.as_ref().map(|r| r.as_slice()) == Some(snapshot.cell.out_point.as_slice()) {
            // The indexer still shows the snapshot the node called consumed: wait for the block.
            chain.next_block()?;
            continue;
        }
        let built = build(&snapshot)?;
        let hash = match chain.rpc.send_transaction(&built.tx) {
            Ok(hash) => hash,
            Err(CallError::Node(e)) if e.code == POOL_DUPLICATED => {
                built.tx.calc_tx_hash().unpack()
            }
            Err(CallError::Node(e)) if names_consumed(&e.message, &snapshot.cell.out_point) => {
                progress(&consumed_line(&snapshot.cell.out_point, k));
                refused = Some(snapshot.cell.out_point.clone());
                rebuilds += 1;
                continue;
            }
            Err(CallError::Node(e)) => {
                if let Some((code, meaning)) =
                    e.script_code().and_then(|c| Some((c, client_bug(c)?)))
                {
                    return Err(Error::Refused {
                        code: Some(code),
                        message: format!("{meaning}; not retried"),
                    });
                }
                return Err(e.into_error("send_transaction"));
            }
            Err(CallError::Other(e)) => return Err(e),
        };
        progress(&format!(
            "sent {hash:#x} against snapshot {} (mmr_size {}), waiting for it to be committed",
            out_point_text(&snapshot.cell.out_point),
            snapshot.commitment.mmr_size
        ));
        loop {
            let status = chain.rpc.transaction(&hash)?;
            match status.as_ref().map(|s| s.status.as_str()) {
                Some("committed") => {
                    chain.wait_indexer()?;
                    return Ok(Spent {
                        hash,
                        built,
                        snapshot,
                        rebuilds,
                    });
                }
                Some("rejected") => {
                    let reason = status.and_then(|s| s.reason).unwrap_or_default();
                    if !names_consumed(&reason, &snapshot.cell.out_point) {
                        let message = format!("{hash:#x} was rejected: {reason}");
                        return Err(Error::rpc("get_transaction", message));
                    }
                    progress(&consumed_line(&snapshot.cell.out_point, k));
                    refused = Some(snapshot.cell.out_point.clone());
                    rebuilds += 1;
                    break;
                }
                _ => {}
            }
            if start.elapsed() > limit {
                return Err(Error::Timeout(format!(
                    "{hash:#x} not committed within {} s",
                    limit.as_secs()
                )));
            }
            chain.next_block()?;
        }
    }
}
