#!/usr/bin/env bash
# gpu-check.sh — build, check and benchmark the CUDA backend in one go, on a
# machine with an NVIDIA GPU (one call of the device machine), from the repo root.
#
#   scripts/gpu-check.sh [full|quick|bench]
#     full   (default) correctness: field kernel, every NTT mode at 2^1..2^20,
#            2^24 and 2^27 against the CPU; then the benchmark (2^20, 2^24,
#            2^27 and pinned copies), then ncu on the passes of one 2^27 NR
#     quick  as full, but the large CPU comparisons at 2^24 only
#     bench  the benchmark only
#
# Also records nvidia-smi, nvcc, the commit, and the SASS opcode mix of the
# kernels. Logs go to $OUT (the device tool's return folder) or build-gpu/out;
# the summary table is printed last (about 100 s for full on an H200). Exit
# status: 0 only if the build, the checks and the benchmark passed.
set -uo pipefail

mode=${1:-full}
out=${OUT:-$PWD/build-gpu/out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
status=0
t_start=$(date +%s)

step() { echo "== $* ($(($(date +%s) - t_start)) s)"; }

step "gpu"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.limit \
    --format=csv | tee "$out/gpu.txt"
nvcc --version | tail -2 | tee -a "$out/gpu.txt"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes')" |
    tee -a "$out/gpu.txt"

step "configure + build"
# Only the GPU targets are built here. The CPU suite's GMP test makes the
# configure step require GMP; where its header is missing, configure is told a
# placeholder, since nothing built by this script uses it.
gmp_args=()
if ! echo '#include <gmp.h>' | cc -E -x c - >/dev/null 2>&1; then
    gmp_args=(-DGMP_INCLUDE_DIR=/nonexistent-gmp -DGMP_LIBRARY=gmp)
fi
{
    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release "${gmp_args[@]}" &&
        cmake --build build-gpu -j"$(nproc)" --target test_gpu_ntt
} >"$out/build.log" 2>&1
if [ $? -ne 0 ]; then
    tail -40 "$out/build.log"
    echo "BUILD FAILED"
    exit 1
fi
grep -iE 'warning|error' "$out/build.log" | head -20

step "machine code"
if command -v cuobjdump >/dev/null; then
    { cuobjdump -sass build-gpu/libcuzk_gpu.a; cuobjdump -sass build-gpu/test_gpu_ntt; } >"$out/sass.txt" 2>&1
    # Instructions per kernel, and the most frequent opcodes of the pass and multiplication-rate kernels.
    awk '/Function :/ { fn = $3 } /^ +\/\*[0-9a-f]+\*\// { n[fn]++ }
         END { for (f in n) printf "%8d %s\n", n[f], f }' "$out/sass.txt" | sort -k2 | tee "$out/sass-summary.txt"
    awk '/Function :/ { fn = $3 } fn ~ /k_pass|k_mulrate/ && /^ +\/\*[0-9a-f]+\*\// {
             op = $2; if (op ~ /^@/) op = $3; sub(/;$/, "", op); split(op, p, "."); c[fn " " p[1]]++ }
         END { for (k in c) if (c[k] >= 40) printf "%8d %s\n", c[k], k }' "$out/sass.txt" |
        sort -k2,2 -k1,1nr | tee -a "$out/sass-summary.txt"
fi

if [ "$mode" != bench ]; then
    step "correctness"
    large=(24 27)
    [ "$mode" = quick ] && large=(24)
    build-gpu/test_gpu_ntt check "${large[@]}" 2>&1 | tee "$out/check.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

step "benchmark"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu \
    --format=csv -lms 500 >"$out/smi-during-bench.csv" 2>&1 &
smi_pid=$!
build-gpu/test_gpu_ntt bench 20 24 27 2>&1 | tee "$out/bench.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
kill "$smi_pid" 2>/dev/null
wait "$smi_pid" 2>/dev/null

if [ "$mode" != bench ] && command -v ncu >/dev/null; then
    step "profile (ncu, the three passes of one forward NR at 2^27)"
    timeout 180 ncu --clock-control none -k regex:k_pass --launch-count 3 --section SpeedOfLight \
        --section ComputeWorkloadAnalysis --section Occupancy --section MemoryWorkloadAnalysis \
        build-gpu/test_gpu_ntt once 27 >"$out/ncu.txt" 2>&1
    grep -E 'k_pass|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Executed Ipc A|Registers' \
        "$out/ncu.txt" | head -40
fi

step "summary"
grep -E 'passed|differ|mismatch' "$out/check.log" 2>/dev/null | grep -vE ': 0 (of|differ)' | tail -5
sed -n '/^| size/,$p' "$out/bench.log"
echo "gpu-check: $([ $status -eq 0 ] && echo OK || echo FAILED) in $(($(date +%s) - t_start)) s"
exit $status
