#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test three times: a Release build, an AddressSanitizer +
# UndefinedBehaviorSanitizer build, and a ThreadSanitizer build (the engine's workers, the thread pool
# and cuzkd's threads: a data race fails the test that ran into it); then runs the libFuzzer targets
# for a bounded time (scripts/fuzz.sh). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
# ctest runs tests/cli/test_*.sh too: test_daemon.sh starts cuzkd and drives it with the Node.js gRPC
# tests of tests/daemon/ (every build; under ASan a leak at the daemon's exit fails it).
echo "== release build and tests =="
bash scripts/build.sh release
ctest --test-dir build --output-on-failure -j "$jobs"
echo "== ASan/UBSan build and tests =="
bash scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
echo "== ThreadSanitizer build and tests =="
bash scripts/build.sh tsan
# ThreadSanitizer's runtime maps fixed regions; with the kernel's wider address randomization
# (vm.mmap_rnd_bits = 32) some runtimes refuse to start, so the stage runs without randomization
# where the system allows it.
norand=()
setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R)
TSAN_OPTIONS=second_deadlock_stack=1 "${norand[@]}" ctest --test-dir build-tsan --output-on-failure -j "$jobs"
echo "== fuzzers (clang, libFuzzer) =="
bash scripts/fuzz.sh
# Each stage above aborts the script on failure, so reaching here means all four passed.
echo "test stages (release ctest, asan ctest, tsan ctest, fuzz): 4 passed, 0 failed"
