#!/usr/bin/env python3
"""Runs test vectors (contracts/c-verifier/host/harness.c format) on the real RISC-V binary in ckb-debugger.

For each vector it writes a mock transaction: one input locked by the verifier
(hash_type data2, args from the vector), the binary as a cell dep, witness 0 from the
vector (no witness for "none"), and compares ckb-debugger's `Run result` with the expected
code. Prints "N passed, M failed" (plus cycles of accepted vectors with -c) and exits
non-zero on any failure.

    python3 contracts/c-verifier/host/vm_run.py [--bin build/release/c-verifier] [--limit K] [-c] FILE...
"""
import argparse
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tempfile


def ckb_hash(data):
    return hashlib.blake2b(data, digest_size=32, person=b"ckb-default-hash").digest()


def h(b):
    return "0x" + b.hex()


def mock_tx(binary, args, witness):
    code_hash = ckb_hash(binary)
    out_point_dep = {"tx_hash": h(b"\x01" * 32), "index": "0x0"}
    out_point_in = {"tx_hash": h(b"\x02" * 32), "index": "0x0"}
    lock = {"code_hash": h(code_hash), "hash_type": "data2", "args": h(args)}
    always = {"code_hash": h(bytes(32)), "hash_type": "data", "args": "0x"}
    cell_dep = {"out_point": out_point_dep, "dep_type": "code"}
    cell_input = {"since": "0x0", "previous_output": out_point_in}
    return {
        "mock_info": {
            "inputs": [{"input": cell_input,
                        "output": {"capacity": "0x10000000000", "lock": lock, "type": None},
                        "data": "0x", "header": None}],
            "cell_deps": [{"cell_dep": cell_dep,
                           "output": {"capacity": "0x10000000000", "lock": always,
                                      "type": None},
                           "data": h(binary), "header": None}],
            "header_deps": [],
            "extensions": [],
        },
        "tx": {
            "version": "0x0",
            "cell_deps": [cell_dep],
            "header_deps": [],
            "inputs": [cell_input],
            "outputs": [],
            "outputs_data": [],
            "witnesses": [] if witness is None else [h(witness)],
        },
    }


def witness_args_lock(payload):
    n = 16 + 4 + len(payload)
    return struct.pack("<IIIII", n, 16, n, n, len(payload)) + payload


def unhex(t):
    return b"" if t == "-" else bytes.fromhex(t)


def vectors(path):
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            t = line.split()
            if not t or t[0].startswith("#"):
                continue
            if t[0] == "P":
                args = unhex(t[2]) + struct.pack("<Q", int(t[3], 0))
                yield lineno, args, witness_args_lock(unhex(t[1])), int(t[4]), " ".join(t[5:])
            elif t[0] == "L":
                w = None if t[2] == "none" else unhex(t[2])
                yield lineno, unhex(t[1]), w, int(t[3]), " ".join(t[4:])
            else:
                raise SystemExit("%s:%d: malformed vector line" % (path, lineno))


def run(binary, args, witness, tmp):
    path = os.path.join(tmp, "tx.json")
    with open(path, "w") as f:
        json.dump(mock_tx(binary, args, witness), f)
    p = subprocess.run(["ckb-debugger", "--tx-file", path, "--script", "input.0.lock"],
                       capture_output=True, text=True)
    m = re.search(r"Run result: (-?\d+)", p.stdout)
    c = re.search(r"All cycles: (\d+)", p.stdout)
    if not m:
        return None, None, p.stdout + p.stderr
    return int(m.group(1)), int(c.group(1)) if c else None, ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/release/c-verifier")
    ap.add_argument("--limit", type=int, default=0, help="at most K vectors per file")
    ap.add_argument("-c", "--cycles", action="store_true")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    binary = open(a.bin, "rb").read()
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in a.files:
            for k, (lineno, args, w, want, label) in enumerate(vectors(path)):
                if a.limit and k >= a.limit:
                    break
                got, cycles, err = run(binary, args, w, tmp)
                if got == want:
                    passed += 1
                    if a.cycles and want == 0:
                        print("%s:%d: %s cycles %s" % (path, lineno, label, cycles))
                else:
                    failed += 1
                    print("%s:%d: FAIL %s: expected %d, got %s %s" %
                          (path, lineno, label, want, got, err[:300]), file=sys.stderr)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
