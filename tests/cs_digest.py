#!/usr/bin/env python3
"""cs_digest.py — an independent oracle for cuzk_cs_digest and cuzk_witness_digest.

Reads a constraint system dumped by tests/test_csb.c and prints two hex lines: the R1CS digest in the byte
layout of bellpepper-core's TestConstraintSystem::hash (BLAKE2s-256 over BE u64 num_inputs, num_aux,
num_constraints, then per row and per matrix A, B, C: BE u64 term count and per term 'I' or 'A', BE u64
index within its space, the 32-byte big-endian coefficient; terms of one variable merged, zeros dropped,
inputs before aux by index) and the witness digest (BLAKE2s-256 over the 32-byte little-endian values of
the inputs then the aux variables).

Dump format (text): "cs N_INPUTS N_AUX N_CONSTRAINTS", then one line per row and matrix "K col:hex ..."
with the unified column (inputs first, aux at N_INPUTS + j) and the coefficient as canonical big-endian
hex, terms as stored (possibly unsorted, repeated, cancelling); then "z" and one hex value (big-endian) per
line for the witness.
Usage: python3 cs_digest.py DUMP
"""
import hashlib
import struct
import sys

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def main(path):
    with open(path) as f:
        lines = [ln.split() for ln in f.read().splitlines()]
    head = lines[0]
    assert head[0] == "cs"
    n_in, n_aux, n_cons = int(head[1]), int(head[2]), int(head[3])
    h = hashlib.blake2s(digest_size=32)
    h.update(struct.pack(">QQQ", n_in, n_aux, n_cons))
    pos = 1
    for _ in range(n_cons):
        for _m in range(3):
            toks = lines[pos]
            pos += 1
            k = int(toks[0])
            acc = {}
            for t in toks[1:1 + k]:
                col, coef = t.split(":")
                col = int(col)
                acc[col] = (acc.get(col, 0) + int(coef, 16)) % R
            terms = sorted((c, v) for c, v in acc.items() if v)
            h.update(struct.pack(">Q", len(terms)))
            for col, v in terms:
                if col < n_in:
                    h.update(b"I" + struct.pack(">Q", col))
                else:
                    h.update(b"A" + struct.pack(">Q", col - n_in))
                h.update(v.to_bytes(32, "big"))
    print(h.hexdigest())
    assert lines[pos][0] == "z"
    w = hashlib.blake2s(digest_size=32)
    for toks in lines[pos + 1:pos + 1 + n_in + n_aux]:
        w.update(int(toks[0], 16).to_bytes(32, "little"))
    print(w.hexdigest())


if __name__ == "__main__":
    main(sys.argv[1])
