#!/usr/bin/env bash
# versus-snarkjs.sh — wall-clock Groth16 prove time, `snarkjs groth16 prove` vs `cuzk prove`,
# on the same BLS12-381 zkey and witness.
#
# Usage: bash bench/versus-snarkjs.sh [k] [work-dir]
#   k         log2 of the evaluation domain (default 16)
#   work-dir  scratch directory (default /tmp/cuzk-versus-<k>); nothing is written to the repo
# Environment: CUZK (default build-versus/cuzk), RUNS (default 3), SETUP (default cuzk):
#   SETUP=cuzk     the zkey comes from `cuzk setup versus.r1cs versus.zkey` (random toxic waste,
#                  no powers of tau; NOT a trusted ceremony, which a benchmark does not need).
#   SETUP=snarkjs  the zkey comes from a beacon-only snarkjs ceremony (powersoftau new, beacon,
#                  prepare phase2, groth16 setup, zkey beacon); prepare phase2 alone did not finish
#                  in 10 minutes at 2^14 on the 2-core dev box.
#   PREBUILT=1     use the versus.r1cs and versus.wtns already in the work dir instead of compiling
#                  with circom2 and computing the witness (circom2 did not finish the 2^20 chain in
#                  38 minutes on the loaded 2-core dev box); they must be that circuit and witness:
#                  `python3 bench/gen-mulchain.py K` in the work dir writes them (byte-identical
#                  witness to snarkjs's at k = 16).
#
# Design notes
# - Circuit: a chain of N = 2^k - 16 multiplications, t[i] = t[i-1]*a + b (the fixtures'
#   mulchain, scaled up). One public output, two private inputs. The witness is dense: almost
#   every wire is a full-size random-looking field element, so it is the heavy case for the MSMs
#   (no 0/1 shortcut). The domain snarkjs uses is the next power of two >= N + nPublic + 1 = 2^k.
# - SETUP=snarkjs is beacon-only (no random contributions), as in scripts/fixtures/gen.sh: the
#   ptau (new + beacon + prepare phase2, the slow part) is cached in the work dir as
#   pot<k>_final.ptau and reused when present; its step times go to ceremony-times.txt.
#   Neither prover's speed depends on the toxic waste, only on the key's sizes, so both kinds of
#   key measure the same thing.
# - The compiled circuit and its witness are reused when the work dir already holds them for the
#   same versus.circom (circom2 takes minutes at 2^20); setup-times.txt then says "cached".
# - Timing is wall time from `date +%s.%N` around each process, so process start-up and file
#   loading are included on both sides. Runs are interleaved (snarkjs, cuzk -t2, cuzk -t1) x RUNS
#   so that drift in machine load hits all three alike. Node runs one job at a time.
# - Every proof produced is checked with `snarkjs groth16 verify`, and the last one of each
#   prover also with `cuzk verify`.
set -euo pipefail

K=${1:-16}
WORK=${2:-/tmp/cuzk-versus-$K}
RUNS=${RUNS:-3}
SETUP=${SETUP:-cuzk}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CUZK=${CUZK:-$ROOT/build-versus/cuzk}
NM=$ROOT/scripts/fixtures/node_modules
SNARKJS=(node "$NM/snarkjs/build/cli.cjs")
CIRCOM=(node "$NM/circom2/cli.js")
BEACON1=f12eb16c57091b2ddbbd2ff832a53c373b981ba2b77d4733090c32a2c812fa8c
BEACON2=86a4b72519fa27c015a9d74dc1c4194b12a95e235671dd6aa98069dcce8bff2b
N=$(( (1 << K) - 16 ))

[[ -x $CUZK ]] || { echo "no cuzk at $CUZK (build: cmake --build build-versus --target cuzk_cli)" >&2; exit 2; }
[[ $SETUP == cuzk || $SETUP == snarkjs ]] || { echo "SETUP must be cuzk or snarkjs, not '$SETUP'" >&2; exit 2; }
mkdir -p "$WORK"
cd "$WORK"

