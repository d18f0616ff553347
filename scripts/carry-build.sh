#!/usr/bin/env bash
# carry-build.sh — build the GPU programs on this machine (nvcc needed, no GPU)
# and pack them for the device machine, where building every program costs
# about 8 minutes of device time.
#
#   scripts/carry-build.sh [TARGET...]      (from the repository root)
#     default targets: the programs scripts/gpu-check.sh runs (test_gpu_*, cuzk,
#     cuzk-bench and, where nghttp2/protobuf-c are installed, cuzkd)
#
# Environment:
#   CARRY_DIR         where the archive and the unpacked programs live (default build-carry)
#   CARRY_BUILD       the CMake build folder (default $CARRY_DIR/build$CARRY_SUFFIX)
#   CARRY_CUDA_FLAGS  extra nvcc flags for a variant, e.g. -DNTT_MIN_BLOCKS=3
#   CARRY_SUFFIX      appended to each program's name, so variants sit side by side
#
# Each run adds its programs to $CARRY_DIR/b and packs the whole folder into
# $CARRY_DIR/bins.tar.xz; the device tool carries at most 64 MiB, so the size is
# checked. On the device:
#   tar -C build-carry -xJf build-carry/bins.tar.xz
#   CUZK_GPU_BUILD=build-carry/b CUZK_GPU_NOBUILD=1 scripts/gpu-check.sh STEP...
set -euo pipefail

dir=${CARRY_DIR:-build-carry}
suffix=${CARRY_SUFFIX:-}
bdir=${CARRY_BUILD:-$dir/build$suffix}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(test_gpu_ec test_gpu_ntt test_gpu_msm test_gpu_prove test_gpu_engine test_gpu_setup cuzk_cli
        cuzk-bench_cli)
fi
export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "carry-build: nvcc not found" >&2; exit 1; }

cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="${CARRY_CUDA_FLAGS:-}" >/dev/null
# (the target list is read whole: grep -q leaving a pipe early fails it under pipefail)
if [ $# -eq 0 ] && grep -qw cuzkd_cli <<<"$(cmake --build "$bdir" --target help)"; then
    targets+=(cuzkd_cli)
fi
start=$(date +%s)
cmake --build "$bdir" -j"$(nproc)" --target "${targets[@]}"
echo "carry-build: built ${#targets[@]} programs in $(($(date +%s) - start)) s"

mkdir -p "$dir/b"
for t in "${targets[@]}"; do
    prog=${t%_cli} # the CLI targets are <program>_cli
    [ -x "$bdir/$prog" ] || { echo "carry-build: $bdir/$prog was not built" >&2; exit 1; }
    cp "$bdir/$prog" "$dir/b/$prog$suffix"
done
tar -C "$dir" -cJf "$dir/bins.tar.xz.part" b
mv "$dir/bins.tar.xz.part" "$dir/bins.tar.xz"
size=$(stat -c %s "$dir/bins.tar.xz")
echo "carry-build: $dir/bins.tar.xz, $((size / 1048576)) MiB, holding: $(cd "$dir/b" && echo *)"
if [ "$size" -gt $((60 * 1048576)) ]; then
    echo "carry-build: over 60 MiB; the device tool carries 64 MiB in all: drop programs from $dir/b" >&2
    exit 1
fi
