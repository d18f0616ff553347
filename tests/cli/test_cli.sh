#!/usr/bin/env bash
# test_cli.sh — end-to-end checks of the snarkjs path of `cuzk` and of its command line.
#
# For every committed circom fixture (tests/fixtures/{bits,mixer,mulchain}): `cuzk prove` writes a
# public.json equal byte for byte to snarkjs's and a proof.json that `cuzk verify` and
# `snarkjs groth16 verify` both accept; snarkjs's own committed proof passes `cuzk verify`; a
# public.json with its first value increased by one and a proof with pi_a and pi_c swapped are
# rejected by both verifiers (cuzk: exit 1 and INVALID); a proof with a point off the curve is
# malformed input (exit 2). The options (--threads, --no-verify, --check-witness, --verbose) and
# every command's --help and usage errors (exit 2) are checked too.
# Usage: bash tests/cli/test_cli.sh <build-dir>   (ctest passes the build directory)
set -euo pipefail
source "$(dirname "$0")/common.sh"
cli_init "$@"

# ---- command line -------------------------------------------------------------------------
check_usage() {
    run "$CUZK" --help
    expect 0 "cuzk --help"
    for c in prove verify setup prove-params verify-params coset-key inspect; do
        grep -q "^  $c " "$TMP/stdout" || fail "cuzk --help does not list $c"
    done
    run "$CUZK" --version
    expect 0 "cuzk --version"
    expect_out '^cuzk [0-9]+\.[0-9]+\.[0-9]+$' "--version prints the version"
    run "$CUZK"
    expect 2 "no command: exit 2"
    run "$CUZK" frobnicate
    expect 2 "unknown command: exit 2"
    expect_err "unknown command 'frobnicate'" "unknown command is named"

    local -A synopsis=(
        [prove]='<circuit.zkey> <witness.wtns> <proof.json> <public.json>'
        [verify]='<verification_key.json> <public.json> <proof.json>'
        [setup]='<circuit.r1cs> <out.params> \[<out.vk>\]'
        [prove-params]='<key.params> <circuit.r1cs> <witness.wtns> <proof.bin>'
        [verify-params]='<key.vk\|key.params> <witness.wtns\|public.json> <proof.bin>'
        [coset-key]='<key.params> <circuit.r1cs> <key.coset>'
        [inspect]='<file>'
    )
    for c in "${!synopsis[@]}"; do
        run "$CUZK" "$c" --help
        expect 0 "$c --help"
        expect_out "Usage: cuzk $c ${synopsis[$c]}" "$c --help shows its arguments"
        run "$CUZK" help "$c"
        expect 0 "cuzk help $c"
        run "$CUZK" "$c"
        expect 2 "$c without arguments: exit 2"
        expect_err "^Usage: cuzk $c" "$c usage error prints the usage line"
        run "$CUZK" "$c" a b c d e
        expect 2 "$c with too many arguments: exit 2"
        run "$CUZK" "$c" --no-such-flag x
        expect 2 "$c with an unknown option: exit 2"
    done
    for c in prove setup prove-params verify-params coset-key inspect; do
        grep -q -- '--threads' <("$CUZK" "$c" --help) || fail "$c --help lacks --threads"
    done

    local b=$FIX/bits
    for bad in 0 -1 abc 1x "" 99999; do
        run "$CUZK" prove "$b/circuit.zkey" "$b/witness.wtns" "$TMP/p.json" "$TMP/u.json" --threads "$bad"
        expect 2 "prove --threads '$bad': exit 2"
    done
    run "$CUZK" prove "$b/circuit.zkey" "$b/witness.wtns" "$TMP/p.json" "$TMP/u.json" --threads
    expect 2 "prove --threads without a value: exit 2"
    run "$CUZK" prove "$b/circuit.zkey" "$b/witness.wtns" "$TMP/p.json" "$TMP/u.json" --deep
    expect 2 "prove --deep (an option of another command): exit 2"
    run "$CUZK" verify "$b/verification_key.json" "$b/public.json" "$b/proof.json" --threads 2
    expect 2 "verify --threads (not parallel work): exit 2"
    run "$CUZK" prove "$b/circuit.zkey" "$b/witness.wtns" "$TMP/same.json" "$TMP/same.json"
    expect 2 "prove with proof.json = public.json: exit 2"
    [ ! -e "$TMP/p.json" ] && [ ! -e "$TMP/same.json" ] || fail "a usage error wrote an output"
}

