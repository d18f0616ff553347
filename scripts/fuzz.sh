#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.c) with clang, ASan and UBSan in build-fuzz/ and runs
# each one for a bounded time: CUZK_FUZZ_SECONDS (default 30) per target. Seeds come from the committed
# corpora in tests/fuzz/corpus/<target>/; fuzz_params is seeded with a .params and .vk that `cuzk setup`
# makes for the bits fixture circuit, which fuzz_daemon_service also registers; fuzz_rpc_server and
# fuzz_daemon_service write their own seeds (well-formed HTTP/2 calls). What the fuzzers add to the
# corpus goes to a temporary directory, never to the tree. Exits non-zero if any target finds a crash, a leak, a timeout or a failed property
# check, and prints where the reproducers are and a hexdump of the first one.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${CUZK_FUZZ_SECONDS:-30}
jobs=$(nproc 2>/dev/null || echo 2)

targets=()
for src in tests/fuzz/fuzz_*.c; do
  targets+=("$(basename "$src" .c)")
done

echo "== fuzz: building ${targets[*]} with clang =="
CC=clang cmake -S . -B build-fuzz -DCUZK_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# fuzz_rpc_server exists only where the daemon's libraries (nghttp2, protobuf-c) were found: say so, go on
known=$(cmake --build build-fuzz --target help 2>/dev/null)
built=()
for t in "${targets[@]}"; do
  if grep -q "\.\.\. $t\$" <<<"$known"; then
    built+=("$t")
  else
    echo "fuzz: $t is not configured in this build (its libraries are missing); skipped"
  fi
done
targets=("${built[@]}")
cmake --build build-fuzz -j "$jobs" --target "${targets[@]}" cuzk_cli >/dev/null

work=$(mktemp -d /tmp/cuzk-fuzz.XXXXXX)
keep=0
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT

seeds="$work/seeds/fuzz_params"
mkdir -p "$seeds"
if [ -x build-fuzz/cuzk ]; then
  build-fuzz/cuzk setup tests/fixtures/bits/circuit.r1cs "$seeds/bits.params" "$seeds/bits.vk" >/dev/null 2>&1 ||
    echo "fuzz: cuzk setup failed; fuzz_params starts from an empty corpus"
  # and a coset key file (docs/design/022), whose header and identity points take other paths
  [ -f "$seeds/bits.params" ] && { build-fuzz/cuzk coset-key "$seeds/bits.params" tests/fixtures/bits/circuit.r1cs \
    "$seeds/bits.coset" --threads 1 >/dev/null 2>&1 || echo "fuzz: cuzk coset-key failed; no coset key seed"; }
fi

# fuzz_rpc_server writes its seed connections (well-formed HTTP/2 calls made with nghttp2's client) here
mkdir -p "$work/seeds/fuzz_rpc_server"
export CUZK_FUZZ_RPC_SEEDS="$work/seeds/fuzz_rpc_server"
# fuzz_daemon_service writes its seed call lists here, and registers the bits circuit with the key above
mkdir -p "$work/seeds/fuzz_daemon_service"
export CUZK_FUZZ_SERVICE_SEEDS="$work/seeds/fuzz_daemon_service"
[ -f "$seeds/bits.params" ] && export CUZK_FUZZ_BITS_PARAMS="$seeds/bits.params"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

failed=()
summary=()
for t in "${targets[@]}"; do
  corpus="$work/corpus/$t"
  artifacts="$work/artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  dirs=("$corpus")
  [ -d "tests/fuzz/corpus/$t" ] && dirs+=("tests/fuzz/corpus/$t")
  [ -d "$work/seeds/$t" ] && dirs+=("$work/seeds/$t")
  echo "== fuzz: $t for ${secs}s =="
  log="$work/$t.log"
  rc=0
  "build-fuzz/$t" -max_total_time="$secs" -timeout=25 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dirs[@]}" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 || true)
  summary+=("$t: ${execs:-?} executions, ${cov:-cov: ?}, exit $rc")
  if [ "$rc" -ne 0 ] || [ -n "$(ls -A "$artifacts")" ]; then
    failed+=("$t")
    tail -n 60 "$log"
  fi
done

echo "== fuzz summary =="
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  keep=1
  echo "fuzz: FAILED: ${failed[*]}; reproducers and logs in $work"
  first=$(find "$work/artifacts" -type f | sort | head -n 1)
  if [ -n "$first" ]; then
    echo "fuzz: first reproducer $first (rerun: build-fuzz/$(basename "$(dirname "$first")") $first)"
    od -A x -t x1z -v "$first" | head -n 40
  fi
  exit 1
fi
echo "fuzz: no findings"
