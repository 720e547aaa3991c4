//! The ring's transactions checked by the contract's own core, without a chain.
use super::*;
use crate::accumulator::Host;

fn leaves(n: u8) -> Vec<[u8; 32]> {
    (0..n).map(|i| [i + 1; 32]).collect()
}

fn code() -> Deployment {
    Deployment::fake_data2([7; 32])
}

/// A transaction from a draft, inputs and outputs as drafted (no fee, no signature).
fn tx_of(d: &Draft, first: Option<packed::CellInput>) -> packed::Transaction {
    let mut d = d.clone();
    if let Some(first) = &first {
        let id = crate::wallet::type_id_args(first, 0);
        for (o, _) in &mut d.outputs {
            let t = o.type_().to_opt().unwrap();
            let mut args = t.args().raw_data().to_vec();
            args[..32].copy_from_slice(&id);
            let t = t.as_builder().args(Bytes::from(args).pack()).build();
            *o = o.clone().as_builder().type_(Some(t).pack()).build();
        }
    }
    d.unsigned_tx(first)
}

#[test]
fn k_and_lengths() {
    assert_eq!(head_len(2), 48);
    assert_eq!(head_len(8), 96);
    assert_eq!(head_len(32), 288);
    assert!(check_k(1).is_err() && check_k(33).is_err() && check_k(0).is_err());
    assert_eq!(check_k(8).unwrap(), 8);
    let s = type_script([1; 32], [2; 32], 8);
    assert_eq!(s.args().raw_data().len(), 33);
    assert_eq!(s.args().raw_data()[32], 8);
}

/// The contract's core (rules 1 and 3-6) on a drafted transaction's ring cells, all under
/// one lock.
fn core_accepts(
    k: u8,
    inputs: &[IndexedCell],
    d: &Draft,
) -> std::result::Result<(), mmr_accumulator::Error> {
    use mmr_accumulator::ring::{verify_ring, RingCell};
    fn ring_cells<'a>(data: &'a [Vec<u8>], lock_hash: &'a [u8; 32]) -> Vec<RingCell<'a>> {
        data.iter()
            .map(|data| RingCell { data, lock_hash })
            .collect()
    }
    let lock = [9u8; 32];
    let ins: Vec<Vec<u8>> = inputs.iter().map(|c| c.data.clone().unwrap()).collect();
    let outs: Vec<Vec<u8>> = d.outputs.iter().map(|o| o.1.to_vec()).collect();
    let (ins, outs) = (ring_cells(&ins, &lock), ring_cells(&outs, &lock));
    let w = packed::WitnessArgs::from_slice(&d.witnesses[0]).unwrap();
    let payload = if inputs.is_empty() {
        w.output_type()
    } else {
        w.input_type()
    };
    let payload = payload.to_opt().unwrap().raw_data();
    let mut ws = mmr_accumulator::Workspace::new();
    verify_ring::<Host>(&mut ws, k, &ins, &outs, &payload)
}

