#!/usr/bin/env bash
# Configures and builds one flavour of cuzk. Usage: scripts/build.sh [release|asan|tsan] (default
# release). The build lands in build/ (release), build-asan/ (ASan + UBSan) or build-tsan/
# (ThreadSanitizer). The CUDA backend is built when nvcc is found, unless CUZK_CUDA=OFF is set in the
# environment (CPU-only build, as on CI machines); the sanitized flavours are always host-only.
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
jobs=$(nproc 2>/dev/null || echo 2)
case "$flavour" in
  release) dir=build; args=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) dir=build-asan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_SANITIZE=ON) ;;
  tsan) dir=build-tsan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_TSAN=ON) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release|asan|tsan)" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" "${args[@]}" -DCUZK_CUDA="${CUZK_CUDA:-ON}" >/dev/null
cmake --build "$dir" -j "$jobs"
