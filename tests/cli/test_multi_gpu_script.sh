#!/usr/bin/env bash
# test_multi_gpu_script.sh — scripts/multi-gpu.sh (the multi-device throughput run) on the CPU backend,
# where devices are lock domains: a run on 1 and 2 devices and a stress run prove, verify and print
# one table row each, the first proofs of every run equal the first run's, a reference whose bytes
# differ fails the run (exit 1, "NO" in the row, a message on stderr), and bad settings (no
# cuzk-bench, a count that is not a number, device count 0, an unreadable reference) are refused with
# exit 2 before anything runs.
# Usage: bash tests/cli/test_multi_gpu_script.sh <build-dir>
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"

cli_bench
SCRIPT=$ROOT/scripts/multi-gpu.sh

# mg OUTDIR [VAR=VALUE...] -- ARGS...: the script on the CPU backend at a tiny scale
mg() {
    local o=$1
    shift
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        envs+=("$1")
        shift
    done
    shift
    run env MG_BACKEND=cpu MG_LG=12 MG_PARTS=2 MG_C_PER=2 MG_J_PER=2 MG_BIN="$BENCH" OUT="$o" "${envs[@]}" \
        bash "$SCRIPT" "$@"
}

# no_sanitizer DIR DESCRIPTION: no cuzk-bench log in DIR holds a sanitizer report
no_sanitizer() {
    if grep -lE 'Sanitizer|runtime error:' "$1"/*.log >/dev/null 2>&1; then
        fail "$2 (sanitizer report in $(grep -lE 'Sanitizer|runtime error:' "$1"/*.log | head -1))"
    else
        pass "$2"
    fi
}

mg "$TMP/a" MG_STRESS_S=1 -- 1 2
expect 0 "1 and 2 devices and a stress run: exit 0"
expect_out '^\| k1 \| 1 \| 2 \| 2 \| ok \| [0-9.]+ \| 1\.00 .*\| reference \|$' "one device: a row, the reference"
expect_out '^\| k2 \| 2 \| 4 \| 4 \| ok \| [0-9.]+ \| [0-9.]+ \(.*\| yes \|$' "two devices: a row, first proofs equal"
expect_out '^\| stress-k2 \| 2 \| [0-9]+ \| 4 \| ok \|.*\| yes \|$' "stress run on the largest count: a row"
expect_out '^multi-gpu: OK' "OK at the end"
if [ -f "$TMP/a/table.md" ] && [ "$(grep -c '^| k1 \|^| k2 \|^| stress-k2 ' "$TMP/a/table.md")" -eq 3 ]; then
    pass "table.md holds the three rows"
else
    fail "table.md holds the three rows"
fi
for f in k1 k2; do
    if [ -s "$TMP/a/$f.tl" ] && [ -s "$TMP/a/$f.report.txt" ] && [ -s "$TMP/a/$f.svg" ]; then
        pass "$f: timeline, report and SVG written"
    else
        fail "$f: timeline, report and SVG written"
    fi
done
n=$(stat -c %s "$TMP/a/k2.proofs")
if [ "$n" -eq $((4 * 2 * 192)) ]; then pass "k2: 4 proofs of 2 partitions written"; else fail "k2: proofs file of $n bytes"; fi
no_sanitizer "$TMP/a" "no sanitizer report from cuzk-bench"

# a reference with one byte changed in its first proof: every run differs from it
cp "$TMP/a/k1.proofs" "$TMP/ref"
flip_byte "$TMP/ref" 100
mg "$TMP/b" MG_REF="$TMP/ref" -- 1 2
expect 1 "a reference that differs: exit 1"
expect_out '^\| k1 \|.*\| NO \|$' "one device: NO"
expect_out '^\| k2 \|.*\| NO \|$' "two devices: NO"
expect_err 'first 2 proofs differ' "the difference is named on stderr"
expect_out '^multi-gpu: FAILED' "FAILED at the end"

# the unchanged first run's proofs as the reference: equal
mg "$TMP/c" MG_REF="$TMP/a/k1.proofs" -- 2
expect 0 "the first run's proofs as the reference: exit 0"
expect_out '^\| k2 \|.*\| yes \|$' "two devices equal the reference"

# one device's rate from an earlier call gives the speedup column: 1.0 s/proof against k2's own
mg "$TMP/e" MG_BASE_S=1.0 -- 2
expect 0 "MG_BASE_S: exit 0"
expect_out '^\| k2 \| 2 \|.*\| [0-9.]+ \| [0-9.]+ \([0-9]+ % of 2\) \|' "MG_BASE_S: the speedup column filled"
mg "$TMP/d" MG_BASE_S=fast -- 1
expect 2 "MG_BASE_S not a number: exit 2"

mg "$TMP/d" MG_BIN=/nonexistent/cuzk-bench -- 1
expect 2 "no cuzk-bench: exit 2"
expect_err 'is not an executable' "no cuzk-bench: said why"
mg "$TMP/d" MG_C_PER=two -- 1
expect 2 "MG_C_PER not a number: exit 2"
expect_err 'must be a whole number' "MG_C_PER not a number: said why"
mg "$TMP/d" -- 0
expect 2 "device count 0: exit 2"
expect_err 'not a positive number' "device count 0: said why"
mg "$TMP/d" MG_REF="$TMP/missing" -- 1
expect 2 "unreadable reference: exit 2"
expect_err 'cannot be read' "unreadable reference: said why"
if [ ! -e "$TMP/d/k1.log" ]; then pass "refused settings ran nothing"; else fail "refused settings ran nothing"; fi

cli_finish
