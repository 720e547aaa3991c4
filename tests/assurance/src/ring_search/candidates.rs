//! The candidate transactions of the search's classes, and the walk through the histories.

use super::*;

/// Every history from a creation of `n0` leaves (`CREATE`, or `IMPORT` of its state).
pub(super) fn history(s: &mut Search, tag: u8, n0: u64) {
    s.st.histories_started += 1;
    let (k, h) = (s.k, s.h);
    let state = h.states[n0 as usize].clone();
    let payload = if tag == CREATE {
        h.create(n0)
    } else {
        vec![IMPORT]
    };
    s.n0 = n0;
    creation(s, tag, &state, &payload);
    let live = Live {
        cells: ring_of(&state, k, LOCK_A),
        path: vec![state],
        n: n0,
    };
    explore(s, &live);
}

/// The candidates at one state, then a hand-over `KEEP` and every honest step from there.
fn explore(s: &mut Search, live: &Live) {
    s.st.states += 1;
    steps(s, live);
    keeps(s, live);
    shapes(s, live);
    let mut handed = live.clone();
    let lock = if live.cells[0].lock == LOCK_A {
        LOCK_B
    } else {
        LOCK_A
    };
    handed.cells.iter_mut().for_each(|c| c.lock = lock);
    for m in live.n + 1..=s.h.max {
        for tag in [APPEND, EXTEND] {
            let (mut t, after) = step(s, &handed, m, tag);
            t.honest = true;
            t.what = "honest step";
            s.run(Some(&handed), &t, None);
            explore(s, &after);
        }
    }
}

/// A fresh ring holding `state`: the head (every older size the state's) and `k` snapshots.
fn ring_of(state: &[u8], k: u8, lock: H) -> Vec<Cell> {
    let size = size_of(state).unwrap();
    let mut cells = vec![head_cell(state, &vec![size; k as usize - 1], lock)];
    cells.extend((0..k).map(|_| Cell {
        data: state.to_vec(),
        lock,
    }));
    cells
}

/// The honest step from `live` to `m` leaves by `tag`: the transaction and the ring after it.
fn step(s: &Search, live: &Live, m: u64, tag: u8) -> (Tx, Live) {
    let (k, h) = (s.k, s.h);
    let hi = live.head(k);
    let head = &live.cells[hi];
    let older = older_of(head);
    let oldest = (0..live.cells.len())
        .find(|&i| i != hi && size_of(&live.cells[i].data) == Some(older[0]))
        .expect("the oldest snapshot is live");
    let new = &h.states[m as usize];
    let mut shifted = older[1..].to_vec();
    shifted.push(size_of(&head.data).unwrap());
    let outs = vec![
        head_cell(new, &shifted, head.lock),
        Cell {
            data: new.clone(),
            lock: head.lock,
        },
    ];
    let payload = &h.steps[&(live.n, m, tag)];
    let t = tx(vec![hi, oldest], outs.clone(), payload, "step");
    let mut cells: Vec<Cell> = live
        .cells
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != hi && i != oldest)
        .map(|(_, c)| c.clone())
        .collect();
    cells.extend(outs);
    let mut path = live.path.clone();
    path.push(new.clone());
    (t, Live { cells, path, n: m })
}

const TAGS: [u8; 8] = [0, CREATE, IMPORT, APPEND, EXTEND, KEEP, 6, 0xff];

/// Every tag in front of `body`, every tag alone, the empty payload.
fn tagged(body: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    for t in TAGS {
        let mut p = vec![t];
        out.push(p.clone());
        p.extend_from_slice(body);
        out.push(p);
    }
    out
}

fn lengths(hl: usize, head: bool) -> Vec<usize> {
    let mut v = if head {
        vec![39, 40, 41, hl - 8, hl + 8, hl - 1, hl + 1]
    } else {
        vec![39, 41, hl - 8, hl, hl + 8]
    };
    v.retain(|&l| l != if head { hl } else { 40 });
    v.dedup();
    v
}

