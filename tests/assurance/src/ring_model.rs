//! The accumulator ring (`docs/concurrency-design.md` section 3): a host model of its type
//! script's rules, written from that page alone and sharing no code with
//! `crates/mmr-accumulator`'s ring core. Rule 6 (the payload) is today's accumulator, taken
//! from this crate's own accumulator model ([`crate::accumulator`]) where it defines the
//! transition (`CREATE`, `APPEND`, `EXTEND`) and written again here for `IMPORT` and `KEEP`
//! from `docs/accumulator.md`.
//!
//! Out of the model: the type id (rule 2) and the witness's loading (123-126), which the
//! contract decides with syscalls; the search stands in for the type id (a ring is created
//! once) and always supplies a payload.

use crate::accumulator::{model_creation_code, model_leaf_count, model_update_code};

/// Ring codes (negative: the accumulator's positive range is full).
pub const RING_ARGS: i8 = -100;
pub const RING_SHAPE: i8 = -101;
pub const RING_ROLES: i8 = -102;
pub const RING_NOT_OLDEST: i8 = -103;
pub const SNAPSHOT_MISMATCH: i8 = -104;
pub const RING_SIZES_MISMATCH: i8 = -105;
pub const RING_LOCK_MISMATCH: i8 = -106;

/// Today's codes the ring reuses.
pub const ARGS_LENGTH: i8 = 118;
pub const DESTROY_REFUSED: i8 = 122;
pub const UNKNOWN_TRANSITION: i8 = 114;
pub const TRANSITION_PAYLOAD: i8 = 115;
pub const NEW_SIZE_INVALID: i8 = 101;
pub const OLD_SIZE_INVALID: i8 = 100;
pub const OUTPUT_MISMATCH: i8 = 117;

/// The payload tags of `docs/accumulator.md`, written again.
pub const CREATE: u8 = 1;
pub const IMPORT: u8 = 2;
pub const APPEND: u8 = 3;
pub const EXTEND: u8 = 4;
pub const KEEP: u8 = 5;

/// Every code the ring's type script may return (0 accepted): today's 100..=127 and the
/// ring's -100..=-106.
pub fn documented(code: i8) -> bool {
    matches!(code, 0 | 100..=127 | -106..=-100)
}

/// One cell of the group: its data and its lock's hash.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cell {
    pub data: Vec<u8>,
    pub lock: [u8; 32],
}

/// A snapshot's data length.
pub const SNAPSHOT: usize = 40;

/// The head's data length: the state and K - 1 older sizes.
pub fn head_len(k: u8) -> usize {
    40 + 8 * (k as usize - 1)
}

/// Rule 0: `Ok(None)` for today's 32-byte args, `Ok(Some(K))` for a ring, else the code.
pub fn model_args(args: &[u8]) -> Result<Option<u8>, i8> {
    match args.len() {
        32 => Ok(None),
        33 if (2..=32).contains(&args[32]) => Ok(Some(args[32])),
        33 => Err(RING_ARGS),
        _ => Err(ARGS_LENGTH),
    }
}

/// The transition a shape allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Creation,
    Step,
    Keep,
}

/// Rule 1 from the group's counts.
pub fn model_shape(k: u8, inputs: usize, outputs: usize) -> Result<Kind, i8> {
    let whole = k as usize + 1;
    match (inputs, outputs) {
        (0, o) if o == whole => Ok(Kind::Creation),
        (2, 2) => Ok(Kind::Step),
        (i, o) if i == whole && o == whole => Ok(Kind::Keep),
        (i, 0) if i >= 1 => Err(DESTROY_REFUSED),
        _ => Err(RING_SHAPE),
    }
}

/// Rule 3 on one side: the head's index (`None` on an empty side).
fn head_of(k: u8, cells: &[Cell]) -> Result<Option<usize>, i8> {
    let heads: Vec<usize> = (0..cells.len())
        .filter(|&i| cells[i].data.len() == head_len(k))
        .collect();
    if cells
        .iter()
        .any(|c| c.data.len() != SNAPSHOT && c.data.len() != head_len(k))
    {
        return Err(RING_ROLES);
    }
    match (cells.is_empty(), heads.as_slice()) {
        (true, _) => Ok(None),
        (false, [h]) => Ok(Some(*h)),
        _ => Err(RING_ROLES),
    }
}

