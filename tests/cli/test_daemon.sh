#!/usr/bin/env bash
# test_daemon.sh — cuzkd end to end: the configuration file and flags, the Node.js gRPC tests of
# tests/daemon/ (every RPC over a unix socket and a loopback port, bad input, SIGTERM with work in
# flight, SIGHUP, a 1,000-proof load test), and `cuzk-bench --addr` against a running daemon, with
# proofs checked by `cuzk verify-params`.
# Usage: bash tests/cli/test_daemon.sh <build-dir>
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"
BUILD=$(cd "$1" && pwd)
CUZKD=$BUILD/cuzkd
BENCH=$BUILD/cuzk-bench
TD=$ROOT/tests/daemon
[ -x "$CUZKD" ] || { fail "no cuzkd in $BUILD (needs libnghttp2-dev, libprotobuf-c-dev, protobuf-c-compiler)"; cli_finish; exit 1; }
if [ ! -d "$TD/node_modules/@grpc/grpc-js" ] || ! command -v node >/dev/null 2>&1; then
    fail "tests/daemon needs node and its packages: bash scripts/install-deps.sh (npm ci in tests/daemon)"
    cli_finish
    exit 1
fi

# keys for the `bits` fixture (not a ceremony: testing only), and the same key in the coset form
run "$CUZK" setup "$FIX/bits/circuit.r1cs" "$TMP/bits.params" "$TMP/bits.vk"
expect 0 "cuzk setup makes the bits key"
run "$CUZK" coset-key "$TMP/bits.params" "$FIX/bits/circuit.r1cs" "$TMP/bits.coset"
expect 0 "cuzk coset-key converts it"

# ---- configuration -------------------------------------------------------------------------
run "$CUZKD" --config "$ROOT/cuzkd.example.toml" --print-config
expect 0 "cuzkd.example.toml loads"
expect_out '^listen = \["unix:///run/curio/cuzk.sock"\]$' "... its listen address is the default socket"
expect_out '^eval = "auto"$' "... engine.eval auto"
run "$CUZKD" --config "$ROOT/cuzkd.example.toml" --listen 127.0.0.1:9 --drain-timeout 5s --print-config
expect 0 "flags over the config file"
expect_out '^listen = \["127.0.0.1:9"\]$' "... --listen replaces the file's list"
expect_out '^drain_timeout = 5$' "... --drain-timeout 5s"
printf '[engine]\neval = "host"\n' >"$TMP/eval.toml"
run "$CUZKD" --config "$TMP/eval.toml" --print-config
expect 0 "engine.eval = \"host\" loads"
expect_out '^eval = "host"$' "... and is in effect"
run "$CUZKD" --config "$TMP/eval.toml" --eval device --print-config
expect 0 "--eval device over the file"
expect_out '^eval = "device"$' "... replaces the file's host"
expect_out '^key_vram = "auto"$' "... engine.key_vram auto by default"
printf '[gpus]\nkey_vram = "40GiB"\n' >"$TMP/kv.toml"
run "$CUZKD" --config "$TMP/kv.toml" --print-config
expect 0 "gpus.key_vram = \"40GiB\" loads"
expect_out '^key_vram = 42949672960$' "... and is in effect"
run "$CUZKD" --config "$TMP/kv.toml" --key-vram 1M --print-config
expect 0 "--key-vram 1M over the file"
expect_out '^key_vram = 1048576$' "... replaces the file's 40GiB"
run "$CUZKD" --key-vram plenty
expect 2 "--key-vram plenty: exit 2"
expect_err "^cuzkd: --key-vram expects a size such as 512M or 40GiB, or auto, not 'plenty'$" "... with the reason"
printf '[engine]\nkey_vram = -1\n' >"$TMP/bad-kv.toml"
run "$CUZKD" --config "$TMP/bad-kv.toml"
expect 2 "engine.key_vram = -1: exit 2"
expect_err 'bad-kv.toml:2: engine.key_vram must be a size' "... naming the file, the line and the reason"
# engine.key_tables (gpus.key_tables, --key-tables): 2, 3, 4, "off" or "auto" (the engine's default: off)
run "$CUZKD" --print-config
expect_out '^key_tables = "auto"$' "engine.key_tables auto by default"
printf '[gpus]\nkey_tables = 3\n' >"$TMP/kt.toml"
run "$CUZKD" --config "$TMP/kt.toml" --print-config
expect 0 "gpus.key_tables = 3 loads"
expect_out '^key_tables = 3$' "... and is in effect"
"$CUZKD" --config "$TMP/kt.toml" --print-config >"$TMP/kt-printed.toml" 2>/dev/null
run "$CUZKD" --config "$TMP/kt-printed.toml" --print-config
expect 0 "... printed, it loads again"
expect_out '^key_tables = 3$' "... with the same k"
run "$CUZKD" --config "$TMP/kt.toml" --key-tables off --print-config
expect 0 "--key-tables off over the file"
expect_out '^key_tables = "off"$' "... replaces the file's 3"
"$CUZKD" --config "$TMP/kt.toml" --key-tables off --print-config >"$TMP/kt-off.toml" 2>/dev/null
run "$CUZKD" --config "$TMP/kt-off.toml" --print-config
expect 0 "key_tables = \"off\" printed loads again"
expect_out '^key_tables = "off"$' "... still off"
run "$CUZKD" --config "$TMP/kt-off.toml" --key-tables 2 --print-config
expect 0 "--key-tables 2 over the file's off"
expect_out '^key_tables = 2$' "... in effect"
run "$CUZKD" --config "$TMP/kt.toml" --key-tables auto --print-config
expect 0 "--key-tables auto over the file's 3"
expect_out '^key_tables = "auto"$' "... back to the default"
printf '[engine]\nkey_tables = "off"\n' >"$TMP/kt-eng.toml"
run "$CUZKD" --config "$TMP/kt-eng.toml" --print-config
expect 0 "engine.key_tables = \"off\" loads"
expect_out '^key_tables = "off"$' "... and is in effect"
for bad in 5 1 x "" -1 0; do
    run "$CUZKD" --key-tables "$bad" --print-config
    expect 2 "--key-tables '$bad': exit 2"
    expect_err "^cuzkd: --key-tables expects 2, 3, 4, off or auto, not '$bad'$" "... with the reason"
