#!/usr/bin/env python3
"""Reference Poseidon (neptune Strength::Standard over BLS12-381 Fr) for cuzk's tests.

A deliberately plain second implementation, independent of src/circuit/poseidon.c: big Python
integers, the textbook permutation only (no compressed constants, no sparse matrices). The Grain
LFSR is kept as one 80-bit integer whose top bit is the oldest state bit.

    poseidon-ref.py rounds WIDTH              -> "RF RP"
    poseidon-ref.py grain WIDTH RF RP [N]     -> N (default (RF+RP)*WIDTH) constants, one hex per line
    poseidon-ref.py hash ARITY TAG X1 .. Xa   -> the hash; TAG and Xi hex without 0x

Several commands may be given at once, separated by "--"; each one's output is followed by a line
"end". Round numbers and constants are computed once per process.

Hex output is 64 lowercase digits, big-endian, no prefix.
"""
import functools
import math
import struct
import sys

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def f32(x):
    """Round a Python float to the nearest IEEE single, as neptune's f32 arithmetic does."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def secure(width, rf, rp):
    n, m, t, p = f32(256.0), f32(128.0), f32(width), f32(rp)
    stat = 6.0 if m <= f32(f32(n - 3.0) * f32(t + 1.0)) else 10.0
    interp = f32(f32(f32(f32(0.43) * m) + f32(math.log2(t))) - p)
    grob1 = f32(f32(f32(0.21) * n) - p)
    grob2 = f32(f32(f32(f32(f32(0.14) * n) - 1.0) - p) / f32(t - 1.0))
    return rf >= max(math.ceil(b) for b in (stat, interp, grob1, grob2))


@functools.lru_cache(maxsize=None)
def round_numbers(width):
    best = None
    for rf in range(2, 1001, 2):
        for rp in range(4, 200):
            if secure(width, rf, rp):
                cand_rf, cand_rp = rf + 2, math.ceil(f32(f32(1.075) * f32(rp)))
                cost = width * cand_rf + cand_rp
                if best is None or cost < best[0]:
                    best = (cost, cand_rf, cand_rp)
    return best[1], best[2]


@functools.lru_cache(maxsize=None)
def grain(width, rf, rp, count):
    fields = [(2, 1), (4, 1), (12, 255), (12, width), (10, rf), (10, rp), (30, (1 << 30) - 1)]
    state = 0
    for nbits, value in fields:
        state = (state << nbits) | value
    mask = (1 << 80) - 1

    def step():
        nonlocal state
        # bit i of the sequence sits at position 79 - i (counting from the oldest)
        bit = 0
        for tap in (62, 51, 38, 23, 13, 0):
            bit ^= (state >> (79 - tap)) & 1
        state = ((state << 1) | bit) & mask
        return bit

    for _ in range(160):
        step()

    def out_bit():
        while True:
            a, b = step(), step()
            if a == 1:
                return b

    consts = []
    while len(consts) < count:
        v = 0
        for _ in range(255):
            v = (v << 1) | out_bit()
        if v < R:
            consts.append(v)
    return consts


def poseidon(arity, tag, xs):
    t = arity + 1
    rf, rp = round_numbers(t)
    rc = grain(t, rf, rp, (rf + rp) * t)
    mds = [[pow(i + j + t, R - 2, R) for j in range(t)] for i in range(t)]
    state = [tag % R] + [x % R for x in xs]
    for rnd in range(rf + rp):
        state = [(s + rc[rnd * t + i]) % R for i, s in enumerate(state)]
        full = rnd < rf // 2 or rnd >= rf // 2 + rp
        state = [pow(s, 5, R) if (full or i == 0) else s for i, s in enumerate(state)]
        state = [sum(state[i] * mds[i][j] for i in range(t)) % R for j in range(t)]
    return state[1]


def run(args):
    cmd = args[0] if args else ""
    if cmd == "rounds" and len(args) == 2:
        print(*round_numbers(int(args[1])))
    elif cmd == "grain" and len(args) in (4, 5):
        width, rf, rp = (int(a) for a in args[1:4])
        count = int(args[4]) if len(args) == 5 else (rf + rp) * width
        for c in grain(width, rf, rp, count):
            print("%064x" % c)
    elif cmd == "hash" and len(args) >= 3:
        arity = int(args[1])
        xs = [int(a, 16) for a in args[3:]]
        if len(xs) != arity:
            sys.exit("hash: %d inputs given for arity %d" % (len(xs), arity))
        print("%064x" % poseidon(arity, int(args[2], 16), xs))
    else:
        sys.exit(__doc__)


def main(argv):
    cmds = [[]]
    for a in argv[1:]:
        if a == "--":
            cmds.append([])
        else:
            cmds[-1].append(a)
    for c in cmds:
        run(c)
        if len(cmds) > 1:
            print("end")


if __name__ == "__main__":
    main(sys.argv)