fn size_at(data: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(data[at..at + 8].try_into().unwrap())
}

/// The head's `older` list.
fn older(head: &Cell) -> Vec<u64> {
    (40..head.data.len())
        .step_by(8)
        .map(|at| size_at(&head.data, at))
        .collect()
}

/// Rule 4 for each shape.
fn ring_rules(
    kind: Kind,
    k: u8,
    inputs: &[Cell],
    head_in: Option<usize>,
    outputs: &[Cell],
    head_out: usize,
) -> Result<(), i8> {
    let head = &outputs[head_out];
    match kind {
        Kind::Creation => {
            let size = size_at(&head.data, 32);
            if older(head) != vec![size; k as usize - 1] {
                return Err(RING_SIZES_MISMATCH);
            }
            if outputs
                .iter()
                .enumerate()
                .any(|(i, c)| i != head_out && c.data[..] != head.data[..40])
            {
                return Err(SNAPSHOT_MISMATCH);
            }
            if outputs.iter().any(|c| c.lock != head.lock) {
                return Err(RING_LOCK_MISMATCH);
            }
        }
        Kind::Step => {
            let hi = &inputs[head_in.unwrap()];
            let consumed = &inputs[1 - head_in.unwrap()];
            let snap_out = &outputs[1 - head_out];
            let old = older(hi);
            if size_at(&consumed.data, 32) != old[0] {
                return Err(RING_NOT_OLDEST);
            }
            let mut shifted = old[1..].to_vec();
            shifted.push(size_at(&hi.data, 32));
            if older(head) != shifted {
                return Err(RING_SIZES_MISMATCH);
            }
            if snap_out.data[..] != head.data[..40] {
                return Err(SNAPSHOT_MISMATCH);
            }
            if head.lock != hi.lock || snap_out.lock != head.lock {
                return Err(RING_LOCK_MISMATCH);
            }
        }
        Kind::Keep => {
            if inputs.iter().zip(outputs).any(|(i, o)| i.data != o.data) {
                return Err(SNAPSHOT_MISMATCH);
            }
            if outputs.iter().any(|c| c.lock != head.lock) {
                return Err(RING_LOCK_MISMATCH);
            }
        }
    }
    Ok(())
}

/// Rule 5's fit: the tag names a transition of this shape.
fn tag_fits(kind: Kind, payload: &[u8]) -> Result<(), i8> {
    let tag = *payload.first().ok_or(UNKNOWN_TRANSITION)?;
    let fits = match tag {
        CREATE | IMPORT => kind == Kind::Creation,
        APPEND | EXTEND => kind == Kind::Step,
        KEEP => kind == Kind::Keep,
        _ => return Err(UNKNOWN_TRANSITION),
    };
    if fits {
        Ok(())
    } else {
        Err(RING_SHAPE)
    }
}

/// Rule 6: today's transition, old = the head input's state, new = the head output's.
fn payload_code(kind: Kind, payload: &[u8], old: Option<&[u8]>, new: &[u8]) -> i8 {
    let new: &[u8; 40] = new[..40].try_into().unwrap();
    let size = |d: &[u8; 40]| u64::from_le_bytes(d[32..].try_into().unwrap());
    match kind {
        Kind::Creation => match payload[0] {
            IMPORT if payload.len() > 1 => TRANSITION_PAYLOAD,
            IMPORT if model_leaf_count(size(new)).is_none() => NEW_SIZE_INVALID,
            IMPORT => 0,
            _ => model_creation_code(payload, new).expect("CREATE"),
        },
        Kind::Step => {
            let old: &[u8; 40] = old.unwrap()[..40].try_into().unwrap();
            model_update_code(payload, old, new).expect("APPEND or EXTEND")
        }
        Kind::Keep => {
            let old: &[u8; 40] = old.unwrap()[..40].try_into().unwrap();
            if payload.len() > 1 {
                TRANSITION_PAYLOAD
            } else if model_leaf_count(size(old)).is_none() {
                OLD_SIZE_INVALID
            } else if old != new {
                OUTPUT_MISMATCH
            } else {
                0
            }
        }
    }
}