done
for bad in 5 1 '"x"' '""' -1 0 true; do
    printf '[engine]\nkey_tables = %s\n' "$bad" >"$TMP/bad-kt.toml"
    run "$CUZKD" --config "$TMP/bad-kt.toml" --print-config
    expect 2 "engine.key_tables = $bad: exit 2"
    expect_err 'bad-kt.toml:2: engine.key_tables must be 2, 3 or 4' "... naming the file, the line and the reason"
done
printf '[engine]\neval = "gpu"\n' >"$TMP/bad-eval.toml"
run "$CUZKD" --config "$TMP/bad-eval.toml"
expect 2 "engine.eval = \"gpu\": exit 2"
expect_err 'bad-eval.toml:2: engine.eval must be "auto", "host" or "device"' "... naming the file, the line and the values"
# the log file naming the config file or a circuit's key or circuit: refused (exit 2), the file untouched
printf '[logging]\nfile = "%s/./self.toml"\n' "$TMP" >"$TMP/self.toml"
cp "$TMP/self.toml" "$TMP/self.keep"
run "$CUZKD" --config "$TMP/self.toml" --listen "unix://$TMP/self.sock"
expect 2 "logging.file naming the config file: exit 2"
expect_err 'logging.file .*self.toml is the config file' "... saying so"
cmp -s "$TMP/self.toml" "$TMP/self.keep" && pass "... the config file untouched" || fail "the config file was written"
cp "$TMP/bits.params" "$TMP/bits.keep"
run "$CUZKD" --listen "unix://$TMP/self.sock" --circuit "b=bits.params,$FIX/bits/circuit.r1cs" --param-cache "$TMP" \
    --log-file "$TMP/./bits.params"
expect 2 "--log-file naming a circuit's .params (through srs.param_cache): exit 2"
expect_err "is the params file of circuit 'b'" "... saying so"
cmp -s "$TMP/bits.params" "$TMP/bits.keep" && pass "... the key untouched" || fail "the key was written"
run "$CUZKD" --listen "unix://$TMP/self.sock" --circuit "b=$TMP/bits.params,$FIX/bits/circuit.r1cs" \
    --log-file "$FIX/bits/circuit.r1cs"
