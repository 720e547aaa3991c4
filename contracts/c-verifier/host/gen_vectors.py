#!/usr/bin/env python3
"""Hand-made test vectors for the C verifier's host harness (contracts/c-verifier/host/run.sh).

Independent of the C and Rust code: hashing is Python's hashlib.blake2b with the CKB
personalization, the MMR is built by hand, honest proofs are compiled per section 5 of
docs/compiled-format.md, and expected codes of mutated payloads come from `spec_verify`, a
line-by-line transcription of section 4. The worked example of section 6 is checked against
the hashes printed in the spec.

Writes contracts/c-verifier/host/vectors/*.vec (format: see contracts/c-verifier/host/harness.c). Deterministic (fixed seed).

    python3 contracts/c-verifier/host/gen_vectors.py [OUT_DIR]
"""
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


# ---- compiler (section 5) ---------------------------------------------------------------


def compile_proof(leaves, proved, bag_rhs=True):
    """Honest payload proving leaf indexes `proved` (sorted, unique)."""
    proved = sorted(set(proved))
    pset = set(proved)
    out = bytearray(struct.pack("<I", len(proved)))
    for i in proved:
        out += struct.pack("<Q", i) + leaves[i]
    cmds = bytearray()

    def holds(first, h):
        return any(first <= i < first + (1 << h) for i in pset)

    def emit(first, h):
        if h == 0:
            cmds.append(0x01)
            return
        half = 1 << (h - 1)
        lhas, rhas = holds(first, h - 1), holds(first + half, h - 1)
        if lhas and rhas:
            emit(first, h - 1)
            emit(first + half, h - 1)
            cmds.append(0x02)
        elif lhas:
            emit(first, h - 1)
            cmds.append(0x03)
            cmds.extend(node_hash(leaves, first + half, h - 1))
        else:
            emit(first + half, h - 1)
            cmds.append(0x03)
            cmds.extend(node_hash(leaves, first, h - 1))

    peaks = peaks_of(len(leaves))
    k = 0
    while k < len(peaks):
        s, h = peaks[k]
        if holds(s, h):
            emit(s, h)
            cmds.append(0x04)
            k += 1
            continue
        rest = peaks[k:]
        if bag_rhs and len(rest) >= 2 and not any(holds(a, b) for a, b in rest):
            cmds.append(0x06)
            cmds.extend(bag([node_hash(leaves, a, b) for a, b in rest]))
            break
        cmds.append(0x05)
        cmds.extend(node_hash(leaves, s, h))
        k += 1
    return bytes(out + cmds)


# ---- section 4, transcribed -------------------------------------------------------------


