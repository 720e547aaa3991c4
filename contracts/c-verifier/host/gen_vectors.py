#!/usr/bin/env python3
"""Hand-made test vectors for the C verifier's host harness (contracts/c-verifier/host/run.sh),
in the compact format (version 2), the one the deployed verifiers read.

Independent of the C and Rust code: hashing is Python's hashlib.blake2b with the CKB
personalization, the MMR is built by hand, and both the honest proofs and the expected codes
come from one recursion over leaf ranges (`evaluate`), not from the verifiers' leaf-by-leaf
walk; the checks before the hashing are written out in the order of
crates/compiled-proof/src/compact.rs. The worked example is checked byte for byte against
crates/compiled-proof/tests/compact.rs.

Writes contracts/c-verifier/host/vectors/*.vec (format: see contracts/c-verifier/host/harness.c). Deterministic (fixed seed).

    python3 contracts/c-verifier/host/gen_vectors.py [OUT_DIR]
"""
import bisect
import hashlib
import os
import random
import struct
import sys

MAX_MMR_SIZE = 1 << 50
MAX_WITNESS = 65536
CAP = 64
MUTATION_CODES = {}


def merge(left, right):
    return hashlib.blake2b(left + right, digest_size=32, person=b"ckb-default-hash").digest()


# ---- MMR shape --------------------------------------------------------------------------


def mmr_size_of(n):
    return 2 * n - bin(n).count("1")