expect 2 "--log-file naming a circuit's .r1cs: exit 2"
run "$CUZKD" --config "$ROOT/cuzkd.example.toml" --print-config
expect_out '^zpack = true$' "engine.zpack: witnesses packed by default"
printf '[engine]\nzpack = false\n' >"$TMP/zpack.toml"
run "$CUZKD" --config "$TMP/zpack.toml" --print-config
expect 0 "engine.zpack = false loads"
expect_out '^zpack = false$' "... and is in effect"
run "$CUZKD" --no-zpack --print-config
expect_out '^zpack = false$' "--no-zpack turns it off"
printf '[engine]\nzpack = "no"\n' >"$TMP/bad-zpack.toml"
run "$CUZKD" --config "$TMP/bad-zpack.toml" --print-config
expect 2 "engine.zpack = \"no\": exit 2"
expect_err 'bad-zpack.toml:2: engine.zpack must be true or false' "... with the reason"
run "$CUZKD" --eval sometimes
expect 2 "--eval sometimes: exit 2"
expect_err "^cuzkd: --eval expects auto, host or device, not 'sometimes'$" "... with the reason"
cat >"$TMP/compat.toml" <<'TOML'
# keys of an original cuzk.toml
[daemon]
listen = "0.0.0.0:9820"
status_listen = "0.0.0.0:9821"
[memory]
total_budget = "64GiB"
pinned_budget = "10GiB"
[gpus]
devices = [0, 1]
gpu_threads = 32
gpu_workers_per_device = 2
[scheduler]
max_batch_size = 1
[pipeline]
enabled = true
max_parallel_synthesis = 18
[srs]
param_cache = "/data/zk/params"
[logging]
level = "debug"
TOML
run "$CUZKD" --config "$TMP/compat.toml" --print-config
expect 0 "a cuzk.toml with the original keys loads"
expect_out '^total_budget = 68719476736$' "... memory.total_budget 64GiB"
expect_out '^devices = 2$' "... gpus.devices [0, 1] = 2 devices"
expect_out '^synth_workers = 18$' "... pipeline.max_parallel_synthesis -> synthesis workers"
printf '[gpus]\ndevices = [1, 3]\n' >"$TMP/ids.toml"
run "$CUZKD" --config "$TMP/ids.toml" --print-config
expect 0 "gpus.devices = [1, 3] loads"
expect_out '^devices = 2$' "... two devices"
expect_out '^device_ids = "1,3"$' "... devices 1 and 3"
"$CUZKD" --config "$TMP/ids.toml" --print-config >"$TMP/ids-printed.toml" 2>/dev/null
run "$CUZKD" --config "$TMP/ids-printed.toml" --print-config
expect 0 "the printed settings load again"
expect_out '^device_ids = "1,3"$' "... with the same devices"
# strings with quotes, backslashes and tabs, and a zero safety margin, print as a config that loads back
printf '[logging]\nfile = "%s/l\\"o\\\\g\\t.log"\n[memory]\nsafety_margin = "0"\n[srs]\npreload = ['"'"'a"b'"'"']\n' "$TMP" >"$TMP/esc.toml"
"$CUZKD" --config "$TMP/esc.toml" --print-config >"$TMP/esc-printed.toml" 2>/dev/null
run "$CUZKD" --config "$TMP/esc-printed.toml" --print-config
expect 0 "printed quotes, backslashes, tabs and a zero margin load again"
expect_out '^file = ".*/l\\"o\\\\g\\t\.log"$' "... the log file's name escaped as it was written"
expect_out '^preload = \["a\\"b"\]$' "... a literal string's quote escaped"
if cmp -s "$TMP/esc-printed.toml" <("$CUZKD" --config "$TMP/esc-printed.toml" --print-config 2>/dev/null); then
    pass "... and print the same text again"
else
    fail "... printed twice, two different texts"
fi
for seed in -1 0 18446744073709551615 99999999999999999999 " 5" 5x; do
    run "$CUZKD" --synth-seed "$seed" --print-config
    expect 2 "--synth-seed '$seed' refused"