/// `APPEND`/`EXTEND` candidates on the base step (one leaf appended).
fn steps(s: &mut Search, live: &Live) {
    let (k, h, n) = (s.k, s.h, live.n);
    let hl = model::head_len(k);
    let (base, _) = step(s, live, n + 1, APPEND);
    let (hi, oldest) = (base.ins[0], base.ins[1]);
    let (ho, so) = (base.outs[0].clone(), base.outs[1].clone());
    let p = base.payload.clone();
    let run = |s: &mut Search, ins: Vec<usize>, outs: Vec<Cell>, payload: &[u8], what, honest| {
        let mut t = tx(ins, outs, payload, what);
        t.honest = honest;
        s.run(Some(live), &t, None);
    };
    // The base step's inputs, with other outputs or payload.
    let on_base = |s: &mut Search, outs: Vec<Cell>, payload: &[u8], what, honest| {
        run(s, vec![hi, oldest], outs, payload, what, honest)
    };
    // Honest, in every order of the two inputs and the two outputs.
    for ins in [vec![hi, oldest], vec![oldest, hi]] {
        for outs in [vec![ho.clone(), so.clone()], vec![so.clone(), ho.clone()]] {
            run(s, ins.clone(), outs, &p, "step, any order", true);
        }
    }
    // Each live snapshot consumed: honest where its size is the oldest's.
    let oldest_size = size_of(&live.cells[oldest].data);
    for j in (0..live.cells.len()).filter(|&j| j != hi && j != oldest) {
        let same = size_of(&live.cells[j].data) == oldest_size;
        run(
            s,
            vec![hi, j],
            vec![ho.clone(), so.clone()],
            &p,
            "another snapshot consumed",
            same,
        );
    }
    // Snapshot (and head) outputs holding every other state, and one-byte flips.
    let mut others: Vec<Vec<u8>> = (1..=h.max + 1)
        .filter(|&m| m != n + 1)
        .map(|m| h.states[m as usize].clone())
        .collect();
    others.extend(flips(&so.data));
    let older = older_of(&ho);
    let extend = &h.steps[&(n, n + 1, EXTEND)];
    for x in &others {
        let snap = Cell {
            data: x.clone(),
            lock: ho.lock,
        };
        on_base(
            s,
            vec![ho.clone(), snap.clone()],
            &p,
            "snapshot holds another state",
            false,
        );
        let head = head_cell(x, &older, ho.lock);
        for payload in [&p, extend] {
            on_base(
                s,
                vec![head.clone(), snap.clone()],
                payload,
                "both hold another state",
                false,
            );
        }
    }
    // `older`: unshifted, each slot changed (+1, or the new size).
    let input_older = older_of(&live.cells[hi]);
    let new_size = size_of(&ho.data).unwrap();
    // (Right after a creation the unshifted list is the honest one.)
    let mut olders = vec![input_older];
    for i in 0..older.len() {
        for val in [older[i].wrapping_add(1), new_size] {
            let mut o = older.clone();
            o[i] = val;
            if o != older {
                olders.push(o);
            }
        }
    }
    for o in &olders {
        on_base(
            s,
            vec![head_cell(&ho.data[..40], o, ho.lock), so.clone()],
            &p,
            "older changed",
            *o == older,
        );
    }
    // Data lengths.
    for len in lengths(hl, true) {
        let head = Cell {
            data: resized(&ho.data, len),
            lock: ho.lock,
        };
        on_base(s, vec![head, so.clone()], &p, "head output length", false);
    }
    for len in lengths(hl, false) {
        let snap = Cell {
            data: resized(&ho.data, len),
            lock: ho.lock,
        };
        on_base(
            s,
            vec![ho.clone(), snap],
            &p,
            "snapshot output length",
            false,
        );
    }
    // A lock differing on each output, and on both.
    for which in [1u8, 2, 3] {
        let mut outs = vec![ho.clone(), so.clone()];
        for (i, c) in outs.iter_mut().enumerate() {
            if which & (1 << i) != 0 {
                c.lock = FOREIGN;
            }
        }
        run(s, vec![hi, oldest], outs, &p, "a foreign lock", false);
    }
    // Every tag on this shape.
    for payload in tagged(&p[1..]) {
        let honest = payload == p;
        on_base(
            s,
            vec![ho.clone(), so.clone()],
            &payload,
            "tag on a step",
            honest,
        );
    }
    // Args: the K byte out of range or another K, other lengths.
    let mut argss: Vec<Vec<u8>> = [0u8, 1, 33, 255, k - 1, k + 1]
        .iter()
        .map(|&b| {
            let mut a = vec![0x77u8; 32];
            a.push(b);
            a
        })
        .collect();
    argss.extend([vec![0x77; 31], vec![0x77; 32], vec![0x77; 34], Vec::new()]);
    for a in argss {
        let mut t = tx(vec![hi, oldest], vec![ho.clone(), so.clone()], &p, "args");
        t.args = Some(a);
        s.run(Some(live), &t, None);
    }
}

