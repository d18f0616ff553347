#!/usr/bin/env bash
# test_daemon_gpu.sh — cuzkd on the CUDA backend (run by scripts/gpu-check.sh; needs a GPU): synthetic
# PoRep proofs over the socket, and where the backend keeps the key, read from the metrics: resident by
# default, streamed from host memory when engine.key_vram is smaller than the key.
# Usage: bash tests/gpu/test_daemon_gpu.sh <build-dir> (not a ctest test: CI has no GPU)
set -euo pipefail
source "$(dirname "$0")/../cli/common.sh"
cli_init "$@"
BUILD=$(cd "$1" && pwd)
CUZKD=$BUILD/cuzkd
BENCH=$BUILD/cuzk-bench
[ -x "$CUZKD" ] || { fail "no cuzkd in $BUILD"; cli_finish; exit 1; }

for kv in auto one; do
    SOCK=$TMP/gpu-$kv.sock
    if [ "$kv" = auto ]; then printf '[engine]\nkey_vram = "auto"\nkey_tables = 4\n'; else printf '[engine]\nkey_vram = 1\nkey_tables = 4\n'; fi \
        >"$TMP/$kv.toml"
    "$CUZKD" --config "$TMP/$kv.toml" --listen "unix://$SOCK" --backend gpu --synth-max-scale 12 \
        >"$TMP/daemon-$kv.log" 2>&1 &
    DPID=$!
    for _ in $(seq 400); do [ -S "$SOCK" ] && break; sleep 0.05; done
    run "$BENCH" --addr "unix://$SOCK" single --scale 11 --partitions 3
    expect 0 "key_vram $kv: a 3-partition synthetic proof on the GPU backend"
    expect_out '^proof +576 bytes \(3 partitions' "key_vram $kv: ... 576 bytes of proof"
    if grep -q 'setup on the GPU failed' "$TMP/daemon-$kv.log"; then
        fail "key_vram $kv: the synthetic key was not made on the GPU: $(grep 'setup on the GPU' "$TMP/daemon-$kv.log")"
    else
        pass "key_vram $kv: ... the synthetic key made on the GPU (no fallback to the CPU logged)"
    fi
    run "$BENCH" --addr "unix://$SOCK" metrics
    expect 0 "key_vram $kv: metrics"
    expect_out '^cuzk_witnesses_unpacked_total 0$' "key_vram $kv: every witness uploaded packed"
    expect_out '^cuzk_memory_pinned_bytes [1-9][0-9]*$' "key_vram $kv: page-locked packing buffers pooled"
    if [ "$kv" = auto ]; then
        expect_out '^cuzk_gpu_key_resident_bytes\{device="0"\} [1-9][0-9]*$' "key_vram auto: the key is resident"
        expect_out '^cuzk_gpu_keys_streamed\{device="0"\} 0$' "key_vram auto: nothing streamed"
        expect_out '^cuzk_gpu_key_tables_k\{device="0"\} 4$' "key_vram auto: a small key takes group tables of k = 4 (key_tables = 4)"
    else
        expect_out '^cuzk_gpu_key_resident_bytes\{device="0"\} 0$' "key_vram 1: nothing resident"
        expect_out '^cuzk_gpu_keys_streamed\{device="0"\} 1$' "key_vram 1: the key is streamed"
        expect_out '^cuzk_gpu_key_tables_k\{device="0"\} 0$' "key_vram 1: no group tables for a streamed key"
    fi
    kill -TERM "$DPID"
    set +e
    wait "$DPID"
    DRC=$?
    set -e
    [ "$DRC" -eq 0 ] && pass "key_vram $kv: the daemon exits 0 on SIGTERM" ||
        { fail "key_vram $kv: the daemon exited $DRC"; tail -20 "$TMP/daemon-$kv.log"; }
done
cli_finish