done
"$CUZKD" --synth-seed 9223372036854775807 --print-config >"$TMP/seed.toml" 2>/dev/null
run "$CUZKD" --config "$TMP/seed.toml" --print-config
expect 0 "the largest --synth-seed prints as a config that loads again"
expect_out '^seed = 9223372036854775807$' "... with the same seed"
# --max-input takes what limits.max_input_bytes takes: never 0, so --print-config always loads again
for size in 0 0GiB; do
    run "$CUZKD" --max-input "$size" --print-config
    expect 2 "--max-input $size refused"
    expect_err "^cuzkd: --max-input expects a size such as 2GiB, not '$size'$" "... with the reason"
done
"$CUZKD" --max-input 1 --print-config >"$TMP/maxin.toml" 2>/dev/null
run "$CUZKD" --config "$TMP/maxin.toml" --print-config
expect 0 "the smallest --max-input prints as a config that loads again"
expect_out '^max_input_bytes = 1$' "... with the same size"
run "$CUZKD" --config "$TMP/ids.toml" --devices 1 --print-config
expect 0 "--devices 1 over the file's list"
expect_out '^devices = 1$' "... one device"
grep -q '^device_ids' "$TMP/stdout" && fail "... but the file's list still applies" || pass "... the first one"
run "$CUZKD" --device-ids 0-2,5 --print-config
expect 0 "--device-ids 0-2,5"
expect_out '^device_ids = "0-2,5"$' "... in effect"
run "$CUZKD" --device-ids 2,2
expect 2 "--device-ids 2,2: exit 2"
expect_err "^cuzkd: --device-ids expects distinct device numbers 0..63 such as 1,3 or 0-3, not '2,2'$" "... with the reason"
printf '[gpus]\ndevices = [1, 1]\n' >"$TMP/bad-ids.toml"
run "$CUZKD" --config "$TMP/bad-ids.toml"
expect 2 "gpus.devices = [1, 1]: exit 2"
expect_err 'bad-ids.toml:2: gpus.devices: a list of distinct device numbers' "... naming the line and the reason"
printf '[engine]\ndevice_ids = "x"\n' >"$TMP/bad-ids2.toml"
run "$CUZKD" --config "$TMP/bad-ids2.toml"
expect 2 "engine.device_ids = \"x\": exit 2"
expect_err 'bad-ids2.toml:2: engine.device_ids must be a list of distinct device numbers' "... with the reason"
printf '[daemon]\nlisten = "unix:///tmp/x.sock"\n\n[memory]\ntotal_budgt = "1G"\n' >"$TMP/bad.toml"
run "$CUZKD" --config "$TMP/bad.toml"
expect 2 "an unknown key is a configuration error (exit 2)"
expect_err "bad.toml:5: unknown key 'memory.total_budgt'" "... naming the file, the line and the key"
printf '[limits]\nmax_jobs = "many"\n' >"$TMP/bad2.toml"
run "$CUZKD" --config "$TMP/bad2.toml"
expect 2 "a value of the wrong type: exit 2"
expect_err 'bad2.toml:2: limits.max_jobs must be an integer' "... with the reason"
run "$CUZKD" --config "$TMP/missing.toml"
expect 2 "a missing config file: exit 2"
run "$CUZKD" --listen nowhere
expect 2 "a bad --listen address: exit 2"
run "$CUZKD" --bogus
expect 2 "an unknown flag: exit 2"
PORT=$((30000 + $$ % 20000))
run timeout 60 "$CUZKD" --listen "unix://$TMP/busy.sock" --listen "127.0.0.1:$PORT" --status-listen "127.0.0.1:$PORT" \
    --budget 1G
expect 1 "a status address already in use (the gRPC port itself): exit 1"
expect_err "cannot start: listen 127.0.0.1:$PORT: Address already in use" "... with the reason"
[ ! -e "$TMP/busy.sock" ] && pass "... and no socket file left behind" || fail "a socket file was left behind"

