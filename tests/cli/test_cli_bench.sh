#!/usr/bin/env bash
# test_cli_bench.sh — `cuzk-bench` at tiny scale: single and batch run through the engine, exit 0,
# print the summary on stdout and progress on stderr, and write a TIMELINE whose every line has the
# fixed format; every knob is accepted as a flag; --help works on each command; bad flags, bad values
# and stray arguments are usage errors (exit 2, a `cuzk-bench: ` line and the usage line); a budget
# too small for the key and an unwritable timeline fail with exit 1 and leave no file behind;
# --eval host and device both prove and the summary names the place; with --seed the proofs
# (--proofs-out) are the same bytes whatever --witness-threads or --eval, and differ for another
# seed; `sweep` prints one table row per combination (the CSV the same rows, a TIMELINE per
# combination), skips j > c, reports a failing combination in its row and exits 1, and refuses bad
# lists; `timeline report` (when built in) reads the batch's timeline; SIGTERM removes the temporary
# proofs file.
# Usage: bash tests/cli/test_cli_bench.sh <build-dir>
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"

cli_bench

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
    --priority high --seed 7 --no-check --key-vram 1M --timeline="$TMP/batch.jsonl"
expect 0 "batch: every knob as a flag, exit 0"
expect_out '^  proofs +3 ok, 0 failed' "batch: 3 ok"
expect_out '^  throughput +[0-9.]+ s/proof' "batch: throughput line"
expect_out '2 devices x 1 GPU worker \(1 thread each\); 1 synthesis, 2 post; queue 1; pool 4; priority high; no witness check' \
    "batch: the knobs reached the engine"
expect_out 'budget +peak .* of 64.0 MiB' "batch: the budget reached the engine"
expect_out '^  key VRAM +resident keys up to 1.0 MiB per device' "batch: --key-vram reached the engine"
check_timeline "$TMP/batch.jsonl" "batch"
[ "$(count JOB_SUBMIT "$TMP/batch.jsonl")" -eq 3 ] && [ "$(count DELIVER "$TMP/batch.jsonl")" -eq 3 ] &&
    pass "batch: 3 submits, 3 deliveries" || fail "batch: submit/deliver counts"
[ "$(count KERNEL_START "$TMP/batch.jsonl")" -eq 9 ] && [ "$(count KERNEL_END "$TMP/batch.jsonl")" -eq 9 ] &&
    pass "batch: 9 kernel intervals" || fail "batch: kernel counts"
if grep -q '"lane":"post.1"' "$TMP/batch.jsonl" || grep -q '"lane":"post.0"' "$TMP/batch.jsonl"; then
    pass "batch: post lanes present"; else fail "batch: no post lane"; fi

run "$BENCH" batch -c 2 -j 2 "${TINY[@]}" --budget=1G
expect 0 "batch: --name=value and no timeline"

# --key-tables reaches the engine (cuzk_engine_get_config: the summary names the k unless off, the default)
run "$BENCH" single "${TINY[@]}"
grep -q '^  key tables' "$TMP/stdout" && fail "the default key tables (off) printed" || pass "the default key tables not printed"
run "$BENCH" single "${TINY[@]}" --key-tables 4
expect 0 "--key-tables 4: exit 0"
expect_out '^  key tables +up to k = 4$' "--key-tables 4 reached the engine"
run "$BENCH" single "${TINY[@]}" --key-tables 3
expect 0 "--key-tables 3: exit 0"
expect_out '^  key tables +up to k = 3$' "--key-tables 3 reached the engine"
run "$BENCH" batch -c 2 -j 2 "${TINY[@]}" --key-tables=2
expect 0 "--key-tables=2: exit 0"
expect_out '^  key tables +up to k = 2$' "--key-tables=2 reached the engine"
run "$BENCH" single "${TINY[@]}" --key-tables off
expect 0 "--key-tables off: exit 0"
grep -q '^  key tables' "$TMP/stdout" && fail "--key-tables off (the default) printed" || pass "--key-tables off is the default"
for bad in 5 1 x 0 -1 auto 3x; do
    run "$BENCH" single "${TINY[@]}" --key-tables "$bad"
    expect_usage "--key-tables $bad"
    expect_err "^cuzk-bench: single: --key-tables expects 2, 3, 4 or off, not '$bad'$" "... naming the flag and the values"
