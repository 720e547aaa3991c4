//! Hash-consed expressions over 64-bit words, built in a normal form, so that two
//! expressions are equal for every input when their ids are equal.
//!
//! The normaliser is part of what the proof trusts. It applies only these identities, each
//! true for all 64-bit words (arithmetic mod 2^64):
//!
//! * `+` and `^` are associative and commutative: nested sums (xors) are flattened into one
//!   node whose operands are sorted by id;
//! * constants fold (`c1 + c2`, `c1 ^ c2`, any operation of constants), `x + 0 = x`,
//!   `x ^ 0 = x`, and `x ^ x = 0` (xor operands cancel in pairs);
//! * `rotr(rotr(x, a), b) = rotr(x, (a + b) mod 64)`, `rotr(x, 0) = x`, and a rotation of a
//!   constant folds.
//!
//! Every other operation is an opaque node over its (normalised) operands. Equal ids imply
//! equal functions; different ids prove nothing (the checker then reports a mismatch, and
//! the mutation run looks for a concrete counterexample separately).

use crate::decode::BinOp;
use std::collections::HashMap;

/// An input variable of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Var {
    /// Little-endian word `i` (0..4) of the left (`Side::Left`) or right input.
    Word(Side, u8),
    /// The address of the left or right input's 32 bytes.
    Ptr(Side),
    /// Whatever register `x{n}` held on entry, when it is not an input.
    Entry(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Left,
    Right,
}

pub type Id = u32;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Const(u64),
    Var(Var),
    /// At least two operands, sorted, at most one constant (never 0).
    Add(Box<[Id]>),
    /// At least two operands, sorted, distinct, at most one constant (never 0).
    Xor(Box<[Id]>),
    /// Rotate right by 1..=63; the operand is neither a constant nor a rotation.
    Rotr(Id, u8),
    /// Any other operation, not both operands constant.
    Op(BinOp, Id, Id),
}

#[derive(Clone, Default)]
pub struct Arena {
    nodes: Vec<Node>,
    ids: HashMap<Node, Id>,
}

impl Arena {
    pub fn new() -> Arena {
        Arena::default()
    }

    pub fn node(&self, id: Id) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    fn intern(&mut self, n: Node) -> Id {
        if let Some(&id) = self.ids.get(&n) {
            return id;
        }
        let id = Id::try_from(self.nodes.len()).unwrap_or(Id::MAX);
        self.nodes.push(n.clone());
        self.ids.insert(n, id);
        id
    }

    pub fn konst(&mut self, c: u64) -> Id {
        self.intern(Node::Const(c))
    }

    pub fn var(&mut self, v: Var) -> Id {
        self.intern(Node::Var(v))
    }

    pub fn as_const(&self, id: Id) -> Option<u64> {
        match self.node(id) {
            Node::Const(c) => Some(*c),
            _ => None,
        }
    }

    /// The terms of `a` and `b`, each flattened if it is a sum (`sum`) or an xor (not
    /// `sum`), and their constants folded into one by the same operation.
    fn flatten(&self, a: Id, b: Id, sum: bool) -> (u64, Vec<Id>) {
        let mut c = 0u64;
        let mut terms = Vec::new();
        for x in [a, b] {
            let nested = match self.node(x) {
                Node::Add(ts) if sum => &ts[..],
                Node::Xor(ts) if !sum => &ts[..],
                _ => std::slice::from_ref(&x),
            };
            for &t in nested {
                match self.node(t) {
                    Node::Const(k) if sum => c = c.wrapping_add(*k),
                    Node::Const(k) => c ^= *k,
                    _ => terms.push(t),
                }
            }
        }
        (c, terms)
    }

    pub fn add(&mut self, a: Id, b: Id) -> Id {
        let (c, mut terms) = self.flatten(a, b, true);
        if c != 0 {
            terms.push(self.konst(c));
        }
        terms.sort_unstable();
        match terms.len() {
            0 => self.konst(0),
            1 => terms[0],
            _ => self.intern(Node::Add(terms.into_boxed_slice())),
        }
    }

    pub fn xor(&mut self, a: Id, b: Id) -> Id {
        let (c, mut terms) = self.flatten(a, b, false);
        terms.sort_unstable();
        // x ^ x = 0: equal operands are adjacent after sorting and cancel in pairs.
        let mut kept: Vec<Id> = Vec::with_capacity(terms.len() + 1);
        for t in terms {
            if kept.last() == Some(&t) {
                kept.pop();
            } else {
                kept.push(t);
            }
        }
        if c != 0 {
            kept.push(self.konst(c));
            kept.sort_unstable();
        }
        match kept.len() {
            0 => self.konst(0),
            1 => kept[0],
            _ => self.intern(Node::Xor(kept.into_boxed_slice())),
        }
    }

    pub fn rotr(&mut self, a: Id, k: u32) -> Id {
        let k = k % 64;
        if k == 0 {
            return a;
        }
        match *self.node(a) {
            Node::Const(c) => self.konst(c.rotate_right(k)),
            Node::Rotr(inner, j) => self.rotr(inner, u32::from(j) + k),
            _ => self.intern(Node::Rotr(a, k as u8)),
        }
    }