/// Whole-ring `KEEP` candidates.
fn keeps(s: &mut Search, live: &Live) {
    let k = s.k;
    let hl = model::head_len(k);
    let all: Vec<usize> = (0..live.cells.len()).collect();
    let hi = live.head(k);
    let same = live.cells.clone();
    let keep = [KEEP];
    let run = |s: &mut Search, ins: Vec<usize>, outs: Vec<Cell>, payload: &[u8], what, honest| {
        let mut t = tx(ins, outs, payload, what);
        t.honest = honest;
        s.run(Some(live), &t, None);
    };
    run(s, all.clone(), same.clone(), &keep, "keep", true);
    let mut handed = same.clone();
    handed.iter_mut().for_each(|c| c.lock = FOREIGN);
    run(s, all.clone(), handed, &keep, "keep, hand-over", true);
    let mut rot_ins = all.clone();
    rot_ins.rotate_left(1);
    let rot_outs: Vec<Cell> = rot_ins.iter().map(|&i| live.cells[i].clone()).collect();
    run(s, rot_ins, rot_outs, &keep, "keep, rotated", true);
    for j in 0..same.len() {
        for flip in [0usize, 32] {
            let mut outs = same.clone();
            outs[j].data[flip] ^= 1;
            run(s, all.clone(), outs, &keep, "keep, a cell changed", false);
        }
        let mut outs = same.clone();
        outs[j].lock = FOREIGN;
        run(s, all.clone(), outs, &keep, "keep, one foreign lock", false);
        if j != hi {
            let mut outs = same.clone();
            outs.swap(j, hi);
            run(s, all.clone(), outs, &keep, "keep, head moved", false);
        }
    }
    for len in lengths(hl, true) {
        let mut outs = same.clone();
        outs[hi].data = resized(&outs[hi].data, len);
        run(s, all.clone(), outs, &keep, "keep, head length", false);
    }
    let j = (hi + 1) % same.len();
    for len in lengths(hl, false) {
        let mut outs = same.clone();
        outs[j].data = resized(&outs[j].data, len);
        run(s, all.clone(), outs, &keep, "keep, snapshot length", false);
    }
    for payload in tagged(&[0]) {
        let honest = payload == keep;
        run(
            s,
            all.clone(),
            same.clone(),
            &payload,
            "tag on a keep",
            honest,
        );
    }
}