# SIGTERM and a new connection handled in one turn of the loop: the signal's handler closes the
# listeners, and the connection's event, later in the same turn, must not reach the closed one (the
# sanitizer build reports a use after free if it does). The daemon is stopped, both are queued, then it
# goes on.
S="$TMP/term.sock"
"$CUZKD" --listen "unix://$S" --budget 1G >"$TMP/term.log" 2>&1 &
TPID=$!
for _ in $(seq 400); do grep -q 'ready' "$TMP/term.log" 2>/dev/null && break; sleep 0.05; done
kill -STOP "$TPID"
for _ in $(seq 200); do grep -q '^State:.*T' "/proc/$TPID/status" && break; sleep 0.01; done
kill -TERM "$TPID"
node -e 'const s = require("net").connect(process.argv[1]); s.on("connect", () => s.destroy()); s.on("error", () => {});' "$S"
kill -CONT "$TPID"
set +e
timeout 30 tail --pid="$TPID" -f /dev/null
wait "$TPID"
trc=$?
set -e
[ "$trc" = 0 ] && pass "SIGTERM queued with a connection: the daemon exits 0" || fail "SIGTERM with a connection: exit $trc"
if grep -qE 'Sanitizer|runtime error:' "$TMP/term.log"; then
    fail "... a sanitizer report"
    grep -A8 -E 'Sanitizer|runtime error:' "$TMP/term.log" | head -20
else
    pass "... with no sanitizer report"
fi

# a client refused at the connection limit is told what the close may mean, not "Broken pipe"
S="$TMP/full.sock"
"$CUZKD" --listen "unix://$S" --budget 1G --max-connections 1 >"$TMP/full.log" 2>&1 &
FPID=$!
for _ in $(seq 400); do grep -q 'ready' "$TMP/full.log" 2>/dev/null && break; sleep 0.05; done
node -e 'const s = require("net").connect(process.argv[1]); s.on("error", () => {});
    s.on("connect", () => console.log("held")); setTimeout(() => s.destroy(), 4000);' "$S" >"$TMP/hold.out" &
HOLD=$!
for _ in $(seq 200); do grep -q held "$TMP/hold.out" 2>/dev/null && break; sleep 0.05; done # node starts slowly under load
sleep 0.2 # the daemon's loop accepts it
run "$BENCH" --addr "unix://$S" status
expect 1 "cuzk-bench status while the one connection slot is held: exit 1"
expect_err 'the server closed the connection.*connection limit' "... saying the daemon may be at its connection limit"
wait "$HOLD" || true
kill -TERM "$FPID"
wait "$FPID" || true

# a log file at the file-size limit (ulimit -f, SIGXFSZ at its default action) drops lines, not the daemon,
# which says so once on stderr
S="$TMP/fsize.sock"
(trap - XFSZ && ulimit -f 1 && exec "$CUZKD" --listen "unix://$S" --budget 1G --log-file "$TMP/fsize.log" \
    --log-level debug) 2>"$TMP/fsize.err" &
ZPID=$!
for _ in $(seq 200); do [ -S "$S" ] && break; sleep 0.05; done
for _ in $(seq 20); do "$BENCH" --addr "unix://$S" status >/dev/null 2>&1 || true; done
run "$BENCH" --addr "unix://$S" status
expect 0 "cuzkd with its log file past the file-size limit still answers"
kill -TERM "$ZPID" 2>/dev/null || true
zrc=0
wait "$ZPID" || zrc=$?
[ "$zrc" = 0 ] && pass "... and stops cleanly (exit 0)" || fail "... exit $zrc, expected 0"
[ "$(grep -c 'cannot write the log file .*fsize\.log: File too large' "$TMP/fsize.err")" = 1 ] &&
    pass "... having said once on stderr that the log file cannot be written" ||
    fail "... stderr: $(head -c 300 "$TMP/fsize.err")"