done
run "$BENCH" single "${TINY[@]}" --key-tables ""
expect_usage "--key-tables ''"
expect_err "empty value for --key-tables" "... naming the flag"

# ---- evaluation place (the CPU backend does both; host is its default) ----------------------------------
for place in host device; do
    run "$BENCH" single "${TINY[@]}" --eval "$place"
    expect 0 "--eval $place: exit 0"
    expect_out '^  proofs +1 ok, 0 failed' "--eval $place: 1 ok"
    expect_out "^  evaluation +$place " "--eval $place: the summary names the place"
done
run "$BENCH" batch -c 2 -j 2 "${TINY[@]}" --eval=auto
expect 0 "--eval=auto: exit 0"
expect_out '^  evaluation +host ' "--eval auto on the CPU backend resolves to host"
run "$BENCH" single "${TINY[@]}" --eval gpu
expect_usage "--eval gpu (not a place)"
run "$BENCH" single --eval
expect_usage "--eval without a value"

# ---- reproducible proofs: --witness-threads, --eval and --seed -----------------------------------------
POREP=(batch -c 2 -j 2 --workload porep --constraints 12 --partitions 3 --threads 1)
PROOF_BYTES=$((2 * 3 * 192))
for t in 1 3; do
    run "$BENCH" "${POREP[@]}" --seed 5 --witness-threads "$t" --proofs-out "$TMP/w$t.bin"
    expect 0 "--witness-threads $t: exit 0"
    expect_out "^  workload +porep-shaped .*witness pool $t thread" "--witness-threads $t: the pool has $t"
    [ "$(stat -c %s "$TMP/w$t.bin" 2>/dev/null)" = "$PROOF_BYTES" ] &&
        pass "--witness-threads $t: $PROOF_BYTES bytes of proofs" || fail "--witness-threads $t: proofs file size"
done
cmp -s "$TMP/w1.bin" "$TMP/w3.bin" && pass "--witness-threads 1 and 3: the same proofs" ||
    fail "--witness-threads 1 and 3 give different proofs"
run "$BENCH" "${POREP[@]}" --seed 5 --witness-threads 2 --eval device --proofs-out "$TMP/dev.bin"
expect 0 "--eval device --proofs-out: exit 0"
cmp -s "$TMP/w1.bin" "$TMP/dev.bin" && pass "--eval host and device: the same proofs" ||
    fail "--eval host and device give different proofs"
for t in 1 3; do
    run "$BENCH" "${POREP[@]}" --seed 5 --eval host --eval-threads "$t" --proofs-out "$TMP/e$t.bin"
    expect 0 "--eval-threads $t: exit 0"
    cmp -s "$TMP/w1.bin" "$TMP/e$t.bin" && pass "--eval-threads $t: the same proofs" ||
        fail "--eval-threads $t gives other proofs"
done
# the key's forms (docs/design/021; coset by default): other key points, the same proofs
expect_out "^  workload +porep-shaped .*key in the coset form" "the key's coset form is the default"
for e in host device; do
    run "$BENCH" "${POREP[@]}" --seed 5 --eval "$e" --key-form bellperson --proofs-out "$TMP/bp-$e.bin"
    expect 0 "--key-form bellperson --eval $e: exit 0"
    expect_out "^  workload +porep-shaped .*key in bellperson's form" "--key-form bellperson: named in the summary"
    cmp -s "$TMP/w1.bin" "$TMP/bp-$e.bin" && pass "--key-form bellperson (--eval $e): the same proofs" ||
        fail "--key-form bellperson (--eval $e) gives other proofs than the coset form"
done
run "$BENCH" "${POREP[@]}" --seed 5 --key-form coset --proofs-out "$TMP/coset.bin"
expect 0 "--key-form coset: exit 0"
cmp -s "$TMP/w1.bin" "$TMP/coset.bin" && pass "--key-form coset is the default" ||
    fail "--key-form coset gives other proofs than the default"