# ---- snarkjs path, one fixture --------------------------------------------------------------
check_fixture() {
    local f=$1 d=$FIX/$1 out=$TMP/$1
    mkdir -p "$out"
    run "$CUZK" prove "$d/circuit.zkey" "$d/witness.wtns" "$out/proof.json" "$out/public.json" --threads 2 --verbose
    expect 0 "$f: prove"
    expect_err 'timing \(2 threads\): load .* prove .* verify .* total' "$f: --verbose prints timings"
    sed -n 's/^cuzk: timing/    timing/p' "$TMP/stderr"
    [ "$(ls -A "$out" | wc -l)" -eq 2 ] || fail "$f: prove left extra files: $(ls -A "$out")"
    if cmp -s "$out/public.json" "$d/public.json"; then
        pass "$f: public.json equals snarkjs's byte for byte"
    else
        fail "$f: public.json differs from snarkjs's"
    fi
    run "$CUZK" verify "$d/verification_key.json" "$out/public.json" "$out/proof.json"
    expect 0 "$f: cuzk verify accepts our proof"
    expect_out '^OK$' "$f: cuzk verify prints OK"
    run "$CUZK" verify "$d/verification_key.json" "$d/public.json" "$d/proof.json" --verbose
    expect 0 "$f: cuzk verify accepts snarkjs's committed proof"

    tamper_public "$d/public.json" "$out/public_bad.json"
    cmp -s "$d/public.json" "$out/public_bad.json" && fail "$f: tamper_public changed nothing"
    run "$CUZK" verify "$d/verification_key.json" "$out/public_bad.json" "$out/proof.json"
    expect 1 "$f: cuzk verify rejects a tampered public.json (exit 1)"
    expect_out '^INVALID$' "$f: cuzk verify prints INVALID"
    swap_a_c "$out/proof.json" "$out/proof_bad.json"
    cmp -s "$out/proof.json" "$out/proof_bad.json" && fail "$f: swap_a_c changed nothing"
    run "$CUZK" verify "$d/verification_key.json" "$out/public.json" "$out/proof_bad.json"
    expect 1 "$f: cuzk verify rejects a tampered proof.json (exit 1)"
    off_curve "$out/proof.json" "$out/proof_offcurve.json"
    run "$CUZK" verify "$d/verification_key.json" "$out/public.json" "$out/proof_offcurve.json"
    expect 2 "$f: cuzk verify calls a point off the curve malformed (exit 2)"
    expect_error "$f: ... with a message"

    if [ "$HAVE_SNARKJS" = 1 ]; then
        run "$SNARKJS" groth16 verify "$d/verification_key.json" "$out/public.json" "$out/proof.json"
        expect 0 "$f: snarkjs groth16 verify accepts our proof"
        run "$SNARKJS" groth16 verify "$d/verification_key.json" "$out/public_bad.json" "$out/proof.json"
        [ "$RC" -ne 0 ] && pass "$f: snarkjs rejects the tampered public.json" ||
            fail "$f: snarkjs accepted the tampered public.json"
        run "$SNARKJS" groth16 verify "$d/verification_key.json" "$out/public.json" "$out/proof_bad.json"
        [ "$RC" -ne 0 ] && pass "$f: snarkjs rejects the tampered proof.json" ||
            fail "$f: snarkjs accepted the tampered proof.json"
    fi

    run "$CUZK" prove "$d/circuit.zkey" "$d/witness.wtns" "$out/p2.json" "$out/u2.json" --threads=1 \
        --check-witness "$d/circuit.r1cs" --no-verify
    expect 0 "$f: prove --threads=1 --check-witness --no-verify"
    run "$CUZK" verify "$d/verification_key.json" "$out/u2.json" "$out/p2.json"
    expect 0 "$f: ... and that proof verifies"
    if cmp -s "$out/proof.json" "$out/p2.json"; then
        fail "$f: two proofs are equal (r and s are not random?)"
    else
        pass "$f: two proofs differ (fresh r and s)"
    fi

    # --device: cpu proves; gpu proves on a GPU or fails cleanly without one; a bad value is a usage error
    run "$CUZK" prove "$d/circuit.zkey" "$d/witness.wtns" "$out/pc.json" "$out/uc.json" --device cpu
    expect 0 "$f: prove --device cpu"
    run "$CUZK" verify "$d/verification_key.json" "$out/uc.json" "$out/pc.json"
    expect 0 "$f: ... and that proof verifies"
    run "$CUZK" prove "$d/circuit.zkey" "$d/witness.wtns" "$out/pg.json" "$out/ug.json" --device gpu
    if [ "$RC" -eq 0 ]; then
        run "$CUZK" verify "$d/verification_key.json" "$out/ug.json" "$out/pg.json"
        expect 0 "$f: prove --device gpu proved on a GPU, and the proof verifies"
    else
        expect 1 "$f: prove --device gpu without a usable GPU: exit 1"
        expect_err '^cuzk: --device gpu: (no CUDA device is present|this build has no CUDA backend)' \
            "$f: ... and says why"
        [ ! -e "$out/pg.json" ] && [ ! -e "$out/ug.json" ] && pass "$f: ... and writes nothing" ||
            fail "$f: prove --device gpu left a file"
    fi
    run "$CUZK" prove "$d/circuit.zkey" "$d/witness.wtns" "$out/pt.json" "$out/ut.json" --device tpu
    expect 2 "$f: prove --device tpu is a usage error"
}

check_usage
HAVE_SNARKJS=0
if have_snarkjs; then HAVE_SNARKJS=1; fi
for f in "${FIXTURES[@]}"; do
    check_fixture "$f"
done
cli_finish