# ---- the Node.js gRPC tests --------------------------------------------------------------------
for t in rpc shutdown load limits; do
    mkdir -p "$TMP/$t"
    cp "$TMP/bits.params" "$TMP/bits.vk" "$TMP/$t/"
    set +e
    (cd "$TD" && node "$t.test.mjs" "$BUILD" "$TMP/$t") >"$TMP/$t.out" 2>&1
    rc=$?
    set -e
    sed 's/^/    /' "$TMP/$t.out" | grep -vE '^    ok ' || true
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$TMP/$t.out" || echo "no summary")
    if [ "$rc" -eq 0 ] && [[ "$summary" =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
        pass "tests/daemon/$t.test.mjs: $summary"
    else
        fail "tests/daemon/$t.test.mjs (exit $rc): $summary"
        grep -E '^FAIL' "$TMP/$t.out" | head -20 || true
        tail -20 "$TMP/$t/"*.log 2>/dev/null | head -60 || true
    fi
done

# ---- cuzk-bench --addr -------------------------------------------------------------------------
# this daemon evaluates a, b, c in the device phase (the Node.js tests' daemons take the CPU default, host)
SOCK=$TMP/bench.sock
"$CUZKD" --listen "unix://$SOCK" --socket-mode 0600 --budget 1G --circuit "bits=$TMP/bits.params,$FIX/bits/circuit.r1cs" \
    --circuit "bitscoset=$TMP/bits.coset,$FIX/bits/circuit.r1cs" --synth-max-scale 12 --eval device --device-ids 2,5 >"$TMP/bench-daemon.log" 2>&1 &
DPID=$!
for _ in $(seq 200); do [ -S "$SOCK" ] && break; sleep 0.05; done
[ "$(stat -c %a "$SOCK")" = 600 ] && pass "--socket-mode 0600 is applied" || fail "socket mode $(stat -c %a "$SOCK")"
grep -qE 'engine: cpu backend, .*, device evaluation, budget' "$TMP/bench-daemon.log" &&
    pass "--eval device reaches the engine (its start-up line)" || fail "no 'device evaluation' in the daemon log"
grep -qE 'engine: cpu backend, 2 devices \(2,5\) x ' "$TMP/bench-daemon.log" &&
    pass "--device-ids 2,5 reaches the engine" || fail "no '2 devices (2,5)' in the daemon log"
A="unix://$SOCK"
run "$BENCH" --addr "$A" status
expect 0 "cuzk-bench --addr status"
expect_out '^daemon +cuzkd .*cpu backend' "... prints the daemon line"
run "$BENCH" --addr "$A" preload -c synth-porep-11
expect 0 "cuzk-bench --addr preload -c synth-porep-11"
expect_out 'synth-porep-11 loaded in [0-9]+ ms' "... prints the load time"
run "$BENCH" --addr "$A" single --scale 11 --partitions 3
expect 0 "cuzk-bench --addr single (synthetic, 3 partitions)"
expect_out '^proof +576 bytes \(3 partitions' "... 576 bytes of proof"
run "$BENCH" --addr "$A" single --type circuit --circuit bits --wtns "$FIX/bits/witness.wtns" --request-id b1 --out "$TMP/b1.bin"
expect 0 "cuzk-bench --addr single --type circuit --out FILE"
run "$CUZK" verify-params "$TMP/bits.vk" "$FIX/bits/witness.wtns" "$TMP/b1.bin"
expect 0 "... the written proof verifies with cuzk verify-params"
run "$BENCH" --addr "$A" single --type circuit --circuit bitscoset --wtns "$FIX/bits/witness.wtns" --out "$TMP/b2.bin"
expect 0 "cuzk-bench --addr single on the circuit registered with the coset key"
run "$CUZK" verify-params "$TMP/bits.vk" "$FIX/bits/witness.wtns" "$TMP/b2.bin"
expect 0 "... its proof verifies with the .params key's .vk"
grep -q "circuit bits: loaded .*key in bellperson's form" "$TMP/bench-daemon.log" &&
    grep -q 'circuit bits: `cuzk coset-key ' "$TMP/bench-daemon.log" &&
    pass "the daemon logs the .params key's form and how to convert it" || fail "no key-form lines for bits in the log"
grep -q 'circuit bitscoset: loaded .*key in the coset form' "$TMP/bench-daemon.log" &&
    ! grep -q 'circuit bitscoset: `cuzk coset-key' "$TMP/bench-daemon.log" &&
    pass "... and the coset key's form, with no hint" || fail "bitscoset's key-form line is missing or hints"
mkdir "$TMP/outdir"
run "$BENCH" --addr "$A" single --type circuit --circuit bits --wtns "$FIX/bits/witness.wtns" --out "$TMP/outdir/no/b.bin"
expect 1 "cuzk-bench --addr single --out into a missing directory: exit 1"
expect_err 'cannot write .*outdir/no/b\.bin' "... names the output"
expect_empty_dir "$TMP/outdir" "... and leaves no file behind"
run "$BENCH" --addr "$A" batch -c 12 -j 3 --type circuit --circuit bits --wtns "$FIX/bits/witness.wtns"
expect 0 "cuzk-bench --addr batch -c 12 -j 3"
expect_out '^proofs +12 submitted, 12 completed, 0 failed \(3 clients\)' "... all 12 completed"
expect_out '^throughput ' "... prints the throughput"
run "$BENCH" --addr "$A" metrics
expect 0 "cuzk-bench --addr metrics"
expect_out '^cuzk_proofs_completed_total 15$' "... 15 jobs completed so far"
run "$BENCH" --addr "$A" single --type porep
expect 1 "cuzk-bench --addr single --type porep: exit 1"
expect_err 'UNIMPLEMENTED: POREP_SEAL_COMMIT proofs need the Filecoin circuits' "... the daemon's reason is printed"
run "$BENCH" --addr "$A" single --scale 13
expect 1 "a scale above the daemon's --synth-max-scale: exit 1"
expect_err 'INVALID_ARGUMENT' "... with the status"
run "$BENCH" --addr "$A" frobnicate
expect 2 "an unknown --addr command: exit 2"
run "$BENCH" --addr "$A" single --type circuit
expect 2 "--type circuit without --circuit/--wtns: exit 2"
run "$BENCH" --help
expect_out '^  cuzk-bench --addr ADDR <command>' "cuzk-bench --help names the --addr client"
run "$BENCH" --addr "unix://$TMP/nobody.sock" status
expect 1 "no daemon at the address: exit 1"
expect_err 'connect unix://' "... says it cannot connect"
kill -TERM "$DPID"
set +e
wait "$DPID"
DRC=$?
set -e
[ "$DRC" -eq 0 ] && pass "the daemon exits 0 on SIGTERM" || fail "the daemon exited $DRC"

# ---- a device lost (the CPU backend's drill: CUZK_FAULT_DEVICE_LOST) ---------------------------------
run "$CUZKD" --print-config
expect_out '^exit_on_device_lost = true$' "engine.exit_on_device_lost: on by default"
printf '[engine]\nexit_on_device_lost = false\n' >"$TMP/stay.toml"
run "$CUZKD" --config "$TMP/stay.toml" --print-config
expect_out '^exit_on_device_lost = false$' "engine.exit_on_device_lost = false loads"
CIRC="bits=$TMP/bits.params,$FIX/bits/circuit.r1cs"
WTNS=(--type circuit --circuit bits --wtns "$FIX/bits/witness.wtns")
# start_daemon NAME ENV-SPEC FLAGS...: a daemon on $TMP/NAME.sock with CUZK_FAULT_DEVICE_LOST=ENV-SPEC; DPID
start_daemon() {
    local name=$1 spec=$2
    shift 2
    CUZK_FAULT_DEVICE_LOST=$spec "$CUZKD" --listen "unix://$TMP/$name.sock" --budget 1G --circuit "$CIRC" "$@" \
        >"$TMP/$name.log" 2>&1 &
    DPID=$!
    for _ in $(seq 200); do [ -S "$TMP/$name.sock" ] && break; sleep 0.05; done
}
# wait_exit SECONDS: waits for the daemon DPID to exit by itself; DRC = its status (124: it did not)
wait_exit() {
    for _ in $(seq $(($1 * 10))); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$DPID" 2>/dev/null; then
        kill -KILL "$DPID"
        wait "$DPID" 2>/dev/null || true
        DRC=124
    else
        set +e
        wait "$DPID"
        DRC=$?
        set -e
    fi
}
# one of two devices lost: the other proves everything, the metrics and /status say which was lost
SPORT=$((30000 + ($$ + 7) % 20000))
start_daemon lost1 1@2 --device-ids 0,1 --status-listen "127.0.0.1:$SPORT"
# which worker takes a partition is the scheduler's choice: batches until device 1 has had its second one
for try in 1 2 3 4 5; do
    run "$BENCH" --addr "unix://$TMP/lost1.sock" batch -c 8 -j 2 "${WTNS[@]}"
    expect 0 "one of two devices lost: batch -c 8 -j 2 still succeeds (batch $try)"
    expect_out '^proofs +8 submitted, 8 completed, 0 failed' "... every proof delivered"
    run "$BENCH" --addr "unix://$TMP/lost1.sock" metrics
    grep -q '^cuzk_devices_usable 1$' "$TMP/stdout" && break
done
expect_out '^cuzk_devices_usable 1$' "... cuzk_devices_usable 1"
expect_out '^cuzk_device_lost\{device="1"\} 1$' "... cuzk_device_lost names device 1"
expect_out '^cuzk_partitions_moved_total [1-9][0-9]*$' "... cuzk_partitions_moved_total counts the moves"
status=$( (exec 3<>"/dev/tcp/127.0.0.1/$SPORT" && printf 'GET /status HTTP/1.1\r\nHost: x\r\n\r\n' >&3 && cat <&3) 2>/dev/null || true)
[[ "$status" == *'"devices_usable":1,"devices_lost":[1],"device_error":"device 1 lost in the device phase'* ]] &&
    pass "... GET /status lists the lost device and why" || fail "GET /status: ${status:0:400}"
grep -q 'ERROR device 1 is out of service: its partitions move to the other devices' "$TMP/lost1.log" &&
    pass "... the log says so once" || fail "no 'device 1 is out of service' in the daemon log"
kill -TERM "$DPID"
wait_exit 30
[ "$DRC" -eq 0 ] && pass "... and the daemon still exits 0 on SIGTERM" || fail "the daemon exited $DRC"
# the only device lost: every job fails saying why, the daemon exits 3 for its supervisor to restart it
start_daemon lost2 0@2
run "$BENCH" --addr "unix://$TMP/lost2.sock" batch -c 6 -j 2 "${WTNS[@]}"
expect 1 "the only device lost: the batch fails (exit 1)"
expect_err 'FAILED: no usable device left \(device 0 lost in the device phase' "... the jobs' failures say why"
wait_exit 30
[ "$DRC" -eq 3 ] && pass "... and the daemon exits by itself with status 3" || fail "the daemon's status: $DRC"
grep -q 'ERROR no usable device left: shutting down, exit status 3' "$TMP/lost2.log" &&
    pass "... saying so in its log" || fail "no shutdown line in the daemon log"
! grep -q 'the call ended before the answer' "$TMP/lost2.log" &&
    pass "... after answering every call" || fail "a call was closed before its answer"
# engine.exit_on_device_lost = false: the daemon stays, refusing work with UNAVAILABLE
start_daemon lost3 0 --config "$TMP/stay.toml"
run "$BENCH" --addr "unix://$TMP/lost3.sock" single "${WTNS[@]}"
expect 1 "exit_on_device_lost = false: the first job fails (exit 1)"
expect_err 'no usable device left' "... saying why"
sleep 1.2 # a tick of the daemon's loop, which logs the loss
run "$BENCH" --addr "unix://$TMP/lost3.sock" single "${WTNS[@]}"
expect 1 "... a later job is refused (exit 1)"
expect_err 'UNAVAILABLE.*no usable device left' "... with UNAVAILABLE and the reason"
run "$BENCH" --addr "unix://$TMP/lost3.sock" metrics
expect 0 "... the daemon still answers"
expect_out '^cuzk_devices_usable 0$' "... cuzk_devices_usable 0"
kill -TERM "$DPID"
wait_exit 30
[ "$DRC" -eq 0 ] && pass "... and exits 0 on SIGTERM" || fail "the daemon exited $DRC"
grep -q 'engine.exit_on_device_lost = false' "$TMP/lost3.log" && pass "... having logged that it stays" ||
    fail "no 'stays' line in the daemon log"
for n in lost1 lost2 lost3; do
    if grep -qE 'Sanitizer|runtime error:' "$TMP/$n.log"; then
        fail "sanitizer report in the $n daemon log"
        grep -E -A5 'Sanitizer|runtime error:' "$TMP/$n.log" | head -40
    fi
done
if grep -qE 'Sanitizer|runtime error:' "$TMP/bench-daemon.log"; then
    fail "sanitizer report in the daemon log"
    grep -E -A5 'Sanitizer|runtime error:' "$TMP/bench-daemon.log" | head -40
else
    pass "no sanitizer report in the daemon log"
fi
cli_finish