now() { date +%s.%N; }
# timed NAME FILE CMD...: runs CMD with output in log-NAME.txt, appends "NAME seconds" to FILE and,
# where GNU time exists, "NAME cpu-seconds" (user + system, all threads) to cpu-FILE
TIMECMD=()
[[ -x /usr/bin/time ]] && TIMECMD=(/usr/bin/time -f '%U %S' -o cpu.tmp)
timed() {
    local name=$1 file=$2; shift 2
    local t0 t1
    echo "+ $*" >&2
    t0=$(now)
    "${TIMECMD[@]}" "$@" > "log-$name.txt" 2>&1 || { echo "FAILED: $name (see $WORK/log-$name.txt)" >&2; tail -5 "log-$name.txt" >&2; exit 1; }
    t1=$(now)
    echo "$name $(echo "$t1 - $t0" | bc)" >> "$file"
    if [[ -s cpu.tmp ]]; then
        echo "$name $(awk '{print $1 + $2}' cpu.tmp)" >> "cpu-$file"
        rm -f cpu.tmp
    fi
}

echo "load before: $(uptime)"

# (a) circuit
cat > versus.circom.new <<EOF
pragma circom 2.1.0;
template MulChain(N) {
    signal input a;
    signal input b;
    signal output c;
    signal t[N];
    t[0] <== a * b;
    for (var i = 1; i < N; i++) {
        t[i] <== t[i-1] * a + b;
    }
    c <== t[N-1];
}
component main = MulChain($N);
EOF
echo '{"a": "3", "b": "11"}' > input.json
CACHED=0
if [[ ${PREBUILT:-0} == 1 ]]; then
    [[ -s versus.r1cs && -s versus.wtns ]] || { echo "PREBUILT=1 but $WORK lacks versus.r1cs or versus.wtns" >&2; exit 2; }
    CACHED=1
elif cmp -s versus.circom versus.circom.new && [[ -s versus.r1cs && -s versus_js/versus.wasm && -s versus.wtns ]]; then
    CACHED=1
fi
mv versus.circom.new versus.circom

# (c) phase 1 (SETUP=snarkjs only), cached
if [[ $SETUP == snarkjs ]]; then
    if [[ ! -s pot${K}_final.ptau ]]; then
        rm -f ceremony-times.txt
        timed ptau_new ceremony-times.txt "${SNARKJS[@]}" powersoftau new bls12-381 "$K" pot${K}_0000.ptau
        timed ptau_beacon ceremony-times.txt "${SNARKJS[@]}" powersoftau beacon pot${K}_0000.ptau \
            pot${K}_beacon.ptau $BEACON1 10 -n=versus-phase1-beacon
        timed ptau_prepare ceremony-times.txt "${SNARKJS[@]}" powersoftau prepare phase2 \
            pot${K}_beacon.ptau pot${K}_final.ptau.tmp
        mv pot${K}_final.ptau.tmp pot${K}_final.ptau
    else
        echo "reusing cached $WORK/pot${K}_final.ptau" >&2
    fi
fi

# (b) compile, (d) setup, (e) witness
rm -f setup-times.txt cpu-setup-times.txt
if [[ $CACHED == 1 ]]; then
    echo "reusing the circuit and witness in $WORK" >&2
    echo "circom cached${PREBUILT:+ (PREBUILT=$PREBUILT)}" >> setup-times.txt
else
    rm -f versus.wtns
    timed circom setup-times.txt "${CIRCOM[@]}" versus.circom --r1cs --wasm --prime bls12381 -o .
fi
timed r1cs_info setup-times.txt "${SNARKJS[@]}" r1cs info versus.r1cs
rm -f versus.zkey
if [[ $SETUP == snarkjs ]]; then
    timed groth16_setup setup-times.txt "${SNARKJS[@]}" groth16 setup versus.r1cs pot${K}_final.ptau versus_0000.zkey
    timed zkey_beacon setup-times.txt "${SNARKJS[@]}" zkey beacon versus_0000.zkey versus.zkey $BEACON2 10 -n=versus-phase2-beacon
else
    timed cuzk_setup setup-times.txt "$CUZK" setup versus.r1cs versus.zkey --threads 2 --verbose
fi
timed zkey_export_vk setup-times.txt "${SNARKJS[@]}" zkey export verificationkey versus.zkey verification_key.json
if [[ $CACHED == 1 ]]; then
    echo "wtns_calculate cached" >> setup-times.txt
