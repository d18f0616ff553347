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
#   CARRY_SOURCES     with CARRY_CUDA_FLAGS: only these .cu files (e.g. src/gpu/msm_g1.cu) are compiled
#                     with the flags, and each program is linked from the default build ($CARRY_BASE,
#                     default $CARRY_DIR/build, made first by a run without CARRY_SOURCES) with those objects
#                     swapped into its library: a minute instead of a full build, for a flag that acts in
#                     those files only. The launches made from a file use that file's own copy of a kernel
#                     (nvcc keeps kernel stubs local to their file, templates included), so the flag reaches
#                     exactly those launches: for the G1 MSM, src/gpu/msm_g1.cu. bench/gpu/sass_cost.py on
#                     the program lists every copy it embeds
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

pack() {
    # symbols stripped and one large xz dictionary: the programs share most of their bytes (the device
    # code), so nine programs and four variants pack into ≈ 12 MiB instead of ≈ 77 MiB
    strip "$dir"/b/*
    tar -C "$dir" -cf - b | xz -9e -T2 >"$dir/bins.tar.xz.part"
    mv "$dir/bins.tar.xz.part" "$dir/bins.tar.xz"
    size=$(stat -c %s "$dir/bins.tar.xz")
    echo "carry-build: $dir/bins.tar.xz, $((size / 1048576)) MiB, holding: $(cd "$dir/b" && echo *)"
    if [ "$size" -gt $((60 * 1048576)) ]; then
        echo "carry-build: over 60 MiB; the device tool carries 64 MiB in all: drop programs from $dir/b" >&2
        exit 1
    fi
}

if [ -n "${CARRY_SOURCES:-}" ]; then
    base=${CARRY_BASE:-$dir/build}
    [ -n "$suffix" ] || { echo "carry-build: CARRY_SOURCES needs a CARRY_SUFFIX" >&2; exit 1; }
    [ -f "$base/compile_commands.json" ] && [ -f "$base/libcuzk_gpu.a" ] ||
        { echo "carry-build: no default build in $base: run scripts/carry-build.sh first" >&2; exit 1; }
    mkdir -p "$dir/b"
    tmp=$(cd "$dir" && pwd)/objs$suffix
    rm -rf "$tmp" && mkdir -p "$tmp"
    cp "$base/libcuzk_gpu.a" "$tmp/"
    for src in $CARRY_SOURCES; do
        obj=$tmp/$(basename "$src").o
        # the default build's own command for the file, with the flags added and the object sent to $tmp
        cmd=$(python3 - "$base/compile_commands.json" "$(realpath "$src")" "$obj" "${CARRY_CUDA_FLAGS:-}" <<'PY'
import json, shlex, sys
db, src, obj, flags = sys.argv[1:]
for e in json.load(open(db)):
    if e["file"] == src:
        a = shlex.split(e["command"])
        a[a.index("-o") + 1] = obj
        print(shlex.join(a[:1] + shlex.split(flags) + a[1:]))
        break
else:
    sys.exit("carry-build: %s is not compiled by the default build" % src)
PY
        ) || exit 1
        (cd "$base" && eval "$cmd") || { echo "carry-build: compiling $src failed" >&2; exit 1; }
        ar r "$tmp/libcuzk_gpu.a" "$obj" 2>/dev/null
    done
    for t in "${targets[@]}"; do
        prog=${t%_cli}
        tdir=$base/CMakeFiles/$t.dir
        [ -f "$tdir/link.txt" ] || { echo "carry-build: no link command for $t in $base" >&2; exit 1; }
        sed "s#\(^\| \)libcuzk_gpu.a#\1$tmp/libcuzk_gpu.a#" "$tdir/linkLibs.rsp" >"$tmp/$t.libs"
        link=$(sed -e "s#@CMakeFiles/$t.dir/linkLibs.rsp#@$tmp/$t.libs#" -e "s# -o $prog # -o $tmp/$prog #" \
            "$tdir/link.txt")
        (cd "$base" && eval "$link") || { echo "carry-build: linking $prog failed" >&2; exit 1; }
        cp "$tmp/$prog" "$dir/b/$prog$suffix"
    done
    echo "carry-build: ${targets[*]} linked with $CARRY_SOURCES rebuilt (${CARRY_CUDA_FLAGS:-no flags})"
    pack
    exit 0
fi

cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="${CARRY_CUDA_FLAGS:-}" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
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
pack
