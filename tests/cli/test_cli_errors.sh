#!/usr/bin/env bash
# test_cli_errors.sh — `cuzk` on bad input: every case must fail with a `cuzk: ` message, a status
# below 128 (no crash; under an ASan build no sanitizer report either), and leave no output and no
# temporary file behind; an output that existed before must be left untouched.
#
# Cases: .zkey, .wtns, .r1cs and .params files cut at several offsets; a witness of another circuit;
# a witness that breaks a constraint (caught by --check-witness, and without it by the verification
# of the proof before writing); a zkey with one corrupted point; garbage, empty, missing files and
# directories as inputs; an output in a missing directory or naming a directory.
# Usage: bash tests/cli/test_cli_errors.sh <build-dir>
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"

BITS=$FIX/bits
MUL=$FIX/mulchain

# prove_fails DESCRIPTION ZKEY WTNS [OPTIONS...]: prove must fail and write nothing.
prove_fails() {
    local desc=$1 o
    o=$(mktemp -d "$TMP/out.XXXXXX")
    run "$CUZK" prove "$2" "$3" "$o/proof.json" "$o/public.json" --threads 2 "${@:4}"
    expect_error "prove: $desc"
    expect_empty_dir "$o" "prove: $desc: nothing left behind"
}

# setup_fails DESCRIPTION R1CS: setup must fail and write nothing.
setup_fails() {
    local o
    o=$(mktemp -d "$TMP/out.XXXXXX")
    run "$CUZK" setup "$2" "$o/key.params" "$o/key.vk" --threads 2
    expect_error "setup: $1"
    expect_empty_dir "$o" "setup: $1: nothing left behind"
}

# prove_params_fails DESCRIPTION PARAMS R1CS WTNS: prove-params must fail and write nothing.
prove_params_fails() {
    local o
    o=$(mktemp -d "$TMP/out.XXXXXX")
    run "$CUZK" prove-params "$2" "$3" "$4" "$o/proof.bin" --threads 2
    expect_error "prove-params: $1"
    expect_empty_dir "$o" "prove-params: $1: nothing left behind"
}

cuts() { # cuts SIZE: offsets to cut a file of SIZE bytes at
    echo 0 3 4 11 12 40 100 $(($1 / 2)) $(($1 - 1))
}

# An output naming an input (however spelled: ./name, ../dir/name, a symbolic link) or another output is
# a usage error before any work; every input is left as it was.
check_output_names() {
    local d=$TMP/names
    mkdir -p "$d"
    cp "$MUL/circuit.zkey" "$MUL/witness.wtns" "$MUL/circuit.r1cs" "$d/"
    ln -s circuit.zkey "$d/link.zkey"
    local sums
    sums=$(cd "$d" && sha256sum circuit.zkey witness.wtns circuit.r1cs)
    cd "$d"
    run "$CUZK" prove circuit.zkey witness.wtns ./witness.wtns public.json
    expect 2 "prove: proof.json naming the witness: usage error"
    expect_err "prove: the output ./witness.wtns is the input witness.wtns" "... saying which"
    run "$CUZK" prove circuit.zkey witness.wtns proof.json link.zkey
    expect 2 "prove: public.json a link to the key: usage error"
    run "$CUZK" prove circuit.zkey witness.wtns p.json "../names/p.json"
    expect 2 "prove: proof.json and public.json one file spelled twice: usage error"
    expect_err "prove: two outputs name one file" "... saying so"
    run "$CUZK" prove circuit.zkey witness.wtns p.json q.json --check-witness q.json
    expect 2 "prove: public.json naming the --check-witness circuit: usage error"
    run "$CUZK" setup circuit.r1cs circuit.r1cs
    expect 2 "setup: the key naming the circuit: usage error"
    run "$CUZK" setup circuit.r1cs k.params k.params
    expect 2 "setup: the .params and .vk one file: usage error"
    run "$CUZK" setup circuit.r1cs k.params circuit.r1cs
    expect 2 "setup: the .vk naming the circuit: usage error"
    run "$CUZK" prove-params k.params circuit.r1cs witness.wtns "$d/witness.wtns"
    expect 2 "prove-params: proof.bin naming the witness: usage error"
    run "$CUZK" coset-key k.params circuit.r1cs ./k.params
    expect 2 "coset-key: the coset key naming the .params: usage error"
    [ "$(sha256sum circuit.zkey witness.wtns circuit.r1cs)" = "$sums" ] && pass "... every input as it was" ||
        fail "an input was changed"
    [ -z "$(ls -A | grep -v -e '^circuit\.' -e '^witness\.wtns$' -e '^link\.zkey$')" ] &&
        pass "... and nothing written" || fail "written: $(ls -A)"
    run "$CUZK" prove circuit.zkey witness.wtns proof.json public.json
    expect 0 "prove: the same command with distinct outputs works"
    cd - >/dev/null
}

