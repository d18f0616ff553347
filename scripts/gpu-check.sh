#!/usr/bin/env bash
# gpu-check.sh — build, check and benchmark the CUDA backend in one go, on a
# machine with an NVIDIA GPU (one call of the device machine), from the repo root.
#
#   scripts/gpu-check.sh [STEP...]
#     steps (default: all): ec ntt msm prove engine setup cli bench-ntt bench-msm bench-prove bench-setup
#                           bench-engine (bench-porep, bench-sweep: only when named)
#       ec           device Fp/Fp2/G1/G2 arithmetic against the CPU library, plus its rates
#       ntt          every NTT mode at 2^1..2^20, and 2^24, 2^27 (NTT_CHECK_LG), against the CPU
#       msm          G1/G2 MSM against the CPU MSM and a closed form, many shapes and windows
#       prove        GPU proofs byte-identical to CPU proofs, verified (host and device evaluation)
#       engine       the proving engine on the CUDA backend: proofs equal the CPU's, cancel, budget
#       setup        the setup's fixed-base multiplications on the GPU, and whole keys, against the CPU's
#       cli          `cuzk prove-params --device gpu`, `cuzk prove --device gpu` (snarkjs), cuzkd on the
#                    GPU backend (key resident, then streamed by key_vram) and `cuzk-bench --backend gpu`
#                    on small inputs
#       bench-ntt    NTT times at 2^24, 2^27 (NTT_BENCH_LG, e.g. "27 28")
#       bench-msm    MSM times: G1 at $MSM_SIZES (default 20 24 26 27), G2 at 2^24; with $MSM_C_LG set,
#                    also G1 at 2^MSM_C_LG - 1 and 2^MSM_C_LG scalars: the default window, then every c
#                    from max(4, MSM_C_LG - 10) to 20 with work items and (from 2^22) the batch-affine tree;
#                    with $MSM_C_G2_LG set, the same for G2 (work items only)
#       bench-tree   (only when named) G1 at 2^$TREE_LG - 1 scalars (default 27), c = 20, the batch-affine
#                    tree's rounds cut into 1, 2, 3 and 4 parts
#       bench-prove  whole-proof device stage times at 2^$PROVE_LG (default 20), host then device evaluation
#       bench-porep  device stage times of one PoRep-shaped partition at 2^$POREP_LG (default 22; 27 = full);
#                    POREP_QUICK=1: only the default B2 place, then the streamed key; POREP_FORMS=1: the key
#                    in bellperson's form, then in the coset form (docs/design/021), median of 5 each;
#                    POREP_TABLES=1: the coset form with its bases, then with group tables of k = 2 and 3
#                    (docs/design/020), median of 5 each
#       bench-sweep  cuzk-bench sweep on the PoRep-shaped workload at 2^$SWEEP_LG (default 23), 10 partitions
#                    per proof, over $SWEEP_C x $SWEEP_J x $SWEEP_GW (defaults 5,10,20 x 2,5,10 x 1,2);
#                    $SWEEP_FLAGS: more cuzk-bench flags (e.g. --no-zpack)
#       bench-setup  fixed-base rates and a 2^$SETUP_LG key (default 20), GPU-accelerated vs CPU
#       bench-coset  (only when named) a .params key's conversion to the coset form (docs/design/022) at
#                    2^$COSET_LGS (default "16 20 24"): GPU transforms with the endomorphism, plain
#                    double-and-add (to 2^22), and the CPU's (to 2^16), keys compared
#       bench-engine cuzk-bench on the CUDA backend, PoRep-shaped workload at 2^$ENGINE_LG (default 20):
#                    single, then batch -c 4 -j 2, with a TIMELINE report
#       ab           (only when named) build-time variants against the default build: for each of
#                    $AB_TESTS (default "ntt msm ec"; also "prove"), the default's benchmark, then each
#                    variant present (suffixes in $AB_SUFFIXES, e.g. "_pf1 _rc": programs built by
#                    scripts/carry-build.sh with CARRY_SUFFIX) with its check (AB_CHECK=0: none) and the
#                    same benchmark, then the default's again (AB_REPEAT=0: not), so drift shows (ntt:
#                    bench $AB_NTT_LG, default 27; msm: $AB_MSM_BENCH, default "bench-tree $TREE_LG 2", a
#                    check ≈ 85 s; prove: bench-porep $POREP_LG quick, default 27, ≈ 240 s, a check
#                    ≈ 80 s; ec: the checks and rates)
#       bench-kernels (only when named) the kernel experiments of bench/gpu: batch_affine at 2^$BA_LG
#                    (default 27; batch-affine additions and bucket trees against the library's
#                    accumulation, every result checked), msm_kernels (accumulation variants) and
#                    fp52_rate (the FP64-pipe Fp product against fp.cuh's, results checked on the host)
#
# Environment: CUZK_GPU_BUILD (build dir, default build-gpu): when it already
# holds the four test programs and CUZK_GPU_NOBUILD=1, nothing is rebuilt (a
# build made elsewhere with -gencode arch=compute_90,code=sm_90 can be carried
# in; building every program on the device takes ≈ 8 minutes of its 16 cores,
# so carrying one made by scripts/carry-build.sh is the cheaper way). Logs go to $OUT (the device tool's return
# folder: packed into $OUT/gpu-check-logs.tgz at the end) or
# build-gpu/out; the summary table is printed last. Exit status: 0 only if
# every step passed.
set -uo pipefail

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(ec ntt msm prove engine setup cli bench-ntt bench-msm bench-prove bench-setup bench-engine)
bdir=${CUZK_GPU_BUILD:-build-gpu}
out=${OUT:+$OUT/gpu-check}
out=${out:-$PWD/$bdir/out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
status=0
t_start=$(date +%s)
summary=()

step() { echo "== $* ($(($(date +%s) - t_start)) s)"; }
has() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
# run NAME CMD...: runs CMD with its output in $out/NAME.log (and on stdout), records pass/fail
run() {
    local name=$1; shift
    step "$name: $*"
    local t0
    t0=$(date +%s)
    "$@" 2>&1 | tee "$out/$name.log"
    local rc=${PIPESTATUS[0]}
    summary+=("$(printf '%-12s %s  %4d s  %s' "$name" "$([ "$rc" -eq 0 ] && echo PASS || echo "FAIL($rc)")" \
        $(($(date +%s) - t0)) "$(grep -E 'passed|failed' "$out/$name.log" | tail -1)")")
    [ "$rc" -eq 0 ] || status=1
}

step "gpu"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.limit \
    --format=csv | tee "$out/gpu.txt"
nvcc --version | tail -2 | tee -a "$out/gpu.txt"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes')" |
    tee -a "$out/gpu.txt"

# Only the programs the steps need; each test program is built by its own process in parallel (one
# `cmake --build --target a b c` builds them one after the other, and one of them alone takes minutes).
targets=()
for t in ntt ec msm prove engine setup; do
    if has "$t" || has "bench-$t"; then targets+=("test_gpu_$t"); fi
done
has bench-coset && ! has setup && ! has bench-setup && targets+=(test_gpu_setup)
has bench-porep && ! has prove && ! has bench-prove && targets+=(test_gpu_prove)
has bench-tree && ! has msm && ! has bench-msm && targets+=(test_gpu_msm)
if has cli || has bench-engine || has bench-sweep; then targets+=(cuzk_cli cuzk-bench_cli); fi
# cuzkd needs nghttp2 and protobuf-c; where the configure step found them not, the daemon step says so.
want_daemon=0
has cli && want_daemon=1
has bench-kernels && targets+=(batch_affine msm_kernels fp52_rate)
if has ab; then # the defaults the variants are measured against (variants are carried in, never built here)
    for t in test_gpu_ntt test_gpu_msm test_gpu_ec test_gpu_prove; do
        for sfx in ${AB_SUFFIXES:-}; do
            [ -x "$bdir/$t$sfx" ] && [[ " ${targets[*]} " != *" $t "* ]] && targets+=("$t")
        done
    done
fi
if [ "${CUZK_GPU_NOBUILD:-0}" = 1 ]; then
    step "using the programs already in $bdir"
else
    step "configure + build"
    # Only the GPU targets are built here. The CPU suite's GMP test makes the configure step require
    # GMP; where its header is missing, configure is told a placeholder, since nothing built here uses it.
    gmp_args=()
    if ! echo '#include <gmp.h>' | cc -E -x c - >/dev/null 2>&1; then
        gmp_args=(-DGMP_INCLUDE_DIR=/nonexistent-gmp -DGMP_LIBRARY=gmp)
    fi
    build_ok=1
    {
        cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release "${gmp_args[@]}" &&
            cmake --build "$bdir" -j"$(nproc)" --target cuzk_gpu cuzk_testutil
    } >"$out/build.log" 2>&1 || build_ok=0
    # (the target list is read whole: grep -q leaving a pipe early fails it under pipefail)
    if [ $build_ok = 1 ] && [ $want_daemon = 1 ] &&
        grep -qw cuzkd_cli <<<"$(cmake --build "$bdir" --target help 2>/dev/null)"; then
        targets+=(cuzkd_cli)
    fi
    if [ $build_ok = 1 ]; then
        pids=()
        for t in "${targets[@]}"; do
            cmake --build "$bdir" -j"$(nproc)" --target "$t" >"$out/build-$t.log" 2>&1 &
            pids+=($!)
        done
        for p in "${pids[@]}"; do wait "$p" || build_ok=0; done
        cat "$out"/build-*.log >>"$out/build.log"
    fi
    if [ $build_ok = 0 ]; then
        grep -E 'error' "$out/build.log" | head -30
        tail -20 "$out/build.log"
        echo "BUILD FAILED"
        exit 1
    fi
    grep -iE 'warning' "$out/build.log" | grep -v 'cub\|thrust' | head -20
fi

has ec && run ec "$bdir/test_gpu_ec"
# shellcheck disable=SC2086
has ntt && run ntt "$bdir/test_gpu_ntt" check ${NTT_CHECK_LG:-24 27}
has msm && run msm "$bdir/test_gpu_msm" check
has prove && run prove "$bdir/test_gpu_prove" check
has engine && run engine "$bdir/test_gpu_engine" 14
has setup && run setup "$bdir/test_gpu_setup" check
has cli && run cli bash tests/cli/test_cli_params.sh "$bdir"
has cli && run cli-zkey bash tests/cli/test_cli.sh "$bdir"
if has cli; then
    if [ -x "$bdir/cuzkd" ]; then
        run cli-daemon bash tests/gpu/test_daemon_gpu.sh "$bdir"
    else
        step "cli-daemon: NOT RUN"
        summary+=("$(printf '%-12s %s' cli-daemon 'NOT RUN: no cuzkd in this build (nghttp2/protobuf-c missing)')")
    fi
fi
if has ab; then
    for t in ${AB_TESTS:-ntt msm ec}; do
        d="$bdir/test_gpu_$t" vs=()
        for sfx in ${AB_SUFFIXES:-}; do [ -x "$d$sfx" ] && vs+=("$sfx"); done
        [ ${#vs[@]} -gt 0 ] || continue
        case $t in
        ntt) chk=(check 24 27) bench=(bench "${AB_NTT_LG:-27}") ;;
        msm) chk=(check) read -ra bench <<<"${AB_MSM_BENCH:-bench-tree ${TREE_LG:-27} 2}" ;;
        prove) chk=(check) bench=(bench-porep "${POREP_LG:-27}" quick) ;;
        ec) chk=(--no-bench) bench=() ;;
        *) echo "gpu-check: unknown AB_TESTS entry '$t'" >&2; status=1; continue ;;
        esac
        run "ab-$t-default-1" "$d" "${bench[@]}"
        for sfx in "${vs[@]}"; do
            [ "${AB_CHECK:-1}" = 1 ] && run "ab-$t$sfx-check" "$d$sfx" "${chk[@]}"
            run "ab-$t$sfx" "$d$sfx" "${bench[@]}"
        done
        [ "${AB_REPEAT:-1}" = 1 ] && run "ab-$t-default-2" "$d" "${bench[@]}"
    done