def spec_verify(payload, leaf_count, root):
    if leaf_count == 0 or leaf_count >= 1 << 50:
        return 40
    ln = len(payload)
    if ln < 4:
        return 41
    n = struct.unpack_from("<I", payload, 0)[0]
    if n == 0:
        return 42
    if ln - 4 < 40 * n:
        return 43
    cmds = 4 + 40 * n
    stack = []  # [first, height, hash]
    base = used = 0
    rem = leaf_count
    st = {}

    def set_peak():
        st["H"] = rem.bit_length() - 1
        st["start"] = leaf_count - rem
        st["end"] = st["start"] + (1 << st["H"])
        st["next_min"] = st["start"]

    set_peak()
    pos = cmds
    while True:
        if pos == ln:
            if rem != 0:
                return 63
            break
        if rem == 0:
            return 45
        op = payload[pos]
        pos += 1
        if not 1 <= op <= 6:
            return 44
        item = None
        if op in (3, 5, 6):
            if ln - pos < 32:
                return 46
            item = payload[pos:pos + 32]
            pos += 32
        H = st["H"]
        if op == 1:
            if len(stack) == CAP:
                return 47
            if used == n:
                return 48
            rec = 4 + 40 * used
            index = struct.unpack_from("<Q", payload, rec)[0]
            value = payload[rec + 8:rec + 40]
            used += 1
            if index >= leaf_count:
                return 49
            if index < st["next_min"]:
                return 50
            if index >= st["end"]:
                return 51
            st["next_min"] = index + 1
            stack.append([index, 0, value])
        elif op == 2:
            if len(stack) - base < 2:
                return 54
            l, r = stack[-2], stack[-1]
            h = l[1]
            if r[1] != h:
                return 55
            if l[0] & (1 << h) or r[0] != l[0] + (1 << h):
                return 56
            l[2] = merge(l[2], r[2])
            l[1] = h + 1
            stack.pop()
        elif op == 3:
            if len(stack) == base:
                return 52
            t = stack[-1]
            h = t[1]
            if h == H:
                return 53
            if t[0] & (1 << h) == 0:
                t[2] = merge(t[2], item)
            else:
                t[2] = merge(item, t[2])
            t[0] &= ~(1 << h)
            t[1] = h + 1
        elif op == 4:
            if len(stack) == base:
                return 57
            if len(stack) - base > 1:
                return 58
            t = stack[-1]
            if t[1] != H or t[0] != st["start"]:
                return 59
            base += 1
            rem -= 1 << H
            if rem:
                set_peak()
        elif op == 5:
            if len(stack) != base:
                return 60
            stack.append([None, None, item])
            base += 1
            rem -= 1 << H
            if rem:
                set_peak()
        else:
            if len(stack) != base:
                return 61
            if bin(rem).count("1") < 2:
                return 62
            stack.append([None, None, item])
            base += 1
            rem = 0
    if used != n:
        return 64
    acc = stack[-1][2]
    for e in reversed(stack[:-1]):
        acc = merge(acc, e[2])
    return 0 if acc == root else 9


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

    def close(self):
        self.f.close()


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
    assert n01.hex() == "e994f19a5b320be7699c49732d5d6b029223e2bfdd128707a4c5991ef5d5b42f"
    assert n23.hex() == "dbc88b2a558520c026895c35133f4806c37c665e88bfd9c3480805014a16c4c9"
    assert p0.hex() == "fa6bd2cf74a79d1578c9546583aef8fa78fcf9a15c0d91c99a9122cc3ed7a87c"
    assert root.hex() == "723d067445ce7c39481a7a28195deb3c8946548b92c7b98fe6bcc78b4607684b"
    spec_hex = (
        "0200000000000000000000001111111111111111111111111111111111111111"
        "1111111111111111111111110300000000000000444444444444444444444444"
        "4444444444444444444444444444444444444444010322222222222222222222"
        "2222222222222222222222222222222222222222222201033333333333333333"
        "3333333333333333333333333333333333333333333333330204055555555555"
        "555555555555555555555555555555555555555555555555555555")
    payload = bytes.fromhex(spec_hex)
    assert len(payload) == 187
    assert compile_proof(leaves, [0, 3]) == payload
    assert root_of(leaves) == root
    size = 8
    out.comment("docs/compiled-format.md section 6: the worked example and its listed rejections")
    cases = [(payload, 0, "worked-example")]
    cases.append((payload[:-1], 46, "drop-last-byte"))
    cases.append((payload[:-33], 63, "drop-last-33"))
    cases.append((payload + b"\x00", 45, "append-00"))
    cases.append((payload + b"\x01", 45, "append-01"))
    cases.append((payload[:4] + struct.pack("<Q", 1) + payload[12:], 9, "first-index-1"))
    cases.append((payload[:4] + struct.pack("<Q", 4) + payload[12:], 51, "first-index-4"))
    cases.append((payload[:4] + payload[44:84] + payload[4:44] + payload[84:], 50, "swap-records"))
    cases.append((struct.pack("<I", 3) + payload[4:], 44, "n-3"))
    cases.append((struct.pack("<I", 5) + payload[4:], 43, "n-5"))
    for at in (84, 85, 118, 119, 152, 153, 154):  # every opcode position
        cases.append((payload[:at] + b"\x07" + payload[at + 1:], 44, "op07-at-%d" % at))
    for pl, code, label in cases:
        assert spec_verify(pl, 5, root) == code, label
        out.p(pl, root, size, code, label)
    # the same payload against other sizes and a wrong root
    out.p(payload, bytes(32), size, 9, "wrong-root")
    for s, code in ((7, 0), (9, 8), (0, 8), (MAX_MMR_SIZE + 1, 8)):
        lc = leaf_count_of(s)
        exp = 8 if lc is None else spec_verify(payload, lc, root)
        assert code == 0 or exp == code
        out.p(payload, root, s, exp, "size-%d" % s)