# a bellperson key converted without its toxic waste (docs/design/022): the same proofs again
run "$BENCH" "${POREP[@]}" --seed 5 --key-form converted --proofs-out "$TMP/converted.bin"
expect 0 "--key-form converted: exit 0"
expect_err 'key converted to the coset form in [0-9.]+ s \(transforms on the (CPU|GPU)\)' "... timed on stderr"
expect_out "^  workload +porep-shaped .*key converted to the coset form" "... named in the summary"
cmp -s "$TMP/w1.bin" "$TMP/converted.bin" && pass "--key-form converted: the same proofs" ||
    fail "--key-form converted gives other proofs than the coset form"
run "$BENCH" single "${TINY[@]}" --key-form snarkjs
expect_usage "--key-form snarkjs (not a form of this key)"
run "$BENCH" "${POREP[@]}" --seed 6 --proofs-out "$TMP/seed6.bin"
expect 0 "--seed 6: exit 0"
[ -s "$TMP/seed6.bin" ] && ! cmp -s "$TMP/w1.bin" "$TMP/seed6.bin" && pass "another seed: other proofs" ||
    fail "--seed 5 and 6 give the same proofs (the comparison above proves nothing)"
mkdir "$TMP/po"
run "$BENCH" single "${TINY[@]}" --budget 1K --proofs-out "$TMP/po/p.bin"
expect_fail "--proofs-out of a failing run"
expect_empty_dir "$TMP/po" "--proofs-out: a failing run leaves no file"
# SIGTERM while the proofs and timeline files are still temporary: the process dies of the signal,
# nothing is left
mkdir "$TMP/sig"
"$BENCH" batch -c 400 -j 2 "${TINY[@]}" --proofs-out "$TMP/sig/p.bin" --timeline "$TMP/sig/t.jsonl" \
    >/dev/null 2>&1 &
BPID=$!
for _ in $(seq 200); do ls "$TMP"/sig/t.jsonl.tmp.* >/dev/null 2>&1 && break; sleep 0.05; done
ls "$TMP"/sig/p.bin.tmp.* >/dev/null 2>&1 && pass "--proofs-out: the temporary file exists while running" ||
    fail "--proofs-out: no temporary file seen while running"
ls "$TMP"/sig/t.jsonl.tmp.* >/dev/null 2>&1 && pass "--timeline: the temporary file exists while running" ||
    fail "--timeline: no temporary file seen while running"
kill -TERM "$BPID"
BRC=0
wait "$BPID" || BRC=$?
[ "$BRC" -eq 143 ] && pass "SIGTERM: cuzk-bench dies of the signal (143)" || fail "SIGTERM: exit $BRC, expected 143"
expect_empty_dir "$TMP/sig" "SIGTERM: the temporary proofs and timeline files are removed"
run "$BENCH" single "${TINY[@]}" --proofs-out "$TMP/missing-dir/p.bin"
expect_fail "--proofs-out into a missing directory"
grep -q 'building workload' "$TMP/stderr" && fail "--proofs-out: the bad destination was found after the build" ||
    pass "--proofs-out: a bad destination fails before the workload is built"
run "$BENCH" single "${TINY[@]}" --timeline "$TMP/same.out" --proofs-out "$TMP/./same.out"
expect_usage "--timeline and --proofs-out naming one file"
expect_err 'name one file' "... says so"
for dest in "$TMP/missing-dir/t.jsonl" "$TMP"; do
    run "$BENCH" batch "${TINY[@]}" --timeline "$dest" --proofs-out "$TMP/tl-probe.bin"
    expect_fail "--timeline $dest (a missing directory, a directory)"
    expect_err "timeline: cannot write $dest: " "... names the destination"
    grep -q 'building workload' "$TMP/stderr" && fail "--timeline: the bad destination was found after the build" ||
        pass "--timeline: a bad destination fails before the workload is built"
    [ ! -e "$TMP/tl-probe.bin" ] && ! ls "$TMP"/tl-probe.bin.tmp.* >/dev/null 2>&1 &&
        pass "--timeline: the --proofs-out opened before it is removed" || fail "--timeline: --proofs-out left behind"