fi
has cli && run cli-bench "$bdir/cuzk-bench" single --backend gpu --workload porep --constraints 14 --partitions 3
if has bench-ntt || has bench-msm || has bench-prove || has bench-setup || has bench-engine || has bench-porep ||
    has bench-sweep || has bench-kernels || has bench-tree || has bench-coset; then
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu,memory.used \
        --format=csv -lms 1000 >"$out/smi-during-bench.csv" 2>&1 &
    smi_pid=$!
    # shellcheck disable=SC2086
    has bench-ntt && run bench-ntt "$bdir/test_gpu_ntt" bench ${NTT_BENCH_LG:-24 27}
    # shellcheck disable=SC2086
    has bench-msm && run bench-msm "$bdir/test_gpu_msm" bench ${MSM_SIZES:-20 24 26 27}
    has bench-msm && [ -n "${MSM_C_LG:-}" ] && run bench-msm-c "$bdir/test_gpu_msm" bench-c "$MSM_C_LG"
    has bench-msm && [ -n "${MSM_C_G2_LG:-}" ] && run bench-msm-c-g2 "$bdir/test_gpu_msm" bench-c "$MSM_C_G2_LG" g2
    has bench-tree && run bench-tree "$bdir/test_gpu_msm" bench-tree "${TREE_LG:-27}"
    has bench-prove && run bench-prove "$bdir/test_gpu_prove" bench "${PROVE_LG:-20}"
    quick=()
    [ "${POREP_QUICK:-0}" = 1 ] && quick=(quick)
    [ "${POREP_FORMS:-0}" = 1 ] && quick=(forms) # the key's two forms, A/B (docs/design/021)
    [ "${POREP_TABLES:-0}" = 1 ] && quick=(tables) # coset form, bases vs group tables (docs/design/020)
    has bench-porep && run bench-porep "$bdir/test_gpu_prove" bench-porep "${POREP_LG:-22}" "${quick[@]}"
    has bench-setup && run bench-setup "$bdir/test_gpu_setup" bench "${SETUP_LG:-20}"
    # shellcheck disable=SC2086
    has bench-coset && run bench-coset "$bdir/test_gpu_setup" bench-coset ${COSET_LGS:-16 20 24}
    if has bench-engine; then
        run bench-engine-1 "$bdir/cuzk-bench" single --backend gpu --workload porep --constraints "${ENGINE_LG:-20}" \
            --partitions 2
        run bench-engine "$bdir/cuzk-bench" batch -c 4 -j 2 --backend gpu --workload porep \
            --constraints "${ENGINE_LG:-20}" --partitions 2 --timeline "$out/engine.tl"
        [ -f "$out/engine.tl" ] && "$bdir/cuzk-bench" timeline report "$out/engine.tl" --svg "$out/engine.svg" \
            >"$out/engine-report.txt" 2>&1
    fi
    if has bench-sweep; then # timelines of every cell, their report and SVG; peak RSS from /usr/bin/time
        timev=()
        [ -x /usr/bin/time ] && timev=(/usr/bin/time -v)
        mkdir -p "$out/sweep-tl"
        run bench-sweep "${timev[@]}" "$bdir/cuzk-bench" sweep --backend gpu --workload porep \
            --constraints "${SWEEP_LG:-23}" --partitions 10 --c-list "${SWEEP_C:-5,10,20}" \
            --j-list "${SWEEP_J:-2,5,10}" --gw-list "${SWEEP_GW:-1,2}" --csv "$out/sweep.csv" \
            --timeline-dir "$out/sweep-tl" ${SWEEP_FLAGS:-}
        for tl in "$out"/sweep-tl/*.jsonl; do
            [ -f "$tl" ] && "$bdir/cuzk-bench" timeline report "$tl" --svg "${tl%.jsonl}.svg" >"${tl%.jsonl}.txt" 2>&1
        done
    fi
    has bench-kernels && run bench-batch-affine "$bdir/batch_affine" "${BA_LG:-27}"
    has bench-kernels && run bench-msm-kernels "$bdir/msm_kernels"
    has bench-kernels && run bench-fp52 "$bdir/fp52_rate"
    kill "$smi_pid" 2>/dev/null
    wait "$smi_pid" 2>/dev/null
fi

step "summary"
printf '%s\n' "${summary[@]}"
for f in bench-ntt bench-msm bench-msm-c bench-prove bench-porep bench-setup bench-coset bench-sweep bench-batch-affine bench-msm-kernels; do
    [ -f "$out/$f.log" ] && grep -E '^\|' "$out/$f.log"
done
# the ab step's benchmarks, each under its run's name (tables; ec's rates are "bench ... G/s" lines)
for f in "$out"/ab-*.log; do
    if [ ! -f "$f" ] || [[ $f == *-check.log ]]; then continue; fi
    echo "## $(basename "$f" .log)"
    grep -E '^\||^bench .* G/s' "$f"
done
echo "gpu-check: $([ $status -eq 0 ] && echo OK || echo FAILED) in $(($(date +%s) - t_start)) s"
# The device tool returns at most 8 files from $OUT: there, the logs travel as one archive, a new name for
# each run of one call (gpu-check-logs.tgz, then gpu-check-logs-2.tgz, ...), so a later run keeps an
# earlier one's.
if [ -n "${OUT:-}" ]; then
    tgz=$OUT/gpu-check-logs.tgz
    k=2
    while [ -e "$tgz" ]; do tgz=$OUT/gpu-check-logs-$k.tgz k=$((k + 1)); done
    tar -czf "$tgz" -C "$OUT" gpu-check && rm -rf "$out" && echo "gpu-check: logs in $tgz" ||
        echo "gpu-check: the logs stay unpacked in $out"
fi
exit $status
