#!/usr/bin/env bash
# test_cli_bench.sh — `cuzk-bench` at tiny scale: single and batch run through the engine, exit 0,
# print the summary on stdout and progress on stderr, and write a TIMELINE whose every line has the
# fixed format; every knob is accepted as a flag; --help works on each command; bad flags, bad values
# and stray arguments are usage errors (exit 2, a `cuzk-bench: ` line and the usage line); a budget
# too small for the key and an unwritable timeline fail with exit 1 and leave no file behind;
# `timeline report` (when built in) reads the batch's timeline.
# Usage: bash tests/cli/test_cli_bench.sh <build-dir>
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"

BENCH=$(dirname "$CUZK")/cuzk-bench
if [ ! -x "$BENCH" ]; then
    echo "FAIL: no cuzk-bench binary at $BENCH" >&2
    exit 1
fi

# expect_usage DESCRIPTION: the last run was a usage error with a message and the usage line.
expect_usage() {
    if [ "$RC" -eq 2 ] && grep -q '^cuzk-bench: ' "$TMP/stderr" && grep -q '^Usage: cuzk-bench' "$TMP/stderr"; then
        pass "$1"
    else
        fail "$1 (exit $RC, expected 2 with a 'cuzk-bench: ' message and the usage line)"
    fi
}

# expect_fail DESCRIPTION: the last run failed with status 1 and said why.
expect_fail() {
    if [ "$RC" -eq 1 ] && grep -q '^cuzk-bench: ' "$TMP/stderr"; then
        pass "$1"
    else
        fail "$1 (exit $RC, expected 1 with a 'cuzk-bench: ' message)"
    fi
}

# check_timeline FILE DESCRIPTION: every line is one event in the fixed key order.
check_timeline() {
    local re='^\{"t_us":[0-9]+,"ev":"(JOB_SUBMIT|JOB_START|SYNTH_START|SYNTH_END|GPU_QUEUE|LOCK_WAIT|LOCK_ACQ|KERNEL_START|KERNEL_END|LOCK_REL|FINALIZE_START|FINALIZE_END|DELIVER|JOB_FAIL|JOB_CANCEL)","job":[0-9]+,"part":-?[0-9]+,"lane":"[^"]*","dev":-?[0-9]+,"stage":"[^"]*"\}$'
    if [ -s "$1" ] && ! grep -qvE "$re" "$1"; then
        pass "$2: every line is a well-formed event"
    else
        fail "$2: malformed timeline $(grep -vE "$re" "$1" | head -n 2)"
    fi
}

# count EVENT FILE: number of EVENT lines.
count() { grep -c "\"ev\":\"$1\"" "$2" || true; }

TINY=(--constraints 5 --partitions 2 --threads 1)

# ---- single ---------------------------------------------------------------------------------------
run "$BENCH" single "${TINY[@]}" --timeline "$TMP/single.jsonl"
expect 0 "single: exit 0"
expect_out '^  proofs +1 ok, 0 failed' "single: summary says 1 ok"
expect_out '^  latency +p50 ' "single: latency line"
expect_out '^  kernel prove ' "single: per-stage table from the events"
expect_err 'proof 1/1 ok' "single: progress on stderr"
check_timeline "$TMP/single.jsonl" "single"
[ "$(count DELIVER "$TMP/single.jsonl")" -eq 1 ] && pass "single: one DELIVER" || fail "single: DELIVER count"
[ "$(count SYNTH_START "$TMP/single.jsonl")" -eq 2 ] && pass "single: two partitions synthesized" ||
    fail "single: SYNTH_START count"
if ls "$TMP"/single.jsonl.tmp.* >/dev/null 2>&1; then fail "single: temporary timeline left"; else
    pass "single: no temporary file left"; fi

# ---- batch with every knob ---------------------------------------------------------------------------
run "$BENCH" batch -c 3 -j 2 --workload random --constraints 5 --partitions 3 --synth-threads 1 \
    --gpu-workers 1 --threads 1 --post-threads 2 --devices 2 --queue-depth 1 --pool-idle 4 --budget 64M \
    --priority high --seed 7 --no-check --timeline="$TMP/batch.jsonl"
expect 0 "batch: every knob as a flag, exit 0"
expect_out '^  proofs +3 ok, 0 failed' "batch: 3 ok"
expect_out '^  throughput +[0-9.]+ s/proof' "batch: throughput line"
expect_out '2 devices x 1 GPU worker \(1 thread each\); 1 synthesis, 2 post; queue 1; pool 4; priority high; no witness check' \
    "batch: the knobs reached the engine"
expect_out 'budget +peak .* of 64.0 MiB' "batch: the budget reached the engine"
check_timeline "$TMP/batch.jsonl" "batch"
[ "$(count JOB_SUBMIT "$TMP/batch.jsonl")" -eq 3 ] && [ "$(count DELIVER "$TMP/batch.jsonl")" -eq 3 ] &&
    pass "batch: 3 submits, 3 deliveries" || fail "batch: submit/deliver counts"
[ "$(count KERNEL_START "$TMP/batch.jsonl")" -eq 9 ] && [ "$(count KERNEL_END "$TMP/batch.jsonl")" -eq 9 ] &&
    pass "batch: 9 kernel intervals" || fail "batch: kernel counts"