/// Every group count 0..=K + 2 on each side, and a second creation of the current state.
fn shapes(s: &mut Search, live: &Live) {
    let (k, n) = (s.k, live.n);
    let (base, _) = step(s, live, n + 1, APPEND);
    let (hi, oldest) = (base.ins[0], base.ins[1]);
    let mut in_pool = vec![hi, oldest];
    in_pool.extend((0..live.cells.len()).filter(|&i| i != hi && i != oldest));
    let mut out_pool = base.outs.clone();
    out_pool.extend(in_pool[2..].iter().map(|&i| live.cells[i].clone()));
    out_pool.push(base.outs[1].clone());
    for i in 0..=k as usize + 2 {
        for o in 0..=k as usize + 2 {
            if (i, o) == (0, 0) || (i, o) == (2, 2) {
                continue;
            }
            let mut t = tx(
                in_pool[..i.min(k as usize + 1)].to_vec(),
                out_pool[..o].to_vec(),
                &base.payload,
                "group counts",
            );
            if i == k as usize + 2 {
                t.extra_in = Some(live.cells[hi].clone());
            }
            s.run(Some(live), &t, None);
        }
    }
    let state = &live.path[live.path.len() - 1];
    let outs = ring_of(state, k, live.cells[hi].lock);
    s.run(
        Some(live),
        &tx(Vec::new(), outs, &[IMPORT], "second creation"),
        None,
    );
}

/// Creation candidates for a history's first state.
fn creation(s: &mut Search, tag: u8, state: &[u8], payload: &[u8]) {
    let (k, h, n0) = (s.k, s.h, s.n0);
    let hl = model::head_len(k);
    let size = size_of(state).unwrap();
    let honest = ring_of(state, k, LOCK_A);
    let run = |s: &mut Search, outs: Vec<Cell>, payload: &[u8], what, honest| {
        let mut t = tx(Vec::new(), outs, payload, what);
        t.honest = honest;
        s.run(None, &t, Some(tag));
    };
    run(s, honest.clone(), payload, "creation", true);
    for at in [1, k as usize] {
        let mut outs = honest.clone();
        outs.swap(0, at);
        run(s, outs, payload, "creation, head elsewhere", true);
    }
    let other = size_of(&h.states[n0 as usize + 1]).unwrap();
    for i in 0..k as usize - 1 {
        for val in [size + 1, other] {
            let mut older = vec![size; k as usize - 1];
            older[i] = val;
            let mut outs = honest.clone();
            outs[0] = head_cell(state, &older, LOCK_A);
            run(s, outs, payload, "creation, older changed", false);
        }
    }
    let mut others: Vec<Vec<u8>> = (1..=h.max + 1)
        .filter(|&m| m != n0)
        .map(|m| h.states[m as usize].clone())
        .collect();
    others.extend(flips(state));
    for x in &others {
        for j in 1..=k as usize {
            let mut outs = honest.clone();
            outs[j].data = x.clone();
            run(
                s,
                outs,
                payload,
                "creation, a snapshot holds another state",
                false,
            );
        }
        run(
            s,
            ring_of(x, k, LOCK_A),
            payload,
            "creation of another state",
            false,
        );
    }
    for len in lengths(hl, true) {
        let mut outs = honest.clone();
        outs[0].data = resized(state, len);
        run(s, outs, payload, "creation, head length", false);
    }
    for len in lengths(hl, false) {
        let mut outs = honest.clone();
        outs[1].data = resized(&honest[0].data, len);
        run(s, outs, payload, "creation, snapshot length", false);
    }
    for j in 0..=k as usize {
        let mut outs = honest.clone();
        outs[j].lock = FOREIGN;
        run(s, outs, payload, "creation, a foreign lock", false);
    }
    let mut more = honest.clone();
    more.push(honest[1].clone());
    for o in 1..=k as usize + 2 {
        if o != k as usize + 1 {
            run(
                s,
                more[..o].to_vec(),
                payload,
                "creation, output count",
                false,
            );
        }
    }
    for p in tagged(&payload[1..]) {
        let honest_tag = p == payload;
        run(s, honest.clone(), &p, "tag on a creation", honest_tag);
    }
}