def honest(out, rng):
    out.comment("honest proofs: every non-empty subset for leaf_count 1..6, samples up to 33")
    total = 0
    for lc in range(1, 34):
        leaves = leaf_values(lc, lc)
        root = root_of(leaves)
        size = mmr_size_of(lc)
        if lc <= 6:
            subsets = [[i for i in range(lc) if m >> i & 1] for m in range(1, 1 << lc)]
        else:
            subsets = [[i] for i in range(lc)] + [list(range(lc))]
            for _ in range(4):
                k = rng.randint(1, lc)
                subsets.append(sorted(rng.sample(range(lc), k)))
        for sub in subsets:
            # PEAK_PROOF for every leafless peak is always legal; BAG_RHS only for >= 2
            with_bag = compile_proof(leaves, sub, bag_rhs=True)
            without = compile_proof(leaves, sub, bag_rhs=False)
            name = "lc%d-%s" % (lc, ",".join(map(str, sub)))
            for pl, label in ((with_bag, name), (without, name + "-nobag")):
                if label.endswith("-nobag") and pl == with_bag:
                    continue
                assert spec_verify(pl, lc, root) == 0, label
                out.p(pl, root, size, 0, label)
                total += 1
    return total


def mutations(out, rng):
    out.comment("mutated honest proofs; expected codes from spec_verify (section 4 transcribed)")
    for lc in list(range(1, 20)) + [31, 32, 33, 63, 64, 100]:
        leaves = leaf_values(lc, 1000 + lc)
        root = root_of(leaves)
        size = mmr_size_of(lc)
        for _ in range(25):
            k = rng.randint(1, min(lc, 6))
            sub = sorted(rng.sample(range(lc), k))
            pl = bytearray(compile_proof(leaves, sub, bag_rhs=rng.random() < 0.7))
            kind = rng.randrange(9)
            if kind == 0:  # flip a byte
                i = rng.randrange(len(pl))
                pl[i] ^= 1 << rng.randrange(8)
            elif kind == 1:  # truncate
                del pl[rng.randrange(len(pl)):]
            elif kind == 2:  # append
                pl += bytes([rng.randrange(256)]) * rng.randint(1, 40)
            elif kind == 3:  # set an opcode byte of the command stream
                start = 4 + 40 * k
                if start < len(pl):
                    pl[rng.randrange(start, len(pl))] = rng.randrange(0, 9)
            elif kind == 4:  # change a leaf index
                r = rng.randrange(k)
                v = rng.choice([0, 1, lc - 1, lc, lc + 1, 2 ** 63, 2 ** 64 - 1,
                                rng.randrange(lc)])
                struct.pack_into("<Q", pl, 4 + 40 * r, v % 2 ** 64)
            elif kind == 5:  # change n
                struct.pack_into("<I", pl, 0, rng.choice([0, k - 1, k + 1, 2 ** 32 - 1]) % 2 ** 32)
            elif kind == 6:  # delete a command-area byte range
                start = 4 + 40 * k
                if start < len(pl):
                    a = rng.randrange(start, len(pl))
                    del pl[a:a + rng.choice([1, 32, 33, 34])]
            elif kind == 7:  # insert a command
                start = 4 + 40 * k
                a = rng.randrange(start, len(pl) + 1)
                op = rng.randrange(1, 7)
                ins = bytes([op]) + (bytes(32) if op in (3, 5, 6) else b"")
                pl[a:a] = ins
            else:  # duplicate a leaf record
                r = rng.randrange(k)
                rec = pl[4 + 40 * r:4 + 40 * r + 40]
                pl[4 + 40 * r:4 + 40 * r] = rec
                struct.pack_into("<I", pl, 0, k + 1)
            pl = bytes(pl)
            code = spec_verify(pl, lc, root)
            MUTATION_CODES[code] = MUTATION_CODES.get(code, 0) + 1
            out.p(pl, root, size, code, "mut%d-lc%d" % (kind, lc))


