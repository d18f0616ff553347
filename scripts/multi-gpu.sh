#!/usr/bin/env bash
# multi-gpu.sh — throughput against the number of devices, in one call of a multi-GPU machine, from the
# repo root: the PoRep-shaped workload through the engine on 1, 2, 4, 8 devices (those present), every
# proof verified by the engine, the proofs of every device count compared byte for byte with those of
# one device, and optionally a stress run keeping every device busy for a while.
#
#   scripts/multi-gpu.sh [K...]          device counts (default: 1 2 4 8, those <= the devices present)
#
# Environment (defaults in brackets):
#   MG_BIN       cuzk-bench to run [build-gpu/cuzk-bench]
#   MG_BACKEND   gpu, or cpu for a dry run where devices are lock domains [gpu]
#   MG_LG        workload scale, --constraints: 27 = full PoRep partitions [27]
#   MG_PARTS     partitions per proof [10]
#   MG_C_PER     proofs submitted per device [4];  MG_J_PER  proofs in flight per device [2]
#   MG_STRESS_S  after the scaling runs, one run on the largest count sized (from its measured rate) to keep
#                the devices busy at least this many seconds; 0 = none [0]
#   MG_ARGS      more cuzk-bench flags, word-split (e.g. "--gpu-workers 1")
#   MG_BASE_S    one device's steady s/proof from an earlier call, for the speedup column when this call
#                does not run one device itself
#   MG_REF       proofs (a --proofs-out file of the same workload and seed, e.g. from another machine or
#                backend) that every run's first MG_C_PER proofs must equal; default: the one-device run's
#   OUT          where logs, timelines, proofs and the table go [build-gpu/out-multi]
#
# A full-scale run takes minutes (the workload build alone ≈ 90 s on an H200 host), so where a call is
# limited in time run one count per call and carry the first run's results: `scripts/multi-gpu.sh 1`,
# then `MG_REF=<out>/k1.proofs MG_BASE_S=<its steady s/proof> scripts/multi-gpu.sh 8`.
#
# Every run uses --seed 1, so job i's partition p has the same witness, r and s whatever the device
# count: the first MG_C_PER proofs of each run must equal the reference's (MG_REF, else the first run's:
# one device by default), which catches a partition proved with another device's key, buffers or stream. Exit status 0 only if every run delivered all of
# its proofs (each verified before delivery) and every comparison held.
set -uo pipefail

bin=${MG_BIN:-build-gpu/cuzk-bench}
backend=${MG_BACKEND:-gpu}
lg=${MG_LG:-27}
parts=${MG_PARTS:-10}
c_per=${MG_C_PER:-4}
j_per=${MG_J_PER:-2}
stress_s=${MG_STRESS_S:-0}
out=${OUT:-$PWD/build-gpu/out-multi}
mkdir -p "$out"
[ -x "$bin" ] || { echo "multi-gpu: $bin is not an executable (set MG_BIN)" >&2; exit 2; }
for v in lg parts c_per j_per stress_s; do
    case ${!v} in '' | *[!0-9]*) echo "multi-gpu: $v must be a whole number, not '${!v}'" >&2; exit 2 ;; esac
done

have=0
if [ "$backend" = gpu ]; then
    have=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
    [ "$have" -ge 1 ] || { echo "multi-gpu: no NVIDIA device (nvidia-smi lists none)" >&2; exit 2; }
    nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm --format=csv | tee "$out/gpus.txt"
    [ -n "${NCCL_NVLS_ENABLE:-}" ] || export NCCL_NVLS_ENABLE=0 # the engine uses no NCCL; kept off anyway
fi
counts=("$@")
if [ ${#counts[@]} -eq 0 ]; then
    for k in 1 2 4 8; do
        if [ "$backend" != gpu ] || [ "$k" -le "$have" ]; then counts+=("$k"); fi
    done
fi
for k in "${counts[@]}"; do
    case $k in '' | *[!0-9]* | 0) echo "multi-gpu: device count '$k' is not a positive number" >&2; exit 2 ;; esac
    if [ "$backend" = gpu ] && [ "$k" -gt "$have" ]; then
        echo "multi-gpu: $k devices asked, $have present" >&2
        exit 2
    fi
done
echo "multi-gpu: backend $backend, 2^$lg, $parts partitions per proof, device counts ${counts[*]}," \
    "$c_per proofs and $j_per in flight per device; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

# the process's peak RSS from GNU time where it is installed (Debian: package `time`)
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v)
status=0
rows=()
base_rate=${MG_BASE_S:-}
case $base_rate in '' | [0-9]*) ;; *) echo "multi-gpu: MG_BASE_S must be a number of seconds" >&2; exit 2 ;; esac
ref_proofs=${MG_REF:-}
if [ -n "$ref_proofs" ] && [ ! -r "$ref_proofs" ]; then
    echo "multi-gpu: MG_REF $ref_proofs cannot be read" >&2
    exit 2
fi
t_start=$(date +%s)