done
# outputs that cannot be written (a file-size limit), SIGXFSZ at its default action or ignored: exit 1 naming
# the file and the reason, the old file as it was, no temporary file
mkdir "$TMP/fz"
for xfsz in default ignored; do
    printf 'old proofs' >"$TMP/fz/p.bin"
    run_fsize $xfsz 0 "$BENCH" single "${TINY[@]}" --proofs-out "$TMP/fz/p.bin"
    expect_fail "--proofs-out, SIGXFSZ $xfsz: a file that cannot be written"
    expect_err 'cannot write .*/p\.bin: writing .*/p\.bin\.tmp\.[0-9]+: File too large' "... says which file and why"
    expect_only "$TMP/fz" "... the old file stands, nothing else" "p.bin=old proofs"
    rm "$TMP/fz/p.bin"
    printf 'old timeline' >"$TMP/fz/t.jsonl"
    run_fsize $xfsz 1 "$BENCH" batch -c 2 -j 2 "${TINY[@]}" --timeline "$TMP/fz/t.jsonl"
    expect_fail "--timeline, SIGXFSZ $xfsz: a file that cannot be written"
    expect_err 'timeline: cannot write .*/t\.jsonl: writing .*/t\.jsonl\.tmp\.[0-9]+: File too large' "... says which file and why"
    expect_only "$TMP/fz" "... the old file stands, nothing else" "t.jsonl=old timeline"
    rm "$TMP/fz/t.jsonl"
    printf 'old csv' >"$TMP/fz/s.csv"
    run_fsize $xfsz 0 "$BENCH" sweep --c-list 1 --j-list 1 "${TINY[@]}" --csv "$TMP/fz/s.csv"
    expect_fail "sweep --csv, SIGXFSZ $xfsz: a file that cannot be written"
    expect_err 'cannot write .*/s\.csv: writing .*/s\.csv\.tmp\.[0-9]+: File too large' "... says which file and why"
    expect_only "$TMP/fz" "... the old file stands, nothing else" "s.csv=old csv"
    rm "$TMP/fz/s.csv"
done
if [ -w /dev/full ]; then # a summary that cannot be written is a failure with the reason
    set +e
    "$BENCH" single "${TINY[@]}" >/dev/full 2>"$TMP/stderr"
    RC=$?
    set -e
    expect 1 "single > /dev/full: exit 1"
    expect_err '^cuzk-bench: cannot write the standard output: No space left on device$' "... with the reason"
fi
run "$BENCH" single --witness-threads 0
expect_usage "--witness-threads 0"
run "$BENCH" single --workload random --witness-threads 2
expect_usage "--witness-threads with the random workload (it has no witness pool)"
expect_err "the random workload has none" "... saying why"
run "$BENCH" single --eval-threads 0
expect_usage "--eval-threads 0"

# ---- sweep --------------------------------------------------------------------------------------------
# rows: the table rows of the last run's stdout, as "c j gw status".
rows() { sed -nE 's/^\| ([0-9]+) \| ([0-9]+) \| ([0-9]+) \|.*\| ([^|]*[^ |]) \|$/\1 \2 \3 \4/p' "$TMP/stdout"; }
mkdir "$TMP/tl"
run "$BENCH" sweep --c-list 2,3 --j-list 1,2 --gw-list 1,2 --workload porep --constraints 12 --threads 1 \
    --csv "$TMP/sweep.csv" --timeline-dir "$TMP/tl"
expect 0 "sweep: exit 0"
expect_out '^\| c \| j \| gw \| wall s \| s/proof overall \| s/proof steady \| kernel s/proof \| latency p50 s \| latency p95 s \| kernel util % \| budget peak GiB \| host peak RSS GiB \| status \|$' \
    "sweep: the table header"
WANT=$(for c in 2 3; do for j in 1 2; do for g in 1 2; do echo "$c $j $g ok"; done; done; done)
[ "$(rows)" = "$WANT" ] && pass "sweep: 8 rows, one per combination, all ok" || fail "sweep: rows $(rows | tr '\n' ';')"
[ "$(grep -c '^|' "$TMP/stdout")" -eq 10 ] && pass "sweep: stdout is the table only" || fail "sweep: stray stdout"
grep -qE '^\| 3 \| 2 \| 2 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+\*? \| ok \|$' \
    "$TMP/stdout" && pass "sweep: a row has every figure" || fail "sweep: a figure is missing"
expect_err 'workload ready' "sweep: progress on stderr"
[ "$(grep -c 'building workload' "$TMP/stderr")" -eq 1 ] && pass "sweep: the workload is built once" ||
    fail "sweep: the workload was built more than once"
