#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test twice: a Release build, then
# an AddressSanitizer + UndefinedBehaviorSanitizer build; then runs the libFuzzer targets for a bounded
# time (scripts/fuzz.sh). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
# ctest runs tests/cli/test_*.sh too: test_daemon.sh starts cuzkd and drives it with the Node.js gRPC
# tests of tests/daemon/ (both builds; under ASan a leak at the daemon's exit fails it).
echo "== release build and tests =="
bash scripts/build.sh release
ctest --test-dir build --output-on-failure -j "$jobs"
echo "== ASan/UBSan build and tests =="
bash scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
echo "== fuzzers (clang, libFuzzer) =="
bash scripts/fuzz.sh
# Each stage above aborts the script on failure, so reaching here means all three passed.
echo "test stages (release ctest, asan ctest, fuzz): 3 passed, 0 failed"