# field FILE REGEX: the first number after REGEX on the first line that matches it
field() { sed -n -E "s/.*$2[^0-9]*([0-9]+(\.[0-9]+)?).*/\1/p" "$1" | head -1; }

# one_run NAME K C J: a batch on K devices, C proofs, J in flight; appends a table row
one_run() {
    local name=$1 k=$2 c=$3 j=$4 smi_pid=""
    local log="$out/$name.log" tl="$out/$name.tl" pr="$out/$name.proofs"
    rm -f "$tl" "$pr"
    echo "== $name: $k device(s), -c $c -j $j ($(($(date +%s) - t_start)) s)"
    if [ "$backend" = gpu ]; then
        nvidia-smi --query-gpu=index,memory.used,utilization.gpu,power.draw --format=csv,noheader,nounits \
            -l 1 >"$out/$name.smi.csv" 2>/dev/null &
        smi_pid=$!
    fi
    # shellcheck disable=SC2086
    "${timer[@]}" "$bin" batch --backend "$backend" --workload porep --constraints "$lg" \
        --partitions "$parts" --devices "$k" --synth-threads $((2 * k)) -c "$c" -j "$j" --seed 1 \
        --timeline "$tl" --proofs-out "$pr" ${MG_ARGS:-} >"$log" 2>&1
    local rc=$?
    [ -n "$smi_pid" ] && kill "$smi_pid" 2>/dev/null && wait "$smi_pid" 2>/dev/null
    grep -E '^  (proofs|throughput|steady state)|^multi|error|failed' "$log" | head -6
    "$bin" timeline report "$tl" --svg "$out/$name.svg" >"$out/$name.report.txt" 2>&1
    local steady util vram rss same="-"
    steady=$(field "$out/$name.report.txt" "steady state")
    # per-device kernel utilization: "dev N  kernels  busy  span  util% ..."
    util=$(awk '$1 == "dev" && $2 ~ /^[0-9]+$/ && $6 ~ /%$/ {printf "%s%s", (n++ ? " " : ""), $6}' \
        "$out/$name.report.txt")
    vram="-"
    [ -s "$out/$name.smi.csv" ] &&
        vram=$(awk -F', ' '{if ($2 + 0 > m) m = $2 + 0} END {printf "%d", m}' "$out/$name.smi.csv")
    rss=$(awk '/Maximum resident set size/ {printf "%.2f", $NF / 1048576}' "$log")
    if [ "$rc" -ne 0 ]; then
        echo "multi-gpu: $name failed (exit $rc); see $log" >&2
        status=1
    fi
    # the first c_per proofs against the one-device run's
    local bytes=$((c_per * parts * 192))
    if [ -z "$ref_proofs" ] && [ "$rc" -eq 0 ]; then
        ref_proofs=$pr
        same="reference"
    elif [ -n "$ref_proofs" ] && [ -s "$pr" ]; then
        if cmp -s -n "$bytes" "$ref_proofs" "$pr" && [ "$(stat -c %s "$pr")" -ge "$bytes" ]; then
            same="yes"
        else
            same="NO"
            echo "multi-gpu: $name: the first $c_per proofs differ from the one-device run's" >&2
            status=1
        fi
    fi
    local speed="-"
    if [ -n "$steady" ] && [ "$k" -eq 1 ] && [ -z "$base_rate" ]; then base_rate=$steady; fi
    if [ -n "$steady" ] && [ -n "$base_rate" ]; then
        speed=$(awk -v b="$base_rate" -v s="$steady" -v k="$k" \
            'BEGIN {x = b / s; printf "%.2f (%.0f %% of %d)", x, 100 * x / k, k}')
    fi
    rows+=("| $name | $k | $c | $j | $([ $rc -eq 0 ] && echo ok || echo "FAILED($rc)") | ${steady:--} | $speed | ${util:--} | $vram | ${rss:--} | $same |")
    LAST_STEADY=$steady
}

for k in "${counts[@]}"; do
    one_run "k$k" "$k" $((k * c_per)) $((k * j_per))
done
if [ "$stress_s" -gt 0 ]; then
    k=${counts[${#counts[@]} - 1]}
    # proofs for stress_s seconds at the last rate measured on k devices (at least 2 per device)
    c=$(awk -v s="${LAST_STEADY:-0}" -v t="$stress_s" -v k="$k" \
        'BEGIN {c = s > 0 ? int(t / s) + 1 : 0; if (c < 2 * k) c = 2 * k; print c}')
    one_run "stress-k$k" "$k" "$c" $((k * j_per))
fi

{
    echo "| run | devices | proofs | in flight | status | steady s/proof | speedup vs 1 device | kernel util per device | VRAM peak MiB (any device) | host peak RSS GiB | first proofs = reference |"
    echo "|---|--:|--:|--:|---|--:|---|---|--:|--:|---|"
    printf '%s\n' "${rows[@]}"
} | tee "$out/table.md"
echo "multi-gpu: $([ $status -eq 0 ] && echo OK || echo FAILED) in $(($(date +%s) - t_start)) s"
exit $status
