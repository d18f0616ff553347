#!/usr/bin/env python3
# Usage (in the work dir of bench/versus-snarkjs.sh): python3 bench/gen-mulchain.py K, then PREBUILT=1.
# Writes versus.r1cs and versus.wtns for the mulchain of bench/versus-snarkjs.sh (N multiplications),
# laid out as circom2 0.2.23 + snarkjs wtns calculate lay them out (checked byte for byte at k=16).
import struct, sys
k = int(sys.argv[1]); N = (1 << k) - 16
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
M1 = (r - 1).to_bytes(32, 'little'); P1 = (1).to_bytes(32, 'little')
def term(w, c): return struct.pack('<I', w) + c
def lc(*ts): return struct.pack('<I', len(ts)) + b''.join(ts)
cons = [lc(term(2, M1)) + lc(term(3, P1)) + lc(term(4, M1))]
for i in range(1, N - 1):
    cons.append(lc(term(3 + i, M1)) + lc(term(2, P1)) + lc(term(3, P1), term(4 + i, M1)))
cons.append(lc(term(N + 2, M1)) + lc(term(2, P1)) + lc(term(1, M1), term(3, P1)))
s2 = b''.join(cons)
nw = N + 3
s1 = struct.pack('<I', 32) + r.to_bytes(32, 'little') + struct.pack('<IIIIQI', nw, 1, 0, 2, N + 4, N)
s3 = b''.join(struct.pack('<Q', i) for i in range(nw))
with open('versus.r1cs', 'wb') as f:
    f.write(b'r1cs' + struct.pack('<II', 1, 3))
    for sid, s in ((2, s2), (1, s1), (3, s3)):
        f.write(struct.pack('<IQ', sid, len(s)) + s)
a, b = 3, 11
t = [a * b % r]
for i in range(1, N):
    t.append((t[-1] * a + b) % r)
w = [1, t[N - 1], a, b] + t[:N - 1]
assert len(w) == nw
v = b''.join(x.to_bytes(32, 'little') for x in w)
h = struct.pack('<I', 32) + r.to_bytes(32, 'little') + struct.pack('<I', nw)
with open('versus.wtns', 'wb') as f:
    f.write(b'wtns' + struct.pack('<II', 2, 2) + struct.pack('<IQ', 1, len(h)) + h + struct.pack('<IQ', 2, len(v)) + v)