[ "$(grep -c 'proof [0-9]*/[0-9]* ok' "$TMP/stderr")" -eq 20 ] && pass "sweep: 20 proofs verified (4 x 2 + 4 x 3)" ||
    fail "sweep: proof count on stderr"
CSV_WANT=$(rows | awk '{ print $1 "," $2 "," $3 "," $4 }')
[ "$(head -n 1 "$TMP/sweep.csv")" = "c,j,gw,wall_s,s_per_proof,steady_s_per_proof,kernel_s_per_proof,latency_p50_s,latency_p95_s,kernel_util_pct,budget_peak_gib,host_peak_rss_gib,rss_scope,status" ] &&
    pass "sweep: CSV header" || fail "sweep: CSV header $(head -n 1 "$TMP/sweep.csv")"
[ "$(tail -n +2 "$TMP/sweep.csv" | awk -F, '{ print $1 "," $2 "," $3 "," $14 }')" = "$CSV_WANT" ] &&
    pass "sweep: the CSV has the table's rows" || fail "sweep: CSV rows differ from the table"
[ "$(tail -n +2 "$TMP/sweep.csv" | awk -F, 'NF == 14 && $4 > 0 && $7 > 0 && $13 != ""' | wc -l)" -eq 8 ] &&
    pass "sweep: every CSV row is complete" || fail "sweep: incomplete CSV rows"
ls "$TMP"/sweep.csv.tmp.* >/dev/null 2>&1 && fail "sweep: temporary CSV left" || pass "sweep: no temporary CSV left"
[ "$(ls "$TMP/tl" | wc -l)" -eq 8 ] && pass "sweep: 8 TIMELINE files" || fail "sweep: TIMELINE files $(ls "$TMP/tl")"
check_timeline "$TMP/tl/c3-j2-gw2.jsonl" "sweep timeline"
[ "$(count DELIVER "$TMP/tl/c3-j2-gw2.jsonl")" -eq 3 ] && [ "$(count DELIVER "$TMP/tl/c2-j1-gw1.jsonl")" -eq 2 ] &&
    pass "sweep: each TIMELINE holds its combination" || fail "sweep: DELIVER counts in the TIMELINE files"

run "$BENCH" sweep --c-list 1,2 --j-list 1,2 --gw-list 1 "${TINY[@]}" --eval device
expect 0 "sweep with j > c: exit 0"
[ "$(rows)" = "$(printf '1 1 1 ok\n2 1 1 ok\n2 2 1 ok')" ] && pass "sweep: j > c skipped" || fail "sweep: rows $(rows | tr '\n' ';')"
expect_err 'skipping c=1 j=2' "sweep: says what it skipped"
expect_err 'evaluation device' "sweep: --eval reaches each engine"

# a combination that fails (its TIMELINE path is a directory, refused when its engine starts): reported in
# its row, the sweep goes on
mkdir -p "$TMP/tl2/c2-j1-gw1.jsonl"
run "$BENCH" sweep --c-list 2 --j-list 1 --gw-list 1,2 "${TINY[@]}" --timeline-dir "$TMP/tl2" --csv "$TMP/fail.csv"
expect_fail "sweep with a failing combination"
[ "$(rows)" = "$(printf '2 1 1 FAILED: cannot open the TIMELINE\n2 1 2 ok')" ] &&
    pass "sweep: the failure is in its row, the next combination ran" || fail "sweep: rows $(rows | tr '\n' ';')"
[ "$(tail -n +2 "$TMP/fail.csv" | cut -d, -f14 | tr '\n' ';')" = "FAILED: cannot open the TIMELINE;ok;" ] &&
    pass "sweep: the CSV is written with the failure" || fail "sweep: CSV after a failure"
run "$BENCH" sweep --c-list 2 --j-list 1,2 --gw-list 1 "${TINY[@]}" --budget 64K
expect_fail "sweep: proofs refused by the budget"
[ "$(rows)" = "$(printf '2 1 1 FAILED: 2 of 2 proofs\n2 2 1 FAILED: 2 of 2 proofs')" ] &&
    pass "sweep: failed proofs counted in the rows" || fail "sweep: rows $(rows | tr '\n' ';')"

