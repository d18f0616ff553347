#!/usr/bin/env bash
# test_cli_params.sh — the bellperson path of `cuzk`: setup → prove-params → verify-params.
#
# For every committed circom fixture: `cuzk setup` makes a .params and a .vk (and warns that it is
# not a trusted ceremony), `cuzk prove-params` writes a 192-byte proof that `cuzk verify-params`
# accepts with the .vk or the .params, with the public inputs taken from the witness or from
# snarkjs's public.json. A tampered public input and a proof made under another key are rejected
# (exit 1, INVALID); corrupted proof bytes are malformed (exit 2). `cuzk inspect` recognizes the
# three files; a .params with one corrupted point passes the default inspection (length words
# only), fails --deep (exit 1), and cannot be proved with (points are checked on load). `cuzk coset-key`
# converts the key to the coset form, whose proofs verify under the same .vk (check_coset_key).
# Usage: bash tests/cli/test_cli_params.sh <build-dir>
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"

check_fixture() {
    local f=$1 d=$FIX/$1 o=$TMP/$1
    mkdir -p "$o"
    run "$CUZK" setup "$d/circuit.r1cs" "$o/key.params" "$o/key.vk" --threads 2 --verbose
    expect 0 "$f: setup"
    expect_err 'NOT A TRUSTED CEREMONY' "$f: setup warns that it is not a trusted ceremony"
    expect_err 'timing .*setup .* ms' "$f: setup --verbose prints timings"
    [ -s "$o/key.params" ] && [ -s "$o/key.vk" ] || fail "$f: setup did not write both keys"
    run "$CUZK" setup "$d/circuit.r1cs" "$o/other.params" --threads 1
    expect 0 "$f: setup of a second key, without a .vk"
    [ ! -e "$o/other.vk" ] || fail "$f: setup wrote a .vk nobody asked for"

    run "$CUZK" prove-params "$o/key.params" "$d/circuit.r1cs" "$d/witness.wtns" "$o/proof.bin" --threads 2 \
        --verbose
    expect 0 "$f: prove-params"
    expect_err 'timing .*load .* prove .* verify .* total' "$f: prove-params --verbose prints timings"
    sed -n 's/^cuzk: timing/    timing/p' "$TMP/stderr"
    [ "$(stat -c %s "$o/proof.bin")" -eq 192 ] && pass "$f: the proof has 192 bytes" ||
        fail "$f: the proof has $(stat -c %s "$o/proof.bin") bytes"
    [ -z "$(ls -A "$o" | grep -v -E '^(key\.params|key\.vk|other\.params|proof\.bin)$')" ] ||
        fail "$f: stray files: $(ls -A "$o")"

    run "$CUZK" verify-params "$o/key.vk" "$d/witness.wtns" "$o/proof.bin"
    expect 0 "$f: verify-params with the .vk and the witness"
    expect_out '^OK$' "$f: verify-params prints OK"
    run "$CUZK" verify-params "$o/key.params" "$d/public.json" "$o/proof.bin" --verbose
    expect 0 "$f: verify-params with the .params and public.json"

    tamper_public "$d/public.json" "$o/public_bad.json"
    run "$CUZK" verify-params "$o/key.vk" "$o/public_bad.json" "$o/proof.bin"
    expect 1 "$f: verify-params rejects a tampered public input (exit 1)"
    expect_out '^INVALID$' "$f: verify-params prints INVALID"
    run "$CUZK" prove-params "$o/other.params" "$d/circuit.r1cs" "$d/witness.wtns" "$o/other.bin" --threads 1 \
        --no-verify
    expect 0 "$f: prove-params --threads 1 --no-verify under the second key"
    run "$CUZK" verify-params "$o/other.params" "$d/witness.wtns" "$o/other.bin"
    expect 0 "$f: ... that proof verifies under its own key"
    run "$CUZK" verify-params "$o/key.vk" "$d/witness.wtns" "$o/other.bin"
    expect 1 "$f: ... and is INVALID under the first key (exit 1)"
    cp "$o/proof.bin" "$o/flipped.bin"
    flip_byte "$o/flipped.bin" 20
    run "$CUZK" verify-params "$o/key.vk" "$d/witness.wtns" "$o/flipped.bin"
    expect 2 "$f: verify-params calls corrupted proof bytes malformed (exit 2)"

    # --device: cpu gives the same verified proof; gpu fails cleanly where there is no GPU or no CUDA
    # backend (and proves where there is); a bad value is a usage error
    run "$CUZK" prove-params "$o/key.params" "$d/circuit.r1cs" "$d/witness.wtns" "$o/cpu.bin" --device cpu
    expect 0 "$f: prove-params --device cpu"
    run "$CUZK" verify-params "$o/key.vk" "$d/witness.wtns" "$o/cpu.bin"
    expect 0 "$f: ... its proof verifies"
    run "$CUZK" prove-params "$o/key.params" "$d/circuit.r1cs" "$d/witness.wtns" "$o/auto.bin" --device=auto
    expect 0 "$f: prove-params --device=auto"
    run "$CUZK" prove-params "$o/key.params" "$d/circuit.r1cs" "$d/witness.wtns" "$o/gpu.bin" --device gpu
    if [ "$RC" -eq 0 ]; then
        run "$CUZK" verify-params "$o/key.vk" "$d/witness.wtns" "$o/gpu.bin"
        expect 0 "$f: --device gpu proved on a GPU, and the proof verifies"
    else
        expect 1 "$f: --device gpu without a usable GPU: exit 1"
        expect_err '^cuzk: --device gpu: (no CUDA device is present|this build has no CUDA backend)' \
            "$f: ... and says why"
        [ ! -e "$o/gpu.bin" ] && pass "$f: ... and writes nothing" || fail "$f: --device gpu left a file"
    fi
    run "$CUZK" prove-params "$o/key.params" "$d/circuit.r1cs" "$d/witness.wtns" "$o/tpu.bin" --device tpu
    expect 2 "$f: --device tpu is a usage error"
    rm -f "$o/cpu.bin" "$o/auto.bin" "$o/gpu.bin"

    run "$CUZK" inspect "$o/key.params"
    expect 0 "$f: inspect .params"
    expect_out 'bellperson Groth16 proving key \(\.params\)' "$f: inspect names a .params"
    expect_out '^status: valid' "$f: inspect calls the .params valid"
    run "$CUZK" inspect "$o/key.params" --deep --threads 2
    expect 0 "$f: inspect --deep .params"
    run "$CUZK" inspect "$o/key.vk"
    expect 0 "$f: inspect .vk"
    expect_out 'bellperson Groth16 verifying key \(\.vk\)' "$f: inspect names a .vk"
    run "$CUZK" inspect "$o/proof.bin"
    expect 0 "$f: inspect proof bytes"
    expect_out 'bellperson Groth16 proof bytes' "$f: inspect names proof bytes"

    # h[0]'s x coordinate corrupted: 864 fixed bytes, |ic|, ic, then |h|.
    local n_ic
    n_ic=$((16#$(od -An -t x1 -j 864 -N 4 "$o/key.params" | tr -d ' ')))
    cp "$o/key.params" "$o/bad.params"
    flip_byte "$o/bad.params" $((864 + 4 + 96 * n_ic + 4 + 20))
    run "$CUZK" inspect "$o/bad.params"
    expect 0 "$f: inspect of a .params with a bad point, length words only: valid"
    run "$CUZK" inspect "$o/bad.params" --deep
    expect 1 "$f: inspect --deep of a .params with a bad point: invalid (exit 1)"
    expect_out '^status: invalid: .*h\[0\]' "$f: inspect --deep names the bad point"
    # A key is random bytes from its first coordinate on: about one in a thousand begins with a blank
    # and '{', as if it were JSON text. It is still a .params (and a .vk), by its length words.
    local k
    for k in params vk; do
        cp "$o/key.$k" "$o/brace.$k"
        printf '\n{' | dd of="$o/brace.$k" bs=1 seek=0 conv=notrunc status=none
        run "$CUZK" inspect "$o/brace.$k"
        expect_out "bellperson Groth16 (proving|verifying) key \\(\\.$k\\)" \
            "$f: inspect names a .$k that begins with a blank and '{'"
    done
    mkdir -p "$o/out"
    run "$CUZK" prove-params "$o/bad.params" "$d/circuit.r1cs" "$d/witness.wtns" "$o/out/proof.bin"
    expect_error "$f: prove-params refuses a .params with a bad point"
    expect_empty_dir "$o/out" "$f: ... and writes nothing"
    check_coset_key "$f" "$d" "$o"
}

# cuzk coset-key: the key in the coset form (docs/design/022) proves proofs that verify under the same
# .vk, on every device this build and machine offer; inspect names it; a coset key, a key of another
# circuit and a key with a bad point are refused and leave nothing behind.
check_coset_key() {
    local f=$1 d=$2 o=$3 other=$FIX/bits dev
    [ "$f" = bits ] && other=$FIX/mixer
    run "$CUZK" coset-key "$o/key.params" "$d/circuit.r1cs" "$o/key.coset" --threads 2 --progress --verbose
    expect 0 "$f: coset-key"
    expect_err 'converting: 100%' "$f: coset-key shows its progress"
    expect_err 'timing .*load .* convert .* write' "$f: coset-key --verbose prints timings"
    run "$CUZK" inspect "$o/key.coset" --deep
    expect 0 "$f: inspect --deep of the coset key: valid"
    expect_out 'cuzk coset key' "$f: inspect names the coset key"
    for dev in cpu auto; do
        run "$CUZK" prove-params "$o/key.coset" "$d/circuit.r1cs" "$d/witness.wtns" "$o/coset.bin" --threads 2 \
            --device "$dev"
        expect 0 "$f: prove-params with the coset key (--device $dev)"
        run "$CUZK" verify-params "$o/key.vk" "$d/witness.wtns" "$o/coset.bin"
        expect 0 "$f: ... its proof verifies under the .vk"
    done
    mkdir -p "$o/cout"
    run "$CUZK" coset-key "$o/key.coset" "$d/circuit.r1cs" "$o/cout/x.coset"
    expect_error "$f: coset-key refuses a coset key"
    expect_err 'already a coset key' "$f: ... and says so"
    run "$CUZK" coset-key "$o/key.params" "$other/circuit.r1cs" "$o/cout/x.coset"
    expect_error "$f: coset-key refuses the key of another circuit"
    run "$CUZK" coset-key "$o/bad.params" "$d/circuit.r1cs" "$o/cout/x.coset"
    expect_error "$f: coset-key refuses a .params with a bad point"
    expect_empty_dir "$o/cout" "$f: ... and the refusals leave nothing behind"
    # outputs that cannot be written (a file-size limit), SIGXFSZ at its default action or ignored
    local xfsz
    for xfsz in default ignored; do
        printf 'old key' >"$o/cout/x.coset"
        run_fsize $xfsz 1 "$CUZK" coset-key "$o/key.params" "$d/circuit.r1cs" "$o/cout/x.coset"
        expect 1 "$f: coset-key, SIGXFSZ $xfsz: a key that cannot be written: exit 1"
        expect_err 'cannot write .*/x\.coset: writing .*/x\.coset\.tmp\.[0-9]+: File too large' \
            "$f: ... says which file and why"
        expect_only "$o/cout" "$f: ... the old key stands, nothing else" "x.coset=old key"
        rm "$o/cout/x.coset"
        printf 'old proof' >"$o/cout/p.bin"
        run_fsize $xfsz 0 "$CUZK" prove-params "$o/key.params" "$d/circuit.r1cs" "$d/witness.wtns" "$o/cout/p.bin"
        expect 1 "$f: prove-params, SIGXFSZ $xfsz: a proof that cannot be written: exit 1"
        expect_err 'cannot write .*/p\.bin: writing .*/p\.bin\.tmp\.[0-9]+: File too large' \
            "$f: ... says which file and why"
        expect_only "$o/cout" "$f: ... the old proof stands, nothing else" "p.bin=old proof"
        rm "$o/cout/p.bin"
    done
}

for f in "${FIXTURES[@]}"; do
    check_fixture "$f"
done
cli_finish