check_truncated() {
    local n f
    n=$(stat -c %s "$MUL/circuit.zkey")
    for c in $(cuts "$n"); do
        truncate_copy "$MUL/circuit.zkey" "$TMP/cut.zkey" "$c"
        prove_fails "zkey cut at byte $c of $n" "$TMP/cut.zkey" "$MUL/witness.wtns"
    done
    n=$(stat -c %s "$MUL/witness.wtns")
    for c in $(cuts "$n"); do
        truncate_copy "$MUL/witness.wtns" "$TMP/cut.wtns" "$c"
        prove_fails "wtns cut at byte $c of $n" "$MUL/circuit.zkey" "$TMP/cut.wtns"
    done
    n=$(stat -c %s "$BITS/circuit.r1cs")
    for c in $(cuts "$n"); do
        truncate_copy "$BITS/circuit.r1cs" "$TMP/cut.r1cs" "$c"
        setup_fails "r1cs cut at byte $c of $n" "$TMP/cut.r1cs"
        prove_fails "--check-witness with an r1cs cut at byte $c" "$BITS/circuit.zkey" "$BITS/witness.wtns" \
            --check-witness "$TMP/cut.r1cs"
    done
}

check_mismatch() {
    prove_fails "witness of another circuit" "$MUL/circuit.zkey" "$BITS/witness.wtns"
    expect_err 'another circuit' "prove: a witness of another circuit is named as such"
    prove_fails "--check-witness with another circuit" "$MUL/circuit.zkey" "$MUL/witness.wtns" \
        --check-witness "$BITS/circuit.r1cs"

    # The last value of the mulchain witness changed: no longer satisfies the circuit.
    local off n
    cp "$MUL/witness.wtns" "$TMP/bad.wtns"
    n=$(u32le "$TMP/bad.wtns" $(($(section_offset "$TMP/bad.wtns" 1) + 4 + 32)))
    off=$(section_offset "$TMP/bad.wtns" 2)
    flip_byte "$TMP/bad.wtns" $((off + 32 * (n - 1)))
    prove_fails "unsatisfied witness, --check-witness" "$MUL/circuit.zkey" "$TMP/bad.wtns" \
        --check-witness "$MUL/circuit.r1cs"
    expect_err 'constraint|row' "prove: --check-witness names the failing constraint"
    prove_fails "unsatisfied witness, caught by verifying the proof" "$MUL/circuit.zkey" "$TMP/bad.wtns"
    run "$CUZK" prove "$MUL/circuit.zkey" "$TMP/bad.wtns" "$TMP/nv_proof.json" "$TMP/nv_public.json" --no-verify
    if [ "$RC" -eq 0 ]; then
        run "$CUZK" verify "$MUL/verification_key.json" "$TMP/nv_public.json" "$TMP/nv_proof.json"
        expect 1 "prove --no-verify with a bad witness: the proof it wrote is invalid"
    else
        expect_error "prove --no-verify with a bad witness fails in the prover"
    fi

    # One point of the zkey's H section corrupted (its x coordinate, so it leaves the curve).
    cp "$MUL/circuit.zkey" "$TMP/badpoint.zkey"
    off=$(section_offset "$TMP/badpoint.zkey" 9)
    flip_byte "$TMP/badpoint.zkey" $((off + 96 * 5 + 7))
    prove_fails "zkey with a corrupted H point" "$TMP/badpoint.zkey" "$MUL/witness.wtns"
}