mkdir "$TMP/csvdir"
run "$BENCH" sweep --c-list 1 --j-list 1 --gw-list 1 "${TINY[@]}" --csv "$TMP/missing-dir/s.csv"
expect_fail "sweep --csv into a missing directory"
run "$BENCH" sweep --c-list 1 --j-list 1 --gw-list 1 "${TINY[@]}" --timeline-dir "$TMP/missing-dir" --csv "$TMP/csvdir/s.csv"
expect_fail "sweep --timeline-dir missing"
expect_empty_dir "$TMP/csvdir" "sweep: a failure before the run leaves no CSV"
run "$BENCH" sweep --c-list 1 --j-list 1 --gw-list 1 "${TINY[@]}" --timeline-dir "$TMP/$(printf 'd%.0s' $(seq 4001))"
expect_fail "sweep --timeline-dir longer than its cells' file names allow"
expect_err 'timeline-dir: a path of [0-9]+ bytes; at most 4000' "... says so"
grep -q 'building workload' "$TMP/stderr" && fail "sweep: bad destinations found after the build" ||
    pass "sweep: bad destinations fail before the workload is built"

for bad in "--c-list 0" "--c-list 2,,3" "--c-list 2,x" "--c-list ,2" "--c-list 2," "--j-list 2,2" "--gw-list 65" \
    "--c-list 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17" "--c-list 1 --j-list 2" "-c 3" "--gpu-workers 2" \
    "--timeline t.jsonl" "--proofs-out p.bin" "--eval nowhere" "--c-list"; do
    # shellcheck disable=SC2086
    run "$BENCH" sweep $bad
    expect_usage "sweep $bad"
done
run "$BENCH" sweep --gpu-workers 2
expect_err 'sweep takes --gw-list instead of --gpu-workers' "sweep --gpu-workers: points to --gw-list"
# 16 entries parse (the run then stops at j > c for all of them, a different usage error)
# devices picked by number: the partitions, the lanes and the report name devices 1 and 3 only
run "$BENCH" batch -c 4 -j 2 --workload random --constraints 5 --partitions 2 --device-ids 1,3 --gpu-workers 1 \
    --timeline="$TMP/ids.jsonl"
expect 0 "batch --device-ids 1,3: exit 0"
expect_out '^  proofs +4 ok, 0 failed' "--device-ids: 4 ok"
expect_out '2 devices \(1,3\) x 1 GPU worker' "--device-ids: the list reached the engine"
devs=$(grep -o '"dev":[0-9-]*' "$TMP/ids.jsonl" | sort -u | tr '\n' ' ')
[ "$devs" = '"dev":-1 "dev":1 "dev":3 ' ] && pass "--device-ids: TIMELINE names devices 1 and 3 only" ||
    fail "--device-ids: TIMELINE devices $devs"
run "$BENCH" timeline report "$TMP/ids.jsonl"
expect 0 "--device-ids: the report reads it"
expect_out '^  dev 1 ' "--device-ids: the report has device 1"
expect_out '^  dev 3 ' "... and device 3"
# a device lost mid-run (the CPU backend's drill, CUZK_FAULT_DEVICE_LOST): its partitions move to the other
# device and every proof is still delivered, verified; with no device left every proof fails, saying why
run env CUZK_FAULT_DEVICE_LOST=1@2 "$BENCH" batch -c 4 -j 2 --workload random --constraints 5 --partitions 3 \
    --devices 2 --gpu-workers 1 --timeline="$TMP/lost.jsonl"
expect 0 "batch with device 1 lost at its second device phase: exit 0"
expect_out '^  proofs +4 ok, 0 failed' "... every proof delivered"
expect_out '^  devices lost 1 \(1 left in service; [1-9][0-9]* partitions? moved to them\): device 1 lost in the device phase: .*CUZK_FAULT_DEVICE_LOST=1@2' \
    "... the summary names the device, the phase and the cause"