/// Creation, then appends: the ring keeps K snapshots holding its last K states, the head's
/// `older` is the other K - 1 sizes oldest first, the step consumes the oldest, and every
/// snapshot's type hash is the ring's.
#[test]
fn creation_and_steps_keep_the_last_k_states() {
    let k = 4u8;
    let all = leaves(20);
    let lock = packed::Script::default();
    let d = create_draft(&code(), lock.clone(), k, Creation::Create(&all[..3])).unwrap();
    assert_eq!(d.outputs.len(), usize::from(k) + 1);
    assert_eq!(d.outputs[0].1.len(), head_len(k));
    assert_eq!(core_accepts(k, &[], &d), Ok(()));
    let tx = tx_of(&d, Some(packed::CellInput::default()));
    let script = tx.raw().outputs().get(0).unwrap().type_().to_opt().unwrap();
    let type_id: [u8; 32] = script.args().raw_data()[..32].try_into().unwrap();
    let mut ring = parse(ring_outputs(&tx, &script), [7; 32], type_id, k).unwrap();
    // Ties right after creation: the appender consumes the first snapshot in output order,
    // the spender takes the last, whatever order the indexer lists them in.
    let mut listed = ring_outputs(&tx, &script);
    listed.reverse();
    let read = parse(listed, [7; 32], type_id, k).unwrap();
    let index = |a: &Accumulator| -> u32 { a.cell.out_point.index().unpack() };
    assert_eq!(index(read.oldest().unwrap()), 1);
    assert_eq!(index(read.newest()), u32::from(k));
    assert_eq!(index(ring.newest()), u32::from(k));
    let first = accumulator::commitment(&all[..3]).unwrap();
    assert_eq!(ring.older, vec![first.mmr_size; 3]);
    assert!(ring.snapshots.iter().all(|s| s.commitment == first));
    assert!(ring
        .snapshots
        .iter()
        .all(|s| s.type_hash() == ring.type_hash()));
    let mut states = vec![first];
    for n in 4..=12usize {
        let (new, _, payload) = accumulator::Update::Append(&all[..n])
            .parts(&ring.head)
            .unwrap();
        let oldest = ring.oldest().unwrap().cell.out_point.clone();
        let d = step_draft(&ring, &code(), &new, &payload).unwrap();
        assert_eq!(d.inputs[1].0.as_slice(), oldest.as_slice());
        let consumed = [ring.head.cell.clone(), ring.oldest().unwrap().cell.clone()];
        assert_eq!(
            core_accepts(k, &consumed, &d),
            Ok(()),
            "append to {n} leaves"
        );
        let tx = tx_of(&d, None);
        ring = ring.after(&tx).unwrap();
        states.push(new);
        let last_k = &states[states.len().saturating_sub(usize::from(k))..];
        let mut have: Vec<u64> = ring
            .snapshots
            .iter()
            .map(|s| s.commitment.mmr_size)
            .collect();
        have.sort_unstable();
        let mut want: Vec<u64> = last_k.iter().map(|c| c.mmr_size).collect();
        while want.len() < usize::from(k) {
            want.insert(0, first.mmr_size);
        }
        assert_eq!(have, want, "after {n} leaves");
        assert_eq!(ring.newest().commitment, new);
        assert_eq!(ring.head.commitment, new);
        assert_eq!(
            *ring.older.last().unwrap(),
            states[states.len() - 2].mmr_size
        );
        let mut ws = mmr_accumulator::Workspace::new();
        let old = states[states.len() - 2];
        assert_eq!(
            mmr_accumulator::verify_update::<Host>(
                &mut ws,
                &payload,
                &old.to_bytes(),
                &new.to_bytes()
            ),
            Ok(())
        );
    }
    // KEEP: the same cells, data and order, another lock.
    let other = packed::Script::new_builder()
        .args(Bytes::from(vec![1u8; 20]).pack())
        .build();
    let d = keep_draft(&ring, &code(), &other);
    assert_eq!(core_accepts(k, &ring.cells(), &d), Ok(()));
    let kept = ring.after(&tx_of(&d, None)).unwrap();
    assert_eq!(kept.head.commitment, ring.head.commitment);
    assert_eq!(kept.older, ring.older);
    assert!(kept
        .cells()
        .iter()
        .all(|c| c.output.lock().as_slice() == other.as_slice()));
}

#[test]
fn malformed_rings_are_typed_errors() {
    let k = 3u8;
    let lock = packed::Script::default();
    let d = create_draft(
        &code(),
        lock,
        k,
        Creation::Import(accumulator::commitment(&leaves(5)).unwrap()),
    )
    .unwrap();
    assert_eq!(core_accepts(k, &[], &d), Ok(()));
    let tx = tx_of(&d, Some(packed::CellInput::default()));
    let script = tx.raw().outputs().get(0).unwrap().type_().to_opt().unwrap();
    let cells = ring_outputs(&tx, &script);
    assert!(parse(cells.clone(), [7; 32], [0; 32], k).is_ok());
    for bad in [
        cells[1..].to_vec(),
        cells[..3].to_vec(),
        {
            let mut c = cells.clone();
            c[0].data.as_mut().unwrap().push(0);
            c
        },
        {
            let mut c = cells.clone();
            c[2].data.as_mut().unwrap().pop();
            c
        },
    ] {
        assert!(matches!(
            parse(bad, [7; 32], [0; 32], k),
            Err(Error::NotFound(_))
        ));
    }
    assert!(matches!(
        parse(cells, [7; 32], [0; 32], 40),
        Err(Error::NotFound(_))
    ));
    assert!(create_draft(
        &code(),
        packed::Script::default(),
        1,
        Creation::Create(&leaves(2))
    )
    .is_err());
    let bad_size = Commitment {
        root: [0; 32],
        mmr_size: 2,
    };
    assert!(matches!(
        create_draft(
            &code(),
            packed::Script::default(),
            2,
            Creation::Import(bad_size)
        ),
        Err(Error::Usage(_))
    ));
}

#[test]
fn refusals_are_told_apart() {
    let op = packed::OutPoint::new([3u8; 32].pack(), 2);
    let named = format!(
        "TransactionFailedToResolve: Resolve failed Dead(OutPoint({}))",
        hex(op.as_slice())
    );
    assert!(names_consumed(&named, &op));
    assert!(names_consumed(&named.replace("Dead", "Unknown"), &op));
    assert!(!names_consumed(
        &named,
        &packed::OutPoint::new([3u8; 32].pack(), 1)
    ));
    assert!(
        consumed_line(&op, 8).ends_with("older than the ring's window of 7 appends; rebuilding")
    );
    for c in [9, 90, 91, 92] {
        assert!(client_bug(c).is_some());
    }
    assert!(client_bug(0).is_none() && client_bug(-100).is_none());
}