check_files() {
    head -c 4096 /dev/urandom >"$TMP/garbage"
    { printf 'zkey\001\000\000\000\012\000\000\000'; head -c 4096 /dev/urandom; } >"$TMP/garbage.zkey"
    : >"$TMP/empty"
    mkdir -p "$TMP/adir"
    prove_fails "garbage zkey" "$TMP/garbage" "$BITS/witness.wtns"
    prove_fails "garbage behind a zkey header" "$TMP/garbage.zkey" "$BITS/witness.wtns"
    prove_fails "empty zkey" "$TMP/empty" "$BITS/witness.wtns"
    prove_fails "garbage wtns" "$BITS/circuit.zkey" "$TMP/garbage"
    prove_fails "missing zkey" "$TMP/no-such.zkey" "$BITS/witness.wtns"
    expect_err 'no-such.zkey: No such file' "prove: a missing file is named"
    prove_fails "missing wtns" "$BITS/circuit.zkey" "$TMP/no-such.wtns"
    prove_fails "directory as zkey" "$TMP/adir" "$BITS/witness.wtns"
    prove_fails "directory as wtns" "$BITS/circuit.zkey" "$TMP/adir"
    setup_fails "garbage r1cs" "$TMP/garbage"
    setup_fails "missing r1cs" "$TMP/no-such.r1cs"
    setup_fails "directory as r1cs" "$TMP/adir"

    local o
    o=$(mktemp -d "$TMP/out.XXXXXX")
    run "$CUZK" prove "$BITS/circuit.zkey" "$BITS/witness.wtns" "$TMP/no/such/dir/proof.json" "$o/public.json"
    expect_error "prove: proof.json in a missing directory"
    expect_empty_dir "$o" "prove: ... and public.json is not written either"
    run "$CUZK" prove "$BITS/circuit.zkey" "$BITS/witness.wtns" "$o/proof.json" "$TMP/adir"
    expect_error "prove: public.json names a directory"
    expect_empty_dir "$o" "prove: ... and proof.json is not written either"
    run "$CUZK" setup "$BITS/circuit.r1cs" "$o/key.params" "$TMP/no/such/dir/key.vk"
    expect_error "setup: .vk in a missing directory"
    expect_empty_dir "$o" "setup: ... and the .params is not written either"
    # Outputs that cannot be written (a 1 KiB file-size limit) fail with the file and the reason, exit 1,
    # and leave the old outputs as they were and no temporary file, whether SIGXFSZ is ignored or at its
    # default action (cuzk ignores it, so the write fails with EFBIG instead of killing the process).
    local xfsz
    for xfsz in default ignored; do
        printf 'old params' >"$o/key.params"
        printf 'old vk' >"$o/key.vk"
        run_fsize $xfsz 1 "$CUZK" setup "$BITS/circuit.r1cs" "$o/key.params" "$o/key.vk"
        expect 1 "setup, SIGXFSZ $xfsz: a key that cannot be written: exit 1"
        expect_err 'cannot write .*key\.(params|vk): writing .*\.tmp\.[0-9]+: File too large' "setup: ... says which file and why"
        expect_only "$o" "setup: ... the old .params and .vk stand, nothing else" "key.params=old params" "key.vk=old vk"
        rm -f "$o/key.params" "$o/key.vk"
        printf 'old proof' >"$o/proof.json"
        printf 'old public' >"$o/public.json"
        run_fsize $xfsz 1 "$CUZK" prove "$BITS/circuit.zkey" "$BITS/witness.wtns" "$o/proof.json" "$o/public.json"
        expect 1 "prove, SIGXFSZ $xfsz: a proof.json that cannot be written: exit 1"
        expect_err 'cannot write .*/proof\.json: writing .*/proof\.json\.tmp\.[0-9]+: File too large' \
            "prove: ... says which file and why"
        expect_only "$o" "prove: ... the old proof.json and public.json stand, nothing else" \
            "proof.json=old proof" "public.json=old public"
        rm -f "$o/proof.json" "$o/public.json"
        run_fsize $xfsz 0 "$CUZK" prove "$BITS/circuit.zkey" "$BITS/witness.wtns" "$o/proof.json" "$o/public.json"
        expect 1 "prove, SIGXFSZ $xfsz: no room at all: exit 1"
        expect_empty_dir "$o" "prove: ... no output and no temporary file"
    done

    # A failed prove leaves existing outputs as they were.
    printf 'old proof' >"$o/proof.json"
    printf 'old public' >"$o/public.json"
    run "$CUZK" prove "$MUL/circuit.zkey" "$BITS/witness.wtns" "$o/proof.json" "$o/public.json"
    expect_error "prove: failure with existing outputs"
    if [ "$(cat "$o/proof.json")" = "old proof" ] && [ "$(cat "$o/public.json")" = "old public" ] &&
        [ "$(ls -A "$o" | wc -l)" -eq 2 ]; then
        pass "prove: existing outputs untouched after a failure"
    else
        fail "prove: existing outputs changed after a failure: $(ls -A "$o")"
    fi
}