run "$BENCH" timeline report "$TMP/lost.jsonl"
expect 0 "... its TIMELINE reads"
expect_out '^  device 1 lost at [0-9.]+ s \(job [0-9]+ partition [0-9]+, device phase\)' "... and the report names the loss"
expect_out 'unknown events skipped 0,' "... as an event it knows"
run env CUZK_FAULT_DEVICE_LOST=0 "$BENCH" batch -c 2 -j 1 --workload random --constraints 5 --partitions 2
expect 1 "the only device lost: exit 1"
expect_out '^  proofs +0 ok, 2 failed' "... no proof delivered"
expect_err 'failed \(job 1\): no usable device left \(device 0 lost in the device phase' "... each failure says why"
expect_err 'engine: no usable device left' "... and a later job is refused at submit"
run env CUZK_FAULT_DEVICE_LOST=one "$BENCH" single --workload random --constraints 5 --partitions 2
expect 1 "a malformed CUZK_FAULT_DEVICE_LOST: exit 1"
expect_err "CUZK_FAULT_DEVICE_LOST 'one' is not a list of DEVICE\[@CALL\]" "... with the reason"
for bad in 1,1 64 3-1 1, x; do
    run "$BENCH" batch --device-ids "$bad"
    expect_usage "--device-ids $bad"
    expect_err "--device-ids expects device numbers 0..63" "... with the reason"
done
run "$BENCH" batch --devices 3 --device-ids 1,3
expect_usage "--devices 3 with a list of 2"
expect_err '--devices 3 but --device-ids names 2 devices' "... with the reason, before any work"
run "$BENCH" sweep --c-list 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --j-list 17
expect_usage "sweep: every combination has j > c"
expect_err 'nothing to run' "sweep: 16 entries are accepted"

# ---- help -------------------------------------------------------------------------------------------
for cmd in single batch sweep; do
    run "$BENCH" "$cmd" --help
    expect 0 "$cmd --help: exit 0"
    flags=(--backend --eval --workload --partitions --constraints --synth-threads --witness-threads --threads
        --post-threads --devices --device-ids --queue-depth --pool-idle --budget --key-vram --key-tables --priority --seed
        --no-check)
    if [ "$cmd" = sweep ]; then
        flags+=(--c-list --j-list --gw-list --csv --timeline-dir)
    else
        flags+=(--gpu-workers --timeline --proofs-out)
    fi
    for flag in "${flags[@]}"; do
        grep -q -- "$flag " "$TMP/stdout" || fail "$cmd --help lacks $flag"
    done
    pass "$cmd --help lists every knob"
done
grep -qE -- '--gpu-workers|--timeline FILE|--count|--proofs-out' "$TMP/stdout" &&
    fail "sweep --help lists a flag sweep does not take" || pass "sweep --help lists only its own flags"
run "$BENCH" batch --help
expect_out '-c, --count N' "batch --help lists -c"
expect_out '-j, --concurrency M' "batch --help lists -j"
run "$BENCH" --help
expect 0 "--help: exit 0"
expect_out 'single' "--help lists single"
expect_out '^  sweep ' "--help lists sweep"

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
run "$BENCH" single --key-vram lots
expect_usage "--key-vram lots"
expect_err "--key-vram expects a size" "... naming the flag"
run "$BENCH" single --priority urgent
expect_usage "--priority urgent"
run "$BENCH" single --workload random --constraints 27
expect_usage "--workload random at 2^27 (porep only)"
expect_err "outside 2\.\.26 for the random workload" "... naming the workload's range"
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
expect_usage "--workload porep below its smallest scale"
expect_err "outside 11\.\.27 for the porep workload" "... naming the workload's range"

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
    for xfsz in default ignored; do
        printf 'old svg' >"$TMP/fz/t.svg"
        run_fsize $xfsz 1 "$BENCH" timeline report "$TMP/batch.jsonl" --svg "$TMP/fz/t.svg"
        expect_fail "timeline report --svg, SIGXFSZ $xfsz: a file that cannot be written"
        expect_err 'timeline svg: cannot write .*/t\.svg: writing .*/t\.svg\.tmp\.[0-9]+: File too large' "... says which file and why"
        expect_only "$TMP/fz" "... the old file stands, nothing else" "t.svg=old svg"
        rm "$TMP/fz/t.svg"
    done
    cp "$TMP/batch.jsonl" "$TMP/keep.jsonl"
    run "$BENCH" timeline report "$TMP/batch.jsonl" --svg "$TMP/../$(basename "$TMP")/batch.jsonl"
    expect_usage "timeline report --svg naming its own TIMELINE file"
    expect_err 'is the TIMELINE file' "... says so"
    cmp -s "$TMP/batch.jsonl" "$TMP/keep.jsonl" && pass "... and the TIMELINE is as it was" ||
        fail "the TIMELINE file was changed"
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