/// The ring's verdict for a group under 33-byte args of this `k` (0 accepted, else the code):
/// rules 1, 3, 4, the tag's fit of rule 5, and 6, first failure deciding.
pub fn model_ring(k: u8, inputs: &[Cell], outputs: &[Cell], payload: &[u8]) -> i8 {
    let run = || -> Result<(), i8> {
        let kind = model_shape(k, inputs.len(), outputs.len())?;
        let head_in = head_of(k, inputs)?;
        let head_out = head_of(k, outputs)?.expect("every allowed shape has outputs");
        ring_rules(kind, k, inputs, head_in, outputs, head_out)?;
        tag_fits(kind, payload)?;
        let old = head_in.map(|h| &inputs[h].data[..]);
        match payload_code(kind, payload, old, &outputs[head_out].data) {
            0 => Ok(()),
            c => Err(c),
        }
    };
    run().map_or_else(|c| c, |()| 0)
}

/// The whole script as the model sees it, from the args on: `None` for 32-byte args (today's
/// accumulator, not a ring).
pub fn model_script(args: &[u8], inputs: &[Cell], outputs: &[Cell], payload: &[u8]) -> Option<i8> {
    match model_args(args) {
        Ok(None) => None,
        Ok(Some(k)) => Some(model_ring(k, inputs, outputs, payload)),
        Err(c) => Some(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accumulator::{honest_append, model_size, prefix_root};
    use crate::mmr::Mmr;

    const A: [u8; 32] = [0xaa; 32];
    const B: [u8; 32] = [0xbb; 32];

    fn state(h: &Mmr, n: u64) -> Vec<u8> {
        let mut d = prefix_root(h, n).to_vec();
        d.extend_from_slice(&model_size(n).to_le_bytes());
        d
    }

    fn head(s: &[u8], older: &[u64]) -> Cell {
        let mut data = s.to_vec();
        for o in older {
            data.extend_from_slice(&o.to_le_bytes());
        }
        Cell { data, lock: A }
    }

    fn snap(s: &[u8]) -> Cell {
        Cell {
            data: s.to_vec(),
            lock: A,
        }
    }

    #[test]
    fn args_and_shapes() {
        assert_eq!(model_args(&[0; 32]), Ok(None));
        assert_eq!(model_args(&[2; 33]), Ok(Some(2)));
        assert_eq!(model_args(&[32; 33]), Ok(Some(32)));
        assert_eq!(model_args(&[1; 33]), Err(RING_ARGS));
        assert_eq!(model_args(&[33; 33]), Err(RING_ARGS));
        assert_eq!(model_args(&[2; 34]), Err(ARGS_LENGTH));
        assert_eq!(model_shape(3, 0, 4), Ok(Kind::Creation));
        assert_eq!(model_shape(3, 2, 2), Ok(Kind::Step));
        assert_eq!(model_shape(3, 4, 4), Ok(Kind::Keep));
        assert_eq!(model_shape(3, 4, 0), Err(DESTROY_REFUSED));
        assert_eq!(model_shape(3, 1, 2), Err(RING_SHAPE));
        assert_eq!(model_shape(3, 0, 3), Err(RING_SHAPE));
        assert_eq!(head_len(2), 48);
        assert_eq!(head_len(32), 288);
    }

    #[test]
    fn create_then_append_then_keep() {
        let h = Mmr::with_leaf_count(4, 7);
        let (s1, s3) = (state(&h, 1), state(&h, 3));
        let (z1, z3) = (model_size(1), model_size(3));
        // Creation of one leaf, K = 3.
        let mut create = vec![CREATE];
        create.extend_from_slice(&1u32.to_le_bytes());
        create.extend_from_slice(&h.leaves[0]);
        let ring = vec![head(&s1, &[z1, z1]), snap(&s1), snap(&s1), snap(&s1)];
        assert_eq!(model_ring(3, &[], &ring, &create), 0);
        let mut bad = ring.clone();
        bad[0] = head(&s1, &[z1, z3]);
        assert_eq!(model_ring(3, &[], &bad, &create), RING_SIZES_MISMATCH);
        let mut bad = ring.clone();
        bad[2] = snap(&s3);
        assert_eq!(model_ring(3, &[], &bad, &create), SNAPSHOT_MISMATCH);
        let mut bad = ring.clone();
        bad[3].lock = B;
        assert_eq!(model_ring(3, &[], &bad, &create), RING_LOCK_MISMATCH);
        // An IMPORT payload on a creation fits; an APPEND does not.
        assert_eq!(model_ring(3, &[], &ring, &[IMPORT]), 0);
        assert_eq!(model_ring(3, &[], &ring, &[APPEND]), RING_SHAPE);
        assert_eq!(model_ring(3, &[], &ring, &[9]), UNKNOWN_TRANSITION);
        // Append 1 -> 3: consume the head and a snapshot (all oldest).
        let mut append = vec![APPEND];
        append.extend(honest_append(&h, 1, 3));
        let ins = [ring[0].clone(), ring[1].clone()];
        let outs = [head(&s3, &[z1, z1]), snap(&s3)];
        assert_eq!(model_ring(3, &ins, &outs, &append), 0);
        assert_eq!(
            model_ring(3, &ins, &[outs[1].clone(), outs[0].clone()], &append),
            0
        );
        let unshifted = [head(&s3, &[z1, z3]), snap(&s3)];
        assert_eq!(
            model_ring(3, &ins, &unshifted, &append),
            RING_SIZES_MISMATCH
        );
        let wrong_snap = [outs[0].clone(), snap(&s1)];
        assert_eq!(model_ring(3, &ins, &wrong_snap, &append), SNAPSHOT_MISMATCH);
        let mut foreign = outs.clone();
        foreign[1].lock = B;
        assert_eq!(model_ring(3, &ins, &foreign, &append), RING_LOCK_MISMATCH);
        let both_states = [head(&s1, &[z1, z1]), snap(&s1)];
        assert_eq!(model_ring(3, &ins, &both_states, &append), OUTPUT_MISMATCH);
        // The next step must consume a snapshot of size z1 (older[0]); s3 is not the oldest.
        let ins = [outs[0].clone(), outs[1].clone()];
        let s4 = state(&h, 4);
        let mut append = vec![APPEND];
        append.extend(honest_append(&h, 3, 4));
        let outs4 = [head(&s4, &[z1, z3]), snap(&s4)];
        assert_eq!(model_ring(3, &ins, &outs4, &append), RING_NOT_OLDEST);
        // Roles: two heads, a 41-byte cell.
        assert_eq!(
            model_ring(3, &[ins[0].clone(), ins[0].clone()], &outs4, &append),
            RING_ROLES
        );
        let mut long = outs4.clone();
        long[1].data.push(0);
        assert_eq!(model_ring(3, &ins, &long, &append), RING_ROLES);
        // KEEP: a hand-over moves every lock; one cell changed is -104, one lock left -106.
        let live = vec![
            outs[0].clone(),
            ring[2].clone(),
            ring[3].clone(),
            outs[1].clone(),
        ];
        let mut handed = live.clone();
        handed.iter_mut().for_each(|c| c.lock = B);
        assert_eq!(model_ring(3, &live, &handed, &[KEEP]), 0);
        assert_eq!(
            model_ring(3, &live, &handed, &[KEEP, 0]),
            TRANSITION_PAYLOAD
        );
        assert_eq!(model_ring(3, &live, &handed, &[APPEND]), RING_SHAPE);
        let mut left = handed.clone();
        left[2].lock = A;
        assert_eq!(model_ring(3, &live, &left, &[KEEP]), RING_LOCK_MISMATCH);
        let mut changed = handed.clone();
        changed[1].data[0] ^= 1;
        assert_eq!(model_ring(3, &live, &changed, &[KEEP]), SNAPSHOT_MISMATCH);
        assert_eq!(model_ring(3, &live, &[], &[KEEP]), DESTROY_REFUSED);
    }
}