check_verify_inputs() {
    local vk=$BITS/verification_key.json pub=$BITS/public.json proof=$BITS/proof.json
    run "$CUZK" verify "$TMP/no-such.json" "$pub" "$proof"
    expect 2 "verify: missing verification key: exit 2"
    expect_error "verify: ... with a message"
    run "$CUZK" verify "$vk" "$pub" "$TMP/adir"
    expect 2 "verify: directory as proof.json: exit 2"
    run "$CUZK" verify "$vk" "$TMP/garbage" "$proof"
    expect 2 "verify: garbage public.json: exit 2"
    run "$CUZK" verify "$vk" "$pub" "$TMP/empty"
    expect 2 "verify: empty proof.json: exit 2"
    run "$CUZK" verify "$vk" "$pub" "$vk"
    expect 2 "verify: a verification key as proof.json: exit 2"
    run "$CUZK" verify "$MUL/verification_key.json" "$pub" "$proof"
    expect 2 "verify: key of another circuit (public count differs): exit 2"
    expect_err 'public values' "verify: ... names the count mismatch"
    head -c 300 "$proof" >"$TMP/cut_proof.json"
    run "$CUZK" verify "$vk" "$pub" "$TMP/cut_proof.json"
    expect 2 "verify: truncated proof.json: exit 2"
    sed 's/"groth16"/"plonk"/' "$proof" >"$TMP/plonk.json"
    run "$CUZK" verify "$vk" "$pub" "$TMP/plonk.json"
    expect 2 "verify: another protocol: exit 2"
}

check_params_inputs() {
    local k=$TMP/keys
    mkdir -p "$k"
    run "$CUZK" setup "$MUL/circuit.r1cs" "$k/mul.params" "$k/mul.vk" --threads 2
    expect 0 "setup of a key for the params cases"
    local n
    n=$(stat -c %s "$k/mul.params")
    for c in 0 100 863 864 868 900 $((n / 2)) $((n - 1)); do
        truncate_copy "$k/mul.params" "$TMP/cut.params" "$c"
        prove_params_fails "params cut at byte $c of $n" "$TMP/cut.params" "$MUL/circuit.r1cs" "$MUL/witness.wtns"
    done
    prove_params_fails "witness of another circuit" "$k/mul.params" "$MUL/circuit.r1cs" "$BITS/witness.wtns"
    prove_params_fails "r1cs of another circuit" "$k/mul.params" "$BITS/circuit.r1cs" "$BITS/witness.wtns"
    prove_params_fails "unsatisfied witness" "$k/mul.params" "$MUL/circuit.r1cs" "$TMP/bad.wtns"
    prove_params_fails "garbage params" "$TMP/garbage" "$MUL/circuit.r1cs" "$MUL/witness.wtns"
    prove_params_fails "missing params" "$TMP/no-such.params" "$MUL/circuit.r1cs" "$MUL/witness.wtns"
    prove_params_fails "directory as r1cs" "$k/mul.params" "$TMP/adir" "$MUL/witness.wtns"
    head -c 192 /dev/urandom >"$TMP/garbage.bin"
    run "$CUZK" verify-params "$k/mul.vk" "$MUL/witness.wtns" "$TMP/garbage.bin"
    expect 2 "verify-params: garbage proof bytes: exit 2"
    run "$CUZK" verify-params "$k/mul.vk" "$MUL/witness.wtns" "$TMP/empty"
    expect 2 "verify-params: empty proof file: exit 2"
    run "$CUZK" verify-params "$TMP/cut.params" "$MUL/witness.wtns" "$TMP/garbage.bin"
    expect 2 "verify-params: truncated key: exit 2"
    run "$CUZK" verify-params "$k/mul.vk" "$TMP/garbage" "$TMP/garbage.bin"
    expect 2 "verify-params: garbage public inputs: exit 2"
}

# Standard output that cannot be written (a full disk behind `> file`) is a failure with the reason,
# except for verify, whose exit status is its answer.
check_stdout_full() {
    if [ ! -w /dev/full ]; then
        pass "stdout to /dev/full: no /dev/full here"
        return
    fi
    run_full() {
        set +e
        "$@" >/dev/full 2>"$TMP/stderr"
        RC=$?
        set -e
    }
    run_full "$CUZK" inspect "$MUL/circuit.r1cs"
    expect 1 "inspect > /dev/full: exit 1"
    expect_err '^cuzk: cannot write the standard output: No space left on device$' "... with the reason"
    run_full "$CUZK" --help
    expect 1 "--help > /dev/full: exit 1"
    run_full "$CUZK" verify "$MUL/verification_key.json" "$MUL/public.json" "$MUL/proof.json"
    expect 0 "verify > /dev/full: the valid proof's exit 0 stands"
    expect_err '^cuzk: cannot write the standard output' "... and the lost OK is reported"
}

check_output_names
check_truncated
check_mismatch
check_stdout_full
check_files
check_verify_inputs
check_params_inputs
cli_finish