def leaf_count_of(size):
    """mmr_lock::mmr::leaf_count; None for invalid sizes."""
    if size == 0 or size > MAX_MMR_SIZE:
        return None
    for n in range(size // 2 + 1, size // 2 + 53):
        if mmr_size_of(n) == size:
            return n
    return None


def peaks_of(leaf_count):
    """[(start, H)] left to right."""
    out, start = [], 0
    for h in range(63, -1, -1):
        if leaf_count >> h & 1:
            out.append((start, h))
            start += 1 << h
    return out


def node_hash(leaves, first, h):
    if h == 0:
        return leaves[first]
    half = 1 << (h - 1)
    return merge(node_hash(leaves, first, h - 1), node_hash(leaves, first + half, h - 1))


def bag(hashes):
    acc = hashes[-1]
    for p in reversed(hashes[:-1]):
        acc = merge(acc, p)
    return acc


def root_of(leaves):
    return bag([node_hash(leaves, s, h) for s, h in peaks_of(len(leaves))])


# ---- the compact format (version 2): its shape, compiler and verifier -------------------


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode(proved, items):
    """Version byte, count, index gaps, values, items: no checks (also for bad payloads)."""
    out = bytearray([0x02]) + varint(len(proved))
    nxt = 0
    for i, _ in proved:
        out += varint((i - nxt) % 2 ** 64)
        nxt = i + 1
    for _, v in proved:
        out += v
    for it in items:
        out += it
    return bytes(out)


class Short(Exception):
    pass


def evaluate(leaf_count, proved, opaque, trailing):
    """The root of the MMR in which the leaves `proved` {index: value} sit, by recursion over
    leaf ranges. Every leafless node whose parent holds a proved leaf is opaque(first, h),
    asked for in post-order (a node's own subtree before its sibling); a leafless peak before
    the last peak with a proved leaf is opaque too; the peaks after it are trailing(peaks),
    one hash for all of them."""
    idx = sorted(proved)

    def holds(first, h):
        k = bisect.bisect_left(idx, first)
        return k < len(idx) and idx[k] < first + (1 << h)

    def walk(first, h):
        if h == 0:
            return proved[first]
        half = 1 << (h - 1)
        lhas, rhas = holds(first, h - 1), holds(first + half, h - 1)
        if lhas:
            a = walk(first, h - 1)
            return merge(a, walk(first + half, h - 1) if rhas else opaque(first + half, h - 1))
        b = walk(first + half, h - 1)
        return merge(opaque(first, h - 1), b)

    peaks = peaks_of(leaf_count)
    last = max(k for k, (s, h) in enumerate(peaks) if holds(s, h))
    hashes = []
    for k, (s, h) in enumerate(peaks):
        if k > last:
            hashes.append(trailing(peaks[k:]))
            break
        hashes.append(walk(s, h) if holds(s, h) else opaque(s, h))
    return bag(hashes)


def prove(leaf_count, proved, opaque):
    """An honest payload for the leaves `proved` {index: value}, and the root; opaque(first, h)
    is the hash of a leafless node."""
    items = []

    def give(first, h):
        items.append(opaque(first, h))
        return items[-1]

    def trailing(peaks):
        items.append(bag([opaque(s, h) for s, h in peaks]))
        return items[-1]

    root = evaluate(leaf_count, proved, give, trailing)
    return encode(sorted(proved.items()), items), root


def compile_proof(leaves, proved):
    """Honest payload proving leaf indexes `proved` of the MMR of `leaves`."""
    return prove(len(leaves), {i: leaves[i] for i in proved},
                 lambda f, h: node_hash(leaves, f, h))[0]


def spec_verify(payload, leaf_count, root):
    """The exit code of a version 2 payload: the checks in the order of
    crates/compiled-proof/src/compact.rs (steps 1-7), then the root."""
    if leaf_count == 0 or leaf_count >= 1 << 50:
        return 40
    if len(payload) == 0:
        return 41
    if payload[0] != 0x02:
        return 65
    pos = 1

    def read(truncated):
        nonlocal pos
        value = shift = 0
        while True:
            if pos == len(payload):
                return truncated, None
            byte = payload[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                if byte == 0 and shift != 0:
                    return 66, None
                return 0, value
            shift += 7
            if shift == 56:
                return 67, None

    code, n = read(41)
    if code:
        return code
    if n == 0:
        return 42
    indexes, nxt = [], 0
    for _ in range(n):
        code, gap = read(68)
        if code:
            return code
        if nxt + gap >= leaf_count:
            return 49
        indexes.append(nxt + gap)
        nxt = nxt + gap + 1
    if len(payload) - pos < 32 * n:
        return 43
    proved = {i: payload[pos + 32 * k:pos + 32 * k + 32] for k, i in enumerate(indexes)}
    at = pos + 32 * n

    def take(*_):
        nonlocal at
        if len(payload) - at < 32:
            raise Short()
        at += 32
        return payload[at - 32:at]

    try:
        got = evaluate(leaf_count, proved, take, take)
    except Short:
        return 46
    if at != len(payload):
        return 45
    return 0 if got == root else 9


# ---- lock level (mmr_lock) --------------------------------------------------------------


def witness_args(lock=None, input_type=None, output_type=None):
    body, offsets = b"", []
    for f in (lock, input_type, output_type):
        offsets.append(16 + len(body))
        if f is not None:
            body += struct.pack("<I", len(f)) + f
    return struct.pack("<IIII", 16 + len(body), *offsets) + body


def args_of(root, size):
    return root + struct.pack("<Q", size)


# ---- writers ----------------------------------------------------------------------------


def hx(b):
    return b.hex() if b else "-"


class Out:
    def __init__(self, path):
        self.f = open(path, "w")
        self.count = 0

    def comment(self, text):
        self.f.write("# " + text + "\n")

    def p(self, payload, root, size, code, label=""):
        self.f.write("P %s %s %d %d %s\n" % (hx(payload), root.hex(), size, code, label))
        self.count += 1

    def l(self, args, witness, code, label=""):
        w = "none" if witness is None else hx(witness)
        self.f.write("L %s %s %d %s\n" % (hx(args), w, code, label))
        self.count += 1


def lock_expected(args, witness):
    """The whole lock, for vectors whose payload goes through spec_verify. The emulated
    transaction's only input is the lock's own cell, so owner mode (41-byte args, flags
    0x01) ends in 80 OwnerNotFound once the proof verifies (docs/deploy.md); its only cell
    dep is the verifier's code, no accumulator, so by-reference args (33 bytes, flags 0x02 or
    0x03) end in 90 AccumulatorNotFound."""
    if len(args) == 33:
        return 90 if args[32] in (0x02, 0x03) else 2
    if len(args) == 41:
        if args[40] != 0x01:
            return 2
        owner = True
    elif len(args) == 40:
        owner = False
    else:
        return 1
    size = struct.unpack_from("<Q", args, 32)[0]
    lc = leaf_count_of(size)
    if lc is None:
        return 8
    if witness is None:
        return 3
    if len(witness) > MAX_WITNESS:
        return 4
    w = witness
    if len(w) < 4:
        return 5
    total = struct.unpack_from("<I", w, 0)[0]
    if total != len(w) or total < 16:
        return 5
    if struct.unpack_from("<I", w, 4)[0] != 16:
        return 5
    offs = list(struct.unpack_from("<III", w, 4)) + [total]
    lock = None
    for i in range(3):
        s, e = offs[i], offs[i + 1]
        if s > e or e > len(w):
            return 5
        if s == e:
            continue
        if e - s < 4 or struct.unpack_from("<I", w, s)[0] != e - s - 4:
            return 5
        if i == 0:
            lock = w[s + 4:e]
    if lock is None:
        return 6
    code = spec_verify(lock, lc, args[:32])
    if code == 0 and owner:
        return 80
    return code


def leaf_values(n, tag=0):
    return [hashlib.sha256(b"leaf %d %d" % (tag, i)).digest() for i in range(n)]


def worked_example(out):
    leaves = [bytes([0x11 * (i + 1)]) * 32 for i in range(5)]
    n01, n23 = merge(leaves[0], leaves[1]), merge(leaves[2], leaves[3])
    p0 = merge(n01, n23)
    root = merge(leaves[4], p0)
    assert root.hex() == "723d067445ce7c39481a7a28195deb3c8946548b92c7b98fe6bcc78b4607684b"
    # crates/compiled-proof/tests/compact.rs, worked_example: leaves 0 and 3 of 5
    payload = bytes.fromhex("02020002" + "11" * 32 + "44" * 32 + "22" * 32 + "33" * 32 +
                            "55" * 32)
    assert len(payload) == 164
    assert compile_proof(leaves, [0, 3]) == payload
    assert root_of(leaves) == root
    size = 8
    out.comment("the compact format's worked example (version 2) and its rejections")
    with_head = lambda head: head + payload[4:]
    cases = [(payload, 0, "worked-example")]
    cases.append((payload[:-1], 46, "drop-last-byte"))
    cases.append((payload[:4 + 64], 46, "values-only"))
    cases.append((payload[:4 + 63], 43, "values-cut"))
    cases.append((payload + b"\x00", 45, "append-00"))
    cases.append((payload + bytes(32), 45, "append-item"))
    cases.append((with_head(b"\x02\x02\x01\x01"), 9, "first-index-1"))
    cases.append((with_head(b"\x02\x03\x00\x02\x00"), 9, "three-leaves-claimed"))
    cases.append((b"\x02\x01\x00" + payload[4:], 45, "one-leaf-claimed"))
    cases.append((with_head(b"\x02\x02\x00\x04"), 49, "gap-4-names-leaf-5"))
    cases.append((with_head(b"\x02\x02\x05\x00"), 49, "first-index-5"))
    cases.append((with_head(b"\x01\x02\x00\x02"), 65, "version-1"))
    cases.append((with_head(b"\x03\x02\x00\x02"), 65, "version-3"))
    cases.append((with_head(b"\x00\x02\x00\x02"), 65, "version-0"))
    cases.append((with_head(b"\x02\x00\x00\x02"), 42, "n-0"))
    cases.append((with_head(b"\x02\x82\x00\x00\x02"), 66, "n-non-canonical"))
    cases.append((with_head(b"\x02\x02\x80\x00\x02"), 66, "gap-non-canonical"))
    for pl, code, label in cases:
        assert spec_verify(pl, 5, root) == code, (label, spec_verify(pl, 5, root))
        out.p(pl, root, size, code, label)
    out.p(payload, bytes(32), size, 9, "wrong-root")
    for s, code in ((7, 0), (9, 8), (0, 8), (MAX_MMR_SIZE + 1, 8)):
        lc = leaf_count_of(s)
        exp = 8 if lc is None else spec_verify(payload, lc, root)
        assert code == 0 or exp == code
        out.p(payload, root, s, exp, "size-%d" % s)


def honest(out, rng):
    out.comment("honest proofs: every non-empty subset for leaf_count 1..6, samples up to 40")
    total = 0
    for lc in range(1, 41):
        leaves = leaf_values(lc, lc)
        root = root_of(leaves)
        size = mmr_size_of(lc)
        if lc <= 6:
            subsets = [[i for i in range(lc) if m >> i & 1] for m in range(1, 1 << lc)]
        else:
            subsets = [[i] for i in range(lc)] + [list(range(lc))]
            for _ in range(6):
                k = rng.randint(1, lc)
                subsets.append(sorted(rng.sample(range(lc), k)))
        for sub in subsets:
            pl = compile_proof(leaves, sub)
            label = "lc%d-%s" % (lc, ",".join(map(str, sub)))
            assert spec_verify(pl, lc, root) == 0, label
            out.p(pl, root, size, 0, label)
            total += 1
    return total


def header_len(pl):
    """Bytes of the version, count and index varints of an honest payload."""
    pos, groups, n = 1, 0, None
    while n is None or groups < n + 1:
        if pl[pos] < 0x80:
            if n is None:
                n = sum((pl[k] & 0x7F) << (7 * (k - 1)) for k in range(1, pos + 1))
            groups += 1
        pos += 1
    return pos


def mutations(out, rng):
    out.comment("mutated honest proofs; expected codes from spec_verify")
    for lc in list(range(1, 20)) + [31, 32, 33, 63, 64, 100, 200, 1000]:
        leaves = leaf_values(lc, 1000 + lc)
        root = root_of(leaves)
        size = mmr_size_of(lc)
        for _ in range(30):
            k = rng.randint(1, min(lc, 6))
            sub = sorted(rng.sample(range(lc), k))
            pl = bytearray(compile_proof(leaves, sub))
            hl = header_len(pl)
            kind = rng.randrange(10)
            if kind == 0:  # flip a bit
                i = rng.randrange(len(pl))
                pl[i] ^= 1 << rng.randrange(8)
            elif kind == 1:  # truncate
                del pl[rng.randrange(len(pl)):]
            elif kind == 2:  # append
                pl += bytes([rng.randrange(256)]) * rng.randint(1, 40)
            elif kind == 3:  # a header byte set to anything
                pl[rng.randrange(hl)] = rng.choice([0, 1, 2, 0x7F, 0x80, 0x81, 0xFF,
                                                    rng.randrange(256)])
            elif kind == 4:  # a gap re-encoded: longer (non-canonical) or replaced
                at = rng.randrange(2, hl)
                if rng.random() < 0.5:
                    pl[at:at + 1] = bytes([pl[at] | 0x80, 0x00])
                else:
                    pl[at:at + 1] = varint(rng.choice([lc, lc - 1, 2 ** 49, 2 ** 56 - 1,
                                                       rng.randrange(lc)]))
            elif kind == 5:  # change n
                pl[1:2] = varint(rng.choice([0, k - 1, k + 1, 127, 128, 2 ** 56 - 1]))
            elif kind == 6:  # delete a range after the header
                if hl < len(pl):
                    a = rng.randrange(hl, len(pl))
                    del pl[a:a + rng.choice([1, 31, 32, 33])]
            elif kind == 7:  # insert a hash
                a = hl + 32 * rng.randrange((len(pl) - hl) // 32 + 1)
                pl[a:a] = rng.choice([bytes(32), root, leaves[0]])
            elif kind == 8:  # swap two hashes (values or items)
                m = (len(pl) - hl) // 32
                if m >= 2:
                    a, b = sorted(rng.sample(range(m), 2))
                    x, y = hl + 32 * a, hl + 32 * b
                    pl[x:x + 32], pl[y:y + 32] = pl[y:y + 32], pl[x:x + 32]
            else:  # an eight-byte varint for a gap (too long with a continuation)
                at = rng.randrange(2, hl)
                pl[at:at + 1] = b"\x80" * rng.choice([7, 8]) + b"\x00"
            pl = bytes(pl)
            code = spec_verify(pl, lc, root)
            MUTATION_CODES[code] = MUTATION_CODES.get(code, 0) + 1
            out.p(pl, root, size, code, "mut%d-lc%d" % (kind, lc))


def crafted(out):
    """Targeted rejections, one or more per code of version 2, reasoned by hand (and
    checked against spec_verify)."""
    out.comment("crafted rejections: codes 41-43, 45, 46, 49, 65-68 and 9")
    L = leaf_values(64, 7)
    cases = []
    r1 = root_of(L[:1])
    cases.append((b"\x02\x01\x00" + L[0], 1, r1, 0, "lc1-honest"))
    cases.append((b"\x02\x00" + r1, 1, r1, 42, "lc1-root-as-item-no-leaves"))
    cases.append((b"\x02\x01\x00" + L[0] + r1, 1, r1, 45, "lc1-leaf-and-root"))
    cases.append((b"", 1, r1, 41, "empty"))
    cases.append((b"\x02", 1, r1, 41, "version-only"))
    cases.append((b"\x02\x80", 1, r1, 41, "count-cut"))
    cases.append((b"\x01", 1, r1, 65, "version-1-only"))
    cases.append((b"\x01\x00\x00\x00\x00" + L[0], 1, r1, 65, "v1-header"))
    cases.append((b"\x02\x80\x00" + L[0], 1, r1, 66, "count-0-in-two-bytes"))
    cases.append((b"\x02\x81\x00" + L[0], 1, r1, 66, "count-1-in-two-bytes"))
    cases.append((b"\x02" + b"\x80" * 8, 1, r1, 67, "count-eight-continuations"))
    cases.append((b"\x02" + b"\xff" * 7 + b"\x7f", 1, r1, 68, "count-2^56-1"))
    cases.append((b"\x02\x01", 1, r1, 68, "no-index"))
    cases.append((b"\x02\x01\x80", 1, r1, 68, "index-cut"))
    cases.append((b"\x02\x01\x80\x00" + L[0], 1, r1, 66, "index-0-in-two-bytes"))
    cases.append((b"\x02\x01" + b"\x80" * 7 + b"\x00" + L[0], 1, r1, 66, "index-0-in-eight"))
    cases.append((b"\x02\x01" + b"\x80" * 8 + L[0], 1, r1, 67, "index-nine-bytes"))
    cases.append((b"\x02\x01\x01" + L[0], 1, r1, 49, "index-1-of-1"))
    cases.append((b"\x02\x01" + b"\xff" * 7 + b"\x7f" + L[0], 1, r1, 49, "index-2^56-1"))
    cases.append((b"\x02\x01\x00", 1, r1, 43, "no-value"))
    cases.append((b"\x02\x01\x00" + L[0][:31], 1, r1, 43, "value-31"))
    cases.append((b"\x02\x01\x00" + L[0] + b"\x00", 1, r1, 45, "trailing-byte"))
    # 3 leaves (size 4): peaks (0,1) and (2,0)
    L3 = L[:3]
    r3 = root_of(L3)
    p0 = merge(L3[0], L3[1])
    cases.append((b"\x02\x01\x02" + L3[2] + p0, 3, r3, 0, "lc3-leaf2"))
    cases.append((b"\x02\x01\x00" + L3[0] + L3[1] + L3[2], 3, r3, 0, "lc3-leaf0"))
    cases.append((b"\x02\x01\x00" + L3[0] + L3[1], 3, r3, 46, "lc3-leaf0-no-last-peak"))
    cases.append((b"\x02\x01\x00" + L3[0] + L3[1] + L3[2][:31], 3, r3, 46, "lc3-item-31"))
    cases.append((b"\x02\x02\x00\x00" + L3[0] + L3[1] + L3[2], 3, r3, 0, "lc3-leaf01"))
    cases.append((b"\x02\x03\x00\x00\x00" + L3[0] + L3[1] + L3[2], 3, r3, 0, "lc3-all"))
    cases.append((b"\x02\x02\x01\x00" + L3[1] + L3[2] + L3[0], 3, r3, 0, "lc3-leaf12"))
    cases.append((b"\x02\x02\x00\x00" + L3[0] + L3[0] + L3[2], 3, r3, 9, "lc3-dup-value"))
    cases.append((b"\x02\x02\x00\x02" + L3[0] + L3[1] + L3[2], 3, r3, 49, "lc3-gap-past"))
    # the root (bagged peaks) passed off as the left peak
    cases.append((b"\x02\x01\x02" + L3[2] + r3, 3, r3, 9, "lc3-bag-as-peak"))
    # a leaf moved to another index changes a hashing side
    cases.append((b"\x02\x01\x01" + L3[0] + L3[1] + L3[2], 3, r3, 9, "lc3-leaf0-at-1"))
    # 7 leaves: one item bags the two leafless peaks on the right
    L7 = L[:7]
    r7 = root_of(L7)
    pk = [node_hash(L7, s, h) for s, h in peaks_of(7)]
    pl = b"\x02\x01\x00" + L7[0] + L7[1] + merge(L7[2], L7[3])
    cases.append((pl + merge(pk[2], pk[1]), 7, r7, 0, "lc7-bagged"))
    cases.append((pl + pk[1] + pk[2], 7, r7, 45, "lc7-peaks-one-by-one"))
    cases.append((pl + pk[1], 7, r7, 9, "lc7-one-peak-for-two"))
    cases.append((pl, 7, r7, 46, "lc7-no-bag"))
    # 64 leaves, all proved: no items at all
    allv = b"".join(L)
    r64 = root_of(L)
    cases.append((b"\x02\x40" + b"\x00" * 64 + allv, 64, r64, 0, "lc64-all"))
    cases.append((b"\x02\x40" + b"\x00" * 64 + allv + L[0], 64, r64, 45, "lc64-all-extra"))
    cases.append((b"\x02\x41" + b"\x00" * 64, 64, r64, 68, "lc64-65-claimed-64-given"))
    # the 65th gap is the first value's first byte: an index past the MMR, or a cut varint
    cases.append((b"\x02\x41" + b"\x00" * 64 + b"\x05" + allv, 64, r64, 49, "lc64-65-claimed"))
    cases.append((b"\x02\x40" + b"\x00" * 63 + b"\x01" + allv, 64, r64, 49, "lc64-index-64"))
    for pl, lc, root, code, label in cases:
        got = spec_verify(pl, lc, root)
        assert got == code, (label, got, code)
        out.p(pl, root, mmr_size_of(lc), code, label)


def sparse_proof(leaf_count, proved):
    """Honest payload and root for an MMR of leaf_count leaves (any size) in which only the
    proved leaves {index: value} are known; every leafless subtree gets a made-up hash."""
    return prove(leaf_count, proved,
                 lambda f, h: hashlib.sha256(b"node %d %d" % (f, h)).digest())


def deep(out):
    """The largest MMRs the lock accepts: mmr_size 2^50 (leaf_count 2^49 + 1, peaks of
    heights 49 and 0), 49-level proofs and the deepest honest stack (50 entries)."""
    out.comment("largest MMR (size 2^50, 2^49 + 1 leaves): deep proofs, deepest stack")
    lc = (1 << 49) + 1
    size = mmr_size_of(lc)
    assert size == MAX_MMR_SIZE and leaf_count_of(size) == lc

    def v(i):
        return hashlib.sha256(b"deep %d" % i).digest()

    cases = []
    for name, idx in (("last-leaf", [lc - 1]), ("first-leaf", [0]),
                      ("end-of-peak0", [(1 << 49) - 1]), ("first-and-last", [0, lc - 1])):
        pl, root = sparse_proof(lc, {i: v(i) for i in idx})
        cases.append((pl, root, 0, name))
    # 50 leaves: 0, 2^48, 2^48 + 2^47, ..., 2^49 - 1: 49 nodes wait, then the last leaf
    # of peak 0 pops them all; peak 1 is an item
    idx = [0] + [(1 << 49) - (1 << j) for j in range(48, -1, -1)]
    pl, root = sparse_proof(lc, {i: v(i) for i in idx})
    assert len(pl) < MAX_WITNESS - 20
    cases.append((pl, root, 0, "stack-50"))
    pl, root = sparse_proof(lc, {lc - 1: v(0)})
    # index lc - 2 is in the other peak: it needs 49 items there
    for index, code, label in ((lc, 49, "index-leaf_count"), (lc - 2, 46, "index-in-other-peak")):
        bad = bytearray(pl)
        bad[2:2 + len(varint(lc - 1))] = varint(index)
        cases.append((bytes(bad), root, code, label))
    for pl, root, code, label in cases:
        got = spec_verify(pl, lc, root)
        assert got == code, (label, got)
        out.p(pl, root, size, code, "deep-" + label)
    out.p(cases[0][0], cases[0][1], size + 1, 8, "deep-size+1")


def lock_vectors(out):
    out.comment("lock level (codes 1-9, 80, 90), L lines: raw args and raw witness")
    L3 = leaf_values(3, 3)
    r3 = root_of(L3)
    good = compile_proof(L3, [1])
    assert good[0] == 0x02
    args = args_of(r3, 4)
    cases = []
    cases.append((args, witness_args(good), 0, "ok"))
    cases.append((args, witness_args(good, b"in", b"out"), 0, "ok-with-other-fields"))
    cases.append((args[:39], witness_args(good), 1, "args-39"))
    cases.append((args + b"\x00", witness_args(good), 2, "args-41"))
    # owner mode: flags byte exactly 0x01; checked before mmr_size; the proof before the owner
    owner = args + b"\x01"
    for flags in (0x02, 0x03, 0x80, 0x81, 0xFF):
        cases.append((args + bytes([flags]), witness_args(good), 2, "args-41-flags-%02x" % flags))
    cases.append((args_of(r3, 5) + b"\x00", witness_args(good), 2, "args-41-flags-00-size-5"))
    cases.append((args + b"\x01\x00", witness_args(good), 1, "args-42"))
    cases.append((owner, witness_args(good), 80, "owner-no-owner-input"))
    cases.append((args_of(r3, 5) + b"\x01", witness_args(good), 8, "owner-size-5"))
    cases.append((owner, None, 3, "owner-no-witness"))
    cases.append((owner, witness_args(b""), 41, "owner-lock-empty"))
    cases.append((args_of(bytes(32), 4) + b"\x01", witness_args(good), 9, "owner-root-mismatch"))
    cases.append((b"", witness_args(good), 1, "args-empty"))
    cases.append((args[:39], None, 1, "args-39-no-witness"))
    # by reference: 33 bytes, flags 0x02 or 0x03 (the transaction has no accumulator), checked
    # before the witness; other flags are 2, other short lengths 1
    for flags in (0x02, 0x03):
        cases.append((args[:32] + bytes([flags]), witness_args(good), 90,
                      "ref-%02x-no-accumulator" % flags))
        cases.append((args[:32] + bytes([flags]), None, 90, "ref-%02x-no-witness" % flags))
    for flags in (0x00, 0x01, 0x04, 0x06, 0x82, 0xFF):
        cases.append((args[:32] + bytes([flags]), witness_args(good), 2, "ref-flags-%02x" % flags))
    for n in (32, 34):
        cases.append((args[:32] + b"\x02\x02"[:n - 32], witness_args(good), 1, "args-%d" % n))
    cases.append((args_of(r3, 5), witness_args(good), 8, "size-5"))
    cases.append((args_of(r3, 0), witness_args(good), 8, "size-0"))
    cases.append((args_of(r3, 2 ** 64 - 1), witness_args(good), 8, "size-max"))
    cases.append((args_of(r3, 5), None, 8, "size-5-no-witness"))
    cases.append((args, None, 3, "no-witness"))
    cases.append((args, b"", 5, "empty-witness"))
    cases.append((args, witness_args(None, good), 6, "lock-none"))
    cases.append((args, witness_args(), 6, "all-none"))
    cases.append((args, witness_args(b""), 41, "lock-empty"))
    w = witness_args(good)
    for cut in (1, 3, 4, 15, 16, 19, 20, len(w) - 1):
        cases.append((args, w[:cut], 5, "cut-%d" % cut))
    cases.append((args, w + b"\x00", 5, "extra-byte"))
    for at, value, label in ((16, len(good) + 1, "bytes-len-mismatch"), (4, 12, "first-offset-12"),
                             (8, 10, "unordered-offsets"), (12, len(w) + 4, "offset-past-end")):
        bad = bytearray(w)
        struct.pack_into("<I", bad, at, value)
        cases.append((args, bytes(bad), 5, label))
    # lock None but output_type malformed: encoding error first
    wn = bytearray(witness_args(None, None, b"x"))
    struct.pack_into("<I", wn, 16, 2)
    cases.append((args, bytes(wn), 5, "lock-none-bad-output"))
    # four-field table (compatible extension) is rejected
    four = struct.pack("<IIIII", 20, 20, 20, 20, 20)
    cases.append((args, four, 5, "four-fields"))
    # sizes around the witness limit: pad input_type so the witness is exactly 65536 / 65537
    for total, code in ((MAX_WITNESS, 0), (MAX_WITNESS + 1, 4)):
        pad = total - len(witness_args(good, b""))
        cases.append((args, witness_args(good, bytes(pad)), code, "witness-%d" % total))
    cases.append((args, witness_args(good + b"\x00" * (MAX_WITNESS - 20 - len(good) + 1)), 4,
                  "payload-too-long"))
    cases.append((args_of(bytes(32), 4), witness_args(good), 9, "root-mismatch"))
    for a, wit, code, label in cases:
        got = lock_expected(a, wit)
        assert got == code, (label, got, code)
        out.l(a, wit, code, label)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "vectors")
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(20240601)
    counts = {}
    for name, fn in (("spec", worked_example), ("crafted", crafted), ("lock", lock_vectors),
                     ("deep", deep),
                     ("honest", lambda o: honest(o, rng)),
                     ("mutations", lambda o: mutations(o, rng))):
        o = Out(os.path.join(out_dir, name + ".vec"))
        o.comment("generated by contracts/c-verifier/host/gen_vectors.py; see contracts/c-verifier/host/harness.c for the format")
        fn(o)
        counts[name] = o.count
        o.f.close()
    print(" ".join("%s=%d" % kv for kv in counts.items()))
    print("mutation codes:", " ".join("%d:%d" % kv for kv in sorted(MUTATION_CODES.items())))


if __name__ == "__main__":
    main()