    /// Any operation: add, xor and rotations by a constant go to their normal forms, the
    /// rest fold when both operands are constants and are opaque otherwise.
    pub fn bin(&mut self, op: BinOp, a: Id, b: Id) -> Id {
        match op {
            BinOp::Add => return self.add(a, b),
            BinOp::Xor => return self.xor(a, b),
            _ => {}
        }
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => self.konst(op.eval(x, y)),
            (_, Some(k)) if op == BinOp::Ror => self.rotr(a, (k & 63) as u32),
            (_, Some(k)) if op == BinOp::Rol => self.rotr(a, (64 - (k & 63) as u32) % 64),
            _ => self.intern(Node::Op(op, a, b)),
        }
    }

    /// The value of `id` when every variable takes the value `env` gives it. Used to test
    /// the normaliser against the concrete interpreter, never in the proof itself.
    pub fn eval(&self, id: Id, env: &dyn Fn(Var) -> u64, memo: &mut HashMap<Id, u64>) -> u64 {
        if let Some(&v) = memo.get(&id) {
            return v;
        }
        let v = match self.node(id) {
            Node::Const(c) => *c,
            Node::Var(v) => env(*v),
            Node::Add(ts) => ts
                .iter()
                .fold(0u64, |acc, &t| acc.wrapping_add(self.eval(t, env, memo))),
            Node::Xor(ts) => ts
                .iter()
                .fold(0u64, |acc, &t| acc ^ self.eval(t, env, memo)),
            Node::Rotr(x, k) => self.eval(*x, env, memo).rotate_right(u32::from(*k)),
            Node::Op(op, a, b) => {
                let (x, y) = (self.eval(*a, env, memo), self.eval(*b, env, memo));
                op.eval(x, y)
            }
        };
        memo.insert(id, v);
        v
    }

    /// The variables `id` depends on.
    pub fn vars(&self, id: Id) -> Vec<Var> {
        let mut seen = std::collections::HashSet::new();
        let mut out = std::collections::BTreeSet::new();
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            match self.node(x) {
                Node::Const(_) => {}
                Node::Var(v) => {
                    out.insert(*v);
                }
                Node::Add(ts) | Node::Xor(ts) => stack.extend(ts.iter().copied()),
                Node::Rotr(a, _) => stack.push(*a),
                Node::Op(_, a, b) => stack.extend([*a, *b]),
            }
        }
        out.into_iter().collect()
    }

    /// Where two expressions differ, for messages: descends while both have the same shape,
    /// into differing operands of the same kind, and renders the innermost differing pair
    /// (for sums and xors, only the operands that are not shared).
    pub fn difference(&self, a: Id, b: Id) -> (String, String) {
        let (mut a, mut b) = (a, b);
        loop {
            if a == b {
                return ("(equal)".into(), "(equal)".into());
            }
            let next = match (self.node(a), self.node(b)) {
                (Node::Add(x), Node::Add(y)) | (Node::Xor(x), Node::Xor(y)) => {
                    let (ox, oy) = (multiset_minus(x, y), multiset_minus(y, x));
                    // Several operands differ when one change spread: follow the first pair
                    // of the same kind, which leads back towards where it started.
                    let same_kind = |p: Id, q: Id| {
                        std::mem::discriminant(self.node(p)) == std::mem::discriminant(self.node(q))
                    };
                    let pair = ox
                        .iter()
                        .find_map(|&p| oy.iter().find(|&&q| same_kind(p, q)).map(|&q| (p, q)));
                    if let Some(p) = pair {
                        Some(p)
                    } else {
                        let op = if matches!(self.node(a), Node::Add(_)) {
                            " + "
                        } else {
                            " ^ "
                        };
                        let show = |v: &[Id]| {
                            v.iter()
                                .map(|&t| self.show(t, 2))
                                .collect::<Vec<_>>()
                                .join(op)
                        };
                        return (
                            format!("... {op} {}", show(&ox)),
                            format!("... {op} {}", show(&oy)),
                        );
                    }
                }
                (Node::Rotr(x, k), Node::Rotr(y, j)) if k == j => Some((*x, *y)),
                (Node::Op(o, x1, x2), Node::Op(p, y1, y2)) if o == p && (x1 == y1 || x2 == y2) => {
                    Some(if x1 == y1 { (*x2, *y2) } else { (*x1, *y1) })
                }
                _ => None,
            };
            match next {
                Some((x, y)) => (a, b) = (x, y),
                None => return (self.show(a, 2), self.show(b, 2)),
            }
        }
    }

    /// A short rendering for messages (depth-limited).
    pub fn show(&self, id: Id, depth: usize) -> String {
        if depth == 0 {
            return format!("#{id}");
        }
        match self.node(id) {
            Node::Const(c) => format!("{c:#x}"),
            Node::Var(Var::Word(s, i)) => format!("{}[{i}]", side_name(*s)),
            Node::Var(Var::Ptr(s)) => format!("&{}", side_name(*s)),
            Node::Var(Var::Entry(r)) => format!("{}@entry", crate::decode::Reg(*r)),
            Node::Add(ts) => {
                let parts: Vec<_> = ts.iter().map(|&t| self.show(t, depth - 1)).collect();
                format!("({})", parts.join(" + "))
            }
            Node::Xor(ts) => {
                let parts: Vec<_> = ts.iter().map(|&t| self.show(t, depth - 1)).collect();
                format!("({})", parts.join(" ^ "))
            }
            Node::Rotr(x, k) => format!("rotr({}, {k})", self.show(*x, depth - 1)),
            Node::Op(op, a, b) => format!(
                "{}({}, {})",
                op.mnemonic(),
                self.show(*a, depth - 1),
                self.show(*b, depth - 1)
            ),
        }
    }
}

pub fn side_name(s: Side) -> &'static str {
    match s {
        Side::Left => "left",
        Side::Right => "right",
    }
}

/// The operands of `x` not matched by one in `y` (both sorted).
fn multiset_minus(x: &[Id], y: &[Id]) -> Vec<Id> {
    let mut out = Vec::new();
    let mut j = 0;
    for &t in x {
        while j < y.len() && y[j] < t {
            j += 1;
        }
        if j < y.len() && y[j] == t {
            j += 1;
        } else {
            out.push(t);
        }
    }
    out
}