def crafted(out):
    """Targeted rejections, codes reasoned by hand (and checked against spec_verify)."""
    out.comment("crafted rejections, one or more per code 40-64")

    def item(b):
        return bytes([b]) * 32

    def rec(i, v):
        return struct.pack("<Q", i % 2 ** 64) + v

    def hdr(n):
        return struct.pack("<I", n)

    L = leaf_values(64, 7)
    cases = []
    # 1 leaf MMR: honest, and the root pushed as a proof item without leaves
    r1 = root_of(L[:1])
    cases.append((hdr(1) + rec(0, L[0]) + b"\x01\x04", 1, r1, 0, "lc1-honest"))
    cases.append((hdr(0) + b"\x05" + r1, 1, r1, 42, "lc1-root-as-peak-proof"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x05" + r1, 1, r1, 64, "lc1-peak-proof-unused-leaf"))
    cases.append((b"", 1, r1, 41, "empty"))
    cases.append((b"\x01\x00\x00", 1, r1, 41, "3-bytes"))
    cases.append((hdr(1), 1, r1, 43, "n1-no-record"))
    cases.append((hdr(1) + rec(0, L[0])[:39], 1, r1, 43, "n1-39"))
    cases.append((hdr(1) + rec(0, L[0]), 1, r1, 63, "no-commands"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x00", 1, r1, 44, "op00"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\xff", 1, r1, 44, "opff"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x01\x04\x04", 1, r1, 45, "trailing-peak"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x01\x04\xff", 1, r1, 45, "trailing-before-unknown"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x01\x03" + item(1)[:31], 1, r1, 46, "item-31"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x01\x03" + item(1), 1, r1, 53, "proof-over-peak"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x01\x01", 1, r1, 48, "leaves-exhausted"))
    cases.append((hdr(1) + rec(1, L[0]) + b"\x01\x04", 1, r1, 49, "index-1-of-1"))
    cases.append((hdr(1) + rec(2 ** 64 - 1, L[0]) + b"\x01\x04", 1, r1, 49, "index-max"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x03" + item(1), 1, r1, 52, "proof-empty"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x02", 1, r1, 54, "merge-empty"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x04", 1, r1, 57, "peak-empty"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x06" + r1, 1, r1, 62, "bag-one-peak"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x01\x05" + r1, 1, r1, 60, "peak-proof-pending"))
    cases.append((hdr(1) + rec(0, L[0]) + b"\x01\x06" + r1, 1, r1, 61, "bag-pending"))
    # 3 leaves (size 4): peaks (0,1) and (2,0)
    L3 = L[:3]
    r3 = root_of(L3)
    p0 = merge(L3[0], L3[1])
    cases.append((hdr(1) + rec(2, L3[2]) + b"\x05" + p0 + b"\x01\x04", 3, r3, 0, "lc3-leaf2"))
    cases.append((hdr(1) + rec(0, L3[0]) + b"\x01\x03" + L3[1] + b"\x04\x05" + L3[2], 3, r3, 0,
                  "lc3-leaf0"))
    cases.append((hdr(2) + rec(0, L3[0]) + rec(1, L3[1]) + b"\x01\x01\x02\x04\x05" + L3[2], 3, r3,
                  0, "lc3-leaf01"))
    cases.append((hdr(3) + rec(0, L3[0]) + rec(1, L3[1]) + rec(2, L3[2]) +
                  b"\x01\x01\x02\x04\x01\x04", 3, r3, 0, "lc3-all"))
    cases.append((hdr(2) + rec(0, L3[0]) + rec(1, L3[1]) + b"\x01\x01\x04", 3, r3, 58,
                  "lc3-peak-pending"))
    cases.append((hdr(2) + rec(1, L3[1]) + rec(0, L3[0]) + b"\x01\x01", 3, r3, 50, "lc3-unsorted"))
    cases.append((hdr(2) + rec(0, L3[0]) + rec(0, L3[0]) + b"\x01\x01", 3, r3, 50, "lc3-dup"))
    cases.append((hdr(1) + rec(2, L3[2]) + b"\x01", 3, r3, 51, "lc3-leaf2-in-peak0"))
    cases.append((hdr(1) + rec(0, L3[0]) + b"\x01\x04", 3, r3, 59, "lc3-leaf-as-peak"))
    cases.append((hdr(2) + rec(0, L3[0]) + rec(2, L3[2]) + b"\x01\x01", 3, r3, 51,
                  "lc3-leaf2-before-peak"))
    cases.append((hdr(2) + rec(0, L3[0]) + rec(1, L3[1]) + b"\x01\x03" + L3[1] + b"\x01\x02", 3,
                  r3, 55, "lc3-merge-heights"))
    cases.append((hdr(2) + rec(1, L3[1]) + rec(2, L3[2]) + b"\x05" + p0 + b"\x01", 3, r3, 50,
                  "lc3-leaf-in-finished-peak"))
    # bagged pair passed off as a peak: peaks (0,1) + (2,0) bagged as one PEAK_PROOF
    cases.append((hdr(1) + rec(2, L3[2]) + b"\x05" + r3 + b"\x01\x04", 3, r3, 9,
                  "lc3-bag-as-peak-proof"))
    cases.append((hdr(1) + rec(0, L3[0]) + b"\x01\x03" + L3[1] + b"\x03" + L3[2] + b"\x04", 3, r3,
                  53, "lc3-hash-over-peak"))
    cases.append((hdr(1) + rec(0, L3[0]) + b"\x01\x03" + L3[1] + b"\x04\x06" + L3[2], 3, r3, 62,
                  "lc3-bag-one-left"))
    cases.append((hdr(1) + rec(0, L3[0]) + b"\x01\x03" + L3[1] + b"\x04", 3, r3, 63,
                  "lc3-missing-peak"))
    # 4 leaves: merge of non-siblings (1,0) + (2,0)
    L4 = L[:4]
    r4 = root_of(L4)
    cases.append((hdr(2) + rec(1, L4[1]) + rec(2, L4[2]) + b"\x01\x01\x02", 4, r4, 56,
                  "lc4-merge-not-siblings"))
    cases.append((hdr(2) + rec(0, L4[0]) + rec(2, L4[2]) + b"\x01\x01\x02", 4, r4, 56,
                  "lc4-merge-gap"))
    # 7 leaves: BAG_RHS over peaks 1,2 with a leaf in peak 0
    L7 = L[:7]
    r7 = root_of(L7)
    pk = [node_hash(L7, s, h) for s, h in peaks_of(7)]
    pl = hdr(1) + rec(0, L7[0]) + b"\x01\x03" + L7[1] + b"\x03" + merge(L7[2], L7[3]) + b"\x04"
    cases.append((pl + b"\x06" + merge(pk[2], pk[1]), 7, r7, 0, "lc7-bag-rhs"))
    cases.append((pl + b"\x05" + pk[1] + b"\x05" + pk[2], 7, r7, 0, "lc7-peak-proofs"))
    cases.append((pl + b"\x05" + pk[1] + b"\x06" + pk[2], 7, r7, 62, "lc7-bag-last"))
    # stack overflow: 2^50 - 1 leaves would be needed for an honest 64-deep stack; instead
    # push 64 leaves of a 64-leaf peak without merging, then one more.
    recs = b"".join(rec(i, L[i]) for i in range(64))
    r64 = root_of(L)
    cases.append((hdr(64) + recs + b"\x01" * 64, 64, r64, 63, "lc64-64-leaves-no-merge"))
    # the 65th LEAF finds the stack full before it finds the leaves exhausted (L1 before L2)
    cases.append((hdr(64) + recs + b"\x01" * 65, 64, r64, 47, "lc64-overflow-before-exhausted"))
    cases.append((hdr(65) + recs + rec(0, L[0]) + b"\x01" * 65, 64, r64, 47, "lc64-overflow"))
    for pl, lc, root, code, label in cases:
        got = spec_verify(pl, lc, root)
        assert got == code, (label, got, code)
        out.p(pl, root, mmr_size_of(lc), code, label)


def sparse_proof(leaf_count, proved, bag_rhs=True):
    """Honest payload and root for an MMR of leaf_count leaves (any size) in which only the
    proved leaves {index: value} are known; every leafless subtree gets a made-up hash."""
    def fake(first, h):
        return hashlib.sha256(b"node %d %d" % (first, h)).digest()

    def holds(first, h):
        return any(first <= i < first + (1 << h) for i in proved)

    cmds = bytearray()

    def emit(first, h):  # returns the node hash
        if h == 0:
            cmds.append(0x01)
            return proved[first]
        half = 1 << (h - 1)
        lhas, rhas = holds(first, h - 1), holds(first + half, h - 1)
        if lhas and rhas:
            a = emit(first, h - 1)
            b = emit(first + half, h - 1)
            cmds.append(0x02)
            return merge(a, b)
        if lhas:
            a = emit(first, h - 1)
            b = fake(first + half, h - 1)
            cmds.append(0x03)
            cmds.extend(b)
            return merge(a, b)
        b = emit(first + half, h - 1)
        a = fake(first, h - 1)
        cmds.append(0x03)
        cmds.extend(a)
        return merge(a, b)

    peaks = peaks_of(leaf_count)
    hashes = []
    k = 0
    while k < len(peaks):
        st, h = peaks[k]
        if holds(st, h):
            hashes.append(emit(st, h))
            cmds.append(0x04)
            k += 1
            continue
        rest = peaks[k:]
        if bag_rhs and len(rest) >= 2 and not any(holds(a, b) for a, b in rest):
            v = bag([fake(a, b) for a, b in rest])
            cmds.append(0x06)
            cmds.extend(v)
            hashes.append(v)
            break
        v = fake(st, h)
        cmds.append(0x05)
        cmds.extend(v)
        hashes.append(v)
        k += 1
    head = struct.pack("<I", len(proved)) + b"".join(
        struct.pack("<Q", i) + proved[i] for i in sorted(proved))
    return head + bytes(cmds), bag(hashes)


def deep(out):
    """The largest MMRs the lock accepts: mmr_size 2^50 (leaf_count 2^49 + 1, peaks of
    heights 49 and 0), a 49-level proof and the deepest honest stack (50 entries)."""
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
    # 50 leaves: 0, 2^48, 2^48 + 2^47, ..., 2^49 - 1: the post-order stack reaches 50
    idx = [0] + [(1 << 49) - (1 << j) for j in range(48, -1, -1)]
    pl, root = sparse_proof(lc, {i: v(i) for i in idx})
    assert len(pl) < MAX_WITNESS - 20
    cases.append((pl, root, 0, "stack-50"))
    # shifting: the last leaf claimed one index further, or inside peak 0
    pl, root = sparse_proof(lc, {lc - 1: v(0)})
    bad = bytearray(pl)
    struct.pack_into("<Q", bad, 4, lc)
    cases.append((bytes(bad), root, 49, "index-leaf_count"))
    struct.pack_into("<Q", bad, 4, lc - 2)
    cases.append((bytes(bad), root, 50, "index-in-finished-peak"))
    for pl, root, code, label in cases:
        got = spec_verify(pl, lc, root)
        assert got == code, (label, got)
        out.p(pl, root, size, code, "deep-" + label)
    # the same honest proof one size up is not an MMR size, and 2^50 + 1 is too large
    out.p(cases[0][0], cases[0][1], size + 1, 8, "deep-size+1")


def lock_vectors(out):
    out.comment("lock level (codes 1-9, 80, 90), L lines: raw args and raw witness")
    L3 = leaf_values(3, 3)
    r3 = root_of(L3)
    good = compile_proof(L3, [1])
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
    bad = bytearray(w)
    struct.pack_into("<I", bad, 16, len(good) + 1)
    cases.append((args, bytes(bad), 5, "bytes-len-mismatch"))
    bad = bytearray(w)
    struct.pack_into("<I", bad, 4, 12)
    cases.append((args, bytes(bad), 5, "first-offset-12"))
    bad = bytearray(w)
    struct.pack_into("<I", bad, 8, 10)
    cases.append((args, bytes(bad), 5, "unordered-offsets"))
    bad = bytearray(w)
    struct.pack_into("<I", bad, 12, len(w) + 4)
    cases.append((args, bytes(bad), 5, "offset-past-end"))
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
        o.close()
    print(" ".join("%s=%d" % kv for kv in counts.items()))
    print("mutation codes:", " ".join("%d:%d" % kv for kv in sorted(MUTATION_CODES.items())))


if __name__ == "__main__":
    main()