else
    timed wtns_calculate setup-times.txt "${SNARKJS[@]}" wtns calculate versus_js/versus.wasm input.json versus.wtns
fi
sed 's/\x1b\[[0-9;]*m//g' log-r1cs_info.txt | grep -E 'Constraints|Wires|Private|Public|Outputs' || true
echo "zkey: $(stat -c %s versus.zkey) bytes (SETUP=$SETUP)"

# (f) interleaved prove runs
rm -f prove-times.txt cpu-prove-times.txt
for r in $(seq 1 "$RUNS"); do
    timed "snarkjs_$r" prove-times.txt "${SNARKJS[@]}" groth16 prove versus.zkey versus.wtns proof-snarkjs-$r.json public-snarkjs-$r.json
    timed "cuzk_t2_$r" prove-times.txt "$CUZK" prove versus.zkey versus.wtns proof-cuzk-t2-$r.json public-cuzk-t2-$r.json --threads 2 --verbose
    timed "cuzk_t1_$r" prove-times.txt "$CUZK" prove versus.zkey versus.wtns proof-cuzk-t1-$r.json public-cuzk-t1-$r.json --threads 1 --verbose
done

# (g) verification
for r in $(seq 1 "$RUNS"); do
    for p in snarkjs cuzk-t2 cuzk-t1; do
        "${SNARKJS[@]}" groth16 verify verification_key.json public-$p-$r.json proof-$p-$r.json > log-verify-$p-$r.txt 2>&1 \
            || { echo "snarkjs verify FAILED for $p run $r" >&2; exit 1; }
        grep -q 'OK' log-verify-$p-$r.txt || { echo "snarkjs verify did not say OK for $p run $r" >&2; exit 1; }
    done
done
for p in snarkjs cuzk-t2 cuzk-t1; do
    "$CUZK" verify verification_key.json public-$p-$RUNS.json proof-$p-$RUNS.json > log-cuzkverify-$p.txt 2>&1 \
        || { echo "cuzk verify FAILED for $p" >&2; exit 1; }
done
cmp -s public-snarkjs-1.json public-cuzk-t2-1.json || { echo "public.json differs between provers" >&2; exit 1; }
echo "all $((3 * RUNS)) proofs: snarkjs groth16 verify OK; last of each: cuzk verify OK"

# (h) table
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
col() { grep "^$1_" prove-times.txt | awk '{print $2}'; }
ccol() { grep "^$1_" cpu-prove-times.txt 2>/dev/null | awk '{print $2}'; }
ms=$(col snarkjs | median)
cs=$(ccol snarkjs | median)
echo
echo "k=$K  N=$N multiplications  SETUP=$SETUP  work dir $WORK"
echo "wall seconds per run; cpu = user + system seconds of the process, all threads (median)"
printf '%-22s' "prover"; for r in $(seq 1 "$RUNS"); do printf '%10s' "run $r"; done
printf '%10s %14s %10s %14s\n' median "snarkjs/this" "cpu" "snarkjs/this"
for p in snarkjs cuzk_t2 cuzk_t1; do
    case $p in snarkjs) label="snarkjs groth16 prove";; cuzk_t2) label="cuzk prove --threads 2";; *) label="cuzk prove --threads 1";; esac
    m=$(col $p | median)
    printf '%-22s' "$label"; for t in $(col $p); do printf '%10.2f' "$t"; done
    printf '%10.2f %14.2f' "$m" "$(echo "$ms / $m" | bc -l)"
    if [[ -s cpu-prove-times.txt ]]; then
        c=$(ccol $p | median)
        printf ' %10.2f %14.2f' "$c" "$(echo "$cs / $c" | bc -l)"
    fi
    echo
done
echo
echo "cuzk --verbose timing lines:"; grep -h 'timing' log-cuzk_t*_*.txt || true
echo
if [[ $SETUP == snarkjs ]]; then
    echo "ceremony (s):"; cat ceremony-times.txt 2>/dev/null || echo "(cached ptau; times not recorded)"
fi
echo "setup (s):"; cat setup-times.txt
if [[ $SETUP == cuzk ]]; then
    echo "cuzk setup --verbose:"; grep -h 'timing' log-cuzk_setup.txt || true
fi
echo "load after: $(uptime)"