if grep -q '"lane":"post.1"' "$TMP/batch.jsonl" || grep -q '"lane":"post.0"' "$TMP/batch.jsonl"; then
    pass "batch: post lanes present"; else fail "batch: no post lane"; fi

run "$BENCH" batch -c 2 -j 2 "${TINY[@]}" --budget=1G
expect 0 "batch: --name=value and no timeline"

# ---- help -------------------------------------------------------------------------------------------
for cmd in single batch; do
    run "$BENCH" "$cmd" --help
    expect 0 "$cmd --help: exit 0"
    for flag in --backend --workload --partitions --constraints --synth-threads --gpu-workers --threads --post-threads \
        --devices --queue-depth --pool-idle --budget --priority --seed --no-check --timeline; do
        grep -q -- "$flag" "$TMP/stdout" || fail "$cmd --help lacks $flag"
    done
    pass "$cmd --help lists every knob"
done
run "$BENCH" batch --help
expect_out '-c, --count N' "batch --help lists -c"
expect_out '-j, --concurrency M' "batch --help lists -j"
run "$BENCH" --help
expect 0 "--help: exit 0"
expect_out 'single' "--help lists single"

# ---- usage errors --------------------------------------------------------------------------------------
run "$BENCH"
[ "$RC" -eq 2 ] && pass "no command: exit 2" || fail "no command: exit $RC"
run "$BENCH" frobnicate
expect_fail_unknown() { [ "$RC" -eq 2 ] && grep -q "^cuzk-bench: unknown command" "$TMP/stderr"; }
expect_fail_unknown && pass "unknown command: exit 2" || fail "unknown command (exit $RC)"
run "$BENCH" batch --bogus
expect_usage "batch --bogus"
run "$BENCH" single -c 3
expect_usage "single -c (batch only)"
run "$BENCH" batch -c
expect_usage "batch -c without a value"
run "$BENCH" batch -c 0
expect_usage "batch -c 0"
run "$BENCH" batch -j abc
expect_usage "batch -j abc"
run "$BENCH" single --partitions 0
expect_usage "--partitions 0"
run "$BENCH" single --constraints 40
expect_usage "--constraints 40"
run "$BENCH" single --budget 12Q
expect_usage "--budget 12Q"
run "$BENCH" single --priority urgent
expect_usage "--priority urgent"
run "$BENCH" single --workload random --constraints 27
expect_fail "--workload random at 2^27 (porep only)"
run "$BENCH" single --workload sha
expect_usage "--workload sha (not a workload)"
run "$BENCH" single --backend tpu
expect_usage "--backend tpu (not a backend)"
# --backend auto proves on whatever is there; gpu is refused where there is no device (CI has none)
run "$BENCH" single "${TINY[@]}" --backend auto
expect 0 "--backend auto: exit 0"
expect_out '^  proofs +1 ok, 0 failed' "--backend auto: 1 ok"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    run "$BENCH" single "${TINY[@]}" --backend gpu
    expect_fail "--backend gpu without a device"
    grep -qE "no CUDA (device|backend)" "$TMP/stderr" && pass "--backend gpu: says why" ||
        fail "--backend gpu: no reason given"
fi
run "$BENCH" single --workload porep --constraints 10
expect_fail "--workload porep below its smallest scale"

# the PoRep-shaped workload: three partitions, three different witnesses, all proofs verified
run "$BENCH" single --workload porep --constraints 12 --partitions 3 --threads 1 --timeline "$TMP/porep.tl"
expect 0 "single --workload porep: exit 0"
expect_out '^  workload +porep-shaped at 2\^-15 scale' "porep: the workload line names the scale"
expect_out '^  proofs +1 ok, 0 failed' "porep: 1 ok"
check_timeline "$TMP/porep.tl" "porep timeline"
run "$BENCH" single --no-check=1
expect_usage "--no-check=1"
run "$BENCH" single --seed -5
expect_usage "--seed -5"
run "$BENCH" single stray
expect_usage "stray argument"
run "$BENCH" single --timeline ""
expect_usage "empty --timeline"

# ---- run-time failures -----------------------------------------------------------------------------------
run "$BENCH" single "${TINY[@]}" --budget 1K --timeline "$TMP/small.jsonl"
expect_fail "budget smaller than the key"
expect_err 'budget' "budget failure names the budget"
if ls "$TMP"/small.jsonl* >/dev/null 2>&1; then fail "budget failure left a timeline"; else
    pass "budget failure leaves no timeline"; fi
run "$BENCH" single "${TINY[@]}" --timeline "$TMP/missing-dir/t.jsonl"
expect_fail "unwritable timeline"

# ---- timeline report (when part of the build) ------------------------------------------------------------------
run "$BENCH" --help
if grep -q 'timeline report' "$TMP/stdout"; then
    run "$BENCH" timeline report "$TMP/batch.jsonl" --svg "$TMP/batch.svg"
    expect 0 "timeline report: exit 0"
    expect_out 'delivered +3' "timeline report: 3 delivered"
    [ -s "$TMP/batch.svg" ] && pass "timeline report: svg written" || fail "timeline report: no svg"
    run "$BENCH" timeline report "$TMP/nonexistent.jsonl"
    expect_fail "timeline report of a missing file"
    run "$BENCH" timeline report
    expect_usage "timeline report without a file"
    run "$BENCH" timeline report --help
    expect 0 "timeline report --help"
else
    echo "note: timeline report is not part of this build"
fi

cli_finish
